"""Every hosted adapter against a loopback fake of its documented API, through the real HTTP stack:
each documented answer gets its result fields and verdict class; the request is the service's own; the
page is never fetched by the harness (SPEC §3.1, §5).

The adapters are built from their entries in ``providers/providers.example.json`` with only
``base_url`` pointed at the fake, so the example configuration itself is what is tested. Hosted API
endpoints are operator configuration and are not subject to the private-network guard (the guard
judges target pages), which is why an adapter may talk to a loopback fake while the guard still
refuses every loopback *target*; see ``test_the_harness_never_fetches_the_page_itself``.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lexbench.answer import ErrorType
from lexbench.dataset.suite import load_suite
from lexbench.errors import ConfigError
from lexbench.providers import PROVIDER_TYPES, ProviderSpec, RuntimePolicy, build_provider, call_provider, load_config
from lexbench.providers.config import parse_provider_config
from lexbench.providers.hosted.adapters import HOSTED_PROVIDER_TYPES
from lexbench.providers.call import Deadline
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.http import HttpBoundary
from lexbench.providers.local import extract
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome
from tests.providers.hosted_fakes import FAKES, SCENARIOS, SLOW_S, serve
from tests.providers.servers import LOAD_MARGIN_S, LoopbackServer, send
from tests.suite_factory import ARTICLES, write_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "providers" / "providers.example.json"
DEADLINE_S = 2.0
E = ErrorType
TYPES = [cls.type_name for cls in HOSTED_PROVIDER_TYPES if not cls.refused]
SPECS = {spec.type: spec for spec in reversed(load_config(EXAMPLE).providers)
         if PROVIDER_TYPES[spec.type].family == "hosted" and spec.output_contract == "cleaned"}
"""The example configuration's (first, cleaned) entry for each hosted type."""
CREDENTIALS = sorted({name for spec in SPECS.values() for name in spec.credential_variables()})


def secret_value(name: str) -> str:
    """A distinctive canary value per credential variable; ids stay path-safe, keys have URL-hostile bytes."""
    if name.endswith(("_ZONE", "_ACCOUNT_ID")):
        return f"canary-{name.lower().replace('_', '-')}-7f3e"
    return f"sk-{name.lower().replace('_', '-')}/Canary+7f3e=="


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = write_suite(tmp_path_factory.mktemp("suite"), ARTICLES)
    return root, load_suite(str(root)).cases[0]


@pytest.fixture(scope="module")
def case(suite):
    return suite[1]


@pytest.fixture(scope="module")
def pages(suite):
    """The case's page as each kind of service returns it: the capture itself (Zyte's browserHtml) and
    that capture as the http-markdownify baseline converts it (a Markdown service)."""
    root, case = suite
    html = (root / "evidence" / case.capture.path).read_text(encoding="utf-8")
    return {"html": {case.url: html}, "markdown": {case.url: extract("http-markdownify", html, case.url, {})[0]}}


@pytest.fixture
def keys(monkeypatch):
    for name in CREDENTIALS:
        monkeypatch.setenv(name, secret_value(name))
    return {name: secret_value(name) for name in CREDENTIALS}


def hosted(type_name: str, server: LoopbackServer, *, contract: str | None = None, **overrides: Any):
    """The example configuration's provider of ``type_name`` with its ``base_url`` on the fake."""
    spec = SPECS[type_name]
    options = {**spec.options, "base_url": FAKES[type_name].base_url(server), **overrides}
    options = {k: v for k, v in options.items() if v is not None}
    return build_provider(ProviderSpec(name=spec.name, type=type_name, options=options,
                                       output_contract=contract or spec.output_contract))


def call(provider, case, url, **policy):
    try:
        return call_provider(provider, case, url, RuntimePolicy(**{"timeout_s": DEADLINE_S, "retries": 0, **policy}))
    finally:
        provider.close()


# --- every documented answer → result fields and verdict ---------------------------------------------


@dataclass(frozen=True)
class Expect:
    """What a scenario must produce: error type (after the answer boundary), API status, target status,
    and adapter options for the scenario (e.g. JSON format, where the default answer is raw Markdown)."""

    error_type: ErrorType | None
    api: int | None
    upstream: int | None
    options: dict[str, Any] = field(default_factory=dict)


