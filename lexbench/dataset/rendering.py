"""Render a capture in Chromium with scripts off and read every text run's visibility (SPEC §4).

The I/O edge of :mod:`lexbench.dataset.visibility`: Playwright drives the system Chromium (no browser
download), the capture's bytes are served for its URL by a request route, every other request is
aborted (a capture's external stylesheets, scripts and images are not part of the evidence), scripts do
not run, and one function evaluated in the page walks the DOM and applies the hiding rules to each text
node with the page's computed styles. :func:`render_captures` renders many captures in one browser.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from lexbench.dataset.visibility import (COMMENT_SECTION, CONVENTION_CLASSES, MENU_MARKERS, NON_ARTICLE_MARKERS,
                                         CaseProof, Rendering, TextRun, check_case, group_selectors,
                                         marker_pattern)
from lexbench.errors import EvidenceError
from lexbench.jsonfile import read_json

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1280, "height": 900}
"""A desktop viewport: what a reader of the source's first load saw (the sources saved desktop pages)."""
LOAD_TIMEOUT_MS = 60_000
"""Loading a capture with every subresource aborted takes well under a second; the margin is for a loaded
machine."""

# One pass over the DOM, each element's own rule computed once and inherited by its subtree.
_WALKER = r"""
(args) => {
  const menuRe = new RegExp(args.menu, 'i'), convRe = new RegExp(args.convention, 'i');
  const commentRe = new RegExp(args.comments, 'i');
  const articleRes = args.articleMarkers.map(([k, p]) => [k, new RegExp('(^|[-_\\s])(' + p + ')([-_\\s]|$)', 'i')]);
  const selectors = [], bad = [];
  args.selectors.forEach((s, i) => { try { document.querySelector(s); selectors.push([i, s]); }
                                     catch (e) { bad.push([i, String(e.message || e)]); } });
  const docW = Math.max(document.documentElement.scrollWidth, innerWidth);
  const docH = Math.max(document.documentElement.scrollHeight, innerHeight);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'HEAD', 'TITLE', 'META', 'LINK', 'svg', 'SVG']);
  const toggled = new Set();
  for (const el of document.querySelectorAll('[data-toggle], [data-target], [aria-controls]')) {
    const expanded = el.getAttribute('aria-expanded');
    for (const v of [el.getAttribute('data-toggle'), el.getAttribute('data-target'), el.getAttribute('aria-controls')]) {
      if (!v || expanded === 'true') continue;
      const id = v.replace(/^#/, '');
      if (/^[\w-]+$/.test(id) && document.getElementById(id)) toggled.add(document.getElementById(id));
    }
  }
  const tokens = (el) => {
    const cls = el.getAttribute('class') || '';
    return (cls + ' ' + (el.id || '')).split(/\s+/).filter(Boolean);
  };
  const step = (el) => {
    let s = el.localName;
    if (el.id && /^[A-Za-z][\w-]*$/.test(el.id)) return s + '#' + el.id;
    const parent = el.parentElement;
    if (parent) {
      const same = [...parent.children].filter(c => c.localName === el.localName);
      if (same.length > 1) s += ':nth-of-type(' + (same.indexOf(el) + 1) + ')';
    }
    return s;
  };
  const paths = new Map();
  const pathOf = (el) => {
    if (paths.has(el)) return paths.get(el);
    const p = el.parentElement && el !== document.documentElement ? pathOf(el.parentElement) + ' > ' + step(el) : step(el);
    paths.set(el, p); return p;
  };
  // A navigation container by element or role, or by a class or id part naming one: 'rm_nav', 'topnav',
  // 'main-menu', 'menu_item' (a part, so 'unavailable' or 'canvas' never count).
  const navPart = /^(nav|navi|navbar|navigation|menu|menubar|[a-z]*nav|[a-z]*menu)$/i;
  const namesNav = (el) => tokens(el).some(t => t.split(/[-_]/).some(part => navPart.test(part)));
  const inNav = (el) => {
    if (el.closest('nav, [role=navigation], [role=menubar], header')) return true;
    for (let at = el; at && at !== document.body; at = at.parentElement) if (namesNav(at)) return true;
    return false;
  };
  const own = (el, cs) => {
    if (el.hasAttribute('hidden')) return ['hidden', 'hidden_attribute'];
    if (cs.display === 'none') return ['hidden', 'display_none'];
    if (parseFloat(cs.opacity) === 0) return ['hidden', 'zero_opacity'];
    if ((cs.position === 'absolute' || cs.position === 'fixed') && cs.clip && cs.clip.startsWith('rect(')) {
      const v = cs.clip.slice(5, -1).split(/[\s,]+/).map(parseFloat);
      if (v.length === 4 && v.every(Number.isFinite) && (v[1] - v[3] <= 2 || v[2] - v[0] <= 2)) return ['hidden', 'clipped'];
    }
    if (cs.clipPath && cs.clipPath !== 'none') {
      const r = el.getBoundingClientRect(), m = /^inset\(([^)]*)\)/.exec(cs.clipPath);
      if (m) {
        const v = m[1].split(/\s+/).filter(x => !x.startsWith('round')).map(x => x.endsWith('%') ? parseFloat(x) / 100 : parseFloat(x));
        const [t, rt, b, l] = [v[0], v[1] ?? v[0], v[2] ?? v[0], v[3] ?? v[1] ?? v[0]];
        const px = (x, d) => x <= 1 && String(x).includes('.') || x === 0 ? x * d : x;
        if (r.width - px(l, r.width) - px(rt, r.width) <= 2 || r.height - px(t, r.height) - px(b, r.height) <= 2) return ['hidden', 'clipped'];
      }
      if (/^(circle|ellipse)\(0(px|%)?[\s)]/.test(cs.clipPath)) return ['hidden', 'clipped'];
    }
    if (cs.overflow !== 'visible' || cs.overflowY !== 'visible') {
      if (cs.maxHeight === '0px' || cs.height === '0px') return ['hidden', 'collapsed'];
      const r = el.getBoundingClientRect();
      if (cs.display !== 'contents' && (r.width <= 2 || r.height <= 2)) return ['hidden', 'zero_size'];
    }
    if (el.localName === 'noscript') return ['unproven', 'noscript'];
    if (toggled.has(el)) return ['unproven', 'toggled'];
    for (const t of tokens(el)) {
      const m = menuRe.exec(t); if (m) return ['hidden', 'menu_marker:' + m[2]];
    }
    if ((el.localName === 'ul' || el.localName === 'ol' || el.localName === 'div') && el.parentElement) {
      const item = el.parentElement.closest('li');
      if (item && inNav(item) && item.closest('ul, ol')) {
        if (el.localName !== 'div' || el.querySelector('a')) return ['hidden', 'nested_menu'];
      }
      const pop = el.parentElement.closest('[aria-haspopup=true]');
      if (pop && pop !== el) return ['hidden', 'popup_menu'];
    }
    for (const t of tokens(el)) {
      const m = convRe.exec(t); if (m) return ['unproven', 'convention_class:' + m[2]];
    }
    return null;
  };
  const markers = new Map();
  const markerOf = (el) => {
    if (!el || el === document.body) return null;
    if (markers.has(el)) return markers.get(el);
    let found = null;
    const text = el.localName + ' ' + tokens(el).join(' ');
    for (const [k, re] of articleRes) if (re.test(text)) { found = k; break; }
    if (found === null) found = markerOf(el.parentElement);
    markers.set(el, found); return found;
  };
  const insideOf = (el) => selectors.filter(([i, s]) => el.closest(s)).map(([i]) => i);
  const runs = [];
  // A comment section: a container whose class or id names comments, holding visible text (not a
  // 'Comments (12)' link): at least SECTION_RUNS runs and SECTION_CHARS characters.
  const SECTIONS = new Set(['div', 'section', 'ol', 'ul', 'aside', 'article', 'footer', 'main']);
  const sections = new Map();
  const range = document.createRange();
  const text = (node, el, cs, state) => {
    const value = node.nodeValue;
    if (!value || !value.trim()) return;
    let s = state;
    if (!s && (cs.visibility === 'hidden' || cs.visibility === 'collapse')) s = ['hidden', 'visibility_hidden'];
    if (!s && parseFloat(cs.fontSize) === 0) s = ['hidden', 'zero_size'];
    if (!s) {
      range.selectNodeContents(node);
      const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
      if (!rects.length) s = ['hidden', 'zero_size'];
      else if (rects.every(r => r.right <= 0 || r.bottom <= 0 || r.left >= docW || r.top >= docH)) s = ['hidden', 'off_canvas'];
    }
    if (!s) {
      for (let c = el; c && c !== document.body; c = c.parentElement) {
        if (SECTIONS.has(c.localName) && tokens(c).some(t => commentRe.test(t))) {
          const seen = sections.get(c) || [0, 0];
          sections.set(c, [seen[0] + 1, seen[1] + value.trim().length]);
          break;
        }
      }
    }
    runs.push([value, s ? s[0] : 'visible', s ? s[1] : null, pathOf(el), markerOf(el), insideOf(el)]);
  };
  const walk = (el, inherited) => {
    const cs = getComputedStyle(el);
    // A hidden ancestor hides its subtree; an unproven one is overruled by a hiding rule further down.
    let state = inherited && inherited[0] === 'hidden' ? inherited : (own(el, cs) || inherited);
    if (inherited && state[0] === 'unproven' && inherited[0] === 'unproven') state = inherited;
    let firstSummary = null;
    if (el.localName === 'details' && !el.open) firstSummary = [...el.children].find(c => c.localName === 'summary') || null;
    const roots = el.shadowRoot ? [el.shadowRoot, el] : [el];
    for (const root of roots) for (const child of root.childNodes) {
      let childState = state;
      if (!childState && el.localName === 'details' && !el.open && child !== firstSummary) childState = ['hidden', 'closed_details'];
      if (child.nodeType === Node.TEXT_NODE) text(child, el, cs, childState);
      else if (child.nodeType === Node.ELEMENT_NODE && !SKIP.has(child.localName) && !SKIP.has(child.tagName)) walk(child, childState);
    }
  };
  if (document.body) walk(document.body, null);
  let comments = null;
  for (const [c, [n, chars]] of sections) if (n >= 3 && chars >= 200) { comments = pathOf(c); break; }
  return {runs, comments, bad};
}
"""


