"""Every numeric field of a hosted answer is read with bounds (issue 27, item 9): a Firecrawl 408 whose
``retryAfterSeconds`` is ``10**400`` (a fixture of firecrawl-py) crashed the adapter with
``OverflowError``; ``1e400``, ``NaN`` and negative quantities became infinite, NaN or negative costs and
server times in the run record, and a status of ``10**400`` was taken for "unknown". Each is now the
service's ``malformed_response``, scored ``fail``, never a crashed item.

Each adapter is the example configuration's, pointed at a loopback server answering the documented
answer of its official client (``test_sdk_oracle.ORACLES``) with one number made hostile.
"""

from __future__ import annotations

import copy
import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.providers import ProviderSpec, RuntimePolicy, build_provider, call_provider, load_config
from lexbench.scoring import evaluate_response
from tests.providers.servers import LoopbackServer, send
from tests.providers.test_sdk_oracle import ORACLES, PAGE, URL
from tests.suite_factory import ARTICLES, write_suite

pytestmark = [pytest.mark.attack(item=9, issue=27), pytest.mark.slow]  # loopback servers

EXAMPLE = load_config(Path(__file__).resolve().parents[2] / "providers" / "providers.example.json")
HUGE = 10**400
"""firecrawl-py's fixture value (401 digits: within Python's 4,300-digit limit, past a float's range)."""


def _answer(service: str, path: str, value: Any) -> Any:
    """The oracle's documented answer for ``service`` with the member at dotted ``path`` set to ``value``."""
    body = copy.deepcopy(ORACLES[service].answer.body)
    node = body[0] if isinstance(body, list) else body
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return body


CRAWL4AI = {"success": True, "url": URL, "markdown": PAGE, "metadata": {"title": "Example Domain"},
            "usage": {"credits_used": 1}}
SCENARIOS: dict[str, tuple[str, int, Any, dict[str, str]]] = {
    # name: (example provider, API status, JSON answer or raw text, headers)
    "firecrawl-retry-after-10**400": ("firecrawl", 408, {"success": False, "code": "SCRAPE_TIMEOUT", "details": {
        "state": "processing_continues", "retryAfterSeconds": HUGE}}, {}),
    "firecrawl-credits-10**400": ("firecrawl", 200, _answer("firecrawl", "data.metadata.creditsUsed", HUGE), {}),
    "firecrawl-credits-1e999-text": ("firecrawl", 200, _answer("firecrawl", "data.metadata.creditsUsed", "1e999"), {}),
    "firecrawl-status-99999": ("firecrawl", 200, _answer("firecrawl", "data.metadata.statusCode", "99999"), {}),
    "exa-cost-1e400": ("exa", 200, json.dumps(_answer("exa", "costDollars.total", 1.0)).replace(
        '"total": 1.0', '"total": 1e400'), {}),
    "exa-billing-holds-1e400": ("exa", 200, json.dumps(_answer("exa", "costDollars.breakDown", 1.0)).replace(
        '"breakDown": 1.0', '"breakDown": 1e400'), {}),
    "tavily-negative-response-time": ("tavily", 200, _answer("tavily", "response_time", -1e9), {}),
    "tavily-credits-NaN": ("tavily", 200, json.dumps(_answer("tavily", "usage.credits", 1)).replace(
        '"credits": 1', '"credits": NaN'), {}),
    "spider-duration-10**400": ("spider", 200, _answer("spider", "duration_elasped_ms", HUGE), {}),
    "spider-status-10**400": ("spider", 200, _answer("spider", "status", HUGE), {}),
    "jina-tokens-10**400": ("jina-reader", 200, _answer("jina", "data.usage.tokens", HUGE), {}),
    "browserbase-status-10**400": ("browserbase", 200, _answer("browserbase", "statusCode", HUGE), {}),
    "zyte-status-negative": ("zyte-html", 200, _answer("zyte", "statusCode", -200), {}),
    "crawl4ai-credits-10**400": ("crawl4ai-cloud", 200, {**CRAWL4AI, "usage": {"credits_used": HUGE}}, {}),
    "scrapingbee-cost-header-1e999": ("scrapingbee", 200, PAGE, {"Spb-initial-status-code": "200", "Spb-cost": "1e999"}),
    "cloudflare-browser-ms-nan": ("cloudflare-markdown", 200, ORACLES["cloudflare"].answer.body,
                                  {"X-Browser-Ms-Used": "nan"}),
}


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_hostile_number_in_a_hosted_answer_is_a_malformed_response(scenario, case, monkeypatch):
    name, status, answer, headers = SCENARIOS[scenario]
    payload = answer if isinstance(answer, str) else json.dumps(answer)
    content_type = "text/plain; charset=utf-8" if name == "scrapingbee" else "application/json"

    def handle(handler: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        send(handler, status, payload.encode("utf-8"), content_type, headers)

    spec = EXAMPLE.spec(name)
    for variable in spec.credential_variables():
        monkeypatch.setenv(variable, "sk-numbers-7f3e")
    with LoopbackServer(handle) as api:
        provider = build_provider(ProviderSpec(name=spec.name, type=spec.type, output_contract=spec.output_contract,
                                               options={**spec.options, "base_url": api.url("").rstrip("/")}))
        try:
            result = call_provider(provider, case, URL, RuntimePolicy(timeout_s=30, retries=0))
        finally:
            provider.close()
        asked = len(api.hits)
    assert result.error_type is ErrorType.MALFORMED_RESPONSE, (result.error_type, result.error_message)
    assert "not a number from 0 to" in result.error_message or "out of range" in result.error_message \
        or "not an HTTP status" in result.error_message or "not a JSON number" in result.error_message, result.error_message
    assert result.metadata.api_http_status == status and asked == 1  # read once: no wait of 10**400 s, no resend
    assert len(result.error_message) < 400  # the 401 digits are not repeated
    verdict = evaluate_response(case, result)
    assert (verdict.outcome.value, verdict.failure_class) == ("fail", "malformed_response")
    json.dumps(result.model_dump(mode="json"), allow_nan=False)  # what is recorded is JSON