def row(success=(200, None), target_404=(E.UPSTREAM_STATUS, 200, 404), service_error=(E.SERVICE_ERROR, 500, None),
        limit=(E.RATE_LIMITED, 429, None), malformed_options=None, empty_upstream=None) -> dict[str, Expect]:
    return {
        "success": Expect(None, *success),
        "target-404": Expect(*target_404),
        "service-error": Expect(*service_error),
        "auth": Expect(E.AUTH, 401, None),
        "limit": Expect(*limit),
        "malformed": Expect(E.MALFORMED_RESPONSE, 200, None, malformed_options or {}),
        "empty": Expect(E.EMPTY_CONTENT, 200, success[1] if empty_upstream is None else empty_upstream),
        "slow": Expect(E.TIMEOUT, None, None),
    }


EXPECTED: dict[str, dict[str, Expect]] = {
    "brightdata-unlocker": row(success=(200, 200), service_error=(E.SERVICE_ERROR, 200, None),  # x-brd-error in a 200
                               malformed_options={"format": "json"}),
    "browserbase-fetch": row(success=(200, 200), service_error=(E.SERVICE_ERROR, 502, None)),
    "deepseek-fetch": row(target_404=(E.SERVICE_ERROR, 404, None)),  # API 404 "failed to fetch URL"
    "crawl4ai-cloud": row(target_404=(E.SERVICE_ERROR, 200, None)),  # success: false, no target status
    "jina-reader": row(service_error=(E.SERVICE_ERROR, 503, None), limit=(E.QUOTA, 402, None)),
    "firecrawl": row(success=(200, 200), limit=(E.QUOTA, 402, None)),
    "exa-contents": row(service_error=(E.SERVICE_ERROR, 200, None)),  # statuses: CRAWL_TIMEOUT
    "tavily-extract": row(target_404=(E.SERVICE_ERROR, 200, None), limit=(E.QUOTA, 432, None)),  # failed_results
    "cloudflare-markdown": row(target_404=(None, 200, None),  # not reported: judged by its content
                               service_error=(E.SERVICE_ERROR, 200, None)),
    "spider": row(success=(200, 200), service_error=(E.SERVICE_ERROR, 200, None), limit=(E.QUOTA, 402, None)),
    "scrapingbee": row(success=(200, 200), target_404=(E.UPSTREAM_STATUS, 404, 404),
                       malformed_options={"json_response": True}),
    "zyte-api": row(success=(200, 200), service_error=(E.SERVICE_ERROR, 520, None)),
}
SETUP = {E.AUTH, E.QUOTA, E.RATE_LIMITED}
EMPTY_BODIED = ("brightdata-unlocker", "service-error")  # x-brd-error comes in headers over an empty body


def expected_verdict(scenario: str, error_type: ErrorType | None) -> tuple[Outcome, str | None]:
    if error_type is None:
        return (Outcome.PASS, None) if scenario == "success" else (Outcome.FAIL, "content")
    return (Outcome.UNRESOLVABLE if error_type in SETUP else Outcome.FAIL), error_type.value


def test_every_adapter_and_scenario_is_covered():
    assert sorted(EXPECTED) == sorted(TYPES) == sorted(FAKES) == sorted(SPECS)
    assert all(list(rows) == list(SCENARIOS) for rows in EXPECTED.values())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("type_name", TYPES)
def test_each_documented_answer_gets_its_result_and_verdict(case, pages, keys, type_name, scenario, record_property):
    expect = EXPECTED[type_name][scenario]
    url = case.url if scenario == "success" else f"https://tiny.example/{scenario}"
    with serve(type_name, pages=pages[FAKES[type_name].page_format]) as api:
        provider = hosted(type_name, api, **expect.options)
        provider.prepare()  # untimed, as call_provider does it (Zyte starts its converter here)
        start = time.monotonic()
        result = call(provider, case, url)
        elapsed = time.monotonic() - start
    record_property("elapsed_s", f"{elapsed:.3f}")
    verdict = evaluate_response(case, result)
    assert result.error_type is expect.error_type, result.error_message
    assert (result.metadata.api_http_status, result.metadata.upstream_status) == (expect.api, expect.upstream)
    assert (verdict.outcome, verdict.failure_class) == expected_verdict(scenario, expect.error_type), verdict.explanation
    assert [r["target"] for r in api.requests] == [url]  # one call, the case URL as it is, on the documented route
    assert not result.success or result.content.strip()
    if scenario == "slow":
        assert DEADLINE_S - 0.1 <= result.latency_s <= elapsed <= DEADLINE_S + LOAD_MARGIN_S < SLOW_S and result.content == ""
    elif expect.error_type is not None:
        assert result.error_message and len(result.error_message) < 600
    if scenario in ("target-404", "service-error", "auth") and not (type_name, scenario) == EMPTY_BODIED:
        assert result.content.strip()  # the page or the API's error answer is kept (SPEC §5)
    dump = provider.redactor().result(result).model_dump_json()  # as written: the auth error echoes the key
    assert not [name for name, value in keys.items() if value in dump]


