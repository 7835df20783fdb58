"""Spider: ``POST /crawl`` with ``limit: 1`` and ``return_format: "markdown"`` (SPEC §5).

Request: ``Authorization: Bearer``, body ``{url, limit: 1, return_format: "markdown", metadata: true,
request}`` (``http`` | ``chrome`` | ``browser`` | ``smart``; ``chrome`` is a deprecated alias of
``browser``). The route is the official client's scrape helper (spider-client 0.1.93 ``scrape_url``
posts to ``/crawl`` with ``limit: 1``); title and final URL come back only with ``metadata: true``. Answer: a JSON array of ``{url, status, content, error, costs: {total_cost},
duration_elasped_ms (sic), metadata: {title, final_url}}``. ``status`` is the target's status; target
errors arrive inside the array (and are billed): an ``error`` without a non-2xx status is a
``service_error``. Should the crawl answer more pages than ``limit: 1``, the first (the start page, the URL
asked for) is read and the cost is every page's, each being billed (``billing.pages`` counts them).
API errors are ``{error, status}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, bounded, json_body, member, number, status_code
from lexbench.providers.http import HttpRequest, HttpResponse


class Spider(HostedProvider):
    """Spider scrape. Options: ``api_key``, ``request`` (``http`` | ``chrome`` | ``browser`` | ``smart``),
    ``base_url``, ``path``."""

    type_name = "spider"
    default_base_url = "https://api.spider.cloud"
    default_path = "/crawl"
    options_schema = {"api_key": str, "request": ("http", "chrome", "browser", "smart")}
    defaults = {"request": "smart"}
    unverified = ("the unit of costs.total_cost (recorded as usd)",)

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body = {"url": url, "limit": 1, "return_format": "markdown", "metadata": True, "request": options["request"]}
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def engine(self, options: Mapping[str, Any]) -> str:
        return f"spider/{options['request']}"

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        if not isinstance(body, list) or not body or not isinstance(body[0], dict):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "Spider's answer is not a non-empty array of page objects")
        page = body[0]  # the crawl starts at the URL asked for: with limit 1 it is the only page
        costs = [number(member(p, "costs.total_cost", float, optional=True), "'costs.total_cost'") for p in body if isinstance(p, dict)]
        total = sum(c for c in costs if c is not None) if any(c is not None for c in costs) else None
        elapsed = number(member(page, "duration_elasped_ms", float, optional=True), "'duration_elasped_ms'")
        upstream = status_code(member(page, "status", int, optional=True))
        metadata = ResultMetadata(upstream_status=upstream,
                                  server_elapsed_s=elapsed / 1000 if elapsed is not None else None,
                                  billing={"costs": bounded(page.get("costs"), "'costs'"), "pages": len(body)} if total is not None else {},
                                  cost=total, cost_unit="usd" if total is not None else None)
        fields = {"title": member(page, "metadata.title", str, optional=True),
                  "final_url": member(page, "metadata.final_url", str, optional=True), "metadata": metadata}
        content = member(page, "content", str, optional=True) or ""
        error = member(page, "error", str, optional=True)
        if error and (upstream is None or 200 <= upstream < 300):
            return self.reported_failure(ErrorType.SERVICE_ERROR, f"Spider reported: {error}", response, content,
                                         **fields)
        return self.answer(content, "markdown", **fields)
