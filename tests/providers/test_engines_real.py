"""The headless engines and workers, really run against loopback pages (SPEC §5).

Each engine is skipped with the reason when it is not installed here (``apt-get install chromium``,
``make workers``, the ``engines``/``crawl4ai`` extras); CI installs Chromium, the Node worker's packages
and Playwright, so there they run.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lexbench.errors import ConfigError

from lexbench.answer import ErrorType
from lexbench.dataset.case import Delivery
from lexbench.dataset.suite import load_suite
from lexbench.providers.engine_process import PROFILE_PREFIX, engine_processes, run_process
from lexbench.providers.engines import ENGINES, parse_version
from lexbench.providers.headless import NODE_WORKER, HeadlessHtml, HeadlessMarkdown, check_playwright, which
from lexbench.providers.policy import RuntimePolicy, call_provider
from lexbench.providers.thirdparty import Crawl4ai, ReadabilityJs
from lexbench.providers import base as provider_base
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.http import HttpBoundary
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

# Written 2 s after load: late enough that even a loaded machine takes its load-time snapshot first.
LATE_PAGE = b"""<!doctype html><html><head><title>Late page</title></head><body><main><article>
<h1>Late page</h1><p>Written by the server.</p></article></main>
<script>setTimeout(function () {
  var article = document.querySelector('article');
  for (var i = 1; i <= 3; i++) { var p = document.createElement('p'); p.className = 'late';
    p.textContent = 'Paragraph ' + i + ' written by a script after the load event.'; article.appendChild(p); }
}, 2000);</script></body></html>"""
FRAME_PAGE = b"""<!doctype html><html><head><title>Framed</title></head><body><p>Outer text.</p>
<iframe name="content" src="/late"></iframe></body></html>"""
OUTSIDE_PAGE = b"""<!doctype html><html><head><title>Outside</title><script src="OUTSIDE/script.js"></script></head>
<body><p>Replayed text.</p></body></html>"""
SCRIPT = b"document.addEventListener('DOMContentLoaded', function () { document.body.append('Fetched from outside.'); });"


class Pages:
    """Loopback pages on ``host``: /late, /frame, /redirect (302 → /late), /missing (404), /hang (never
    answers), /outside (a script from ``outside``), /script.js; ``hits`` lists the paths asked for."""

    def __init__(self, host: str = "127.0.0.1", outside: str = "") -> None:
        self.stop = threading.Event()
        self.hits: list[str] = []
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                pages.hits.append(self.path)
                if self.path == "/hang":
                    pages.stop.wait(300)  # bounded: the test's deadline is far shorter
                    return
                if self.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", "/late")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                outside_page = OUTSIDE_PAGE.replace(b"OUTSIDE", outside.encode())
                body = {"/late": LATE_PAGE, "/frame": FRAME_PAGE, "/outside": outside_page, "/script.js": SCRIPT}.get(self.path)
                self.send_response(200 if body else 404)
                body = body or b"<html><head><title>Not found</title></head><body>no such page</body></html>"
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://{host}:{self.server.server_address[1]}"

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def installed(engine_name: str) -> str:
    """The installed version of an engine, or skip the test with the reason."""
    engine = ENGINES[engine_name]
    binary = which(engine.default_binary)
    if binary is None:
        pytest.skip(f"{engine.default_binary} not installed: {engine.install_hint}")
    if engine.driver == "cdp":
        try:
            check_playwright()
        except Exception as exc:
            pytest.skip(str(exc))
    if engine.driver == "node" and not (NODE_WORKER.parent / "node_modules").is_dir():
        pytest.skip(f"the Node worker's packages are not installed: {engine.install_hint}")
    argv = [part.format(binary=binary, worker=str(NODE_WORKER)) for part in engine.version_argv]
    run = run_process(argv, 30.0)
    version = parse_version(engine, run.stdout.decode() + run.stderr)
    assert version, run.stderr
    return version


def options(engine_name: str, **extra: object) -> dict:
    return {"engine": engine_name, "binary": ENGINES[engine_name].default_binary,
            "expected_version": installed(engine_name), **extra}


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES)))


@pytest.fixture(scope="module")
def outside():
    """A second server on another loopback address: in replay mode no engine may reach it."""
    server = Pages(host="127.0.0.2")
    yield server
    server.close()


@pytest.fixture(scope="module")
def pages(outside):
    server = Pages(outside=outside.base)
    yield server
    server.close()


POLICY = RuntimePolicy(timeout_s=60.0, retries=0)  # generous: CI machines may be loaded
ENGINE_NAMES = sorted(ENGINES)


@pytest.fixture(autouse=True)
def pages_are_the_replay_server(monkeypatch, pages):
    """``pages`` plays the replay server: as the plugin does for it, the providers' guard (which every
    engine request passes, through the guarding proxy) exempts exactly its address."""
    port = int(pages.base.rsplit(":", 1)[1])
    monkeypatch.setattr(provider_base, "HttpBoundary",
                        lambda: HttpBoundary(guard=NetworkGuard.allowing(("127.0.0.1", port))))


@pytest.fixture(autouse=True)
def no_engine_left_behind(tmp_path, monkeypatch, pages):
    """Profiles of this test's engines go under its tmp_path, so the check sees only its own processes
    (other xdist workers run engines at the same time)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield
    assert engine_processes(str(tmp_path)) == [] and engine_processes(pages.base) == []


