"""The guarding proxy: engines and workers reach the network only through the private-network guard (SPEC §5).

A browser or a Node worker makes its own requests — the page, its scripts, images, frames, XHR,
``fetch``, WebSockets — so the shared HTTP boundary never sees them. Each engine or worker call
therefore gets a :class:`GuardProxy`: a forward proxy on ``127.0.0.1`` (an ephemeral port), started
for the call and closed with it, through which the engine is made to send every request (Chromium:
``--proxy-server`` with ``--proxy-bypass-list=<-loopback>``, so loopback is proxied too, and host
resolver rules that resolve nothing but the proxy; the Node worker and LangChain's loader: their HTTP
agents). For each request it does what the boundary does for a page under test:

- plain HTTP (``GET http://host/path``, absolute form) and ``CONNECT host:port`` (HTTPS, WebSockets
  over TLS) are accepted; anything else is refused;
- the URL is checked (:meth:`NetworkGuard.check_url`: schemes, credentials, numeric IPv4 forms such as
  ``2130706433``), the host is resolved here (the system resolver: the ``dns_mode`` of every page
  under test), every address is checked, the connection goes to a checked address, and the connected
  peer is checked again — so a name that resolves to loopback, a redirect to 169.254.169.254 or a
  DNS answer that changes between check and connect is refused before any packet is sent to it;
- the replay server's own ``host:port`` is the guard's only exemption, in replay mode, as for the
  boundary.

A refusal answers ``403`` with ``X-Lexbench-Blocked: <reason>``; a failed resolution or connection
answers ``502`` with ``X-Lexbench-Error: dns`` or ``connect``; both bodies hold :data:`PROXY_MARKER`, so
an engine that shows the answer as the page (``--dump-dom``) is recognised (:func:`proxy_page_error`). Every outcome other than a relayed request is kept in :attr:`GuardProxy.events`
(refusals also in :attr:`GuardProxy.refusals`, ``"URL: reason"``) and every address connected to in
:attr:`GuardProxy.connections`, for the call's row (``metadata.blocked_requests``) and for tests.
"""

from __future__ import annotations

import contextlib
import ipaddress
import selectors
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from lexbench.answer import ErrorType
from lexbench.providers.call import CURRENT_CALL, FetchError
from lexbench.providers.guard import NetworkGuard

PROXY_MARKER = '<p id="lexbench-proxy" data-error="'
"""In the body of every answer the proxy makes itself, followed by the error type, ``">``, the message."""
MAX_RECORDED = 50
"""Refusals listed in a row's ``metadata.blocked_requests``; past it, one line counts the rest."""
_HEAD_LIMIT = 65_536
_HEAD_TIMEOUT_S = 30.0
_CONNECT_TIMEOUT_S = 30.0
_HOP_HEADERS = frozenset({"proxy-connection", "proxy-authorization", "connection", "keep-alive"})


@dataclass(frozen=True)
class ProxyEvent:
    """One request the proxy did not relay: ``kind`` (``blocked_network``, ``dns`` or ``connect``),
    ``target`` (the URL, or ``https://host:port`` for a CONNECT) and ``message``."""

    kind: str
    target: str
    message: str


