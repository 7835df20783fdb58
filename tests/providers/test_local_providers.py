"""Local providers fetch the replayed page and return Markdown with statuses and timings (SPEC §5)."""

import os
import urllib.parse

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.errors import ConfigError
from lexbench.providers import RuntimePolicy, build_provider, call_provider
from lexbench.providers.base import Provider
from lexbench.providers.call import Deadline, FetchError
from lexbench.providers.extraction import ExtractionWorker
from lexbench.providers.guard import NetworkGuard
from lexbench.replay import ReplayServer
from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    suite = load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES)))
    with ReplayServer({c.id: (suite.captures[c.id], c.capture.content_type) for c in suite.cases}) as server:
        yield suite, server


def replay_guard(server: ReplayServer) -> NetworkGuard:
    parts = urllib.parse.urlsplit(server.base_url)
    return NetworkGuard.allowing((parts.hostname, parts.port))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["http-markdownify", "trafilatura", "readability"])
def test_local_provider_returns_article_markdown(served, name):
    suite, server = served
    case = suite.cases[0]
    provider = build_provider(name, guard=replay_guard(server))
    result = call_provider(provider, case, server.url_for(case.id), RuntimePolicy(timeout_s=10))
    provider.close()
    assert result.success, result.error_message
    assert result.content_format == "markdown"
    assert result.metadata.upstream_status == 200
    assert result.metadata.api_http_status is None  # local providers call no API
    assert result.metadata.dns_mode == "system"
    assert "four tidal turbines" in result.content
    assert "do not count me" not in result.content  # script text never leaks
    assert result.latency_s > 0 and len(result.attempts) == 1
    assert result.final_url == server.url_for(case.id)
    # The extraction worker (a Python with lxml and the extractors loaded) was sampled while it extracted.
    assert result.metadata.peak_memory_bytes > 10 * 2**20 and result.metadata.memory_sampled_every_s == 0.1


@pytest.mark.slow
def test_http_markdownify_keeps_whole_page_chrome(served):
    suite, server = served
    case = suite.cases[0]
    provider = build_provider("http-markdownify", guard=replay_guard(server))
    result = call_provider(provider, case, server.url_for(case.id))
    provider.close()
    assert "Privacy policy" in result.content and "# Tidal turbines" in result.content


@pytest.mark.slow
def test_target_404_is_a_failed_call_with_status_and_content_kept(served):
    suite, server = served
    provider = build_provider("trafilatura", guard=replay_guard(server))
    result = call_provider(provider, suite.cases[0], server.base_url + "/replay/missing", RuntimePolicy(retries=1))
    provider.close()
    assert not result.success
    assert result.error_type is ErrorType.UPSTREAM_STATUS
    assert result.metadata.upstream_status == 404
    assert [a.upstream_status for a in result.attempts] == [404, 404]  # one failure retry, both kept


@pytest.mark.slow
def test_refused_connection_is_connect_error(served):
    suite, _ = served
    provider = build_provider("readability", guard=NetworkGuard.allowing(("127.0.0.1", 9)))
    result = call_provider(provider, suite.cases[0], "http://127.0.0.1:9/replay/x", RuntimePolicy(timeout_s=2, retries=0))
    provider.close()
    assert not result.success and result.error_type is ErrorType.CONNECT
    assert "cannot connect" in result.error_message


@pytest.mark.slow
def test_without_the_replay_exemption_the_replay_server_is_refused(served):
    suite, server = served
    hits = dict(server.requests)
    provider = build_provider("trafilatura")  # no exemption: loopback is a private address
    result = call_provider(provider, suite.cases[0], server.url_for(suite.cases[0].id), RuntimePolicy(retries=1))
    provider.close()
    assert result.error_type is ErrorType.BLOCKED_NETWORK and "loopback" in result.error_message
    assert len(result.attempts) == 1  # a refusal is not retried
    assert server.requests == hits  # refused before connecting


@pytest.mark.slow
def test_reference_echo_returns_title_and_reference(served):
    suite, _ = served
    case = suite.cases[1]
    result = call_provider(build_provider("reference-echo"), case, case.url)
    assert result.content.splitlines()[0] == case.title
    assert case.reference_text in result.content
    assert result.metadata.dns_mode is None  # no network call


@pytest.mark.slow
def test_crashing_provider_becomes_crashed_result(served):
    suite, _ = served

    class Broken(Provider):
        type_name = "broken"

        def fetch(self, case, timeout, url):
            raise ValueError("parser exploded")

    result = call_provider(Broken(), suite.cases[0], "http://x.invalid/")
    assert not result.success and result.error_type is ErrorType.CRASHED
    assert "ValueError: parser exploded" in result.error_message
    assert len(result.attempts) == 1  # a bug is not retried


