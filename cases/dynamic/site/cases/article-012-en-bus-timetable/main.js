// A consent overlay that hides nothing: a Lit banner fixed to the bottom of the viewport, added by
// script after load. It has no backdrop, makes nothing inert and clips no text: the article is readable
// behind it, so the article stays in scope and the banner's text is not stable site text.
import '../../shared/base.css';
import { LitElement, html, css } from 'lit';

class ConsentBanner extends LitElement {
  static properties = { closed: { state: true } };

  static styles = css`
    :host { position: fixed; left: 16px; right: 16px; bottom: 16px; z-index: 10; }
    .banner { background: #fff; border: 1px solid #bbb; box-shadow: 0 4px 18px rgba(0,0,0,.18); padding: 14px 18px; font: 14px/1.5 Arial, sans-serif; border-radius: 6px; }
    button { margin-right: 8px; }
  `;

  render() {
    if (this.closed) return null;
    return html`<div class="banner" role="dialog" aria-modal="false" aria-label="Cookie consent">
      <p>We use cookies to remember your settings and to measure how the Almanac is read. You can accept them all or choose which ones we may use.</p>
      <button @click=${() => { this.closed = true; }}>Accept all</button>
      <button @click=${() => { this.closed = true; }}>Manage choices</button>
    </div>`;
  }
}

customElements.define('consent-banner', ConsentBanner);
