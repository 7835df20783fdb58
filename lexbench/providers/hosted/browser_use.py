"""Browser Use fetch: the seed's ``/fetch`` route on the Browser Use API — **unverified** (SPEC §5).

Verified: the API base ``https://api.browser-use.com/api/v2`` and the ``X-Browser-Use-API-Key`` header.
Not verified: any public fetch/Markdown endpoint. This adapter implements the seed's route (``/fetch``:
Markdown, a fresh session, a US proxy, no Agent) with every unverified part configurable — ``path``, the
body's proxy field — and reads the answer tolerantly: a JSON object whose Markdown is in ``markdown`` or
``content`` (title ``title``, final URL ``url``/``finalUrl``, target status ``statusCode``/``status_code``,
request id ``id``/``requestId``), or a ``text/markdown``/``text/plain`` body. Anything else is
``malformed_response``, so a changed API fails visibly instead of scoring a wrong field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.providers.hosted.base import HostedProvider, json_body, member, status_code
from lexbench.providers.http import HttpRequest, HttpResponse
from lexbench.providers.policy import FetchError
from lexbench.providers.result import ErrorType, ProviderResult, ResultMetadata

_TEXT_TYPES = ("text/markdown", "text/plain", "text/x-markdown")


class BrowserUseFetch(HostedProvider):
    """Browser Use fetch (unverified route). Options: ``api_key``, ``proxy_country_code`` (default ``us``;
    ``""`` sends none), ``base_url``, ``path``."""

    type_name = "browser-use-fetch"
    default_base_url = "https://api.browser-use.com/api/v2"
    default_path = "/fetch"
    options_schema = {"api_key": str, "proxy_country_code": str}
    defaults = {"proxy_country_code": "us"}
    unverified = ("the /fetch route and its request body {url, format, proxyCountryCode}",
                  "the answer's fields (markdown/content, title, url, statusCode, id)",
                  "how a target error or a failed fetch is reported")

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body: dict[str, Any] = {"url": url, "format": "markdown"}
        if options["proxy_country_code"]:
            body["proxyCountryCode"] = options["proxy_country_code"]
        return HttpRequest("POST", self.endpoint(options), json=body,
                           headers={"X-Browser-Use-API-Key": options["api_key"]})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        if response.content_type in _TEXT_TYPES:
            return self.answer(response.text(), "markdown")
        body = json_body(response)
        if not isinstance(body, dict):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "the Browser Use answer is not a JSON object")
        content = _first(body, ("markdown", "content"), str)
        if content is None:
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "the Browser Use answer has neither 'markdown' nor "
                             "'content' (the fetch route is unverified: check its path and answer)")
        upstream = status_code(_first(body, ("statusCode", "status_code"), (int, str)))
        request_id = _first(body, ("id", "requestId"), str)
        metadata = ResultMetadata(upstream_status=upstream, request_id=request_id)
        title, final_url = _first(body, ("title",), str), _first(body, ("finalUrl", "url"), str)
        error = _first(body, ("error",), (str, dict))
        if error or body.get("success") is False:
            return self.reported_failure(ErrorType.SERVICE_ERROR, f"Browser Use reported: {error or 'success: false'}",
                                         response, content, title=title, final_url=final_url, metadata=metadata)
        return self.answer(content, "markdown", title=title, final_url=final_url, metadata=metadata)


def _first(body: dict[str, Any], names: tuple[str, ...], kind: type | tuple[type, ...]) -> Any:
    for name in names:
        value = member(body, name, kind, optional=True)
        if value is not None:
            return value
    return None
