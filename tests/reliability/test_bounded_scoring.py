"""Scoring stays bounded (issue 19, item 4): every regular expression a case carries is searched
under the page-identity bound, and a pathological one costs the answer a few seconds, not minutes.

Each scoring runs in a child process killed past a deadline, so removing a bound fails the test
instead of hanging the session. The issue's ``https://news\\.example/(\\w+-?)+/`` took 30 s with
``re`` on a 28-character link (the ``regex`` engine happens to optimise that one); the pattern below
backtracks in both engines: 1.4 s on 28 characters, growing 1.6× per character, and the links here
have 40.
"""

from __future__ import annotations

import pytest

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.scoring.patterns import PATTERN_TIMEOUT_S
from tests.reliability.hostile import in_child
from tests.scoring.factories import (
    comment_contract,
    make_case,
    make_comment_case,
    make_post_case,
    markdown_page,
    post_contract,
    posts_markdown,
)

CATASTROPHIC = r"https://news\.example/(\w|\w\w)+/"
HOSTILE_LINK = "https://news.example/" + "a" * 40  # no closing "/": every split of the run is tried
DEADLINE_S = 120.0  # the bound is 2 s per pattern; a loaded machine gets a wide margin


def _answer(content: str) -> ProviderResult:
    return ProviderResult(success=True, content=content, content_format="markdown",
                          metadata=ResultMetadata(api_http_status=200, upstream_status=200))


def _links(count: int) -> str:
    return "\n\n".join(f"[story {n}]({HOSTILE_LINK}{n})" for n in range(count))


def score_href_pattern() -> tuple[str, str]:
    from lexbench.scoring import evaluate_response

    case = make_case(anchors={"link_floors": [{"id": "stories", "href_pattern": CATASTROPHIC, "minimum": 1,
                                               "location": "story list"}]})
    verdict = evaluate_response(case, _answer(markdown_page() + "\n\n" + _links(50)))
    anchors = next(c for c in verdict.components if c.name.value == "anchors")
    return verdict.outcome.value, anchors.evidence


def score_post_link_pattern() -> tuple[str, str]:
    from lexbench.scoring import evaluate_response

    case = make_post_case(posts=post_contract(post_link_pattern=CATASTROPHIC, html=None))
    verdict = evaluate_response(case, _answer(posts_markdown(extra=_links(50))))
    posts = next(c for c in verdict.components if c.name.value == "posts")
    return verdict.outcome.value, posts.evidence


def score_record_id_pattern() -> tuple[str, str]:
    from lexbench.scoring import evaluate_response

    case = make_comment_case(comments=comment_contract(record_id_pattern=CATASTROPHIC, html=None))
    section = "## 6 Comments\n\n" + "\n\n".join(
        f"### Reader {n}\n\n[March 3, 2026]({HOSTILE_LINK}{n})\n\nA comment about the lamp, number {n}." for n in range(20))
    verdict = evaluate_response(case, _answer(markdown_page() + "\n\n" + section))
    comments = next(c for c in verdict.components if c.name.value == "comments")
    return verdict.outcome.value, comments.evidence


@pytest.mark.slow
@pytest.mark.timeout(DEADLINE_S + 60)
@pytest.mark.parametrize("score", [score_href_pattern, score_post_link_pattern, score_record_id_pattern],
                         ids=["href_pattern", "post_link_pattern", "record_id_pattern"])
def test_a_catastrophic_case_pattern_gives_up_at_the_bound_and_says_so(score) -> None:  # type: ignore[no-untyped-def]
    outcome, evidence = in_child(score, (), DEADLINE_S)
    assert outcome in {"pass", "fail"}
    assert f"gave up after {PATTERN_TIMEOUT_S:g} s" in evidence, evidence


# --- the scoring budget ---------------------------------------------------------------------------


def test_scoring_past_its_budget_is_a_scorer_limit_not_a_provider_failure() -> None:
    from lexbench.scoring.budget import SCORER_LIMIT, ScoringBudget, score_within_budget

    slow = _answer(markdown_page() + "\n\n" + "[" * 2_000_000)  # markdown-it's link budget alone is 3 s of CPU
    verdict = score_within_budget(make_case(), slow, ScoringBudget(cpu_s=0.5))
    assert (verdict.outcome.value, verdict.failure_class) == ("unresolvable", SCORER_LIMIT)
    assert "budget" in verdict.explanation and "not charged to the provider" in verdict.explanation
    assert [c.name.value for c in verdict.components] == ["scorer"]
    ordinary = score_within_budget(make_case(), _answer(markdown_page()), ScoringBudget(cpu_s=0.5))
    assert ordinary.outcome.value == "pass"


SLOW_TO_SCORE = '''
import lexbench.scoring.budget as budget
from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.providers.local import ReferenceEcho

budget.DEFAULT_BUDGET = budget.ScoringBudget(cpu_s=0.5)
_fetch = ReferenceEcho.fetch


def _hostile(self, case, timeout, url):
    if case.id.startswith("article-002-"):
        return ProviderResult(success=True, content="[" * 2_000_000, content_format="markdown",
                              metadata=ResultMetadata(engine="reference-echo"))
    return _fetch(self, case, timeout, url)


ReferenceEcho.fetch = _hostile
'''


@pytest.mark.slow
def test_in_a_run_a_scorer_limit_is_recorded_apart_with_its_answer_saved(pytester, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The item is not ``crashed`` and not the provider's failure: ``unresolvable`` / ``scorer_limit``,
    its answer saved under ``responses/``, the other items scored as usual."""
    from lexbench.run.record import load_rows
    from tests.suite_factory import ARTICLES, write_suite

    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES)
    pytester.makeconftest(SLOW_TO_SCORE)
    run = tmp_path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}")
    output = result.stdout.str()
    rows = {row.case[:11]: row for row in load_rows(run)}
    limited = rows["article-002"]
    assert (limited.outcome.value, limited.failure_class, limited.error_type) == ("unresolvable", "scorer_limit", None), output[-3000:]
    assert limited.response_sha256 and (run / "responses" / f"{limited.response_sha256}.txt").stat().st_size == 2_000_000
    assert "scorer limit" in limited.explanation
    assert rows["article-001"].outcome.value == "pass"
    assert "crashed" not in output and result.ret == 0, output[-3000:]


pytestmark = pytest.mark.attack(item=4)  # counted in the terminal summary's reliability figures
