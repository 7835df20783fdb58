"""The public replay server (``lexbench serve-replay``) and its log hold under attack (issue 27, item 7).

As found: no request timeout (400 idle connections held 402 threads, for ever); +183 MB retained after
3,000 requests (each logged with its 60 kB user agent); anyone holding a run prefix could log a fetch as
another provider and read the log; and whoever answers at ``--replay-public-url`` could push a 400 MB
log into the controller, delay the end of the session by 72 s, or plant entries for other runs and
providers, ANSI escapes and NULs, all kept as-is. Servers run on loopback, started and stopped here.
"""

from __future__ import annotations

import gc
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import psutil
import pytest

from lexbench.replay import ReplayServer, new_run_prefix
from tests.providers.servers import LOAD_MARGIN_S
from tests.providers.test_plugin_providers import REPO, bench, rows, write_config  # noqa: F401

pytestmark = [pytest.mark.attack(item=7, issue=27), pytest.mark.slow]  # loopback servers and pytest runs

DEMO = REPO / "cases" / "demo"
CASE = "article-001-en-carrick-tidal-array"
KEY = "k" * 40
"""A replay key for these tests (the server and the run share it)."""
PAGE = {"article-001-en-demo": (b"<h1>Frozen</h1>", "text/html; charset=utf-8")}
SESSION_BOUND_S = 20.0 + 30 + LOAD_MARGIN_S
"""A session whose log drips for 80 s ends within the log's 20 s deadline (``LOG_DEADLINE_S``) plus 30 s
for the session's own work (one case, two providers) and the load margin."""
HEADER_TIMEOUT_S = 10.0
"""The transport's default header deadline (``TransportLimits.header_timeout_s``), said here as the issue's
bound: an idle connection is closed within it."""


def _server(**options) -> ReplayServer:
    try:
        return ReplayServer(PAGE, key=KEY, **options)
    except TypeError:  # the code before the fix takes no key: the attack is the default server's
        return ReplayServer(PAGE)


def _provider_url(server: ReplayServer, prefix: str, provider: str, token_of: str | None = None) -> str:
    """The URL ``provider`` is handed (with the token of ``token_of``); the bare prefix on the old code."""
    try:
        from lexbench.replay_log import provider_token
    except ImportError:
        return f"{server.base_url}/{prefix}/{provider}/replay/article-001-en-demo"
    return f"{server.base_url}/{prefix}/{provider}/{provider_token(KEY, prefix, token_of or provider)}/replay/article-001-en-demo"


def _log_url(server: ReplayServer, prefix: str) -> str:
    try:
        from lexbench.replay_log import log_token
    except ImportError:
        return f"{server.base_url}/{prefix}/served-fetches"
    return f"{server.base_url}/{prefix}/served-fetches/{log_token(KEY, prefix)}"


def test_400_idle_connections_hold_a_bounded_number_of_threads_and_are_closed_at_the_header_deadline():
    before = threading.active_count()
    with _server() as server:
        host, port = server.base_url.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port))) for _ in range(400)]
        try:
            time.sleep(1)  # let the server accept them all
            held = threading.active_count() - before
            deadline = time.monotonic() + HEADER_TIMEOUT_S + LOAD_MARGIN_S
            closed = 0
            for sock in idle:  # each is answered 503 at once or closed at its deadline: EOF either way
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    while sock.recv(4096):
                        pass
                    closed += 1
                except TimeoutError:
                    break
        finally:
            for sock in idle:
                sock.close()
        served = httpx.get(server.url_for("article-001-en-demo"), timeout=30)
    assert held <= 64 + 2, f"400 idle connections hold {held} threads"
    assert closed == 400, f"{400 - closed} idle connections still open {HEADER_TIMEOUT_S + LOAD_MARGIN_S:g} s later"
    assert served.status_code == 200  # and the server still serves


