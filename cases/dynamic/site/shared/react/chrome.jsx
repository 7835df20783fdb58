// Site chrome shared by the React-built pages: masthead with section menu, and footer.
export function Masthead({ site }) {
  return (
    <header className="masthead">
      <a className="logo" href="./">{site.name}</a>
      {site.tagline ? <p className="tagline">{site.tagline}</p> : null}
      <nav aria-label="Sections">
        <ul className="sections">
          {site.sections.map((label) => (
            <li key={label}><a href={`section/${encodeURIComponent(label.toLowerCase())}/`}>{label}</a></li>
          ))}
        </ul>
      </nav>
    </header>
  );
}

export function Footer({ site }) {
  return (
    <footer className="site-footer">
      <ul>
        {site.footer.map((label) => (
          <li key={label}><a href={`about/${encodeURIComponent(label.toLowerCase().replace(/\s+/g, '-'))}/`}>{label}</a></li>
        ))}
      </ul>
      <p>{site.footnote}</p>
    </footer>
  );
}

export function Byline({ author, role, date }) {
  return (
    <p className="byline">By <span className="author">{author}</span>, {role} · <time>{date}</time></p>
  );
}

export function Paragraphs({ blocks }) {
  return blocks.map((block, index) => (block.h2 ? <h2 key={index}>{block.h2}</h2> : <p key={index}>{block.p}</p>));
}
