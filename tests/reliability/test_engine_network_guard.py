"""Issue 27, item 8 (second half): with ``--live`` a page makes the engine itself request loopback,
private and metadata addresses. Every engine and worker now reaches the network only through the call's
guarding proxy, which applies the HTTP boundary's guard: each address family the guard blocks is
refused there, before any connection, and recorded in the row (``metadata.blocked_requests``).

The attack page (``/attack``, on the one address the guard exempts: it plays the public page) asks for
each target with ``<script src>`` and XHR, plus a WebSocket and a redirect. "Blocked loopback" targets
are stand-in servers on another loopback port and on 127.0.0.2 that count what reaches them; private,
link-local and IPv6 targets are never connected to: the test records every address the proxy connects
to and requires it to be the page's own. On the old code the engines ran outside the guard: the
stand-ins were reached (Chromium and jsdom fetched every loopback form) and nothing was refused.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers import guard_proxy
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.headless import HeadlessMarkdown
from lexbench.providers.http import HttpBoundary
from lexbench.providers.thirdparty import LangChain, ReadabilityJs
from tests.providers.test_engines_real import installed
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # starts browsers and loopback servers

POLICY = RuntimePolicy(timeout_s=90.0, retries=0)


class StandIn:
    """A loopback server that answers 200 to anything and records the paths that reached it;
    ``/go?to=URL`` redirects to URL, ``/attack`` is the attack page (``page``)."""

    def __init__(self, host: str, page: str = "") -> None:
        self.hits: list[str] = []
        self.page = page
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                stand_in.hits.append(self.path)
                if self.path.startswith("/go?"):
                    self.send_response(302)
                    self.send_header("Location", parse_qs(urlsplit(self.path).query)["to"][0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = (stand_in.page if self.path == "/attack" else "<p>reached</p>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://{host}:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def servers():
    page, port, address, ws = StandIn("127.0.0.1"), StandIn("127.0.0.1"), StandIn("127.0.0.2"), StandIn("127.0.0.2")
    yield page, port, address, ws
    for server in (page, port, address, ws):
        server.close()


def families(port: int, address: int, page: int) -> dict[str, str]:
    """Every address family the HTTP guard blocks → a URL of it (the path names the family)."""
    return {
        "loopback, another port": f"http://127.0.0.1:{port}/loopback-port",
        "loopback, another address": f"http://127.0.0.2:{address}/loopback-address",
        "a name resolving to loopback": f"http://localhost:{port}/name-to-loopback",
        "decimal IPv4": f"http://2130706434:{address}/decimal",
        "octal IPv4": f"http://0177.0.0.2:{address}/octal",
        "hexadecimal IPv4": f"http://0x7f.0.0.2:{address}/hexadecimal",
        "IPv6 loopback": f"http://[::1]:{port}/ipv6-loopback",
        "IPv4-mapped IPv6": f"http://[::ffff:127.0.0.2]:{address}/ipv4-mapped",
        "link-local (metadata)": "http://169.254.169.254/latest/meta-data",
        "private 10/8": "http://10.0.0.1/private-10",
        "private 172.16/12": "http://172.16.0.1/private-172",
        "private 192.168/16": "http://192.168.1.1/private-192",
        "shared 100.64/10": "http://100.64.0.1/shared",
        "IPv6 unique local": "http://[fd00::1]/ipv6-ula",
        "IPv6 site-local": "http://[fec0::1]/ipv6-site-local",
        "a redirect to metadata": f"http://127.0.0.1:{page}/go?to=http://169.254.169.254/redirected",
        "HTTPS to metadata (CONNECT)": "https://169.254.169.254/tls",
    }


def attack_page(targets: dict[str, str], ws: int) -> str:
    urls = json.dumps(list(targets.values()))
    return f"""<!doctype html><html><head><title>Attack</title></head><body><p>Attack page text.</p>
