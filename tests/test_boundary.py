"""The answer boundary: call success versus setup problems (SPEC §3.1)."""

from __future__ import annotations

import pytest

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata, assess_call
from lexbench.verdict import Outcome

CONTENT = "# A title\n\nA complete article body."


def result(content: str = CONTENT, success: bool = True, error_type: ErrorType | None = None,
           api: int | None = 200, upstream: int | None = 200, message: str | None = None) -> ProviderResult:
    return ProviderResult(
        success=success,
        content=content,
        content_format="markdown",
        error_type=error_type,
        error_message=message,
        metadata=ResultMetadata(api_http_status=api, upstream_status=upstream),
    )


def test_successful_call_with_content_is_ok() -> None:
    assessment = assess_call(result())
    assert assessment.ok and assessment.outcome is Outcome.PASS and assessment.failure_class is None


def test_unknown_upstream_status_is_fine() -> None:
    assert assess_call(result(upstream=None)).ok


def test_upstream_404_with_perfect_content_fails() -> None:
    assessment = assess_call(result(upstream=404))
    assert not assessment.ok
    assert assessment.outcome is Outcome.FAIL
    assert assessment.failure_class == "upstream_status"
    assert "404" in assessment.message and "metadata.upstream_status" in assessment.message


@pytest.mark.parametrize(("api", "failure_class"), [(401, "auth"), (403, "auth"), (429, "rate_limited"), (402, "quota")])
def test_service_api_setup_statuses_are_unresolvable(api: int, failure_class: str) -> None:
    assessment = assess_call(result(content="", success=False, api=api, upstream=None))
    assert assessment.outcome is Outcome.UNRESOLVABLE
    assert assessment.failure_class == failure_class
    assert str(api) in assessment.message


@pytest.mark.parametrize(
    "error_type",
    [ErrorType.AUTH, ErrorType.QUOTA, ErrorType.RATE_LIMITED, ErrorType.MISSING_CREDENTIALS, ErrorType.INFRASTRUCTURE],
)
def test_setup_error_types_are_unresolvable(error_type: ErrorType) -> None:
    assessment = assess_call(result(content="", success=False, error_type=error_type, api=None, upstream=None))
    assert assessment.outcome is Outcome.UNRESOLVABLE
    assert assessment.failure_class == error_type.value


def test_missing_credentials_message_is_actionable() -> None:
    assessment = assess_call(result(content="", success=False, error_type=ErrorType.MISSING_CREDENTIALS, api=None))
    assert "environment variable" in assessment.message


@pytest.mark.parametrize(
    ("error_type", "api"),
    [
        (ErrorType.SERVICE_ERROR, 502),
        (ErrorType.MALFORMED_RESPONSE, 200),
        (ErrorType.TIMEOUT, None),
        (ErrorType.CONNECT, None),
        (ErrorType.TOO_LARGE, 200),
        (ErrorType.CRASHED, None),
    ],
)
def test_method_failures_fail(error_type: ErrorType, api: int | None) -> None:
    assessment = assess_call(result(content="", success=False, error_type=error_type, api=api, upstream=None,
                                    message="details from the adapter"))
    assert assessment.outcome is Outcome.FAIL
    assert assessment.failure_class == error_type.value
    assert "details from the adapter" in assessment.message


def test_service_5xx_reported_as_success_still_fails() -> None:
    assessment = assess_call(result(api=500, upstream=None))
    assert assessment.outcome is Outcome.FAIL and assessment.failure_class == "service_error"


def test_failure_without_error_type_fails() -> None:
    assessment = assess_call(result(content="", success=False, api=None, upstream=None))
    assert assessment.outcome is Outcome.FAIL and assessment.failure_class == "call_failed"


@pytest.mark.parametrize("content", ["", "   \n\t"])
def test_empty_content_on_success_fails(content: str) -> None:
    assessment = assess_call(result(content=content))
    assert assessment.outcome is Outcome.FAIL and assessment.failure_class == "empty_content"


def test_upstream_redirect_status_fails() -> None:
    assert assess_call(result(upstream=301)).failure_class == "upstream_status"


@pytest.mark.skipif(not hasattr(ErrorType, "REPLAY_UNREACHABLE"), reason="provider layer has no replay_unreachable yet")
def test_replay_unreachable_is_unresolvable() -> None:
    error_type = ErrorType("replay_unreachable")
    assessment = assess_call(result(content="", success=False, error_type=error_type, api=None, upstream=None))
    assert assessment.outcome is Outcome.UNRESOLVABLE
    assert assessment.failure_class == "replay_unreachable"
    assert assessment.message.startswith("replay_unreachable: a hosted service cannot reach the local replay server; "
                                         "run it with --live or --replay-public-url")
