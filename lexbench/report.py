"""Reports built from a run record (SPEC §6). Pure: manifest + rows in, bytes out.

:func:`build_report` turns a run into one JSON-able dict (``report.json``); :func:`render_markdown`
and :func:`lexbench.report_html.render_html` present the same figures. :func:`write_reports` writes
all three into the run directory from one :class:`ReportModel` (:func:`build_model` orders the rows
and summarises and bootstraps each provider once; :func:`markdown_from_model`,
:func:`json_from_model` and :func:`lexbench.report_html.html_from_model` render it). ``lexbench
report RUN`` calls it again and gets the same bytes: rows are ordered before anything is computed,
the bootstrap is seeded (:mod:`lexbench.stats`), and nothing reads the clock, the host or the session
(shard, argv, start/end) — so a run merged from shards reports exactly like the unsharded run over
the same results.

The pass rate is passed ÷ (passed + failed): ``unresolvable`` items (the operator's setup stopped the
call) are counted apart, never as failures. The noise figure — median answer size ÷ reference size,
with the median answer tokens — sits beside every pass rate, because the contracts measure recall and
a whole-page dump passes them as often as a good extractor does.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench import stats
from lexbench.record import RESPONSES_DIR, RunRow, scorer_version
from lexbench.rundir import write_file
from lexbench.verdict import Component, Outcome

REPORT_SCHEMA = 1
CONTRACT_TITLES = {
    "cleaned": "Readable content (cleaned output)",
    "rendered_html": "Rendered HTML (diagnostics)",
    "control": "Controls (scorer sanity checks, not providers)",
}
LEADERBOARD_COMPONENTS = (Component.TITLE, Component.REGIONS, Component.ENDING, Component.STABLE_GROUPS,
                          Component.COMMENTS, Component.POSTS)
"""Components whose pass rates sit beside every leaderboard row."""
COMPONENT_COLUMNS = (Component.CALL, Component.TITLE, Component.REGIONS, Component.ENDING,
                     Component.STABLE_GROUPS, Component.PAGE_IDENTITY, Component.COMMENTS, Component.POSTS,
                     Component.ANCHORS)
"""Components whose failures are counted per provider, in this order."""
COMPONENT_LABELS = {Component.CALL: "call", Component.TITLE: "title", Component.REGIONS: "regions",
                    Component.ENDING: "ending", Component.STABLE_GROUPS: "stable groups",
                    Component.PAGE_IDENTITY: "identity", Component.COMMENTS: "comments", Component.POSTS: "posts",
                    Component.ANCHORS: "anchors"}
BREAKDOWNS = (("track", "track"), ("category", "category"), ("lang", "language"))
"""Row fields the pass rates are broken down by, with their headings."""


@dataclass(frozen=True)
class ProviderSummary:
    """Aggregates for one provider.

    Latencies in seconds (final attempt, unresolvable items left out); ``noise`` = median answer ÷
    reference chars; ``answer_tokens`` the median answer size by :func:`lexbench.record.count_tokens`;
    ``interval`` the pass rate's 95 % bootstrap interval over cases; ``cost`` the summed cost per
    billing unit; ``attempts`` physical calls; ``retried`` items that took more than one call.
    """

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
    interval: stats.Interval | None = None
    answer_tokens: float | None = None
    latencies: tuple[float, ...] = ()
    attempts: int = 0
    retried: int = 0
    cost: dict[str, float] | None = None
    costed_items: int = 0
    boilerplate: tuple[int, int, int] | None = None
    """``(found, probes, pages)``: ``without`` snippets found in the answers, listed, and the answered
    pages that list them (trafilatura-eval); ``None`` when no case of the run has such probes."""

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


def row_cost(row: RunRow) -> tuple[str, float] | None:
    """``(unit, cost)`` of one item: the metadata's total over every attempt, else the attempts' costs
    summed, else the final call's cost; ``None`` when the provider reported no cost."""
    meta = row.metadata
    unit = meta.cost_unit or "units"
    if meta.cost_total is not None:
        return unit, meta.cost_total
    costs = [a.cost for a in row.attempts if a.cost is not None]
    if costs:
        return unit, sum(costs)
    if meta.cost is not None:
        return unit, meta.cost
    return None


