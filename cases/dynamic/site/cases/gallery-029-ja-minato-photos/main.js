// A photo gallery drawn by Vue: the six photographs of the harbour festival and their captions come from
// api/photos.json after load; each photo links to its full-size file. The static HTML holds only the mount point.
import '../../shared/base.css';
import { createApp, h, ref, onMounted } from 'vue';

const App = {
  setup() {
    const photos = ref(null);
    onMounted(async () => {
      const response = await fetch('api/photos.json');
      photos.value = (await response.json()).photos;
    });
    return () => h('div', [
      h('header', { class: 'masthead' }, [h('a', { class: 'logo', href: './' }, 'みなと日報'),
        h('p', { class: 'tagline' }, '港町のニュースを毎朝')]),
      h('main', [
        h('h1', '写真で見る港まつり'),
        h('p', '今年の港まつりの様子を、本紙写真部の6枚で紹介します。'),
        photos.value === null
          ? h('p', { class: 'loading' }, '写真を読み込んでいます…')
          : h('div', { class: 'gallery' }, photos.value.map((photo) => h('figure', { class: 'photo', key: photo.src }, [
            h('a', { href: photo.full }, [h('img', { src: photo.src, alt: photo.caption, width: 320, height: 200 })]),
            h('figcaption', photo.caption),
          ]))),
      ]),
      h('footer', { class: 'site-footer' }, [h('p', 'みなと日報社')]),
    ]);
  },
};

createApp(App).mount('#app');
