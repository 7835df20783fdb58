// Comments that load only on scroll: an IntersectionObserver on the comment section fetches the thread
// when a reader scrolls down to it. The first load (no scrolling) never requests it, so it is out of
// scope (never required of a provider).
import '../../shared/base.css';
import { createApp, h, ref } from 'vue';

const Thread = {
  setup() {
    const comments = ref(null);
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      fetch('api/comments.json').then((response) => response.json()).then((data) => { comments.value = data.comments; });
    });
    observer.observe(document.getElementById('comments'));
    return () => (comments.value === null
      ? h('p', { class: 'loading' }, 'Scroll down to load comments.')
      : h('ol', { class: 'comment-list' }, comments.value.map((c) => h('li', { class: 'comment', id: `comment-${c.id}`, key: c.id }, [
        h('cite', { class: 'fn' }, c.author), h('div', { class: 'comment-content' }, [h('p', c.text)]),
      ]))));
  },
};

createApp(Thread).mount('#comment-thread');