def ordered_rows(rows: Iterable[RunRow]) -> list[RunRow]:
    """Rows in report order (case, then provider): independent of finishing order, workers and shards."""
    return sorted(rows, key=lambda r: (r.case, r.provider))


def _contract_rank(contract: str) -> int:
    order = list(CONTRACT_TITLES)
    return order.index(contract) if contract in order else len(order)


def _boilerplate(answered: Sequence[RunRow]) -> tuple[int, int, int] | None:
    probed = [row for row in answered if row.boilerplate_probes is not None and row.boilerplate_found is not None]
    if not probed:
        return None
    return (sum(row.boilerplate_found or 0 for row in probed), sum(row.boilerplate_probes or 0 for row in probed),
            len(probed))


def summarise(rows: Iterable[RunRow]) -> list[ProviderSummary]:
    """One :class:`ProviderSummary` per provider, ordered by contract, then pass rate (best first), then name."""
    by_provider: dict[str, list[RunRow]] = defaultdict(list)
    for row in ordered_rows(rows):
        by_provider[row.provider].append(row)
    summaries = []
    for provider, items in sorted(by_provider.items()):
        outcomes = Counter(row.outcome for row in items)
        answered = [row for row in items if row.outcome is not Outcome.UNRESOLVABLE]
        latencies = sorted(row.latency_s for row in answered if row.latency_s is not None)
        ratios = [row.content_chars / row.reference_chars for row in answered if row.reference_chars]
        tokens = [row.content_tokens for row in answered if row.content_tokens is not None]
        failures: Counter[str] = Counter()
        scored: Counter[str] = Counter()
        for row in items:
            for component in row.components:
                if component.passed is not None:
                    scored[component.name.value] += 1
                if component.passed is False:
                    failures[component.name.value] += 1
        classes = Counter(row.failure_class for row in items if row.outcome is not Outcome.PASS and row.failure_class)
        costs: dict[str, float] = defaultdict(float)
        costed = 0
        for row in items:
            found = row_cost(row)
            if found is not None:
                costs[found[0]] += found[1]
                costed += 1
        contract = items[0].output_contract
        summaries.append(ProviderSummary(
            provider=provider,
            output_contract=contract,
            items=len(items),
            passed=outcomes[Outcome.PASS],
            failed=outcomes[Outcome.FAIL],
            unresolvable=outcomes[Outcome.UNRESOLVABLE],
            latency_p50=percentile(latencies, 0.5),
            latency_p95=percentile(latencies, 0.95),
            noise=statistics.median(ratios) if ratios else None,
            component_failures=dict(sorted(failures.items())),
            component_scored=dict(sorted(scored.items())),
            failure_classes=dict(sorted(classes.items())),
            interval=stats.pass_rate_interval([r.outcome is Outcome.PASS for r in items if r.outcome is not Outcome.UNRESOLVABLE],
                                              key=f"{contract}:{provider}"),
            answer_tokens=statistics.median(tokens) if tokens else None,
            latencies=tuple(latencies),
            attempts=sum(max(1, len(row.attempts)) for row in items),
            retried=sum(1 for row in items if len(row.attempts) > 1),
            cost=dict(sorted(costs.items())) if costs else None,
            costed_items=costed,
            boilerplate=_boilerplate(answered),
        ))
    summaries.sort(key=lambda s: (_contract_rank(s.output_contract), -(s.pass_rate or 0.0), s.provider))
    return summaries


