"""The trend panel: each provider's pass rate and p50 latency over its comparable runs, as inline SVG.

Two uses, one drawing (:func:`trend_figure`):

- ``lexbench history --html OUT.html`` (:func:`write_page`): one self-contained page with every trend;
- ``report.html``, when other runs of the same suite lie beside the run (its parent folder):
  :func:`report_panel` gives the section the report inserts after its leaderboards — the trends of the
  run's own providers up to and including this run (runs started later are left out, so rebuilding an
  old run's report gives the same bytes however many nights were added since). No history beside: ``None``,
  and the report is unchanged.

A trend is one suite × dataset × scorer × provider configuration (:mod:`lexbench.history.summary`), so a
line never joins runs that are not comparable; a changed dataset or scorer starts a new figure.
Pass rate is drawn 0–100 % with each run's 95 % interval as a whisker; p50 latency from 0 s. Like the
report, nothing is fetched and there is no script.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from html import escape
from pathlib import Path

from lexbench.history.store import COMPLETE, History, classify, default_cache, scan
from lexbench.history.summary import RunFigures, Trend, trends
from lexbench.report.html import CSS
from lexbench.report.numbers import interval_text, pct, secs
from lexbench.run.rundir import write_file

_LEFT = 52  # room for the y tick labels of each panel
_PLOT_W = 400
_PLOT_H = 130
_TOP = 30  # the panel's title above its plot
_PANEL_GAP = 70
_LABEL_W = 112  # the width a run's label needs under the x axis; every run is named in its point's tooltip
PASS_COLOUR = "#2e6fc4"
LATENCY_COLOUR = "#b35c00"


def _nice_top(value: float) -> float:
    for step in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600):
        if value <= step:
            return float(step)
    return float(int(value) + 1)


def _day(figures: RunFigures) -> str:
    try:
        return datetime.fromisoformat(figures.started).strftime("%m-%d %H:%M") if figures.started else ""
    except ValueError:
        return ""


def _tip(f: RunFigures) -> str:
    return (f"{f.name} ({f.started or 'start unknown'}): pass rate {pct(f.pass_rate)} [95 % {interval_text(f.interval)}], "
            f"{f.passed} pass / {f.failed} fail / {f.unresolvable} unresolvable; p50 latency {secs(f.latency_p50_s)} s")


def _panel(x0: float, title: str, runs: Sequence[RunFigures], values: Sequence[float | None],
           whiskers: Sequence[tuple[float, float] | None], top: float, ticks: Sequence[tuple[float, str]],
           colour: str) -> list[str]:
    """One plot: ``values`` (and optional ``whiskers``) as shares of ``top``, one x step per run."""
    n = len(runs)
    left = x0 + _LEFT

    def x(i: int) -> float:
        return left + (i * _PLOT_W / (n - 1) if n > 1 else _PLOT_W / 2)

    def y(value: float) -> float:
        return _TOP + _PLOT_H * (1 - min(value / top, 1.0))

    body = [f'<text x="{left}" y="16" font-weight="bold">{escape(title)}</text>']
    for value, label in ticks:
        body.append(f'<line class="grid" x1="{left}" y1="{y(value):.1f}" x2="{left + _PLOT_W}" y2="{y(value):.1f}"/>'
                    f'<text x="{left - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{escape(label)}</text>')
    body.append(f'<line class="axis" x1="{left}" y1="{_TOP + _PLOT_H}" x2="{left + _PLOT_W}" y2="{_TOP + _PLOT_H}"/>')
    points = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values) if v is not None]
    if len(points) > 1:
        body.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="2"/>')
    for i, (f, value, whisker) in enumerate(zip(runs, values, whiskers, strict=True)):
        if whisker is not None:
            lo, hi = y(whisker[0]), y(whisker[1])
            body.append(f'<line class="whisker" x1="{x(i):.1f}" y1="{lo:.1f}" x2="{x(i):.1f}" y2="{hi:.1f}"/>'
                        f'<line class="whisker" x1="{x(i) - 4:.1f}" y1="{lo:.1f}" x2="{x(i) + 4:.1f}" y2="{lo:.1f}"/>'
                        f'<line class="whisker" x1="{x(i) - 4:.1f}" y1="{hi:.1f}" x2="{x(i) + 4:.1f}" y2="{hi:.1f}"/>')
        if value is not None:
            body.append(f'<circle cx="{x(i):.1f}" cy="{y(value):.1f}" r="4" fill="{colour}"><title>{escape(_tip(f))}</title></circle>')
    spacing = _PLOT_W / (n - 1) if n > 1 else _PLOT_W
    every = max(1, math.ceil(_LABEL_W / spacing))
    labelled = [i for i in range(n) if i % every == 0]
    if labelled[-1] != n - 1:  # the latest run is always named; the label before it gives way when too close
        if (n - 1 - labelled[-1]) * spacing < _LABEL_W:
            labelled.pop()
        labelled.append(n - 1)
    base = _TOP + _PLOT_H
    for i, f in enumerate(runs):
        if i in labelled:
            body.append(f'<text x="{x(i):.1f}" y="{base + 16}" text-anchor="middle">{escape(f.name[-16:])}</text>'
                        f'<text x="{x(i):.1f}" y="{base + 30}" text-anchor="middle" fill="#666">{escape(_day(f))}</text>')
    return body


def trend_title(trend: Trend) -> str:
    """The heading of one trend: provider, suite, dataset revision and sha256, scorer, number of runs."""
    return (f"{trend.provider} ({trend.output_contract}) — suite {trend.suite}, dataset revision "
            f"{trend.dataset_revision or '?'} ({(trend.dataset_sha256 or '')[:12]}), scorer "
            f"{trend.scorer_version if trend.scorer_version is not None else '?'}: {len(trend.runs)} run(s)")


def trend_figure(trend: Trend, figure_id: str) -> str:
    """One trend as a ``<figure>``: pass rate with its whiskers beside p50 latency, one x step per run."""
    runs = trend.runs
    latencies = [f.latency_p50_s for f in runs if f.latency_p50_s is not None]
    ceiling = _nice_top(max(latencies)) if latencies else 1.0
    body = _panel(0, "pass rate (95 % interval)", runs, [f.pass_rate for f in runs],
                  [(f.interval["low"], f.interval["high"]) if f.interval else None for f in runs], 1.0,
                  [(0.0, "0 %"), (0.5, "50 %"), (1.0, "100 %")], PASS_COLOUR)
    body += _panel(_LEFT + _PLOT_W + _PANEL_GAP, "p50 latency (s)", runs, [f.latency_p50_s for f in runs],
                   [None] * len(runs), ceiling, [(0.0, "0"), (ceiling / 2, f"{ceiling / 2:g}"), (ceiling, f"{ceiling:g}")],
                   LATENCY_COLOUR)
    width, height = 2 * (_LEFT + _PLOT_W) + _PANEL_GAP + 50, _TOP + _PLOT_H + 36  # room for the last label
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(trend.provider)}: pass rate and p50 latency over {len(runs)} runs">'
           + "".join(body) + "</svg>")
    last = runs[-1]
    caption = (f"Latest {escape(last.name)}: {pct(last.pass_rate)} [{interval_text(last.interval)}] of "
               f"{last.passed + last.failed} scored item(s), p50 {secs(last.latency_p50_s)} s. Whiskers: 95 % bootstrap "
               "interval over cases; hover a point for its run.")
    return (f'<figure id="{escape(figure_id)}"><h3>{escape(trend_title(trend))}</h3>{svg}'
            f"<figcaption>{caption}</figcaption></figure>")


def _figures(shown: Sequence[Trend], prefix: str) -> list[str]:
    return [trend_figure(t, f"{prefix}-{i + 1}") for i, t in enumerate(shown)]


def page_html(history: History) -> str:
    """The ``--html`` page: every trend, by suite and provider, and the runs left out."""
    shown = trends(history)
    complete = sum(1 for e in history.entries if e.kind == COMPLETE)
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>lexbench history</title><style>{CSS}</style></head><body><main>", "<h1>lexbench history</h1>",
             f'<p class="facts">{complete} complete run(s), {len(shown)} provider trend(s). A trend is one suite, dataset, '
             "scorer version and provider configuration: runs on one line are comparable.</p>"]
    parts += _figures(shown, "trend")
    left = [e for e in history.entries if e.kind != COMPLETE]
    if left:
        parts.append("<h2>Left out</h2><ul>" + "".join(f"<li>{escape(e.kind)}: {escape(e.reason)}</li>" for e in left) + "</ul>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


def write_page(history: History, path: Path) -> Path:
    """Write :func:`page_html` to ``path`` (replacing a link planted there, never writing through it)."""
    write_file(path, page_html(history).encode("utf-8"))
    return path


def report_panel(run_dir: Path) -> str | None:
    """The trend section for ``run_dir``'s ``report.html``, or ``None`` when no other complete run of its
    suite lies in its parent folder (see the module docstring). The run itself counts as complete even
    while its own session holds its lock (the report is written before the session ends)."""
    parent = run_dir.parent
    try:
        siblings = [e for e in scan([parent]) if e.path != run_dir and e.kind == COMPLETE]
    except OSError:
        return None
    own = classify(run_dir, held_by_us=True)
    if own.kind != COMPLETE:
        return None
    suite = (own.manifest.get("suite") or {}).get("id")
    started = own.manifest.get("started") or ""
    siblings = [e for e in siblings if (e.manifest.get("suite") or {}).get("id") == suite
                and (e.manifest.get("started") or "") <= started]
    if not siblings:
        return None
    history = History([*siblings, own], threads=1, cache=default_cache())
    mine = [t for t in trends(history) if t.runs[-1].run == str(run_dir) and len(t.runs) > 1]
    if not mine:
        return None
    return ('<h2 id="trends">Trends</h2><p>Each provider of this run over the earlier comparable runs beside it (same '
            "suite, dataset, scorer version and provider configuration), up to this run: <code>lexbench history "
            f"{escape(str(parent))}</code> shows them all.</p>" + "".join(_figures(mine, "chart-trend")))
