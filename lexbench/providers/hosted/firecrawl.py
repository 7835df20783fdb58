"""Firecrawl v2: ``POST /v2/scrape``, Markdown, ``maxAge: 0`` for a fresh fetch (SPEC §5).

Request: ``Authorization: Bearer``, body ``{url, formats: ["markdown"], onlyMainContent, maxAge, proxy?,
waitFor?}`` — v2 serves a cached copy up to two days old unless ``maxAge`` is 0. Answer ``{success,
data: {markdown, metadata: {title, sourceURL, url, statusCode, error, scrapeId, creditsUsed,
cacheState}}}``: ``statusCode`` is the target's status, ``url`` the final URL, ``scrapeId`` the request
id, ``creditsUsed`` the cost. ``success: false`` or ``metadata.error`` with a 2xx target is a
``service_error``. Metadata is read as the official client (firecrawl-py 4.55) accepts it:
``title``, ``url``, ``sourceURL``, ``scrapeId``, ``error`` may arrive as lists (one item → that item,
more → joined with ", "), ``statusCode`` and ``creditsUsed`` as strings or lists (the first item).
Errors: 402 ``{error}`` (``quota``), 429 (``rate_limited``), 403 "website not supported" (a provider
failure: ``service_error``; the client's ``THIRD_PARTY_DATA_TERMS_REQUIRED`` code is the operator's to
accept: ``auth``), 500 ``{success: false, code, error}`` (``service_error``). A 408 ``{code:
"SCRAPE_TIMEOUT", details: {state: "processing_continues", retryAfterSeconds}}`` means the work goes on:
the same request is sent again after ``retryAfterSeconds`` (else ``Retry-After``, else 60 s; clamped to
5 s–10 min, as the client's ``auto_resume``), when that fits the call's deadline; any other 408 is the
service giving up (``service_error``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, bounded, json_body, member, number, status_code
from lexbench.providers.http import HttpRequest, HttpResponse


class Firecrawl(HostedProvider):
    """Firecrawl scrape (v2). Options: ``api_key``, ``only_main_content``, ``max_age_ms`` (default 0),
    ``proxy`` (``basic`` | ``enhanced`` | ``auto``), ``wait_for_ms``, ``base_url``, ``path``."""

    type_name = "firecrawl"
    default_base_url = "https://api.firecrawl.dev"
    default_path = "/v2/scrape"
    options_schema = {"api_key": str, "only_main_content": bool, "max_age_ms": int,
                      "proxy": ("basic", "enhanced", "auto"), "wait_for_ms": int}
    defaults = {"only_main_content": True, "max_age_ms": 0}
    # SCRAPE_TIMEOUT: the service gave up, not our deadline; 403: "website not supported" (firecrawl-py)
    status_errors = {408: ErrorType.SERVICE_ERROR, 403: ErrorType.SERVICE_ERROR}

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body: dict[str, Any] = {"url": url, "formats": ["markdown"], "onlyMainContent": options["only_main_content"],
                                "maxAge": options["max_age_ms"]}
        if options.get("proxy"):
            body["proxy"] = options["proxy"]
        if options.get("wait_for_ms"):
            body["waitFor"] = options["wait_for_ms"]
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"Authorization": f"Bearer {options['api_key']}"})

    def resend_after(self, response: HttpResponse) -> float | None:
        """The client's ``processing_continues`` wait for a 408 ``SCRAPE_TIMEOUT``; ``None`` otherwise.
        A wait that is not a number from 0 to :data:`~lexbench.providers.hosted.base.MAX_NUMBER` (the
        client's fixture has ``10**400``) raises :class:`FetchError` ``malformed_response``."""
        if response.status != 408:
            return None
        try:
            body = json_body(response)
        except FetchError:
            return None
        details = body.get("details") if isinstance(body, dict) else None
        if not isinstance(details, dict) or body.get("code") != "SCRAPE_TIMEOUT" or details.get("state") != "processing_continues":
            return None
        seconds = number(details.get("retryAfterSeconds"), "'details.retryAfterSeconds'")
        if seconds is None:
            seconds = number(response.header("retry-after"), "Retry-After header")
        return min(RESUME_MAX_DELAY_S, max(RESUME_MIN_DELAY_S, 60.0 if seconds is None else seconds))

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        failed = super().api_failure(response)
        if failed is not None and response.status == 403 and _code(response) == TERMS_REQUIRED:
            return failed.model_copy(update={"error_type": ErrorType.AUTH})
        return failed

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        meta = member(body, "data.metadata", dict, optional=True) or {}
        credits = number(_single(member(meta, "creditsUsed", (float, str, list), optional=True)),
                         "'data.metadata.creditsUsed'")
        billing = bounded({k: meta[k] for k in ("creditsUsed", "cacheState") if meta.get(k) is not None}, "billing")
        upstream = status_code(_single(member(meta, "statusCode", (int, str, list), optional=True)))
        metadata = ResultMetadata(upstream_status=upstream, request_id=_text(meta, "scrapeId"), billing=billing,
                                  cost=credits, cost_unit="credits" if credits is not None else None)
        fields = {"title": _text(meta, "title"), "final_url": _text(meta, "url"), "metadata": metadata}
        content = member(body, "data.markdown", str, optional=True) or ""
        error = _text(meta, "error")
        if member(body, "success", bool) is False or (error and (upstream is None or 200 <= upstream < 300)):
            reason = error or member(body, "error", str, optional=True) or "success: false"
            return self.reported_failure(ErrorType.SERVICE_ERROR, f"Firecrawl reported failure: {reason}",
                                         response, content, **fields)
        return self.answer(content, "markdown", **fields)


RESUME_MIN_DELAY_S, RESUME_MAX_DELAY_S = 5.0, 600.0
"""The bounds firecrawl-py's ``auto_resume`` puts on a ``processing_continues`` wait."""
TERMS_REQUIRED = "THIRD_PARTY_DATA_TERMS_REQUIRED"


def _text(meta: dict[str, Any], name: str) -> str | None:
    """A single-string metadata field as the client coerces it: a list of one → that item, of more → joined."""
    value = member(meta, name, (str, list), optional=True)
    if isinstance(value, list):
        return str(value[0]) if len(value) == 1 else ", ".join(map(str, value)) or None
    return value


def _single(value: Any) -> Any:
    """A numeric field that may arrive as a list: its first item, as the client reads it."""
    return (value[0] if value else None) if isinstance(value, list) else value


def _code(response: HttpResponse) -> str | None:
    try:
        body = json_body(response)
    except FetchError:
        return None
    return body.get("code") if isinstance(body, dict) else None
