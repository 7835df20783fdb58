"""Browserbase Fetch: ``POST /v1/fetch``, Markdown, redirects and proxies enabled (SPEC §5).

Request: ``X-BB-API-Key``, body ``{url, format: "markdown", proxies, allowRedirects, allowInsecureSsl}``
(``allowRedirects`` defaults to false at the service: this adapter sends true). No Project ID. Answer
``{id, statusCode, headers, content, contentType, encoding}``: ``statusCode`` is the target's status (a
target 404 is a successful call reporting 404); ``encoding: "base64"`` content is decoded per the
``contentType`` charset. Any other ``encoding`` is a free string naming the page's character encoding
("the character encoding of the response": "utf-8", "UTF-8", "iso-8859-1" occur): the JSON string is
already text and is taken as it is, when the name is a WHATWG text encoding as page charsets must be
(:mod:`lexbench.charsets`); any other name (``punycode``, a Python codec) does not describe text and the
answer is ``malformed_response``. Errors are
``{statusCode, error, message, id?}``: 400 (``api_status``), 429 concurrency limit (``rate_limited``),
502 TLS failure or a body over 5 MB and 504 after 60 s (``service_error``). The service does not run the
page's JavaScript.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.charsets import text_codec
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, json_body, member, status_code
from lexbench.providers.http import HttpRequest, HttpResponse, decode_text


class BrowserbaseFetch(HostedProvider):
    """Browserbase Fetch API. Options: ``api_key``, ``proxies``, ``allow_redirects``,
    ``allow_insecure_ssl`` (booleans), ``base_url``, ``path``."""

    type_name = "browserbase-fetch"
    default_base_url = "https://api.browserbase.com"
    default_path = "/v1/fetch"
    options_schema = {"api_key": str, "proxies": bool, "allow_redirects": bool, "allow_insecure_ssl": bool}
    defaults = {"proxies": True, "allow_redirects": True, "allow_insecure_ssl": False}
    error_request_id = "id"

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        body = {"url": url, "format": "markdown", "proxies": options["proxies"],
                "allowRedirects": options["allow_redirects"], "allowInsecureSsl": options["allow_insecure_ssl"]}
        return HttpRequest("POST", self.endpoint(options), json=body, headers={"X-BB-API-Key": options["api_key"]})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        content = member(body, "content", str)
        encoding = member(body, "encoding", str, optional=True) or "utf-8"
        content_type = member(body, "contentType", str, optional=True)
        if encoding.strip().lower() == "base64":
            try:
                content = decode_text(base64.b64decode(content, validate=True), content_type)
            except (binascii.Error, ValueError):
                raise FetchError(ErrorType.MALFORMED_RESPONSE, "Browserbase content marked base64 does not decode") from None
        elif text_codec(encoding) is None:
            raise FetchError(ErrorType.MALFORMED_RESPONSE,
                             f"Browserbase content has encoding {encoding[:80]!r}, which is not a text encoding")
        metadata = ResultMetadata(upstream_status=status_code(member(body, "statusCode", int, optional=True)),
                                  request_id=member(body, "id", str, optional=True))
        return self.answer(content, "markdown", metadata=metadata)
