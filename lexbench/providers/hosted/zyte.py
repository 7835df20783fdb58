"""Zyte API: ``POST /v1/extract`` for ``browserHtml``, converted here with markdownify (SPEC §5).

Request: ``Authorization: Basic base64("KEY:")``, body ``{url, browserHtml: true}`` (or ``{url,
httpResponseBody: true, httpResponseHeaders: true}`` with ``mode: "httpResponseBody"``: the page's bytes
and its response headers ``[{name, value}]``, decoded here exactly as the HTTP boundary decodes a page it
fetched — a BOM, the ``Content-Type`` charset, an XML declaration or ``<meta charset>``, else UTF-8;
:func:`~lexbench.providers.http.decode_text`). Zyte API requires RFC 2396 URLs: the URL
is escaped first exactly as the official client does (w3lib's ``safe_url_string``: ``café one`` →
``caf%C3%A9%20one``). Answer ``{url (final), statusCode,
browserHtml | httpResponseBody (base64)}``: ``statusCode`` is the target's status. Zyte returns no
Markdown: the HTML is converted on this machine exactly as the ``http-markdownify`` baseline converts a
page (no ``<head>``, scripts or styles; markdownify), in the killable extraction worker within the
call's deadline. With the ``rendered_html`` contract the HTML itself is the answer (diagnostics).
Bans and download failures are RFC 7807 problems ``{type, title, status: 520, detail}``
(``service_error``); 429 ``/limits/over-user-limit`` is ``rate_limited``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, ClassVar

from w3lib.url import safe_url_string

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.base import OutputContract
from lexbench.providers.call import Deadline, FetchError
from lexbench.providers.extraction import ExtractionWorker
from lexbench.providers.hosted.base import HostedProvider, json_body, member, status_code
from lexbench.providers.http import HttpRequest, HttpResponse, decode_text


class ZyteApi(HostedProvider):
    """Zyte API extract. Options: ``api_key``, ``mode`` (``browserHtml`` | ``httpResponseBody``),
    ``base_url``, ``path``. Contracts: ``cleaned`` (HTML → Markdown here) or ``rendered_html``."""

    type_name = "zyte-api"
    output_contracts: ClassVar[tuple[OutputContract, ...]] = ("cleaned", "rendered_html")
    default_base_url = "https://api.zyte.com"
    default_path = "/v1/extract"
    options_schema = {"api_key": str, "mode": ("browserHtml", "httpResponseBody")}
    defaults = {"mode": "browserHtml"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._worker = ExtractionWorker.shared() if self.output_contract == "cleaned" else None

    def prepare(self) -> None:
        if self._worker is not None:
            self._worker.ensure_started()

    def close(self) -> None:
        if self._worker is not None:
            ExtractionWorker.release()
            self._worker = None

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        token = base64.b64encode(f"{options['api_key']}:".encode()).decode("ascii")
        body = {"url": safe_url_string(url), options["mode"]: True}
        if options["mode"] == "httpResponseBody":
            body["httpResponseHeaders"] = True  # the page's charset may be only in its Content-Type
        return HttpRequest("POST", self.endpoint(options), json=body, headers={"Authorization": f"Basic {token}"})

    def engine(self, options: Mapping[str, Any]) -> str:
        return f"zyte-api/{options['mode']}"

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        mode = self.setting("mode")
        html = member(body, mode, str)
        if mode == "httpResponseBody":
            try:
                page = base64.b64decode(html, validate=True)
            except (binascii.Error, ValueError):
                raise FetchError(ErrorType.MALFORMED_RESPONSE, "Zyte's httpResponseBody is not base64") from None
            html = decode_text(page, _content_type(member(body, "httpResponseHeaders", list, optional=True) or []))
        metadata = ResultMetadata(upstream_status=status_code(member(body, "statusCode", int, optional=True)))
        return self.answer(html, "html", final_url=member(body, "url", str, optional=True), metadata=metadata)

    def finish(self, result: ProviderResult, url: str, deadline: Deadline) -> ProviderResult:
        """Convert a successful answer's HTML to Markdown in the extraction worker (``cleaned`` only)."""
        if self._worker is None or not result.success:
            return result
        markdown, title = self._worker.extract("http-markdownify", result.content, result.final_url or url, {}, deadline)
        return self.answer(markdown, "markdown", final_url=result.final_url, title=title, metadata=result.metadata)


def _content_type(headers: list[Any]) -> str | None:
    """The first ``Content-Type`` of Zyte's ``httpResponseHeaders`` (``[{name, value}]``, names in any
    case), as the HTTP boundary reads a page's header; ``None`` when absent. Raises :class:`FetchError`
    ``malformed_response`` for an entry that is not ``{name: string, value: string}``."""
    for entry in headers:
        if not (isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("value"), str)):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "Zyte's httpResponseHeaders holds an entry that is not "
                             "{name, value} strings")
        if entry["name"].lower() == "content-type":
            return entry["value"]
    return None