@pytest.mark.parametrize("engine_name", ENGINE_NAMES)
def test_markdown_route_converts_the_rendered_dom(engine_name, suite, pages):
    provider = HeadlessMarkdown("m", options(engine_name))
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.success, result.error_message
    assert result.content_format == "markdown" and "# Late page" in result.content
    assert "Written by the server." in result.content and "setTimeout" not in result.content
    assert result.metadata.engine == f"{engine_name} {provider.version}"
    assert result.title == "Late page"
    # The engine's process group was sampled while it ran: a browser or a Node runtime is tens of MB at least.
    assert result.metadata.peak_memory_bytes > 10 * 2**20 and result.metadata.memory_sampled_every_s == 0.1
    if "upstream_status" in ENGINES[engine_name].records:
        assert result.metadata.upstream_status == 200 and result.final_url == pages.base + "/late"
    else:  # --dump-dom exits 0 whatever the page answered: the status stays unknown, never guessed
        assert result.metadata.upstream_status is None


@pytest.mark.parametrize("engine_name", ENGINE_NAMES)
def test_html_route_returns_the_rendered_html(engine_name, suite, pages):
    provider = HeadlessHtml("h", options(engine_name))
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.success, result.error_message
    assert result.content_format == "html" and "<h1>Late page</h1>" in result.content
    assert provider.output_contract == "rendered_html"


@pytest.mark.parametrize("engine_name", ["chromium-cdp", "jsdom"])
def test_status_redirects_and_final_url_are_reported(engine_name, suite, pages):
    provider = HeadlessMarkdown("m", options(engine_name))
    moved = call_provider(provider, suite.cases[0], pages.base + "/redirect", POLICY)
    assert moved.success and moved.final_url == pages.base + "/late"
    assert moved.metadata.redirects == [pages.base + "/late"]
    missing = call_provider(provider, suite.cases[0], pages.base + "/missing", POLICY)
    assert not missing.success and missing.error_type is ErrorType.UPSTREAM_STATUS
    assert missing.metadata.upstream_status == 404 and "no such page" in missing.content


@pytest.mark.parametrize("engine_name", ["chromium-cdp", "jsdom"])
def test_selector_completion_waits_for_script_written_text(engine_name, suite, pages):
    at_load = call_provider(HeadlessMarkdown("m", options(engine_name)), suite.cases[0], pages.base + "/late", POLICY)
    assert "written by a script" not in at_load.content
    waited = HeadlessMarkdown("m", options(engine_name, completion={"selector": "p.late", "min_count": 3,
                                                                    "timeout_ms": 30000}))
    result = call_provider(waited, suite.cases[0], pages.base + "/late", POLICY)
    assert result.success, result.error_message
    assert "Paragraph 3 written by a script after the load event." in result.content


