"""The answer: what a provider hands back (:class:`ProviderResult` and its parts, SPEC §5), and the answer
boundary that decides whether the call itself succeeded (:func:`assess_call`, SPEC §3.1).

A leaf: it imports nothing of lexbench but :mod:`lexbench.verdict`, so the scorer, the run record and
the report read answers without loading the provider registry.

A result keeps everything a reviewer needs to judge the call afterwards: the content (kept even when
it is an error page or an API error body), the API's own HTTP status and the target page's status as
separate fields, the DNS mode and resolutions the HTTP boundary observed, and every physical attempt
with its own timing, statuses and cost.

The stable error classes (:class:`ErrorType`) and the verdict class each one leads to (SPEC §3.1)::

    unresolvable — the operator's setup stopped the call, not the method
      missing_credentials   a credential placeholder's environment variable is unset or empty
      auth                  the service rejected the credentials (API 401/403)
      quota                 quota or credit exhausted (API 402, documented quota errors)
      rate_limited          the service rate-limited the call (API 429)
      infrastructure        a harness component failed (replay server down, local preflight failed)
      replay_unreachable    a hosted service cannot reach the loopback replay server (replay mode)
      not_public_url        --live, but the case's URL is not a public page (a reserved name such as
                            .example, a private address): the provider was not called
      unsupported_delivery  the provider has no route for the case's delivery (``file``, ``resources``),
                            or its configured DOM completion rules out direct file delivery: refused
                            before any call, never a fail (SPEC §2)
    fail — the method was tried and did not deliver
      timeout               no complete answer within the per-call deadline (late answers included)
      connect / dns / tls   the connection could not be made
      too_large             a body or subprocess output passed the 20,000,000-byte ceiling
      too_many_redirects    a redirect loop or more hops than allowed
      blocked_network       the private-network guard refused an address (loopback, private, ...), or a
                            hosted API redirected off its origin where it may not (or with credentials)
      upstream_status       the target page answered non-2xx (content kept)
      api_status            the service answered a non-2xx status that is not a setup problem
      service_error         the service reported its own or the origin's failure (5xx, or inside a 200)
      malformed_response    the service's answer does not have its documented shape
      empty_content         the call succeeded but returned nothing
      unsupported_content   the response is not a document the provider reads (e.g. image/png)
      unsupported           the provider cannot do this task at all
      crashed               the adapter raised: a bug, reported and the run continues
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from lexbench.verdict import Outcome

ContentFormat = Literal["markdown", "text", "html"]
DnsMode = Literal["system", "public_doh"]


_SURROGATE = re.compile("[\ud800-\udfff]")


def writable_text(text: str) -> str:
    """``text`` with every surrogate code point replaced by U+FFFD, so it can be written as UTF-8.

    A service's JSON may carry half of an emoji (``"\\ud83d"``), which ``json.loads`` accepts; left in a
    result it would reach the verdict's evidence and make the run record unwritable. Linear; ASCII and
    valid text are returned as they are."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _writable(value: Any) -> Any:
    if isinstance(value, str):
        return writable_text(value)
    if isinstance(value, dict):
        return {_writable(k): _writable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_writable(item) for item in value]
    return value


class ErrorType(StrEnum):
    """Stable classes of call failure (SPEC §3.1, §5); the module docstring gives each one's meaning.

    Values are stored in run records: never rename one, only add.
    """

    TIMEOUT = "timeout"
    CONNECT = "connect"
    DNS = "dns"
    TLS = "tls"
    TOO_LARGE = "too_large"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    UPSTREAM_STATUS = "upstream_status"
    API_STATUS = "api_status"
    AUTH = "auth"
    QUOTA = "quota"
    RATE_LIMITED = "rate_limited"
    MALFORMED_RESPONSE = "malformed_response"
    EMPTY_CONTENT = "empty_content"
    SERVICE_ERROR = "service_error"
    BLOCKED_NETWORK = "blocked_network"
    CRASHED = "crashed"
    INFRASTRUCTURE = "infrastructure"
    MISSING_CREDENTIALS = "missing_credentials"
    REPLAY_UNREACHABLE = "replay_unreachable"
    NOT_PUBLIC_URL = "not_public_url"
    UNSUPPORTED_CONTENT = "unsupported_content"
    UNSUPPORTED = "unsupported"
    UNSUPPORTED_DELIVERY = "unsupported_delivery"


