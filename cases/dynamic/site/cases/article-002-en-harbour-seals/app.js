// The page as one React tree, written with createElement so the build can render it on the server
// (ssr.js) and the browser can hydrate the same tree (main.js). After hydration the app fetches the
// story's latest update and replaces the server's placeholder with it.
import { createElement as h, useEffect, useState } from 'react';
import { story, site } from './story.js';

function Update() {
  const [update, setUpdate] = useState(null);
  useEffect(() => {
    fetch('api/update.json').then((response) => response.json()).then(setUpdate);
  }, []);
  if (!update) return h('p', { className: 'loading', id: 'update-status' }, 'Checking for updates to this story…');
  return h('section', { className: 'story-update', id: 'story-update' }, [
    h('h2', { key: 'h' }, update.heading),
    ...update.paragraphs.map((text, i) => h('p', { key: i }, text)),
  ]);
}

export function App() {
  return h('div', null, [
    h('header', { className: 'masthead', key: 'm' }, [
      h('a', { className: 'logo', href: './', key: 'l' }, site.name),
      h('p', { className: 'tagline', key: 't' }, site.tagline),
      h('nav', { key: 'n' }, h('ul', { className: 'sections' }, site.sections.map((label, i) => h('li', { key: i }, h('a', { href: `section/${i + 1}/` }, label))))),
    ]),
    h('main', { key: 'main' }, h('article', null, [
      h('p', { className: 'kicker', key: 'k' }, story.kicker),
      h('h1', { key: 'h1' }, story.title),
      h('p', { className: 'byline', key: 'b' }, ['By ', h('span', { className: 'author', key: 'a' }, story.author), `, ${story.role} · ${story.date}`]),
      h('div', { className: 'article-body', key: 'body' }, story.paragraphs.map((text, i) => h('p', { key: i }, text))),
      h(Update, { key: 'u' }),
    ])),
    h('footer', { className: 'site-footer', key: 'f' }, [
      h('ul', { key: 'u' }, site.footer.map((label, i) => h('li', { key: i }, h('a', { href: `about/${i + 1}/` }, label)))),
      h('p', { key: 'p' }, site.footnote),
    ]),
  ]);
}
