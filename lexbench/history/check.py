"""The regression alarm: each provider's latest run against its previous comparable one (SPEC §6, issue 31).

For every suite × provider, the **latest** run (by start time) is paired with the **previous** run of the
same suite and the same provider configuration (:func:`lexbench.history.store.provider_configuration`).
When the two differ in dataset sha256 or scorer version they are **not comparable**: said so, never a
regression. Otherwise the cases both runs scored (pass or fail; unresolvable items are the operator's
setup, left out as in every pass rate) are paired, and the discordant pairs counted: ``b`` pass → fail,
``c`` fail → pass. The exact McNemar test (:func:`mcnemar_exact`) asks whether ``b`` and ``c`` differ more
than chance would make them; the check fails (exit 1) when, for some provider, ``b > c`` and the test's
p < α, or ``b`` exceeds ``--max-new-failures``. A significant improvement is listed, never an alarm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from typing import Any

from lexbench.history.store import History

ALPHA = 0.05


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs: under the null each
    discordant pair is a fair coin, so ``min(b, c)`` is Binomial(b + c, ½) and
    p = min(1, 2 · P(X ≤ min(b, c))). Exact integer arithmetic (no scipy); 1.0 when there is no
    discordant pair. Raises ``ValueError`` for a negative count."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be ≥ 0, got {b} and {c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2 ** n)


@dataclass
class Flip:
    """One case whose verdict changed; ``components`` are the failing components of the run where it failed."""

    case: str
    before: str
    after: str
    components: list[str]


@dataclass
class ProviderCheck:
    """One provider's pairing. ``status``: ``compared``, ``not comparable`` or ``single run``."""

    suite: str
    provider: str
    latest: str
    previous: str | None
    status: str
    reason: str = ""
    paired: int = 0
    new_failures: list[Flip] = field(default_factory=list)
    fixed: list[Flip] = field(default_factory=list)
    p_value: float | None = None
    regression: bool = False


_LATEST = """SELECT suite, provider, provider_configuration_sha256, run, name, dataset_sha256, scorer_version, started,
        row_number() OVER (PARTITION BY suite, provider ORDER BY started DESC, run DESC) AS newest,
        row_number() OVER (PARTITION BY suite, provider, provider_configuration_sha256 ORDER BY started DESC, run DESC) AS within
    FROM (SELECT DISTINCT runs.suite, i.provider, i.provider_configuration_sha256, runs.run, runs.name, runs.dataset_sha256,
                 runs.scorer_version, runs.started FROM items AS i JOIN runs ON runs.run = i.run)
    QUALIFY within <= 2"""

_PAIRS = """WITH failing AS (
        SELECT run, "case", list(component ORDER BY component) AS failed FROM components
        WHERE provider = $provider AND run IN ($before, $after) AND passed = false GROUP BY run, "case")
    SELECT a."case", a.outcome, b.outcome, coalesce(fa.failed, []), coalesce(fb.failed, [])
    FROM items AS a JOIN items AS b ON a."case" = b."case"
    LEFT JOIN failing AS fa ON fa.run = a.run AND fa."case" = a."case"
    LEFT JOIN failing AS fb ON fb.run = b.run AND fb."case" = b."case"
    WHERE a.run = $before AND b.run = $after AND a.provider = $provider AND b.provider = $provider
      AND a.outcome IN ('pass', 'fail') AND b.outcome IN ('pass', 'fail')
    ORDER BY a."case\""""


def _short(digest: str | None) -> str:
    return digest[:12] if digest else "(none)"


def check(history: History, *, alpha: float = ALPHA, max_new_failures: int | None = None) -> list[ProviderCheck]:
    """Every suite × provider's pairing of its latest run with the previous comparable one (module docstring)."""
    lineage: dict[tuple[str, str, Any], list[tuple[Any, ...]]] = {}
    latest: dict[tuple[str, str], tuple[Any, ...]] = {}
    for row in history.con.execute(_LATEST).fetchall():
        suite, provider, config, *_, newest, within = row
        lineage.setdefault((suite, provider, config), []).append(row)
        if newest == 1:
            latest[(suite, provider)] = row
    out = []
    for (suite, provider), now in sorted(latest.items()):
        runs = sorted(lineage[(suite, provider, now[2])], key=lambda r: r[-1])
        if len(runs) < 2:
            out.append(ProviderCheck(suite, provider, now[4], None, "single run",
                                     "no earlier run with this provider configuration"))
            continue
        before = runs[1]
        result = ProviderCheck(suite, provider, now[4], before[4], "compared")
        changed = []
        if before[5] != now[5]:
            changed.append(f"dataset {_short(before[5])} → {_short(now[5])}")
        if before[6] != now[6]:
            changed.append(f"scorer version {before[6]} → {now[6]}")
        if changed:
            result.status, result.reason = "not comparable", "; ".join(changed)
            out.append(result)
            continue
        pairs = history.con.execute(_PAIRS, {"provider": provider, "before": before[3], "after": now[3]}).fetchall()
        result.paired = len(pairs)
        for case, was, now_outcome, failed_before, failed_after in pairs:
            if was == "pass" and now_outcome == "fail":
                result.new_failures.append(Flip(case, was, now_outcome, list(failed_after)))
            elif was == "fail" and now_outcome == "pass":
                result.fixed.append(Flip(case, was, now_outcome, list(failed_before)))
        b, c = len(result.new_failures), len(result.fixed)
        result.p_value = mcnemar_exact(b, c)
        result.regression = (b > c and result.p_value < alpha) or (max_new_failures is not None and b > max_new_failures)
        out.append(result)
    return out


def check_lines(results: list[ProviderCheck], *, alpha: float = ALPHA, max_new_failures: int | None = None) -> list[str]:
    """The check as terminal lines: per provider its pairing, each flip with its failing components,
    and the verdict line last."""
    lines = []
    for r in results:
        head = f"{r.provider} on suite {r.suite}: {r.latest}"
        if r.status == "single run":
            lines.append(f"{head}: {r.reason}; nothing to compare")
            continue
        if r.status == "not comparable":
            lines.append(f"{head} vs {r.previous}: not comparable ({r.reason}); a changed dataset or scorer is "
                         "not a regression")
            continue
        b, c = len(r.new_failures), len(r.fixed)
        verdict = "REGRESSION" if r.regression else "significant" if r.p_value is not None and r.p_value < alpha else "not significant"
        lines.append(f"{head} vs {r.previous}: {r.paired} paired case(s), {b} pass → fail, {c} fail → pass; "
                     f"exact McNemar p = {r.p_value:.4g} (α {alpha:g}): {verdict}")
        for flip in r.new_failures:
            lines.append(f"  pass → fail  {flip.case}  (fails {', '.join(flip.components) or 'no component'})")
        for flip in r.fixed:
            lines.append(f"  fail → pass  {flip.case}  (failed {', '.join(flip.components) or 'no component'})")
    regressed = [r.provider for r in results if r.regression]
    threshold = f" or more than {max_new_failures} new failure(s)" if max_new_failures is not None else ""
    lines.append(f"history --check: regression in {', '.join(regressed)} (significant at α {alpha:g}{threshold})"
                 if regressed else f"history --check: no regression (α {alpha:g}{threshold})")
    return lines
