"""Bootstrap confidence intervals for pass rates (SPEC §6). Pure and seeded: same input, same bytes.

Both estimates resample **cases** with replacement:

- :func:`pass_rate_interval` — one provider's pass rate (pass ÷ scored) over its scored cases;
- :func:`paired_difference` — the difference between two providers' pass rates over the cases both
  scored, resampling the same cases for both (a paired bootstrap), so a case that is hard for every
  provider does not widen the interval of the difference.

Intervals are percentile intervals at :data:`CONFIDENCE`. Every estimate draws from its own
``random.Random(f"{seed}:{key}")``, so adding a provider to a run does not move another provider's
interval, and string seeding does not depend on ``PYTHONHASHSEED``.

**How a resample is drawn.** A resample of ``n`` cases picks ``n`` case indices independently and
uniformly, and its statistic is the mean of the picked values — which depends only on *how many* of
each value were picked, not on which cases. So each resample's counts are drawn directly, in O(1)
per resample instead of ``n`` random numbers:

- pass rate: with ``k`` passes among ``n`` cases, each pick is a pass with probability ``k/n``,
  independently of the others, so the number of passes in a resample is exactly
  ``Binomial(n, k/n)`` and the resampled rate is that count ÷ ``n``;
- paired difference: each case's difference is −1, 0 or +1, with counts ``(c₋, c₀, c₊)``; the
  resample's counts of the three values are ``Multinomial(n; c₋/n, c₀/n, c₊/n)``. That is drawn as
  ``P ~ Binomial(n, c₊/n)`` for the +1s, then — the other ``n − P`` picks being independent picks
  among the −1 and 0 cases only — ``M ~ Binomial(n − P, c₋/(c₋ + c₀))`` for the −1s; the
  resampled difference is ``(P − M) ÷ n``.

So the bootstrap distribution, and hence the statistic reported, is the same as resampling the
cases one by one (``rng.choices(values, k=n)``); only the particular random numbers differ.

Each binomial draw is an inverse-CDF lookup, ``bisect_right(cdf, rng.random())``, in a table built
once per distribution (:func:`binomial_table`). The table is computed from the mode outwards with
the ratio of neighbouring probabilities, ``P(x+1)/P(x) = (n−x)·p / ((x+1)·(1−p))``, each ratio one
correctly rounded division of integers, and normalised by its sum; it stops where the probability
left out on either side is below 2⁻⁶⁴ of the mode's (far below the 2⁻⁵³ step of ``random()``).
It needs no ``exp``/``log``/``lgamma`` (whose last bits vary between C libraries), so the tables —
and the reports — are the same bytes on every platform; at ``n = 1 000 000`` its CDF is within 1e-14
of a 50-digit computation.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

RESAMPLES = 2000
"""Bootstrap resamples per estimate."""
SEED = 20260611
"""The fixed seed every report uses (recorded in report.json)."""
CONFIDENCE = 0.95
DRAWS = "exact-binomial-counts"
"""How each resample is drawn (recorded in report.json): its pass count from the exact binomial (paired:
the +1s, then the -1s among the rest) by inverse CDF. Earlier lexbench versions drew case by case
(``rng.choices``): the same statistic, other random numbers, so their interval ends differ slightly."""

_NEGLIGIBLE = 2.0 ** -64
"""Probability (relative to the mode's) a binomial table may leave out on each side."""


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap percentile interval; all three in the estimate's unit."""

    estimate: float
    low: float
    high: float

    def excludes_zero(self) -> bool:
        """Whether zero lies outside the interval (a difference the data support)."""
        return self.low > 0 or self.high < 0


def binomial_table(n: int, successes: int, population: int) -> tuple[int, list[float]]:
    """Inverse-CDF table of ``Binomial(n, p)`` with ``p = successes / population`` (integers, so
    ``p = 0`` and ``p = 1`` are exact): ``(first, cdf)`` where ``cdf[i] = P(X ≤ first + i)``, over the
    values whose probability is not negligible, with ``cdf[-1] == 1.0``.

    Draw with :func:`binomial_draw`. See the module docstring for how the table is computed.
    """
    if n < 0 or not 0 <= successes <= population or population <= 0:
        raise ValueError(f"binomial_table needs n ≥ 0 and 0 ≤ successes ≤ population > 0 "
                         f"(got {n}, {successes}, {population})")
    if n == 0 or successes == 0:
        return 0, [1.0]
    failures = population - successes
    if failures == 0:
        return n, [1.0]
    mode = min(n, (n + 1) * successes // population)  # floor((n + 1)·p): a most likely value
    # Weights relative to the mode's probability (so all ≤ 1 and none underflow before the cut).
    below: list[float] = []
    weight, x = 1.0, mode
    while x > 0:
        weight *= x * failures / ((n - x + 1) * successes)  # P(x−1) / P(x)
        x -= 1
        below.append(weight)
        ratio = x * failures / ((n - x + 1) * successes)  # the next ratio; they fall away from the mode
        if weight * ratio < _NEGLIGIBLE * (1 - ratio):  # the geometric bound on the rest of the tail
            break
    first = x
    above: list[float] = []
    weight, x = 1.0, mode
    while x < n:
        weight *= (n - x) * successes / ((x + 1) * failures)  # P(x+1) / P(x)
        x += 1
        above.append(weight)
        ratio = (n - x) * successes / ((x + 1) * failures)
        if weight * ratio < _NEGLIGIBLE * (1 - ratio):
            break
    weights = below[::-1] + [1.0] + above
    total = math.fsum(weights)
    cdf = [c / total for c in accumulate(weights)]
    cdf[-1] = 1.0
    return first, cdf


def binomial_draw(table: tuple[int, list[float]], rng: random.Random) -> int:
    """One draw from a :func:`binomial_table` (one ``rng.random()``)."""
    first, cdf = table
    return first + min(bisect_right(cdf, rng.random()), len(cdf) - 1)


def _percentile_interval(estimate: float, draws: list[float], confidence: float) -> Interval:
    draws.sort()
    tail = (1 - confidence) / 2
    low = draws[max(0, math.floor(tail * len(draws)))]
    high = draws[min(len(draws) - 1, math.ceil((1 - tail) * len(draws)) - 1)]
    return Interval(estimate=estimate, low=low, high=high)


def pass_rate_interval(outcomes: Sequence[bool], *, key: str, seed: int = SEED, resamples: int = RESAMPLES,
                       confidence: float = CONFIDENCE) -> Interval | None:
    """Pass rate of ``outcomes`` (one bool per scored case: passed or not) with its bootstrap interval.

    ``key`` names the estimate (e.g. ``"cleaned:trafilatura"``) and picks its random stream. Returns
    ``None`` when there is no scored case. Rates are shares in 0–1.
    """
    n = len(outcomes)
    if n == 0:
        return None
    rng = random.Random(f"{seed}:{key}")
    passes = sum(1 for o in outcomes if o)
    table = binomial_table(n, passes, n)  # passes in a resample of n cases (module docstring)
    draws = [binomial_draw(table, rng) / n for _ in range(resamples)]
    return _percentile_interval(passes / n, draws, confidence)


def paired_difference(a: Sequence[bool], b: Sequence[bool], *, key: str, seed: int = SEED,
                      resamples: int = RESAMPLES, confidence: float = CONFIDENCE) -> Interval | None:
    """Pass rate of ``a`` minus pass rate of ``b`` over the same cases (``a[i]`` and ``b[i]`` are one
    case), with a paired bootstrap interval. Raises ``ValueError`` when the lengths differ; returns
    ``None`` when there is no shared case.
    """
    if len(a) != len(b):
        raise ValueError(f"paired outcomes need one value per case for both providers ({len(a)} ≠ {len(b)})")
    n = len(a)
    if n == 0:
        return None
    rng = random.Random(f"{seed}:{key}")
    plus = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    minus = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    rest = n - plus  # cases whose difference is −1 or 0
    plus_table = binomial_table(n, plus, n)
    minus_tables: dict[int, tuple[int, list[float]]] = {}  # M | P ~ Binomial(n − P, minus / rest), per n − P
    draws = []
    for _ in range(resamples):
        drawn_plus = binomial_draw(plus_table, rng)
        others = n - drawn_plus
        table = minus_tables.get(others)
        if table is None:
            table = minus_tables[others] = binomial_table(others, minus, rest) if rest else (0, [1.0])
        draws.append((drawn_plus - binomial_draw(table, rng)) / n)
    return _percentile_interval((plus - minus) / n, draws, confidence)
