"""The runtime policy in :func:`call_provider`: retries, the final attempt's result, costs, late answers,
abandoned workers never overlapped (SPEC §5)."""

from __future__ import annotations

import threading
import time

import pytest

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata, assess_call
from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers.base import Provider
from lexbench.providers.call import FetchError
from lexbench.providers.policy import call_and_assess
from lexbench.scoring.evaluate import evaluate_response
from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


class Scripted(Provider):
    """Answers from a script: each entry is a result, an exception, or (seconds to sleep, result)."""

    type_name = "scripted"
    needs_network = False

    def __init__(self, script, **kwargs):
        super().__init__(**kwargs)
        self.script = list(script)
        self.calls = 0
        self.running = 0
        self.most_running = 0
        self._lock = threading.Lock()

    def fetch(self, case, timeout, url):
        with self._lock:
            step = self.script[min(self.calls, len(self.script) - 1)]
            self.calls += 1
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            if isinstance(step, tuple):
                seconds, step = step
                time.sleep(seconds)  # ignores the deadline on purpose: the watchdog must cope
            if isinstance(step, Exception):
                raise step
            return step
        finally:
            with self._lock:
                self.running -= 1


def ok(content="# Title\n\nBody text.", cost=None):
    return ProviderResult(success=True, content=content, content_format="markdown",
                          metadata=ResultMetadata(cost=cost, cost_unit="usd" if cost else None))


def failed(error_type=ErrorType.SERVICE_ERROR, cost=None):
    return ProviderResult.failure(error_type, "the service broke", metadata=ResultMetadata(api_http_status=503, cost=cost))


def test_one_failure_retry_by_default_and_the_final_attempt_supplies_the_result(case):
    provider = Scripted([failed(cost=0.01), ok(cost=0.02)])
    result = call_provider(provider, case, case.url)
    assert result.success and result.content.startswith("# Title")
    assert [a.error_type for a in result.attempts] == [ErrorType.SERVICE_ERROR, None]
    assert [a.api_http_status for a in result.attempts] == [503, None]
    assert result.latency_s == result.attempts[-1].latency_s
    assert result.metadata.cost == 0.02 and result.metadata.cost_total == pytest.approx(0.03)


def test_retries_are_overridable_and_every_attempt_is_kept(case):
    provider = Scripted([failed()])
    assert len(call_provider(provider, case, case.url, RuntimePolicy(retries=0)).attempts) == 1
    result = call_provider(Scripted([failed()]), case, case.url, RuntimePolicy(retries=3))
    assert len(result.attempts) == 4 and result.error_type is ErrorType.SERVICE_ERROR


@pytest.mark.parametrize("error_type", [ErrorType.AUTH, ErrorType.RATE_LIMITED, ErrorType.BLOCKED_NETWORK,
                                        ErrorType.TOO_LARGE])
def test_setup_problems_and_refusals_are_not_retried(case, error_type):
    result = call_provider(Scripted([failed(error_type)]), case, case.url)
    assert len(result.attempts) == 1


def test_a_raised_fetch_error_is_a_result_not_a_crash(case):
    result = call_provider(Scripted([FetchError(ErrorType.DNS, "cannot resolve x")]), case, case.url, RuntimePolicy(retries=0))
    assert result.error_type is ErrorType.DNS and result.error_message == "cannot resolve x"


def test_a_late_answer_is_discarded(case):
    provider = Scripted([(1.3, ok("# Late\n\nanswer"))])
    result = call_provider(provider, case, case.url, RuntimePolicy(timeout_s=1.0, retries=0, grace_s=1.0))
    assert not result.success and result.error_type is ErrorType.TIMEOUT
    assert result.content == "" and "past the 1 s deadline; discarded" in result.error_message
    assert result.attempts[0].late


def test_an_abandoned_worker_is_never_overlapped_by_the_retry(case):
    provider = Scripted([(1.0, ok()), ok("# Second\n\nattempt")])
    start = time.monotonic()
    result = call_provider(provider, case, case.url, RuntimePolicy(timeout_s=0.5, retries=1, grace_s=0.2))
    assert provider.most_running == 1  # the retry waited for the abandoned call to end
    assert result.attempts[0].error_type is ErrorType.TIMEOUT and "abandoned" in result.attempts[0].error_message
    assert result.success and result.content.startswith("# Second")
    assert time.monotonic() - start >= 1.0


