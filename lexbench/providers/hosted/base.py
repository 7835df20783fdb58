"""The base every hosted adapter builds on (SPEC §3.1, §5).

An adapter only says how to ask and how to read the answer::

    class Reader(HostedProvider):
        type_name = "reader"
        default_base_url = "https://reader.example"
        default_path = "/v1/read"
        options_schema = {"api_key": str, "fresh": bool}
        defaults = {"fresh": True}

        def build_request(self, url, options):
            return HttpRequest("POST", self.endpoint(options), json={"url": url, "fresh": options["fresh"]},
                               headers={"Authorization": f"Bearer {options['api_key']}"})

        def parse_response(self, response):
            body = json_body(response)
            return self.answer(member(body, "data.content", str), "markdown",
                               metadata=ResultMetadata(upstream_status=status_code(member(body, "data.status", int, optional=True))))

:meth:`HostedProvider.fetch` does the rest: credentials expanded at call time, the request sent through
the shared HTTP boundary (deadline, ceiling, ``dns_mode``, debug log), a non-2xx API status mapped to its
error class with the body kept as content (:meth:`HostedProvider.api_failure`), and
``metadata.api_http_status``, ``engine`` and ``request_id`` filled in. ``upstream_status`` is set only from
what the service reports about the target — never from the API status.

Every adapter accepts ``base_url`` and ``path`` (the documented endpoint by default), so an endpoint that
moved can be reconfigured without code; ``unverified`` lists the API details that first-party
documentation did not confirm (the README's provider table repeats them).
"""

from __future__ import annotations

import json
import math
import re
import time
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar
from urllib.parse import urlsplit

from lexbench.answer import ContentFormat, ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.case import Case
from lexbench.errors import ConfigError
from lexbench.providers.base import Family, Provider
from lexbench.providers.call import CURRENT_CALL, Deadline, FetchError
from lexbench.providers.http import HttpRequest, HttpResponse

_JSON_TYPES = ("application/json", "application/problem+json", "text/json")
_DEFAULT_STATUS_ERRORS = {401: ErrorType.AUTH, 403: ErrorType.AUTH, 402: ErrorType.QUOTA, 429: ErrorType.RATE_LIMITED}

OptionType = type | tuple[Any, ...]
"""An option's accepted values: a Python type (``bool``, ``int``, ``float``, ``str``, ``dict``, ``list``) or a
tuple of the literal values allowed."""


