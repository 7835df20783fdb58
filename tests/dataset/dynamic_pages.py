"""The ``dynamic`` suite's pages for the tests and the review that need them (issue 28): build the npm
project ``cases/dynamic/site`` from its lockfile, serve a build directory on loopback, and render each
case's first load in headless Chromium with JavaScript on.

A rendering is the page's *visible* text in reading order over the flat tree: shadow roots (text in a
web component) and same-origin iframes are read where a reader sees them, and ``display:none`` /
``visibility:hidden`` subtrees, ``<script>``, ``<style>``, ``<template>`` and ``<noscript>`` are left out.
The static shell of a case is its ``index.html`` with no script run, projected by lexbench's own HTML
projection (SPEC §3.2).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lexbench.dataset.suite import CASES_ROOT
from lexbench.scoring.view import AnswerView

SITE = CASES_ROOT / "dynamic" / "site"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NPM = shutil.which("npm")

VISIBLE_TEXT_JS = r"""
() => {
  const out = [];
  const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD']);
  const INLINE = new Set(['inline', 'contents']);
  function walk(node) {
    if (node.nodeType === 3) { out.push(node.textContent); return; }
    if (node.nodeType === 11) { node.childNodes.forEach(walk); return; }
    if (node.nodeType !== 1 || SKIP.has(node.tagName)) return;
    const style = getComputedStyle(node);
    if (style.display === 'none' || style.visibility === 'hidden') return;
    if (node.tagName === 'IFRAME') {
      let body = null;
      try { body = node.contentDocument && node.contentDocument.body; } catch (error) { body = null; }
      if (body) { out.push('\n'); walk(body); out.push('\n'); }
      return;
    }
    if (node.tagName === 'SLOT') {
      const assigned = node.assignedNodes({ flatten: true });
      (assigned.length ? assigned : Array.from(node.childNodes)).forEach(walk);
      return;
    }
    if (node.tagName === 'BR') { out.push('\n'); return; }
    const block = !INLINE.has(style.display) && !style.display.startsWith('inline') && style.display !== 'table-cell';
    if (block) out.push('\n'); else out.push('');
    if (node.shadowRoot) walk(node.shadowRoot); else node.childNodes.forEach(walk);
    if (block) out.push('\n'); else if (style.display === 'table-cell' || style.display === 'inline-block') out.push(' ');
  }
  walk(document.body);
  return out.join('').split('\n').map((line) => line.replace(/\s+/g, ' ').trim()).filter(Boolean).join('\n');
}
"""

LOCATED_TEXT_JS = r"""
(selectors) => {
  // The text of every element each selector matches: in the page, in its open shadow roots and in its
  // same-origin iframes' documents (where a reader sees text that the main document's HTML does not hold).
  const roots = [];
  function collect(root) {
    roots.push(root);
    root.querySelectorAll('*').forEach((element) => {
      if (element.shadowRoot) collect(element.shadowRoot);
      if (element.tagName === 'IFRAME') {
        try { if (element.contentDocument) collect(element.contentDocument); } catch (error) { /* cross-origin */ }
      }
    });
  }
  collect(document);
  const located = {};
  for (const selector of selectors) {
    located[selector] = roots.flatMap((root) => Array.from(root.querySelectorAll(selector))).map((e) => e.textContent).join('\n');
  }
  return located;
}
"""

COUNT_JS = r"""
([frame, selector]) => {
  let root = document;
  if (frame) {
    const element = document.querySelector(frame);
    root = element && element.contentDocument;
    if (!root) return 0;
  }
  return root.querySelectorAll(selector).length;
}
"""


@dataclass(frozen=True)
class Rendering:
    """One rendered first load: ``text`` (visible lines, flat tree), ``html`` (the main document's DOM
    after rendering), ``final_url``, whether the DOM completion condition was met in time, and
    ``located``: for each selector asked for, the text of the elements it matches (shadow roots and
    same-origin frames included)."""

    text: str
    html: str
    final_url: str
    completion_met: bool
    located: dict[str, str]


def build_site(out_dir: Path, *, site: Path = SITE, install: bool = True) -> None:
    """``npm ci`` (when ``install``) then ``npm run build -- --outDir out_dir`` in ``site``.

    Raises ``subprocess.CalledProcessError`` (with npm's output) when either fails."""
    if install:
        subprocess.run([NPM or "npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=site, check=True,
                       capture_output=True, text=True)
    subprocess.run([NPM or "npm", "run", "build", "--", "--outDir", str(out_dir)], cwd=site, check=True,
                   capture_output=True, text=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # the tests read pages, not the access log
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on a loopback port; yields the base URL (``http://127.0.0.1:PORT/``)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def browser() -> Iterator[object]:
    """A Playwright Chromium (the system ``chromium``, so ``playwright install`` is never needed)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield instance
        finally:
            instance.close()


def render(chromium: object, url: str, completion: dict | None, *, selectors: list[str] = (), settle_ms: int = 500) -> Rendering:
    """Render ``url`` with JavaScript on and return its visible text.

    ``completion`` is a case's ``retrieval.dom_completion`` (selector, count, frame, delay_ms, timeout_ms)
    or None; the page is read once the network is idle, the completion condition holds (or its timeout
    passed) and ``settle_ms`` more have gone by. ``selectors`` are CSS selectors whose matches' text is
    returned in :attr:`Rendering.located`."""
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(url, wait_until="networkidle", timeout=60_000)
        met = True
        if completion is not None:
            try:
                page.wait_for_function(
                    f"(arg) => ({COUNT_JS})(arg) >= {int(completion['count'])}",
                    arg=[completion.get("frame"), completion["selector"]],
                    timeout=completion.get("timeout_ms", 10_000),
                )
            except Exception:  # noqa: BLE001 - a timeout is a result here: the caller asserts on it
                met = False
            page.wait_for_timeout(int(completion.get("delay_ms") or 0))
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(settle_ms)
        located = page.evaluate(LOCATED_TEXT_JS, list(selectors)) if selectors else {}
        return Rendering(page.evaluate(VISIBLE_TEXT_JS), page.content(), page.url, met, located)
    finally:
        page.close()


def static_shell_text(case_dir: Path) -> str:
    """The visible text of a case's ``index.html`` with no script run (lexbench's HTML projection)."""
    html = (case_dir / "index.html").read_text(encoding="utf-8")
    return AnswerView.of(html, "html").projection.text
