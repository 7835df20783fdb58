// ポータルのトップページ：サービスの一覧やフッターは毎回同じだが、主要ニュースは api/topics.json の候補から
// 読み込みのたびに選び直される（見出しは読み込みごとに変わる）。
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';

const services = ['ニュース', '天気・災害', '路線情報', '地図', 'ショッピング', 'オークション', '知恵袋', 'ファイナンス'];
const footerLinks = ['ヘルプ・お問い合わせ', '利用規約', 'プライバシーポリシー', '広告掲載について'];

function pick(pool, count) {
  const copy = pool.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, count);
}

const App = {
  setup() {
    const topics = ref(null);
    fetch('api/topics.json').then((response) => response.json()).then((data) => { topics.value = pick(data.topics, 8); });
    return () => h('div', [
      h('header', { class: 'masthead' }, [
        h('h1', { class: 'logo' }, 'そらポータル'),
        h('nav', { 'aria-label': 'サービス' }, [h('ul', { class: 'sections' }, services.map((label, i) => h('li', [h('a', { href: `service/${i + 1}/` }, label)])))]),
      ]),
      h('div', { class: 'layout' }, [
        h('main', [
          h('h2', '主要ニュース'),
          topics.value === null
            ? h('p', { class: 'loading' }, '読み込み中…')
            : h('ul', { class: 'topics' }, topics.value.map((topic) => h('li', [h('a', { href: `news/articles/${topic.id}.html` }, topic.headline)]))),
          h('p', [h('a', { href: 'news/' }, 'もっと見る')]),
        ]),
        h('aside', { class: 'rail' }, [
          h('h2', 'ログイン'),
          h('p', 'ログインすると、メールやお気に入りの設定が使えます。'),
          h('button', { type: 'button' }, 'ログイン'),
          h('h2', '天気'),
          h('p', [h('a', { href: 'weather/' }, '各地の天気を見る')]),
        ]),
      ]),
      h('footer', { class: 'site-footer' }, [
        h('ul', footerLinks.map((label, i) => h('li', [h('a', { href: `about/${i + 1}/` }, label)]))),
        h('p', 'そらポータル株式会社'),
      ]),
    ]);
  },
};

createApp(App).mount('#app');