@dataclass(frozen=True)
class Comparison:
    """Two providers of one output contract over the cases both scored (pass or fail).

    ``difference`` is ``first``'s pass rate minus ``second``'s with its paired-bootstrap interval;
    ``real`` when that interval excludes zero. ``first`` is the better-ranked provider. ``first_noise``
    and ``second_noise`` are each one's noise figure (median answer size ÷ reference size) over the
    shared cases both answered, so a lead in pass rate is read beside what it costs a reader (issue 17).
    """

    output_contract: str
    first: str
    second: str
    shared_cases: int
    first_rate: float
    second_rate: float
    difference: stats.Interval
    first_noise: float | None = None
    second_noise: float | None = None

    @property
    def real(self) -> bool:
        return self.difference.excludes_zero()


def compare(rows: Iterable[RunRow], summaries: Sequence[ProviderSummary]) -> list[Comparison]:
    """Paired comparisons of every two providers within each output contract except controls, in
    leaderboard order. Pairs with no shared scored case are left out."""
    rows = list(rows)
    scored = {(r.provider, r.case): r.outcome is Outcome.PASS for r in rows if r.outcome is not Outcome.UNRESOLVABLE}
    noise = {(r.provider, r.case): r.content_chars / r.reference_chars for r in rows
             if r.outcome is not Outcome.UNRESOLVABLE and r.content_chars and r.reference_chars}
    out = []
    for contract in CONTRACT_TITLES:
        if contract == "control":
            continue
        group = [s.provider for s in summaries if s.output_contract == contract]
        for i, first in enumerate(group):
            for second in group[i + 1:]:
                cases = sorted(c for (p, c) in scored if p == first and (second, c) in scored)
                a = [scored[(first, c)] for c in cases]
                b = [scored[(second, c)] for c in cases]
                interval = stats.paired_difference(a, b, key=f"{contract}:{first}:{second}")
                if interval is None:
                    continue
                both = [c for c in cases if (first, c) in noise and (second, c) in noise]
                out.append(Comparison(output_contract=contract, first=first, second=second, shared_cases=len(cases),
                                      first_rate=sum(a) / len(a), second_rate=sum(b) / len(b), difference=interval,
                                      first_noise=statistics.median(noise[(first, c)] for c in both) if both else None,
                                      second_noise=statistics.median(noise[(second, c)] for c in both) if both else None))
    return out


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _interval(interval: stats.Interval | None) -> dict[str, float] | None:
    return None if interval is None else {"low": _round(interval.low), "high": _round(interval.high)}


def response_link(row: RunRow) -> str | None:
    """The saved answer's path relative to the run directory (``responses/<sha256>.txt``), if any."""
    return f"{RESPONSES_DIR}/{row.response_sha256}.txt" if row.response_sha256 else None


def _run_facts(manifest: dict[str, Any]) -> dict[str, Any]:
    # Only what is the same for every session and shard of one run: never argv, host, times or shard.
    suite = manifest.get("suite", {})
    run = manifest.get("run", {})
    configuration = manifest.get("configuration", {})
    certification = manifest.get("certification") or {}
    return {
        "suite": {key: suite.get(key) for key in ("id", "revision", "review_status", "dataset_sha256", "cases")},
        "providers": list(manifest.get("providers", [])),
        "configuration_sha256": manifest.get("configuration_sha256"),
        "mode": configuration.get("mode", manifest.get("mode")),
        "runtime_policy": configuration.get("runtime_policy"),
        "measure_only": bool(run.get("measure_only")),
        "certified": bool(certification.get("certified")) if run.get("certified_requested") else None,
        "scorer_version": scorer_version(manifest),
    }


@dataclass(frozen=True)
class ReportModel:
    """One run's report computed once, for every renderer: ``rows`` in report order
    (:func:`ordered_rows`), their :func:`summarise` ``summaries`` and ``data``, the plain-data report
    (:func:`build_report`, ``report.json``)."""

    rows: list[RunRow]
    summaries: list[ProviderSummary]
    data: dict[str, Any]


