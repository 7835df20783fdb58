"""The answer boundary: did the call itself succeed, before any content is judged? (SPEC §3.1)

Call success and content acceptance are separate requirements; both are needed to pass.
``unresolvable`` is narrow — only the operator's setup stopped the call (credentials missing or
rejected, quota exhausted, rate-limited, harness infrastructure down). Everything else that goes
wrong with the call is a ``fail`` of the method.
"""

from __future__ import annotations

from dataclasses import dataclass

from lexbench.providers.result import ErrorType, ProviderResult
from lexbench.verdict import Outcome

# Operator setup problems: the method was never really tried. Keyed by ErrorType value so that a
# class the provider layer adds (replay_unreachable) is recognised without importing a new member.
_SETUP_ADVICE = {
    "auth": "the service rejected the credentials; check the provider's API key",
    "quota": "the provider's quota or credit is exhausted; top it up or use another account",
    "rate_limited": "the service rate-limited the call; lower parallelism (-n) or retry later",
    "missing_credentials": "credentials are missing; set the provider's environment variable",
    "infrastructure": "a harness component failed (replay server, local preflight); fix the setup and rerun",
    "replay_unreachable": "a hosted service cannot reach the local replay server; run it against live pages",
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
    infrastructure/replay_unreachable, or service API status 401/403/402/429 unless the adapter called it a
    ``service_error``) → ``UNRESOLVABLE``; a known non-2xx
    ``metadata.upstream_status`` → ``FAIL`` ``upstream_status`` (the content is kept for diagnostics);
    any other error type or ``success=False`` → ``FAIL`` with that error type; a non-2xx service API
    status → ``FAIL`` (``service_error`` for 5xx, else ``api_status``); empty or whitespace-only
    content → ``FAIL`` ``empty_content``; otherwise ok.
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
            message=f"{setup}{api}: {_SETUP_ADVICE[setup]}{_detail(result)}",
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
    if not result.content or result.content.isspace():  # strip() would copy the whole answer
        return _fail(ErrorType.EMPTY_CONTENT.value, "the call succeeded but returned no content (empty or whitespace only)")
    return CallAssessment(ok=True, outcome=Outcome.PASS, failure_class=None, message="call ok")
