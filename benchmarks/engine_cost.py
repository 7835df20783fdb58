"""Figure 8 of ``make perf`` (issue 28 item 6): ``chromium-cdp`` through lexbench against a bare Playwright
loop over the same archive pages, both with 2 workers.

- **lexbench**: what a user runs, ``pytest -n 2 --suite=dynamic --providers=chromium-cdp`` (the example
  provider config), a whole process: collection, the replay server, 2 xdist workers, one fresh Chromium per
  page in its container behind the guarding proxy, DOM completion, Markdown, scoring, the run record and
  the reports.
- **bare**: :mod:`benchmarks.bare_playwright`, a whole process: the same replay server over the same
  archives, the same Chromium binary and flags, the same DOM completion waits, 2 asyncio workers, one fresh
  browser per page (``per-page``, as ``chromium-cdp``). A third side keeps one browser per worker
  (``per-worker``): what a bare loop gains by not isolating pages, given in the details, not the target.

Pages per minute = pages × 60 ÷ the process's wall time; the figure is lexbench's overhead, 1 − its pages
per minute ÷ the bare loop's (the share of the bare loop's throughput lexbench loses), median of the
per-round values; the sides run in turn, alternating which goes first. The details split lexbench's time
(from its rows and the timing plugin's marks): process start to the first item, the calls (engine start,
containment, guarding proxy, rendering: ``latency_s``), the rest of each item (the provider's first build,
scoring, the row), and the end (reports). Needs ``.evidence/dynamic`` (``lexbench fetch-evidence --suite
dynamic``), Chromium and Playwright; skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

from benchmarks.common import REPO, Figure, Timed, bench_env, fresh_dir, median, python, run_timed

TARGET = 10.0
"""Lexbench's overhead target, % of the bare loop's pages per minute."""
EVIDENCE = REPO / ".evidence" / "dynamic"
WORKERS = 2


def missing() -> str | None:
    """Why figure 8 cannot run here, or ``None``."""
    if not (EVIDENCE / "dataset.json").is_file():
        return f"no {EVIDENCE.relative_to(REPO)} (lexbench fetch-evidence --suite dynamic)"
    if shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists():
        return "no Chromium (apt-get install chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "no Playwright (pip install -e '.[engines]')"
    return None


def _lexbench(work: Path) -> tuple[Timed, list[dict]]:
    run_dir = fresh_dir(work / "runs", "chromium-cdp")
    done = run_timed([python(), "-m", "pytest", "-q", "--tb=no", "-p", "no:randomly", "-p", "benchmarks.timing_plugin",
                      "-n", str(WORKERS), "--suite=dynamic", "--provider-config=providers/providers.example.json",
                      "--providers=chromium-cdp", f"--run-dir={run_dir}"],
                     cwd=REPO, env=bench_env(), marks=work / "lexbench.marks.json", ok=(0, 1))
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return done, rows


def _bare(browser: str) -> tuple[Timed, dict]:
    done = run_timed([python(), "-m", "benchmarks.bare_playwright", str(EVIDENCE), "--workers", str(WORKERS),
                      "--browser", browser], cwd=REPO, env=bench_env())
    return done, json.loads(done.stdout.strip().splitlines()[-1])


def engine_figure(work: Path, rounds: int) -> Figure:
    """Figure 8: lexbench's overhead in pages per minute against the bare per-page Playwright loop (%)."""
    name = "chromium-cdp through lexbench vs a bare Playwright loop, dynamic archives, 2 workers: pages/min lost"
    reason = missing()
    if reason:
        return Figure("8", name, None, TARGET, "<=", unit=" %", skipped=reason)
    work.mkdir(parents=True, exist_ok=True)
    lex: list[tuple[Timed, list[dict]]] = []
    bare: list[tuple[Timed, dict]] = []
    shared: list[tuple[Timed, dict]] = []
    for index in range(rounds):
        sides = [lambda: lex.append(_lexbench(work)), lambda: bare.append(_bare("per-page"))]
        for side in sides if index % 2 == 0 else reversed(sides):
            side()
        shared.append(_bare("per-worker"))
    pages = len(lex[0][1])

    def ppm(seconds: float) -> float:
        return pages * 60 / seconds

    overheads = [100 * (1 - ppm(l.seconds) / ppm(b.seconds)) for (l, _), (b, _) in zip(lex, bare)]
    calls = [statistics.median(r["latency_s"] for r in rows) for _, rows in lex]
    rest = [statistics.median(r["finished_at"] - r["started_at"] - r["latency_s"] for r in rows) for _, rows in lex]
    bare_page = [statistics.median(out["page_seconds"]) for _, out in bare]
    head = [l.marks["first_start"] - l.marks["configure"] for l, _ in lex]
    tail = [l.marks["unconfigure"] - l.marks["last_finish"] for l, _ in lex if "unconfigure" in l.marks]
    span = [max(r["finished_at"] for r in rows) - min(r["started_at"] for r in rows) for _, rows in lex]
    details = [
        f"pages per minute (median of {rounds} rounds, {pages} pages, whole processes): lexbench "
        f"{median([ppm(l.seconds) for l, _ in lex]):.1f}, bare per-page {median([ppm(b.seconds) for b, _ in bare]):.1f}, "
        f"bare per-worker browser {median([ppm(s.seconds) for s, _ in shared]):.1f}",
        "overhead per round: " + ", ".join(f"{value:+.1f} %" for value in overheads),
        f"lexbench: wall {median([l.seconds for l, _ in lex]):.1f} s = start to first item {median(head):.1f} s "
        f"+ items {median(span):.1f} s" + (f" + reports {median(tail):.1f} s" if tail else "")
        + f"; per page: call {median(calls):.2f} s, the rest of the item {median(rest):.2f} s (median)",
        f"bare per-page: wall {median([b.seconds for b, _ in bare]):.1f} s, pages span "
        f"{median([out['seconds'] for _, out in bare]):.1f} s, per page {median(bare_page):.2f} s (median); "
        f"pages that did not complete: lexbench {median([sum(r['outcome'] != 'pass' for r in rows) for _, rows in lex]):g} "
        f"(verdicts), bare {median([len(out['failed']) for _, out in bare]):g}",
    ]
    return Figure("8", name, median(overheads), TARGET, "<=", unit=" %", details=details)