class Resolution(BaseModel):
    """One host name the HTTP boundary resolved: how (``system`` resolver or ``doh``) and to what.

    ``resolver`` is the DoH resolver URL (``None`` for the system resolver); ``addresses`` the IP
    addresses in the order returned (empty when resolution failed).
    """

    model_config = ConfigDict(extra="forbid")

    host: str
    via: Literal["system", "doh"]
    addresses: list[str] = Field(default_factory=list)
    resolver: str | None = None


class Attempt(BaseModel):
    """One physical call: its own wall time (seconds), statuses, error, cost and network facts.

    ``late`` is true when the answer arrived after the deadline and was discarded (SPEC §5).
    ``cost`` is in the provider's billing unit (``ResultMetadata.cost_unit``).
    """

    model_config = ConfigDict(extra="forbid")

    latency_s: float = Field(ge=0)
    api_http_status: int | None = None
    upstream_status: int | None = None
    error_type: ErrorType | None = None
    error_message: str | None = None
    cost: float | None = None
    request_id: str | None = None
    late: bool = False
    resolutions: list[Resolution] = Field(default_factory=list)
    redirects: list[str] = Field(default_factory=list)
    # Only for calls that ran a child process; absent otherwise, so other rows keep their bytes.
    peak_memory_bytes: int | None = Field(default=None, ge=0, exclude_if=lambda value: value is None)
    """This call's peak memory in bytes (see ``ResultMetadata.peak_memory_bytes``)."""

    @field_validator("error_message", "request_id", "redirects")
    @classmethod
    def _writable_text(cls, value: Any) -> Any:
        return _writable(value)


class ResultMetadata(BaseModel):
    """Provider metadata (SPEC §5).

    ``api_http_status`` is the fetch service's own HTTP status; ``upstream_status`` the target page's
    status as the provider observed it, ``None`` when unknown — never copied from the API status.
    ``server_elapsed_s`` is the time the service says it spent; ``billing`` its cost/usage fields as
    reported. ``cost`` is this call's cost and ``cost_total`` the sum over every attempt, both in
    ``cost_unit`` (e.g. ``"usd"``, ``"credits"``); ``None`` when the provider reports no cost.
    ``dns_mode`` and ``resolutions`` are what the shared HTTP boundary used and observed (final
    attempt); ``redirects`` the URLs followed after the first request; ``content_type`` the final
    response's Content-Type header.

    ``peak_memory_bytes`` is the final call's peak memory in bytes: the largest sum, over the samples
    taken every ``memory_sampled_every_s`` seconds, of the proportional set size (PSS) of every process
    in the process groups the call's engine or worker ran (:mod:`lexbench.providers.memory`); ``None``
    (and left out of the row) for a call that ran no child process: in-process and hosted providers.
    ``containment`` is how that call's processes were contained: ``cgroup`` (a cgroup v2 group per
    process, every descendant found and killed) or ``subreaper`` (the fallback where no cgroup is
    writable: the root's process tree) (:mod:`lexbench.providers.containment`). ``blocked_requests``
    lists the requests an engine's or worker's network guard refused before any connection (the
    guarding proxy, :mod:`lexbench.providers.guard_proxy`), ``"URL: reason"``, at most 50 with a final
    count of the rest. Both are left out of rows that have none.
    """

    model_config = ConfigDict(extra="forbid")

    api_http_status: int | None = None
    upstream_status: int | None = None
    request_id: str | None = None
    engine: str | None = None
    server_elapsed_s: float | None = None
    billing: dict[str, Any] = Field(default_factory=dict)
    cost: float | None = None
    cost_total: float | None = None
    cost_unit: str | None = None
    dns_mode: DnsMode | None = None
    resolutions: list[Resolution] = Field(default_factory=list)
    redirects: list[str] = Field(default_factory=list)
    content_type: str | None = None
    peak_memory_bytes: int | None = Field(default=None, ge=0, exclude_if=lambda value: value is None)
    memory_sampled_every_s: float | None = Field(default=None, gt=0, exclude_if=lambda value: value is None)
    containment: Literal["cgroup", "subreaper"] | None = Field(default=None, exclude_if=lambda value: value is None)
    blocked_requests: list[str] = Field(default_factory=list, exclude_if=lambda value: not value)

    @field_validator("request_id", "engine", "billing", "cost_unit", "redirects", "content_type", "blocked_requests")
    @classmethod
    def _writable_text(cls, value: Any) -> Any:
        return _writable(value)


