"""Hosted fetch APIs: the base every hosted adapter builds on (SPEC §5).

An adapter only says how to ask and how to read the answer::

    class Jina(HostedProvider):
        type_name = "jina-reader"
        option_names = frozenset({"base_url", "api_key"})
        secret_options = frozenset({"api_key"})

        def build_request(self, url, options):
            return HttpRequest("POST", options["base_url"], json={"url": url},
                               headers={"Authorization": f"Bearer {options['api_key']}", "Accept": "application/json"})

        def parse_response(self, response):
            body = json_body(response)
            return ProviderResult(success=True, content=body["data"]["content"], content_format="markdown")

:meth:`HostedProvider.fetch` does the rest: credentials expanded at call time, the request sent through
the shared HTTP boundary (deadline, ceiling, ``dns_mode``, debug log), a non-2xx API status mapped to its
error class with the body kept as content (:meth:`HostedProvider.api_failure`), and
``metadata.api_http_status`` filled in. ``upstream_status`` is set only from what the service reports
about the target — never from the API status.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from lexbench.dataset.case import Case
from lexbench.providers.base import Family, Provider
from lexbench.providers.http import HttpRequest, HttpResponse
from lexbench.providers.policy import Deadline, FetchError
from lexbench.providers.result import ErrorType, ProviderResult, ResultMetadata

_JSON_TYPES = ("application/json", "application/problem+json", "text/json")


class HostedProvider(Provider):
    """A hosted fetch API: one request per call, parsed into a :class:`ProviderResult`.

    Hosted services cannot reach the loopback replay server (``reaches_loopback = False``): in replay
    mode their items are skipped as ``replay_unreachable``.
    """

    family: ClassVar[Family] = "hosted"
    reaches_loopback = False
    option_names: ClassVar[frozenset[str] | None] = None

    @abstractmethod
    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        """The API request for target ``url``; ``options`` has credentials expanded."""

    @abstractmethod
    def parse_response(self, response: HttpResponse) -> ProviderResult:
        """Read a 2xx answer (and any status :meth:`api_failure` let through). Map failures reported
        inside it (an error field, an error header, a per-URL status) to their error types; raise
        :class:`FetchError` for a malformed answer (see :func:`json_body`)."""

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        """A failed result for a non-2xx API status, or ``None`` to parse the answer.

        401/403 → ``auth``, 402 → ``quota``, 429 → ``rate_limited`` (unresolvable: the operator's setup),
        5xx → ``service_error``, other 4xx → ``api_status``. The body is kept as content. Override for a
        service whose non-2xx statuses mean something else.
        """
        status = response.status
        if 200 <= status < 300:
            return None
        error_type = {401: ErrorType.AUTH, 403: ErrorType.AUTH, 402: ErrorType.QUOTA, 429: ErrorType.RATE_LIMITED}.get(
            status, ErrorType.SERVICE_ERROR if status >= 500 else ErrorType.API_STATUS)
        return ProviderResult.failure(
            error_type,
            f"the {self.type_name} API answered HTTP {status}: {_excerpt(response)}",
            content=response.text(),
            content_format="text",
            metadata=ResultMetadata(api_http_status=status, request_id=_request_id(response)),
        )

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        deadline = Deadline.after(timeout)
        options = self.expanded_options()
        response = self.http.send(self.build_request(url, options), deadline)
        try:
            result = self.api_failure(response) or self.parse_response(response)
        except FetchError as exc:
            exc.metadata.setdefault("api_http_status", response.status)
            raise
        metadata = result.metadata
        updates: dict[str, Any] = {}
        if metadata.api_http_status is None:
            updates["api_http_status"] = response.status
        if metadata.engine is None:
            updates["engine"] = self.type_name
        return result.model_copy(update={"metadata": metadata.model_copy(update=updates)}) if updates else result


def json_body(response: HttpResponse) -> Any:
    """The answer's JSON value.

    Raises :class:`FetchError`: ``empty_content`` for an empty body; ``malformed_response`` for a
    non-JSON media type (e.g. an HTML error page from a proxy), invalid UTF-8 or invalid JSON.
    """
    if not response.body.strip():
        raise FetchError(ErrorType.EMPTY_CONTENT, f"the API answered HTTP {response.status} with an empty body")
    media = response.content_type
    if media is not None and media not in _JSON_TYPES and not media.endswith("+json"):
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API answered {media} where JSON was expected: "
                         f"{_excerpt(response)}")
    try:
        text = response.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API's JSON is not valid UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API's answer is not valid JSON ({exc.msg} at line "
                         f"{exc.lineno} column {exc.colno})") from None


def _request_id(response: HttpResponse) -> str | None:
    for name in ("x-request-id", "request-id", "x-amzn-requestid", "cf-ray"):
        if response.header(name):
            return response.header(name)
    return None


def _excerpt(response: HttpResponse, limit: int = 200) -> str:
    text = " ".join(response.text()[: limit * 2].split())
    return (text[:limit] + "…") if len(text) > limit else (text or "(empty body)")