# --- the request is the service's own -------------------------------------------------------------------

B = "authorization"


def wire(keys: dict[str, str], url: str) -> dict[str, dict[str, Any]]:
    """Per type: what its fake must have received for target ``url`` under the example configuration."""
    k = keys
    return {
        "brightdata-unlocker": {"method": "POST", "path": "/request", "headers": {B: f"Bearer {k['BRIGHTDATA_API_TOKEN']}"},
                                "json": {"zone": keys["BRIGHTDATA_UNLOCKER_ZONE"], "url": url, "format": "raw",
                                         "data_format": "markdown", "render": True, "debug": True}},
        "browserbase-fetch": {"method": "POST", "path": "/v1/fetch", "headers": {"x-bb-api-key": k["BROWSERBASE_API_KEY"]},
                              "json": {"url": url, "format": "markdown", "proxies": True, "allowRedirects": True,
                                       "allowInsecureSsl": False}},
        "deepseek-fetch": {"method": "POST", "path": "/v1/tools/fetch", "headers": {B: f"Bearer {k['DEEPSEEK_API_KEY']}"},
                           "json": {"url": url}},
        "crawl4ai-cloud": {"method": "POST", "path": "/v1/scrape", "headers": {"x-api-key": k["CRAWL4AI_CLOUD_API_KEY"]},
                           "json": {"url": url, "strategy": "browser", "fit": False, "proxy": {"mode": "residential"},
                                    "bypass_cache": True}},
        "jina-reader": {"method": "POST", "path": "/", "json": {"url": url},
                        "headers": {B: f"Bearer {k['JINA_API_KEY']}", "accept": "application/json",
                                    "x-return-format": None, "x-retain-images": "none", "x-no-cache": "true"}},
        "firecrawl": {"method": "POST", "path": "/v2/scrape", "headers": {B: f"Bearer {k['FIRECRAWL_API_KEY']}"},
                      "json": {"url": url, "formats": ["markdown"], "onlyMainContent": True, "maxAge": 0}},
        "exa-contents": {"method": "POST", "path": "/contents", "headers": {"x-api-key": k["EXA_API_KEY"]},
                         "json": {"urls": [url], "text": True, "maxAgeHours": 0}},  # livecrawl is deprecated
        "tavily-extract": {"method": "POST", "path": "/extract", "headers": {B: f"Bearer {k['TAVILY_API_KEY']}"},
                           "json": {"urls": [url], "extract_depth": "advanced", "format": "markdown",
                                    "include_usage": True}},
        "cloudflare-markdown": {"method": "POST", "headers": {B: f"Bearer {k['CLOUDFLARE_API_TOKEN']}"}, "query": {"cacheTTL": "0"},
                                "path": f"/client/v4/accounts/{keys['CLOUDFLARE_ACCOUNT_ID']}/browser-rendering/markdown",
                                "json": {"url": url}},
        "spider": {"method": "POST", "path": "/crawl", "headers": {B: f"Bearer {k['SPIDER_API_KEY']}"},
                   "json": {"url": url, "limit": 1, "return_format": "markdown", "metadata": True, "request": "smart"}},
        "scrapingbee": {"method": "GET", "path": "/api/v1/", "json": None, "headers": {B: f"Bearer {k['SCRAPINGBEE_API_KEY']}"},
                        "query": {"url": url, "return_page_markdown": "true", "render_js": "true"}},
        "zyte-api": {"method": "POST", "path": "/v1/extract", "json": {"url": url, "browserHtml": True},
                     "headers": {B: "Basic " + base64.b64encode(f"{k['ZYTE_API_KEY']}:".encode()).decode()}},
    }


@pytest.fixture
def page_server():
    """A loopback page nobody may fetch: a hosted adapter must hand its URL to the service, not GET it."""
    with LoopbackServer(lambda h, s: send(h, 200, b"<h1>never fetched</h1>")) as server:
        yield server


@pytest.mark.slow
@pytest.mark.parametrize("type_name", TYPES)
def test_the_request_is_the_services_own_and_the_harness_never_fetches_the_page_itself(
        case, keys, page_server, type_name):
    target = page_server.url("/articles/42?ref=feed&lang=en")
    with serve(type_name) as api:
        result = call(hosted(type_name, api), case, target)
    assert result.success, result.error_message
    [request] = api.requests
    expected = wire(keys, target)[type_name]
    assert {name: request[name] for name in ("method", "path", "json")} == {
        "method": expected["method"], "path": expected["path"], "json": expected["json"]}
    assert request["query"] == expected.get("query", {})
    assert {name: request["headers"].get(name) for name in expected.get("headers", {})} == expected.get("headers", {})
    assert page_server.hits == []  # the target stays the service's business (and loopback targets stay guarded)


