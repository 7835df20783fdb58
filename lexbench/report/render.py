"""Reports built from a run record (SPEC §6). Pure: manifest + rows in, bytes out.

:func:`~lexbench.report.model.build_report` turns a run into one JSON-able dict (``report.json``); :func:`render_markdown`
and :func:`lexbench.report.html.render_html` present the same figures. :func:`write_reports` writes
all three into the run directory from one :class:`~lexbench.report.model.ReportModel` (:func:`~lexbench.report.model.build_model` orders the rows
and summarises and bootstraps each provider once; :func:`markdown_from_model`,
:func:`json_from_model` and :func:`lexbench.report.html.html_from_model` render it). ``lexbench
report RUN`` calls it again and gets the same bytes: rows are ordered before anything is computed,
the bootstrap is seeded (:mod:`lexbench.run.stats`), and nothing reads the clock, the host or the session
(shard, argv, start/end) — so a run merged from shards reports exactly like the unsharded run over
the same results. The one file read besides the run record is, for a suite imported from a corpus
and not reviewed since, its ``import-report.json`` (:func:`import_report`), whose caveats the reports
show.

The figures themselves come from :mod:`lexbench.report.model`; :func:`render_terminal` prints the
short leaderboard at the end of a pytest session.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lexbench.run.record import RunRow
from lexbench.report.html import html_from_model
from lexbench.report.browser import browser_tables
from lexbench.report.cost import COST_FIGURES, COST_HEAD, cost_intro, cost_rows
from lexbench.report.model import (
    BREAKDOWNS, COMPARISON_HEADINGS, COMPONENT_COLUMNS, COMPONENT_LABELS, FLAGS_INTRO, LEADERBOARD_COMPONENTS,
    ReportModel, boilerplate_text, build_model, flagged_cases, import_caveats, import_heading, run_lines,
    shown_text, summarise
)
from lexbench.report.numbers import cost_text, interval_text, pct, ratio, secs, signed_pct, tokens_text, unresolvable_text
from lexbench.run.rundir import write_file


def render_json(rows: Sequence[RunRow], manifest: dict[str, Any]) -> str:
    """``report.json``: :func:`build_report` as UTF-8 JSON, indent 2, one trailing newline."""
    return json_from_model(build_model(rows, manifest))



def json_from_model(model: ReportModel) -> str:
    """:func:`render_json` of a prebuilt :class:`ReportModel`."""
    return json.dumps(model.data, ensure_ascii=False, indent=2) + "\n"



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
                  "independent one.", ">", f"> {md_text(import_heading(report))}"]
        lines += [f"> - {md_text(caveat)}" for caveat in import_caveats(report)] + [""]
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
                  f"| provider | items | pass | fail | unresolvable | pass rate | unresolvable share | 95 % CI | {components} "
                  "| p50 s | p95 s | noise | answer tokens |",
                  "|---|" + "---:|" * (11 + len(LEADERBOARD_COMPONENTS))]
        for p in board["providers"]:
            parts = " | ".join(pct(p["components"][c.value]) for c in LEADERBOARD_COMPONENTS)
            lines.append(f"| {md_text(p['provider'])} | {p['items']} | {p['pass']} | {p['fail']} | {p['unresolvable']} "
                         f"| {pct(p['pass_rate'])} | {unresolvable_text(p['unresolvable_share'], p['self_reported'])} "
                         f"| {interval_text(p['interval'])} | {parts} | {secs(p['latency_p50_s'])} "
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
                  "Paired bootstrap over the cases both providers scored; A is the better-ranked provider, the "
                  "difference is A's pass rate minus B's. *Real* = the interval of the difference "
                  "excludes 0; otherwise these cases cannot tell the two apart. Noise (median answer ÷ reference "
                  "size over the shared cases both answered) sits beside each rate: a lead bought with a whole-page "
                  "dump shows as noise.", "",
                  "| " + " | ".join(COMPARISON_HEADINGS) + " |",
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
    if (intro := cost_intro(report)) is not None:
        lines += ["## Engine cost", "", md_text(intro), "", "| " + " | ".join(COST_HEAD) + " |",
                  "|" + "".join("---:|" if figure else "---|" for figure in COST_FIGURES)]
        lines += ["| " + " | ".join(md_text(cell) for cell in row) + " |" for row in cost_rows(report)]
        lines.append("")
    for heading, intro, head, figures, body in browser_tables(report):
        lines += [f"## {heading}", "", md_text(intro), "", "| " + " | ".join(head) + " |",
                  "|" + "".join("---:|" if figure else "---|" for figure in figures)]
        lines += ["| " + " | ".join(md_text(cell) for cell in row) + " |" for row in body]
        lines.append("")
    classes = sorted({c for entry in report["failure_classes"] for c in entry["classes"]})
    if classes:
        lines += ["## Failure classes", "", "| provider | " + " | ".join(map(md_text, classes)) + " |",
                  "|---|" + "---:|" * len(classes)]
        for entry in report["failure_classes"]:
            lines.append(f"| {md_text(entry['provider'])} | " + " | ".join(str(entry["classes"].get(c, 0)) for c in classes) + " |")
        lines.append("")
    if report["flagged"]:
        lines += ["## Flagged cases", "", FLAGS_INTRO, ""]
        for flag, cases in flagged_cases(report).items():
            lines.append(f"- {md_code(flag)} ({len(cases)} case{'' if len(cases) == 1 else 's'}): "
                         f"{md_text(report['flags'][flag])}. " + ", ".join(map(md_code, cases)))
        lines.append("")
    if report["not_passed"]:
        lines += ["## Items that did not pass", "", "| item | verdict | class | answer | why |", "|---|---|---|---|---|"]
        for item in report["not_passed"]:
            answer = f"[{item['answer'].split('/')[-1][:12]}…]({item['answer']})" if item["answer"] else "no answer"
            lines.append(f"| {md_code(item['item'])} | {item['outcome']} | {md_text(item['failure_class'] or '–')} | {answer} "
                         f"| {md_text(shown_text(item['explanation']))} |")
        lines.append("")
    return "\n".join(lines)



REPORT_FILES = ("report.md", "report.html", "report.json")



def import_report(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The import report (``import-report.json``, written by ``lexbench import-corpus``) of the run's
    suite when it was imported and not reviewed since: read from the suite directory the manifest
    names (``suite.path``), kept only when it names the same suite id. ``None`` otherwise, or when the
    file is absent or unreadable there (say, a run rebuilt on another machine): the report then says
    where the caveats are."""
    suite = manifest.get("suite") or {}
    if suite.get("review_status") != "imported_unreviewed" or not suite.get("path"):
        return None
    from lexbench.dataset.importers.report import REPORT_NAME  # with the suite's own modules, not at import

    try:
        data = json.loads((Path(suite["path"]) / REPORT_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("suite") != suite.get("id") or not isinstance(data.get("notes"), list):
        return None
    return data



def write_reports(run_dir: Path, rows: Sequence[RunRow], manifest: dict[str, Any], *,
                  trend_panel: str | None = None) -> list[Path]:
    """Write ``report.md``, ``report.html`` and ``report.json`` into ``run_dir``; return their paths.

    The bytes depend only on ``rows`` (in any order), the run-wide facts of ``manifest``, for a
    suite imported from a corpus its :func:`import_report`, and ``trend_panel``: the history's section
    of ``report.html`` when earlier runs lie beside this one (:func:`lexbench.history.trend.report_panel`,
    handed in by the caller because history comes after the report in the flow). The report is built
    once (:func:`build_model`) and rendered three times.
    """
    model = build_model(rows, manifest, import_report(manifest))
    contents = {"report.md": markdown_from_model(model), "report.html": html_from_model(model, trend_panel),
                "report.json": json_from_model(model)}
    paths = []
    for name in REPORT_FILES:
        path = run_dir / name
        write_file(path, contents[name].encode("utf-8"))  # replaces a planted link, never writes through it
        paths.append(path)
    return paths



NAME_WIDTH = 24
"""Widest provider name the terminal leaderboard shows whole; longer names are cut with ``…``."""



def render_terminal(rows: Sequence[RunRow]) -> list[str]:
    """The leaderboard printed at the end of the pytest session: lines of at most 100 columns, so it
    does not wrap in a common terminal (provider names longer than :data:`NAME_WIDTH` are cut with ``…``).

    Two tables over the same providers: the verdict counts with the pass rate, its 95 % interval,
    p50 latency and noise; then each main component's pass rate, so a provider that fails every case
    on one component (say, stable site text) is not mistaken for one that misses bodies. Everything
    wider (p95, answer tokens, comparisons, breakdowns, why each item did not pass) is in ``report.md``
    and ``report.html``, and the closing lines say so. When an item failed they also say why
    pytest's short summary cuts its reason (it trims each line to the terminal width, 80 columns when
    piped, unless ``-vv`` or on CI).
    """
    summaries = summarise(rows)
    width = max(len("provider"), min(NAME_WIDTH, max((len(s.provider) for s in summaries), default=0)))

    def name(provider: str) -> str:
        return (provider if len(provider) <= width else provider[:width - 1] + "…").ljust(width)

    out = [f"{'provider':<{width}} {'contract':<8} {'pass':>5} {'fail':>5} {'unres':>5} {'rate':>7} {'unres %':>8} "
           f"{'95 % CI':>9} {'p50 s':>7} {'noise':>7}"]
    for s in summaries:
        ci = "–" if s.interval is None else f"{s.interval.low * 100:.0f}–{s.interval.high * 100:.0f} %"
        share = pct(s.unresolvable_share) + ("*" if s.self_reported else "")
        out.append(f"{name(s.provider)} {s.output_contract:<8} {s.passed:>5} {s.failed:>5} {s.unresolvable:>5} "
                   f"{pct(s.pass_rate):>7} {share:>8} {ci:>9} {secs(s.latency_p50):>7} {ratio(s.noise):>7}")
    out.append("rate = pass ÷ (pass + fail), unresolvable items apart; noise = median answer ÷ reference size")
    out.append("unres % = the unresolvable items' share of all items, beside the rate that leaves them out")
    excused = [s for s in summaries if s.self_reported]
    if excused:  # one provider a line: the list must fit 100 columns too
        out.append("* self-reported: unresolvable items a user's test excused itself, not checked by lexbench:")
        out += [f"  {name(s.provider).rstrip()}: {s.self_reported}" for s in excused]
    out += ["", "component pass rates: share of the items where the component was scored that passed it"]
    columns = [(c, max(7, len(COMPONENT_LABELS[c]))) for c in LEADERBOARD_COMPONENTS]
    out.append(f"{'provider':<{width}}" + "".join(f" {COMPONENT_LABELS[c]:>{w}}" for c, w in columns))
    for s in summaries:
        out.append(name(s.provider) + "".join(f" {pct(s.component_pass_rate(c)):>{w}}" for c, w in columns))
    probed = [s for s in summaries if s.boilerplate is not None]
    if probed:
        out += ["", "boilerplate probes (trafilatura-eval `without` snippets found in the answers):"]
        out += [f"  {name(s.provider).rstrip()}: {boilerplate_text(dict(zip(('found', 'probes', 'pages'), s.boilerplate)))}"
                for s in probed]
    out += ["", "every column, comparisons, breakdowns and why each item failed: report.md, report.html"]
    if any(s.failed for s in summaries):  # skip reasons (-rs) are never cut
        out.append("pytest's short summary below cuts each failure's reason to the terminal width (80 columns")
        out.append("when piped): the FAILURES section above and report.md hold it whole; -vv prints it whole below")
    return out
