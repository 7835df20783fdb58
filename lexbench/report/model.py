"""The report's figures, built once from a run record (SPEC §6): per-provider summaries, comparisons,
the JSON-able report dict and the figures as text that every rendering shares. Pure: rows and manifest in.

:func:`build_model` orders the rows and summarises and bootstraps each provider once; the renderings
(:mod:`lexbench.report.render` for Markdown, JSON and the terminal, :mod:`lexbench.report.html` for HTML) only
present it. The pass rate is passed ÷ (passed + failed): ``unresolvable`` items (the operator's setup
stopped the call) are counted apart, never as failures. The noise figure — median answer size ÷
reference size, with the median answer tokens — sits beside every pass rate, because the contracts
measure recall and a whole-page dump passes them as often as a good extractor does.
"""

from __future__ import annotations

import ast
import re
import statistics
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.run import stats
from lexbench.dataset.flags import SELF_REPORTED, flag_explanation
from lexbench.run.record import RESPONSES_DIR, RunRow, scorer_version
from lexbench.report.browser import browser_figures
from lexbench.report.cost import engine_cost
from lexbench.report.memory import memory_figures
from lexbench.run.attestation import record_problems
from lexbench.text import counted
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

COMPARISON_HEADINGS = ("contract", "provider A", "provider B", "shared cases", "A's pass rate", "B's pass rate",
                       "difference (A − B)", "95 % CI", "real?", "A's noise", "B's noise")
"""The pairwise comparison table's headings: A is the better-ranked provider of the pair."""

BREAKDOWNS = (("track", "track"), ("category", "category"), ("lang", "language"))
"""Row fields the pass rates are broken down by, with their headings."""

_PY_STRING = re.compile(r"""(?<![\w'"])(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""")



def shown_text(text: str) -> str:
    """``text`` with every Python string literal in it that holds an escape shown as its characters
    between the same quotes, for reports a person reads: the scorer quotes titles, labels and patterns
    with ``repr``, so a pattern ``bar\\?`` reads ``'bar\\\\?'`` and a title with an ideographic space
    ``'a\\u3000b'``; shown, they are ``'bar\\?'`` and the title with its space. Literals that do not
    parse, or that hold a control character, are left as they are."""

    def decoded(match: re.Match[str]) -> str:
        literal = match.group(0)
        if "\\" not in literal:
            return literal
        try:
            value = ast.literal_eval(literal)
        except (SyntaxError, ValueError):
            return literal
        if not isinstance(value, str) or any(unicodedata.category(ch) == "Cc" for ch in value):
            return literal  # a control character (a line break, NUL) reads better as its escape
        return literal[0] + value + literal[0]

    return _PY_STRING.sub(decoded, text)



@dataclass(frozen=True)
class ProviderSummary:
    """Aggregates for one provider.

    Latencies in seconds (final attempt, unresolvable items left out); ``noise`` = median answer ÷
    reference chars; ``answer_tokens`` the median answer size by :func:`lexbench.run.record.count_tokens`;
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
    self_reported: int = 0
    """Unresolvable items whose excuse a user's test gave about itself (row flag ``self_reported``)."""

    @property
    def unresolvable_share(self) -> float | None:
        """Unresolvable ÷ items (0–1), shown beside the pass rate, which leaves them out (issue 27 item 6)."""
        return self.unresolvable / self.items if self.items else None

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
            self_reported=sum(1 for row in items if row.outcome is Outcome.UNRESOLVABLE and SELF_REPORTED in row.flags),
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
    leaderboard order. Pairs with no shared scored case are left out.

    Every pair is compared (no cap): scored and passed cases are bit sets per provider, and the bootstrap
    is drawn once per distinct counts (:func:`lexbench.run.stats.paired_difference_counts`, issue 27 item 9)."""
    rows = list(rows)
    cases = sorted({r.case for r in rows})
    index = {case: number for number, case in enumerate(cases)}
    bit = {case: 1 << number for case, number in index.items()}
    scored: dict[str, int] = defaultdict(int)  # provider → its scored cases, one bit per case
    passed: dict[str, int] = defaultdict(int)
    noise: dict[str, dict[int, float]] = defaultdict(dict)  # provider → {case index: answer ÷ reference}
    for r in rows:
        if r.outcome is Outcome.UNRESOLVABLE:
            continue
        scored[r.provider] |= bit[r.case]
        if r.outcome is Outcome.PASS:
            passed[r.provider] |= bit[r.case]
        if r.content_chars and r.reference_chars:
            noise[r.provider][index[r.case]] = r.content_chars / r.reference_chars
    out = []
    for contract in CONTRACT_TITLES:
        if contract == "control":
            continue
        group = [s.provider for s in summaries if s.output_contract == contract]
        for i, first in enumerate(group):
            for second in group[i + 1:]:
                shared = scored[first] & scored[second]
                if not shared:
                    continue
                n = shared.bit_count()
                a, b = passed[first] & shared, passed[second] & shared
                interval = stats.paired_difference_counts(n, (a & ~b).bit_count(), (b & ~a).bit_count())
                if interval is None:
                    continue
                first_noise, second_noise = _shared_noise(noise[first], noise[second], shared)
                out.append(Comparison(output_contract=contract, first=first, second=second, shared_cases=n,
                                      first_rate=a.bit_count() / n, second_rate=b.bit_count() / n, difference=interval,
                                      first_noise=first_noise, second_noise=second_noise))
    return out


def _shared_noise(first: dict[int, float], second: dict[int, float], shared: int) -> tuple[float | None, float | None]:
    """Each provider's median noise over the shared cases (bits of ``shared``) both answered."""
    both = [index for index in first if index in second and shared >> index & 1]
    if not both:
        return None, None
    return statistics.median(first[i] for i in both), statistics.median(second[i] for i in both)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)