@pytest.mark.slow
def test_jina_whole_page_mode_is_a_provider_of_its_own(case, keys):
    """``jina-reader`` asks for the main content as Jina's client does; ``jina-reader-markdown`` asks for the
    whole page (``X-Return-Format: markdown``), and its rows say so in their engine."""
    spec = load_config(EXAMPLE).spec("jina-reader-markdown")
    with serve("jina-reader") as api:
        provider = build_provider(spec.model_copy(update={"options": {**spec.options, "base_url": api.url("")}}))
        try:
            result = call(provider, case, "https://tiny.example/page")
        finally:
            provider.close()
    [request] = api.requests
    assert request["headers"].get("x-return-format") == "markdown"
    assert result.success and result.metadata.engine == "jina-reader/markdown"


@pytest.mark.slow
def test_the_guard_still_refuses_loopback_targets(case, page_server):
    """The allowance hosted adapters get is not the guard's: the same loopback page is refused to a local
    provider, which fetches targets itself."""
    result = call(build_provider("http-markdownify"), case, page_server.url("/articles/42"))
    assert result.error_type is E.BLOCKED_NETWORK and page_server.hits == []


# --- what a success records -----------------------------------------------------------------------------

SUCCESS_FIELDS: dict[str, dict[str, Any]] = {
    "brightdata-unlocker": {"engine": "brightdata-unlocker"},
    "browserbase-fetch": {"request_id": "bb-fetch-1"},
    "deepseek-fetch": {"title": "Fetched", "engine": "deepseek-fetch"},
    "crawl4ai-cloud": {"engine": "crawl4ai-cloud/browser", "server_elapsed_s": 1.84, "cost": 2, "cost_unit": "credits",
                       "billing": {"usage": {"credits_used": 2, "credits_remaining": 98},
                                   "rate_limit": {"x-ratelimit-limit": "60", "x-ratelimit-remaining": "59"}},
                       "final_url": "{url}", "title": "Fetched"},
    "jina-reader": {"cost": 321, "cost_unit": "tokens", "billing": {"tokens": 321}, "final_url": "{url}",
                    "title": "Fetched"},
    "firecrawl": {"request_id": "fc-scrape-1", "cost": 1, "cost_unit": "credits",
                  "billing": {"creditsUsed": 1, "cacheState": "miss"}, "final_url": "{url}?final", "title": "Fetched"},
    "exa-contents": {"request_id": "exa-req-1", "cost": 0.001, "cost_unit": "usd", "final_url": "{url}",
                     "content_format": None},
    "tavily-extract": {"request_id": "tav-req-1", "server_elapsed_s": 1.25, "cost": 2, "cost_unit": "credits",
                       "engine": "tavily-extract/advanced", "final_url": "{url}", "title": "Fetched"},
    "cloudflare-markdown": {"cost": 812, "cost_unit": "browser_ms", "billing": {"browser_ms_used": 812}},
    "spider": {"engine": "spider/smart", "cost": 0.0003, "cost_unit": "usd", "server_elapsed_s": 0.85,
               "final_url": "{url}#final", "title": "Fetched"},
    "scrapingbee": {"engine": "scrapingbee/js", "cost": 5, "cost_unit": "credits", "final_url": "{url}?resolved"},
    "zyte-api": {"engine": "zyte-api/browserHtml", "final_url": "{url}?final", "title": "Fetched"},
}


@pytest.mark.slow
@pytest.mark.parametrize("type_name", TYPES)
def test_a_success_records_the_services_metadata(case, keys, type_name):
    url = "https://tiny.example/metadata"
    with serve(type_name) as api:
        result = call(hosted(type_name, api), case, url)
    assert result.success and result.metadata.dns_mode == "system", result.error_message
    assert result.content_format == SUCCESS_FIELDS[type_name].get("content_format", "markdown")
    assert "The page at https://tiny.example/metadata" in result.content
    seen = {**result.model_dump(), **result.metadata.model_dump()}
    wanted = {name: value.format(url=url) if isinstance(value, str) else value
              for name, value in SUCCESS_FIELDS[type_name].items()}
    assert {name: seen[name] for name in wanted} == wanted
    assert result.metadata.engine is not None and len(result.attempts) == 1


# --- service specifics ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("type_name", "scenario", "request_id"), [
    ("browserbase-fetch", "service-error", "bb-fetch-err"), ("exa-contents", "limit", "exa-req-3")])