def test_virtual_time_budget_lets_one_shot_chromium_see_timers(suite, pages):
    provider = HeadlessMarkdown("m", options("chromium-dump-dom", completion={"wait": "virtual_time",
                                                                             "virtual_time_budget_ms": 3000}))
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.success and "Paragraph 3 written by a script" in result.content


@pytest.mark.parametrize("engine_name", ["chromium-cdp", "jsdom"])
def test_an_unmet_selector_fails_as_timeout_and_keeps_the_content(engine_name, suite, pages):
    provider = HeadlessHtml("h", options(engine_name, completion={"selector": "p.late", "min_count": 5,
                                                                  "timeout_ms": 6000}))
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert not result.success and result.error_type is ErrorType.TIMEOUT
    assert re.search(r"3 of 5 'p.late'", result.error_message)
    assert "Written by the server." in result.content


def test_frame_and_text_scope_2_extract_only_the_matched_elements(suite, pages):
    provider = HeadlessMarkdown("m", options("chromium-cdp", text_scope=2, completion={
        "selector": "p.late", "min_count": 3, "frame": "content", "timeout_ms": 30000}))
    result = call_provider(provider, suite.cases[0], pages.base + "/frame", POLICY)
    assert result.success, result.error_message
    assert "Paragraph 1 written by a script" in result.content
    assert "Outer text." not in result.content and "Written by the server." not in result.content


# The page never answers, so the deadline always expires; it is long enough for a browser to start on a
# loaded machine, and the grace for the adapter to report its own kill is as wide: a machine at load 10
# must not turn "killed" into "abandoned" (the watchdog's verdict when the adapter is late).
HANG_POLICY = RuntimePolicy(timeout_s=20.0, retries=0, grace_s=60.0)


@pytest.mark.parametrize("engine_name", ENGINE_NAMES)
def test_the_deadline_kills_the_engine_and_nothing_is_left_running(engine_name, suite, pages):
    provider = HeadlessMarkdown("m", options(engine_name))
    result = call_provider(provider, suite.cases[0], pages.base + "/hang", HANG_POLICY)
    assert not result.success and result.error_type is ErrorType.TIMEOUT
    assert "killed" in result.error_message  # by the adapter itself, not abandoned by the watchdog
    assert engine_processes(os.path.join(tempfile.gettempdir(), PROFILE_PREFIX)) == []
    assert engine_processes(pages.base) == []


@pytest.mark.parametrize("engine_name", ENGINE_NAMES)
def test_live_or_replay_the_engine_reaches_only_what_the_guard_allows(engine_name, suite, pages, outside):
    provider = HeadlessMarkdown("m", options(engine_name))
    url = pages.base + "/outside"
    replayed = call_provider(provider, suite.cases[0], url, POLICY)
    assert replayed.success and "Replayed text." in replayed.content
    assert "Fetched from outside." not in replayed.content and outside.hits == []
    # The case's own URL (live): the page is the guard's exempt address here, its script on 127.0.0.2 is not.
    live = call_provider(provider, suite.cases[0].model_copy(update={"url": url}), url, POLICY)
    assert live.success and "Fetched from outside." not in live.content and outside.hits == []
    assert any(line.startswith(f"{outside.base}/script.js: refused") and "loopback address" in line
               for line in live.metadata.blocked_requests), live.metadata.blocked_requests


def test_a_refused_connection_is_a_connect_failure(suite):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for engine_name in ENGINE_NAMES:
        exempt = HttpBoundary(guard=NetworkGuard.allowing(("127.0.0.1", port)))  # as the replay server's is
        result = call_provider(HeadlessMarkdown("m", options(engine_name), http=exempt), suite.cases[0],
                               f"http://127.0.0.1:{port}/x", POLICY)
        assert result.error_type is ErrorType.CONNECT, (engine_name, result.error_message)


