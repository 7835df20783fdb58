"""Seeded bootstrap intervals for pass rates and paired differences (SPEC §6)."""

import math
import random
import statistics
from fractions import Fraction
from itertools import accumulate

import pytest

from lexbench.run.stats import (Interval, _percentile_interval, binomial_draw, binomial_table, paired_difference,
                            pass_rate_interval)


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


# The exact draws (a binomial count per resample, module docstring of lexbench.run.stats) against the
# definition they replace: resampling the cases one by one.

def _naive_interval(values, resamples, confidence, seed):
    rng = random.Random(seed)
    n = len(values)
    return _percentile_interval(sum(values) / n, [sum(rng.choices(values, k=n)) / n for _ in range(resamples)],
                                confidence)


@pytest.mark.parametrize(("n", "passes"), [(200, 150), (120, 12), (60, 59), (300, 150)])
def test_pass_rate_interval_agrees_with_resampling_cases(n, passes):
    outcomes = [True] * passes + [False] * (n - passes)
    for confidence in (0.5, 0.8, 0.95):
        new = pass_rate_interval(outcomes, key=f"agree:{n}", confidence=confidence, resamples=4000)
        old = _naive_interval([1 if o else 0 for o in outcomes], 4000, confidence, seed=n)
        assert new.estimate == old.estimate == passes / n
        assert abs(new.low - old.low) <= 0.02 and abs(new.high - old.high) <= 0.02, (confidence, new, old)


@pytest.mark.parametrize(("minus", "zero", "plus"), [(20, 100, 30), (5, 60, 15), (40, 20, 40), (0, 70, 10)])
def test_paired_difference_agrees_with_resampling_cases(minus, zero, plus):
    a = [False] * minus + [True] * zero + [True] * plus
    b = [True] * minus + [True] * zero + [False] * plus
    n = len(a)
    for confidence in (0.5, 0.8, 0.95):
        new = paired_difference(a, b, key=f"agree:{n}", confidence=confidence, resamples=4000)
        old = _naive_interval([-1] * minus + [0] * zero + [1] * plus, 4000, confidence, seed=n)
        assert new.estimate == old.estimate == (plus - minus) / n
        assert abs(new.low - old.low) <= 0.02 and abs(new.high - old.high) <= 0.02, (confidence, new, old)


def test_intervals_collapse_when_every_resample_is_the_same():
    for outcomes in ([True], [False], [True] * 50, [False] * 50):
        rate = pass_rate_interval(outcomes, key="k")
        assert rate.low == rate.estimate == rate.high == (1.0 if outcomes[0] else 0.0)
    for a, b, difference in (([True] * 30, [False] * 30, 1.0), ([False] * 30, [True] * 30, -1.0),
                             ([True], [False], 1.0), ([False], [True], -1.0), ([True], [True], 0.0)):
        gap = paired_difference(a, b, key="k")
        assert gap.low == gap.estimate == gap.high == difference
    # Only +1 and 0 cases (no −1): a resample's difference lies in 0–1, and is 0 only if it picks no +1 case.
    gap = paired_difference([True] * 10 + [False] * 30, [False] * 40, key="k")
    assert 0 < gap.low < gap.estimate == 0.25 < gap.high <= 1


def test_a_million_cases():
    rate = pass_rate_interval([True, False] * 500_000, key="k")
    assert rate.estimate == 0.5 and 0.4985 < rate.low < 0.4995 and 0.5005 < rate.high < 0.5015


def test_intervals_are_pinned_for_every_platform():
    # The tables use only integer ratios and + × ÷ (no libm), so these are the same bytes everywhere;
    # a change here changes every report.
    assert pass_rate_interval([True] * 30 + [False] * 10, key="cleaned:a") == Interval(0.75, 0.6, 0.875)
    assert paired_difference([True] * 30 + [False] * 10, [i % 2 == 0 for i in range(40)],
                             key="cleaned:a:b") == Interval(0.25, 0.05, 0.45)


@pytest.mark.parametrize(("n", "successes", "population"),
                         [(0, 3, 7), (1, 0, 1), (1, 1, 1), (1, 1, 2), (10, 3, 10), (37, 12, 20), (50, 1, 50),
                          (50, 49, 50), (200, 77, 200), (1000, 999, 1000)])
def test_binomial_table_is_the_binomial_cdf(n, successes, population):
    first, cdf = binomial_table(n, successes, population)
    p = Fraction(successes, population)
    exact = list(accumulate(math.comb(n, x) * p ** x * (1 - p) ** (n - x) for x in range(n + 1)))
    assert 0 <= first <= first + len(cdf) - 1 <= n and cdf[-1] == 1.0
    assert first == 0 or exact[first - 1] < 1e-18  # what the table leaves out below
    for i, value in enumerate(cdf):
        assert abs(value - exact[first + i]) < 1e-14


def test_binomial_table_edges_and_size():
    assert binomial_table(10**6, 0, 10**6) == (0, [1.0])
    assert binomial_table(10**6, 10**6, 10**6) == (10**6, [1.0])
    first, cdf = binomial_table(10**6, 500_000, 10**6)
    assert first < 500_000 < first + len(cdf) and len(cdf) < 12_000  # ±~10 sd, not a million entries
    assert all(x <= y for x, y in zip(cdf, cdf[1:]))
    with pytest.raises(ValueError):
        binomial_table(5, 3, 2)


@pytest.mark.parametrize(("n", "successes", "population"),
                         [(40, 30, 40), (50, 10, 50), (1000, 999, 1000), (37, 12, 20), (10**6, 1234, 10**6),
                          (10**6, 500_000, 10**6)])
def test_binomial_draws_have_the_binomial_mean_and_variance(n, successes, population):
    table = binomial_table(n, successes, population)
    rng = random.Random(f"moments:{n}:{successes}")
    draws = [binomial_draw(table, rng) for _ in range(20_000)]
    assert all(0 <= d <= n for d in draws)
    p = successes / population
    mean, variance = n * p, n * p * (1 - p)
    assert abs(statistics.fmean(draws) - mean) < 5 * math.sqrt(variance / len(draws))
    assert abs(statistics.pvariance(draws) / variance - 1) < 0.06