class ProviderResult(BaseModel):
    """The normalised result of ``Provider.fetch`` (SPEC §5).

    ``content`` is kept even for failed calls (an error page, an API error body) unless the answer came
    late. The two non-text deliveries (SPEC §2) answer beside it: ``file`` holds the document's bytes (a
    ``file`` case; never written to a run row, whose ``file`` component records their sha256 and size), and
    ``resources`` the resource URLs the provider found, absolute or relative to ``final_url`` (a
    ``resources`` case; ``content`` then lists them one per line). ``latency_s`` is the final attempt's wall time in seconds, stopped after the response and its
    required decoding; ``attempts`` lists every physical call including the final one (filled in by
    :func:`lexbench.providers.policy.call_provider`).
    """

    model_config = ConfigDict(extra="forbid")

    success: bool
    content: str = ""
    content_format: ContentFormat | None = None
    final_url: str | None = None
    title: str | None = None
    error_type: ErrorType | None = None
    error_message: str | None = None
    metadata: ResultMetadata = Field(default_factory=ResultMetadata)
    latency_s: float = Field(default=0.0, ge=0)
    attempts: list[Attempt] = Field(default_factory=list)
    file: bytes | None = Field(default=None, exclude=True, repr=False)
    resources: list[str] | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("content", "final_url", "title", "error_message", "resources")
    @classmethod
    def _writable_text(cls, value: Any) -> Any:
        # Answers are untrusted text: keep them writable as UTF-8 (see writable_text).
        return _writable(value)

    @classmethod
    def failure(cls, error_type: ErrorType, message: str, **fields: Any) -> ProviderResult:
        """A failed result with ``error_type`` and an actionable ``message``; other fields as given."""
        return cls(success=False, error_type=error_type, error_message=message, **fields)


# --- the answer boundary: did the call itself succeed, before any content is judged? (SPEC §3.1) ---
# Call success and content acceptance are separate requirements; both are needed to pass.
# ``unresolvable`` is narrow — only the operator's setup stopped the call (credentials missing or
# rejected, quota exhausted, rate-limited, harness infrastructure down). Everything else that goes
# wrong with the call is a ``fail`` of the method.

# Operator setup problems: the method was never really tried. Keyed by ErrorType value so that a
# class the provider layer adds (replay_unreachable) is recognised without importing a new member.
_SETUP_ADVICE = {
    "auth": "the service rejected the credentials; check the provider's API key",
    "quota": "the provider's quota or credit is exhausted; top it up or use another account",
    "rate_limited": "the service rate-limited the call; lower parallelism (-n) or retry later",
    "missing_credentials": "credentials are missing; set the provider's environment variable",
    "infrastructure": "a harness component failed (replay server, local preflight); fix the setup and rerun",
    "replay_unreachable": "a hosted service cannot reach the local replay server; run it with --live or --replay-public-url",
    "not_public_url": "the case's URL is not a public page, so --live cannot fetch it; score it without --live (replay)",
    "unsupported_delivery": "unsupported delivery: the provider has no route for this case's delivery, so it was "
                            "not called and is not scored on the case",
}
# The fetch service's own HTTP status → the setup problem it means.
_SETUP_API_STATUS = {401: "auth", 403: "auth", 402: "quota", 429: "rate_limited"}


@dataclass(frozen=True)
class CallAssessment:
    """The call's side of a verdict.

    ``ok``: the call succeeded and returned non-empty content. ``outcome``: ``PASS`` when ok, else
    ``FAIL`` or ``UNRESOLVABLE``. ``failure_class``: ``None`` when ok, else an :class:`ErrorType`
    value (e.g. ``"upstream_status"``, ``"auth"``, ``"empty_content"``). ``message``: one short,
    actionable sentence.
    """

    ok: bool
    outcome: Outcome
    failure_class: str | None
    message: str