def build_model(rows: Iterable[RunRow], manifest: dict[str, Any]) -> ReportModel:
    """Order, summarise and compare ``rows`` once (the bootstraps run here) for all the renderers."""
    ordered = ordered_rows(rows)
    summaries = summarise(ordered)
    return ReportModel(rows=ordered, summaries=summaries, data=_report_data(ordered, manifest, summaries))


def build_report(rows: Sequence[RunRow], manifest: dict[str, Any]) -> dict[str, Any]:
    """The whole report as plain data (``report.json``): run facts, leaderboards with bootstrap
    intervals, pairwise comparisons, breakdowns, component failures, latency and cost, failure classes,
    flagged cases and every item that did not pass (with its saved answer's relative path).

    Rates are shares in 0–1 and latencies seconds, rounded to 4 decimals.
    """
    return build_model(rows, manifest).data


def _report_data(rows: list[RunRow], manifest: dict[str, Any], summaries: list[ProviderSummary]) -> dict[str, Any]:
    # ``rows`` in report order, ``summaries`` = summarise(rows).
    comparisons = compare(rows, summaries)
    providers = [s.provider for s in summaries]
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA,
        "run": _run_facts(manifest),
        "method": {
            "pass_rate": "pass / (pass + fail); unresolvable items are counted apart",
            "interval": f"{int(stats.CONFIDENCE * 100)} % percentile bootstrap over cases",
            "resamples": stats.RESAMPLES, "seed": stats.SEED, "draws": stats.DRAWS,
            "comparison": "paired bootstrap of the pass-rate difference over the cases both providers scored; "
                          "real when its interval excludes 0",
        },
        "counts": {"cases": len({r.case for r in rows}), "providers": len(providers), "items": len(rows)},
        "leaderboards": [],
        "comparisons": [],
        "breakdowns": {},
        "components": [],
        "latency_and_cost": [],
        "failure_classes": [],
        "flagged": [{"case": case, "flag": flag} for case, flag in sorted({(r.case, f) for r in rows for f in r.flags})],
        "not_passed": [],
    }
    for contract, title in CONTRACT_TITLES.items():
        group = [s for s in summaries if s.output_contract == contract]
        if not group:
            continue
        report["leaderboards"].append({"output_contract": contract, "title": title, "providers": [{
            "provider": s.provider, "items": s.items, "pass": s.passed, "fail": s.failed,
            "unresolvable": s.unresolvable, "pass_rate": _round(s.pass_rate), "interval": _interval(s.interval),
            "components": {c.value: _round(s.component_pass_rate(c)) for c in LEADERBOARD_COMPONENTS},
            "latency_p50_s": _round(s.latency_p50), "latency_p95_s": _round(s.latency_p95),
            "noise": _round(s.noise), "answer_tokens": s.answer_tokens,
            **({} if s.boilerplate is None else {"boilerplate_probes": dict(zip(("found", "probes", "pages"), s.boilerplate))}),
        } for s in group]})
    report["comparisons"] = [{
        "output_contract": c.output_contract, "first": c.first, "second": c.second, "shared_cases": c.shared_cases,
        "first_rate": _round(c.first_rate), "second_rate": _round(c.second_rate),
        "difference": _round(c.difference.estimate), "interval": _interval(c.difference), "real": c.real,
        "first_noise": _round(c.first_noise), "second_noise": _round(c.second_noise),
    } for c in comparisons]
    for field, _ in BREAKDOWNS:
        groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
        for r in rows:
            cell = groups[getattr(r, field)][r.provider]
            if r.outcome is not Outcome.UNRESOLVABLE:
                cell[1] += 1
                cell[0] += r.outcome is Outcome.PASS
        report["breakdowns"][field] = [{
            "group": group,
            "cases": len({r.case for r in rows if getattr(r, field) == group}),
            "providers": {p: {"pass": groups[group][p][0], "scored": groups[group][p][1],
                              "pass_rate": _round(groups[group][p][0] / groups[group][p][1]) if groups[group][p][1] else None}
                          for p in providers if p in groups[group]},
        } for group in sorted(groups)]
    report["components"] = [{
        "provider": s.provider, "output_contract": s.output_contract,
        "failures": {c.value: s.component_failures.get(c.value, 0) for c in COMPONENT_COLUMNS},
        "scored": {c.value: s.component_scored.get(c.value, 0) for c in COMPONENT_COLUMNS},
    } for s in summaries]
    report["latency_and_cost"] = [{
        "provider": s.provider, "timed_items": len(s.latencies), "latency_p50_s": _round(s.latency_p50),
        "latency_p95_s": _round(s.latency_p95), "latency_max_s": _round(max(s.latencies)) if s.latencies else None,
        "attempts": s.attempts, "retried_items": s.retried,
        "cost": {unit: _round(v, 6) for unit, v in s.cost.items()} if s.cost else None, "costed_items": s.costed_items,
    } for s in summaries]
    report["failure_classes"] = [{"provider": s.provider, "classes": s.failure_classes} for s in summaries]
    report["not_passed"] = [{
        "item": r.item_id, "case": r.case, "provider": r.provider, "outcome": r.outcome.value,
        "failure_class": r.failure_class, "explanation": r.explanation, "answer": response_link(r),
    } for r in rows if r.outcome is not Outcome.PASS]
    return report


