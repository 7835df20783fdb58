// Ein clientseitig gerenderter Artikel: Vue baut die ganze Seite nach einem fetch() von api/artikel.json.
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';
import { masthead, footer, paragraphs } from '../../shared/vue/chrome.js';

const site = {
  name: 'Nordheimer Stadtanzeiger',
  tagline: 'Nachrichten aus Nordheim und dem Umland',
  sections: ['Lokales', 'Wirtschaft', 'Sport', 'Kultur', 'Leserbriefe'],
  footer: ['Impressum', 'Datenschutz', 'Kontakt zur Redaktion', 'Abo-Service'],
  footnote: 'Nordheimer Stadtanzeiger – eine Zeitung der Weserland Medien GmbH.',
};

const App = {
  setup() {
    const artikel = ref(null);
    fetch('api/artikel.json').then((response) => response.json()).then((data) => { artikel.value = data; });
    return () => h('div', [
      masthead(site),
      h('main', artikel.value === null ? [h('p', { class: 'loading' }, 'Artikel wird geladen …')] : [h('article', [
        h('p', { class: 'kicker' }, artikel.value.rubrik),
        h('h1', artikel.value.titel),
        h('p', { class: 'byline' }, ['Von ', h('span', { class: 'author' }, artikel.value.autorin), ` · ${artikel.value.datum}`]),
        h('div', { class: 'article-body' }, paragraphs(artikel.value.absaetze)),
      ])]),
      footer(site),
    ]);
  },
};

createApp(App).mount('#app');