@dataclass(frozen=True)
class Capture:
    """One capture to render: its case id, its bytes and content type, and the CSS selectors of its
    stable groups. It is served at :attr:`url`, a name that cannot resolve (every other request is
    aborted, so the page's own URL does not matter; some sources' URLs are not even ``http``)."""

    case_id: str
    body: bytes
    content_type: str
    selectors: Sequence[str] = ()

    @property
    def url(self) -> str:
        """``http://capture.invalid/<case-id>.html``: where the route serves this capture."""
        return f"http://capture.invalid/{self.case_id}.html"


def chromium_path() -> str | None:
    """The system Chromium's path, or ``None`` when it is not installed."""
    return CHROMIUM if shutil.which(CHROMIUM) else shutil.which("chromium")


@contextmanager
def _browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        raise EvidenceError("the visibility proof renders captures in Chromium, which is not installed: "
                            "apt-get install chromium (the package the README's setup installs)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # the engines extra
        raise EvidenceError("the visibility proof drives Chromium with Playwright, which is not installed: "
                            "pip install -e '.[engines]'") from exc
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-quic"])
        try:
            yield browser
        finally:
            browser.close()


def render_captures(captures: Sequence[Capture]) -> Iterator[tuple[Capture, Rendering]]:
    """Render each capture with scripts off in one Chromium and yield it with its :class:`Rendering`.

    Raises :class:`~lexbench.errors.EvidenceError` when Chromium or Playwright is missing, or a capture
    cannot be loaded (naming its case)."""
    args = {"menu": marker_pattern(MENU_MARKERS), "convention": marker_pattern(CONVENTION_CLASSES, whole=True),
            "comments": COMMENT_SECTION, "articleMarkers": [list(m) for m in NON_ARTICLE_MARKERS]}
    with _browser() as browser:
        for capture in captures:
            context = browser.new_context(java_script_enabled=False, viewport=VIEWPORT, service_workers="block")
            try:
                page = context.new_page()

                context.route("**/*", lambda route, _request, capture=capture: _serve(route, capture))
                try:
                    page.goto(capture.url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
                    result = page.evaluate(_WALKER, {**args, "selectors": list(capture.selectors)})
                except Exception as exc:  # Playwright's errors: one case's failure names the case
                    raise EvidenceError(f"{capture.case_id}: the capture could not be rendered: {exc}") from exc
            finally:
                context.close()
            runs = tuple(TextRun(text=t, state=s, reason=r, path=p, marker=m, inside=tuple(i))
                         for t, s, r, p, m, i in result["runs"])
            yield capture, Rendering(runs=runs, comment_section=result["comments"],
                                     bad_selectors=tuple((i, msg) for i, msg in result["bad"]))


def _serve(route: Any, capture: Capture) -> None:
    if route.request.url.split("#")[0] == capture.url.split("#")[0]:
        route.fulfill(status=200, body=capture.body, content_type=capture.content_type)
    else:
        route.abort()


def prove_suite(suite: Any, case_ids: Sequence[str] = ()) -> Iterator[tuple[CaseProof, Rendering]]:
    """The visibility proof of a loaded suite (:class:`~lexbench.dataset.suite.Suite`), case by case in
    suite order (only ``case_ids`` when given): each case's :class:`CaseProof` with its rendering.

    Raises :class:`~lexbench.errors.EvidenceError` for an unknown case id, a missing Chromium, or a
    capture that cannot be rendered."""
    cases = {case.id: case for case in suite.cases}
    unknown = [case_id for case_id in case_ids if case_id not in cases]
    if unknown:
        raise EvidenceError(f"suite {suite.id} has no case {', '.join(unknown)}")
    chosen = [cases[case_id] for case_id in case_ids] if case_ids else list(suite.cases)
    captures = [Capture(case.id, suite.captures[case.id], case.capture.content_type, group_selectors(case))
                for case in chosen]
    keeps = _keep_decisions(suite.root)
    for capture, rendering in render_captures(captures):
        case = cases[capture.case_id]
        yield check_case(case, rendering, case.reference_text, keeps.get(case.id)), rendering


def _keep_decisions(root: Path) -> dict[str, dict[str, str]]:
    """Per case id, the review's keep decisions in the suite's ``sources.json`` (``{line text: reason}``);
    none for a suite without one. The decisions were checked when the evidence was derived
    (:func:`~lexbench.dataset.importers.reviewed.kept_lines`); here they are only read."""
    path = root / "sources.json"
    if not path.is_file():
        return {}
    out: dict[str, dict[str, str]] = {}
    for case_id, entry in (read_json(path).get("cases") or {}).items():
        keeps = ((entry or {}).get("reference") or {}).get("keep") or []
        decided = {item["text"]: item["reason"] for item in keeps
                   if isinstance(item, dict) and isinstance(item.get("text"), str) and isinstance(item.get("reason"), str)}
        if decided:
            out[case_id] = decided
    return out
