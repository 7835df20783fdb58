"""Loopback fakes of the hosted fetch APIs, one per service, answering in the shapes documented in
HOSTED_APIS.md (shared/). Each fake reads a request the way its service does — route, credential
header or query, where the target URL sits — and answers according to the target URL's last path
segment:

    success        the page (``pages[url]``, or a small default page) in the service's success shape
    target-404     the target answered 404, reported the service's way (field, header, warning, list)
    service-error  the service's own failure (5xx, or an error inside a 200 where that is documented)
    auth           401 in the service's error shape (also any key starting with ``rejected-``)
    limit          the service's quota or rate limit (402, 429 or its own status)
    malformed      a 200 whose JSON is cut off
    empty          the success shape with empty content
    slow           the success answer, sent after :data:`SLOW_S` seconds

With ``fetch`` the fake behaves like the real service on frozen pages (issue 21): it fetches the URL it
is given itself (user agent ``<type>-fetcher/1.0``) and converts the page as the service would (HTML for
Zyte, Markdown by the ``http-markdownify`` conversion otherwise); a target that answers non-2xx is the
service's target-404 answer, one it cannot reach its service error. ``fetch="refuse"`` never fetches and
answers the service error (a service whose fetcher cannot reach the host).

A request on another route gets 404 ``no such route``; a request without the credential gets the
service's 401. Every request is recorded in ``server.requests`` (method, path, query, headers, json,
target, key). With ``echo_key`` every page and error body repeats the credential (raw, base64 and
URL-encoded), as a careless service might — for the secret-canary tests.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from tests.providers.servers import LoopbackServer, send

SLOW_S = 30.0
"""How long the ``slow`` scenario waits before answering (tests use a 2 s deadline)."""
SCENARIOS = ("success", "target-404", "service-error", "auth", "limit", "malformed", "empty", "slow")
NOT_FOUND_MD = "# Not Found\n\nThe page you asked for does not exist."
NOT_FOUND_HTML = "<html><head><title>404</title></head><body><h1>Not Found</h1><p>No such page.</p></body></html>"
TRUNCATED = b'{"success": true, "data": {"markdown": "# Cut'


@dataclass(frozen=True)
class Reply:
    """One answer: status, body (a JSON value, or ``bytes``/``str`` sent as is), media type, headers."""

    status: int
    body: Any
    content_type: str | None = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode("utf-8")
        return json.dumps(self.body).encode("utf-8")


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    json: Any
    target: str | None = None
    key: str | None = None


class FakeService:
    """A service's documented API. Subclasses set ``type_name``, ``method`` and ``path`` and write how
    the service finds the credential and the target, and each answer."""

    type_name: str
    method = "POST"
    path: str
    page_format = "markdown"  # what ``pages`` hold for this service (zyte: html)
    extra_scenarios: Mapping[str, Callable[[Request], Reply]] = {}

    def routes(self, path: str) -> bool:
        return path == self.path

    def credential(self, request: Request) -> str | None:
        return _bearer(request)

    def target(self, request: Request) -> str | None:
        return request.json.get("url") if isinstance(request.json, dict) else None

    def base_url(self, server: LoopbackServer) -> str:
        """What the adapter's ``base_url`` option must be to reach this fake with its default path."""
        return server.url("")

    # answers
    def success(self, request: Request, page: str) -> Reply: ...
    def target_404(self, request: Request) -> Reply: ...
    def service_error(self, request: Request) -> Reply: ...
    def auth(self, key: str) -> Reply: ...
    def limit(self, request: Request) -> Reply: ...
    def empty(self, request: Request) -> Reply: ...

    def malformed(self, request: Request) -> Reply:
        return Reply(200, TRUNCATED)


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    return value.removeprefix("Bearer ") if value.startswith("Bearer ") else None


