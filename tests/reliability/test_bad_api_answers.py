"""An API answer Python's JSON parser cannot hold is a ``malformed_response`` of the service, never a
``crashed`` item (issue 19, item 12): JSON nested past the recursion limit, an integer of 5,000 digits."""

from __future__ import annotations

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.providers import ProviderSpec, RuntimePolicy, build_provider, call_provider, register_provider_type
from lexbench.scoring import evaluate_response
from tests.providers.fake_api import FakeFetchApi
from tests.providers.servers import LoopbackServer, fake_fetch_api
from tests.suite_factory import ARTICLES, write_suite

register_provider_type(FakeFetchApi)


@pytest.mark.parametrize(("scenario", "says"), [("deep-json", "nested deeper"), ("huge-integer", "number")])
def test_json_the_parser_cannot_hold_is_a_malformed_response(tmp_path, monkeypatch, scenario: str, says: str) -> None:
    case = load_suite(str(write_suite(tmp_path / "suite", ARTICLES))).cases[0]
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    with LoopbackServer(fake_fetch_api()) as api:
        provider = build_provider(ProviderSpec(name="fake", type="fake-fetch-api",
                                               options={"base_url": api.url(), "api_key": "${FAKE_API_KEY}"}))
        try:
            result = call_provider(provider, case, f"https://site.example/{scenario}", RuntimePolicy(timeout_s=60, retries=0))
        finally:
            provider.close()
    assert result.error_type is ErrorType.MALFORMED_RESPONSE, (result.error_type, result.error_message)
    assert says in result.error_message
    verdict = evaluate_response(case, result)
    assert (verdict.outcome.value, verdict.failure_class) == ("fail", "malformed_response")


pytestmark = [pytest.mark.attack(item=12), pytest.mark.slow]  # counted in the terminal summary's reliability figures