class HostedProvider(Provider):
    """A hosted fetch API: one request per call, parsed into a :class:`ProviderResult`.

    Class attributes an adapter sets: ``type_name``; ``default_base_url`` and ``default_path`` (the
    documented endpoint; options ``base_url`` and ``path`` override them); ``options_schema`` (each
    accepted option and its :data:`OptionType`; ``base_url`` and ``path`` are always accepted);
    ``defaults`` (values used when an option is not configured); ``required_options`` and
    ``secret_options`` (both ``api_key`` by default; a secret must be a ``${ENV_VAR}`` placeholder);
    ``status_errors`` (service-specific API statuses mapped to error types, over 401/403 → auth,
    402 → quota, 429 → rate_limited); ``request_id_headers``; ``error_request_id`` (the member of a JSON
    error body that holds the request id, e.g. ``"id"``); ``unverified`` (API details not confirmed by
    first-party documentation, one phrase each); ``refused`` (why the type cannot be configured at all,
    e.g. no documented endpoint: configuring it raises that reason instead of calling an invented route);
    ``redirect_origins`` (origins other than the API's own, ``"https://files.example"``, that its
    redirects may lead to: none by default; such a hop is guarded and carries no credential, see
    :meth:`~lexbench.providers.http.HttpBoundary.send`).

    Hosted services cannot reach the loopback replay server (``reaches_loopback = False``): in replay
    mode their items are skipped as ``replay_unreachable``.
    """

    family: ClassVar[Family] = "hosted"
    reaches_loopback = False
    option_names: ClassVar[frozenset[str] | None] = None
    secret_options: ClassVar[frozenset[str]] = frozenset({"api_key"})
    default_base_url: ClassVar[str] = ""
    default_path: ClassVar[str] = ""
    options_schema: ClassVar[Mapping[str, OptionType]] = {}
    defaults: ClassVar[Mapping[str, Any]] = {}
    required_options: ClassVar[frozenset[str]] = frozenset({"api_key"})
    status_errors: ClassVar[Mapping[int, ErrorType]] = {}
    request_id_headers: ClassVar[tuple[str, ...]] = ("x-request-id", "request-id", "x-amzn-requestid", "cf-ray")
    error_request_id: ClassVar[str | None] = None
    unverified: ClassVar[tuple[str, ...]] = ()
    refused: ClassVar[str | None] = None
    redirect_origins: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.refused:
            raise ConfigError(f"provider type {self.type_name!r} is refused: {self.refused}")
        super().__init__(*args, **kwargs)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "options_schema" in cls.__dict__:
            cls.option_names = frozenset({"base_url", "path"}) | frozenset(cls.options_schema)

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """Unknown or missing required names, values of the wrong type or outside their choices, and a
        ``base_url`` that is not an http(s) URL raise ``ValueError`` naming the option (names only for an
        adapter without :attr:`options_schema`); a :attr:`refused` type raises its reason whatever the options."""
        if cls.refused:
            raise ValueError(f"type {cls.type_name!r} is refused: {cls.refused}")
        super().validate_options(options)
        if not cls.options_schema:  # an adapter without a schema checks its own options
            return
        missing = sorted(cls.required_options - set(options))
        if missing:
            raise ValueError(f"option(s) {', '.join(missing)} required (credentials as ${{ENV_VAR}} placeholders)")
        schema: dict[str, OptionType] = {"base_url": str, "path": str, **cls.options_schema}
        for name, value in options.items():
            expected = schema.get(name)
            if expected is None:
                continue
            if isinstance(expected, tuple):
                if value not in expected:
                    raise ValueError(f"option {name} must be one of {', '.join(map(json.dumps, expected))}, "
                                     f"got {json.dumps(value)}")
            elif not _is_type(value, expected):
                raise ValueError(f"option {name} must be {_TYPE_NAMES.get(expected, expected.__name__)}, "
                                 f"got {json.dumps(value)}")
        base_url = options.get("base_url")
        if isinstance(base_url, str) and urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"option base_url must be an http(s) URL, got {base_url!r}")

    # --- what an adapter writes ----------------------------------------------------------------

    @abstractmethod
    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        """The API request for target ``url``; ``options`` are the configured options over
        :attr:`defaults`, credentials expanded."""

    @abstractmethod
    def parse_response(self, response: HttpResponse) -> ProviderResult:
        """Read a 2xx answer (and any status :meth:`api_failure` let through). Map failures reported
        inside it (an error field, an error header, a per-URL status) to their error types; raise
        :class:`FetchError` for a malformed answer (see :func:`json_body`, :func:`member`)."""

    # --- helpers for adapters ------------------------------------------------------------------

    def endpoint(self, options: Mapping[str, Any]) -> str:
        """``base_url`` + ``path`` (configured, else the documented defaults), joined by one slash."""
        base = str(options.get("base_url") or self.default_base_url).rstrip("/")
        path = str(options.get("path", self.default_path))
        return f"{base}/{path.lstrip('/')}" if path else base

    def setting(self, name: str) -> Any:
        """A non-secret option as configured, else its default (placeholders unexpanded: never for
        credentials)."""
        return self.options.get(name, self.defaults.get(name))

    def answer(self, content: str, content_format: ContentFormat | None, **fields: Any) -> ProviderResult:
        """A successful result, or ``empty_content`` (with the other fields kept) when ``content`` is
        empty or whitespace only."""
        if not content.strip():
            return ProviderResult.failure(ErrorType.EMPTY_CONTENT, f"the {self.type_name} API reported success "
                                          "but returned no content", content=content, content_format=content_format,
                                          **fields)
        return ProviderResult(success=True, content=content, content_format=content_format, **fields)

    def reported_failure(self, error_type: ErrorType, message: str, response: HttpResponse, content: str = "",
                         content_format: ContentFormat | None = "markdown", **fields: Any) -> ProviderResult:
        """A failure the service reported inside a 2xx answer. The page content it sent is kept; without
        any, the answer itself is kept as text (SPEC §5: content is saved even when it is an API error)."""
        if not content.strip():
            content, content_format = response.text(), "text"
        return ProviderResult.failure(error_type, message, content=content, content_format=content_format, **fields)

    def request_id(self, response: HttpResponse) -> str | None:
        """The first of :attr:`request_id_headers` present in the answer, or ``None``."""
        for name in self.request_id_headers:
            value = response.header(name)
            if value:
                return value
        return None

    def api_failure(self, response: HttpResponse) -> ProviderResult | None:
        """A failed result for a non-2xx API status, or ``None`` to parse the answer.

        :attr:`status_errors`, then 401/403 → ``auth``, 402 → ``quota``, 429 → ``rate_limited``
        (unresolvable: the operator's setup), 5xx → ``service_error``, other 4xx → ``api_status``. The
        body is kept as content. Override for a service whose non-2xx statuses carry more (a target
        status header, an error code).
        """
        status = response.status
        if 200 <= status < 300:
            return None
        error_type = self.status_errors.get(status) or _DEFAULT_STATUS_ERRORS.get(
            status, ErrorType.SERVICE_ERROR if status >= 500 else ErrorType.API_STATUS)
        request_id = None
        if self.error_request_id:
            try:  # a non-JSON error body (a proxy's HTML page) keeps the header's request id
                request_id = member(json_body(response), self.error_request_id, str, optional=True)
            except FetchError:
                pass
        return ProviderResult.failure(
            error_type,
            f"the {self.type_name} API answered HTTP {status}: {excerpt(response)}",
            content=response.text(),
            content_format="text",
            metadata=ResultMetadata(api_http_status=status, request_id=request_id or self.request_id(response)),
        )

    def resend_after(self, response: HttpResponse) -> float | None:
        """Seconds to wait before sending the same request again because the service said the work goes on
        (e.g. Firecrawl's 408 ``processing_continues``), or ``None`` to read ``response`` as it is. The
        default is ``None``. :meth:`fetch` waits only when the wait and a new answer fit the call's deadline."""
        return None

    def finish(self, result: ProviderResult, url: str, deadline: Deadline) -> ProviderResult:
        """Required decoding after parsing, still within the call's deadline (e.g. HTML → Markdown).
        The default returns ``result`` unchanged."""
        return result

    # --- the call ------------------------------------------------------------------------------

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        """Send ``url`` to the service once within ``timeout`` seconds (SPEC §5); see the module docstring."""
        deadline = Deadline.after(timeout)
        options = {**self.defaults, **self.expanded_options()}
        request = self.build_request(url, options)
        request = replace(request, redirect_origins=request.redirect_origins | self.redirect_origins)
        response = self.http.send(request, deadline)
        while (delay := self._resend_after(response, options)) is not None and delay < deadline.remaining():
            time.sleep(delay)  # the service asked for this wait; the deadline still bounds the whole call
            response = self.http.send(request, deadline)
        try:
            result = self.api_failure(response) or self.parse_response(response)
            result = self.finish(result, url, deadline)
        except FetchError as exc:
            self._annotate(exc, response, options)
            raise
        metadata = result.metadata
        updates: dict[str, Any] = {}
        if metadata.api_http_status is None:
            updates["api_http_status"] = response.status
        if metadata.engine is None:
            updates["engine"] = self.engine(options)
        if metadata.request_id is None:
            updates["request_id"] = self.request_id(response)
        return result.model_copy(update={"metadata": metadata.model_copy(update=updates)}) if updates else result

    def engine(self, options: Mapping[str, Any]) -> str:
        """The engine label recorded when the service reports none: the type name, by default."""
        return self.type_name

    def _resend_after(self, response: HttpResponse, options: Mapping[str, Any]) -> float | None:
        try:
            return self.resend_after(response)
        except FetchError as exc:  # a malformed wait (10**400 s) is the answer's failure
            self._annotate(exc, response, options)
            raise

    def _annotate(self, exc: FetchError, response: HttpResponse, options: Mapping[str, Any]) -> None:
        """Give ``exc`` the answer's API status, request id and engine (where it did not set them)."""
        exc.metadata.setdefault("api_http_status", response.status)
        exc.metadata.setdefault("request_id", self.request_id(response))
        exc.metadata.setdefault("engine", self.engine(options))