def _interval(interval: stats.Interval | None) -> dict[str, float] | None:
    return None if interval is None else {"low": _round(interval.low), "high": _round(interval.high)}



def response_link(row: RunRow) -> str | None:
    """The saved answer's path relative to the run directory (``responses/<sha256>.txt``), if any."""
    return f"{RESPONSES_DIR}/{row.response_sha256}.txt" if row.response_sha256 else None



def _run_facts(manifest: dict[str, Any], rows: Sequence[RunRow]) -> dict[str, Any]:
    # Only what is the same for every session and shard of one run: never argv, host, times or shard.
    # Certified only when its certification record verifies against these rows (lexbench.run.attestation).
    suite = manifest.get("suite", {})
    run = manifest.get("run", {})
    configuration = manifest.get("configuration", {})
    certification = manifest.get("certification") or {}
    facts = {
        "suite": {key: suite.get(key) for key in ("id", "revision", "review_status", "dataset_sha256", "cases")},
        "providers": list(manifest.get("providers", [])),
        "configuration_sha256": manifest.get("configuration_sha256"),
        "mode": configuration.get("mode", manifest.get("mode")),
        "runtime_policy": configuration.get("runtime_policy"),
        "measure_only": bool(run.get("measure_only")),
        "certified": (bool(certification.get("certified")) and not record_problems(manifest, rows))
        if run.get("certified_requested") else None,
        "scorer_version": scorer_version(manifest),
    }
    if manifest.get("approvals"):  # a run merged with approved historical configurations (lexbench.run.approvals)
        facts["approvals"] = manifest["approvals"]
    if run.get("rerun"):  # only then: earlier runs' reports stay byte for byte the same
        facts["rerun"] = run["rerun"]
    return facts



@dataclass(frozen=True)
class ReportModel:
    """One run's report computed once, for every renderer: ``rows`` in report order
    (:func:`ordered_rows`), their :func:`summarise` ``summaries`` and ``data``, the plain-data report
    (:func:`build_report`, ``report.json``)."""

    rows: list[RunRow]
    summaries: list[ProviderSummary]
    data: dict[str, Any]



def build_model(rows: Iterable[RunRow], manifest: dict[str, Any], imported: dict[str, Any] | None = None) -> ReportModel:
    """Order, summarise and compare ``rows`` once (the bootstraps run here) for all the renderers.

    ``imported``: the suite's import report (``import-report.json``, :func:`lexbench.report.render.import_report`)
    when the suite was imported from a corpus; its format and caveats are shown with the run's facts.
    """
    ordered = ordered_rows(rows)
    summaries = summarise(ordered)
    return ReportModel(rows=ordered, summaries=summaries, data=_report_data(ordered, manifest, summaries, imported))



def build_report(rows: Sequence[RunRow], manifest: dict[str, Any]) -> dict[str, Any]:
    """The whole report as plain data (``report.json``): run facts, leaderboards with bootstrap
    intervals, pairwise comparisons, breakdowns, component failures, latency and cost, peak memory (bytes,
    :mod:`lexbench.report.memory`), the engine cost (:mod:`lexbench.report.cost`), failure classes, flagged cases with each flag's meaning, and every item
    that did not pass (with its saved answer's relative path). ``run.suite.import`` holds an imported
    suite's format and caveats when the caller read them (:func:`build_model`).

    Rates are shares in 0–1 and latencies seconds, rounded to 4 decimals.
    """
    return build_model(rows, manifest).data



