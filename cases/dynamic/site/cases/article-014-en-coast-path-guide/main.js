// Tabs: a Vue app renders a walking guide from api/guide.json with three tab panels. Only the first
// ("Overview") is shown on load; the others are rendered but hidden (v-show → display:none) until a
// reader switches tabs, so only the active panel is in scope.
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';
import { masthead, footer, paragraphs } from '../../shared/vue/chrome.js';

const site = {
  name: 'Trailhead Guides',
  tagline: 'Walks worth the drive',
  sections: ['Coast walks', 'Hill walks', 'Family walks', 'Maps and apps'],
  footer: ['About our walk testers', 'Walk safely', 'Send us a correction', 'Privacy'],
  footnote: 'Trailhead Guides checks every route on foot at least once a year.',
};

const App = {
  setup() {
    const guide = ref(null);
    const active = ref(0);
    fetch('api/guide.json').then((response) => response.json()).then((data) => { guide.value = data; });
    return () => h('div', [
      masthead(site),
      h('main', guide.value === null ? [h('p', { class: 'loading' }, 'Loading the guide…')] : [
        h('p', { class: 'kicker' }, guide.value.kicker),
        h('h1', guide.value.title),
        h('p', { class: 'byline' }, ['Tested by ', h('span', { class: 'author' }, guide.value.author), ` · ${guide.value.checked}`]),
        h('div', { class: 'tabs', role: 'tablist' }, guide.value.tabs.map((tab, i) => h('button', {
          role: 'tab', 'aria-selected': String(active.value === i), onClick: () => { active.value = i; },
        }, tab.label))),
        ...guide.value.tabs.map((tab, i) => h('section', {
          role: 'tabpanel', class: 'tab-panel article-body', id: `panel-${i}`, style: active.value === i ? null : 'display: none',
        }, paragraphs(tab.blocks))),
      ]),
      footer(site),
    ]);
  },
};

createApp(App).mount('#app');
