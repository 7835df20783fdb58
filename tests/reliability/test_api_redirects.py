"""A hosted API's redirect never leaves its origin undeclared, never reaches a guarded address and never
carries credentials across origins (issue 19, SPEC §5).

The API is a loopback fake of Bright Data's ``/request`` that answers every call with a redirect to
another loopback server on another port, an "internal" service that records all it receives. Bright
Data's request carries the key in its Authorization header and the zone in its JSON body.
"""

from __future__ import annotations

import json
from typing import ClassVar

import pytest

from lexbench.answer import ErrorType
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.hosted.brightdata import BrightDataUnlocker
from lexbench.providers.http import HttpBoundary
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome
from tests.providers.servers import LoopbackServer, send
from tests.reliability.leaks import leaks
from tests.scoring.factories import make_case


pytestmark = [pytest.mark.attack(item=3), pytest.mark.slow]


KEY, ZONE = "sk-redirect/Canary+5f1e==", "zone-redirect-canary"
INTERNAL_REPLY = b"# Internal admin page\n\nnot for any provider's answer"


@pytest.fixture
def internal():  # type: ignore[no-untyped-def]
    """The other origin: records the headers and body of everything it receives."""

    def handle(h, server):  # type: ignore[no-untyped-def]
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        server.requests.append({"method": h.command, "path": h.path, "headers": dict(h.headers.items()),
                                "body": body.decode("utf-8", "replace")})
        send(h, 200, INTERNAL_REPLY, "text/plain; charset=utf-8")

    with LoopbackServer(handle) as server:
        yield server


@pytest.fixture
def api(internal):  # type: ignore[no-untyped-def]
    """The API: answers ``POST /request`` with ``redirect_status`` (set by the test) to the internal server."""

    def handle(h, server):  # type: ignore[no-untyped-def]
        h.rfile.read(int(h.headers.get("Content-Length") or 0))
        send(h, server.redirect_status, b"", headers={"Location": internal.url("/internal/metadata")})

    with LoopbackServer(handle) as server:
        server.redirect_status = 307
        yield server


@pytest.fixture(autouse=True)
def credentials(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LEXBENCH_REDIRECT_KEY", KEY)
    monkeypatch.setenv("LEXBENCH_REDIRECT_ZONE", ZONE)


def unlocker(api, cls=BrightDataUnlocker, guard: NetworkGuard | None = None):  # type: ignore[no-untyped-def]
    options = {"base_url": api.url(""), "api_key": "${LEXBENCH_REDIRECT_KEY}", "zone": "${LEXBENCH_REDIRECT_ZONE}"}
    return cls("brightdata", options, http=HttpBoundary(guard=guard))


def fetch(provider):  # type: ignore[no-untyped-def]
    case = make_case()
    result = call_provider(provider, case, "https://site.example/page", RuntimePolicy(retries=0))
    return result, evaluate_response(case, result)


def declaring(origin: str) -> type[BrightDataUnlocker]:
    class Declared(BrightDataUnlocker):
        redirect_origins: ClassVar[frozenset[str]] = frozenset({origin})

    return Declared


def test_a_redirect_to_an_undeclared_origin_is_refused_and_its_reply_never_becomes_the_answer(api, internal):
    result, verdict = fetch(unlocker(api))
    assert result.error_type is ErrorType.BLOCKED_NETWORK and "does not declare" in result.error_message
    assert f"http://127.0.0.1:{internal.port}" in result.error_message
    assert "Internal admin" not in result.content and verdict.outcome is Outcome.FAIL
    assert internal.requests == [] and internal.hits == []


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_declared_origin_is_still_guarded(api, internal, status):
    """Declared, but loopback: the private-network guard refuses it before any connection."""
    api.redirect_status = status
    result, _ = fetch(unlocker(api, declaring(f"http://127.0.0.1:{internal.port}")))
    assert result.error_type is ErrorType.BLOCKED_NETWORK, result.error_message
    assert internal.hits == []


@pytest.mark.parametrize("status", [307, 308])
def test_a_declared_origin_never_receives_the_request_body(api, internal, status):
    """Declared and allowed by the guard (as a public address would be): a 307/308 would re-send
    Bright Data's body, which carries the zone, so the call fails instead."""
    api.redirect_status = status
    guard = NetworkGuard.allowing(internal.address)
    result, _ = fetch(unlocker(api, declaring(f"http://127.0.0.1:{internal.port}"), guard))
    assert result.error_type is ErrorType.BLOCKED_NETWORK and "request body" in result.error_message
    assert internal.hits == []


@pytest.mark.slow
@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_declared_origin_receives_no_credential(api, internal, status):
    """A redirect that turns the POST into a GET is followed to a declared, allowed origin, without the
    Authorization header, the body or any trace of the key or the zone."""
    api.redirect_status = status
    guard = NetworkGuard.allowing(internal.address)
    result, _ = fetch(unlocker(api, declaring(f"http://127.0.0.1:{internal.port}"), guard))
    assert result.success and "Internal admin" in result.content  # declared: the service says it may go there
    [received] = internal.requests
    assert received["method"] == "GET" and received["body"] == ""
    assert "authorization" not in {name.lower() for name in received["headers"]}
    assert leaks({"internal server": json.dumps(received).encode()}, {"key": KEY, "zone": ZONE}) == []


@pytest.mark.slow
def test_a_declared_origin_never_receives_a_credential_the_api_put_in_the_new_url(api, internal, monkeypatch):
    """An API that echoes the key into its Location would hand it to the other origin: refused."""
    monkeypatch.setattr(api, "handle", lambda h, server: (
        h.rfile.read(int(h.headers.get("Content-Length") or 0)),
        send(h, 303, b"", headers={"Location": internal.url(f"/internal?token={KEY.replace('+', '%2B')}")})))
    guard = NetworkGuard.allowing(internal.address)
    result, _ = fetch(unlocker(api, declaring(f"http://127.0.0.1:{internal.port}"), guard))
    assert result.error_type is ErrorType.BLOCKED_NETWORK and "credential in the new URL" in result.error_message
    assert internal.hits == []
