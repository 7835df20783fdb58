"""Driving a Chromium CDP server with Playwright for Python (the ``cdp`` driver of :mod:`engines`).

The browser itself is started by the adapter (its exact command line comes from ``ENGINES``, its
process group is killed and reaped by :class:`~lexbench.providers.engine_process.EngineProcess`);
Playwright only attaches with ``connect_over_cdp``, so ``playwright install`` is never needed.

Playwright's async API runs on one event loop in a daemon thread per process (:class:`PlaywrightLoop`),
started once and shared: provider calls arrive on fresh threads (the runtime policy's watchdog), and
the sync API cannot cross threads, while starting Playwright's driver per call would cost about a
second each time.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from lexbench.answer import ErrorType
from lexbench.providers.call import FetchError
from lexbench.providers.engines import Completion

# Chromium's net error names → the stable error classes.
_NET_ERRORS = (
    ("ERR_NAME_NOT_RESOLVED", ErrorType.DNS), ("ERR_NAME_RESOLUTION_FAILED", ErrorType.DNS),
    ("ERR_CONNECTION_REFUSED", ErrorType.CONNECT), ("ERR_CONNECTION_RESET", ErrorType.CONNECT),
    ("ERR_CONNECTION_CLOSED", ErrorType.CONNECT), ("ERR_ADDRESS_UNREACHABLE", ErrorType.CONNECT),
    # The guarding proxy refused or could not open the tunnel; the adapter asks the proxy which it was.
    ("ERR_TUNNEL_CONNECTION_FAILED", ErrorType.CONNECT),
    ("ERR_UNSAFE_PORT", ErrorType.BLOCKED_NETWORK), ("ERR_CERT", ErrorType.TLS), ("ERR_SSL", ErrorType.TLS),
    ("ERR_TOO_MANY_REDIRECTS", ErrorType.TOO_MANY_REDIRECTS), ("ERR_TIMED_OUT", ErrorType.TIMEOUT),
    ("ERR_ABORTED", ErrorType.UNSUPPORTED_CONTENT),  # a download (PDF, image) aborts the navigation
)


def net_error(message: str) -> ErrorType | None:
    """The error class of a Chromium ``net::ERR_*`` name found in ``message``, or ``None``."""
    for name, error_type in _NET_ERRORS:
        if f"net::{name}" in message:
            return error_type
    return None


@dataclass
class Rendered:
    """What one CDP page visit produced: ``status``/``final_url``/``redirects``/``content_type`` of the
    main document, ``title``, ``html`` (the page, or the scoped matches' outerHTML), and whether the
    completion condition was met (``completion_met``, ``completion_detail``)."""

    status: int | None
    final_url: str | None
    html: str
    title: str | None
    content_type: str | None = None
    redirects: list[str] = field(default_factory=list)
    completion_met: bool = True
    completion_detail: str = "complete"


class PlaywrightLoop:
    """One asyncio loop thread holding a started Playwright instance; :meth:`run` submits a coroutine."""

    _shared: PlaywrightLoop | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="lexbench-playwright")
        self.thread.start()
        self.playwright: Any = None

    @classmethod
    def shared(cls) -> PlaywrightLoop:
        """The process's loop, started on first use (raises ``ImportError`` without Playwright)."""
        with cls._lock:
            if cls._shared is None:
                import playwright.async_api  # noqa: F401 (fail early and clearly when the extra is missing)

                loop = cls()
                loop.run(loop._start(), 60.0)
                cls._shared = loop
            return cls._shared

    async def _start(self) -> None:
        from playwright.async_api import async_playwright  # an optional extra, loaded by the first CDP call

        self.playwright = await async_playwright().start()

    def run(self, coroutine: Any, seconds: float) -> Any:
        """Run ``coroutine`` on the loop; raises ``TimeoutError`` (after cancelling it) past ``seconds``."""
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout=max(seconds, 0.001))
        except FutureTimeout:
            future.cancel()
            raise TimeoutError from None

    @classmethod
    def stop_shared(cls) -> None:
        """Stop Playwright's driver and the loop thread, if started."""
        with cls._lock:
            loop, cls._shared = cls._shared, None
        if loop is not None:
            try:
                loop.run(loop.playwright.stop(), 10.0)
            except Exception:  # the driver may already be gone at interpreter exit
                pass
            loop.loop.call_soon_threadsafe(loop.loop.stop)
            loop.thread.join(5.0)