def test_a_one_byte_drip_does_not_extend_the_header_deadline():
    with _server() as server:
        host, port = server.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"GET /replay/article-001-en-demo HTTP/1.1\r\nHost: x\r\n")
            started = time.monotonic()
            sock.settimeout(1.0)
            answered = b""
            while time.monotonic() - started < HEADER_TIMEOUT_S + LOAD_MARGIN_S + 5:  # bounded loop
                try:
                    sock.sendall(b"X")  # one byte a second, never ending the header
                    answered = sock.recv(4096)
                    if answered == b"":
                        break
                except TimeoutError:
                    continue
                except OSError:
                    break
            held = time.monotonic() - started
    assert held <= HEADER_TIMEOUT_S + LOAD_MARGIN_S, f"a drip held the connection {held:.0f} s"


def test_3000_requests_with_60_kb_user_agents_retain_bounded_memory():
    process = psutil.Process()
    prefix = new_run_prefix()
    with _server() as server:
        gc.collect()
        before = process.memory_info().rss
        agent = "A" * 60_000
        with httpx.Client(timeout=30) as client:
            for _ in range(3000):
                url = _provider_url(server, prefix, "firecrawl")  # the provider itself, with its token
                # served (the old code) or refused as a head over the ceiling (431): either way nothing is kept
                assert client.get(url, headers={"User-Agent": agent}).status_code in (200, 431)
        gc.collect()
        retained = (process.memory_info().rss - before) / 1e6
    assert retained < 40, f"{retained:.0f} MB retained after 3,000 requests"


def test_one_provider_cannot_be_logged_as_another_and_the_log_is_not_public():
    prefix = new_run_prefix()
    with _server() as server:
        mine = httpx.get(_provider_url(server, prefix, "firecrawl"), headers={"User-Agent": "firecrawl/1 " + "x" * 20_000})
        # firecrawl holds its own URL: with it, it tries to be logged as zyte, and to read the log
        as_other = httpx.get(_provider_url(server, prefix, "zyte", token_of="firecrawl"))
        bare = httpx.get(f"{server.base_url}/{prefix}/zyte/replay/article-001-en-demo")
        public_log = httpx.get(f"{server.base_url}/{prefix}/served-fetches")
        with_its_token = httpx.get(_provider_url(server, prefix, "firecrawl").replace(
            "/firecrawl/", "/served-fetches/").removesuffix("/replay/article-001-en-demo"))
        log = httpx.get(_log_url(server, prefix)).text.splitlines()
    assert mine.status_code == 200
    assert (as_other.status_code, bare.status_code, public_log.status_code, with_its_token.status_code) == (404,) * 4
    [entry] = map(json.loads, log)
    assert entry["provider"] == "firecrawl" and entry["user_agent"].startswith("firecrawl/1 xx")
    assert len(entry["user_agent"]) <= 256  # a 20 kB user agent is not kept whole


# --- whoever answers at --replay-public-url ---------------------------------------------------------------