def _report_data(rows: list[RunRow], manifest: dict[str, Any], summaries: list[ProviderSummary],
                 imported: dict[str, Any] | None) -> dict[str, Any]:
    # ``rows`` in report order, ``summaries`` = summarise(rows).
    comparisons = compare(rows, summaries)
    providers = [s.provider for s in summaries]
    flagged = sorted({(r.case, f) for r in rows for f in r.flags})
    run = _run_facts(manifest, rows)
    if imported is not None:
        run["suite"]["import"] = {"format": imported.get("format"), "caveats": list(imported.get("notes") or [])}
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA,
        "run": run,
        "method": {
            "pass_rate": "pass / (pass + fail); unresolvable items are counted apart",
            "unresolvable_share": "unresolvable / items, beside every pass rate; self_reported counts those a "
                                  "user's test excused itself (not checked by lexbench)",
            "interval": f"{int(stats.CONFIDENCE * 100)} % percentile bootstrap over cases",
            "resamples": stats.RESAMPLES, "seed": stats.SEED, "draws": stats.DRAWS,
            "comparison": "paired bootstrap of the pass-rate difference over the cases both providers scored; "
                          "real when its interval excludes 0; every pair of a contract, its random stream keyed by "
                          "the pair's counts (equal counts, equal interval)",
        },
        "counts": {"cases": len({r.case for r in rows}), "providers": len(providers), "items": len(rows)},
        "leaderboards": [],
        "comparisons": [],
        "breakdowns": {},
        "components": [],
        "latency_and_cost": [],
        "memory": memory_figures(rows, providers),
        "engine_cost": engine_cost(rows, providers),
        **({} if (browser := browser_figures(rows, providers)) is None else {"browser": browser}),
        "failure_classes": [],
        "flagged": [{"case": case, "flag": flag} for case, flag in flagged],
        "flags": {flag: flag_explanation(flag) for flag in sorted({f for _, f in flagged})},
        "not_passed": [],
    }
    for contract, title in CONTRACT_TITLES.items():
        group = [s for s in summaries if s.output_contract == contract]
        if not group:
            continue
        report["leaderboards"].append({"output_contract": contract, "title": title, "providers": [{
            "provider": s.provider, "items": s.items, "pass": s.passed, "fail": s.failed,
            "unresolvable": s.unresolvable, "pass_rate": _round(s.pass_rate),
            "unresolvable_share": _round(s.unresolvable_share), "self_reported": s.self_reported,
            "interval": _interval(s.interval),
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



def run_lines(report: dict[str, Any]) -> list[str]:
    """The report's opening facts as plain sentences (shared by Markdown and HTML)."""
    run = report["run"]
    suite = run["suite"]
    counts = report["counts"]
    policy = run.get("runtime_policy") or {}
    lines = [
        f"Suite {suite.get('id') or '?'} (revision {suite.get('revision') or '?'}, {suite.get('review_status') or '?'}), "
        f"dataset sha256 {(suite.get('dataset_sha256') or '?')[:12]}: {counted(counts['cases'], 'case')} × "
        f"{counted(counts['providers'], 'provider')} = {counted(counts['items'], 'item')} recorded.",
        f"Configuration sha256 {(run.get('configuration_sha256') or '?')[:12]}; mode {run.get('mode') or '?'}; "
        f"{policy.get('timeout_s', '?')} s per call, retries on failure: {policy.get('retries', '?')}; "
        f"scorer version {run.get('scorer_version') or 'not recorded (before version 2)'}.",
    ]
    approvals = run.get("approvals")
    if approvals:
        historical = ", ".join(str(c.get("configuration_sha256"))[:12] for c in approvals.get("configurations") or [])
        lines.append(f"Rows of historical configuration(s) {historical} approved by the registry {approvals.get('path')} "
                     f"(sha256 {approvals.get('sha256')}).")
    if run["certified"] is True:
        lines.append("Certified run: frozen provider list, clean recorded configuration, suite bindings verified, every item run.")
    elif run["certified"] is False:
        lines.append("Certification was requested but not reached (see manifest.json → certification).")
    if run["measure_only"]:
        lines.append("Measure-only run: scored evidence for diagnostics; it does not certify anything.")
    if run.get("rerun"):
        lines.append(f"Partial rerun: only the {counted(run['rerun']['items'], 'item')} that failed or crashed last time "
                     "(pytest --lf), not every item of the suite; its rates are not the providers' rates.")
    return lines



FLAGS_INTRO = ("Flags are notes the import or the run left on a case (not verdicts); each is listed once with "
               "what it means and the cases that carry it.")



def flagged_cases(report: dict[str, Any]) -> dict[str, list[str]]:
    """``{flag: [case, ...]}`` from ``report["flagged"]``, flags and cases in sorted order."""
    cases: dict[str, list[str]] = defaultdict(list)
    for entry in sorted(report["flagged"], key=lambda f: (f["flag"], f["case"])):
        cases[entry["flag"]].append(entry["case"])
    return dict(cases)



def import_heading(report: dict[str, Any]) -> str:
    """The sentence before an imported suite's caveats, or saying where they are when they were not read."""
    imported = report["run"]["suite"].get("import")
    if imported is None:
        return ("The import's caveats are in the suite's import-report.json, which was not beside its dataset "
                "when this report was built.")
    return f"Caveats of its import ({imported['format']}, from the suite's import-report.json):"



def import_caveats(report: dict[str, Any]) -> list[str]:
    """An imported suite's caveats (``[]`` when none were read)."""
    imported = report["run"]["suite"].get("import")
    return list(imported["caveats"]) if imported else []



def boilerplate_text(probes: dict[str, int]) -> str:
    """``"3 of 12 snippets on 4 pages"``: a provider's boilerplate probe counts in words."""
    pages = probes["pages"]
    return f"{probes['found']} of {probes['probes']} snippets on {pages} page{'' if pages == 1 else 's'}"
