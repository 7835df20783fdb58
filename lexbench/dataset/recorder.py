"""Record a built page directory into a deterministic web-archive capture (SPEC §7, issue 28).

:func:`record_page` serves one page directory (``index.html`` and everything it refers to by relative URL)
on a loopback port, loads it once in Chromium through Playwright (JavaScript on), waits for the case's DOM
completion when it has one, then for the network to settle, and keeps the answer to every request the page
made: the status and body the loopback server gave, with the content type of :data:`CONTENT_TYPES` (fixed
here rather than the host's ``mimetypes``, which differ between machines). A request to another origin is
aborted and listed as unreachable, never fetched. :func:`lexbench.dataset.archive.write_archive` then
writes the records with the review date, so the archive's sha256 is the same on every machine that
records the same directory.

Playwright (the ``engines`` extra) and Chromium are needed; :class:`RecorderError` says which is missing.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from lexbench.dataset.archive import ArchiveRecord, write_archive
from lexbench.dataset.case import DomCompletion
from lexbench.errors import LexbenchError

CHROMIUM = "/usr/bin/chromium"
SETTLE_MS = 500
"""After the DOM completion (or the load event), how long the network must stay quiet (Playwright's
``networkidle``) before the recording ends; waited at most :data:`SETTLE_TIMEOUT_MS`."""
SETTLE_TIMEOUT_MS = 10_000
LOAD_TIMEOUT_MS = 60_000
CONTENT_TYPES: Mapping[str, str] = {
    ".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".json": "application/json; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml",
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
    ".ico": "image/x-icon", ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
    ".map": "application/json; charset=utf-8", ".wasm": "application/wasm", ".xml": "application/xml",
    ".pdf": "application/pdf", ".csv": "text/csv; charset=utf-8",
}
"""Content type by file extension; anything else is ``application/octet-stream``."""
_CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
                  "--no-first-run", "--disable-quic", "--mute-audio")
COMPLETION_CHECK = """([frame, selector, count]) => {
  let root = document;
  if (frame) { const el = document.querySelector(frame); root = el && el.contentDocument; }
  return !!root && root.querySelectorAll(selector).length >= count;
}"""
"""The DOM completion condition, evaluated in the page: ``selector`` matches ``count`` elements, inside the
same-origin iframe matched by ``frame`` when given."""


class RecorderError(LexbenchError):
    """A page directory cannot be recorded: no ``index.html``, no Playwright or Chromium, a load that fails
    or a DOM completion that never holds."""


@dataclass(frozen=True)
class Recording:
    """What one load produced: every same-origin answer, the other-origin URLs it asked for, the rendered
    DOM after completion (for review, not archived) and the archive's bytes."""

    records: tuple[ArchiveRecord, ...]
    unreachable: tuple[str, ...]
    rendered_html: str
    archive: bytes


class _Handler(SimpleHTTPRequestHandler):
    def guess_type(self, path: str) -> str:  # type: ignore[override]
        return CONTENT_TYPES.get(Path(str(path)).suffix.lower(), "application/octet-stream")

    def log_message(self, format: str, *args: object) -> None:
        pass