class BrightData(FakeService):
    type_name, path = "brightdata-unlocker", "/request"

    def __init__(self) -> None:
        self.extra_scenarios = {
            # the usage limit's code is documented, the status it comes with is not
            "usage-limit": lambda r: Reply(403, "usage limit reached", "text/plain", {
                "x-brd-error": "Account usage limit reached", "x-brd-error-code": "client_10100"}),
            "err-msg": lambda r: Reply(200, b"", "text/plain", {  # serp/base.py:305-308 reads x-brd-err-msg
                "x-brd-err-msg": "Target site did not answer"}),  # alone: no code header beside it
            "reject-block": lambda r: Reply(502, "", "text/plain", {
                "x-brd-error": "reject_block: the target blocked every attempt", "x-brd-err-code": "reject_block"}),
        }

    def _page(self, request: Request, page: str, target_status: int) -> Reply:
        if request.json.get("format") == "json":
            return Reply(200, {"status_code": target_status, "headers": {}, "body": page})
        return Reply(200, page, "text/plain; charset=utf-8", {"x-brd-status-code": str(target_status)})

    def success(self, request, page):
        return self._page(request, page, 200)

    def target_404(self, request):
        return self._page(request, NOT_FOUND_MD, 404)

    def service_error(self, request):  # the outer status stays 200 once unlocking started
        return Reply(200, b"", "text/plain", {"x-brd-error": "Request failed: the target did not answer in time",
                                               "x-brd-error-code": "target_timeout"})

    def auth(self, key):
        return Reply(401, f"Invalid authentication token {key}", "text/plain")

    def limit(self, request):
        return Reply(429, "Too many requests", "text/plain", {"x-brd-error": "sr_rate_limit"})

    def empty(self, request):
        return self._page(request, "", 200)


class Browserbase(FakeService):
    type_name, path = "browserbase-fetch", "/v1/fetch"

    def credential(self, request):
        return request.headers.get("x-bb-api-key")

    def _page(self, page, status, encoding="utf-8"):
        content = base64.b64encode(page.encode()).decode() if encoding == "base64" else page
        return Reply(200, {"id": "bb-fetch-1", "statusCode": status, "headers": {"content-type": "text/html"},
                           "content": content, "contentType": "text/markdown", "encoding": encoding})

    def success(self, request, page):
        last = self.target(request).rsplit("/", 1)[-1]
        return self._page(page, 200, last if last in ("base64", "UTF-8", "iso-8859-1", "punycode") else "utf-8")

    def target_404(self, request):
        return self._page(NOT_FOUND_MD, 404)

    def service_error(self, request):
        return Reply(502, {"statusCode": 502, "error": "Bad Gateway", "message": "TLS handshake with the target failed",
                           "id": "bb-fetch-err"})

    def auth(self, key):
        return Reply(401, {"statusCode": 401, "error": "Unauthorized", "message": f"invalid api key {key}"})

    def limit(self, request):
        return Reply(429, {"statusCode": 429, "error": "Too Many Requests", "message": "concurrency limit reached"})

    def empty(self, request):
        return self._page("", 200)


class DeepSeek(FakeService):
    type_name, path = "deepseek-fetch", "/v1/tools/fetch"

    def success(self, request, page):
        return Reply(200, {"title": "Fetched", "content": page})

    def target_404(self, request):
        return Reply(404, {"error": {"message": "failed to fetch URL", "type": "invalid_request_error"}})

    def service_error(self, request):
        return Reply(500, {"error": {"message": "internal error", "type": "server_error"}})

    def auth(self, key):
        return Reply(401, {"error": {"message": f"Authentication Fails, your api key {key} is invalid"}})

    def limit(self, request):
        return Reply(429, {"error": {"message": "Rate limit reached"}})

    def empty(self, request):
        return Reply(200, {"title": "", "content": ""})


class Crawl4aiCloud(FakeService):
    type_name, path = "crawl4ai-cloud", "/v1/scrape"
    _limits = {"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59"}

    def credential(self, request):
        return request.headers.get("x-api-key")

    def _answer(self, request, markdown, success=True, error=None):
        return Reply(200, {"success": success, "url": self.target(request), "markdown": markdown,
                           "fit_markdown": markdown[:40], "metadata": {"title": "Fetched"}, "duration_ms": 1840,
                           "usage": {"credits_used": 2, "credits_remaining": 98}, "error_message": error},
                     headers=self._limits)

    def success(self, request, page):
        return self._answer(request, page)

    def target_404(self, request):  # the target's status is not in the answer's model
        return self._answer(request, "", success=False, error="page returned an error status")

    def service_error(self, request):
        return Reply(500, {"detail": "Internal server error"})

    def auth(self, key):
        return Reply(401, {"detail": f"Invalid API key {key}"})

    def limit(self, request):
        return Reply(429, {"detail": "Rate limit exceeded"}, headers={**self._limits, "X-RateLimit-Remaining": "0"})

    def empty(self, request):
        return self._answer(request, "")


