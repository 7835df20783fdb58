"""Loopback servers for the provider tests: a hostile page server, a fake hosted fetch API and a DoH
resolver. All bind 127.0.0.1 on port 0, every loop in them is bounded in count and time, and they stop
when the test's ``with`` block ends.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote

import dns.message
import dns.rcode
import dns.rrset

HANG_LIMIT_S = 30.0
"""No handler keeps a connection open longer than this, whatever the test does."""
SLOW_ANSWER_S = HANG_LIMIT_S
"""The fake API's ``slow`` scenario answers after this long: far past any deadline a test sets."""
LOAD_MARGIN_S = 10.0
"""What a loaded machine may add to a call after its deadline fired (scheduling, kill and reap). A call
held by a slow or hung page would take :data:`HANG_LIMIT_S`, so ``deadline + LOAD_MARGIN_S`` below it
still shows the deadline ended the call."""
BIG_BODY_BYTES = 25_000_000


def gzip_bomb(inflated_bytes: int = 200_000_000) -> bytes:
    """A gzip stream of ``inflated_bytes`` zeros (about 1000:1), built in bounded 1 MB steps."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [compressor.compress(block) for _ in range(inflated_bytes >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 whose handler is ``handle(handler, server)``."""

    def __init__(self, handle: Callable[[BaseHTTPRequestHandler, LoopbackServer], None]) -> None:
        self.handle = handle
        self.stopping = threading.Event()
        self.hits: list[tuple[str, str]] = []
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                outer.hits.append(("GET", self.path))
                outer.handle(self, outer)

            def do_POST(self) -> None:  # noqa: N802
                outer.hits.append(("POST", self.path))
                outer.handle(self, outer)

            def log_message(self, format: str, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client hanging up mid-answer is what these tests do on purpose

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)  # quick stop

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def address(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str | None = "text/html; charset=utf-8",
         headers: Mapping[str, str] | None = None) -> None:
    handler.send_response(status)
    if content_type:
        handler.send_header("Content-Type", content_type)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def hostile_pages(page: bytes, other_port: int) -> Callable[[BaseHTTPRequestHandler, LoopbackServer], None]:
    """Routes serving ``page`` and the bad inputs of issue 5; ``other_port`` is a second loopback
    server a redirect points at (the guard must refuse it: only the exempt port is allowed)."""
    bomb = gzip_bomb()

    def handle(h: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        path = h.path
        if path == "/page":
            send(h, 200, page)
        elif path == "/never":
            server.stopping.wait(HANG_LIMIT_S)  # read the request, never answer
        elif path == "/drip":
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", "60")
            h.end_headers()
            for _ in range(60):  # a byte a second, at most a minute
                if server.stopping.wait(1.0):
                    return
                try:
                    h.wfile.write(b"x")
                    h.wfile.flush()
                except OSError:
                    return
        elif path in ("/big", "/big-undeclared"):
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            if path == "/big":
                h.send_header("Content-Length", str(BIG_BODY_BYTES))
            else:
                h.send_header("Connection", "close")
                h.close_connection = True
            h.end_headers()
            block = b"<p>" + b"a" * 65_529 + b"</p>"
            try:
                for _ in range(BIG_BODY_BYTES // len(block) + 1):
                    h.wfile.write(block)
            except OSError:
                return
        elif path == "/bomb":
            send(h, 200, bomb, headers={"Content-Encoding": "gzip"})
        elif path == "/gzip":
            send(h, 200, gzip.compress(page), headers={"Content-Encoding": "gzip"})
        elif path == "/gzip-truncated":  # the stream cut before its end marker and checksum
            send(h, 200, gzip.compress(page)[:-200], headers={"Content-Encoding": "gzip"})
        elif path == "/charset-punycode":
            send(h, 200, page, content_type="text/html; charset=punycode")
        elif path == "/charset-undefined":
            send(h, 200, page, content_type="text/html; charset=undefined")
        elif path == "/loop-a":
            send(h, 302, b"", headers={"Location": "/loop-b"})
        elif path == "/loop-b":
            send(h, 302, b"", headers={"Location": "/loop-a"})
        elif path.startswith("/chain/"):
            hop = int(path.rsplit("/", 1)[1])
            send(h, 302, b"", headers={"Location": f"/chain/{hop + 1}"})
        elif path == "/to-loopback":
            send(h, 302, b"", headers={"Location": f"http://127.0.0.1:{other_port}/page"})
        elif path == "/to-metadata":
            send(h, 302, b"", headers={"Location": "http://169.254.169.254/latest/meta-data/"})
        elif path == "/to-page":
            send(h, 301, b"", headers={"Location": "/page"})
        elif path == "/invalid-utf8":
            send(h, 200, page.replace(b"</h1>", b"</h1>\n<p>broken \xff\xfe\xc3( bytes</p>", 1))
        elif path == "/png":
            send(h, 200, b"\x89PNG\r\n\x1a\n" + bytes(200), content_type="image/png")
        elif path == "/untyped":
            send(h, 200, page, content_type=None)
        elif path == "/empty":
            send(h, 200, b"")
        elif path == "/missing":
            send(h, 404, b"<html><body><h1>Not found</h1></body></html>")
        else:
            send(h, 404, b"unknown test route")

    return handle


def fake_fetch_api(contents: Mapping[str, str] | None = None,
                   echo_key: bool = False) -> Callable[[BaseHTTPRequestHandler, LoopbackServer], None]:
    """A fake hosted fetch API (``POST /v1/fetch {"url"}``) whose answer depends on the target URL's
    last path segment: ``unauthorized`` (401 echoing the key), ``rate-limited`` (429), ``wrapped-error``
    (200 with ``success: false``), ``target-404``, ``malformed``, ``html-error``, ``empty``,
    ``invalid-utf8``, ``server-error`` (500), ``slow`` (answers after :data:`SLOW_ANSWER_S`), ``echo-key`` (the key in the
    content); anything else succeeds with ``contents[url]`` or a small page. A key starting with
    ``rejected-`` gets a 401 that echoes it; ``echo_key`` appends the key to every page (a careless
    service), to prove redaction."""
    pages = dict(contents or {})

    def handle(h: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        request = json.loads(h.rfile.read(length) or b"{}")
        key = (h.headers.get("Authorization") or "").removeprefix("Bearer ")
        server.requests.append({"path": h.path, "authorization": h.headers.get("Authorization"), "json": request})
        url = str(request.get("url", ""))
        scenario = url.rstrip("/").rsplit("/", 1)[-1]
        ok = {"success": True, "title": "Fake", "status_code": 200, "request_id": "req-1", "cost": 0.002}
        if scenario == "unauthorized" or key.startswith("rejected-"):
            send(h, 401, json.dumps({"error": f"invalid api key {key}"}).encode(), "application/json")
        elif scenario == "rate-limited":
            send(h, 429, b'{"error": "too many requests"}', "application/json", {"Retry-After": "30"})
        elif scenario == "wrapped-error":
            send(h, 200, json.dumps({"success": False, "error": "origin refused the request", "cost": 0.001}).encode(),
                 "application/json")
        elif scenario == "target-404":
            send(h, 200, json.dumps({**ok, "status_code": 404, "content": "# Not found"}).encode(), "application/json")
        elif scenario == "malformed":
            send(h, 200, b'{"success": true, "content": ', "application/json")
        elif scenario == "deep-json":  # valid JSON, nested past Python's recursion limit
            send(h, 200, b'{"success": true, "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "application/json")
        elif scenario == "huge-integer":  # valid JSON, an integer past Python's 4,300-digit conversion limit
            send(h, 200, b'{"success": true, "cost": ' + b"9" * 5000 + b', "content": "# Hi"}', "application/json")
        elif scenario == "html-error":
            send(h, 200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
        elif scenario == "empty":
            send(h, 200, b"", "application/json")
        elif scenario == "invalid-utf8":
            send(h, 200, b'{"success": true, "content": "bad \xff\xfe"}', "application/json")
        elif scenario == "server-error":
            send(h, 500, b'{"error": "internal"}', "application/json")
        elif scenario == "slow":
            if not server.stopping.wait(SLOW_ANSWER_S):
                send(h, 200, json.dumps({**ok, "content": "# Late\n\nToo late."}).encode(), "application/json")
        elif scenario == "echo-key":
            send(h, 200, json.dumps({**ok, "content": f"# Echo\n\nYour key is {key} and again {key}."}).encode(),
                 "application/json")
        else:
            content = pages.get(url, f"# Fetched\n\nThe page at {url}.")
            if echo_key:
                content += f"\n\nDebug: key {key}, {base64.b64encode(key.encode()).decode()}, {quote(key, safe='')}"
            send(h, 200, json.dumps({**ok, "content": content}).encode(), "application/json")

    return handle


def doh_resolver(records: Mapping[str, list[str]]) -> Callable[[BaseHTTPRequestHandler, LoopbackServer], None]:
    """An RFC 8484 DoH resolver answering A/AAAA from ``records`` ({name: [ip, ...]}); NXDOMAIN otherwise.
    ``server.requests`` gets one entry per query (name and type)."""
    table = {name.rstrip(".").lower(): ips for name, ips in records.items()}

    def handle(h: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        query = dns.message.from_wire(h.rfile.read(int(h.headers.get("Content-Length") or 0)))
        question = query.question[0]
        name = question.name.to_text().rstrip(".").lower()
        rdtype = dns.rdatatype.to_text(question.rdtype)
        server.requests.append({"name": name, "type": rdtype, "at": time.monotonic()})
        response = dns.message.make_response(query)
        if name not in table:
            response.set_rcode(dns.rcode.NXDOMAIN)
        else:
            ips = [ip for ip in table[name] if (":" in ip) == (rdtype == "AAAA")]
            if ips:
                response.answer.append(dns.rrset.from_text_list(question.name, 60, "IN", rdtype, ips))
        send(h, 200, response.to_wire(), "application/dns-message")

    return handle
