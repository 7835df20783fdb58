"""The file and resources routes, really run over replayed web archives (SPEC §2, issue 28 item 5).

Oracles independent of the engines: the sha256 (``hashlib``) of the bytes the replay server itself serves
for a document, and the resource paths the archive actually holds. Each engine is skipped with the reason
when it is not installed here.
"""

from __future__ import annotations

import hashlib
import urllib.request
from datetime import date

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.archive import ArchiveRecord, read_archive, write_archive
from lexbench.dataset.case import Case
from lexbench.providers import base as provider_base
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.headless import HeadlessHtml, HeadlessMarkdown
from lexbench.providers.http import HttpBoundary
from lexbench.providers.local import HttpMarkdownify
from lexbench.providers.policy import RuntimePolicy, call_provider
from lexbench.replay import ReplayServer
from lexbench.scoring.deliveries import page_relative
from lexbench.scoring.evaluate import evaluate_response
from lexbench.verdict import Outcome
from tests.providers.test_engines_real import options

pytestmark = pytest.mark.slow  # a replay server and browsers

# A document with bytes no text decoder keeps (NUL, 0xff, CR LF): the file route must return them untouched.
DOCUMENT = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\r\n1 0 obj\n<< /Type /Catalog >>\nendobj\n\x00\xff trailer\n%%EOF\n"
IMAGE = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>'
LINKS_PAGE = b"""<!doctype html><html><head><title>Papers</title></head><body><h1>Papers</h1>
<p><a href="papers/static.pdf">Written by the server</a> <a href="https://elsewhere.example/x.pdf">elsewhere</a></p>
<ul id="papers"></ul>
<script>
  var list = document.getElementById('papers');
  ['papers/agenda.pdf', 'papers/budget.csv'].forEach(function (href) {
    var li = document.createElement('li'), a = document.createElement('a');
    a.href = href; a.className = 'drawn'; a.textContent = href; li.appendChild(a); list.appendChild(li);
  });
  var img = document.createElement('img'); img.src = 'images/chart.svg'; document.body.appendChild(img);
</script></body></html>"""
POLICY = RuntimePolicy(timeout_s=60.0, retries=0)  # generous: the machine may be loaded
URLS = ["papers/static.pdf", "papers/agenda.pdf", "papers/budget.csv", "images/chart.svg"]


def _archive(records: list[ArchiveRecord]):
    return read_archive(write_archive(records, recorded=date(2026, 12, 3)), source="test")


@pytest.fixture(scope="module")
def replay():
    archives = {
        "report-001-en-doc": _archive([ArchiveRecord("", 200, (("Content-Type", "application/pdf"),), DOCUMENT)]),
        "documents-002-en-papers": _archive([
            ArchiveRecord("", 200, (("Content-Type", "text/html; charset=utf-8"),), LINKS_PAGE),
            ArchiveRecord("images/chart.svg", 200, (("Content-Type", "image/svg+xml"),), IMAGE)]),
    }
    server = ReplayServer(archives).start()
    yield server, archives
    server.stop()


@pytest.fixture(autouse=True)
def guard_exempts_the_replay(monkeypatch, replay):
    port = int(replay[0].base_url.rsplit(":", 1)[1])
    monkeypatch.setattr(provider_base, "HttpBoundary",
                        lambda: HttpBoundary(guard=NetworkGuard.allowing(("127.0.0.1", port))))


def file_case() -> Case:
    return Case(id="report-001-en-doc", name="n", url="https://www.harbour.example/docs/report.pdf", category="report",
                track="file-pdf", task_prompt="p", kind="site_labels", delivery="file", lang="en",
                capture={"path": "captures/x.warc.gz", "sha256": "0" * 64}, title=None, title_basis="not_in_source",
                file={"sha256": hashlib.sha256(DOCUMENT).hexdigest(), "size": len(DOCUMENT),
                      "media_type": "application/pdf"})


def resources_case() -> Case:
    return Case(id="documents-002-en-papers", name="n", url="https://www.harbour.example/papers/", category="documents",
                track="resources", task_prompt="p", kind="site_labels", delivery="resources", lang="en",
                capture={"path": "captures/y.warc.gz", "sha256": "0" * 64}, title=None, title_basis="not_in_source",
                retrieval={"mode": "dynamic", "needs_javascript": True,
                           "dom_completion": {"selector": "a.drawn", "count": 2, "timeout_ms": 20000}},
                resources={"urls": URLS, "recall_floor": 1, "observed": "2026-12-03", "evidence": "test page"})


def served_bytes(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:  # the replay server on loopback
        return response.read()


@pytest.mark.parametrize("provider_type", ["chromium-cdp", "http-markdownify"])
def test_the_file_route_returns_the_bytes_the_replay_serves(replay, provider_type):
    server, _ = replay
    url = server.url_for("report-001-en-doc")
    oracle = hashlib.sha256(served_bytes(url)).hexdigest()
    provider = (HeadlessHtml("cdp", options("chromium-cdp")) if provider_type == "chromium-cdp"
                else HttpMarkdownify("http-markdownify"))
    result = call_provider(provider, file_case(), url, POLICY)
    assert result.success, result.error_message
    assert hashlib.sha256(result.file).hexdigest() == oracle == file_case().file.sha256
    assert result.metadata.upstream_status == 200 and result.metadata.content_type == "application/pdf"
    verdict = evaluate_response(file_case(), result)
    assert verdict.outcome is Outcome.PASS, verdict.explanation


@pytest.mark.parametrize("engine_name", ["chromium-cdp", "chromium-dump-dom", "jsdom"])
def test_the_resources_route_returns_the_urls_of_the_completed_dom(replay, engine_name):
    server, archives = replay
    url = server.url_for("documents-002-en-papers")
    provider = HeadlessMarkdown(engine_name, options(engine_name))
    result = call_provider(provider, resources_case(), url, POLICY)
    assert result.success, result.error_message
    owned = {page_relative(u, result.final_url) for u in result.resources}
    # the oracle: every resource the archive holds besides the page itself is in the engine's list
    held = {path for path in archives["documents-002-en-papers"].records if path}
    assert held <= owned, (held, result.resources)
    assert {"papers/static.pdf", "papers/agenda.pdf", "papers/budget.csv"} <= owned
    assert "https://elsewhere.example/x.pdf" in result.resources  # listed, but not the page's own
    verdict = evaluate_response(resources_case(), result)
    assert verdict.outcome is Outcome.PASS, verdict.explanation


def test_an_engine_without_a_file_route_is_never_started(replay):
    server, _ = replay
    provider = HeadlessMarkdown("jsdom", options("jsdom"))
    before = server.requests.get("report-001-en-doc", 0)
    result = call_provider(provider, file_case(), server.url_for("report-001-en-doc"), POLICY)
    assert result.error_type is ErrorType.UNSUPPORTED_DELIVERY and result.attempts == []
    assert server.requests.get("report-001-en-doc", 0) == before  # the replay was never asked
    assert evaluate_response(file_case(), result).outcome is Outcome.UNRESOLVABLE