def test_an_error_bodys_request_id_is_kept(case, keys, type_name, scenario, request_id):
    with serve(type_name) as api:
        result = call(hosted(type_name, api), case, f"https://tiny.example/{scenario}")
    assert not result.success and result.metadata.request_id == request_id


@pytest.mark.slow
def test_brightdata_usage_limit_code_is_quota_whatever_the_status(case, keys):
    with serve("brightdata-unlocker") as api:
        result = call(hosted("brightdata-unlocker", api), case, "https://tiny.example/usage-limit")
    verdict = evaluate_response(case, result)
    assert result.error_type is E.QUOTA and "client_10100" in result.error_message
    assert (verdict.outcome, verdict.failure_class) == (Outcome.UNRESOLVABLE, "quota")


@pytest.mark.slow
def test_brightdata_unlock_failure_names_the_brd_error(case, keys):
    with serve("brightdata-unlocker") as api:
        result = call(hosted("brightdata-unlocker", api), case, "https://tiny.example/reject-block")
    assert result.error_type is E.SERVICE_ERROR and result.metadata.api_http_status == 502
    assert "reject_block" in result.error_message and result.metadata.upstream_status is None


@pytest.mark.slow
def test_brightdata_json_format_reads_status_code_and_body(case, keys):
    with serve("brightdata-unlocker") as api:
        result = call(hosted("brightdata-unlocker", api, format="json"), case, "https://tiny.example/target-404")
    assert (result.error_type, result.metadata.upstream_status) == (E.UPSTREAM_STATUS, 404)
    assert result.content.startswith("# Not Found")
    assert api.requests[0]["json"]["format"] == "json"


@pytest.mark.slow
def test_browserbase_base64_content_is_decoded(case, keys):
    with serve("browserbase-fetch") as api:
        result = call(hosted("browserbase-fetch", api), case, "https://tiny.example/base64")
    assert result.success and result.content == "# Fetched\n\nThe page at https://tiny.example/base64."


@pytest.mark.slow
def test_firecrawl_scrape_timeout_is_the_services_failure_not_our_deadline(case, keys):
    with serve("firecrawl") as api:
        result = call(hosted("firecrawl", api), case, "https://tiny.example/scrape-timeout")
    assert (result.error_type, result.metadata.api_http_status) == (E.SERVICE_ERROR, 408)
    assert "SCRAPE_TIMEOUT" in result.error_message


@pytest.mark.slow
def test_crawl4ai_cloud_fit_scores_fit_markdown(case, keys):
    with serve("crawl4ai-cloud") as api:
        result = call(hosted("crawl4ai-cloud", api, fit=True), case, "https://tiny.example/page")
    assert result.content == "# Fetched\n\nThe page at https://tiny.example/page."[:40]
    assert api.requests[0]["json"]["fit"] is True


@pytest.mark.slow
def test_jina_runs_without_a_key(case, monkeypatch):
    monkeypatch.delenv("JINA_API_KEY", raising=False)
    with serve("jina-reader") as api:
        result = call(hosted("jina-reader", api, api_key=None), case, "https://tiny.example/page")
    assert result.success and "authorization" not in api.requests[0]["headers"]


@pytest.mark.slow
def test_scrapingbee_json_response(case, keys):
    with serve("scrapingbee") as api:
        result = call(hosted("scrapingbee", api, json_response=True), case, "https://tiny.example/page")
    assert result.success and (result.metadata.upstream_status, result.metadata.cost) == (200, 5)
    assert result.final_url == "https://tiny.example/page?resolved"


@pytest.mark.slow
def test_zyte_rendered_html_keeps_the_html_and_http_mode_decodes_base64(case, keys):
    with serve("zyte-api") as api:
        html = call(hosted("zyte-api", api, contract="rendered_html"), case, "https://tiny.example/page")
        body = call(hosted("zyte-api", api, mode="httpResponseBody"), case, "https://tiny.example/page")
    assert html.success and html.content_format == "html" and html.content.startswith("<html>")
    assert body.success and body.content_format == "markdown" and body.content.startswith("# Fetched")
    assert body.metadata.engine == "zyte-api/httpResponseBody"
    assert api.requests[1]["json"] == {"url": "https://tiny.example/page", "httpResponseBody": True,
                                       "httpResponseHeaders": True}