def render_json(rows: Sequence[RunRow], manifest: dict[str, Any]) -> str:
    """``report.json``: :func:`build_report` as UTF-8 JSON, indent 2, one trailing newline."""
    return json_from_model(build_model(rows, manifest))


def json_from_model(model: ReportModel) -> str:
    """:func:`render_json` of a prebuilt :class:`ReportModel`."""
    return json.dumps(model.data, ensure_ascii=False, indent=2) + "\n"


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal (``–`` for ``None``)."""
    return "–" if value is None else f"{value * 100:.1f} %"


def secs(value: float | None) -> str:
    """Seconds with three decimals (``–`` for ``None``)."""
    return "–" if value is None else f"{value:.3f}"


def ratio(value: float | None) -> str:
    """A ratio with two decimals and ``×`` (``–`` for ``None``)."""
    return "–" if value is None else f"{value:.2f}×"


def interval_text(interval: dict[str, float] | None) -> str:
    """``low–high`` as percentages (``–`` for ``None``)."""
    return "–" if interval is None else f"{interval['low'] * 100:.1f}–{interval['high'] * 100:.1f} %"


def signed_pct(value: float) -> str:
    """A difference of shares in percentage points, with its sign."""
    return f"{value * 100:+.1f} pp"


def tokens_text(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def cost_text(cost: dict[str, float] | None) -> str:
    """Summed cost per billing unit, e.g. ``0.0120 usd``; ``–`` when nothing was billed."""
    return "–" if not cost else ", ".join(f"{value:.4f} {unit}" for unit, value in cost.items())


def run_lines(report: dict[str, Any]) -> list[str]:
    """The report's opening facts as plain sentences (shared by Markdown and HTML)."""
    run = report["run"]
    suite = run["suite"]
    counts = report["counts"]
    policy = run.get("runtime_policy") or {}
    lines = [
        f"Suite {suite.get('id') or '?'} (revision {suite.get('revision') or '?'}, {suite.get('review_status') or '?'}), "
        f"dataset sha256 {(suite.get('dataset_sha256') or '?')[:12]}: {counts['cases']} cases × {counts['providers']} "
        f"providers = {counts['items']} items recorded.",
        f"Configuration sha256 {(run.get('configuration_sha256') or '?')[:12]}; mode {run.get('mode') or '?'}; "
        f"{policy.get('timeout_s', '?')} s per call, retries on failure: {policy.get('retries', '?')}; "
        f"scorer version {run.get('scorer_version') or 'not recorded (before version 2)'}.",
    ]
    if run["certified"] is True:
        lines.append("Certified run: frozen provider list, clean recorded configuration, suite bindings verified, every item run.")
    elif run["certified"] is False:
        lines.append("Certification was requested but not reached (see manifest.json → certification).")
    if run["measure_only"]:
        lines.append("Measure-only run: scored evidence for diagnostics; it does not certify anything.")
    return lines


