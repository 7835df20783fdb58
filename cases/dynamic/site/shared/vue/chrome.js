// Site chrome shared by the Vue-built pages (render functions, so the same code renders on a server).
import { h } from 'vue';

export function masthead(site) {
  return h('header', { class: 'masthead' }, [
    h('a', { class: 'logo', href: './' }, site.name),
    site.tagline ? h('p', { class: 'tagline' }, site.tagline) : null,
    h('nav', { 'aria-label': 'Sections' }, [
      h('ul', { class: 'sections' }, site.sections.map((label, i) => h('li', { key: i }, [h('a', { href: `section/${i + 1}/` }, label)]))),
    ]),
  ]);
}

export function footer(site) {
  return h('footer', { class: 'site-footer' }, [
    h('ul', site.footer.map((label, i) => h('li', { key: i }, [h('a', { href: `about/${i + 1}/` }, label)]))),
    h('p', site.footnote),
  ]);
}

export function paragraphs(blocks) {
  return blocks.map((block, i) => (block.h2 ? h('h2', { key: i }, block.h2) : h('p', { key: i }, block.p)));
}
