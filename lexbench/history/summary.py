"""The history's default summary: per provider, its comparable runs one by one (SPEC §6, issue 31).

Runs are comparable when they share the **suite** (id and dataset sha256), the **scorer version** and the
provider's own **configuration** (:func:`lexbench.history.store.provider_configuration`). Each such group
is one :class:`Trend`; its :class:`RunFigures` are the run's figures for that provider, computed as the
report computes them (:mod:`lexbench.report.model`): pass rate = passed ÷ (passed + failed), unresolvable
apart; its 95 % interval from :func:`lexbench.run.stats.pass_rate_interval` with the report's key, so a
run's interval here is the one its report shows; component pass rates over the items where the
component was scored; p50 latency (nearest rank, answered items); summed cost per unit; noise = median
answer ÷ reference characters.

DuckDB aggregates; Python receives one row per run × provider (and per component), never the items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from lexbench.history.store import COMPLETE, FOREIGN, INCOMPLETE, REFUSED, History
from lexbench.report.model import COMPONENT_COLUMNS, COMPONENT_LABELS
from lexbench.report.numbers import interval_text, pct, ratio, secs
from lexbench.run import stats

RUN_FIGURES = """SELECT runs.suite, runs.dataset_sha256, runs.dataset_revision, runs.scorer_version, f.provider,
        f.provider_configuration_sha256, f.output_contract, runs.run, runs.name, runs.started, f.items, f.passed, f.failed,
        f.unresolvable, f.latency_p50_s, f.cost, f.cost_unit, f.noise
    FROM _figures AS f JOIN runs ON runs.run = f.run
    ORDER BY runs.suite, f.provider, runs.dataset_sha256, runs.scorer_version, f.provider_configuration_sha256,
             runs.started, runs.run"""

COMPONENT_FIGURES = "SELECT run, provider, component, scored, failures FROM _component_figures"


@dataclass
class RunFigures:
    """One run's figures for one provider (rates are shares in 0–1, latency seconds)."""

    run: str
    name: str
    started: str | None
    items: int
    passed: int
    failed: int
    unresolvable: int
    pass_rate: float | None
    interval: dict[str, float] | None
    components: dict[str, float | None]
    latency_p50_s: float | None
    cost: float | None
    cost_unit: str | None
    noise: float | None


@dataclass
class Trend:
    """One provider's comparable runs, oldest first."""

    suite: str
    dataset_sha256: str | None
    dataset_revision: str | None
    scorer_version: int | None
    provider: str
    provider_configuration_sha256: str | None
    output_contract: str
    runs: list[RunFigures] = field(default_factory=list)

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.suite, self.dataset_sha256, self.scorer_version, self.provider, self.provider_configuration_sha256)


def _interval(trend: Trend, passed: int, failed: int) -> dict[str, float] | None:
    return _interval_of(f"{trend.output_contract}:{trend.provider}", passed, failed)


@lru_cache(maxsize=65536)
def _interval_of(key: str, passed: int, failed: int) -> dict[str, float] | None:
    # Seeded by key: the same counts give the same interval, so a provider's steady nights cost one bootstrap.
    found = stats.pass_rate_interval([True] * passed + [False] * failed, key=key)
    return None if found is None else {"low": round(found.low, 4), "high": round(found.high, 4)}


def trends(history: History, *, intervals_for_last: int | None = None) -> list[Trend]:
    """Every :class:`Trend` of the history, by suite, provider, then dataset, scorer and configuration.
    ``intervals_for_last``: compute the bootstrap interval only for each trend's last N runs (``None``:
    all); the others carry ``interval = None``."""
    components: dict[tuple[str, str], dict[str, float | None]] = {}
    for run, provider, component, scored, failures in history.con.execute(COMPONENT_FIGURES).fetchall():
        components.setdefault((run, provider), {})[component] = (scored - failures) / scored if scored else None
    found: list[Trend] = []
    for row in history.con.execute(RUN_FIGURES).fetchall():
        (suite, dataset, revision, scorer, provider, config, contract, run, name, started, items, passed, failed,
         unresolvable, p50, cost, unit, noise) = row
        if not found or found[-1].key != (suite, dataset, scorer, provider, config):
            found.append(Trend(suite, dataset, revision, scorer, provider, config, contract))
        scored = passed + failed
        found[-1].runs.append(RunFigures(
            run=run, name=name, started=started.isoformat() if isinstance(started, datetime) else None, items=items,
            passed=passed, failed=failed, unresolvable=unresolvable, pass_rate=passed / scored if scored else None,
            interval=None, components=components.get((run, provider), {}), latency_p50_s=p50, cost=cost,
            cost_unit=unit, noise=noise))
    # A provider's trends in the order they began (a dataset or scorer change starts a new one).
    found.sort(key=lambda t: (t.suite, t.provider, t.runs[0].started or "", t.runs[0].run))
    known = history.intervals()
    new: dict[tuple[str, int, int], tuple[float, float]] = {}
    for trend in found:
        chosen = trend.runs if intervals_for_last is None else trend.runs[-intervals_for_last:] if intervals_for_last else []
        key = f"{trend.output_contract}:{trend.provider}"
        for figures in chosen:
            counts = (key, figures.passed, figures.failed)
            if counts in known:
                figures.interval = {"low": known[counts][0], "high": known[counts][1]}
                continue
            interval = _interval(trend, figures.passed, figures.failed)
            figures.interval = dict(interval) if interval else None  # a copy: the memoised one is shared
            if interval:
                new[counts] = (interval["low"], interval["high"])
    history.save_intervals(new)
    return found