_COUNT = "([selector, count]) => document.querySelectorAll(selector).length >= count"
_SCOPED = "(selector) => Array.from(document.querySelectorAll(selector), (e) => e.outerHTML).join('\\n')"


_INLINE_FRAMES = """() => {
  const inline = (doc) => {
    for (const frame of Array.from(doc.querySelectorAll('iframe, frame'))) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (e) { inner = null; }
      if (!inner || !inner.body) continue;
      inline(inner);
      const div = doc.createElement('div');
      div.setAttribute('data-lexbench-frame', frame.getAttribute('src') || '');
      div.innerHTML = inner.body.innerHTML;
      frame.replaceWith(div);
    }
  };
  inline(document);
}"""


_INLINE_SHADOW_ROOTS = """() => {
  // Each open shadow root's tree, its slots filled with what is assigned to them, becomes its host's light
  // DOM: page.content() serialises light DOM only, and the shadow tree is what the page shows.
  const flatten = (root) => {
    for (const host of Array.from(root.querySelectorAll('*'))) {
      if (!host.shadowRoot) continue;
      flatten(host.shadowRoot);
      const slots = Array.from(host.shadowRoot.querySelectorAll('slot'));
      const filled = slots.map((slot) => {
        const assigned = slot.assignedNodes({ flatten: true });
        return (assigned.length ? assigned : Array.from(slot.childNodes)).map((n) => n.cloneNode(true));
      });
      const copy = document.createElement('div');
      for (const node of host.shadowRoot.childNodes) copy.appendChild(node.cloneNode(true));
      Array.from(copy.querySelectorAll('slot')).forEach((slot, i) => slot.replaceWith(...(filled[i] || [])));
      host.replaceChildren(...copy.childNodes);
    }
  };
  flatten(document);
}"""


async def _frame_by_selector(page: Any, selector: str, limit_ms: float, timeout_error: type[Exception]) -> Any:
    """The frame of the first iframe element matching CSS ``selector`` in the page, once it is there
    (within ``limit_ms``), else ``None``."""
    try:
        element = await page.wait_for_selector(selector, state="attached", timeout=limit_ms)
    except timeout_error:
        return None
    return await element.content_frame() if element is not None else None


