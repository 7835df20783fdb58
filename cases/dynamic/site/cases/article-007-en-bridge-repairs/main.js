// Comments behind a "Show comments" button: nothing is fetched until a reader clicks it, so the thread
// is out of the first load's scope (never required of a provider).
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';

const Thread = {
  setup() {
    const comments = ref(null);
    document.getElementById('load-comments').addEventListener('click', (event) => {
      event.target.hidden = true;
      fetch('api/comments.json').then((response) => response.json()).then((data) => { comments.value = data.comments; });
    }, { once: true });
    return () => (comments.value === null ? null : h('ol', { class: 'comment-list' }, comments.value.map((c) => h('li', { class: 'comment', id: `comment-${c.id}`, key: c.id }, [
      h('cite', { class: 'fn' }, c.author), h('div', { class: 'comment-content' }, [h('p', c.text)]),
    ]))));
  },
};

createApp(Thread).mount('#comment-thread');