class Jina(FakeService):
    type_name, path = "jina-reader", "/"

    def _data(self, request, content, **extra):
        return Reply(200, {"code": 200, "status": 20000, "data": {
            "title": "Fetched", "description": "", "url": self.target(request), "content": content,
            "usage": {"tokens": 321}, **extra}})

    def _error(self, status, name, message):
        return Reply(status, {"data": None, "code": status, "name": name, "status": status * 100 + 1,
                              "message": message, "readableMessage": f"{name}: {message}"})

    def success(self, request, page):
        return self._data(request, page)

    def target_404(self, request):
        return self._data(request, NOT_FOUND_MD, warning="Target URL returned error 404: Not Found")

    def service_error(self, request):
        return self._error(503, "ServiceUnavailableError", "the service is overloaded")

    def auth(self, key):
        return self._error(401, "AuthenticationFailedError", f"invalid API key {key}")

    def limit(self, request):
        return self._error(402, "InsufficientBalanceError", "account balance is insufficient")

    def empty(self, request):
        return self._data(request, "")


class Firecrawl(FakeService):
    type_name, path = "firecrawl", "/v2/scrape"

    def __init__(self) -> None:
        self.resumed: dict[str, int] = {}
        self.extra_scenarios = {
            "scrape-timeout": lambda r: Reply(408, {"success": False, "code": "SCRAPE_TIMEOUT", "error": "the scrape timed out"}),
            # the metadata types firecrawl-py accepts (types.py:178-251; its fixture has "statusCode": "200")
            "client-types": lambda r: self._data(r, "# Fetched\n\nList-typed metadata.", "200", title=["Fetched"],
                                                 url=[r.json["url"] + "?final"], sourceURL=[r.json["url"]],
                                                 scrapeId=["fc-scrape-2"], creditsUsed="1"),
            "client-error-list": lambda r: self._data(r, "", ["404"], error=["Not Found", "gone"]),
            "not-supported": lambda r: Reply(403, {"success": False, "error": "This website is no longer supported"}),
            "terms-required": lambda r: Reply(403, {"success": False, "code": "THIRD_PARTY_DATA_TERMS_REQUIRED",
                                                    "error": "accept the data terms first"}),
            "processing-continues": self._processing_continues,
            "processing-forever": lambda r: Reply(408, {"success": False, "code": "SCRAPE_TIMEOUT", "error": "still processing",
                                                        "details": {"state": "processing_continues", "retryAfterSeconds": 0}}),
        }

    def _processing_continues(self, request):
        """408 ``processing_continues`` (auto_resume.py) on the first ask, the finished page on the next."""
        url = request.json["url"]
        self.resumed[url] = self.resumed.get(url, 0) + 1
        if self.resumed[url] == 1:
            return Reply(408, {"success": False, "code": "SCRAPE_TIMEOUT", "error": "still processing",
                               "details": {"state": "processing_continues", "retryAfterSeconds": 0}})
        return self._data(request, "# Fetched\n\nThe finished document.", 200)

    def _data(self, request, markdown, status, **extra):
        url = self.target(request)
        return Reply(200, {"success": True, "data": {"markdown": markdown, "metadata": {
            "title": "Fetched", "sourceURL": url, "url": url + "?final", "statusCode": status,
            "scrapeId": "fc-scrape-1", "creditsUsed": 1, "cacheState": "miss", **extra}}})

    def success(self, request, page):
        return self._data(request, page, 200)

    def target_404(self, request):
        return self._data(request, NOT_FOUND_MD, 404, error="Not Found")

    def service_error(self, request):
        return Reply(500, {"success": False, "code": "SCRAPE_ALL_ENGINES_FAILED", "error": "all engines failed"})

    def auth(self, key):
        return Reply(401, {"success": False, "error": f"Unauthorized: invalid token {key}"})

    def limit(self, request):
        return Reply(402, {"error": "Payment required: insufficient credits"})

    def empty(self, request):
        return self._data(request, "", 200)