@pytest.mark.slow
def test_zyte_http_mode_decodes_with_the_pages_http_charset_as_the_http_boundary_does(case, keys):
    """A page whose charset is only in its Content-Type header (windows-1252 here): Zyte hands back its
    bytes and headers, and the adapter's text is what the HTTP boundary reads from the same page served
    with the same header (the http-markdownify baseline fetching it), not UTF-8 mojibake."""
    page = "<html><body><h1>Caf\u00e9 cr\u00e8me</h1><p>\u201cQuoted\u201d \u2014 na\u00efve r\u00e9sum\u00e9</p></body></html>"
    with serve("zyte-api", pages={"https://tiny.example/page": page}) as api:
        result = call(hosted("zyte-api", api, contract="rendered_html", mode="httpResponseBody"), case,
                      "https://tiny.example/page")
    header = f"text/html; charset={FAKES['zyte-api'].charset}"
    with LoopbackServer(lambda h, s: send(h, 200, page.encode(FAKES["zyte-api"].charset), header)) as site:
        boundary = HttpBoundary(guard=NetworkGuard.allowing(site.address))
        fetched = boundary.fetch_target(site.url("/page"), Deadline.after(30))
    assert result.success and result.content == fetched.text() == page


@pytest.mark.slow
def test_a_billed_failure_is_retried_and_both_costs_are_kept(case, keys):
    with serve("spider") as api:
        result = call(hosted("spider", api), case, "https://tiny.example/service-error", retries=1)
    assert result.error_type is E.SERVICE_ERROR and len(api.requests) == 2
    assert [a.cost for a in result.attempts] == [0.0001, 0.0001]
    assert result.metadata.cost_total == pytest.approx(0.0002)


# --- answers as the official clients shape them (HOSTED_APIS.md, "Checked against the official clients") ---


def test_browser_use_is_refused_with_the_reason_instead_of_an_invented_route(case):
    """No official Browser Use client (browser-use-sdk v2–v4, npm) has a fetch route: a /fetch call would
    404 on every item and be charged to the provider as fail/api_status."""
    with pytest.raises(ConfigError, match="refused: Browser Use documents no fetch endpoint.*browsers, sessions"):
        build_provider("browser-use-fetch")


@pytest.mark.slow
def test_firecrawl_reads_list_and_string_metadata_as_its_client_coerces_them(case, keys):
    """firecrawl-py types.py:178-251: title/url/sourceURL/scrapeId as lists, statusCode and creditsUsed as
    strings (its fixture test_metadata_extras.py has "statusCode": "200")."""
    with serve("firecrawl") as api:
        good = call(hosted("firecrawl", api), case, "https://tiny.example/client-types")
        gone = call(hosted("firecrawl", api), case, "https://tiny.example/client-error-list")
    assert good.success and good.content == "# Fetched\n\nList-typed metadata.", good.error_message
    assert (good.title, good.final_url) == ("Fetched", "https://tiny.example/client-types?final")
    assert (good.metadata.upstream_status, good.metadata.request_id, good.metadata.cost) == (200, "fc-scrape-2", 1)
    assert (gone.error_type, gone.metadata.upstream_status) == (E.EMPTY_CONTENT, 404), gone.error_message


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "error_type", "outcome"), [
    ("not-supported", E.SERVICE_ERROR, Outcome.FAIL),  # error_handler.py:184-186 "Website Not Supported"
    ("terms-required", E.AUTH, Outcome.UNRESOLVABLE)])  # THIRD_PARTY_DATA_TERMS_REQUIRED: the operator's to accept
def test_firecrawl_403_is_website_not_supported_a_provider_failure(case, keys, scenario, error_type, outcome):
    with serve("firecrawl") as api:
        result = call(hosted("firecrawl", api), case, f"https://tiny.example/{scenario}")
    verdict = evaluate_response(case, result)
    assert (result.error_type, result.metadata.api_http_status) == (error_type, 403)
    assert (verdict.outcome, verdict.failure_class) == (outcome, error_type.value)


@pytest.mark.slow
def test_firecrawl_processing_continues_is_waited_for_within_the_deadline(case, keys):
    """auto_resume.py: a 408 SCRAPE_TIMEOUT with details.state "processing_continues" is sent again after
    retryAfterSeconds (at least 5 s); without room in the deadline the 408 is the service's failure."""
    with serve("firecrawl") as api:
        short = call(hosted("firecrawl", api), case, "https://tiny.example/a/processing-continues")
        resumed = call(hosted("firecrawl", api), case, "https://tiny.example/b/processing-continues", timeout_s=60)
    assert (short.error_type, short.metadata.api_http_status) == (E.SERVICE_ERROR, 408)
    assert resumed.success and resumed.content == "# Fetched\n\nThe finished document.", resumed.error_message
    assert [r["target"].split("/")[3] for r in api.requests] == ["a", "b", "b"]  # one wait, then the finished page
    assert resumed.latency_s >= 5.0  # the client's minimum wait, never less