_MD_SPECIAL = {ord(c): "\\" + c for c in "\\`*_[]<>&!|~#"}


def md_text(value: object) -> str:
    """``value`` as Markdown that renders as its own text, even inside a table cell: whitespace runs
    (line breaks too) become one space and every character that could open HTML, an entity, a link or
    image, a code span, emphasis or a cell boundary is backslash-escaped. For everything an answer, a
    provider or a case supplies (issue 19: an API's error body must not become ``<script>`` or a
    ``javascript:`` link in ``report.md``)."""
    return " ".join(str(value).split()).translate(_MD_SPECIAL)


def md_code(value: object) -> str:
    """``value`` as a Markdown code span (shown verbatim: no HTML, links or emphasis inside one), or as
    :func:`md_text` when it holds a backtick or a pipe, which would end the span or the table cell."""
    text = " ".join(str(value).split())
    return f"`{text}`" if text and "`" not in text and "|" not in text else md_text(text)


def render_markdown(rows: Sequence[RunRow], manifest: dict[str, Any]) -> str:
    """The whole ``report.md`` (see :func:`build_report` for its parts)."""
    return markdown_from_model(build_model(rows, manifest))


def markdown_from_model(model: ReportModel) -> str:
    """:func:`render_markdown` of a prebuilt :class:`ReportModel`."""
    report = model.data
    lines = ["# lexbench report", ""] + [f"{md_text(line)}  " for line in run_lines(report)] + [""]
    if report["run"]["suite"].get("review_status") == "imported_unreviewed":
        lines += ["> This suite was imported from a public corpus and has not been reviewed: its cases have no "
                  "stable groups or page identity, and titles are scored only where the source has an "
                  "independent one.", ""]
    method = report["method"]
    lines += [f"Pass rate = pass ÷ (pass + fail); unresolvable items are counted apart. The interval is a "
              f"{method['interval']} ({method['resamples']} resamples, seed {method['seed']}). Coverage is a "
              "tolerance on 6-character fragments, not proof of exact text. Noise = median answer size ÷ "
              "reference size: read it beside the pass rate, since a whole-page dump passes recall contracts too.", ""]
    lines += ["## Leaderboards", ""]
    for board in report["leaderboards"]:
        # One header cell per component column, so the header always matches the rows.
        components = " | ".join(COMPONENT_LABELS[c] for c in LEADERBOARD_COMPONENTS)
        lines += [f"### {board['title']}", "",
                  f"| provider | items | pass | fail | unresolvable | pass rate | 95 % CI | {components} "
                  "| p50 s | p95 s | noise | answer tokens |",
                  "|---|" + "---:|" * (10 + len(LEADERBOARD_COMPONENTS))]
        for p in board["providers"]:
            parts = " | ".join(pct(p["components"][c.value]) for c in LEADERBOARD_COMPONENTS)
            lines.append(f"| {md_text(p['provider'])} | {p['items']} | {p['pass']} | {p['fail']} | {p['unresolvable']} "
                         f"| {pct(p['pass_rate'])} | {interval_text(p['interval'])} | {parts} | {secs(p['latency_p50_s'])} "
                         f"| {secs(p['latency_p95_s'])} | {ratio(p['noise'])} | {tokens_text(p['answer_tokens'])} |")
        lines.append("")
        probed = [p for p in board["providers"] if "boilerplate_probes" in p]
        if probed:
            lines += ["Boilerplate probes, beside the noise figure (pages whose source lists text a good extraction "
                      "leaves out: trafilatura-eval's `without` snippets; a diagnostic, not part of the verdict): "
                      + "; ".join(f"{md_text(p['provider'])} {boilerplate_text(p['boilerplate_probes'])}" for p in probed)
                      + ".", ""]
    if report["comparisons"]:
        lines += ["## Pairwise comparisons", "",
                  "Paired bootstrap over the cases both providers scored. *Real* = the interval of the difference "
                  "excludes 0; otherwise these cases cannot tell the two apart. Noise (median answer ÷ reference "
                  "size over the shared cases both answered) sits beside each rate: a lead bought with a whole-page "
                  "dump shows as noise.", "",
                  "| contract | provider | vs | shared cases | provider's rate | vs rate | difference | 95 % CI | real? "
                  "| provider's noise | vs noise |",
                  "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|"]
        for c in report["comparisons"]:
            ci = c["interval"]
            lines.append(f"| {md_text(c['output_contract'])} | {md_text(c['first'])} | {md_text(c['second'])} | {c['shared_cases']} "
                         f"| {pct(c['first_rate'])} | {pct(c['second_rate'])} | {signed_pct(c['difference'])} "
                         f"| {signed_pct(ci['low'])} to {signed_pct(ci['high'])} "
                         f"| {'yes' if c['real'] else 'no'} | {ratio(c['first_noise'])} | {ratio(c['second_noise'])} |")
        lines.append("")
    providers = [p["provider"] for board in report["leaderboards"] for p in board["providers"]]
    for field, heading in BREAKDOWNS:
        groups = report["breakdowns"][field]
        lines += [f"## Pass rate by {heading}", "", f"| {heading} | cases | " + " | ".join(map(md_text, providers)) + " |",
                  "|---|---:|" + "---:|" * len(providers)]
        for g in groups:
            cells = []
            for p in providers:
                cell = g["providers"].get(p)
                cells.append("–" if cell is None or not cell["scored"] else
                             f"{pct(cell['pass_rate'])} ({cell['pass']}/{cell['scored']})")
            lines.append(f"| {md_text(g['group'])} | {g['cases']} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Failed components", "", "Failures of each component family / items where it was scored.", "",
              "| provider | " + " | ".join(COMPONENT_LABELS[c] for c in COMPONENT_COLUMNS) + " |",
              "|---|" + "---:|" * len(COMPONENT_COLUMNS)]
    for entry in report["components"]:
        lines.append(f"| {md_text(entry['provider'])} | " + " | ".join(
            f"{entry['failures'][c.value]}/{entry['scored'][c.value]}" for c in COMPONENT_COLUMNS) + " |")
    lines += ["", "## Latency and cost", "",
              "Latency of the final attempt of each answered item (unresolvable items left out).", "",
              "| provider | timed items | p50 s | p95 s | max s | attempts | retried items | cost |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
    for entry in report["latency_and_cost"]:
        lines.append(f"| {md_text(entry['provider'])} | {entry['timed_items']} | {secs(entry['latency_p50_s'])} "
                     f"| {secs(entry['latency_p95_s'])} | {secs(entry['latency_max_s'])} | {entry['attempts']} "
                     f"| {entry['retried_items']} | {md_text(cost_text(entry['cost']))} |")
    lines.append("")
    classes = sorted({c for entry in report["failure_classes"] for c in entry["classes"]})
    if classes:
        lines += ["## Failure classes", "", "| provider | " + " | ".join(map(md_text, classes)) + " |",
                  "|---|" + "---:|" * len(classes)]
        for entry in report["failure_classes"]:
            lines.append(f"| {md_text(entry['provider'])} | " + " | ".join(str(entry["classes"].get(c, 0)) for c in classes) + " |")
        lines.append("")
    if report["flagged"]:
        lines += ["## Flagged cases", ""] + [f"- {md_code(f['case'])}: {md_text(f['flag'])}" for f in report["flagged"]] + [""]
    if report["not_passed"]:
        lines += ["## Items that did not pass", "", "| item | verdict | class | answer | why |", "|---|---|---|---|---|"]
        for item in report["not_passed"]:
            answer = f"[{item['answer'].split('/')[-1][:12]}…]({item['answer']})" if item["answer"] else "no answer"
            lines.append(f"| {md_code(item['item'])} | {item['outcome']} | {md_text(item['failure_class'] or '–')} | {answer} "
                         f"| {md_text(item['explanation'])} |")
        lines.append("")
    return "\n".join(lines)


REPORT_FILES = ("report.md", "report.html", "report.json")


def write_reports(run_dir: Path, rows: Sequence[RunRow], manifest: dict[str, Any]) -> list[Path]:
    """Write ``report.md``, ``report.html`` and ``report.json`` into ``run_dir``; return their paths.

    The bytes depend only on ``rows`` (in any order) and the run-wide facts of ``manifest``. The
    report is built once (:func:`build_model`) and rendered three times.
    """
    from lexbench.report_html import html_from_model

    model = build_model(rows, manifest)
    contents = {"report.md": markdown_from_model(model), "report.html": html_from_model(model),
                "report.json": json_from_model(model)}
    paths = []
    for name in REPORT_FILES:
        path = run_dir / name
        write_file(path, contents[name].encode("utf-8"))  # replaces a planted link, never writes through it
        paths.append(path)
    return paths


def boilerplate_text(probes: dict[str, int]) -> str:
    """``"3 of 12 snippets on 4 pages"``: a provider's boilerplate probe counts in words."""
    pages = probes["pages"]
    return f"{probes['found']} of {probes['probes']} snippets on {pages} page{'' if pages == 1 else 's'}"


def render_terminal(rows: Sequence[RunRow]) -> list[str]:
    """A compact fixed-width leaderboard for the end of the pytest session.

    Beside the verdict counts it shows the pass rate's 95 % interval and each main component's pass
    rate, so a provider that fails every case on one component (say, stable site text) is not mistaken
    for one that misses bodies.
    """
    names = {Component.TITLE: "title", Component.REGIONS: "regions", Component.ENDING: "ending",
             Component.STABLE_GROUPS: "stable", Component.COMMENTS: "comments", Component.POSTS: "posts"}
    head = f"{'provider':<20} {'contract':<8} {'pass':>5} {'fail':>5} {'unres':>5} {'rate':>8} {'95 % CI':>13}"
    head += "".join(f" {names[c]:>8}" for c in LEADERBOARD_COMPONENTS) + f" {'p50 s':>7} {'noise':>7}"
    out = [head]
    summaries = summarise(rows)
    for s in summaries:
        ci = "–" if s.interval is None else f"{s.interval.low * 100:.0f}–{s.interval.high * 100:.0f} %"
        line = (f"{s.provider:<20} {s.output_contract:<8} {s.passed:>5} {s.failed:>5} {s.unresolvable:>5} "
                f"{pct(s.pass_rate):>8} {ci:>13}")
        line += "".join(f" {pct(s.component_pass_rate(c)):>8}" for c in LEADERBOARD_COMPONENTS)
        out.append(line + f" {secs(s.latency_p50):>7} {ratio(s.noise):>7}")
    out.append("rate = pass ÷ (pass + fail); component columns = share of scored items where it passed; "
               "noise = median answer ÷ reference size")
    probed = [s for s in summaries if s.boilerplate is not None]
    if probed:
        out.append("boilerplate probes (trafilatura-eval `without` snippets found in the answers): " + "; ".join(
            f"{s.provider} {boilerplate_text(dict(zip(('found', 'probes', 'pages'), s.boilerplate)))}" for s in probed))
    return out