def _fail(failure_class: str, message: str) -> CallAssessment:
    return CallAssessment(ok=False, outcome=Outcome.FAIL, failure_class=failure_class, message=message)


def _detail(result: ProviderResult) -> str:
    return f": {result.error_message.strip()}" if result.error_message and result.error_message.strip() else ""


def mark_upstream_failure(result: ProviderResult) -> ProviderResult:
    """Before scoring and retry selection: a known non-2xx ``metadata.upstream_status`` makes the call
    failed (SPEC §3.1). Content and any existing error type and message are kept; a result that is
    already failed, or whose upstream status is unknown or 2xx, is returned unchanged. Pure."""
    upstream = result.metadata.upstream_status
    if upstream is None or 200 <= upstream < 300 or not result.success:
        return result
    return result.model_copy(update={
        "success": False,
        "error_type": result.error_type or ErrorType.UPSTREAM_STATUS,
        "error_message": result.error_message or f"the target page answered HTTP {upstream}",
    })


def assess_call(result: ProviderResult) -> CallAssessment:
    """Classify one provider call (SPEC §3.1). Pure; never raises.

    In order: an operator setup problem (error type auth/quota/rate_limited/missing_credentials/
    infrastructure/replay_unreachable/not_public_url/unsupported_delivery, or service API status 401/403/402/429 unless the adapter called it a
    ``service_error``) → ``UNRESOLVABLE``; a known non-2xx
    ``metadata.upstream_status`` → ``FAIL`` ``upstream_status`` (the content is kept for diagnostics);
    any other error type or ``success=False`` → ``FAIL`` with that error type; a non-2xx service API
    status → ``FAIL`` (``service_error`` for 5xx, else ``api_status``); empty or whitespace-only
    content (for a file answer: zero bytes; a resource list, even an empty one, is content) → ``FAIL``
    ``empty_content``; otherwise ok.
    """
    meta = result.metadata
    error = result.error_type.value if result.error_type is not None else None
    setup = error if error in _SETUP_ADVICE else None
    if setup is None and error != ErrorType.SERVICE_ERROR.value:  # an adapter's service_error is the service's own
        setup = _SETUP_API_STATUS.get(meta.api_http_status or 0)  # (Firecrawl's 403 "website not supported")
    if setup is not None:
        api = f" (service API answered {meta.api_http_status})" if meta.api_http_status else ""
        return CallAssessment(
            ok=False,
            outcome=Outcome.UNRESOLVABLE,
            failure_class=setup,
            # "unsupported delivery: ..." names itself; the others open with their class
            message=(f"{_SETUP_ADVICE[setup]}{_detail(result)}" if setup == "unsupported_delivery"
                     else f"{setup}{api}: {_SETUP_ADVICE[setup]}{_detail(result)}"),
        )
    upstream = meta.upstream_status
    if upstream is not None and not 200 <= upstream < 300:
        return _fail(
            ErrorType.UPSTREAM_STATUS.value,
            f"the target page answered {upstream} (metadata.upstream_status); "
            "the content was kept but a failed call cannot pass",
        )
    if error is not None or not result.success:
        failure = error or "call_failed"
        return _fail(failure, f"the provider reported {failure}{_detail(result)}")
    api_status = meta.api_http_status
    if api_status is not None and not 200 <= api_status < 300:
        failure = ErrorType.SERVICE_ERROR.value if api_status >= 500 else ErrorType.API_STATUS.value
        return _fail(failure, f"the service API answered {api_status} although the call reported success")
    if result.file is not None:  # a file answer is its bytes: the content is not the document
        if not result.file:
            return _fail(ErrorType.EMPTY_CONTENT.value, "the call succeeded but returned an empty file (0 bytes)")
        return CallAssessment(ok=True, outcome=Outcome.PASS, failure_class=None, message="call ok")
    if result.resources is not None:  # a resource list, even an empty one, is an answer: its recall judges it
        return CallAssessment(ok=True, outcome=Outcome.PASS, failure_class=None, message="call ok")
    if not result.content or result.content.isspace():  # strip() would copy the whole answer
        return _fail(ErrorType.EMPTY_CONTENT.value, "the call succeeded but returned no content (empty or whitespace only)")
    return CallAssessment(ok=True, outcome=Outcome.PASS, failure_class=None, message="call ok")
