"""The ``langchain`` provider (LangChain's ``WebBaseLoader``) against loopback pages (SPEC §5, issue 22).

Self-contained on purpose: it imports lexbench and pytest only (no ``tests.*`` helper, no conftest
fixture), so the installed-package check can run this file against a wheel installed outside the
checkout. The oracle is the loader itself, called here in the test process on the same page. Tests
that need the ``langchain`` extra are skipped, with that reason, where it is absent; the absent extra
itself is simulated by hiding ``langchain_community`` from a provider's interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.util import find_spec
from pathlib import Path

import pytest

import lexbench
from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.http import HttpBoundary
from lexbench.providers.policy import RuntimePolicy, call_provider
from lexbench.providers.thirdparty import LANGCHAIN_PINS, LangChain
from lexbench.replay import ReplayServer

pytestmark = pytest.mark.slow  # starts servers and worker processes

DEMO = Path(__file__).resolve().parents[2] / "cases" / "demo"
"""The checkout's demo suite: its cases (and their captures) are the pages fetched and scored."""
EXTRA = find_spec("langchain_community") is not None and find_spec("bs4") is not None
needs_extra = pytest.mark.skipif(not EXTRA, reason="the langchain extra is absent: make langchain, or "
                                 "pip install 'lexbench[langchain]'")
POLICY = RuntimePolicy(timeout_s=60.0, retries=0)  # a wide margin: a loopback page takes milliseconds
ENGINE = f"langchain-community {LANGCHAIN_PINS['langchain-community']} WebBaseLoader"

PAGE = ("<!doctype html><html lang='de'><head><title>Die Fähre von Lindenau</title></head><body>"
        "<script>var hidden = 'never text';</script><h1>Die Fähre</h1><p>Sie fährt über die Weiße Elster.</p>"
        "<p>Zweiter Absatz.</p></body></html>").encode("utf-8")
MISSING = b"<html><head><title>Not found</title></head><body><p>No such page here.</p></body></html>"


