"""Hostile answers are scored within bounded time and memory and always get a verdict (issue 11).

Each answer of :data:`~tests.reliability.hostile.CORPUS` is scored in a child process against the
synthetic article, comment and post cases. Its wall and CPU time and the peak memory scoring added are
printed (``-s``) and listed in the terminal summary; the only limits asserted are generous ones, since
timing depends on the machine: a minute of CPU, a gigabyte and a half of memory, five minutes of wall
time before the child is killed.
"""

from __future__ import annotations

import pytest

from tests.reliability.figures import report
from tests.reliability.hostile import CORPUS, measure

CPU_LIMIT_S = 60.0
WALL_LIMIT_S = 300.0
MEMORY_LIMIT_MB = 1500.0


@pytest.mark.slow
@pytest.mark.timeout(WALL_LIMIT_S + 60)
@pytest.mark.parametrize("name", [h.name for h in CORPUS])
def test_hostile_answer_gets_a_verdict_in_bounded_time_and_memory(request: pytest.FixtureRequest, name: str) -> None:
    measured = measure(name, deadline_s=WALL_LIMIT_S)
    print(f"\n{name}: {measured.chars:,} chars, {measured.wall_s:.2f} s wall, {measured.cpu_s:.2f} s CPU, "
          f"peak +{measured.peak_mb:.1f} MB; {measured.outcomes}")
    report(request.node, kind="hostile", name=name, chars=measured.chars, wall_s=round(measured.wall_s, 3),
           cpu_s=round(measured.cpu_s, 3), peak_mb=round(measured.peak_mb, 1))
    assert set(measured.outcomes.values()) <= {"pass", "fail"}, measured.explanations
    assert all(measured.explanations.values())
    assert measured.writable, "the verdict must serialise to the run record"
    assert measured.deterministic is not False, "scoring the same answer twice gave different verdicts"
    assert measured.cpu_s < CPU_LIMIT_S
    assert measured.peak_mb < MEMORY_LIMIT_MB
    if next(h for h in CORPUS if h.name == name).page_identity:
        # Catastrophic backtracking is cut off at the page-identity bound and reported, not waited out.
        assert measured.timed_out_patterns >= 1
        assert all("gave up after" in explanation for explanation in measured.explanations.values())


def test_the_corpus_covers_every_hostile_shape_the_issue_names() -> None:
    names = {h.name for h in CORPUS}
    for required in ("deep-html-100k", "million-tiny-elements", "unclosed-tags", "nul-bytes-html", "lone-surrogates",
                     "mixed-encodings", "bidi-controls", "zero-width-joiners", "repeated-fragment-10mb",
                     "regex-pathological", "nested-quotes"):
        assert required in names
    assert len(names) == len(CORPUS)



@pytest.mark.slow
@pytest.mark.timeout(WALL_LIMIT_S + 60)
def test_twenty_megabytes_of_emphasis_delimiters_stay_within_the_memory_promise_or_meet_the_budget() -> None:
    # Issue 19: 20 MB of "*a_" took 82 s of CPU and 3.46 GB (173x the answer; the README promises < 10x).
    # Such a paragraph is now read as plain text; what is left either fits the promise or meets the
    # scoring budget and becomes a scorer limit, never a crash or a gigabyte-sized peak.
    from lexbench.scoring.budget import DEFAULT_BUDGET, SCORER_LIMIT

    measured = measure("emphasis-delimiters-20mb", deadline_s=WALL_LIMIT_S, budgeted=True)
    print(f"\n{measured.chars:,} chars: {measured.cpu_s:.1f} s CPU, peak +{measured.peak_mb:.0f} MB; "
          f"{measured.failure_classes}")
    promise_mb = 10 * measured.chars / 2**20
    budget_mb = DEFAULT_BUDGET.memory_bytes(measured.chars) / 2**20
    for case_name, outcome in measured.outcomes.items():
        if measured.failure_classes[case_name] == SCORER_LIMIT:
            assert outcome == "unresolvable" and "scorer limit" in measured.explanations[case_name]
        else:
            assert outcome in {"pass", "fail"}, measured.explanations[case_name]
    limited = SCORER_LIMIT in measured.failure_classes.values()
    # The watchdog looks every 50 ms: a limit may be overshot by what scoring allocates meanwhile.
    assert measured.peak_mb < (budget_mb * 1.25 if limited else promise_mb), measured
    assert measured.cpu_s < DEFAULT_BUDGET.cpu_s * 3 + 10