@pytest.mark.slow
def test_firecrawl_processing_that_never_ends_is_bounded_by_the_deadline(case, keys):
    """A service answering 408 processing_continues forever: the client's minimum wait (5 s) is taken while
    it fits the deadline, then the last 408 is the service's failure, within the deadline."""
    with serve("firecrawl") as api:
        result = call(hosted("firecrawl", api), case, "https://tiny.example/processing-forever", timeout_s=8)
    assert (result.error_type, result.metadata.api_http_status) == (E.SERVICE_ERROR, 408)
    assert len(api.requests) == 2 and 5.0 <= result.latency_s <= 8.0 + LOAD_MARGIN_S


@pytest.mark.slow
def test_exa_asks_for_a_fresh_fetch_with_max_age_hours_not_deprecated_livecrawl(case, keys):
    """exa-py api.py:3058-3062: livecrawl "does not guarantee freshly fetched content"; maxAgeHours 0 does,
    and only with it does text.verbosity take effect (api.py:762-768)."""
    with serve("exa-contents") as api:
        call(hosted("exa-contents", api, verbosity="full"), case, "https://tiny.example/page")
    body = api.requests[0]["json"]
    assert body["maxAgeHours"] == 0 and "livecrawl" not in body and body["text"] == {"verbosity": "full"}


@pytest.mark.slow
def test_exa_results_dropped_as_empty_are_empty_content_not_malformed(case, keys):
    """filterEmptyResults defaults to true: an empty page is results: [] with statuses[].status "success"."""
    with serve("exa-contents") as api:
        result = call(hosted("exa-contents", api), case, "https://tiny.example/empty")
    assert result.error_type is E.EMPTY_CONTENT and result.metadata.request_id == "exa-req-1"


@pytest.mark.slow
def test_zyte_escapes_the_url_to_rfc_2396_as_its_client_does(case, keys):
    """zyte-api utils.py:26-47 (safe_url_string): "café one" → "caf%C3%A9%20one"."""
    with serve("zyte-api") as api:
        result = call(hosted("zyte-api", api), case, "https://tiny.example/café one?q=ü")
        escaped = call(hosted("zyte-api", api), case, "https://tiny.example/caf%C3%A9%20one?q=%C3%BC")
    assert result.success and escaped.success, result.error_message
    # an already escaped URL is sent as it is: %20 is never escaped again to %2520
    assert [r["json"]["url"] for r in api.requests] == ["https://tiny.example/caf%C3%A9%20one?q=%C3%BC"] * 2


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["UTF-8", "iso-8859-1"])
def test_browserbase_encoding_is_a_free_charset_name(case, keys, encoding):
    """browserbase fetch_api_create_response.py: encoding is "the character encoding of the response"."""
    with serve("browserbase-fetch") as api:
        result = call(hosted("browserbase-fetch", api), case, f"https://tiny.example/{encoding}")
    assert result.success and result.content == f"# Fetched\n\nThe page at https://tiny.example/{encoding}."


@pytest.mark.slow
def test_browserbase_encoding_that_is_no_text_charset_is_refused(case, keys):
    """As page charsets (lexbench/charsets.py): a codec name outside the WHATWG text encodings (punycode,
    a Python codec) does not name text, so the content is malformed_response, never scored as Markdown."""
    with serve("browserbase-fetch") as api:
        result = call(hosted("browserbase-fetch", api), case, "https://tiny.example/punycode")
    assert (result.error_type, result.content) == (E.MALFORMED_RESPONSE, "")
    assert "'punycode'" in result.error_message and "text encoding" in result.error_message


@pytest.mark.slow
def test_spider_crawl_answering_several_pages_reads_the_start_page_and_bills_every_page(case, keys):
    """/crawl with limit 1 should answer one page; if it answers more, the start page (the URL asked for,
    first in the array) is the result and every page's cost is kept, since each is billed."""
    with serve("spider") as api:
        result = call(hosted("spider", api), case, "https://tiny.example/several-pages")
    assert result.success and result.content == "# Start\n\nThe page asked for.", result.error_message
    assert result.metadata.cost == pytest.approx(0.0006) and result.metadata.billing["pages"] == 2


@pytest.mark.slow
def test_brightdata_err_msg_header_is_the_failure_reason(case, keys):
    """brightdata-sdk serp/base.py:305-308 reads x-brd-err-code / x-brd-err-msg / x-brd-error."""
    with serve("brightdata-unlocker") as api:
        result = call(hosted("brightdata-unlocker", api), case, "https://tiny.example/err-msg")
    assert result.error_type is E.SERVICE_ERROR and "Target site did not answer" in result.error_message
    assert evaluate_response(case, result).failure_class == "service_error"  # never empty_content