class Pages:
    """Loopback pages: /page (UTF-8 German article), /mislabelled (the same bytes labelled ISO-8859-1),
    /redirect (302 → /page), /away (302 → ``away``, another loopback server), /hang (never answers);
    anything else is a 404 with a body. ``hits`` lists the paths asked for."""

    def __init__(self, away: str = "") -> None:
        self.release = threading.Event()
        self.hits: list[str] = []
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                pages.hits.append(self.path)
                if self.path == "/hang":
                    pages.release.wait(120)  # bounded; released when the test ends
                    return
                location = {"/redirect": "/page", "/away": away}.get(self.path)
                if location:
                    self.send_response(302)
                    self.send_header("Location", location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = PAGE if self.path in ("/page", "/mislabelled") else MISSING
                self.send_response(200 if body is PAGE else 404)
                charset = "iso-8859-1" if self.path == "/mislabelled" else "utf-8"
                self.send_header("Content-Type", f"text/html; charset={charset}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def suite():
    if not (DEMO / "dataset.json").is_file():
        pytest.skip(f"the demo suite is not at {DEMO} (run this file from a lexbench checkout)")
    return load_suite(str(DEMO))


@pytest.fixture(scope="module")
def away():
    pages = Pages()
    yield pages
    pages.close()


@pytest.fixture(scope="module")
def pages(away):
    pages = Pages(away=away.base + "/page")
    yield pages
    pages.close()


def replaying(base: str) -> HttpBoundary:
    """The boundary the plugin builds in replay mode: its guard (which the loader's requests pass,
    through the guarding proxy) exempts exactly the replay server at ``base``, here played by ``Pages``."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    return HttpBoundary(guard=NetworkGuard.allowing((host, int(port))))


@pytest.fixture(scope="module")
def provider(pages):
    provider = LangChain("langchain", http=replaying(pages.base))
    yield provider
    provider.close()


@pytest.fixture
def hidden_extra(tmp_path):
    """An interpreter (this one) from which ``langchain_community`` is hidden, as where the extra is absent."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "langchain_community.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'langchain_community'\", name='langchain_community')\n")
    python = tmp_path / "python-without-langchain"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{hidden}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return str(python)


def oracle(url: str):
    """The Document LangChain's loader itself returns for ``url``, called as agents call it."""
    from langchain_community.document_loaders import WebBaseLoader

    return WebBaseLoader(url).load()[0]


@needs_extra
def test_a_loopback_page_is_the_documents_page_content(suite, pages, provider):
    result = call_provider(provider, suite.cases[0], pages.base + "/page", POLICY)
    document = oracle(pages.base + "/page")
    assert result.success, result.error_message
    assert result.content == document.page_content and result.content_format == "text"
    assert "Sie fährt über die Weiße Elster." in result.content and "never text" not in result.content
    assert result.title == document.metadata["title"] == "Die Fähre von Lindenau"
    assert result.final_url == pages.base + "/page" and result.metadata.upstream_status == 200
    assert result.metadata.content_type == "text/html; charset=utf-8"
    assert result.metadata.engine.startswith(ENGINE)


@needs_extra
def test_the_charset_is_guessed_from_the_bytes_as_the_loader_does(suite, pages, provider):
    result = call_provider(provider, suite.cases[0], pages.base + "/mislabelled", POLICY)
    assert result.metadata.content_type == "text/html; charset=iso-8859-1"
    assert result.content == oracle(pages.base + "/mislabelled").page_content
    assert "Sie fährt über die Weiße Elster." in result.content  # not the header's ISO-8859-1 mojibake


@needs_extra
def test_a_loopback_404_is_a_failed_call_with_upstream_status_404(suite, pages, provider):
    result = call_provider(provider, suite.cases[0], pages.base + "/missing", POLICY)
    document = oracle(pages.base + "/missing")  # the loader itself returns the error page as a Document
    assert not result.success
    assert result.error_type is ErrorType.UPSTREAM_STATUS and result.metadata.upstream_status == 404
    assert result.error_message == "the page answered HTTP 404"
    assert result.content == document.page_content and "No such page here." in result.content


@needs_extra
def test_a_redirect_is_followed_and_recorded(suite, pages, provider):
    result = call_provider(provider, suite.cases[0], pages.base + "/redirect", POLICY)
    assert result.success, result.error_message
    assert result.final_url == pages.base + "/page" and result.metadata.redirects == [pages.base + "/page"]
    assert result.content == oracle(pages.base + "/page").page_content


@needs_extra
def test_in_replay_mode_a_redirect_off_the_replay_server_is_refused(suite, pages, away, provider):
    away.hits.clear()
    result = call_provider(provider, suite.cases[0], pages.base + "/away", POLICY)
    assert result.error_type is ErrorType.BLOCKED_NETWORK, result.error_message
    assert f"{away.base.removeprefix('http://')} is not the replay server" in result.error_message
    assert away.hits == []


@needs_extra
def test_a_page_that_never_answers_is_killed_at_the_deadline_and_the_next_call_works(suite, pages):
    provider = LangChain("langchain-hang", http=replaying(pages.base))
    try:
        provider.prepare()  # untimed: the child starts and imports the loader
        pid = provider._worker.pid
        result = call_provider(provider, suite.cases[0], pages.base + "/hang", RuntimePolicy(timeout_s=4.0, retries=0))
        assert result.error_type is ErrorType.TIMEOUT and "langchain loader did not finish" in result.error_message
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the hung loader's process is gone
        after = call_provider(provider, suite.cases[0], pages.base + "/page", POLICY)
        assert after.success and provider._worker.pid not in (None, pid)  # a fresh child serves the next call
    finally:
        provider.close()


@needs_extra
def test_a_replayed_demo_page_is_fetched_and_scored(suite):
    case = suite.cases[0]
    with ReplayServer({case.id: (suite.captures[case.id], case.capture.content_type)}) as server:
        provider = LangChain("langchain", http=replaying(server.base_url))
        try:
            result = call_provider(provider, case, server.url_for(case.id), POLICY)
        finally:
            provider.close()
    assert result.success and result.metadata.upstream_status == 200
    verdict = lexbench.assert_passes(case, result)
    assert "call ok (upstream 200" in verdict.explanation


def test_without_the_extra_the_provider_is_skipped_with_the_reason(suite, pages, hidden_extra):
    provider = LangChain("langchain", {"python": hidden_extra})
    try:
        result = call_provider(provider, suite.cases[0], pages.base + "/page", POLICY)
        assert provider._worker.pid is None  # no loader was started
    finally:
        provider.close()
    assert result.error_type is ErrorType.INFRASTRUCTURE
    assert "the langchain extra is not installed" in result.error_message
    assert "No module named 'langchain_community'" in result.error_message
    assert "make langchain" in result.error_message and "pip install 'lexbench[langchain]'" in result.error_message


@needs_extra
def test_another_langchain_community_version_is_refused(suite, pages):
    provider = LangChain("langchain", {"langchain_version": "0.3.0"})
    result = call_provider(provider, suite.cases[0], pages.base + "/page", POLICY)
    assert result.error_type is ErrorType.INFRASTRUCTURE
    assert f"langchain-community {LANGCHAIN_PINS['langchain-community']} is installed" in result.error_message
    assert "the configuration expects 0.3.0" in result.error_message


@needs_extra
def test_a_benchmark_run_scores_the_provider_and_skips_it_without_the_extra(suite, tmp_path, hidden_extra):
    (tmp_path / "pytest.ini").write_text("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    config = {"schema_version": 1, "default_providers": ["langchain"], "providers": [
        {"name": "langchain", "type": "langchain"},
        {"name": "langchain-absent", "type": "langchain", "options": {"python": hidden_extra}}]}
    (tmp_path / "providers.json").write_text(json.dumps(config))
    case = suite.cases[0]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", f"--suite={DEMO}", "--provider-config=providers.json",
         "--providers=langchain,langchain-absent", "-k", case.id, "-rs", "--run-dir=run"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rows = {row["provider"]: row for row in map(json.loads, (tmp_path / "run" / "results.jsonl").read_text().splitlines())}
    assert rows["langchain"]["outcome"] == "pass" and rows["langchain"]["metadata"]["upstream_status"] == 200
    assert rows["langchain"]["metadata"]["engine"].startswith(ENGINE)
    assert rows["langchain-absent"]["outcome"] == "unresolvable"
    assert "1 passed, 1 skipped" in run.stdout
    assert "langchain-absent could not be prepared" in run.stdout and "pip install 'lexbench[langchain]'" in run.stdout