# --- reading answers ---------------------------------------------------------------------------------


def json_body(response: HttpResponse) -> Any:
    """The answer's JSON value.

    Raises :class:`FetchError`: ``empty_content`` for an empty body; ``malformed_response`` for a
    non-JSON media type (e.g. an HTML error page from a proxy), invalid UTF-8, invalid JSON (``NaN`` and
    ``Infinity`` included: RFC 8259 has no such numbers), JSON nested past the recursion limit or an
    integer of more than 4,300 digits.
    """
    if not response.body.strip():
        raise FetchError(ErrorType.EMPTY_CONTENT, f"the API answered HTTP {response.status} with an empty body")
    media = response.content_type
    if media is not None and media not in _JSON_TYPES and not media.endswith("+json"):
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API answered {media} where JSON was expected: "
                         f"{excerpt(response)}")
    try:
        text = response.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API's JSON is not valid UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_not_json)
    except _NotJson as exc:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API's answer is not valid JSON ({exc})") from None
    except json.JSONDecodeError as exc:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API's answer is not valid JSON ({exc.msg} at line "
                         f"{exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, "the API's JSON is nested deeper than the parser's "
                         "recursion limit") from None
    except ValueError as exc:  # an integer past Python's 4,300-digit conversion limit
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the API's JSON holds a number that cannot be read: {exc}") from None