def record_page(page_dir: Path, *, recorded: date, completion: DomCompletion | None = None,
                delays: Mapping[str, int] | None = None, chromium: str = CHROMIUM) -> Recording:
    """Record ``page_dir``'s first load (see the module docstring). ``recorded`` is the archive's
    ``WARC-Date``; ``delays`` maps a relative path to the delay (ms) its record declares. Raises
    :class:`RecorderError` naming the directory."""
    if not (page_dir / "index.html").is_file():
        raise RecorderError(f"{page_dir}: no index.html to record")
    try:
        from playwright.sync_api import Error as PlaywrightError, sync_playwright
    except ImportError:
        raise RecorderError("recording needs Playwright for Python: pip install -e '.[engines]'") from None
    if not Path(chromium).exists():
        raise RecorderError(f"recording needs Chromium at {chromium} (apt-get install chromium)")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(page_dir)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    answers: dict[str, ArchiveRecord] = {}
    unreachable: set[str] = set()
    lock = threading.Lock()

    def route(route):  # type: ignore[no-untyped-def]
        url = route.request.url
        if not url.startswith(origin + "/"):
            with lock:
                unreachable.add(url)
            route.abort("addressunreachable")
            return
        response = route.fetch(max_redirects=0)
        parts = urlsplit(url)
        path = parts.path.lstrip("/") + (f"?{parts.query}" if parts.query else "")
        headers = tuple((name, response.headers[name.lower()]) for name in ("Content-Type", "Location")
                        if name.lower() in response.headers)
        if ("Location", "") in headers:
            headers = tuple(h for h in headers if h[0] != "Location")
        body = response.body()
        with lock:
            answers.setdefault(path, ArchiveRecord(path=path, status=response.status, headers=_relative(headers, origin),
                                                   body=body, delay_ms=(delays or {}).get(path, 0)))
        if (delays or {}).get(path):
            time.sleep(delays[path] / 1000)
        route.fulfill(response=response, body=body)

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=list(_CHROMIUM_ARGS))
            try:
                page = browser.new_context(service_workers="block").new_page()
                page.route("**/*", route)
                page.goto(origin + "/", wait_until="load", timeout=LOAD_TIMEOUT_MS)
                if completion is not None:
                    page.wait_for_function(COMPLETION_CHECK, arg=[completion.frame, completion.selector,
                                                                  completion.count], timeout=completion.timeout_ms)
                    page.wait_for_timeout(completion.delay_ms)
                try:
                    page.wait_for_load_state("networkidle", timeout=SETTLE_TIMEOUT_MS)
                except PlaywrightError:
                    pass  # a page that polls forever: what it asked for so far is its first load
                rendered = page.content()
            finally:
                browser.close()
    except PlaywrightError as exc:
        what = f"DOM completion {completion.selector!r} × {completion.count}" if completion else "the load"
        raise RecorderError(f"{page_dir}: recording failed waiting for {what}: {str(exc).splitlines()[0]}") from None
    finally:
        server.shutdown()
        server.server_close()
    if "" not in answers:
        raise RecorderError(f"{page_dir}: the page itself was never requested")
    records = tuple(answers[p] for p in sorted(answers))
    listed = tuple(sorted(unreachable))
    return Recording(records=records, unreachable=listed, rendered_html=rendered,
                     archive=write_archive(records, recorded=recorded, unreachable=listed))


def record_document(page_dir: Path, *, recorded: date) -> Recording:
    """Record a ``file`` case's directory (SPEC §2): its one document, served as the page itself (path
    ``""``, status 200, the :data:`CONTENT_TYPES` type of its extension), with no browser: a file delivery
    returns response bytes and claims no rendered-page condition. Raises :class:`RecorderError` when the
    directory does not hold exactly one file."""
    files = sorted(p for p in page_dir.iterdir() if p.is_file()) if page_dir.is_dir() else []
    if len(files) != 1 or any(p.is_dir() for p in page_dir.iterdir()):
        raise RecorderError(f"{page_dir}: a file case's directory holds exactly one document, found "
                            f"{', '.join(p.name for p in page_dir.iterdir()) if page_dir.is_dir() else 'no directory'}")
        # (a page's directory with index.html is recorded by record_page)
    document = files[0]
    content_type = CONTENT_TYPES.get(document.suffix.lower(), "application/octet-stream")
    record = ArchiveRecord(path="", status=200, headers=(("Content-Type", content_type),), body=document.read_bytes())
    return Recording(records=(record,), unreachable=(), rendered_html="",
                     archive=write_archive((record,), recorded=recorded))


def _relative(headers: tuple[tuple[str, str], ...], origin: str) -> tuple[tuple[str, str], ...]:
    # A redirect to the recording server itself is kept as a page-relative location (the port changes).
    return tuple((k, "/" + v[len(origin):].lstrip("/") if k == "Location" and v.startswith(origin) else v)
                 for k, v in headers)
