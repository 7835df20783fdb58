// Content rendered after a timer: the Vue app mounts its chrome at once and shows a placeholder; the
// feature itself appears two seconds later (as pages do that wait on an animation or a consent
// library before drawing their content). DOM completion: article.feature p.feature-end.
import '../../shared/base.css';
import { createApp, h, ref, onMounted } from 'vue';
import { masthead, footer, paragraphs } from '../../shared/vue/chrome.js';
import { site, feature } from './feature.js';

const App = {
  setup() {
    const ready = ref(false);
    onMounted(() => setTimeout(() => { ready.value = true; }, 2000));
    return () => h('div', [
      masthead(site),
      h('main', [
        ready.value
          ? h('article', { class: 'feature' }, [
            h('p', { class: 'kicker' }, feature.kicker),
            h('h1', feature.title),
            h('p', { class: 'byline' }, [h('span', { class: 'author' }, feature.author), ` · ${feature.credit}`]),
            h('div', { class: 'article-body' }, [...paragraphs(feature.blocks), h('p', { class: 'feature-end' }, feature.last)]),
          ])
          : h('p', { class: 'loading' }, 'Preparing the feature…'),
      ]),
      footer(site),
    ]);
  },
};

createApp(App).mount('#app');