@pytest.mark.slow
def test_scrapingbee_key_is_a_bearer_header_never_in_the_url(case, keys):
    """scrapingbee 2.2 client.py:45 sends Authorization: Bearer ("previously the api_key query parameter")."""
    with serve("scrapingbee") as api:
        call(hosted("scrapingbee", api), case, "https://tiny.example/page")
    [request] = api.requests
    assert request["headers"]["authorization"] == f"Bearer {keys['SCRAPINGBEE_API_KEY']}"
    assert "api_key" not in request["query"]


@pytest.mark.slow
@pytest.mark.parametrize("type_name", TYPES)
def test_base_url_and_path_are_configurable(case, keys, type_name):
    with serve(type_name) as api:
        call(hosted(type_name, api, base_url=api.url("/gateway"), path="/moved/here"), case, "https://tiny.example/page")
    [request] = api.requests
    assert request["path"] == "/gateway/moved/here"  # the fake answers 404 there: the route is what counts


# --- configuration --------------------------------------------------------------------------------------


def test_the_example_names_every_hosted_type_with_placeholder_credentials_and_its_endpoint():
    config = load_config(EXAMPLE)
    hosted_specs = [s for s in config.providers if PROVIDER_TYPES[s.type].family == "hosted"]
    assert {s.type for s in hosted_specs} == set(TYPES)
    for spec in hosted_specs:
        cls = PROVIDER_TYPES[spec.type]
        assert spec.options["base_url"] == cls.default_base_url and spec.options["path"] == cls.default_path, spec.name
        assert spec.credential_variables(), spec.name
        assert spec.name not in config.default_providers  # hosted services cost money: never run by default


def test_the_readme_table_lists_each_hosted_provider_with_its_credentials_and_unverified_details():
    readme = (EXAMPLE.parents[1] / "README.md").read_text(encoding="utf-8")
    table = {line.split("|")[1].strip(" `"): line for line in readme.splitlines() if line.startswith("| `")}
    for spec in load_config(EXAMPLE).providers:
        cls = PROVIDER_TYPES[spec.type]
        if cls.family != "hosted":
            continue
        line = table[spec.name]
        assert f"| `{spec.type}` |" in line and f"| {spec.output_contract} |" in line and line.endswith("| no |")
        assert all(f"`{name}`" in line for name in spec.credential_variables()), spec.name
        if spec.output_contract == "cleaned":  # the rendered_html twin refers to its cleaned row
            assert ("**unverified" in line) == bool(cls.unverified), spec.name


@pytest.mark.parametrize(("entry", "message"), [
    ({"type": "firecrawl", "options": {}}, r"option\(s\) api_key required"),
    ({"type": "brightdata-unlocker", "options": {"api_key": "${K}"}}, r"option\(s\) zone required"),
    ({"type": "crawl4ai-cloud", "options": {"api_key": "${K}", "strategy": "rocket"}}, 'strategy must be one of "browser", "http"'),
    ({"type": "firecrawl", "options": {"api_key": "${K}", "max_age_ms": "0"}}, "max_age_ms must be an integer"),
    ({"type": "spider", "options": {"api_key": "${K}", "base_url": "ftp://x"}}, "base_url must be an http"),
    ({"type": "exa-contents", "options": {"api_key": "sk-literal"}}, r"must be an \$\{ENV_VAR\} placeholder"),
    ({"type": "cloudflare-markdown", "options": {"api_key": "${K}"}}, "account_id is required"),
    ({"type": "tavily-extract", "output_contract": "rendered_html", "options": {"api_key": "${K}"}}, "not one tavily"),
    ({"type": "exa-contents", "options": {"api_key": "${K}", "livecrawl": "always"}}, "unknown option.*livecrawl"),
    ({"type": "exa-contents", "options": {"api_key": "${K}", "verbosity": "full", "max_age_hours": 24}},
     "verbosity takes effect only with max_age_hours 0"),
    ({"type": "browser-use-fetch", "options": {"api_key": "${K}"}}, "refused: Browser Use documents no fetch endpoint"),
])
def test_bad_hosted_options_are_refused_at_load(entry, message):
    config = {"schema_version": 1, "default_providers": ["p"], "providers": [{"name": "p", **entry}]}
    with pytest.raises(ConfigError, match=message):
        parse_provider_config(config, PROVIDER_TYPES)