async def render(playwright: Any, ws_url: str, url: str, completion: Completion, *, text_scope: int,
                 deadline_s: float, javascript: bool = True, inline_frames: bool = False,
                 inline_shadow_roots: bool = False) -> Rendered:
    """Visit ``url`` in the browser at ``ws_url`` and apply ``completion`` (steps as :func:`cdp_steps`).
    ``javascript=False`` visits in a fresh context whose scripts do not run; ``inline_frames`` replaces
    each same-origin iframe by its document's body before the page's HTML is taken (a frame's text is
    part of what the page shows, and ``page.content()`` holds only the ``<iframe>`` element);
    ``inline_shadow_roots`` likewise makes each open shadow root's tree (slots filled) its host's content.

    Raises :class:`FetchError` for navigation failures (``net::ERR_*`` classes, ``timeout``). An unmet
    completion condition is reported in the result (the content is kept), not raised.
    """
    # Playwright is an optional extra: loaded by the first CDP call, never at import.
    from playwright.async_api import Error as PlaywrightError, TimeoutError as PlaywrightTimeout

    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s

    def left_ms() -> float:
        return max(1.0, (end - loop.time()) * 1000)

    browser = await playwright.chromium.connect_over_cdp(ws_url, timeout=left_ms())
    try:
        if javascript:
            context = browser.contexts[0] if browser.contexts else await browser.new_context()
        else:
            context = await browser.new_context(java_script_enabled=False)
        page = await context.new_page()
        wait_until = {"load": "load", "network_idle": "networkidle"}[completion.wait]
        try:
            response = await page.goto(url, wait_until=wait_until, timeout=left_ms())
        except PlaywrightTimeout:
            raise FetchError(ErrorType.TIMEOUT, f"navigation to {url} did not reach {wait_until!r} before the deadline; "
                             "the browser was killed") from None
        except PlaywrightError as exc:
            message = str(exc).splitlines()[0]
            raise FetchError(net_error(message) or ErrorType.CONNECT, f"chromium could not load {url}: {message}") from None
        rendered = Rendered(status=None, final_url=page.url, html="", title=None)
        if response is not None:  # the guarding proxy refused the document itself, or could not reach it
            blocked = await response.header_value("x-lexbench-blocked")
            if blocked:
                raise FetchError(ErrorType.BLOCKED_NETWORK, f"{response.url}: {blocked}")
            failed = await response.header_value("x-lexbench-error")
            if failed:
                raise FetchError(ErrorType.DNS if failed == "dns" else ErrorType.CONNECT,
                                 f"{response.url}: {(await response.text())[:500]}")
        if response is not None:
            rendered.status = response.status
            rendered.final_url = response.url
            rendered.content_type = await response.header_value("content-type")
            hops, request = [], response.request.redirected_from
            while request is not None:
                hops.append(request.url)
                request = request.redirected_from
            rendered.redirects = [*reversed(hops[:-1]), response.url] if hops else []
        frame = page.main_frame
        if completion.frame is not None:
            frame = next((f for f in page.frames if completion.frame == f.name or completion.frame in f.url), None)
        elif completion.frame_selector is not None:
            frame = await _frame_by_selector(page, completion.frame_selector,
                                             min(completion.timeout_ms or left_ms(), left_ms()), PlaywrightTimeout)
        if completion.selector is not None:
            limit = min(completion.timeout_ms or left_ms(), left_ms())
            if frame is None:
                rendered.completion_met = False
                rendered.completion_detail = (f"no frame's name or URL matches {completion.frame!r}" if completion.frame
                                              else f"no same-origin iframe matches {completion.frame_selector!r}")
            else:
                try:
                    await frame.wait_for_function(_COUNT, arg=[completion.selector, completion.min_count], timeout=limit)
                except PlaywrightTimeout:
                    count = await frame.evaluate("(s) => document.querySelectorAll(s).length", completion.selector)
                    rendered.completion_met = False
                    rendered.completion_detail = (f"{count} of {completion.min_count} {completion.selector!r} "
                                                  f"within {limit:.0f} ms")
        if completion.delay_ms:
            await page.wait_for_timeout(min(completion.delay_ms, left_ms()))
        rendered.title = await page.title() or None
        if text_scope == 2:
            rendered.html = await frame.evaluate(_SCOPED, completion.selector) if frame is not None else ""
        else:
            if inline_shadow_roots:
                await page.evaluate(_INLINE_SHADOW_ROOTS)
            if inline_frames:
                await page.evaluate(_INLINE_FRAMES)
            rendered.html = await page.content()
        return rendered
    finally:
        # The browser process is killed by its owner; closing here only drops the CDP connection.
        try:
            await browser.close()
        except Exception:
            pass


@dataclass
class Document:
    """The document a ``file`` task fetched over CDP: its response ``status``, ``final_url`` (after
    redirects, which are listed in ``redirects``), ``content_type`` and ``body`` bytes."""

    status: int
    final_url: str
    content_type: str | None
    body: bytes = field(repr=False)
    redirects: list[str] = field(default_factory=list)