class GuardProxy:
    """A loopback forward proxy under ``guard``; a context manager. See the module docstring.

    ``address`` is ``"127.0.0.1:PORT"`` once started. ``events``: what was refused or failed, in order;
    ``refusals``: the refused ones as ``"URL: reason"``; ``connections``: every ``(address, port)``
    connected to. Thread-safe; :meth:`close` closes every connection it holds.
    """

    def __init__(self, guard: NetworkGuard) -> None:
        self.guard = guard
        self.events: list[ProxyEvent] = []
        self.connections: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    def start(self) -> GuardProxy:
        listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, daemon=True, name="lexbench-guard-proxy")
        self._thread.start()
        return self

    def __enter__(self) -> GuardProxy:
        return self.start() if self._listener is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def address(self) -> str:
        assert self._listener is not None, "start the proxy first"
        return f"127.0.0.1:{self._listener.getsockname()[1]}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def refusals(self) -> list[str]:
        with self._lock:
            return [f"{e.target}: {e.message}" for e in self.events if e.kind == ErrorType.BLOCKED_NETWORK.value]

    def recorded(self) -> list[str]:
        """The refusals for a row: at most :data:`MAX_RECORDED`, then how many more there were."""
        refusals = self.refusals
        if len(refusals) <= MAX_RECORDED:
            return refusals
        return [*refusals[:MAX_RECORDED], f"... and {len(refusals) - MAX_RECORDED} more refused requests"]

    def last_event(self) -> ProxyEvent | None:
        """The last refusal (``blocked_network``) if any, else the last failure, else ``None``.

        A refusal comes first because only the page can cause one: a browser's own background calls
        (``accounts.google.com``, ``update.googleapis.com``, which Chromium makes despite its flags) go to
        public hosts the guard lets through, and fail only on resolution or connection, at any moment —
        often after the navigation's refusal, on a loaded machine."""
        with self._lock:
            refused = [e for e in self.events if e.kind == ErrorType.BLOCKED_NETWORK.value]
            return refused[-1] if refused else self.events[-1] if self.events else None

    def close(self) -> None:
        self._closed.set()
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() a close alone would leave waiting
            with contextlib.suppress(OSError):
                self._listener.close()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()
        if self._thread is not None:
            self._thread.join(5.0)

    # -- serving ---------------------------------------------------------------------------------

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._hold(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True, name="lexbench-guard-proxy-conn").start()

    def _hold(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.add(sock)
        if self._closed.is_set():
            with contextlib.suppress(OSError):
                sock.close()

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        try:
            client.settimeout(_HEAD_TIMEOUT_S)
            head, rest = _read_head(client)
            if head is None:
                return
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            parts = request_line.split(" ")
            if len(parts) != 3:
                return self._answer(client, 400, "a proxy request line has three parts")
            method, target, _version = parts
            tunnel = method.upper() == "CONNECT"
            url = _tunnel_url(target) if tunnel else target
            if url is None or not url.lower().startswith(("http://", "https://")) or (not tunnel and url.lower().startswith("https://")):
                self._record(ErrorType.BLOCKED_NETWORK.value, target[:300], "not an absolute http URL nor a CONNECT host:port")
                return self._refuse(client, "only http requests and CONNECT tunnels are proxied")
            try:
                upstream = self._connect(url)
            except FetchError as exc:
                self._record(exc.error_type.value, url[:500], str(exc))
                if exc.error_type is ErrorType.BLOCKED_NETWORK:
                    return self._refuse(client, str(exc))
                return self._answer(client, 502, str(exc), error=exc.error_type.value)
            self._hold(upstream)
            client.settimeout(None)
            upstream.settimeout(None)
            if tunnel:
                client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                upstream.sendall(_origin_form(method, url, header_lines) + rest)
                rest = b""
            if rest:
                upstream.sendall(rest)
            _relay(client, upstream)
        except OSError:
            return
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.close()
                    with self._lock:
                        self._sockets.discard(sock)

    def _connect(self, url: str) -> socket.socket:
        """Check ``url``, resolve its host, check every address, connect to a checked one, check the
        peer. Raises :class:`FetchError` (``blocked_network``, ``dns``, ``connect``)."""
        self.guard.check_url(url)
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        try:
            literal = str(ipaddress.ip_address(host))
            addresses = [literal]
        except ValueError:
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError) as exc:
                raise FetchError(ErrorType.DNS, f"cannot resolve {host}: {getattr(exc, 'strerror', None) or exc} "
                                 "(system resolver)") from None
            addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        for address in addresses:
            self.guard.check_address(host, address, port)
        failure: OSError | None = None
        for address in addresses:
            with self._lock:
                self.connections.append((address, port))
            try:
                sock = socket.create_connection((address, port), timeout=_CONNECT_TIMEOUT_S)
            except OSError as exc:
                failure = exc
                continue
            try:
                self.guard.check_address(host, str(sock.getpeername()[0]), port)
            except FetchError:
                sock.close()
                raise
            return sock
        raise FetchError(ErrorType.CONNECT, f"cannot connect to {host}:{port}: {failure}")

    def _record(self, kind: str, target: str, message: str) -> None:
        with self._lock:
            self.events.append(ProxyEvent(kind, target, message))

    def _refuse(self, client: socket.socket, reason: str) -> None:
        self._answer(client, 403, reason, blocked=True)

    @staticmethod
    def _answer(client: socket.socket, status: int, message: str, *, blocked: bool = False, error: str | None = None) -> None:
        text = message.replace("\r", " ").replace("\n", " ")
        kind = ErrorType.BLOCKED_NETWORK.value if blocked else error or "connect"
        body = (f"<!doctype html><title>lexbench's guarding proxy</title>{PROXY_MARKER}{kind}\">{_escape(text)}"
                "</p>").encode("utf-8")
        reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
        header = f"X-Lexbench-Blocked: {text[:1000]}\r\n" if blocked else f"X-Lexbench-Error: {error}\r\n" if error else ""
        head = (f"HTTP/1.1 {status} {reason}\r\n{header}Content-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        with contextlib.suppress(OSError):
            client.sendall(head.encode("latin-1", errors="replace") + body)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _read_head(sock: socket.socket) -> tuple[bytes | None, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(8192)
        if not chunk or len(data) > _HEAD_LIMIT:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head, rest


def _tunnel_url(target: str) -> str | None:
    """``https://host:port/`` for a CONNECT target ``host:port`` or ``[v6]:port``; ``None`` if malformed."""
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or not host:
        return None
    return f"https://{host}:{port}/"


def _origin_form(method: str, url: str, header_lines: list[str]) -> bytes:
    """The request as the origin server expects it: path and query only, no proxy or hop-by-hop
    headers, ``Connection: close`` (one request per upstream connection)."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [line for line in header_lines if line and line.split(":", 1)[0].strip().lower() not in _HOP_HEADERS]
    return "\r\n".join([f"{method} {path} HTTP/1.1", *kept, "Connection: close", "", ""]).encode("latin-1")


def _relay(client: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes both ways until the upstream side has finished sending (or either side fails); the
    client's end of input is passed on, and its connection is closed once the upstream is done."""
    ends = {client: upstream, upstream: client}
    with selectors.DefaultSelector() as selector:
        for sock in ends:
            selector.register(sock, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                source = key.fileobj
                assert isinstance(source, socket.socket)
                data = source.recv(65536)
                if data:
                    ends[source].sendall(data)
                    continue
                if source is upstream:
                    return
                selector.unregister(client)
                with contextlib.suppress(OSError):
                    upstream.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def guarded_call(guard: NetworkGuard) -> Iterator[GuardProxy]:
    """A :class:`GuardProxy` for one engine or worker call; on leaving, it is closed and its refusals
    are put on the call's trace (``metadata.blocked_requests`` of the row), before those a worker's own
    request hook reported (:func:`record_hook_refusals`)."""
    proxy = GuardProxy(guard).start()
    try:
        yield proxy
    finally:
        proxy.close()
        context = CURRENT_CALL.get()
        if context is not None:
            hooks = context.trace.blocked_requests
            context.trace.blocked_requests = proxy.recorded() + hooks[:MAX_RECORDED]


def record_hook_refusals(refusals: object) -> None:
    """Put what a worker's request hook refused (a list of strings from its answer) on the call's trace."""
    context = CURRENT_CALL.get()
    if context is not None and isinstance(refusals, list):
        context.trace.blocked_requests.extend(str(item)[:1000] for item in refusals[:MAX_RECORDED])


def proxy_page_error(html: str) -> FetchError | None:
    """The error when ``html`` is an answer of the proxy shown as the document (an engine that displays
    a refused or failed navigation): ``blocked_network``, ``dns`` or ``connect``; else ``None``."""
    if PROXY_MARKER not in html or len(html) > 8192:
        return None
    rest = html[html.index(PROXY_MARKER) + len(PROXY_MARKER):]
    kind, _, text = rest.partition('">')
    message = text.split("<", 1)[0].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").strip()
    try:
        error_type = ErrorType(kind)
    except ValueError:
        error_type = ErrorType.CONNECT
    return FetchError(error_type, message or "refused by the guarding proxy")


def proxy_failure(proxy: GuardProxy, message: str) -> FetchError:
    """The error of a navigation the engine reports only as a failed tunnel (``ERR_TUNNEL_CONNECTION_FAILED``):
    the proxy's last refusal, else its last failure, says what it was (``blocked_network``, ``dns``,
    ``connect``: :meth:`GuardProxy.last_event`)."""
    event = proxy.last_event()
    if event is None:
        return FetchError(ErrorType.CONNECT, message)
    return FetchError(ErrorType(event.kind), f"{event.target}: {event.message}")
