// A document library drawn by React: the list of this month's council papers (PDF agendas, minutes and a
// CSV of the budget) comes from api/papers.json after load; the static HTML holds no link at all.
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

function Papers() {
  const [papers, setPapers] = useState(null);
  useEffect(() => {
    fetch('api/papers.json').then((response) => response.json()).then((data) => setPapers(data.papers));
  }, []);
  if (!papers) return <p className="loading">Loading the council papers…</p>;
  return (
    <ul className="papers">
      {papers.map((paper) => (
        <li key={paper.href}>
          <a href={paper.href}>{paper.title}</a> <span className="meta">{paper.kind}, {paper.size}</span>
        </li>
      ))}
    </ul>
  );
}

createRoot(document.getElementById('root')).render(
  <>
    <Masthead site={site} />
    <main>
      <h1>Council papers: November 2026</h1>
      <figure className="lead-image">
        <img src="images/council-chamber.svg" alt="The council chamber at Quayside Hall" width="640" height="320" />
        <figcaption>The council chamber at Quayside Hall.</figcaption>
      </figure>
      <p>Agendas, minutes and reports of the estuary council's meetings this month, as the council published them.</p>
      <Papers />
      <p className="source">Older papers are on the council's own site: <a href="https://www.meridiancouncil.example/papers/">meridiancouncil.example</a>.</p>
    </main>
    <Footer site={site} />
  </>,
);
