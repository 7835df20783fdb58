"""Tavily extract: ``POST /extract`` with one URL, Markdown back (SPEC §5).

Request: ``Authorization: Bearer``, body ``{urls: [url], extract_depth, format: "markdown",
include_usage: true, timeout?}``. Answer ``{results: [{url, title, raw_content}], failed_results: [{url,
error}], response_time, usage: {credits}, request_id}``. A URL in ``failed_results`` is a
``service_error`` (the target's status is not reported). Errors are ``{detail: {error}}`` with
400/401/403/429 and Tavily's own 432 and 433 (plan and pay-as-you-go usage limits: ``quota``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, json_body, member, number
from lexbench.providers.http import HttpRequest, HttpResponse


class TavilyExtract(HostedProvider):
    """Tavily extract. Options: ``api_key``, ``extract_depth`` (``basic`` | ``advanced``), ``timeout_s``,
    ``base_url``, ``path``."""

    type_name = "tavily-extract"
    default_base_url = "https://api.tavily.com"
    default_path = "/extract"
    options_schema = {"api_key": str, "extract_depth": ("basic", "advanced"), "timeout_s": float}
    defaults = {"extract_depth": "advanced"}
    status_errors = {432: ErrorType.QUOTA, 433: ErrorType.QUOTA}
    unverified = ("432/433 as usage limits (their meaning is from Tavily's error list, not the API reference)",)

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body: dict[str, Any] = {"urls": [url], "extract_depth": options["extract_depth"], "format": "markdown",
                                "include_usage": True}
        if options.get("timeout_s"):
            body["timeout"] = options["timeout_s"]
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def engine(self, options: Mapping[str, Any]) -> str:
        return f"tavily-extract/{options['extract_depth']}"

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        results = member(body, "results", list)
        failures = member(body, "failed_results", list, optional=True) or []
        credits = number(member(body, "usage.credits", float, optional=True), "'usage.credits'")
        metadata = ResultMetadata(request_id=member(body, "request_id", str, optional=True),
                                  server_elapsed_s=number(member(body, "response_time", float, optional=True), "'response_time'"),
                                  billing={"credits": credits} if credits is not None else {},
                                  cost=credits, cost_unit="credits" if credits is not None else None)
        if failures:
            failure = failures[0] if isinstance(failures[0], dict) else {}
            return self.reported_failure(ErrorType.SERVICE_ERROR,
                                         f"Tavily could not extract the URL: {failure.get('error') or 'no reason given'}",
                                         response, metadata=metadata)
        if not results or not isinstance(results[0], dict):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "Tavily answered with neither a result nor a failure for the URL")
        return self.answer(member(results[0], "raw_content", str, optional=True) or "", "markdown",
                           title=member(results[0], "title", str, optional=True) or None,
                           final_url=member(results[0], "url", str, optional=True), metadata=metadata)
