// La page en une seule application Vue (fonctions de rendu), rendue côté serveur au build (ssr.js) puis
// hydratée dans le navigateur (main.js). Après l'hydratation, l'application récupère la mise à jour de
// l'article et remplace le texte d'attente du serveur.
import { createSSRApp, h, ref, onMounted } from 'vue';
import { masthead, footer, paragraphs } from '../../shared/vue/chrome.js';
import { site, article } from './article.js';

const MiseAJour = {
  setup() {
    const update = ref(null);
    onMounted(() => {
      fetch('api/mise-a-jour.json').then((response) => response.json()).then((data) => { update.value = data; });
    });
    return () => (update.value === null
      ? h('p', { class: 'loading', id: 'update-status' }, 'Recherche de mises à jour…')
      : h('section', { class: 'story-update', id: 'story-update' }, [h('h2', update.value.titre), ...update.value.paragraphes.map((p) => h('p', p))]));
  },
};

export function createApp() {
  return createSSRApp({
    render: () => h('div', [
      masthead(site),
      h('main', [h('article', [
        h('p', { class: 'kicker' }, article.rubrique),
        h('h1', article.titre),
        h('p', { class: 'byline' }, ['Par ', h('span', { class: 'author' }, article.auteur), ` · ${article.date}`]),
        h('div', { class: 'article-body' }, paragraphs(article.blocs)),
        h(MiseAJour),
      ])]),
      footer(site),
    ]),
  });
}