class Exa(FakeService):
    type_name, path = "exa-contents", "/contents"

    def credential(self, request):
        return request.headers.get("x-api-key")

    def target(self, request):
        urls = request.json.get("urls") if isinstance(request.json, dict) else None
        return urls[0] if isinstance(urls, list) and len(urls) == 1 else None

    def _answer(self, request, results, status):
        url = self.target(request)
        return Reply(200, {"requestId": "exa-req-1", "results": results, "statuses": [{"id": url, **status}],
                           "costDollars": {"total": 0.001}})

    def success(self, request, page):
        url = self.target(request)
        return self._answer(request, [{"id": url, "url": url, "title": "Fetched", "text": page}], {"status": "success"})

    def target_404(self, request):
        return self._answer(request, [], {"status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}})

    def service_error(self, request):
        return self._answer(request, [], {"status": "error", "error": {"tag": "CRAWL_TIMEOUT", "httpStatusCode": None}})

    def auth(self, key):
        return Reply(401, {"requestId": "exa-req-2", "error": f"Invalid API key {key}", "tag": "INVALID_API_KEY"})

    def limit(self, request):
        return Reply(429, {"requestId": "exa-req-3", "error": "rate limit exceeded", "tag": "RATE_LIMIT_EXCEEDED"})

    def empty(self, request):  # filterEmptyResults (the default) drops the empty page, the status stays success
        return self._answer(request, [], {"status": "success"})


class Tavily(FakeService):
    type_name, path = "tavily-extract", "/extract"

    def target(self, request):
        return Exa.target(self, request)  # type: ignore[arg-type]

    def _answer(self, results, failed):
        return Reply(200, {"results": results, "failed_results": failed, "response_time": 1.25,
                           "usage": {"credits": 2}, "request_id": "tav-req-1"})

    def success(self, request, page):
        return self._answer([{"url": self.target(request), "title": "Fetched", "raw_content": page}], [])

    def target_404(self, request):  # the target's status is not reported
        return self._answer([], [{"url": self.target(request), "error": "Failed to fetch url"}])

    def service_error(self, request):
        return Reply(500, {"detail": {"error": "Internal server error"}})

    def auth(self, key):
        return Reply(401, {"detail": {"error": f"Unauthorized: invalid API key {key}"}})

    def limit(self, request):
        return Reply(432, {"detail": {"error": "This request exceeds your plan's set usage limit"}})

    def empty(self, request):
        return self._answer([{"url": self.target(request), "raw_content": ""}], [])


class Cloudflare(FakeService):
    type_name, path = "cloudflare-markdown", "/client/v4/accounts/{account}/browser-rendering/markdown"

    def routes(self, path):
        return path.startswith("/client/v4/accounts/") and path.endswith("/browser-rendering/markdown")

    def _envelope(self, status, code, message):
        return Reply(status, {"success": False, "errors": [{"code": code, "message": message}], "messages": [],
                              "result": None})

    def success(self, request, page):
        return Reply(200, {"success": True, "result": page}, headers={"X-Browser-Ms-Used": "812"})

    def target_404(self, request):  # not reported: the 404 page comes back as Markdown
        return Reply(200, {"success": True, "result": NOT_FOUND_MD}, headers={"X-Browser-Ms-Used": "640"})

    def service_error(self, request):
        return self._envelope(200, 10001, "Navigation timeout of 30000 ms exceeded")

    def auth(self, key):
        return self._envelope(401, 10000, f"Authentication error for token {key}")

    def limit(self, request):
        return self._envelope(429, 10429, "Rate limit exceeded")

    def empty(self, request):
        return Reply(200, {"success": True, "result": ""}, headers={"X-Browser-Ms-Used": "300"})


class Spider(FakeService):
    type_name, path = "spider", "/crawl"

    def __init__(self) -> None:
        self.extra_scenarios = {  # a crawl that went past limit 1: the start page, then a page it links to
            "several-pages": lambda r: Reply(200, self._page(r, "# Start\n\nThe page asked for.", 200).body + [
                {**self._page(r, "# Linked\n\nAnother page.", 200).body[0], "url": r.json["url"] + "/linked"}]),
        }

    def _page(self, request, content, status, error=None, cost=0.0003):
        url = self.target(request)
        page = {"url": url, "status": status, "content": content, "error": error, "costs": {"total_cost": cost},
                "duration_elasped_ms": 850}
        if request.json.get("metadata") is True:  # metadata comes back only when asked (spider_types.py:324)
            page["metadata"] = {"title": "Fetched", "final_url": url + "#final"}
        return Reply(200, [page])

    def success(self, request, page):
        return self._page(request, page, 200)

    def target_404(self, request):
        return self._page(request, NOT_FOUND_MD, 404, error="404 Not Found")

    def service_error(self, request):  # billed, inside the 200
        return self._page(request, "", None, error="request failed: connection reset", cost=0.0001)

    def auth(self, key):
        return Reply(401, {"error": f"invalid api key {key}", "status": 401})

    def limit(self, request):
        return Reply(402, {"error": "insufficient credits", "status": 402})

    def empty(self, request):
        return self._page(request, "", 200)


class ScrapingBee(FakeService):
    type_name, path, method = "scrapingbee", "/api/v1/", "GET"

    def target(self, request):
        return request.query.get("url")

    def _page(self, request, page, status):
        url = self.target(request)
        headers = {"Spb-initial-status-code": str(status), "Spb-resolved-url": url + "?resolved", "Spb-cost": "5"}
        if request.query.get("json_response") == "true":
            return Reply(200, {"body": page, "headers": {}, "cost": 5, "initial-status-code": status,
                               "resolved-url": url + "?resolved"})
        return Reply(200 if status < 400 else status, page, "text/plain; charset=utf-8", headers)

    def success(self, request, page):
        return self._page(request, page, 200)

    def target_404(self, request):
        return self._page(request, NOT_FOUND_MD, 404)

    def service_error(self, request):
        return Reply(500, {"message": "Error with your request, please try again"})

    def auth(self, key):
        return Reply(401, {"message": f"Invalid api key: {key}"})

    def limit(self, request):
        return Reply(429, {"message": "You have reached your concurrency limit"})

    def empty(self, request):
        return self._page(request, "", 200)


class Zyte(FakeService):
    type_name, path = "zyte-api", "/v1/extract"
    page_format = "html"
    charset = "windows-1252"
    """The charset the fake's site declares in its Content-Type only (httpResponseBody mode, headers asked for)."""

    def credential(self, request):
        value = request.headers.get("authorization", "")
        if not value.startswith("Basic "):
            return None
        user, _, _password = base64.b64decode(value.removeprefix("Basic ")).decode().partition(":")
        return user

    def _problem(self, status, kind, title, detail):
        return Reply(status, {"type": kind, "title": title, "status": status, "detail": detail}, "application/problem+json")

    def _page(self, request, html, status):
        url = self.target(request)
        if request.json.get("httpResponseBody"):
            body = base64.b64encode(html.encode(self.charset)).decode()  # the site's bytes, in the site's charset
            answer = {"url": url, "statusCode": status, "httpResponseBody": body}
            if request.json.get("httpResponseHeaders"):  # as the site sent them: the charset only in Content-Type
                answer["httpResponseHeaders"] = [{"name": "content-type", "value": f"text/html; charset={self.charset}"},
                                                 {"name": "Server", "value": "fake"}]
            return Reply(200, answer)
        return Reply(200, {"url": url + "?final", "statusCode": status, "browserHtml": html})

    def success(self, request, page):
        return self._page(request, page, 200)

    def target_404(self, request):
        return self._page(request, NOT_FOUND_HTML, 404)

    def service_error(self, request):
        return self._problem(520, "/download/temporary-error", "Temporary Downloading Error", "the site banned the request")

    def auth(self, key):
        return self._problem(401, "/auth/key-not-found", "Authentication Key Not Found", f"no such key {key}")

    def limit(self, request):
        return self._problem(429, "/limits/over-user-limit", "User Rate Limit Exceeded", "too many requests")

    def empty(self, request):
        return self._page(request, "", 200)


FAKES: dict[str, FakeService] = {fake.type_name: fake for fake in (
    BrightData(), Browserbase(), DeepSeek(), Crawl4aiCloud(), Jina(), Firecrawl(), Exa(), Tavily(),
    Cloudflare(), Spider(), ScrapingBee(), Zyte())}
"""Every fake by the provider type it imitates."""


def default_page(url: str, page_format: str) -> str:
    if page_format == "html":
        return f"<html><head><title>Fetched</title></head><body><h1>Fetched</h1><p>The page at {url}.</p></body></html>"
    return f"# Fetched\n\nThe page at {url}."


def fetch_and_convert(fake: FakeService, request: Request, fetch: str) -> Reply:
    """What a real service does with a URL: fetch it, convert it, answer in its own shape."""
    url = request.target or ""
    if fetch == "refuse":
        return fake.service_error(request)
    agent = {"User-Agent": f"{fake.type_name}-fetcher/1.0"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=agent), timeout=10) as answer:
            html = answer.read().decode(answer.headers.get_content_charset() or "utf-8", "replace")
    except urllib.error.HTTPError:
        return fake.target_404(request)
    except OSError:
        return fake.service_error(request)
    if fake.page_format == "html":
        return fake.success(request, html)
    from lexbench.providers.local import extract

    return fake.success(request, extract("http-markdownify", html, url, {})[0])


def fake_service(fake: FakeService, pages: Mapping[str, str] | None = None, echo_key: bool = False,
                 fetch: str | None = None) -> Callable[[BaseHTTPRequestHandler, LoopbackServer], None]:
    """The handler of a :class:`LoopbackServer` imitating ``fake`` (see the module docstring)."""
    pages = dict(pages or {})

    def handle(h: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        parts = urlsplit(h.path)
        raw = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = Request(method=h.command, path=parts.path, query={k: v[-1] for k, v in parse_qs(parts.query).items()},
                          headers={k.lower(): v for k, v in h.headers.items()}, json=body)
        if h.command != fake.method or not fake.routes(parts.path):
            server.requests.append(vars(request))
            send(h, 404, b'{"error": "no such route"}', "application/json")
            return
        request.target, request.key = fake.target(request), fake.credential(request)
        server.requests.append(vars(request))
        key = request.key or ""
        url = request.target or ""
        scenario = url.rstrip("/").rsplit("/", 1)[-1]
        if (not key and fake.type_name != "jina-reader") or key.startswith("rejected-") or scenario == "auth":
            reply = fake.auth(key)
        elif scenario == "slow":
            if server.stopping.wait(SLOW_S):
                return
            reply = fake.success(request, pages.get(url) or default_page(url, fake.page_format))
        elif scenario in ("target-404", "service-error", "limit", "malformed", "empty"):
            reply = getattr(fake, scenario.replace("-", "_"))(request)
        elif scenario in fake.extra_scenarios:
            reply = fake.extra_scenarios[scenario](request)
        elif fetch:
            reply = fetch_and_convert(fake, request, fetch)
        else:
            reply = fake.success(request, pages.get(url) or default_page(url, fake.page_format))
        payload = reply.payload()
        if echo_key and key:
            echo = f"\n\nDebug: key {key}, {base64.b64encode(key.encode()).decode()}, {quote(key, safe='')}"
            payload = _with_echo(payload, reply, echo)
        send(h, reply.status, payload, reply.content_type, reply.headers)

    return handle


def _with_echo(payload: bytes, reply: Reply, echo: str) -> bytes:
    """The payload with ``echo`` appended to its longest string (JSON) or to its text."""
    if isinstance(reply.body, (bytes, str)):
        return payload + echo.encode()
    strings: list[tuple[Any, Any, str]] = []

    def walk(value: Any) -> None:
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for k, v in items:
            if isinstance(v, str):
                strings.append((value, k, v))
            else:
                walk(v)

    body = json.loads(payload)
    walk(body)
    if strings:
        container, k, v = max(strings, key=lambda s: len(s[2]))
        container[k] = v + echo
    return json.dumps(body).encode()


def serve(type_name: str, pages: Mapping[str, str] | None = None, echo_key: bool = False,
          fetch: str | None = None) -> LoopbackServer:
    """A loopback server (not started: use it as a context manager) imitating the service of ``type_name``
    (``fetch``: ``"fetch"`` or ``"refuse"``, see the module docstring)."""
    return LoopbackServer(fake_service(FAKES[type_name], pages, echo_key, fetch))
