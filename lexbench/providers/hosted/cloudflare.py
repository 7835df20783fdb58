"""Cloudflare Browser Rendering: ``POST …/accounts/{account_id}/browser-rendering/markdown`` (SPEC §5).

The URL goes to the service directly; nothing is downloaded by the harness. Request: ``Authorization:
Bearer``, query ``cacheTTL`` (default 0: no cached copy), body ``{url, gotoOptions?, waitForSelector?,
rejectResourceTypes?}``. Answer ``{success: true, result: "<markdown>"}``; the ``X-Browser-Ms-Used``
header is the billed browser time (``cost`` in ``browser_ms``). The target's status is not reported: a
target error page comes back as its Markdown and is judged by its content. Errors use the v4 envelope
``{success: false, errors: [{code, message}]}`` (a ``service_error`` inside a 200 too; the envelope's use
by this endpoint is secondary evidence).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.hosted.base import HostedProvider, json_body, member, number
from lexbench.providers.http import HttpRequest, HttpResponse


class CloudflareMarkdown(HostedProvider):
    """Cloudflare Browser Rendering ``/markdown``. Options: ``api_key``, ``account_id`` (a placeholder
    too; fills ``{account_id}`` in ``path``), ``cache_ttl_s``, ``goto_options``, ``wait_for_selector``,
    ``reject_resource_types``, ``base_url``, ``path``."""

    type_name = "cloudflare-markdown"
    default_base_url = "https://api.cloudflare.com"
    default_path = "/client/v4/accounts/{account_id}/browser-rendering/markdown"
    options_schema = {"api_key": str, "account_id": str, "cache_ttl_s": int, "goto_options": dict,
                      "wait_for_selector": dict, "reject_resource_types": list}
    defaults = {"cache_ttl_s": 0}
    unverified = ("the v4 error envelope on this endpoint (secondary evidence)",)

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        super().validate_options(options)
        if "{account_id}" in options.get("path", cls.default_path) and "account_id" not in options:
            raise ValueError("option account_id is required (e.g. \"${CLOUDFLARE_ACCOUNT_ID}\")")

    def endpoint(self, options: Mapping[str, Any]) -> str:
        path = super().endpoint(options).replace("{account_id}", quote(str(options.get("account_id", "")), safe=""))
        return f"{path}?cacheTTL={options['cache_ttl_s']}"

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body: dict[str, Any] = {"url": url}
        for option, field in (("goto_options", "gotoOptions"), ("wait_for_selector", "waitForSelector"),
                              ("reject_resource_types", "rejectResourceTypes")):
            if options.get(option):
                body[field] = options[option]
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        used = number(response.header("x-browser-ms-used"), "X-Browser-Ms-Used header")
        metadata = ResultMetadata(billing={"browser_ms_used": used} if used is not None else {},
                                  cost=used, cost_unit="browser_ms" if used is not None else None)
        if member(body, "success", bool) is False:
            errors = member(body, "errors", list, optional=True) or []
            reason = "; ".join(f"{e.get('code')}: {e.get('message')}" for e in errors if isinstance(e, dict)) or "no errors listed"
            return self.reported_failure(ErrorType.SERVICE_ERROR, f"Cloudflare reported failure: {reason}", response,
                                         metadata=metadata)
        return self.answer(member(body, "result", str), "markdown", metadata=metadata)
