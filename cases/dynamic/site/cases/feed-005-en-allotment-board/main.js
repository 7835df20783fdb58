// A feed of post cards from an XMLHttpRequest: the page's chrome is static HTML; Vue renders the posts
// once api/posts.json arrives. Each card has the poster, the text, counts and its own permalink.
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';

function load(url) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('GET', url);
    request.responseType = 'json';
    request.onload = () => (request.status === 200 ? resolve(request.response) : reject(new Error(`${url}: ${request.status}`)));
    request.onerror = () => reject(new Error(`${url}: network error`));
    request.send();
  });
}

const Board = {
  setup() {
    const posts = ref(null);
    load('api/posts.json').then((data) => { posts.value = data.posts; });
    return () => (posts.value === null
      ? h('p', { class: 'loading' }, 'Loading posts…')
      : h('div', { class: 'post-list' }, posts.value.map((post) => h('article', { class: 'card post-card', key: post.id, 'data-post-id': post.id }, [
        h('p', { class: 'meta' }, [h('a', { class: 'post-author', href: `members/${post.handle}/` }, post.author), ` · Plot ${post.plot} · `,
          h('a', { class: 'permalink', href: `noticeboard/posts/${post.id}/` }, 'Permalink')]),
        h('p', { class: 'post-text' }, post.text),
        h('p', { class: 'meta' }, `${post.likes} likes · ${post.replies} replies`),
      ]))));
  },
};

createApp(Board).mount('#board');
