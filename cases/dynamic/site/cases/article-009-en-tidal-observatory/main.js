// A same-origin iframe: the host page is static chrome; the story itself is the document of
// frame.html, which the browser loads into the iframe. Its height follows the story once loaded.
import '../../shared/base.css';

const frame = document.getElementById('story-frame');
frame.addEventListener('load', () => {
  const body = frame.contentDocument && frame.contentDocument.body;
  if (body) frame.style.height = `${body.scrollHeight + 40}px`;
});
