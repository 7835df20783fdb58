// An infinite feed: React renders the first batch of posts from api/feed-1.json; a sentinel below the
// last card fetches the next batch (api/feed-2.json) only when it scrolls into view. Only the first
// batch belongs to the first load.
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { useEffect, useRef, useState } from 'react';

function Post({ post }) {
  return (
    <article className="card post-card" data-post-id={post.id}>
      <p className="meta"><a className="post-author" href={`people/${post.handle}/`}>{post.author}</a> · {post.club} · <a className="permalink" href={`trail-runners/posts/${post.id}/`}>View post</a></p>
      <p className="post-text">{post.text}</p>
      <p className="meta">{post.kudos} kudos · {post.comments} comments</p>
    </article>
  );
}

function Feed() {
  const [posts, setPosts] = useState([]);
  const [next, setNext] = useState('api/feed-1.json');
  const [loading, setLoading] = useState(false);
  const sentinel = useRef(null);

  function loadMore() {
    if (!next || loading) return;
    setLoading(true);
    fetch(next).then((response) => response.json()).then((batch) => {
      setPosts((current) => [...current, ...batch.posts]);
      setNext(batch.next);
      setLoading(false);
    });
  }

  useEffect(() => { loadMore(); }, []);
  useEffect(() => {
    if (!posts.length) return undefined;
    const observer = new IntersectionObserver((entries) => { if (entries[0].isIntersecting) loadMore(); });
    observer.observe(sentinel.current);
    return () => observer.disconnect();
  }, [posts.length, next]);

  return (
    <div className="feed">
      {posts.map((post) => <Post key={post.id} post={post} />)}
      <div ref={sentinel} className="feed-sentinel">{next ? <p className="loading">Loading more posts…</p> : null}</div>
    </div>
  );
}

createRoot(document.getElementById('root')).render(
  <>
    <header className="masthead">
      <a className="logo" href="./">Pinewood Social</a>
      <nav><ul className="sections">
        <li><a href="groups/">Groups</a></li><li><a href="events/">Events</a></li><li><a href="routes/">Routes</a></li><li><a href="messages/">Messages</a></li>
      </ul></nav>
    </header>
    <div className="layout">
      <main>
        <h1>Trail runners</h1>
        <p>A group for people who run off-road in the Pinewood hills.</p>
        <Feed />
      </main>
      <aside className="rail">
        <h2>About this group</h2>
        <p>Open group · Organised by the Pinewood Fell Runners</p>
      </aside>
    </div>
  </>,
);