def test_file_delivery_with_dom_completion_is_refused_before_the_engine_starts(suite, pages):
    provider = HeadlessMarkdown("m", options("chromium-cdp", completion={"selector": "article"}))
    case = suite.cases[0].model_copy(update={"delivery": Delivery.FILE})
    hits = len(pages.hits)
    result = call_provider(provider, case, pages.base + "/late", POLICY)
    assert result.error_type is ErrorType.UNSUPPORTED_DELIVERY and "rendered-page condition" in result.error_message
    assert result.attempts == [] and len(pages.hits) == hits  # no call: the page was never asked for


def test_a_version_mismatch_stops_the_provider_before_any_call(suite, pages):
    version = installed("chromium-dump-dom")
    provider = HeadlessMarkdown("m", {**options("chromium-dump-dom"), "expected_version": "1"})
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.error_type is ErrorType.INFRASTRUCTURE
    assert f"is version {version} but the configuration expects 1" in result.error_message


def test_readability_js_returns_the_article(suite, pages):
    provider = ReadabilityJs("r", {"binary": "node", "expected_version": installed("jsdom"),
                                   "completion": {"selector": "p.late", "min_count": 3, "timeout_ms": 30000}})
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.success, result.error_message
    assert result.content.startswith("# Late page") and "Paragraph 2 written by a script" in result.content
    assert result.metadata.engine.startswith("readability-js 0.6.0 on jsdom ")


def test_readability_js_refuses_another_readability_version(suite, pages):
    provider = ReadabilityJs("r", {"binary": "node", "expected_version": installed("jsdom"),
                                   "readability_version": "0.5.0"})
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.error_type is ErrorType.INFRASTRUCTURE and "expects @mozilla/readability 0.5.0" in result.error_message


CRAWL4AI_PYTHON = os.environ.get("LEXBENCH_CRAWL4AI_PYTHON", "")
"""An interpreter with the crawl4ai extra (e.g. a separate venv); the test is skipped without one."""


def test_crawl4ai_without_the_extra_is_skipped_with_the_reason(suite, pages, tmp_path):
    bare = tmp_path / "python"
    bare.symlink_to("/usr/bin/python3" if os.path.exists("/usr/bin/python3") else which("python3"))
    provider = Crawl4ai("c", {"binary": "/usr/bin/chromium", "expected_version": installed("chromium-cdp"),
                              "python": str(bare)})
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.error_type is ErrorType.INFRASTRUCTURE
    assert "crawl4ai is not installed in" in result.error_message and "pip install -e '.[crawl4ai]'" in result.error_message


@pytest.mark.skipif(not CRAWL4AI_PYTHON, reason="set LEXBENCH_CRAWL4AI_PYTHON to an interpreter with the crawl4ai extra")
def test_crawl4ai_drives_system_chromium_over_cdp(suite, pages):
    provider = Crawl4ai("c", {"binary": "/usr/bin/chromium", "expected_version": installed("chromium-cdp"),
                              "python": CRAWL4AI_PYTHON,
                              "completion": {"selector": "p.late", "min_count": 3, "timeout_ms": 30000}})
    result = call_provider(provider, suite.cases[0], pages.base + "/late", RuntimePolicy(timeout_s=40.0, retries=0))
    assert "Paragraph 3 written by a script" in result.content
    assert result.metadata.upstream_status == 200 and result.metadata.engine.startswith("crawl4ai 0.9.5 on chromium")
    assert result.metadata.peak_memory_bytes > 10 * 2**20  # the browser's group and the worker's, sampled together


def test_javascript_off_renders_the_page_as_its_server_sent_it(suite, pages):
    # The sources saved their captures with JavaScript off; the articles suite renders them so (issue 17).
    provider = HeadlessHtml("h", options("chromium-cdp", javascript=False, completion={"delay_ms": 3000}))
    result = call_provider(provider, suite.cases[0], pages.base + "/late", POLICY)
    assert result.success, result.error_message
    assert "Written by the server." in result.content
    assert "Paragraph 1 written by a script" not in result.content  # the script's source is there, its output not


def test_javascript_off_needs_a_cdp_engine():
    with pytest.raises(ConfigError, match="javascript: false needs a CDP engine; chromium-dump-dom"):
        HeadlessHtml("h", {"engine": "chromium-dump-dom", "binary": "/usr/bin/chromium", "expected_version": "1",
                           "javascript": False})