def entries_json(history: History) -> dict[str, list[dict[str, str]]]:
    """The runs left out, by kind: ``incomplete``, ``refused``, ``ignored`` (foreign entries)."""
    kinds = {INCOMPLETE: "incomplete", REFUSED: "refused", FOREIGN: "ignored"}
    out: dict[str, list[dict[str, str]]] = {name: [] for name in kinds.values()}
    for entry in history.entries:
        if entry.kind in kinds:
            out[kinds[entry.kind]].append({"path": str(entry.path), "reason": entry.reason})
    return out


def summary_json(history: History) -> dict[str, Any]:
    """``lexbench history --json``: every trend with every run's figures, and the entries left out."""
    complete = sum(1 for e in history.entries if e.kind == COMPLETE)
    return {"runs": complete, "trends": [asdict(t) for t in trends(history)], **entries_json(history)}


def _short(digest: str | None) -> str:
    return digest[:12] if digest else "(none)"


def _cost(figures: RunFigures) -> str:
    return "–" if figures.cost is None else f"{figures.cost:.4f} {figures.cost_unit}"


def summary_lines(history: History, *, last: int = 10) -> list[str]:
    """The default summary as terminal lines: per trend its last ``last`` runs (0: all), then what was
    left out and why. Each trend says how many earlier runs it does not show."""
    lines: list[str] = []
    shown = trends(history, intervals_for_last=last or None)
    complete = sum(1 for e in history.entries if e.kind == COMPLETE)
    lines.append(f"lexbench history: {complete} complete run(s), {len(shown)} provider trend(s)")
    for trend in shown:
        # Only the components some run of this trend scored (comments, posts, anchors: where a case has them).
        columns = [c for c in COMPONENT_COLUMNS if any(f.components.get(c.value) is not None for f in trend.runs)]
        head = ["run", "items", "pass rate", "95 % interval", *[COMPONENT_LABELS[c] for c in columns], "p50 s", "cost", "noise"]
        lines.append("")
        lines.append(f"{trend.provider} ({trend.output_contract}) on suite {trend.suite} — dataset "
                     f"{_short(trend.dataset_sha256)} (revision {trend.dataset_revision or '?'}), scorer "
                     f"{trend.scorer_version if trend.scorer_version is not None else '?'}, configuration "
                     f"{_short(trend.provider_configuration_sha256)}: {len(trend.runs)} run(s)")
        runs = trend.runs[-last:] if last else trend.runs
        if len(runs) < len(trend.runs):
            lines.append(f"  … {len(trend.runs) - len(runs)} earlier run(s) not shown (--last 0 shows every run)")
        table = [head] + [[f.name, str(f.items), pct(f.pass_rate), interval_text(f.interval),
                           *[pct(f.components.get(c.value)) for c in columns],
                           secs(f.latency_p50_s), _cost(f), ratio(f.noise)] for f in runs]
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        for row in table:
            lines.append("  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                                          enumerate(zip(row, widths, strict=True))).rstrip())
    left = entries_json(history)
    for name, what in (("incomplete", "incomplete, left out of the trends"), ("refused", "refused, as lexbench report "
                       "refuses them"), ("ignored", "ignored (not run directories)")):
        if left[name]:
            lines.append("")
            lines.append(f"{len(left[name])} {what}:")
            lines.extend(f"  {item['reason']}" for item in left[name])
    return lines


def table_lines(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """``--sql``'s result as an aligned text table (``NULL`` for missing values), then the row count."""
    cells = [list(names)] + [["NULL" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(names))] if names else []
    out = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    if names:
        out.insert(1, "  ".join("-" * w for w in widths))
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return out