async def fetch_document(playwright: Any, ws_url: str, url: str, *, deadline_s: float, max_bytes: int) -> Document:
    """The response bytes of ``url`` as the browser receives them (the ``file`` route, SPEC §2): the browser
    navigates, the document's response is paused at the response stage (CDP ``Fetch``), its body taken, and
    the request then failed, so nothing is rendered or downloaded and no DOM completion is claimed. Every
    request still goes through the browser's network stack, hence the call's guarding proxy.

    Raises :class:`FetchError`: ``timeout`` when no response arrives in ``deadline_s``, ``too_large`` past
    ``max_bytes``, ``blocked_network``/``connect``/``dns`` for the guarding proxy's answers, the
    ``net::ERR_*`` class of a navigation that failed before any response."""
    import base64

    from playwright.async_api import Error as PlaywrightError

    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s

    def left_ms() -> float:
        return max(1.0, (end - loop.time()) * 1000)

    browser = await playwright.chromium.connect_over_cdp(ws_url, timeout=left_ms())
    try:
        context = browser.contexts[0] if browser.contexts else await browser.new_context()
        page = await context.new_page()
        session = await context.new_cdp_session(page)
        answered: asyncio.Future[Document | FetchError] = loop.create_future()
        hops: list[str] = []

        async def paused(event: dict[str, Any]) -> None:
            request_id, status = event["requestId"], event.get("responseStatusCode")
            headers = {h["name"].lower(): h["value"] for h in event.get("responseHeaders") or []}
            try:
                if answered.done() or status is None or (300 <= status < 400 and "location" in headers):
                    if status is not None and not answered.done():
                        hops.append(event["request"]["url"])
                    await session.send("Fetch.continueRequest", {"requestId": request_id})
                    return
                if headers.get("x-lexbench-blocked"):
                    outcome: Document | FetchError = FetchError(ErrorType.BLOCKED_NETWORK,
                                                                f"{event['request']['url']}: {headers['x-lexbench-blocked']}")
                elif headers.get("x-lexbench-error"):
                    outcome = FetchError(ErrorType.DNS if headers["x-lexbench-error"] == "dns" else ErrorType.CONNECT,
                                         f"{event['request']['url']}: the guarding proxy could not reach it")
                else:
                    body = await session.send("Fetch.getResponseBody", {"requestId": request_id})
                    data = base64.b64decode(body["body"]) if body.get("base64Encoded") else body["body"].encode("utf-8")
                    outcome = (FetchError(ErrorType.TOO_LARGE, f"the document exceeds {max_bytes:,} bytes",
                                          upstream_status=status) if len(data) > max_bytes else
                               Document(status=status, final_url=event["request"]["url"],
                                        content_type=headers.get("content-type"), body=data,
                                        redirects=[*hops[1:], event["request"]["url"]] if hops else []))
                if not answered.done():
                    answered.set_result(outcome)
                await session.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"})
            except Exception as exc:  # the session closed under us: the outer wait reports what is known
                if not answered.done():
                    answered.set_result(FetchError(ErrorType.SERVICE_ERROR, f"CDP interception failed: {exc}"))

        session.on("Fetch.requestPaused", lambda event: asyncio.ensure_future(paused(event)))
        await session.send("Fetch.enable", {"patterns": [{"urlPattern": "*", "resourceType": "Document",
                                                          "requestStage": "Response"}]})
        navigation = asyncio.ensure_future(page.goto(url, wait_until="commit", timeout=left_ms()))
        done, _ = await asyncio.wait({navigation, answered}, timeout=left_ms() / 1000,
                                     return_when=asyncio.FIRST_COMPLETED)
        if answered not in done and navigation in done:
            error = navigation.exception()
            if error is not None and not answered.done():
                message = str(error).splitlines()[0]
                raise FetchError(net_error(message) or ErrorType.CONNECT, f"chromium could not load {url}: {message}")
            await asyncio.wait({answered}, timeout=left_ms() / 1000)
        if not answered.done():
            navigation.cancel()
            raise FetchError(ErrorType.TIMEOUT, f"no response for {url} before the deadline; the browser was killed")
        navigation.cancel()
        try:
            await navigation
        except (asyncio.CancelledError, PlaywrightError):
            pass  # the paused request was failed on purpose: the navigation reports it aborted
        outcome = answered.result()
        if isinstance(outcome, FetchError):
            raise outcome
        return outcome
    finally:
        try:
            await browser.close()
        except Exception:
            pass
