"""Local providers fetch the replayed page and return Markdown with statuses and timings (SPEC §5)."""

import pytest

from lexbench.dataset.suite import load_suite
from lexbench.providers import build_provider, call_provider
from lexbench.providers.base import Provider
from lexbench.providers.result import ErrorType
from lexbench.replay import ReplayServer
from lexbench.errors import ConfigError
from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    suite = load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES)))
    with ReplayServer({c.id: (suite.captures[c.id], c.capture.content_type) for c in suite.cases}) as server:
        yield suite, server


@pytest.mark.parametrize("name", ["http-markdownify", "trafilatura", "readability"])
def test_local_provider_returns_article_markdown(served, name):
    suite, server = served
    case = suite.cases[0]
    provider = build_provider(name)
    result = call_provider(provider, case, 10.0, server.url_for(case.id))
    provider.close()
    assert result.success, result.error_message
    assert result.content_format == "markdown"
    assert result.metadata.upstream_status == 200
    assert result.metadata.api_http_status is None  # local providers call no API
    assert "four tidal turbines" in result.content
    assert "do not count me" not in result.content  # script text never leaks
    assert result.latency_s > 0 and len(result.attempts) == 1
    assert result.final_url == server.url_for(case.id)


def test_http_markdownify_keeps_whole_page_chrome(served):
    suite, server = served
    case = suite.cases[0]
    result = build_provider("http-markdownify").fetch(case, 10.0, server.url_for(case.id))
    assert "Privacy policy" in result.content and "# Tidal turbines" in result.content


def test_target_404_is_a_failed_call_with_status_kept(served):
    suite, server = served
    result = build_provider("trafilatura").fetch(suite.cases[0], 10.0, server.base_url + "/replay/missing")
    assert not result.success
    assert result.error_type is ErrorType.UPSTREAM_STATUS
    assert result.metadata.upstream_status == 404


def test_refused_connection_is_connect_error(served):
    suite, _ = served
    result = build_provider("readability").fetch(suite.cases[0], 2.0, "http://127.0.0.1:9/replay/x")
    assert not result.success and result.error_type is ErrorType.CONNECT
    assert "cannot connect" in result.error_message


def test_reference_echo_returns_title_and_reference(served):
    suite, _ = served
    case = suite.cases[1]
    result = build_provider("reference-echo").fetch(case, 1.0, case.url)
    assert result.content.splitlines()[0] == case.title
    assert case.reference_text in result.content


def test_crashing_provider_becomes_crashed_result(served):
    suite, _ = served

    class Broken(Provider):
        type_name = "broken"

        def fetch(self, case, timeout, url):
            raise ValueError("parser exploded")

    result = call_provider(Broken(), suite.cases[0], 1.0, "http://x.invalid/")
    assert not result.success and result.error_type is ErrorType.CRASHED
    assert "ValueError: parser exploded" in result.error_message


def test_unknown_provider_names_the_known_ones():
    with pytest.raises(ConfigError, match="unknown provider 'nope'.*trafilatura"):
        build_provider("nope")
