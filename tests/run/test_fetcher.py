"""``lexbench.assert_passes`` and the case a user's test receives, without a pytest session (issue 20)."""

import html
import subprocess
import sys

import pytest

import lexbench
from lexbench.answer import ErrorType, ProviderResult
from lexbench.dataset.suite import load_suite
from lexbench.providers.call import MAX_BODY_BYTES
from lexbench.run.fetcher import CaseTarget, VerdictFailure, answer_result, timed, utf8_size
from lexbench.scoring.budget import score_within_budget
from lexbench.verdict import Outcome


@pytest.fixture(scope="module")
def case():
    return next(c for c in load_suite("demo").cases if c.id == "article-001-en-carrick-tidal-array")


def reviewed_lines(case):
    """What the reference-echo control answers for an article: title, reference body, stable phrases."""
    return [case.title, case.reference_text, *[p for group in case.stable_groups for p in group.phrases]]


def as_markdown(case):
    return f"# {case.title}\n\n" + "\n\n".join(line for line in "\n".join(reviewed_lines(case)[1:]).split("\n") if line)


def as_html(case):
    body = "".join(f"<p>{html.escape(line)}</p>" for line in "\n".join(reviewed_lines(case)[1:]).split("\n") if line)
    title = html.escape(case.title)
    return f"<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>"


def test_the_package_exports_assert_passes_and_an_explicit_all():
    assert lexbench.assert_passes is lexbench.run.fetcher.assert_passes
    from lexbench.scoring.evaluate import evaluate_response

    assert lexbench.evaluate_response is evaluate_response
    assert lexbench.load_suite is load_suite
    assert {"assert_passes", "evaluate_response", "load_suite"} <= set(lexbench.__all__)
    assert set(lexbench.__all__) <= set(dir(lexbench))
    assert all(getattr(lexbench, name) is not None for name in lexbench.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        lexbench.nope  # noqa: B018


@pytest.mark.slow  # starts a Python process (a clean sys.modules)
def test_a_script_scores_an_answer_through_the_exported_names_without_pytest_or_httpx():
    # The README's "Scripting a suite": the public names load the suite and score, and importing them pulls in
    # neither the providers' HTTP client nor pytest.
    code = ("import sys, lexbench\n"
            "suite = lexbench.load_suite('demo')\n"
            "case = suite.cases[0]\n"
            "v = lexbench.evaluate_response(case, lexbench.ProviderResult(success=True, content=''))\n"
            "print(v.outcome.value, 'httpx' in sys.modules, 'pytest' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["fail", "False", "False"]


@pytest.mark.parametrize(("render", "sniffed"), [(lambda c: "\n".join(reviewed_lines(c)), "text"),
                                                  (as_markdown, "markdown"), (as_html, "html")])
def test_a_string_answer_is_sniffed_as_the_scorer_reads_it_and_passes(case, render, sniffed):
    answer = render(case)
    assert answer_result(answer).content_format == sniffed
    verdict = lexbench.assert_passes(case, answer)
    assert verdict.outcome is Outcome.PASS
    assert verdict == score_within_budget(case, ProviderResult(success=True, content=answer, content_format=sniffed))


def test_a_given_format_overrides_the_sniffing(case):
    markdown = as_markdown(case)
    assert answer_result(markdown, "text").content_format == "text"
    result = ProviderResult(success=True, content=markdown)
    assert answer_result(result, "markdown").content_format == "markdown"
    assert answer_result(result) is result


def test_a_fail_verdict_raises_an_assertion_error_whose_message_is_the_explanation(case):
    with pytest.raises(VerdictFailure) as raised:
        lexbench.assert_passes(case, "Nothing about tides here.")
    assert isinstance(raised.value, AssertionError)
    assert raised.value.verdict.outcome is Outcome.FAIL
    assert str(raised.value) == raised.value.verdict.explanation and str(raised.value).startswith("fail: ")


def test_an_unresolvable_verdict_skips_with_its_reason(case):
    answer = ProviderResult.failure(ErrorType.MISSING_CREDENTIALS, "ACME_KEY is unset")
    with pytest.raises(pytest.skip.Exception, match=r"^unresolvable: .*ACME_KEY is unset"):
        lexbench.assert_passes(case, answer)


def test_answers_it_cannot_score_are_refused_with_the_fix(case):
    with pytest.raises(TypeError, match="decode the bytes to str first"):
        lexbench.assert_passes(case, b"<html></html>")
    with pytest.raises(ValueError, match="html, markdown, text; omit it to sniff"):
        lexbench.assert_passes(case, "text", format="pdf")
    with pytest.raises(TypeError, match="lexbench_case fixture"):
        lexbench.assert_passes(case.id, "text")


def test_the_case_target_is_the_case_with_the_url_to_fetch(case):
    resolved = []
    target = CaseTarget(case, lambda: resolved.append(1) or "http://127.0.0.1:9/c/x")
    assert target.id == case.id and target.category == case.category and target.case is case
    assert target.original_url == case.url and not resolved  # the URL is resolved on first read only
    assert target.url == target.url == "http://127.0.0.1:9/c/x" and resolved == [1]
    with pytest.raises(AttributeError):
        target.no_such_field  # noqa: B018


def test_the_target_hands_the_scored_answer_to_its_sink(case):
    seen = []
    target = CaseTarget(case, case.url, sink=lambda result, verdict, received: seen.append((result, verdict)))
    verdict = lexbench.assert_passes(target, as_markdown(case))
    assert seen == [(answer_result(as_markdown(case)), verdict)]


def test_a_measured_latency_is_kept_and_a_missing_one_filled_in():
    assert timed(ProviderResult(success=True, latency_s=1.5), 0.2).latency_s == 1.5
    assert timed(ProviderResult(success=True), 0.2).latency_s == 0.2
    assert timed(ProviderResult(success=True), -1.0).latency_s == 0.0


def test_an_answer_over_the_body_ceiling_fails_too_large_unscored_and_reaches_the_sink(case):
    # 10,000,001 characters in 20,000,002 UTF-8 bytes: under the ceiling counted in characters, over it in bytes.
    over = "é" * (MAX_BODY_BYTES // 2) + "é"
    seen = []
    target = CaseTarget(case, case.url, sink=lambda result, verdict, received: seen.append((result, verdict)))
    with pytest.raises(VerdictFailure, match="20,000,002 bytes, over the 20,000,000-byte ceiling") as raised:
        lexbench.assert_passes(target, over)
    [(result, verdict)] = seen
    assert not result.success and result.error_type is ErrorType.TOO_LARGE and result.content == ""
    assert verdict is raised.value.verdict and verdict.outcome is Outcome.FAIL
    given = ProviderResult(success=True, content=over, final_url="https://example.org/a", latency_s=2.5)
    refused = answer_result(given, "text")
    assert refused.error_type is ErrorType.TOO_LARGE and refused.latency_s == 2.5
    assert refused.final_url == "https://example.org/a" and "20,000,002 bytes" in refused.error_message


def test_an_answer_at_the_body_ceiling_is_kept_whole():
    at = "é" * (MAX_BODY_BYTES // 2)  # exactly 20,000,000 UTF-8 bytes
    result = answer_result(at, "text")
    assert result.success and result.content is at
    given = ProviderResult(success=True, content="x" * MAX_BODY_BYTES)
    assert answer_result(given) is given
    assert utf8_size("a\U0001f600\ud800é") == len("a\U0001f600\ud800é".encode("utf-8", "surrogatepass")) == 10
