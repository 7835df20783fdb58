// Un artículo cuyo texto llega en un bloque JSON dentro de la propia página (el patrón __NEXT_DATA__ de
// las aplicaciones React renderizadas en el cliente): el HTML estático no muestra nada legible; React lee
// el JSON y dibuja la página.
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { Masthead, Footer, Paragraphs } from '../../shared/react/chrome.jsx';

const { site, article } = JSON.parse(document.getElementById('__NEXT_DATA__').textContent).props.pageProps;

createRoot(document.getElementById('__next')).render(
  <>
    <Masthead site={site} />
    <main>
      <article>
        <p className="kicker">{article.kicker}</p>
        <h1>{article.title}</h1>
        <p className="byline">Por <span className="author">{article.author}</span>, {article.role} · <time>{article.date}</time></p>
        <div className="article-body"><Paragraphs blocks={article.blocks} /></div>
      </article>
    </main>
    <Footer site={site} />
  </>,
);
