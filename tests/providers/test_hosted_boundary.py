"""A hosted adapter only builds a request and parses a response; the shared boundary gives it statuses,
credentials, DNS mode and debug logs. Exercised through the real HTTP stack against a loopback fake
API and a loopback DoH resolver (SPEC §3.1, §5)."""

from __future__ import annotations

import json
import time

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.providers import ProviderSpec, RuntimePolicy, build_provider, call_provider, register_provider_type
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome
from tests.providers.fake_api import FakeFetchApi
from tests.providers.servers import LOAD_MARGIN_S, SLOW_ANSWER_S, LoopbackServer, doh_resolver, fake_fetch_api
from tests.suite_factory import ARTICLES, write_suite

SECRET = "sk-live/Canary+Key=="
DEADLINE_S = 2.0
register_provider_type(FakeFetchApi)


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


@pytest.fixture
def api():
    with LoopbackServer(fake_fetch_api()) as server:
        yield server


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", SECRET)


def hosted(api_url: str, **spec) -> FakeFetchApi:
    options = {"base_url": api_url, "api_key": "${FAKE_API_KEY}", **spec.pop("options", {})}
    return build_provider(ProviderSpec(name="fake", type="fake-fetch-api", options=options, **spec))


API_ANSWERS = [
    # target, error type, verdict, failure class
    ("https://site.example/ok", None, Outcome.FAIL, "content"),  # a real answer, just not this case's text
    ("https://site.example/wrapped-error", ErrorType.SERVICE_ERROR, Outcome.FAIL, "service_error"),
    ("https://site.example/target-404", ErrorType.UPSTREAM_STATUS, Outcome.FAIL, "upstream_status"),
    ("https://site.example/rate-limited", ErrorType.RATE_LIMITED, Outcome.UNRESOLVABLE, "rate_limited"),
    ("https://site.example/unauthorized", ErrorType.AUTH, Outcome.UNRESOLVABLE, "auth"),
    ("https://site.example/server-error", ErrorType.SERVICE_ERROR, Outcome.FAIL, "service_error"),
    ("https://site.example/malformed", ErrorType.MALFORMED_RESPONSE, Outcome.FAIL, "malformed_response"),
    ("https://site.example/html-error", ErrorType.MALFORMED_RESPONSE, Outcome.FAIL, "malformed_response"),
    ("https://site.example/invalid-utf8", ErrorType.MALFORMED_RESPONSE, Outcome.FAIL, "malformed_response"),
    ("https://site.example/empty", ErrorType.EMPTY_CONTENT, Outcome.FAIL, "empty_content"),
    ("https://site.example/slow", ErrorType.TIMEOUT, Outcome.FAIL, "timeout"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("target", "error_type", "outcome", "failure_class"), API_ANSWERS,
                         ids=[a[0].rsplit("/", 1)[1] for a in API_ANSWERS])
def test_api_answer_gets_its_verdict_within_the_deadline(case, api, key, target, error_type, outcome, failure_class):
    provider = hosted(api.url())
    start = time.monotonic()
    result = call_provider(provider, case, target, RuntimePolicy(timeout_s=DEADLINE_S, retries=0))
    elapsed = time.monotonic() - start
    verdict = evaluate_response(case, result)
    assert result.error_type is error_type, result.error_message
    assert (verdict.outcome, verdict.failure_class) == (outcome, failure_class), verdict.explanation
    assert elapsed <= DEADLINE_S + LOAD_MARGIN_S < SLOW_ANSWER_S  # ended by the deadline, not the answer
    if error_type is not ErrorType.TIMEOUT:
        assert result.metadata.api_http_status is not None
    assert SECRET not in provider.redactor().result(result).model_dump_json()


@pytest.mark.slow
def test_api_status_and_target_status_stay_apart(case, api, key):
    result = call_provider(hosted(api.url()), case, "https://site.example/target-404")
    assert result.metadata.api_http_status == 200 and result.metadata.upstream_status == 404
    assert result.content == "# Not found"  # kept for diagnostics
    provider = hosted(api.url())
    refused = call_provider(provider, case, "https://site.example/unauthorized")
    assert refused.metadata.api_http_status == 401 and refused.metadata.upstream_status is None
    assert "invalid api key [REDACTED]" in provider.redactor().result(refused).content  # kept; written without the key
    assert len(refused.attempts) == 1  # a setup problem is not retried


@pytest.mark.slow
def test_success_records_request_id_cost_and_the_credential_only_on_the_wire(case, api, key):
    result = call_provider(hosted(api.url()), case, "https://site.example/page")
    assert result.success and result.metadata.request_id == "req-1"
    assert result.metadata.cost == 0.002 and result.metadata.cost_unit == "usd"
    assert result.metadata.engine == "fake-fetch-api" and result.metadata.dns_mode == "system"
    assert api.requests[-1]["authorization"] == f"Bearer {SECRET}"
    assert api.requests[-1]["json"] == {"url": "https://site.example/page"}


@pytest.mark.slow
def test_a_retried_api_failure_keeps_both_costs(case, api, key):
    result = call_provider(hosted(api.url()), case, "https://site.example/wrapped-error")
    assert len(result.attempts) == 2 and [a.cost for a in result.attempts] == [0.001, 0.001]
    assert result.metadata.cost_total == pytest.approx(0.002)


@pytest.mark.slow
def test_missing_credentials_never_reach_the_api(case, api, monkeypatch):
    monkeypatch.delenv("FAKE_API_KEY", raising=False)
    result = call_provider(hosted(api.url()), case, "https://site.example/page")
    verdict = evaluate_response(case, result)
    assert (verdict.outcome, verdict.failure_class) == (Outcome.UNRESOLVABLE, "missing_credentials")
    assert "FAKE_API_KEY" in result.error_message and api.requests == []


@pytest.mark.slow
def test_debug_log_saves_redacted_requests_and_responses(case, api, key, tmp_path):
    provider = build_provider(ProviderSpec(name="fake", type="fake-fetch-api", log_level="debug", options={
        "base_url": api.url(), "api_key": "${FAKE_API_KEY}", "key_in_query": True}), debug_dir=tmp_path)
    call_provider(provider, case, "https://site.example/echo-key")
    call_provider(provider, case, "https://site.example/slow", RuntimePolicy(timeout_s=1, retries=0))
    logs = sorted(tmp_path.rglob("*.json"))
    assert len(logs) == 2
    exchange = json.loads(logs[0].read_text())
    assert exchange["request"]["method"] == "POST" and "key=[REDACTED]" in exchange["request"]["url"]
    assert ["Authorization", "[REDACTED]"] in exchange["request"]["headers"]
    assert exchange["response"]["status"] == 200 and "Your key is [REDACTED]" in exchange["response"]["body"]
    assert "timeout" not in exchange and "deadline" in json.loads(logs[1].read_text())["error"]
    for log in logs:
        assert SECRET not in log.read_text() and "sk-live%2FCanary" not in log.read_text()


# --- dns_mode ------------------------------------------------------------------------------------


@pytest.fixture
def doh():
    with LoopbackServer(doh_resolver({"fake-api.test": ["127.0.0.1"]})) as server:
        yield server


def doh_hosted(api, doh_url, host="fake-api.test") -> FakeFetchApi:
    return hosted(f"http://{host}:{api.port}", dns_mode="public_doh", doh_url=doh_url)


@pytest.mark.slow
def test_public_doh_resolves_the_api_host_through_the_resolver(case, api, doh, key):
    result = call_provider(doh_hosted(api, doh.url("/dns-query")), case, "https://site.example/page")
    assert result.success, result.error_message
    assert result.metadata.dns_mode == "public_doh"
    [resolution] = result.metadata.resolutions
    assert (resolution.host, resolution.via, resolution.addresses) == ("fake-api.test", "doh", ["127.0.0.1"])
    assert resolution.resolver == doh.url("/dns-query")
    assert [(q["name"], q["type"]) for q in doh.requests] == [("fake-api.test", "A")]


@pytest.mark.slow
def test_doh_nxdomain_never_falls_back_to_system_dns_nor_retries(case, api, doh, key):
    # "localhost" resolves through the system resolver; under public_doh it must not.
    result = call_provider(doh_hosted(api, doh.url("/dns-query"), host="localhost"), case, "https://site.example/page",
                           RuntimePolicy(retries=1))
    verdict = evaluate_response(case, result)
    assert result.error_type is ErrorType.DNS and "NXDOMAIN" in result.error_message
    assert (verdict.outcome, verdict.failure_class) == (Outcome.FAIL, "dns")
    assert len(result.attempts) == 1 and len(doh.requests) == 1 and api.requests == []
    assert result.metadata.resolutions[0].addresses == []


@pytest.mark.slow
def test_an_unreachable_doh_resolver_is_a_dns_failure(case, api, key):
    with LoopbackServer(lambda h, s: None) as dead:
        url = dead.url("/dns-query")
    result = call_provider(doh_hosted(api, url), case, "https://site.example/page")
    assert result.error_type is ErrorType.DNS and "no fallback to system DNS" in result.error_message
    assert api.requests == []
