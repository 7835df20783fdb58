"""DeepSeek fetch: ``POST /v1/tools/fetch`` with the URL only; content and title kept (SPEC §5).

Verified: the route and ``Authorization: Bearer``; the body is ``{url}`` and nothing else. From
secondary evidence only: the answer ``{title, content}`` (Markdown); a failed target fetch answered as
API 404 "failed to fetch URL" (a ``service_error``: the target's own status is not reported, so
``upstream_status`` stays unknown); 429 at 25 requests a second per account; billing per successful
request (not reported in the answer, so no cost is recorded).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult
from lexbench.providers.hosted.base import HostedProvider, json_body, member
from lexbench.providers.http import HttpRequest, HttpResponse


class DeepSeekFetch(HostedProvider):
    """DeepSeek fetch tool. Options: ``api_key``, ``base_url``, ``path``; the request carries the URL only."""

    type_name = "deepseek-fetch"
    default_base_url = "https://api.deepseek.com"
    default_path = "/v1/tools/fetch"
    options_schema = {"api_key": str}
    unverified = ("the answer {title, content} (secondary evidence)",
                  "a failed target fetch answered as API 404 'failed to fetch URL' (secondary evidence)")

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        return HttpRequest("POST", self.endpoint(options), json={"url": url},
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        failed = super().api_failure(response)
        if failed is not None and response.status == 404:
            # The service's way of saying it could not fetch the target; not the target's status.
            return failed.model_copy(update={
                "error_type": ErrorType.SERVICE_ERROR,
                "error_message": f"DeepSeek could not fetch the target (API 404; the target's own status is not "
                                 f"reported): {failed.error_message}"})
        return failed

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        content = member(body, "content", str)
        return self.answer(content, "markdown", title=member(body, "title", str, optional=True))
