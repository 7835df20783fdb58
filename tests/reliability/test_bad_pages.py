"""Pages that used to pass or stall silently (issue 19, items 5 and 12): a truncated gzip body fails
as ``malformed_response``, and a page naming a codec that is not a text encoding (``punycode``,
``undefined``) is read as UTF-8 inside the extraction worker and still scores."""

from __future__ import annotations

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, build_provider, call_provider
from lexbench.providers.guard import NetworkGuard
from lexbench.scoring import evaluate_response
from tests.providers.servers import LoopbackServer, hostile_pages
from tests.suite_factory import ARTICLES, write_suite

POLICY = RuntimePolicy(timeout_s=60.0, retries=0)  # nothing here should take long; a loaded machine may


@pytest.fixture(scope="module")
def setup(tmp_path_factory):  # type: ignore[no-untyped-def]
    suite = load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES)))
    case = suite.cases[0]
    with LoopbackServer(lambda handler, server: None) as other, \
            LoopbackServer(hostile_pages(suite.captures[case.id], other.port)) as pages:
        provider = build_provider("http-markdownify", guard=NetworkGuard.allowing(pages.address))
        try:
            yield case, pages, provider
        finally:
            provider.close()


def test_a_truncated_gzip_body_is_a_malformed_response(setup) -> None:  # type: ignore[no-untyped-def]
    case, pages, provider = setup
    result = call_provider(provider, case, pages.url("/gzip-truncated"), POLICY)
    assert result.error_type is ErrorType.MALFORMED_RESPONSE, (result.error_type, result.content[:200])
    assert "truncated gzip body" in result.error_message
    whole = call_provider(provider, case, pages.url("/gzip"), POLICY)
    assert whole.success and evaluate_response(case, whole).outcome.value == "pass"


@pytest.mark.parametrize("route", ["/charset-punycode", "/charset-undefined"])
def test_a_page_naming_a_non_text_codec_is_read_as_utf8_and_scores(setup, route: str) -> None:  # type: ignore[no-untyped-def]
    case, pages, provider = setup
    result = call_provider(provider, case, pages.url(route), POLICY)
    assert result.success, result.error_message
    assert evaluate_response(case, result).outcome.value == "pass", result.content[:300]


pytestmark = [pytest.mark.attack(item=12), pytest.mark.slow]  # counted in the terminal summary's reliability figures
