"""Exa contents: ``POST /contents`` with one URL, a fresh fetch, the page text back (SPEC §5).

Request: ``x-api-key``, body ``{urls: [url], text: true | {maxCharacters?, verbosity?}, maxAgeHours: 0,
livecrawlTimeout?}``. ``maxAgeHours: 0`` asks for a fresh fetch; the older ``livecrawl: "always"`` is
deprecated and "does not guarantee freshly fetched content" (exa-py 2.28), and only ``maxAgeHours: 0``
lets ``text.verbosity`` leave the default main-content-only ``compact`` mode.
Answer ``{requestId, results: [{id, url, title, text}], statuses: [{id, status, error: {tag,
httpStatusCode}}], costDollars: {total}}``. Per-URL failures arrive inside the 200 in ``statuses``
(``CRAWL_NOT_FOUND``, ``CRAWL_TIMEOUT``, ``SOURCE_NOT_AVAILABLE``): ``error.httpStatusCode`` is the
target's status (``upstream_status``); a failure without one is a ``service_error``. Request errors are
``{requestId, error, tag}``. The service drops empty pages by default: ``results: []`` with a success
status for the URL is ``empty_content``. The text's format is not declared by the service, so it is left for the
scorer to sniff.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, bounded, json_body, member, number, status_code
from lexbench.providers.http import HttpRequest, HttpResponse


class ExaContents(HostedProvider):
    """Exa contents. Options: ``api_key``, ``max_age_hours`` (default 0: always fetch fresh),
    ``livecrawl_timeout_ms``, ``max_characters``, ``verbosity`` (``compact`` | ``standard`` | ``full``),
    ``base_url``, ``path``."""

    type_name = "exa-contents"
    default_base_url = "https://api.exa.ai"
    default_path = "/contents"
    options_schema = {"api_key": str, "max_age_hours": int, "livecrawl_timeout_ms": int, "max_characters": int,
                      "verbosity": ("compact", "standard", "full")}
    defaults = {"max_age_hours": 0}
    error_request_id = "requestId"

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """As :meth:`HostedProvider.validate_options`; also refuses ``verbosity`` with a cached answer allowed
        (``max_age_hours`` other than 0), where the service ignores it (exa-py api.py:762-768)."""
        super().validate_options(options)
        if options.get("verbosity") and options.get("max_age_hours", 0) != 0:
            raise ValueError("option verbosity takes effect only with max_age_hours 0 (a fresh fetch); "
                             f"got max_age_hours {options['max_age_hours']}")

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        text: Any = {name: options[option] for name, option in (("maxCharacters", "max_characters"),
                                                                ("verbosity", "verbosity")) if options.get(option)}
        body: dict[str, Any] = {"urls": [url], "text": text or True, "maxAgeHours": options["max_age_hours"]}
        if options.get("livecrawl_timeout_ms"):
            body["livecrawlTimeout"] = options["livecrawl_timeout_ms"]
        return HttpRequest("POST", self.endpoint(options), json=body, headers={"x-api-key": options["api_key"]})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        results = member(body, "results", list)
        statuses = member(body, "statuses", list, optional=True) or []
        total = number(member(body, "costDollars.total", float, optional=True), "'costDollars.total'")
        metadata = ResultMetadata(request_id=member(body, "requestId", str, optional=True),
                                  billing={"costDollars": bounded(body["costDollars"], "'costDollars'")} if total is not None else {},
                                  cost=total, cost_unit="usd" if total is not None else None)
        failed = next((s for s in statuses if isinstance(s, dict) and s.get("status") not in (None, "success")), None)
        result = results[0] if results else None
        if result is not None and not isinstance(result, dict):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "Exa's results[0] is not an object")
        fields: dict[str, Any] = {"title": member(result, "title", str, optional=True) if result else None,
                                  "final_url": member(result, "url", str, optional=True) if result else None}
        content = (member(result, "text", str, optional=True) or "") if result else ""
        if failed is not None:
            error = failed.get("error") if isinstance(failed.get("error"), dict) else {}
            upstream = status_code(error.get("httpStatusCode"))
            tag = error.get("tag") or failed.get("status")
            return self.reported_failure(
                ErrorType.UPSTREAM_STATUS if upstream is not None and not 200 <= upstream < 300 else ErrorType.SERVICE_ERROR,
                f"Exa reported the URL as {failed.get('status')}: {tag}" + (f" (target HTTP {upstream})" if upstream else ""),
                response, content, None, **fields, metadata=metadata.model_copy(update={"upstream_status": upstream}))
        if result is None:
            if not any(isinstance(s, dict) and s.get("status") == "success" for s in statuses):
                raise FetchError(ErrorType.MALFORMED_RESPONSE, "Exa answered with neither a result nor a status for the URL")
            return self.answer("", None, metadata=metadata)  # filterEmptyResults: an empty page is dropped
        return self.answer(content, None, **fields, metadata=metadata)