def test_unknown_provider_names_the_known_ones():
    with pytest.raises(ConfigError, match="unknown provider 'nope'.*trafilatura"):
        build_provider("nope")


@pytest.mark.slow
def test_extraction_past_the_deadline_kills_the_worker_and_the_next_call_gets_a_fresh_one():
    worker = ExtractionWorker()
    worker.ensure_started()
    first = worker.pid
    page = "<html><body>" + "<div><p>word " * 50_000 + "</body></html>"
    with pytest.raises(FetchError) as caught:
        worker.extract("trafilatura", page, "http://example.com/", {}, Deadline.after(0.001))
    assert caught.value.error_type is ErrorType.TIMEOUT and "killed" in str(caught.value)
    assert worker.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # killed and reaped, not left running beside the next call
    content, _ = worker.extract("http-markdownify", "<p>after</p>", "http://example.com/", {}, Deadline.after(30))
    assert content == "after" and worker.pid not in (None, first)
    worker.stop()


@pytest.mark.slow
def test_extractor_answer_past_the_output_ceiling_is_too_large():
    worker = ExtractionWorker(max_output_bytes=1_000)
    with pytest.raises(FetchError) as caught:
        worker.extract("http-markdownify", "<p>" + "x" * 5_000 + "</p>", "http://example.com/", {}, Deadline.after(30))
    worker.stop()
    assert caught.value.error_type is ErrorType.TOO_LARGE


XHTML_HEAD = ('<?xml version="1.0" encoding="{encoding}"?>\n'
              '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
              '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
              '<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head>')
CAFE = "<p>Le café du port reste ouvert, naïf et fier, jusqu’à minuit.</p>"


@pytest.fixture(scope="module")
def xhtml_served(served):
    """The first case's page as served HTML (with one accented paragraph) and as XHTML pages that
    declare their encoding only in an XML declaration (UTF-8, ISO-8859-1), served without a charset."""
    suite, _ = served
    case = suite.cases[0]
    html = suite.captures[case.id].decode("utf-8").replace("</article>", CAFE.replace("’", "'") + "</article>")
    opening = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
    assert html.startswith(opening)
    pages = {"html": (html.encode("utf-8"), "text/html; charset=utf-8")}
    for encoding in ("UTF-8", "ISO-8859-1"):
        xhtml = XHTML_HEAD.format(encoding=encoding) + html.removeprefix(opening)
        pages[encoding] = (xhtml.encode(encoding), "application/xhtml+xml")
    with ReplayServer(pages) as server:
        yield case, server


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["UTF-8", "ISO-8859-1"])
@pytest.mark.parametrize("name", ["http-markdownify", "trafilatura", "readability"])
def test_xhtml_page_with_an_xml_declaration_gives_the_same_answer_as_html(xhtml_served, name, encoding):
    from lexbench.scoring import evaluate_response
    from lexbench.verdict import Component, Outcome

    case, server = xhtml_served
    provider = build_provider(name, guard=replay_guard(server))
    try:
        html = call_provider(provider, case, server.url_for("html"), RuntimePolicy(timeout_s=30))
        xhtml = call_provider(provider, case, server.url_for(encoding), RuntimePolicy(timeout_s=30))
    finally:
        provider.close()
    assert xhtml.success, xhtml.error_message
    assert "four tidal turbines" in xhtml.content and "Le café du port" in xhtml.content  # decoded as declared
    assert xhtml.content == html.content
    verdict = evaluate_response(case, xhtml)
    assert verdict.explanation == evaluate_response(case, html).explanation
    body = [verdict.component(c).passed for c in (Component.TITLE, Component.REGIONS, Component.ENDING)]
    assert body == [True, True, True], verdict.explanation  # the article is all there
    if name == "http-markdownify":  # the whole page, site chrome included: every contract met
        assert verdict.outcome is Outcome.PASS, verdict.explanation


def test_xhtml_page_is_sniffed_as_html_past_its_xml_declaration():
    import httpx

    from lexbench.providers.http import HttpResponse, decode_text
    from lexbench.providers.local import is_html_document

    body = XHTML_HEAD.format(encoding="ISO-8859-1").encode() + "<body><p>café</p></body></html>".encode("latin-1")
    assert "café" in decode_text(body, None)
    assert "café" in decode_text(body, "text/html; charset=iso-8859-1")  # the header still wins
    assert is_html_document(HttpResponse(status=200, url="http://x/", headers=httpx.Headers({"content-type": "text/plain"}), body=body))
    assert not is_html_document(HttpResponse(status=200, url="http://x/", headers=httpx.Headers({"content-type": "text/plain"}),
                                             body=b'<?xml version="1.0"?><feed><title>t</title></feed>'))
