// 应用首页的信息流：Vue 渲染整页，首页文章卡片来自 fetch('api/feed.json')。每张卡片有作者、摘要、
// 点赞和评论数，以及文章自己的链接。
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';

const nav = ['首页', '精选', '专栏', '播客', '活动'];
const footerLinks = ['关于拾光', '加入我们', '用户协议', '隐私政策', '联系我们'];

const App = {
  setup() {
    const posts = ref(null);
    fetch('api/feed.json').then((response) => response.json()).then((data) => { posts.value = data.posts; });
    return () => h('div', [
      h('header', { class: 'masthead' }, [
        h('a', { class: 'logo', href: './' }, '拾光'),
        h('p', { class: 'tagline' }, '发现值得一读的生活方式'),
        h('nav', [h('ul', { class: 'sections' }, nav.map((label, i) => h('li', [h('a', { href: `channel/${i}/` }, label)])))]),
      ]),
      h('div', { class: 'layout' }, [
        h('main', [
          h('h1', '今日推荐'),
          posts.value === null ? h('p', { class: 'loading' }, '加载中……') : h('div', { class: 'post-list' }, posts.value.map((post) => h('article', { class: 'card post-card', 'data-post-id': post.id }, [
            h('h2', [h('a', { class: 'post-title', href: `post/${post.id}/` }, post.title)]),
            h('p', { class: 'meta' }, [h('a', { class: 'post-author', href: `u/${post.uid}/` }, post.author)]),
            h('p', { class: 'post-text' }, post.summary),
            h('p', { class: 'meta' }, `${post.likes} 赞 · ${post.comments} 评论`),
          ]))),
        ]),
        h('aside', { class: 'rail' }, [h('h2', '下载拾光 App'), h('p', '随时随地阅读，离线也能看。')]),
      ]),
      h('footer', { class: 'site-footer' }, [
        h('ul', footerLinks.map((label, i) => h('li', [h('a', { href: `about/${i}/` }, label)]))),
        h('p', '拾光科技'),
      ]),
    ]);
  },
};

createApp(App).mount('#app');
