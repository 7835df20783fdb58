// A reading wall: the server sends the whole article, and a Vue widget then hides every paragraph after
// the second and puts a subscription wall with a fade below the excerpt. A reader of the first load sees
// the two paragraphs and the wall; the rest is hidden (the reference is the displayed excerpt).
import '../../shared/base.css';
import { createApp, h } from 'vue';

const FREE_PARAGRAPHS = 2;
const body = document.getElementById('article-body');
Array.from(body.querySelectorAll('p')).slice(FREE_PARAGRAPHS).forEach((paragraph) => { paragraph.hidden = true; });

const Wall = {
  render: () => h('div', { class: 'reading-wall', style: 'position:relative;margin-top:-60px;padding-top:60px;background:linear-gradient(rgba(251,250,247,0),#fbfaf7 60px)' }, [
    h('h2', 'Subscribe to keep reading'),
    h('p', 'This long read is for subscribers. Subscribe for four issues a year and the full archive.'),
    h('button', { type: 'button' }, 'Subscribe'),
    h('p', [h('a', { href: 'sign-in/' }, 'Already a subscriber? Sign in')]),
  ]),
};

const mount = document.createElement('div');
body.after(mount);
createApp(Wall).mount(mount);
