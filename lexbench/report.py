"""Leaderboard and report built from run rows (SPEC §6). Pure: rows in, text out.

The pass rate is passed ÷ (passed + failed): ``unresolvable`` items (the operator's setup stopped the
call) are counted apart, never as failures. The noise figure — median answer size ÷ reference size —
sits beside every pass rate, because the contracts measure recall and a whole-page dump passes them
as often as a good extractor does.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lexbench.record import RunRow
from lexbench.verdict import Component, Outcome

CONTRACT_TITLES = {
    "cleaned": "Readable content (cleaned output)",
    "rendered_html": "Rendered HTML (diagnostics)",
    "control": "Controls (scorer sanity checks, not providers)",
}
LEADERBOARD_COMPONENTS = (Component.TITLE, Component.REGIONS, Component.ENDING, Component.STABLE_GROUPS)
"""Components whose pass rates sit beside every leaderboard row."""
COMPONENT_COLUMNS = (Component.CALL, Component.TITLE, Component.REGIONS, Component.ENDING,
                     Component.STABLE_GROUPS, Component.PAGE_IDENTITY, Component.COMMENTS, Component.POSTS)


@dataclass(frozen=True)
class ProviderSummary:
    """Aggregates for one provider. Latencies in seconds; ``noise`` = median answer ÷ reference chars."""

    provider: str
    output_contract: str
    items: int
    passed: int
    failed: int
    unresolvable: int
    latency_p50: float | None
    latency_p95: float | None
    noise: float | None
    component_failures: dict[str, int]
    component_scored: dict[str, int]
    failure_classes: dict[str, int]

    @property
    def pass_rate(self) -> float | None:
        scored = self.passed + self.failed
        return self.passed / scored if scored else None

    def component_pass_rate(self, component: Component) -> float | None:
        """Share of items where ``component`` was scored and passed; ``None`` when never scored."""
        scored = self.component_scored.get(component.value, 0)
        return (scored - self.component_failures.get(component.value, 0)) / scored if scored else None


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (``share`` in 0–1) of ``values``; ``None`` when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, round(share * len(ordered) + 0.4999))
    return ordered[min(rank, len(ordered)) - 1]


def summarise(rows: Iterable[RunRow]) -> list[ProviderSummary]:
    """One :class:`ProviderSummary` per provider, ordered by contract, then pass rate (best first)."""
    by_provider: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        by_provider[row.provider].append(row)
    summaries = []
    for provider, items in by_provider.items():
        outcomes = Counter(row.outcome for row in items)
        latencies = [row.latency_s for row in items if row.latency_s is not None and row.outcome is not Outcome.UNRESOLVABLE]
        ratios = [row.content_chars / row.reference_chars for row in items if row.reference_chars and row.outcome is not Outcome.UNRESOLVABLE]
        failures: Counter[str] = Counter()
        scored: Counter[str] = Counter()
        for row in items:
            for component in row.components:
                if component.passed is not None:
                    scored[component.name.value] += 1
                if component.passed is False:
                    failures[component.name.value] += 1
        classes = Counter(row.failure_class for row in items if row.outcome is not Outcome.PASS and row.failure_class)
        summaries.append(
            ProviderSummary(
                provider=provider,
                output_contract=items[0].output_contract,
                items=len(items),
                passed=outcomes[Outcome.PASS],
                failed=outcomes[Outcome.FAIL],
                unresolvable=outcomes[Outcome.UNRESOLVABLE],
                latency_p50=percentile(latencies, 0.5),
                latency_p95=percentile(latencies, 0.95),
                noise=statistics.median(ratios) if ratios else None,
                component_failures=dict(failures),
                component_scored=dict(scored),
                failure_classes=dict(sorted(classes.items())),
            )
        )
    order = list(CONTRACT_TITLES)
    summaries.sort(key=lambda s: (order.index(s.output_contract) if s.output_contract in order else 99,
                                  -(s.pass_rate or 0.0), s.provider))
    return summaries


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f} %"


def _secs(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def leaderboard_lines(summaries: Sequence[ProviderSummary]) -> list[str]:
    """Markdown tables: one leaderboard per output contract, then component failures."""
    lines: list[str] = []
    for contract, heading in CONTRACT_TITLES.items():
        group = [s for s in summaries if s.output_contract == contract]
        if not group:
            continue
        lines += [f"### {heading}", "",
                  "| provider | items | pass | fail | unresolvable | pass rate | title | regions | ending | stable groups "
                  "| p50 s | p95 s | noise (answer ÷ reference) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for s in group:
            parts = " | ".join(_pct(s.component_pass_rate(c)) for c in LEADERBOARD_COMPONENTS)
            lines.append(f"| {s.provider} | {s.items} | {s.passed} | {s.failed} | {s.unresolvable} | {_pct(s.pass_rate)} "
                         f"| {parts} | {_secs(s.latency_p50)} | {_secs(s.latency_p95)} | {_ratio(s.noise)} |")
        lines.append("")
    columns = [c for c in COMPONENT_COLUMNS if any(s.component_failures.get(c.value) for s in summaries)]
    if columns:
        lines += ["### Failed components per provider", "",
                  "| provider | " + " | ".join(c.value for c in columns) + " | failure classes |",
                  "|---|" + "---:|" * len(columns) + "---|"]
        for s in summaries:
            classes = ", ".join(f"{k} {v}" for k, v in s.failure_classes.items()) or "–"
            lines.append(f"| {s.provider} | " + " | ".join(str(s.component_failures.get(c.value, 0)) for c in columns)
                         + f" | {classes} |")
        lines.append("")
    return lines


def render_markdown(rows: Sequence[RunRow], manifest: dict) -> str:
    """The whole ``report.md``: header, leaderboards, notes on flagged cases, failed items."""
    suite = manifest.get("suite", {})
    lines = ["# lexbench report", "",
             f"Suite **{suite.get('id', '?')}** (revision {suite.get('revision', '?')}, "
             f"{suite.get('review_status', '?')}), {len({r.case for r in rows})} cases, "
             f"{len({r.provider for r in rows})} providers, {len(rows)} items.", ""]
    if suite.get("review_status") == "imported_unreviewed":
        lines += ["> This suite was imported from a public corpus and has not been reviewed: its cases have no "
                  "stable groups or page identity, and titles are scored only where the source has an "
                  "independent one.", ""]
    lines += ["Pass rate = pass ÷ (pass + fail); unresolvable items are counted apart. Coverage is a tolerance "
              "on 6-character fragments, not proof of exact text.", ""]
    lines += leaderboard_lines(summarise(rows))
    flagged = sorted({(r.case, f) for r in rows for f in r.flags})
    if flagged:
        lines += ["### Flagged cases", ""] + [f"- `{case}`: {flag}" for case, flag in flagged] + [""]
    failed = [r for r in rows if r.outcome is not Outcome.PASS]
    if failed:
        lines += ["### Items that did not pass", "", "| item | verdict | why |", "|---|---|---|"]
        for r in sorted(failed, key=lambda r: (r.provider, r.case)):
            lines.append(f"| `{r.item_id}` | {r.outcome.value} | {r.explanation.replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)


def render_terminal(rows: Sequence[RunRow]) -> list[str]:
    """A compact fixed-width leaderboard for the end of the pytest session.

    Beside the verdict counts it shows each main component's pass rate, so a provider that fails
    every case on one component (say, stable site text) is not mistaken for one that misses bodies.
    """
    names = {Component.TITLE: "title", Component.REGIONS: "regions", Component.ENDING: "ending",
             Component.STABLE_GROUPS: "stable"}
    head = f"{'provider':<20} {'contract':<8} {'pass':>5} {'fail':>5} {'unres':>5} {'rate':>8}"
    head += "".join(f" {names[c]:>8}" for c in LEADERBOARD_COMPONENTS) + f" {'p50 s':>7} {'noise':>7}"
    out = [head]
    for s in summarise(rows):
        line = (f"{s.provider:<20} {s.output_contract:<8} {s.passed:>5} {s.failed:>5} {s.unresolvable:>5} "
                f"{_pct(s.pass_rate):>8}")
        line += "".join(f" {_pct(s.component_pass_rate(c)):>8}" for c in LEADERBOARD_COMPONENTS)
        out.append(line + f" {_secs(s.latency_p50):>7} {_ratio(s.noise):>7}")
    out.append("rate = pass ÷ (pass + fail); component columns = share of scored items where it passed; "
               "noise = median answer ÷ reference size")
    return out
