"""The services' official Python clients as the oracle for the hosted adapters (issue 21).

The loopback fakes in ``hosted_fakes.py`` were written from the same notes as the adapters, so they agree by
construction. Here each official client (the ``sdk-check`` extra: ``pip install -e '.[sdk-check]'``) and
the adapter are pointed at the same loopback recorder for the same URL, and must send the same method,
route, credential (header and scheme) and body fields — every field the adapter sends, the client sends
with the same value. The recorder answers a documented example in the client's own shape (HOSTED_APIS.md,
"Checked against the official clients"), and the adapter must read content, title, final URL, target
status and request id as the client reads them.

A service whose client is not installed is skipped with the reason. Jina's first-party CLI (jina-cli)
hands back the answer's JSON unparsed, so for Jina the request is compared and the answer's documented
``data`` fields are read from that JSON. Crawl4AI's cloud module (in the large ``crawl4ai`` extra, and
silent on ``/v1/scrape``), Browser Use (its adapter is refused: no client has a fetch route) and DeepSeek
(no official client) give no comparison here.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from lexbench.dataset.suite import load_suite
from lexbench.providers import ProviderSpec, RuntimePolicy, build_provider, call_provider, load_config
from tests.providers.servers import LoopbackServer, send
from tests.suite_factory import ARTICLES, write_suite

EXAMPLE = load_config(Path(__file__).resolve().parents[2] / "providers" / "providers.example.json")
URL = "https://tiny.example/café one?ref=feed&lang=en"
"""A target with non-ASCII characters and a space, as corpus URLs have them (Zyte's client escapes it)."""
PAGE = "# Example Domain\n\nThis domain is for use in illustrative examples."
KEY = "sk-oracle-Canary+7f3e"
ACCOUNT = "acct-oracle-7f3e"
ZONE = "zone-oracle-7f3e"
AUTH_HEADERS = ("authorization", "x-api-key", "x-bb-api-key")


@dataclass
class Answer:
    """What the recorder sends back: a documented example in the client's shape."""

    body: Any
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


class Recorder(LoopbackServer):
    """A loopback server that records every request (method, path, query, headers, JSON body) and
    answers each with :attr:`answer`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        super().__init__(self._handle)

    def _handle(self, h: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        parts = urlsplit(h.path)
        raw = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.requests.append({"method": h.command, "path": parts.path,
                              "query": {k: v[-1] for k, v in parse_qs(parts.query).items()},
                              "headers": {k.lower(): v for k, v in h.headers.items()}, "json": body})
        payload = self.answer.body if isinstance(self.answer.body, str) else json.dumps(self.answer.body)
        send(h, 200, payload.encode("utf-8"), self.answer.content_type, self.answer.headers)


@dataclass(frozen=True)
class Read:
    """What a reader took from the answer (the client's fields mapped to the adapter's names)."""

    content: str
    title: str | None = None
    final_url: str | None = None
    upstream_status: int | None = None
    request_id: str | None = None


@dataclass(frozen=True)
class Oracle:
    """One service: its client's module, the example provider's name, the documented answer, how the
    client is called (base URL of the recorder → what the client read), and which of :class:`Read`'s
    fields the client exposes."""

    module: str
    provider: str
    answer: Answer
    client: Callable[[str], Read]
    compared: tuple[str, ...] = ("content",)
    adapter_only: tuple[str, ...] = ()
    """Body fields the adapter sends that the client does not (each a ``?`` in HOSTED_APIS.md, listed in
    the adapter's ``unverified``): exactly these may be missing from the client's body."""


# --- each official client, called as the adapter's example configuration means it ----------------------


def _firecrawl(base: str) -> Read:
    from firecrawl import Firecrawl

    doc = Firecrawl(api_key=KEY, api_url=base).scrape(URL, formats=["markdown"], only_main_content=True, max_age=0)
    meta = doc.metadata
    return Read(doc.markdown, meta.title, meta.url, meta.status_code, meta.scrape_id)


def _exa(base: str) -> Read:
    from exa_py import Exa

    result = Exa(api_key=KEY, base_url=base).get_contents([URL], text=True, max_age_hours=0).results[0]
    return Read(result.text, result.title, result.url)


def _tavily(base: str) -> Read:
    from tavily import TavilyClient

    answer = TavilyClient(api_key=KEY, api_base_url=base).extract(
        urls=[URL], extract_depth="advanced", format="markdown", include_usage=True)
    result = answer["results"][0]
    return Read(result["raw_content"], result.get("title"), result["url"], request_id=answer.get("request_id"))


def _scrapingbee(base: str) -> Read:
    from scrapingbee import ScrapingBeeClient

    client = ScrapingBeeClient(KEY)
    client.HTML_API_URL = f"{base}/api/v1/"  # the client's own base, pointed at the recorder
    response = client.html_api(URL, params={"return_page_markdown": True, "render_js": True})
    return Read(response.text, final_url=response.headers.get("Spb-resolved-url"),
                upstream_status=int(response.headers["Spb-initial-status-code"]))


def _zyte(base: str) -> Read:
    from zyte_api import ZyteAPI

    answer = ZyteAPI(api_key=KEY, api_url=f"{base}/v1/").get({"url": URL, "browserHtml": True})
    return Read(answer["browserHtml"], final_url=answer["url"], upstream_status=answer["statusCode"])


def _spider(base: str) -> Read:
    from spider import Spider

    client = Spider(api_key=KEY)
    post = client._session.post  # the client's host is fixed: send its request to the recorder instead
    client._session.post = lambda url, **kw: post(url.replace("https://api.spider.cloud", base), **kw)
    [page] = client.scrape_url(URL, params={"return_format": "markdown", "metadata": True, "request": "smart"})
    return Read(page["content"], page["metadata"]["title"], page["metadata"]["final_url"], page["status"])


def _browserbase(base: str) -> Read:
    from browserbase import Browserbase

    answer = Browserbase(api_key=KEY, base_url=base).fetch_api.create(
        url=URL, format="markdown", proxies=True, allow_redirects=True, allow_insecure_ssl=False)
    return Read(answer.content, upstream_status=answer.status_code, request_id=answer.id)


def _brightdata(base: str) -> Read:
    import asyncio

    from brightdata.core.engine import AsyncEngine
    from brightdata.web_unlocker.service import WebUnlockerService

    async def scrape() -> Any:
        async with AsyncEngine(KEY) as engine:
            engine.BASE_URL = base  # the client's own base, pointed at the recorder
            return await WebUnlockerService(engine).scrape_async(URL, zone=ZONE, response_format="raw")

    result = asyncio.run(scrape())
    assert result.success, result.error
    return Read(result.data)


def _jina(base: str) -> Read:
    import jina_cli.api as reader

    fixed, reader.READER_BASE = reader.READER_BASE, base  # the client's host is a module constant
    try:
        answer = reader.read_url(URL, api_key=KEY, as_json=True)  # the CLI hands back the JSON unparsed
    finally:
        reader.READER_BASE = fixed
    data = answer["data"]
    return Read(data["content"], data["title"], data["url"])


def _cloudflare(base: str) -> Read:
    from cloudflare import Cloudflare

    result = Cloudflare(api_token=KEY, base_url=f"{base}/client/v4").browser_rendering.markdown.create(
        account_id=ACCOUNT, url=URL, cache_ttl=0)
    return Read(result)


ORACLES = {
    "brightdata": Oracle("brightdata", "brightdata", Answer(PAGE, "text/plain; charset=utf-8", {"x-brd-status-code": "200"}),
                         _brightdata, adapter_only=("data_format", "render", "debug")),
    "firecrawl": Oracle("firecrawl", "firecrawl", Answer({"success": True, "data": {"markdown": PAGE, "metadata": {
        # the shapes firecrawl-py accepts (types.py:178-251): a list-typed title, a string statusCode
        "title": ["Example Domain"], "sourceURL": URL, "url": URL + "#final", "statusCode": "200",
        "scrapeId": "fc-oracle-1", "creditsUsed": "1", "cacheState": "miss"}}}),
        _firecrawl, ("content", "title", "final_url", "upstream_status", "request_id")),
    "exa": Oracle("exa_py", "exa", Answer({"requestId": "exa-oracle-1", "results": [
        {"id": URL, "url": URL, "title": "Example Domain", "text": PAGE}], "statuses": [{"id": URL, "status": "success"}],
        "costDollars": {"total": 0.001}}), _exa, ("content", "title", "final_url")),
    "tavily": Oracle("tavily", "tavily", Answer({"results": [{"url": URL, "title": "Example Domain", "raw_content": PAGE}],
                                                 "failed_results": [], "response_time": 1.1, "usage": {"credits": 1},
                                                 "request_id": "tav-oracle-1"}),
                     _tavily, ("content", "title", "final_url", "request_id")),
    "scrapingbee": Oracle("scrapingbee", "scrapingbee", Answer(PAGE, "text/plain; charset=utf-8", {
        "Spb-initial-status-code": "200", "Spb-resolved-url": URL + "#final", "Spb-cost": "5"}),
        _scrapingbee, ("content", "final_url", "upstream_status")),
    "zyte": Oracle("zyte_api", "zyte-html", Answer({"url": URL + "#final", "statusCode": 200,
                                                    "browserHtml": "<html><body><h1>Example Domain</h1></body></html>"}),
                   _zyte, ("content", "final_url", "upstream_status")),
    "spider": Oracle("spider", "spider", Answer([{"url": URL, "status": 200, "content": PAGE, "error": None,
                                                  "costs": {"total_cost": 0.0001}, "duration_elasped_ms": 420,
                                                  "metadata": {"title": "Example Domain", "final_url": URL + "#final"}}]),
                     _spider, ("content", "title", "final_url", "upstream_status")),
    "browserbase": Oracle("browserbase", "browserbase", Answer({
        "id": "bb-oracle-1", "statusCode": 200, "headers": {"content-type": "text/html; charset=ISO-8859-1"},
        "content": PAGE, "contentType": "text/markdown", "encoding": "iso-8859-1"}),  # a free charset string
        _browserbase, ("content", "upstream_status", "request_id")),
    "jina": Oracle("jina_cli", "jina-reader", Answer({"code": 200, "status": 20000, "data": {
        "title": "Example Domain", "description": "", "url": URL + "#final", "content": PAGE, "usage": {"tokens": 12}}}),
        _jina, ("content", "title", "final_url")),
    "cloudflare": Oracle("cloudflare", "cloudflare-markdown", Answer({"success": True, "errors": [], "messages": [],
                                                                      "result": PAGE}), _cloudflare),
}


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


@pytest.fixture
def oracle(request, monkeypatch) -> Oracle:
    oracle = ORACLES[request.param]
    if not _installed(oracle.module):
        pytest.skip(f"the official client {oracle.module!r} is not installed: install the sdk-check extra "
                    "(pip install -e '.[sdk-check]')")
    spec = EXAMPLE.spec(oracle.provider)
    for name in spec.credential_variables():
        monkeypatch.setenv(name, ACCOUNT if name.endswith("_ACCOUNT_ID") else ZONE if name.endswith("_ZONE") else KEY)
    return oracle


def _adapter(oracle: Oracle, base: str, case) -> Read:
    spec = EXAMPLE.spec(oracle.provider)
    provider = build_provider(ProviderSpec(name=spec.name, type=spec.type, output_contract=spec.output_contract,
                                           options={**spec.options, "base_url": base}))
    try:
        result = call_provider(provider, case, URL, RuntimePolicy(timeout_s=30, retries=0))
    finally:
        provider.close()
    assert result.success, result.error_message
    return Read(result.content, result.title, result.final_url, result.metadata.upstream_status,
                result.metadata.request_id)


def _credential(request: dict[str, Any]) -> dict[str, str]:
    return {name: request["headers"][name] for name in AUTH_HEADERS if name in request["headers"]}


@pytest.mark.slow
@pytest.mark.parametrize("oracle", sorted(ORACLES), indirect=True)
def test_sdk_client_and_adapter_send_the_same_request_and_read_the_answer_alike(oracle, case):
    with Recorder(oracle.answer) as recorder:
        by_client = oracle.client(recorder.url("").rstrip("/"))
        by_adapter = _adapter(oracle, recorder.url("").rstrip("/"), case)
    sent_by_client, sent_by_adapter = recorder.requests[0], recorder.requests[-1]
    assert len(recorder.requests) == 2, recorder.requests  # one request each: no retry, no second route
    assert (sent_by_adapter["method"], sent_by_adapter["path"]) == (sent_by_client["method"], sent_by_client["path"])
    assert _credential(sent_by_adapter) == _credential(sent_by_client) != {}
    if isinstance(sent_by_adapter["json"], dict):
        client_body, adapter_body = sent_by_client["json"], sent_by_adapter["json"]
        assert sorted(set(adapter_body) - set(client_body)) == sorted(oracle.adapter_only)
        shared = sorted(set(adapter_body) & set(client_body))
        assert {k: client_body[k] for k in shared} == {k: adapter_body[k] for k in shared}
    query_client = {k: v.lower() for k, v in sent_by_client["query"].items()}
    assert {k: v.lower() for k, v in sent_by_adapter["query"].items()} == query_client
    read = {name: getattr(by_adapter, name) for name in oracle.compared}
    assert read == {name: getattr(by_client, name) for name in oracle.compared}


@pytest.mark.slow
@pytest.mark.parametrize("oracle", ["jina"], indirect=True)
def test_jina_reader_asks_for_the_main_content_as_its_client_does(oracle, case):
    """Jina's client sends no ``X-Return-Format`` (which would turn main-content extraction into a whole-page
    conversion): neither does the adapter, and it sends every other ``X-`` header the client sends with
    the same value, but for ``X-Md-Link-Style: discarded`` (the posts and anchor contracts count link
    targets); ``X-No-Cache`` is its own (fresh fetches)."""
    with Recorder(oracle.answer) as recorder:
        oracle.client(recorder.url("").rstrip("/"))
        _adapter(oracle, recorder.url("").rstrip("/"), case)
    by_client, by_adapter = ({k: v for k, v in request["headers"].items() if k.startswith("x-") or k == "accept"}
                             for request in recorder.requests)
    assert "x-return-format" not in by_client and "x-return-format" not in by_adapter
    assert by_adapter == {**{k: v for k, v in by_client.items() if k != "x-md-link-style"}, "x-no-cache": "true"}
