"""The shared HTTP boundary: every HTTP request a provider makes goes through :class:`HttpBoundary` (SPEC §5).

Two entry points, one per kind of request::

    boundary = HttpBoundary(guard=NetworkGuard.allowing(("127.0.0.1", replay_port)))
    page = boundary.fetch_target(url, deadline)                 # a page under test (local providers)
    answer = boundary.send(HttpRequest("POST", api_url, headers=..., json={"url": url}), deadline)  # a hosted API

Both enforce, for one physical call:

- a **total deadline** (``anyio.fail_after`` around connect, TLS, redirects, headers and the whole body;
  not httpx's per-phase timeouts), ending in ``timeout`` with what had arrived so far;
- the **20,000,000-byte ceiling** on the body as it streams in (a declared larger ``Content-Length`` fails
  at once) and on its decompression (gzip/deflate inflated in bounded steps, so a gzip bomb never
  expands past the ceiling in memory), failing ``too_large``;
- **redirects** followed by hand (at most ``max_redirects``; a loop fails ``too_many_redirects`` as soon as
  a URL repeats), each hop checked like the first; credential headers are dropped on a cross-origin hop,
  and a hosted API's redirect leaves its origin only as :meth:`HttpBoundary.send` allows;
- **resolve-then-connect**: the host is resolved by the boundary, each address is checked, and the
  connection is opened to that checked address (TLS still verifies the host name), then the connected
  peer is checked again.

``fetch_target`` resolves with the system resolver and applies the private-network guard
(:mod:`lexbench.providers.guard`). ``send`` (hosted APIs) resolves per ``dns_mode``
(:mod:`lexbench.providers.resolve`) and is not guarded: its endpoint is operator configuration.
With a ``debug_dir``, every exchange (request, response headers and body, or the error) is saved there,
redacted (``log_level: debug``). Failures raise :class:`~lexbench.providers.call.FetchError`.
"""

from __future__ import annotations

import json
import logging
import re
import ssl
import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpcore
import httpx

from lexbench.answer import DnsMode, ErrorType
from lexbench.charsets import decode_page
from lexbench.providers.call import CURRENT_CALL, MAX_BODY_BYTES, CallTrace, Deadline, FetchError
from lexbench.providers.credentials import Redactor, is_sensitive_header
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.resolve import DohResolver, Resolver, SystemResolver

USER_AGENT = "lexbench/0.1 (Web Fetch benchmark)"
MAX_REDIRECTS = 10
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_INFLATE_STEP = 1 << 20
_SUPPORTED_CODINGS = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
# An XML declaration (XHTML pages): `<?xml version="1.0" encoding="ISO-8859-1"?>`, first in the body.
_XML_ENCODING = re.compile(rb"""\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9_.:-]+)["']""")

# httpx and httpcore log each request line, full URL included, at INFO/DEBUG; a URL may carry an API key.
for _name in ("httpx", "httpcore"):
    logging.getLogger(_name).setLevel(logging.WARNING)


@dataclass(frozen=True)
class HttpRequest:
    """A request a hosted adapter builds: ``json`` (any JSON value) or ``content`` (bytes) as the body.

    ``redirect_origins``: the origins other than the request's own (``"https://files.example"``) that a
    redirect from a hosted API may lead to; none by default (see :meth:`HttpBoundary.send`).
    """

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    json: Any = None
    content: bytes | None = None
    redirect_origins: frozenset[str] = frozenset()


@dataclass(frozen=True)
class HttpResponse:
    """A complete response: status, headers, the decoded body (at most the ceiling), final URL.

    ``redirects`` lists the URLs followed after the first request, in order.
    """

    status: int
    headers: httpx.Headers
    body: bytes
    url: str
    redirects: tuple[str, ...] = ()

    @property
    def content_type(self) -> str | None:
        """The media type, lower-cased, without parameters (``"text/html"``); ``None`` when absent."""
        value = self.headers.get("content-type")
        return value.split(";", 1)[0].strip().lower() or None if value else None

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def text(self) -> str:
        """The body as text: charset from the header, a BOM, an XML declaration's ``encoding`` or a
        ``<meta charset>``; else UTF-8.

        Undecodable bytes become U+FFFD (as browsers do); a charset that is not a WHATWG text encoding
        (``punycode``, ``undefined``, a typo) falls back to UTF-8 (:mod:`lexbench.charsets`).
        """
        return decode_text(self.body, self.headers.get("content-type"))


