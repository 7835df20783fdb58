"""Seeded bootstrap intervals for pass rates and paired differences (SPEC §6)."""

import pytest

from lexbench.stats import paired_difference, pass_rate_interval


def test_interval_brackets_the_rate_and_is_reproducible():
    outcomes = [True] * 30 + [False] * 10
    first = pass_rate_interval(outcomes, key="cleaned:a")
    assert first.estimate == 0.75
    assert 0.55 < first.low < 0.75 < first.high < 0.9
    assert pass_rate_interval(outcomes, key="cleaned:a") == first


def test_degenerate_samples():
    assert pass_rate_interval([], key="k") is None
    every = pass_rate_interval([True] * 7, key="k")
    assert (every.estimate, every.low, every.high) == (1.0, 1.0, 1.0)
    assert paired_difference([], [], key="k") is None


def test_paired_difference_tells_real_gaps_from_noise():
    strong = [True] * 40
    weak = [i % 4 == 0 for i in range(40)]
    gap = paired_difference(strong, weak, key="k")
    assert gap.estimate == 0.75 and gap.excludes_zero()
    # One case apart in 40: no evidence either way.
    near = weak[:]
    near[1] = True
    tie = paired_difference(near, weak, key="k")
    assert tie.estimate == 0.025 and not tie.excludes_zero()
    same = paired_difference(weak, weak, key="k")
    assert (same.low, same.high) == (0.0, 0.0) and not same.excludes_zero()


def test_paired_difference_needs_one_value_per_case():
    with pytest.raises(ValueError, match="one value per case"):
        paired_difference([True], [True, False], key="k")