class _NotJson(ValueError):
    pass


def _not_json(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON number")


_MISSING = object()


def member(value: Any, path: str, kind: type | tuple[type, ...], *, optional: bool = False) -> Any:
    """The member at dotted ``path`` (``"data.metadata.statusCode"``) of a JSON value, checked against
    ``kind`` (``int`` never accepts ``bool``; ``float`` accepts ``int``).

    ``optional``: an absent or ``null`` member gives ``None``. Raises :class:`FetchError`
    ``malformed_response`` naming the path for a missing required member or a wrong type.
    """
    current: Any = value
    for part in path.split("."):
        if not isinstance(current, dict):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the answer has no object where {path!r} should be")
        current = current.get(part, _MISSING)
        if current is _MISSING or current is None:
            if optional:
                return None
            raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the answer lacks {path!r}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds:
        kinds = (*kinds, int)
    if not any(_is_type(current, k) for k in kinds):
        names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the answer's {path!r} is {_json_type(current)}, not {names}")
    return current


def status_code(value: Any) -> int | None:
    """An HTTP status read from a service's field or header: an int or a string of digits in 100–599;
    absent, ``0`` or text is unknown (``None``). Any other number (``-1``, ``999``, ``10**400``) raises
    :class:`FetchError` ``malformed_response``: no status is out of range by accident."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        value = int(value) if len(value.strip()) <= 6 else 10**6
    if not isinstance(value, int) or value == 0:
        return None
    if not 100 <= value <= 599:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the answer's target status is {_shown(value)}, not an "
                         "HTTP status (100 to 599)")
    return value


MAX_NUMBER = float(2**53 - 1)
"""Largest number read from an answer: the integers a double holds exactly (RFC 8259 §6, "interoperable").
Every quantity an adapter reads (a cost, a token count, milliseconds, a wait) is far below it."""


def number(value: Any, what: str, *, maximum: float = MAX_NUMBER) -> float | None:
    """A non-negative quantity read from field or header ``what`` (an int, a float or a numeric string), or
    ``None`` when absent, ``null`` or not numeric text (unknown).

    Raises :class:`FetchError` ``malformed_response`` naming ``what`` for a number that is not finite
    (``1e400``, ``"inf"``, ``"nan"``), negative or over ``maximum`` (:data:`MAX_NUMBER` by default), so a
    hostile answer (firecrawl-py's fixture ``retryAfterSeconds: 10**400``) never reaches arithmetic.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        read = float(value) if -maximum <= value <= maximum else math.inf  # float(10**400) overflows
    elif isinstance(value, float):
        read = value
    else:
        try:
            read = float(str(value).strip())
        except ValueError:
            return None
    if not math.isfinite(read) or read < 0 or read > maximum:
        raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the answer's {what} is {_shown(value)}: not a number "
                         f"from 0 to {maximum:,.0f}")
    return read


def bounded(value: Any, what: str) -> Any:
    """``value``, a JSON value copied into a result (a service's billing object), if every number in it
    is finite and at most :data:`MAX_NUMBER` in size; else :class:`FetchError` ``malformed_response``
    naming ``what``. A non-finite number would make the run record unwritable as JSON."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool) and not (
                -MAX_NUMBER <= item <= MAX_NUMBER):  # False for NaN too
            raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the answer's {what} holds {_shown(item)}, a number "
                             f"out of range (beyond ±{MAX_NUMBER:,.0f} or not finite)")
    return value


def _shown(value: Any) -> str:
    """``value`` for a message, a long one cut (10**400 has 401 digits)."""
    text = str(value)
    return text if len(text) <= 40 else f"{text[:20]}… ({len(text)} characters)"


def excerpt(response: HttpResponse, limit: int = 200) -> str:
    """The answer's text on one line, cut at ``limit`` characters (for error messages). Credentials are
    masked before the cut: a key cut in half would no longer be recognised when the message is written."""
    context = CURRENT_CALL.get()
    text = response.text()[: limit * 8]
    text = " ".join((context.redactor.text(text) if context is not None else text)[: limit * 2].split())
    return (text[:limit] + "…") if len(text) > limit else (text or "(empty body)")


_TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string", dict: "an object",
               list: "an array"}


def _is_type(value: Any, expected: type) -> bool:
    if expected in (int, float) and isinstance(value, bool):
        return False
    if expected is float:
        return isinstance(value, (int, float))
    return isinstance(value, expected)


def _json_type(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", dict: "an object",
            list: "an array"}.get(type(value), type(value).__name__)
