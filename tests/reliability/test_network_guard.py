"""The private-network guard refuses every spelling of a non-public target before connecting (issue 11,
SPEC §5): credentials in the URL, IPv6 loopback and IPv4-mapped addresses, decimal, hexadecimal, octal
and shortened IPv4, host names that resolve to private addresses, and redirect chains that end in one.
Only the exempt server's exact address and port (the replay server's, in a run) is ever connected to.

No test sends a packet anywhere but the loopback test server: the network backend is replaced by one
that records every connection attempt and refuses all but the exempt server's, and host names are
resolved by a fake resolver. A guard that failed would show up as a recorded attempt, not as traffic.
"""

from __future__ import annotations

import socket

import httpcore
import pytest

from lexbench.answer import ErrorType
from lexbench.providers import RuntimePolicy, build_provider, call_provider
from lexbench.providers.call import Deadline, FetchError
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.http import HttpBoundary
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome
from tests.providers.servers import LoopbackServer, send
from tests.scoring.factories import make_case

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

PRIVATE_NAMES = {"localhost": ["127.0.0.1", "::1"], "intranet.example": ["10.1.2.3"], "router.example": ["192.168.0.1"], "v6.example": ["fd00::1"],
                 "metadata.example": ["169.254.169.254"], "mixed.example": ["93.184.215.14", "10.0.0.7"],
                 "mapped.example": ["::ffff:127.0.0.1"], "site-local.example": ["fec0::53"], "public.example": ["93.184.215.14"]}


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    """The exempt loopback server: a page, and redirect chains whose last hop is not public."""
    port_box: list[int] = []

    def handle(handler, srv):  # type: ignore[no-untyped-def]
        path = handler.path
        if path.startswith("/chain/"):
            _, _, hop, end = path.split("/", 3)
            if int(hop) < 3:
                send(handler, 302, b"", headers={"Location": f"/chain/{int(hop) + 1}/{end}"})
                return
            targets = {"private": "http://10.20.30.40/admin", "named": "http://intranet.example/",
                       "mapped": f"http://[::ffff:127.0.0.1]:{port_box[0]}/page",
                       "credentials": f"http://admin:admin@127.0.0.1:{port_box[0]}/page",
                       "octal": "http://0177.0.0.1/", "v6": "http://[::1]/", "rebinding": "http://mixed.example/"}
            send(handler, 302, b"", headers={"Location": targets[end]})
            return
        send(handler, 200, b"<h1>page</h1><p>reachable</p>")

    with LoopbackServer(handle) as srv:
        port_box.append(srv.port)
        yield srv


@pytest.fixture
def connections(server, monkeypatch):  # type: ignore[no-untyped-def]
    """Record every connection attempt; connect only to the exempt server; resolve names offline."""
    attempts: list[tuple[str, int]] = []
    original = httpcore.AnyIOBackend.connect_tcp

    async def recording(self, host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        attempts.append((host, port))
        if (host, port) != server.address:
            raise httpcore.ConnectError(f"test backend: no connection to {host}:{port} outside the exempt server")
        return await original(self, host, port, *args, **kwargs)

    async def resolve(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host not in PRIVATE_NAMES:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in PRIVATE_NAMES[host]]

    monkeypatch.setattr(httpcore.AnyIOBackend, "connect_tcp", recording)
    monkeypatch.setattr("lexbench.providers.resolve.anyio.getaddrinfo", resolve)
    return attempts


REFUSED_URLS = [
    # credentials in the authority
    "http://user:password@93.184.215.14/", "http://user@93.184.215.14/", "https://:secret@93.184.215.14/",
    # IPv6 loopback, unspecified and IPv4-mapped / embedded forms
    "http://[::1]/", "http://[0:0:0:0:0:0:0:1]/", "http://[::]/", "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:10.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::1]/", "http://[fe80::1%25eth0]/",
    # decimal, hexadecimal, octal and shortened IPv4
    "http://2130706433/", "http://0x7f000001/", "http://0x7f.0.0.1/", "http://017700000001/", "http://0177.0.0.1/",
    "http://127.1/", "http://0/", "http://3232235521/", "http://0xa9fea9fe/", "http://１２７.０.０.１/",
    # private, link-local and shared ranges
    "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    # IPv6 site-local (fec0::/10, deprecated but routed inside sites; Python's ipaddress calls it global)
    "http://[fec0::1]/", "http://[feff:ffff::1]/", "http://site-local.example/",
    # names that resolve to non-public addresses (including one of two answers: DNS rebinding)
    "http://localhost/", "http://intranet.example/", "http://router.example:8080/", "http://v6.example/",
    "http://metadata.example/", "http://mixed.example/", "http://mapped.example/",
    # not a URL the client can read, or no host at all
    "http://[::1/", "http://:80/", "http:///path", "http://127.0.0.1:99999/", "file:///etc/passwd",
    "gopher://93.184.215.14/",
]


SITE_LOCAL = ("http://[fec0::1]/", "http://[feff:ffff::1]/", "http://site-local.example/")
"""Issue 19, item 12: the guard treated fec0::/10 as public; counted with the attacks."""


@pytest.mark.parametrize("url", [pytest.param(url, marks=pytest.mark.attack(item=12)) if url in SITE_LOCAL else url
                                 for url in REFUSED_URLS])
def test_non_public_targets_are_refused_before_any_connection(server, connections, url: str) -> None:
    boundary = HttpBoundary(guard=NetworkGuard.allowing(server.address))
    with pytest.raises(FetchError) as caught:
        boundary.fetch_target(url, Deadline.after(5))
    assert caught.value.error_type is ErrorType.BLOCKED_NETWORK, str(caught.value)
    assert connections == []


def test_the_exempt_server_and_a_public_name_pass_the_guard(server, connections) -> None:
    """The guard is not simply closed: the exempt server answers, and a public name reaches the
    (refusing) test backend, not the guard."""
    boundary = HttpBoundary(guard=NetworkGuard.allowing(server.address))
    assert boundary.fetch_target(server.url("/page"), Deadline.after(5)).status == 200
    with pytest.raises(FetchError) as caught:
        boundary.fetch_target("http://public.example/", Deadline.after(5))
    assert caught.value.error_type is ErrorType.CONNECT
    assert connections == [server.address, ("93.184.215.14", 80)]


@pytest.mark.parametrize("end", ["private", "named", "mapped", "credentials", "octal", "v6", "rebinding"])
def test_a_redirect_chain_ending_off_the_public_network_is_refused(server, connections, end: str) -> None:
    """Three hops on the exempt server, then a last hop to a private address, a name resolving to one,
    the exempt server's own port through an IPv4-mapped address, credentials, octal or IPv6 loopback:
    the call fails ``blocked_network`` (a fail, never a pass), and only the exempt server was reached."""
    provider = build_provider("http-markdownify", guard=NetworkGuard.allowing(server.address))
    try:
        result = call_provider(provider, make_case(), server.url(f"/chain/1/{end}"), RuntimePolicy(timeout_s=5, retries=0))
    finally:
        provider.close()
    assert result.error_type is ErrorType.BLOCKED_NETWORK, result.error_message
    assert result.metadata.redirects[:2] == [server.url(f"/chain/2/{end}"), server.url(f"/chain/3/{end}")]
    assert set(connections) == {server.address}
    verdict = evaluate_response(make_case(), result)
    assert (verdict.outcome, verdict.failure_class) == (Outcome.FAIL, "blocked_network")
