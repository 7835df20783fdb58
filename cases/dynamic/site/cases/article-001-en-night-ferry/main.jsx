// Client-side rendered article: the server sends an empty shell; the whole page, chrome included, is
// built by React after a fetch() of the article's JSON.
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { useEffect, useState } from 'react';
import { Masthead, Footer, Byline, Paragraphs } from '../../shared/react/chrome.jsx';

const site = {
  name: 'The Meridian Ledger',
  tagline: 'Independent news for the Meridian estuary',
  sections: ['Politics', 'Transport', 'Business', 'Environment', 'Opinion'],
  footer: ['About the Ledger', 'Corrections policy', 'Contact the newsroom', 'Privacy'],
  footnote: 'The Meridian Ledger is published by the Estuary News Cooperative.',
};

function Article() {
  const [story, setStory] = useState(null);
  useEffect(() => {
    fetch('api/article.json').then((response) => response.json()).then(setStory);
  }, []);
  if (!story) return <main><p className="loading">Loading the story…</p></main>;
  return (
    <main>
      <article data-story-id={story.id}>
        <p className="kicker">{story.kicker}</p>
        <h1>{story.title}</h1>
        <Byline author={story.author} role={story.role} date={story.date} />
        <div className="article-body"><Paragraphs blocks={story.blocks} /></div>
      </article>
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <>
    <Masthead site={site} />
    <Article />
    <Footer site={site} />
  </>,
);