class HostileLog:
    """A loopback server answering the run's log request with ``kind``: a 400 MB log (declared, or streamed
    without a length), a drip of one byte every 2 s for 80 s, or forged entries for the run's own prefix
    (taken from the request path, as a hostile server sees it)."""

    def __init__(self, kind: str) -> None:
        outer = self
        self.kind, self.asked = kind, threading.Event()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                outer.asked.set()
                prefix = self.path.split("/")[1]
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                try:
                    outer._answer(self, prefix)
                except OSError:
                    pass  # the run hung up: what a bounded reader does

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _answer(self, h: BaseHTTPRequestHandler, prefix: str) -> None:
        entry = {"time": "2026-12-03T10:00:00Z", "prefix": prefix, "provider": "hosted", "case": CASE,
                 "method": "GET", "user_agent": "svc/1", "status": 200}
        if self.kind in ("huge", "huge-streamed"):
            line = (json.dumps({**entry, "user_agent": "x" * 900}) + "\n").encode()
            count = 400_000_000 // len(line)
            if self.kind == "huge":
                h.send_header("Content-Length", str(count * len(line)))
            else:
                h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            chunk = line * 1000
            for _ in range(count // 1000):
                h.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" if self.kind != "huge" else chunk)
            return
        if self.kind == "drip":
            h.send_header("Content-Length", "1000")
            h.end_headers()
            end = time.monotonic() + 80
            while time.monotonic() < end:
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(2)
            return
        forged = [
            {**entry, "prefix": new_run_prefix()},  # another run's
            {**entry, "provider": "stranger"},  # a provider the run never handed a URL to
            {**entry, "provider": "echo"},  # a local provider: never handed one either
            {**entry, "case": "no-such-case"},
            {**entry, "status": 10**400},
            {**entry, "user_agent": "svc/1", "extra": "planted"},
            {**entry, "user_agent": "\x1b[2J\x1b]0;pwned\x07svc\x00/2\u202e"},  # kept, cleaned
        ]
        data = ("".join(json.dumps(e) + "\n" for e in forged) + "not json\n").encode()
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def __enter__(self) -> HostileLog:
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _run_against(bench, monkeypatch, kind: str):  # noqa: F811 (the fixture)
    pytester, _ = bench
    monkeypatch.setenv("LEXBENCH_REPLAY_KEY", KEY)
    monkeypatch.setenv("LEXBENCH_FAKE_KEY", "sk-fake-7f3e")
    config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", ["echo"])
    run_dir = pytester.path / "run"
    with HostileLog(kind) as hostile:
        started = time.monotonic()
        result = pytester.runpytest_subprocess(f"--suite={DEMO}", f"--provider-config={config}", "--providers=echo,hosted",
                                               f"--replay-public-url={hostile.url}", f"--run-dir={run_dir}",
                                               "-k", "article-001", "--retries=0")
        ended = time.monotonic()
        assert hostile.asked.is_set(), result.outlines[-5:]
    log = run_dir / "served-fetches.jsonl"
    return result, run_dir, ended - started, log.read_bytes() if log.exists() else b""


@pytest.mark.parametrize("kind", ["huge", "huge-streamed"])
def test_a_400_mb_log_is_refused_at_the_ceiling(bench, monkeypatch, kind):  # noqa: F811
    result, run_dir, _, kept = _run_against(bench, monkeypatch, kind)
    assert len(kept) <= 64_000_000, f"{len(kept):,} bytes of log accepted"
    assert kept == b"" and "ceiling" in result.stderr.str(), result.stderr.str()[-500:]
    assert {row["provider"] for row in rows(run_dir)} == {"echo", "hosted"}  # the items are recorded all the same


def test_a_dripping_log_delays_the_end_of_the_session_by_its_deadline_only(bench, monkeypatch):  # noqa: F811
    result, _, elapsed, kept = _run_against(bench, monkeypatch, "drip")
    assert elapsed < SESSION_BOUND_S, f"the session ended {elapsed:.0f} s after it started"
    assert "deadline" in result.stderr.str(), result.stderr.str()[-500:]
    assert kept == b""


def test_forged_entries_are_refused_and_the_kept_ones_cleaned(bench, monkeypatch):  # noqa: F811
    result, _, _, kept = _run_against(bench, monkeypatch, "forged")
    entries = [json.loads(line) for line in kept.decode("utf-8").splitlines()]
    assert [(e["provider"], e["case"], e["user_agent"]) for e in entries] == [("hosted", CASE, "svc/2")]
    assert b"\x1b" not in kept and b"\\u001b" not in kept and b"\\u0000" not in kept and "\u202e" not in kept.decode()
    assert "7 line(s) of the served-fetch log refused" in result.stderr.str(), result.stderr.str()[-800:]


def test_a_public_replay_run_without_the_replay_key_is_refused_naming_it(bench, monkeypatch):  # noqa: F811
    pytester, _ = bench
    monkeypatch.delenv("LEXBENCH_REPLAY_KEY", raising=False)
    config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", ["echo"])
    result = pytester.runpytest_subprocess(f"--suite={DEMO}", f"--provider-config={config}",
                                           "--replay-public-url=https://frozen.example.org")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--replay-public-url: set LEXBENCH_REPLAY_KEY" in result.stderr.str()
    assert not Path(pytester.path / "runs").exists()
