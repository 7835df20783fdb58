"""Firecrawl v2: ``POST /v2/scrape``, Markdown, ``maxAge: 0`` for a fresh fetch (SPEC §5).

Request: ``Authorization: Bearer``, body ``{url, formats: ["markdown"], onlyMainContent, maxAge, proxy?,
waitFor?}`` — v2 serves a cached copy up to two days old unless ``maxAge`` is 0. Answer ``{success,
data: {markdown, metadata: {title, sourceURL, url, statusCode, error, scrapeId, creditsUsed,
cacheState}}}``: ``statusCode`` is the target's status, ``url`` the final URL, ``scrapeId`` the request
id, ``creditsUsed`` the cost. ``success: false`` or ``metadata.error`` with a 2xx target is a
``service_error``. Errors: 402 ``{error}`` (``quota``), 429 (``rate_limited``), 408 ``{success: false,
code: "SCRAPE_TIMEOUT"}`` and 500 ``{success: false, code, error}`` (``service_error``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.providers.hosted.base import HostedProvider, json_body, member, number, status_code
from lexbench.providers.http import HttpRequest, HttpResponse
from lexbench.providers.result import ErrorType, ProviderResult, ResultMetadata


class Firecrawl(HostedProvider):
    """Firecrawl scrape (v2). Options: ``api_key``, ``only_main_content``, ``max_age_ms`` (default 0),
    ``proxy`` (``basic`` | ``enhanced`` | ``auto``), ``wait_for_ms``, ``base_url``, ``path``."""

    type_name = "firecrawl"
    default_base_url = "https://api.firecrawl.dev"
    default_path = "/v2/scrape"
    options_schema = {"api_key": str, "only_main_content": bool, "max_age_ms": int,
                      "proxy": ("basic", "enhanced", "auto"), "wait_for_ms": int}
    defaults = {"only_main_content": True, "max_age_ms": 0}
    status_errors = {408: ErrorType.SERVICE_ERROR}  # SCRAPE_TIMEOUT: the service gave up, not our deadline

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body: dict[str, Any] = {"url": url, "formats": ["markdown"], "onlyMainContent": options["only_main_content"],
                                "maxAge": options["max_age_ms"]}
        if options.get("proxy"):
            body["proxy"] = options["proxy"]
        if options.get("wait_for_ms"):
            body["waitFor"] = options["wait_for_ms"]
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        meta = member(body, "data.metadata", dict, optional=True) or {}
        credits = number(member(meta, "creditsUsed", float, optional=True))
        billing = {k: meta[k] for k in ("creditsUsed", "cacheState") if meta.get(k) is not None}
        upstream = status_code(member(meta, "statusCode", int, optional=True))
        metadata = ResultMetadata(upstream_status=upstream, request_id=member(meta, "scrapeId", str, optional=True),
                                  billing=billing, cost=credits, cost_unit="credits" if credits is not None else None)
        fields = {"title": member(meta, "title", str, optional=True), "final_url": member(meta, "url", str, optional=True),
                  "metadata": metadata}
        content = member(body, "data.markdown", str, optional=True) or ""
        error = member(meta, "error", str, optional=True)
        if member(body, "success", bool) is False or (error and (upstream is None or 200 <= upstream < 300)):
            reason = error or member(body, "error", str, optional=True) or "success: false"
            return self.reported_failure(ErrorType.SERVICE_ERROR, f"Firecrawl reported failure: {reason}",
                                         response, content, **fields)
        return self.answer(content, "markdown", **fields)
