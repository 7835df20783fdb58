"""Bootstrap confidence intervals for pass rates (SPEC §6). Pure and seeded: same input, same bytes.

Both estimates resample **cases** with replacement:

- :func:`pass_rate_interval` — one provider's pass rate (pass ÷ scored) over its scored cases;
- :func:`paired_difference` — the difference between two providers' pass rates over the cases both
  scored, resampling the same cases for both (a paired bootstrap), so a case that is hard for every
  provider does not widen the interval of the difference.

Intervals are percentile intervals at :data:`CONFIDENCE`. Every estimate draws from its own
``random.Random(f"{seed}:{key}")``, so adding a provider to a run does not move another provider's
interval, and string seeding does not depend on ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

RESAMPLES = 2000
"""Bootstrap resamples per estimate."""
SEED = 20260611
"""The fixed seed every report uses (recorded in report.json)."""
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap percentile interval; all three in the estimate's unit."""

    estimate: float
    low: float
    high: float

    def excludes_zero(self) -> bool:
        """Whether zero lies outside the interval (a difference the data support)."""
        return self.low > 0 or self.high < 0


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
    values = [1 if o else 0 for o in outcomes]
    draws = [sum(rng.choices(values, k=n)) / n for _ in range(resamples)]
    return _percentile_interval(sum(values) / n, draws, confidence)


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
    differences = [(1 if x else 0) - (1 if y else 0) for x, y in zip(a, b, strict=True)]
    draws = [sum(rng.choices(differences, k=n)) / n for _ in range(resamples)]
    return _percentile_interval(sum(differences) / n, draws, confidence)