def decode_text(body: bytes, content_type: str | None) -> str:
    """Decode a page body like a browser would (see :meth:`HttpResponse.text`): a byte-order mark
    first (it is stripped), then the Content-Type charset, then a ``<meta charset>``, else UTF-8."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return decode_page(memoryview(body)[len(bom):], name)[0]
    charset = None
    if content_type:
        match = re.search(r"charset\s*=\s*[\"']?([^\"';\s]+)", content_type, re.IGNORECASE)
        charset = match.group(1) if match else None
    if charset is None:
        match = _XML_ENCODING.match(body, 0, 1024) or _META_CHARSET.search(body[:4096])
        charset = match.group(1).decode("ascii") if match else None
    return decode_page(body, charset)[0]  # only WHATWG text encodings; any other label reads as UTF-8


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16le"), (b"\xfe\xff", "utf-16be"))


class HttpBoundary:
    """The one HTTP client of every provider. Thread-safe; holds no connection between calls.

    ``guard`` applies to :meth:`fetch_target`; ``dns_mode``/``doh_url`` to :meth:`send`
    (``public_doh`` needs ``doh_url``, else ``ValueError``). ``max_body_bytes`` is the ceiling;
    ``debug_dir`` turns on redacted exchange logs.
    """

    def __init__(self, *, guard: NetworkGuard | None = None, dns_mode: DnsMode = "system", doh_url: str | None = None,
                 max_body_bytes: int = MAX_BODY_BYTES, max_redirects: int = MAX_REDIRECTS,
                 debug_dir: Path | None = None) -> None:
        if dns_mode == "public_doh" and not doh_url:
            raise ValueError("dns_mode public_doh needs doh_url (the DoH resolver's https URL)")
        self.guard = guard or NetworkGuard()
        self.dns_mode: DnsMode = dns_mode
        self._api_resolver: Resolver = DohResolver(doh_url) if dns_mode == "public_doh" and doh_url else SystemResolver()
        self._target_resolver = SystemResolver()
        self.max_body_bytes = max_body_bytes
        self.max_redirects = max_redirects
        self.debug_dir = debug_dir
        _warm_up()  # providers are built before their first (timed) call

    def fetch_target(self, url: str, deadline: Deadline, headers: Mapping[str, str] | None = None) -> HttpResponse:
        """GET a page under test: guarded, system DNS. Any status is returned (the caller judges it);
        raises :class:`FetchError` (timeout, dns, connect, tls, blocked_network, too_large,
        too_many_redirects, malformed_response for an undecodable body)."""
        return self._run(HttpRequest("GET", url, headers=dict(headers or {})), deadline, target=True)

    def send(self, request: HttpRequest, deadline: Deadline) -> HttpResponse:
        """Send a hosted API request: resolved per ``dns_mode``; the API's own origin is operator
        configuration and unguarded. Any status is returned; raises :class:`FetchError` like
        :meth:`fetch_target` (failures carry ``api_http_status``).

        A redirect leaves the API's origin only for one of ``request.redirect_origins``, and that hop is
        guarded like a target fetch; it never carries credentials: credential headers are dropped, and
        a hop that would re-send the request body (307/308; Bright Data's body holds its zone) or whose
        URL holds a credential fails ``blocked_network`` instead (SPEC §5)."""
        return self._run(request, deadline, target=False)

    # --- the exchange ---------------------------------------------------------------------------

    def _run(self, request: HttpRequest, deadline: Deadline, *, target: bool) -> HttpResponse:
        context = CURRENT_CALL.get()
        trace = context.trace if context is not None else CallTrace()
        progress = _Progress(request=request)
        status_field = "upstream_status" if target else "api_http_status"
        if context is not None and context.abandoned.is_set():
            raise FetchError(ErrorType.TIMEOUT, "the call was abandoned at its deadline; no new request was sent")
        if deadline.expired:
            raise FetchError(ErrorType.TIMEOUT, f"the {deadline.seconds:g} s deadline passed before the request was sent")

        async def exchange() -> HttpResponse:
            with anyio.fail_after(deadline.remaining()):
                return await self._exchange(request, target=target, trace=trace, progress=progress)

        try:
            return anyio.run(exchange)
        except TimeoutError:
            final_status = None if progress.status in _REDIRECT_STATUSES else progress.status
            error = FetchError(ErrorType.TIMEOUT, f"no complete answer within the {deadline.seconds:g} s deadline "
                               f"({progress.describe()})", **{status_field: final_status})
        except FetchError as exc:
            if progress.status not in _REDIRECT_STATUSES:  # a 3xx is no final status
                exc.metadata.setdefault(status_field, progress.status)
            error = exc
        except httpx.HTTPError as exc:
            error = _map_httpx_error(exc, progress, status_field)
            if "location header" in str(exc).lower():  # httpx reads a redirect's Location before we can
                error = _unparsable_url(exc, target=target, redirect=True)
        except httpx.InvalidURL as exc:  # a URL (or a redirect's Location) the client cannot read
            error = _unparsable_url(exc, target=target, redirect=progress.status is not None)
        except OSError as exc:
            error = FetchError(ErrorType.CONNECT, f"network error for {progress.where()}: {exc}")
        self._log(progress.request, error=str(error))
        raise error

    async def _exchange(self, request: HttpRequest, *, target: bool, trace: CallTrace, progress: _Progress) -> HttpResponse:
        resolver = self._target_resolver if target else self._api_resolver
        trace.dns_mode = resolver.mode
        backend = _Backend(resolver, self.guard if target else None, progress)
        transport = _Transport(backend)
        method, url = request.method.upper(), request.url
        api_origin = None if target else _origin(url)
        headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate", **dict(request.headers)}
        content = request.content if request.json is None else json.dumps(request.json).encode("utf-8")
        if request.json is not None:
            headers.setdefault("Content-Type", "application/json")
        visited = [url]
        async with httpx.AsyncClient(transport=transport, trust_env=False, timeout=None, follow_redirects=False) as client:
            for _hop in range(self.max_redirects + 1):
                # Targets are always guarded; a hosted API's hops only once they leave its origin.
                backend.guard = self.guard if target or _origin(url) != api_origin else None
                if backend.guard is not None:
                    backend.guard.check_url(url)
                progress.start(HttpRequest(method, url, headers=headers, content=content))
                trace.exchanges += 1
                response = await client.send(client.build_request(method, url, headers=headers, content=content), stream=True)
                try:
                    progress.status = response.status_code
                    location = response.headers.get("location")
                    if response.status_code in _REDIRECT_STATUSES and location:
                        self._log(progress.request, response=response)
                        next_url = str(response.url.join(location))
                        if next_url in visited:
                            chain = " → ".join([*visited[visited.index(next_url):], next_url])
                            raise FetchError(ErrorType.TOO_MANY_REDIRECTS, f"redirect loop: {chain}")
                        visited.append(next_url)
                        trace.redirects.append(next_url)
                        if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
                            method, content = ("GET" if method != "HEAD" else method), None
                            headers.pop("Content-Type", None)
                        if api_origin is not None and _origin(next_url) != api_origin:
                            self._check_api_redirect(request, url, next_url, content)
                        if _origin(next_url) != _origin(url):
                            headers = self._drop_credentials(headers)
                        url = next_url
                        continue
                    body = await self._read_body(response, progress)
                finally:
                    await response.aclose()
                result = HttpResponse(status=response.status_code, headers=response.headers, body=body,
                                      url=str(response.url), redirects=tuple(visited[1:]))
                self._log(progress.request, response=response, body=body)
                return result
        raise FetchError(ErrorType.TOO_MANY_REDIRECTS,
                         f"more than {self.max_redirects} redirects, starting at {visited[0]} and ending at {visited[-1]}")

    async def _read_body(self, response: httpx.Response, progress: _Progress) -> bytes:
        limit = self.max_body_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchError(ErrorType.TOO_LARGE, f"the body declares {int(declared):,} bytes, over the {limit:,}-byte "
                             "ceiling; not downloaded")
        decoder = BoundedDecoder(response.headers.get("content-encoding"), limit)
        async for chunk in response.aiter_raw():
            progress.received += len(chunk)
            if progress.received > limit:
                raise FetchError(ErrorType.TOO_LARGE, f"the body passed the {limit:,}-byte ceiling while streaming; cut off")
            decoder.feed(chunk)
        return decoder.finish()

    @staticmethod
    def _check_api_redirect(request: HttpRequest, url: str, next_url: str, content: bytes | None) -> None:
        """Refuse a hosted API's redirect to another origin unless the adapter declared that origin, and
        any such hop that would carry the request body or a credential in its URL (SPEC §5)."""
        allowed = {_origin(origin) for origin in request.redirect_origins}
        where = f"the API at {_origin_text(url)} redirected to {_origin_text(next_url)}"
        if _origin(next_url) not in allowed:
            raise FetchError(ErrorType.BLOCKED_NETWORK, f"{where}, an origin its adapter does not declare; a hosted "
                             "API's redirect is not followed off its origin (declare it in the adapter's "
                             "redirect_origins if the service documents it)")
        if content:
            raise FetchError(ErrorType.BLOCKED_NETWORK, f"{where} with the request body kept (a 307/308); the body may "
                             "carry credentials and is never sent to another origin")
        context = CURRENT_CALL.get()
        if context is not None and context.redactor.holds_secret(next_url):
            raise FetchError(ErrorType.BLOCKED_NETWORK, f"{where} with a credential in the new URL; not followed")

    @staticmethod
    def _drop_credentials(headers: dict[str, str]) -> dict[str, str]:
        context = CURRENT_CALL.get()
        redactor = context.redactor if context is not None else Redactor()
        return {name: value for name, value in headers.items()
                if not is_sensitive_header(name) and not redactor.holds_secret(value)}

    def _log(self, request: HttpRequest | None, *, response: httpx.Response | None = None, body: bytes | None = None,
             error: str | None = None) -> None:
        if self.debug_dir is None or request is None:
            return
        record: dict[str, Any] = {"request": {
            "method": request.method, "url": request.url, "headers": [list(h) for h in request.headers.items()],
            "body": request.content.decode("utf-8", errors="replace") if request.content else None,
        }}
        if response is not None:
            record["response"] = {"status": response.status_code, "url": str(response.url),
                                  "headers": [list(h) for h in response.headers.multi_items()],
                                  "body": body.decode("utf-8", errors="replace") if body is not None else None}
        if error is not None:
            record["error"] = error
        write_debug_record(self.debug_dir, record)


def write_debug_record(debug_dir: Path, record: dict[str, Any]) -> Path:
    """Save one redacted exchange as ``<debug_dir>/<provider>/<case>/attempt-<n>-<seq>.json``.

    Header values with credential-like names are masked whole; every other string is redacted with the
    current call's :class:`~lexbench.providers.credentials.Redactor`.
    """
    context = CURRENT_CALL.get()
    provider, case, attempt = (context.provider, context.case_id, context.attempt) if context else ("direct", "direct", 0)
    redactor = context.redactor if context is not None else Redactor()
    for part in ("request", "response"):
        if part in record:
            record[part]["headers"] = [list(h) for h in redactor.headers(tuple(h) for h in record[part]["headers"])]
    record = redactor.value(record)
    folder = debug_dir / _safe(provider) / _safe(case)
    folder.mkdir(parents=True, exist_ok=True)
    sequence = len(list(folder.glob(f"attempt-{attempt}-*.json"))) + 1
    path = folder / f"attempt-{attempt}-{sequence:02d}.json"
    path.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:120] or "_"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


def _origin_text(url: str) -> str:
    scheme, host, port = _origin(url)
    return f"{scheme}://{host}:{port}"


# --- bounded decompression ---------------------------------------------------------------------


class BoundedDecoder:
    """Undoes ``Content-Encoding`` (gzip, deflate, stacked) without ever holding more than ``limit``
    decoded bytes: each inflate step is capped at what is left under the ceiling. Raises
    :class:`FetchError` ``too_large`` past the ceiling and ``malformed_response`` for an unsupported
    coding or a corrupt stream."""

    def __init__(self, content_encoding: str | None, limit: int) -> None:
        codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        unsupported = [c for c in codings if c not in _SUPPORTED_CODINGS]
        if unsupported:
            raise FetchError(ErrorType.MALFORMED_RESPONSE, f"unsupported content-encoding {', '.join(unsupported)} "
                             "(only gzip and deflate were accepted)")
        self.limit = limit
        self._stages = [_Inflater(_SUPPORTED_CODINGS[c], limit) for c in reversed(codings)]
        self._out = bytearray()

    def feed(self, data: bytes | bytearray) -> None:
        for stage in self._stages:
            data = stage.feed(data)
        self._append(data)

    def finish(self) -> bytes:
        data = b""
        for index, stage in enumerate(self._stages):
            data = stage.finish(data)
            for later in self._stages[index + 1:]:
                data = later.feed(data)
            self._append(data)
            data = b""
        return bytes(self._out)

    def _append(self, data: bytes | bytearray) -> None:
        if len(self._out) + len(data) > self.limit:
            raise FetchError(ErrorType.TOO_LARGE, f"the decoded body passed the {self.limit:,}-byte ceiling; cut off")
        self._out += data


class _Inflater:
    def __init__(self, coding: str, limit: int) -> None:
        self.coding, self.limit, self.produced = coding, limit, 0
        self._raw_deflate = False
        self._fed = False
        self._inflater = self._new()

    def _new(self) -> Any:
        if self.coding == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_deflate else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> bytes | bytearray:
        out = bytearray()
        pending = data
        self._fed = self._fed or bool(data)
        while pending:
            try:
                # Inflate in steps of at most 1 MiB: memory stays near the ceiling, never a multiple of it.
                chunk = self._inflater.decompress(pending, min(self.limit - self.produced + 1, _INFLATE_STEP))
            except zlib.error as exc:
                if self.coding == "deflate" and not self._raw_deflate and self.produced == 0:
                    self._raw_deflate = True  # some servers send raw deflate without the zlib header
                    self._inflater = self._new()
                    continue
                raise FetchError(ErrorType.MALFORMED_RESPONSE, f"corrupt {self.coding} body: {exc}") from None
            self.produced += len(chunk)
            if self.produced > self.limit:
                raise FetchError(ErrorType.TOO_LARGE, f"the {self.coding} body inflates past the {self.limit:,}-byte "
                                 "ceiling (a compression bomb?); cut off")
            out += chunk
            if self._inflater.unconsumed_tail:
                pending = self._inflater.unconsumed_tail
            elif self._inflater.eof and self._inflater.unused_data:
                pending = self._inflater.unused_data  # the next gzip member
                self._inflater = self._new()
            else:
                pending = b""
        return out

    def finish(self, data: bytes | bytearray) -> bytes | bytearray:
        out = self.feed(data) if data else bytearray()
        tail = self._inflater.flush()
        self.produced += len(tail)
        if self.produced > self.limit:
            raise FetchError(ErrorType.TOO_LARGE, f"the {self.coding} body inflates past the {self.limit:,}-byte ceiling")
        if self._fed and not self._inflater.eof:  # the stream stopped before its end marker (and checksum)
            raise FetchError(ErrorType.MALFORMED_RESPONSE, f"truncated {self.coding} body: it ended before the "
                             f"stream's end after {self.produced:,} decoded bytes")
        return out + tail


# --- resolve-then-connect -------------------------------------------------------------------------


@dataclass
class _Progress:
    """How far the current exchange got, for the timeout message and the error log."""

    request: HttpRequest | None = None
    connected: str | None = None
    status: int | None = None
    received: int = 0

    def start(self, request: HttpRequest) -> None:
        self.request, self.connected, self.status, self.received = request, None, None, 0

    def where(self) -> str:
        if self.request is None:
            return "the request"
        parts = urlsplit(self.request.url)
        return f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"

    def describe(self) -> str:
        if self.connected is None:
            return f"not connected to {self.where()}"
        if self.status is None:
            return f"connected to {self.connected}, no response headers"
        return f"status {self.status}, {self.received:,} body bytes received"


class _Backend(httpcore.AsyncNetworkBackend):
    """httpcore network backend: resolve with the boundary's resolver, guard, connect to the checked
    address, then guard the connected peer."""

    def __init__(self, resolver: Resolver, guard: NetworkGuard | None, progress: _Progress) -> None:
        self._resolver, self.guard, self._progress = resolver, guard, progress  # guard: per hop
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        addresses = await self._resolver.resolve(host, port)
        guard = self.guard
        if guard is not None:
            for address in addresses:
                guard.check_address(host, address, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                stream = await self._inner.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                       socket_options=socket_options)
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            peer = stream.get_extra_info("server_addr")
            peer_address = str(peer[0]) if peer else address
            if guard is not None:
                try:
                    guard.check_address(host, peer_address, port)
                except FetchError:
                    await stream.aclose()
                    raise
            self._progress.connected = f"{peer_address}:{port}"
            return stream
        raise failure or httpcore.ConnectError(f"no address to connect to for {host}")

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        raise FetchError(ErrorType.BLOCKED_NETWORK, "unix sockets are never connected to")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


_SSL_CONTEXT: ssl.SSLContext | None = None
_SSL_LOCK = threading.Lock()


def _ssl_context() -> ssl.SSLContext:
    """The process's TLS client context, built once: building one loads the CA bundle (~15 ms), which
    inside every exchange would be counted in the provider's latency. Contexts are safe to share."""
    global _SSL_CONTEXT
    with _SSL_LOCK:
        if _SSL_CONTEXT is None:
            _SSL_CONTEXT = httpx.create_ssl_context(trust_env=False)
        return _SSL_CONTEXT


_WARMED = False


def _warm_up() -> None:
    """Do once per process, untimed, what the first exchange would otherwise do inside a provider's
    measured latency: build the TLS context and import the event-loop backend (together ~50 ms, several
    hundred ms on a loaded machine)."""
    global _WARMED
    if _WARMED:
        return
    _ssl_context()

    async def nothing() -> None:
        await anyio.sleep(0)

    try:
        anyio.run(nothing)
    except RuntimeError:  # built inside a running event loop: the first exchange will pay instead
        return
    _WARMED = True


class _Transport(httpx.AsyncHTTPTransport):
    """httpx's transport with our network backend; no proxies from the environment (they would bypass
    the guard), HTTP/1.1 only."""

    def __init__(self, backend: _Backend) -> None:
        context = _ssl_context()
        super().__init__(verify=context, trust_env=False)
        # httpx has no public hook for the network backend; replace the pool it built.
        self._pool = httpcore.AsyncConnectionPool(ssl_context=context, network_backend=backend, http1=True,
                                                  http2=False)


def _unparsable_url(exc: Exception, *, target: bool, redirect: bool) -> FetchError:
    """A URL the client cannot read: refused for a page under test (the guard cannot judge it); for a
    hosted API, a malformed answer when it came as a redirect, else a request that could not be made."""
    error_type = ErrorType.BLOCKED_NETWORK if target else ErrorType.MALFORMED_RESPONSE if redirect else ErrorType.CONNECT
    where = "a redirect to " if redirect else ""
    return FetchError(error_type, f"refused {where}a URL that does not parse ({exc})")


def _map_httpx_error(exc: httpx.HTTPError, progress: _Progress, status_field: str) -> FetchError:
    where = progress.where()
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, (ssl.SSLError, ssl.CertificateError)):
            return FetchError(ErrorType.TLS, f"TLS handshake with {where} failed: {cause}")
        cause = cause.__cause__ or cause.__context__
    if isinstance(exc, httpx.ConnectError):
        return FetchError(ErrorType.CONNECT, f"cannot connect to {where}: {exc or type(exc).__name__}")
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)):
        return FetchError(ErrorType.CONNECT, f"the connection to {where} broke ({progress.describe()}): "
                          f"{exc or type(exc).__name__}", **{status_field: progress.status})
    return FetchError(ErrorType.CONNECT, f"HTTP error with {where}: {type(exc).__name__}: {exc}")
