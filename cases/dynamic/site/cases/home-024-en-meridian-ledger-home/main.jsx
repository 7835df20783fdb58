// A news site's home page: the masthead, section menu, newsletter box and footer never change; the
// headlines are chosen afresh on every load from api/headlines.json (the lead story and the list below
// it change between loads).
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { useEffect, useState } from 'react';
import { Masthead, Footer } from '../../shared/react/chrome.jsx';

const site = {
  name: 'The Meridian Ledger',
  tagline: 'Independent news for the Meridian estuary',
  sections: ['Politics', 'Transport', 'Business', 'Environment', 'Opinion'],
  footer: ['About the Ledger', 'Corrections policy', 'Contact the newsroom', 'Privacy'],
  footnote: 'The Meridian Ledger is published by the Estuary News Cooperative.',
};

function shuffled(items) {
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function Headlines() {
  const [stories, setStories] = useState(null);
  useEffect(() => {
    fetch('api/headlines.json').then((response) => response.json()).then((data) => setStories(shuffled(data.stories).slice(0, 7)));
  }, []);
  if (!stories) return <p className="loading">Loading the latest news…</p>;
  const [lead, ...rest] = stories;
  return (
    <section className="headlines">
      <article className="lead-story">
        <h2><a href={`news/${lead.slug}/`}>{lead.headline}</a></h2>
        <p>{lead.standfirst}</p>
      </article>
      <h2>Latest</h2>
      <ul className="latest">
        {rest.map((story) => <li key={story.slug}><a href={`news/${story.slug}/`}>{story.headline}</a></li>)}
      </ul>
    </section>
  );
}

createRoot(document.getElementById('root')).render(
  <>
    <Masthead site={site} />
    <div className="layout">
      <main><Headlines /></main>
      <aside className="rail">
        <h2>The Ledger Daily</h2>
        <p>Our morning newsletter: the estuary's news in five minutes, every weekday.</p>
        <button type="button">Sign up</button>
      </aside>
    </div>
    <Footer site={site} />
  </>,
);
