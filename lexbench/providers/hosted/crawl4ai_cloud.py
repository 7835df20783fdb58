"""Crawl4AI Cloud: ``POST /v1/scrape``, Markdown, browser strategy, residential proxy (SPEC §5).

Distinct from the local ``crawl4ai`` worker: the service's browser and cleaning differ, and results of
one are never relabelled as the other. Request: ``X-API-Key``, body ``{url, strategy, fit, proxy: {mode},
bypass_cache}`` (``include`` is not sent). Answer ``{success, url, markdown, fit_markdown, metadata,
duration_ms, usage: {credits_used, credits_remaining}, error_message}``: ``success: false`` is a
``service_error`` with ``error_message``; ``fit: true`` scores ``fit_markdown`` instead of ``markdown``.
The target's status is not in the answer's model (``upstream_status`` stays unknown). Errors are
``{"detail": ...}`` with 400/401/403/404/422/429/500/503/504; the ``X-RateLimit-*`` headers are kept
in ``billing.rate_limit``. The residential proxy adds provider charges; the policy is fixed per
configuration, never switched in response to scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.hosted.base import HostedProvider, bounded, json_body, member, number
from lexbench.providers.http import HttpRequest, HttpResponse


class Crawl4aiCloud(HostedProvider):
    """Crawl4AI Cloud scrape. Options: ``api_key``, ``strategy`` (``browser`` | ``http``), ``proxy_mode``
    (``datacenter`` | ``residential`` | ``auto``), ``fit``, ``bypass_cache``, ``base_url``, ``path``."""

    type_name = "crawl4ai-cloud"
    default_base_url = "https://api.crawl4ai.com"
    default_path = "/v1/scrape"
    options_schema = {"api_key": str, "strategy": ("browser", "http"),
                      "proxy_mode": ("datacenter", "residential", "auto"), "fit": bool, "bypass_cache": bool}
    defaults = {"strategy": "browser", "proxy_mode": "residential", "fit": False, "bypass_cache": True}

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body = {"url": url, "strategy": options["strategy"], "fit": options["fit"],
                "proxy": {"mode": options["proxy_mode"]}, "bypass_cache": options["bypass_cache"]}
        return HttpRequest("POST", self.endpoint(options), json=body, headers={"X-API-Key": options["api_key"]})

    def engine(self, options: Mapping[str, Any]) -> str:
        return f"crawl4ai-cloud/{options.get('strategy', self.defaults['strategy'])}"

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        failed = super().api_failure(response)
        if failed is None:
            return None
        return failed.model_copy(update={"metadata": failed.metadata.model_copy(
            update={"billing": _rate_limit(response)})})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        usage = member(body, "usage", dict, optional=True) or {}
        duration = number(member(body, "duration_ms", float, optional=True), "'duration_ms'")
        billing = {**({"usage": bounded(usage, "'usage'")} if usage else {}), **_rate_limit(response)}
        meta = member(body, "metadata", dict, optional=True) or {}
        metadata = ResultMetadata(
            server_elapsed_s=duration / 1000 if duration is not None else None,
            billing=billing, cost=number(usage.get("credits_used"), "'usage.credits_used'"),
            cost_unit="credits" if usage.get("credits_used") is not None else None)
        fields: dict[str, Any] = {"final_url": member(body, "url", str, optional=True),
                                  "title": meta.get("title") if isinstance(meta.get("title"), str) else None,
                                  "metadata": metadata}
        key = "fit_markdown" if self.setting("fit") else "markdown"
        if member(body, "success", bool) is False:
            message = member(body, "error_message", str, optional=True) or "no error_message"
            return self.reported_failure(ErrorType.SERVICE_ERROR, f"Crawl4AI Cloud reported failure: {message}",
                                         response, member(body, key, str, optional=True) or "", **fields)
        return self.answer(member(body, key, str, optional=True) or "", "markdown", **fields)


def _rate_limit(response: HttpResponse) -> dict[str, Any]:
    limits = {name.lower(): value for name, value in response.headers.items() if name.lower().startswith("x-ratelimit-")}
    return {"rate_limit": limits} if limits else {}
