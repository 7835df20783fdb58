"""Bright Data Web Unlocker: ``POST /request`` with the target URL, raw Markdown back (SPEC §5).

Request: ``Authorization: Bearer ${BRIGHTDATA_API_TOKEN}``, body ``{zone, url, format, data_format:
"markdown", country?}``. With ``format: "raw"`` (the default) the body *is* the Markdown; with
``"json"`` it is ``{status_code, headers, body}``. The target's status comes from the
``x-brd-status-code`` header (or ``status_code`` in JSON format). Once unlocking starts the API answers
200 even when it failed: an ``x-brd-error`` or ``x-brd-err-msg`` header then carries the reason
(``x-brd-error-code`` or ``x-brd-err-code`` its code; the official client reads all of them) and the call is a ``service_error``; error code ``client_10100`` (usage
limit) is ``quota`` whatever the status. 502 (``reject_block``, ``resolve_failed_*``) is a
``service_error``, 429 (``sr_rate_limit``) ``rate_limited``, 401 ``auth``, 400 (bad zone or URL) ``api_status``.

``render`` and ``debug`` ask for rendering and Bright Data's native debug output. Their wire fields are
not in the documentation this adapter was written from: they are sent as body booleans of the same
names (``unverified``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.hosted.base import HostedProvider, json_body, member, status_code
from lexbench.providers.http import HttpRequest, HttpResponse

USAGE_LIMIT_CODES = frozenset({"client_10100"})
"""Bright Data error codes that mean the account's usage limit was reached (→ ``quota``)."""


class BrightDataUnlocker(HostedProvider):
    """Bright Data Web Unlocker API. Options: ``api_key``, ``zone`` (the Unlocker zone; a placeholder
    too), ``format`` (``raw`` | ``json``), ``country``, ``render``, ``debug``, ``base_url``, ``path``."""

    type_name = "brightdata-unlocker"
    default_base_url = "https://api.brightdata.com"
    default_path = "/request"
    options_schema = {"api_key": str, "zone": str, "format": ("raw", "json"), "country": str, "render": bool,
                      "debug": bool}
    defaults = {"format": "raw", "render": False, "debug": False}
    required_options = frozenset({"api_key", "zone"})
    unverified = ("the wire fields of render and debug (sent as body booleans of those names)",
                  "the HTTP status that accompanies error code client_10100")

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body: dict[str, Any] = {"zone": options["zone"], "url": url, "format": options["format"],
                                "data_format": "markdown"}
        if options.get("country"):
            body["country"] = options["country"]
        if options["render"]:
            body["render"] = True
        if options["debug"]:
            body["debug"] = True
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        failed = super().api_failure(response)
        if failed is None:
            return None
        error, code = _brd_error(response)
        updates: dict[str, Any] = {"metadata": failed.metadata.model_copy(update={
            "upstream_status": status_code(response.header("x-brd-status-code"))})}
        if code in USAGE_LIMIT_CODES:
            updates["error_type"] = ErrorType.QUOTA
        if error or code:
            updates["error_message"] = f"{failed.error_message} (x-brd-error: {error or '-'}, code {code or '-'})"
        return failed.model_copy(update=updates)

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        error, code = _brd_error(response)
        upstream = status_code(response.header("x-brd-status-code"))
        content = response.text()
        if self.setting("format") == "json":
            body = json_body(response)
            upstream = status_code(member(body, "status_code", int, optional=True)) or upstream
            content = member(body, "body", str)
        metadata = ResultMetadata(upstream_status=upstream)
        if code in USAGE_LIMIT_CODES:
            return self.reported_failure(ErrorType.QUOTA, f"Bright Data's usage limit was reached ({code}: {error})",
                                         response, content, metadata=metadata)
        if error or code:
            return self.reported_failure(
                ErrorType.SERVICE_ERROR,
                f"Bright Data answered 200 but reported an error: {error or '-'} (code {code or '-'})",
                response, content, metadata=metadata)
        return self.answer(content, "markdown", metadata=metadata)


def _brd_error(response: HttpResponse) -> tuple[str | None, str | None]:
    code = response.header("x-brd-error-code") or response.header("x-brd-err-code")
    return response.header("x-brd-error") or response.header("x-brd-err-msg"), code