def test_a_worker_still_running_after_another_deadline_blocks_the_next_call(case):
    provider = Scripted([(3.0, ok()), ok()])
    policy = RuntimePolicy(timeout_s=0.5, retries=0, grace_s=0.1)
    first = call_provider(provider, case, case.url, policy)
    second = call_provider(provider, case, case.url, policy)  # the first worker still sleeps
    assert first.error_type is ErrorType.TIMEOUT
    assert second.error_type is ErrorType.TIMEOUT and "quarantined" in second.error_message
    assert provider.calls == 1 and provider.most_running == 1


def test_missing_credentials_make_no_call(case, monkeypatch):
    monkeypatch.delenv("LEXBENCH_TEST_KEY", raising=False)
    provider = Scripted([ok()], options={"api_key": "${LEXBENCH_TEST_KEY}"})
    result = call_provider(provider, case, case.url)
    assert result.error_type is ErrorType.MISSING_CREDENTIALS and "LEXBENCH_TEST_KEY" in result.error_message
    assert provider.calls == 0 and result.attempts == []


def test_the_result_is_the_answer_and_its_redacted_copy_carries_no_credential(case, monkeypatch):
    """The scorer sees what the provider answered; the provider's redactor masks every field written."""
    secret = "sk-test/ABCdef+123=="
    monkeypatch.setenv("LEXBENCH_TEST_KEY", secret)
    leaky = ProviderResult.failure(ErrorType.SERVICE_ERROR, f"bad key {secret}", content=f"echo {secret}",
                                   title=secret, metadata=ResultMetadata(billing={"key": secret}, request_id=secret))
    provider = Scripted([leaky, ValueError(f"crash with {secret}")], options={"api_key": "${LEXBENCH_TEST_KEY}"})
    result = call_provider(provider, case, case.url)
    assert result.attempts[0].error_message == f"bad key {secret}"  # as answered
    written = provider.redactor().result(result)
    assert secret not in written.model_dump_json()
    assert written.attempts[0].error_message == "bad key [REDACTED]"
    assert "crash with [REDACTED]" in written.error_message
    provider = Scripted([leaky], options={"api_key": "${LEXBENCH_TEST_KEY}"})
    result = call_provider(provider, case, case.url, RuntimePolicy(retries=0))
    assert result.content == f"echo {secret}"
    written = provider.redactor().result(result)
    assert secret not in written.model_dump_json()
    assert written.content == "echo [REDACTED]" and written.title == "[REDACTED]"


class PreparedOnce(Scripted):
    """Its preparation fails from the second attempt on (its worker died after a failed call)."""

    type_name = "prepared-once"

    def prepare(self):
        if self.calls:
            raise RuntimeError("the worker is gone")


@pytest.mark.parametrize("provider", [
    Scripted([ok()]), Scripted([failed(), ok()]), Scripted([failed()]), Scripted([failed(ErrorType.AUTH)]),
    Scripted([ProviderResult(success=True, content=" \n")]),
    Scripted([ok().model_copy(update={"metadata": ResultMetadata(upstream_status=404)})]),
    PreparedOnce([failed()]),
], ids=["ok", "retried-ok", "failed", "auth", "blank", "upstream-404", "prepare-failed-on-retry"])
def test_the_assessment_handed_to_the_scorer_is_the_final_results(case, provider):
    """The policy assesses each attempt to decide on a retry; the scorer reuses the final one's
    assessment, so it must be exactly what assessing the returned result gives."""
    result, call = call_and_assess(provider, case, case.url)
    assert call == assess_call(result)
    assert evaluate_response(case, result, call) == evaluate_response(case, result)


def test_the_assessment_of_a_call_never_made_is_handed_on_too(case, monkeypatch):
    monkeypatch.delenv("LEXBENCH_TEST_KEY", raising=False)
    result, call = call_and_assess(Scripted([ok()], options={"api_key": "${LEXBENCH_TEST_KEY}"}), case, case.url)
    assert call.failure_class == "missing_credentials" and call == assess_call(result)


def test_policy_rejects_nonsense():
    with pytest.raises(ValueError, match="positive"):
        RuntimePolicy(timeout_s=0)
    with pytest.raises(ValueError, match="0 to 100, got -1"):
        RuntimePolicy(retries=-1)
