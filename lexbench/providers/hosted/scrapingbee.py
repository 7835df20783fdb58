"""ScrapingBee: ``GET /api/v1/?url=…&return_page_markdown=true`` (SPEC §5).

The key travels in an ``Authorization: Bearer`` header, as the official client (scrapingbee 2.2) sends
it ("previously the api_key query parameter"), so it stays out of URLs. The body *is* the Markdown; the target's status is the ``Spb-initial-status-code``
header, the final URL ``Spb-resolved-url``, the cost (credits) ``Spb-cost``. With ``json_response: true``
the answer is ``{body, headers, cost, "initial-status-code", "resolved-url"}`` instead. A non-2xx answer
that carries ``Spb-initial-status-code`` is the target's failure passed through (``upstream_status``,
content kept); otherwise the status is the API's own (401 ``auth``, 429 plan concurrency
``rate_limited``, 5xx ``service_error``). The request matches the official client; the three ``Spb-``
headers are first-party; the JSON answer is from secondary evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.hosted.base import HostedProvider, json_body, member, number, status_code
from lexbench.providers.http import HttpRequest, HttpResponse


class ScrapingBee(HostedProvider):
    """ScrapingBee HTML API with Markdown output. Options: ``api_key``, ``render_js``, ``premium_proxy``,
    ``json_response``, ``base_url``, ``path``."""

    type_name = "scrapingbee"
    default_base_url = "https://app.scrapingbee.com"
    default_path = "/api/v1/"
    options_schema = {"api_key": str, "render_js": bool, "premium_proxy": bool, "json_response": bool}
    defaults = {"render_js": True, "premium_proxy": False, "json_response": False}
    unverified = ("the JSON answer (secondary evidence)",
                  "a target error passed through as the API status")

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        query = {"url": url, "return_page_markdown": "true", "render_js": _flag(options["render_js"])}
        if options["premium_proxy"]:
            query["premium_proxy"] = "true"
        if options["json_response"]:
            query["json_response"] = "true"
        return HttpRequest("GET", f"{self.endpoint(options)}?{urlencode(query)}",
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def engine(self, options: Mapping[str, Any]) -> str:
        return "scrapingbee/js" if options["render_js"] else "scrapingbee/http"

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        failed = super().api_failure(response)
        upstream = status_code(response.header("spb-initial-status-code"))
        if failed is None or upstream is None:
            return failed
        return ProviderResult.failure(
            ErrorType.UPSTREAM_STATUS, f"the target answered HTTP {upstream} (ScrapingBee passed it on as {response.status})",
            content=response.text(), content_format="markdown", final_url=response.header("spb-resolved-url"),
            metadata=failed.metadata.model_copy(update={"upstream_status": upstream, **_cost(response.header("spb-cost"))}))

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        upstream = status_code(response.header("spb-initial-status-code"))
        final_url, cost = response.header("spb-resolved-url"), response.header("spb-cost")
        content = response.text()
        if self.setting("json_response"):
            body = json_body(response)
            content = member(body, "body", str)
            upstream = status_code(body.get("initial-status-code")) or upstream
            final_url = member(body, "resolved-url", str, optional=True) or final_url
            cost = body.get("cost", cost)
        return self.answer(content, "markdown", final_url=final_url,
                           metadata=ResultMetadata(upstream_status=upstream, **_cost(cost)))


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _cost(value: Any) -> dict[str, Any]:
    cost = number(value, "cost")
    return {"cost": cost, "cost_unit": "credits", "billing": {"spb_cost": cost}} if cost is not None else {}
