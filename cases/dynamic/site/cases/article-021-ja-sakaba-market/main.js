// タイマーの後に描画される記事：Lit の要素がヘッダーとフッターをすぐに描き、本文は api/kiji.json を取得して
// 1.5 秒後に表示する（ライト DOM に描画）。DOM 完了の条件は article.kiji p.kiji-end。
import '../../shared/base.css';
import { LitElement, html } from 'lit';

const site = {
  name: 'みなと新聞',
  tagline: '港町の今日を伝える',
  sections: ['地域', '経済', 'くらし', 'スポーツ', 'オピニオン'],
  footer: ['会社案内', 'お問い合わせ', '個人情報の取り扱い', '利用規約'],
};

class MinatoPage extends LitElement {
  static properties = { kiji: { state: true } };

  createRenderRoot() { return this; } // ライト DOM に描画する

  connectedCallback() {
    super.connectedCallback();
    fetch('api/kiji.json').then((response) => response.json()).then((kiji) => {
      setTimeout(() => { this.kiji = kiji; }, 1500);
    });
  }

  render() {
    const k = this.kiji;
    return html`
      <header class="masthead">
        <a class="logo" href="./">${site.name}</a>
        <p class="tagline">${site.tagline}</p>
        <nav><ul class="sections">${site.sections.map((label, i) => html`<li><a href="section/${i + 1}/">${label}</a></li>`)}</ul></nav>
      </header>
      <main>
        ${k ? html`<article class="kiji">
          <p class="kicker">${k.kicker}</p>
          <h1>${k.title}</h1>
          <p class="byline"><span class="author">${k.author}</span> ${k.role} · ${k.date}</p>
          <div class="article-body">
            ${k.paragraphs.slice(0, -1).map((p) => html`<p>${p}</p>`)}
            <p class="kiji-end">${k.paragraphs[k.paragraphs.length - 1]}</p>
          </div>
        </article>` : html`<p class="loading">記事を読み込んでいます…</p>`}
      </main>
      <footer class="site-footer">
        <ul>${site.footer.map((label, i) => html`<li><a href="about/${i + 1}/">${label}</a></li>`)}</ul>
        <p>みなと新聞社</p>
      </footer>`;
  }
}

customElements.define('minato-page', MinatoPage);