<script>
{urls}.forEach(function (url) {{
  try {{ var x = new XMLHttpRequest(); x.open("GET", url); x.send(); }} catch (e) {{}}
  var s = document.createElement("script"); s.src = url; document.body.appendChild(s);
}});
try {{ new WebSocket("ws://127.0.0.2:{ws}/websocket"); }} catch (e) {{}}
</script></body></html>"""


def refused(blocked: list[str], url: str) -> bool:
    """Whether ``blocked`` (a row's refusals) holds ``url``'s request, as the proxy or a hook saw it."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return any(line.startswith(f"https://{parts.hostname}:443/") for line in blocked)
    marker = parse_qs(parts.query)["to"][0].rsplit("/", 1)[1] if parts.path == "/go" else parts.path
    return any(marker in line.split(": ", 1)[0] and ": refused" in line for line in blocked)


@pytest.fixture
def proxies(monkeypatch):
    """Every guarding proxy the calls start, to read the addresses it connected to."""
    started: list[guard_proxy.GuardProxy] = []

    class Recorded(guard_proxy.GuardProxy):
        def start(self):  # type: ignore[no-untyped-def]
            started.append(self)
            return super().start()

    monkeypatch.setattr(guard_proxy, "GuardProxy", Recorded)
    return started


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES)))


def engine(name: str, page_port: int):  # type: ignore[no-untyped-def]
    """The provider for ``name``, its guard exempting only the page's own address (as live mode exempts
    nothing, and the page here plays a public site)."""
    http = HttpBoundary(guard=NetworkGuard.allowing(("127.0.0.1", page_port)))
    if name == "readability-js":
        return ReadabilityJs("r", {"binary": "node", "expected_version": installed("jsdom"),
                                   "completion": {"delay_ms": 1500}}, http=http)
    if name == "langchain":
        pytest.importorskip("langchain_community", reason="the langchain extra is not installed (make langchain)")
        return LangChain("langchain", http=http)
    completion = {} if name == "chromium-dump-dom" else {"delay_ms": 1500}
    options = {"engine": name, "binary": "node" if name == "jsdom" else "/usr/bin/chromium",
               "expected_version": installed(name), "completion": completion}
    return HeadlessMarkdown("m", options, http=http)


BROWSERS = ["chromium-cdp", "chromium-dump-dom", "jsdom", "readability-js"]


@pytest.mark.attack(item=8, issue=27)
@pytest.mark.parametrize("name", BROWSERS)
def test_a_live_page_cannot_make_the_engine_reach_private_addresses(name, servers, suite, proxies):
    page, port, address, ws = servers
    targets = families(port.port, address.port, page.port)
    page.page = attack_page(targets, ws.port)
    for server in servers:
        server.hits.clear()
    url = page.base + "/attack"
    provider = engine(name, page.port)
    try:
        result = call_provider(provider, suite.cases[0].model_copy(update={"url": url}), url, POLICY)  # live
    finally:
        provider.close()
    assert result.success and "Attack page text." in result.content, result.error_message
    assert (port.hits, address.hits, ws.hits) == ([], [], []), "a blocked loopback stand-in was reached"
    connected = {pair for proxy in proxies for pair in proxy.connections}
    assert connected <= {("127.0.0.1", page.port)}, f"the proxy connected to {connected}"
    blocked = result.metadata.blocked_requests
    missing = [family for family, target in targets.items() if not refused(blocked, target)]
    assert missing == [], f"{name}: not refused by the guard: {missing}; refused: {blocked}"
    assert any(f"127.0.0.2:{ws.port}" in line for line in blocked), f"the WebSocket was not refused: {blocked}"


@pytest.mark.attack(item=8, issue=27)
@pytest.mark.parametrize("name", [*BROWSERS, "langchain"])
@pytest.mark.parametrize("target", ["http://169.254.169.254/latest/meta-data", "http://10.0.0.1/", "http://[fd00::1]/",
                                    "https://169.254.169.254/"])
def test_a_redirect_of_the_page_itself_to_a_private_address_is_blocked_network(name, target, servers, suite, proxies):
    page = servers[0]
    url = f"{page.base}/go?to={target}"
    provider = engine(name, page.port)
    try:
        result = call_provider(provider, suite.cases[0].model_copy(update={"url": url}), url, POLICY)
    finally:
        provider.close()
    assert result.error_type is ErrorType.BLOCKED_NETWORK, (name, result.error_type, result.error_message)
    assert "refused" in result.error_message and result.content == ""
    assert {pair for proxy in proxies for pair in proxy.connections} <= {("127.0.0.1", page.port)}
