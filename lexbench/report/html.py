"""``report.html``: the report as one self-contained page (SPEC §6).

Everything is inline — CSS, three SVG charts, the tables — and nothing is fetched: no script, no
external stylesheet, font or image, so the file opens from disk in any browser, offline, and is safe
to attach to a CI run. Saved answers are linked relatively (``responses/<sha256>.txt``), so the links
work while the page sits in its run directory.

Charts (each a ``<figure>`` with an ``id``):

- ``chart-pass-rates`` — pass rate per provider as bars with 95 % bootstrap whiskers, grouped by
  output contract (controls apart);
- ``chart-latency`` — every answered item's latency as a dot per provider, with p50 and p95 marks
  (log scale when the slowest item took more than 20 × the fastest);
- ``chart-heatmap`` — provider × case, one cell per item coloured by verdict; cases ordered hardest
  first; each cell's tooltip (SVG ``<title>``) names the item and its verdict.

Like :mod:`lexbench.report.render`, the output depends only on the rows and the run-wide manifest facts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from html import escape
from typing import Any

from lexbench.run.record import RunRow
from lexbench.report.browser import browser_tables
from lexbench.report.cost import COST_FIGURES, COST_HEAD, cost_intro, cost_rows
from lexbench.report.model import (
    BREAKDOWNS, COMPARISON_HEADINGS, COMPONENT_COLUMNS, COMPONENT_LABELS, FLAGS_INTRO, LEADERBOARD_COMPONENTS,
    ProviderSummary, ReportModel, boilerplate_text, build_model, flagged_cases, import_caveats, import_heading,
    ordered_rows, run_lines, shown_text, summarise
)
from lexbench.report.numbers import cost_text, interval_text, pct, ratio, secs, signed_pct, tokens_text, unresolvable_text
from lexbench.verdict import Outcome

COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "unresolvable": "#9e9e9e", "missing": "#eeeeee"}
_LABEL_W = 190
_PLOT_W = 520
_ROW_H = 26

FONT_STACK = ('system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK SC","Noto Sans CJK JP","Source Han Sans SC",'
              '"PingFang SC","Hiragino Sans","Microsoft YaHei","Yu Gothic","Malgun Gothic",sans-serif')
"""Latin faces first, then CJK ones (Chinese, Japanese, Korean cases' titles and explanations) before
the generic family, so a system whose default sans-serif has no CJK glyphs still shows them."""

_CSS = """
body{font:14px/1.45 FONTS;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:16px;margin:20px 0 6px}
p.facts{margin:2px 0;color:#333}
.note{background:#fff8e1;border-left:4px solid #f9a825;padding:8px 12px;margin:12px 0}
table{border-collapse:collapse;margin:8px 0 16px;background:#fff;font-size:13px}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.why{max-width:520px}
tr.real td{background:#e8f5e9}
figure{margin:12px 0 24px;background:#fff;border:1px solid #ddd;padding:12px}
figcaption{font-size:13px;color:#444;margin-top:6px}
svg text{font:12px FONTS;fill:#1b1b1b}
svg .axis{stroke:#999;stroke-width:1}svg .grid{stroke:#e5e5e5;stroke-width:1}
svg .whisker{stroke:#111;stroke-width:1.5}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-2px}
code{font-size:12px}
dl.flags dt{margin-top:8px}dl.flags dd{margin:2px 0 0 20px}
""".replace("FONTS", FONT_STACK)


CSS = _CSS
"""The report's stylesheet, shared by the history's trend page (:mod:`lexbench.history.trend`)."""


def _svg(width: int, height: int, label: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{escape(label)}">' + "".join(body) + "</svg>")


def _figure(figure_id: str, svg: str, caption: str) -> str:
    return f'<figure id="{figure_id}">{svg}<figcaption>{caption}</figcaption></figure>'


def pass_rate_chart(report: dict[str, Any]) -> str:
    """Horizontal bars of each provider's pass rate with its 95 % interval as a whisker."""
    body: list[str] = []
    y = 24
    top = y
    for board in report["leaderboards"]:
        body.append(f'<text x="0" y="{y + 14}" font-weight="bold">{escape(board["title"])}</text>')
        y += _ROW_H
        for p in board["providers"]:
            rate = p["pass_rate"]
            body.append(f'<text x="{_LABEL_W - 8}" y="{y + 16}" text-anchor="end">{escape(p["provider"])}</text>')
            if rate is not None:
                width = rate * _PLOT_W
                body.append(f'<rect class="bar" x="{_LABEL_W}" y="{y + 5}" width="{width:.1f}" height="16" '
                            f'fill="#5c8fd6"><title>{escape(p["provider"])}: {pct(rate)} '
                            f'(95 % CI {interval_text(p["interval"])})</title></rect>')
                if p["interval"]:
                    lo = _LABEL_W + p["interval"]["low"] * _PLOT_W
                    hi = _LABEL_W + p["interval"]["high"] * _PLOT_W
                    mid = y + 13
                    body.append(f'<line class="whisker" x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}"/>'
                                f'<line class="whisker" x1="{lo:.1f}" y1="{mid - 6}" x2="{lo:.1f}" y2="{mid + 6}"/>'
                                f'<line class="whisker" x1="{hi:.1f}" y1="{mid - 6}" x2="{hi:.1f}" y2="{mid + 6}"/>')
                body.append(f'<text x="{_LABEL_W + _PLOT_W + 10}" y="{y + 16}">{pct(rate)} '
                            f'[{interval_text(p["interval"])}]</text>')
            else:
                body.append(f'<text x="{_LABEL_W + 4}" y="{y + 16}" fill="#777">no scored item</text>')
            y += _ROW_H
        y += 6
    ticks = []
    for share in (0, 0.25, 0.5, 0.75, 1.0):
        x = _LABEL_W + share * _PLOT_W
        ticks.append(f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{y}"/>'
                     f'<text x="{x:.1f}" y="{top - 8}" text-anchor="middle">{share * 100:.0f} %</text>')
    width = _LABEL_W + _PLOT_W + 170
    return _svg(width, y + 4, "pass rate per provider with 95 % confidence intervals", ticks + body)


def _latency_scale(values: Sequence[float]) -> tuple[Any, list[float], bool]:
    positive = [v for v in values if v > 0]
    low = min(positive) if positive else 0.001
    high = max(values) if values else 1.0
    high = max(high, low * 1.0001)
    if high / low > 20:
        lo_exp = math.floor(math.log10(low))
        hi_exp = math.ceil(math.log10(high))
        span = max(1, hi_exp - lo_exp)

        def place(v: float) -> float:
            v = max(v, 10.0 ** lo_exp)
            return _LABEL_W + (math.log10(v) - lo_exp) / span * _PLOT_W

        return place, [10.0 ** e for e in range(lo_exp, hi_exp + 1)], True
    step = _nice_step(high / 5)
    top = math.ceil(high / step) * step

    def place_linear(v: float) -> float:
        return _LABEL_W + v / top * _PLOT_W

    return place_linear, [i * step for i in range(int(round(top / step)) + 1)], False


def _nice_step(raw: float) -> float:
    if raw <= 0:
        return 1.0
    exponent = math.floor(math.log10(raw))
    for mantissa in (1, 2, 5, 10):
        step = mantissa * 10.0 ** exponent
        if step >= raw:
            return step
    return 10.0 ** (exponent + 1)


def _tick_label(value: float) -> str:
    # Seconds, like the p50/p95 labels beside the strips and every latency table.
    return "0 s" if value == 0 else f"{value:g} s"


def _jitter(key: str) -> float:
    # Deterministic vertical spread for dots (no randomness in a report).
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:4], 16) / 0xFFFF


def latency_chart(rows: Sequence[RunRow], summaries: Sequence[ProviderSummary] | None = None) -> str:
    """One strip per provider: a dot per answered item's latency, with p50 (thick) and p95 (thin) marks.

    ``summaries``: :func:`lexbench.report.model.summarise` of ``rows``, when already computed.
    """
    rows = ordered_rows(rows)
    if summaries is None:
        summaries = summarise(rows)
    every = [v for s in summaries for v in s.latencies]
    place, ticks, log = _latency_scale(every)
    body: list[str] = []
    top = 28
    y = top
    for s in summaries:
        body.append(f'<text x="{_LABEL_W - 8}" y="{y + 18}" text-anchor="end">{escape(s.provider)}</text>')
        body.append(f'<line class="grid" x1="{_LABEL_W}" y1="{y + 30}" x2="{_LABEL_W + _PLOT_W}" y2="{y + 30}"/>')
        cases = [r for r in rows if r.provider == s.provider and r.latency_s is not None
                 and r.outcome is not Outcome.UNRESOLVABLE]
        for r in cases:
            x = place(r.latency_s)
            dot_y = y + 6 + _jitter(r.item_id) * 20
            body.append(f'<circle class="dot" cx="{x:.1f}" cy="{dot_y:.1f}" r="2.5" fill="{COLOURS[r.outcome.value]}" '
                        f'fill-opacity="0.6"><title>{escape(r.item_id)}: {secs(r.latency_s)} s</title></circle>')
        for value, name, stroke in ((s.latency_p50, "p50", 3), (s.latency_p95, "p95", 1.5)):
            if value is not None:
                x = place(value)
                body.append(f'<line x1="{x:.1f}" y1="{y + 2}" x2="{x:.1f}" y2="{y + 30}" stroke="#111" '
                            f'stroke-width="{stroke}"><title>{escape(s.provider)} {name}: {secs(value)} s</title></line>')
        body.append(f'<text x="{_LABEL_W + _PLOT_W + 10}" y="{y + 18}">p50 {secs(s.latency_p50)} s · '
                    f'p95 {secs(s.latency_p95)} s</text>')
        y += 36
    axis = [f'<line class="axis" x1="{_LABEL_W}" y1="{top - 4}" x2="{_LABEL_W + _PLOT_W}" y2="{top - 4}"/>']
    for tick in ticks:
        x = place(tick)
        axis.append(f'<line class="grid" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{y}"/>'
                    f'<text x="{x:.1f}" y="{top - 10}" text-anchor="middle">{_tick_label(tick)}</text>')
    label = f"latency per item ({'log' if log else 'linear'} scale)"
    return _svg(_LABEL_W + _PLOT_W + 220, y + 6, label, axis + body)


def heatmap(rows: Sequence[RunRow], summaries: Sequence[ProviderSummary] | None = None) -> str:
    """Provider × case: one cell per item coloured by verdict, cases ordered hardest first.

    ``summaries``: :func:`lexbench.report.model.summarise` of ``rows``, when already computed.
    """
    rows = ordered_rows(rows)
    providers = [s.provider for s in (summarise(rows) if summaries is None else summaries)]
    outcome = {(r.provider, r.case): r for r in rows}
    cases = sorted({r.case for r in rows},
                   key=lambda c: (sum(1 for p in providers if (p, c) in outcome and outcome[(p, c)].outcome is Outcome.PASS), c))
    cell = max(3, min(16, 860 // max(1, len(cases))))
    gap = 1 if cell > 4 else 0
    height = 18
    body: list[str] = []
    top = 8
    for i, provider in enumerate(providers):
        y = top + i * (height + 2)
        body.append(f'<text x="{_LABEL_W - 8}" y="{y + 13}" text-anchor="end">{escape(provider)}</text>')
        for j, case in enumerate(cases):
            row = outcome.get((provider, case))
            state = row.outcome.value if row else "missing"
            tip = f"{case}[{provider}]: {state}"
            if row is not None and row.outcome is not Outcome.PASS:
                tip += f" — {shown_text(row.explanation)[:200]}"
            body.append(f'<rect class="cell" x="{_LABEL_W + j * cell}" y="{y}" width="{cell - gap}" height="{height}" '
                        f'fill="{COLOURS[state]}"><title>{escape(tip)}</title></rect>')
    y = top + len(providers) * (height + 2) + 14
    body.append(f'<text x="{_LABEL_W}" y="{y}">{len(cases)} cases, hardest (fewest passes) on the left; hover a '
                f'cell for the item</text>')
    # Wide enough for the caption too: with few cases the grid alone would clip it.
    width = max(_LABEL_W + len(cases) * cell + 10, _LABEL_W + 480)
    return _svg(width, y + 8, "provider by case verdict heat map", body)


def _table(head: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]], *, row_classes: Sequence[str] = ()) -> str:
    # Cells are (css class, already-escaped html).
    out = ["<table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for index, cells in enumerate(rows):
        klass = f' class="{row_classes[index]}"' if index < len(row_classes) and row_classes[index] else ""
        out.append(f"<tr{klass}>" + "".join(f'<td class="{c}">{v}</td>' if c else f"<td>{v}</td>" for c, v in cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _n(value: object) -> tuple[str, str]:
    return "n", escape(str(value))


def _t(value: object) -> tuple[str, str]:
    return "", escape(str(value))


def render_html(rows: Sequence[RunRow], manifest: dict[str, Any]) -> str:
    """The whole ``report.html`` as one string (see the module docstring)."""
    return html_from_model(build_model(rows, manifest))


def html_from_model(model: ReportModel, trend_panel: str | None = None) -> str:
    """:func:`render_html` of a prebuilt :class:`lexbench.report.model.ReportModel`. ``trend_panel``: the
    history's trend section (:func:`lexbench.history.trend.report_panel`), placed after the leaderboards;
    ``None`` (no history beside the run) leaves the page as it was."""
    report, rows = model.data, model.rows
    suite_id = report["run"]["suite"].get("id") or "?"
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>lexbench report — {escape(suite_id)}</title><style>{_CSS}</style></head><body><main>",
             "<h1>lexbench report</h1>"]
    parts += [f'<p class="facts">{escape(line)}</p>' for line in run_lines(report)]
    if report["run"]["suite"].get("review_status") == "imported_unreviewed":
        caveats = "".join(f"<li>{escape(caveat)}</li>" for caveat in import_caveats(report))
        parts.append('<div class="note"><p>This suite was imported from a public corpus and has not been reviewed: its '
                     "cases have no stable groups or page identity, and titles are scored only where the source has an "
                     f"independent one.</p><p>{escape(import_heading(report))}</p>"
                     + (f"<ul>{caveats}</ul>" if caveats else "") + "</div>")
    method = report["method"]
    parts.append(f'<p class="note">Pass rate = pass ÷ (pass + fail); unresolvable items are counted apart. Whiskers and '
                 f"intervals: {escape(method['interval'])} ({method['resamples']} resamples, seed {method['seed']}). "
                 "Noise = median answer size ÷ reference size — read it beside the pass rate, since a whole-page dump "
                 "passes recall contracts too. Coverage is a tolerance on 6-character fragments, not proof of exact "
                 "text.</p>")

    parts.append('<h2 id="leaderboards">Leaderboards</h2>')
    parts.append(_figure("chart-pass-rates", pass_rate_chart(report),
                         "Pass rate per provider; the whisker is the 95 % bootstrap interval over cases."))
    for board in report["leaderboards"]:
        parts.append(f"<h3>{escape(board['title'])}</h3>")
        head = ["provider", "items", "pass", "fail", "unresolvable", "pass rate", "unresolvable share", "95 % CI"]
        head += [COMPONENT_LABELS[c] for c in LEADERBOARD_COMPONENTS] + ["p50 s", "p95 s", "noise", "answer tokens"]
        body = []
        for p in board["providers"]:
            body.append([_t(p["provider"]), _n(p["items"]), _n(p["pass"]), _n(p["fail"]), _n(p["unresolvable"]),
                         _n(pct(p["pass_rate"])), _n(unresolvable_text(p["unresolvable_share"], p["self_reported"])),
                         _n(interval_text(p["interval"]))]
                        + [_n(pct(p["components"][c.value])) for c in LEADERBOARD_COMPONENTS]
                        + [_n(secs(p["latency_p50_s"])), _n(secs(p["latency_p95_s"])), _n(ratio(p["noise"])),
                           _n(tokens_text(p["answer_tokens"]))])
        parts.append(_table(head, body))
        probed = [p for p in board["providers"] if "boilerplate_probes" in p]
        if probed:
            parts.append("<p>Boilerplate probes, beside the noise figure (pages whose source lists text a good extraction "
                         "leaves out: trafilatura-eval's <code>without</code> snippets; a diagnostic, not part of the "
                         "verdict): " + "; ".join(f"{escape(p['provider'])} {boilerplate_text(p['boilerplate_probes'])}"
                                                  for p in probed) + ".</p>")
    if trend_panel is not None:
        parts.append(trend_panel)

    if report["comparisons"]:
        parts.append('<h2 id="comparisons">Pairwise comparisons</h2>')
        parts.append("<p>Paired bootstrap over the cases both providers scored; A is the better-ranked provider, "
                     "the difference is A's pass rate minus B's. A highlighted row is a real "
                     "difference: its 95 % interval excludes 0. Otherwise these cases cannot tell the two apart. "
                     "Noise (median answer ÷ reference size over the shared cases both answered) sits beside each "
                     "rate: a lead bought with a whole-page dump shows as noise.</p>")
        body, classes = [], []
        for c in report["comparisons"]:
            ci = c["interval"]
            body.append([_t(c["output_contract"]), _t(c["first"]), _t(c["second"]), _n(c["shared_cases"]),
                         _n(pct(c["first_rate"])), _n(pct(c["second_rate"])), _n(signed_pct(c["difference"])),
                         _n(f"{signed_pct(ci['low'])} to {signed_pct(ci['high'])}"), _t("yes" if c["real"] else "no"),
                         _n(ratio(c.get("first_noise"))), _n(ratio(c.get("second_noise")))])
            classes.append("real" if c["real"] else "")
        parts.append(_table(COMPARISON_HEADINGS, body, row_classes=classes))

    parts.append('<h2 id="latency">Latency and cost</h2>')
    parts.append(_figure("chart-latency", latency_chart(rows, model.summaries),
                         "Each dot is one answered item (green pass, red fail); thick mark p50, thin mark p95."))
    body = [[_t(e["provider"]), _n(e["timed_items"]), _n(secs(e["latency_p50_s"])), _n(secs(e["latency_p95_s"])),
             _n(secs(e["latency_max_s"])), _n(e["attempts"]), _n(e["retried_items"]), _n(cost_text(e["cost"]))]
            for e in report["latency_and_cost"]]
    parts.append(_table(["provider", "timed items", "p50 s", "p95 s", "max s", "attempts", "retried items", "cost"], body))
    if (intro := cost_intro(report)) is not None:
        parts.append(f'<h2 id="engine-cost">Engine cost</h2><p>{escape(intro)}</p>')
        parts.append(_table(COST_HEAD, [[(_n if figure else _t)(cell) for figure, cell in zip(COST_FIGURES, row)]
                                        for row in cost_rows(report)]))
    for heading, intro, head, figures, rows_text in browser_tables(report):
        anchor = heading.lower().replace(" ", "-")
        parts.append(f'<h2 id="{anchor}">{escape(heading)}</h2><p>{escape(intro)}</p>')
        parts.append(_table(head, [[(_n if figure else _t)(cell) for figure, cell in zip(figures, row)]
                                   for row in rows_text]))

    parts.append('<h2 id="heatmap">Provider × case</h2>')
    legend = "".join(f'<span style="background:{COLOURS[k]}"></span>{k}' for k in ("pass", "fail", "unresolvable", "missing"))
    parts.append(_figure("chart-heatmap", heatmap(rows, model.summaries), f'<span class="legend">{legend}</span>'))

    providers = [p["provider"] for board in report["leaderboards"] for p in board["providers"]]
    parts.append('<h2 id="breakdowns">Pass rate by track, category and language</h2>')
    for field, heading in BREAKDOWNS:
        parts.append(f"<h3>By {escape(heading)}</h3>")
        body = []
        for g in report["breakdowns"][field]:
            cells = [_t(g["group"]), _n(g["cases"])]
            for p in providers:
                cell = g["providers"].get(p)
                cells.append(_n("–" if cell is None or not cell["scored"] else
                                f"{pct(cell['pass_rate'])} ({cell['pass']}/{cell['scored']})"))
            body.append(cells)
        parts.append(_table([heading, "cases", *providers], body))

    parts.append('<h2 id="components">Failed components</h2><p>Failures of each component family / items where it '
                 "was scored.</p>")
    body = [[_t(e["provider"])] + [_n(f"{e['failures'][c.value]}/{e['scored'][c.value]}") for c in COMPONENT_COLUMNS]
            for e in report["components"]]
    parts.append(_table(["provider", *(COMPONENT_LABELS[c] for c in COMPONENT_COLUMNS)], body))

    classes = sorted({c for e in report["failure_classes"] for c in e["classes"]})
    if classes:
        parts.append('<h2 id="failure-classes">Failure classes</h2>')
        body = [[_t(e["provider"])] + [_n(e["classes"].get(c, 0)) for c in classes] for e in report["failure_classes"]]
        parts.append(_table(["provider", *classes], body))

    if report["flagged"]:
        parts.append(f'<h2 id="flagged">Flagged cases</h2><p>{escape(FLAGS_INTRO)}</p><dl class="flags">')
        for flag, cases in flagged_cases(report).items():
            meaning = escape(report["flags"][flag])
            parts.append(f'<dt><code title="{meaning}">{escape(flag)}</code> ({len(cases)} case{"" if len(cases) == 1 else "s"})'
                         f"</dt><dd>{meaning}.<br>" + ", ".join(f"<code>{escape(c)}</code>" for c in cases) + "</dd>")
        parts.append("</dl>")

    if report["not_passed"]:
        parts.append('<h2 id="not-passed">Items that did not pass</h2>')
        body = []
        for item in report["not_passed"]:
            answer = (f'<a href="{escape(item["answer"])}">{escape(item["answer"].split("/")[-1][:12])}…</a>'
                      if item["answer"] else "no answer")
            body.append([("", f"<code>{escape(item['item'])}</code>"), _t(item["outcome"]),
                         _t(item["failure_class"] or "–"), ("", answer), ("why", escape(shown_text(item["explanation"])))])
        parts.append(_table(["item", "verdict", "class", "answer", "why"], body))
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
