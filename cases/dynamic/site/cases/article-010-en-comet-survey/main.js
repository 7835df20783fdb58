// Text in a web component's shadow DOM: <orbit-article> is a Lit element that fetches its article and
// renders it inside its shadow root; the host gets data-rendered once the text is there.
import '../../shared/base.css';
import { LitElement, html, css } from 'lit';

class OrbitArticle extends LitElement {
  static properties = { src: { type: String }, story: { state: true } };

  static styles = css`
    :host { display: block; }
    h1 { font-size: 34px; line-height: 1.15; margin: 8px 0 12px; }
    .byline { font: 14px Arial, sans-serif; color: #555; }
    h2 { font-size: 22px; margin: 26px 0 8px; }
  `;

  connectedCallback() {
    super.connectedCallback();
    fetch(this.src).then((response) => response.json()).then((story) => { this.story = story; });
  }

  updated() {
    if (this.story) this.setAttribute('data-rendered', '');
  }

  render() {
    if (!this.story) return html`<p class="loading">Loading…</p>`;
    const s = this.story;
    return html`<article>
      <h1>${s.title}</h1>
      <p class="byline">By <span class="author">${s.author}</span>, ${s.role} · ${s.date}</p>
      ${s.blocks.map((b) => (b.h2 ? html`<h2>${b.h2}</h2>` : html`<p>${b.p}</p>`))}
    </article>`;
  }
}

customElements.define('orbit-article', OrbitArticle);
