"""Single-pass fragment coverage (SPEC §3.4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lexbench.scoring.coverage import measure
from lexbench.text import fragments, normalise


def test_coverage_counts_positions_and_finds_each_string_anywhere() -> None:
    output = normalise("The harbour lights shone; the harbour slept.")
    results = measure(output, {"region": ["harbou", "harbou", "lights", "nopezz"], "phrase": ["slept"]})
    region = results["region"]
    assert (region.total, region.found, region.missing) == (4, 3, ("nopezz",))
    assert region.coverage == 0.75
    assert results["phrase"].found == 1


def test_empty_sets_and_empty_needles() -> None:
    results = measure("anything", {"none": [], "blank": [""]})
    assert results["none"].coverage == 1.0
    assert results["blank"].found == 1


def test_empty_output_finds_nothing() -> None:
    result = measure("", {"region": ["abcdef"]})["region"]
    assert result.found == 0 and result.coverage == 0.0


def test_reaches_is_exact_at_the_threshold() -> None:
    result = measure("abcdefghijklmnopqrstuvwxyz1234", {"r": ["abcdef", "ghijkl", "mnopqr", "stuvwx", "zzzzzz"]})["r"]
    assert result.reaches(4, 5)  # exactly 80 %
    assert not result.reaches(5, 6)


@given(st.text(min_size=0, max_size=300), st.text(min_size=0, max_size=300))
def test_matches_a_naive_substring_scan(reference: str, output: str) -> None:
    needles = fragments(reference)
    norm = normalise(output)
    result = measure(norm, {"r": needles})["r"]
    assert result.found == sum(1 for n in needles if n in norm)
    assert result.total == len(needles)
