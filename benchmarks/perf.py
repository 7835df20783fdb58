"""``make perf``: every performance figure of issues 10, 16, 18, 31 (figure 7, ``lexbench history``) and 28 (figure 8,
``chromium-cdp`` against a bare Playwright loop) with its ratio and target; exit 1 when one
is missed (skipped figures, e.g. without the corpus, do not count as missed).

    python -m benchmarks.perf [--rounds N] [--only 1,2,3,4,5,6,7,8 | 1b,1d] [--quick] [--work DIR]

Figures are ratios of two sides measured in turn in the same run, repeated (median of the rounds),
because the machine may be shared. Benchmarks never run under ``make test``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import CORPUS, Figure, cached_corpus_suites, corpus_missing


def _machine() -> str:
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return f"{os.cpu_count()} CPUs, load average {load}, Python {sys.version.split()[0]}"


def main(argv: list[str] | None = None) -> int:
    """Run the selected figures, print them, and return the exit status (1 when a target is missed)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.perf", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds per figure (default 3; median quoted)")
    parser.add_argument("--only", default="1,2,3,4,5,6,7,8",
                        help="comma-separated figure numbers, or single figures of group 1 (1a … 1d) (default: all)")
    parser.add_argument("--quick", action="store_true", help="figure 3a over a quarter of the corpus items")
    parser.add_argument("--work", default=None, help="scratch directory (default: a new temporary directory)")
    args = parser.parse_args(argv)
    parts = {part.strip() for part in args.only.split(",") if part.strip()}
    selected = {part[0] for part in parts}  # "1b" selects group 1, and within it only figure 1b

    def wanted(number: str) -> bool:
        return number in parts or number[0] in parts
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="lexbench-perf-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    print(f"lexbench performance figures (issues 10, 16, 18, 28, 31) — {_machine()}; scratch {work}", flush=True)
    figures: list[Figure] = []

    def show(new: list[Figure]) -> None:
        for figure in new:
            figures.append(figure)
            print("\n".join(figure.lines()), flush=True)

    if selected & {"2", "3", "5"}:
        from benchmarks.harness import HarnessWork, io_figures, overhead_figure, startup_figure

        harness = HarnessWork(work / "harness")
        if "5" in selected:
            show([startup_figure(harness, args.rounds)])
        if "2" in selected:
            show([overhead_figure(harness, args.rounds)])
        if "3" in selected:
            show(io_figures(harness, args.rounds))

    missing = corpus_missing()
    corpus_figures = {"1": ["1a", "1b", "1c", "1d"], "3": ["3a"], "4": ["4"]}
    if missing:
        show([Figure(number, "needs the real corpus", None, 0, "<=", skipped=missing)
              for key, numbers in corpus_figures.items() if key in selected for number in numbers if wanted(number)])
    elif selected & {"1", "3", "4"}:
        from benchmarks.corpus_runs import CorpusRuns, import_figure, provider_runs, scaling_figure
        from benchmarks.scorer import aeb_figure, throughput_figures, typical_figure

        suites = cached_corpus_suites(work)
        runs = CorpusRuns(work, suites, quick=args.quick)
        if "3" in selected:
            show([scaling_figure(runs, args.rounds)])  # also keeps its -n 0 runs for figures 1b, 1d and 4
        elif wanted("1b") or wanted("1d") or "4" in selected:
            runs.serial_runs = runs.run(0, 0)[1]  # figures 1b, 1d and 4 read one -n 0 run's answers and latencies
        if wanted("1a") or wanted("1c"):
            show([figure for figure in throughput_figures(suites, work, args.rounds) if wanted(figure.number)])
        if wanted("1b"):
            show([typical_figure(provider_runs(runs), suites, args.rounds)])
        if wanted("1d"):
            show([aeb_figure(provider_runs(runs), suites, args.rounds)])
        if "4" in selected:
            show([import_figure(runs, args.rounds)])

    if "6" in selected:
        from benchmarks.answer_pass import answer_pass_figures

        show(answer_pass_figures(work / "answer-pass", args.rounds))

    if "7" in selected:
        from benchmarks.history import history_figure

        show([history_figure(work, args.rounds)])

    if "8" in selected:
        from benchmarks.engine_cost import engine_figure

        show([engine_figure(work / "engine-cost", args.rounds)])

    missed = [figure.number for figure in figures if figure.met is False]
    skipped = [figure.number for figure in figures if figure.met is None]
    summary = f"{len(figures)} figures in {time.monotonic() - started:.0f} s: "
    summary += f"missed {', '.join(missed)}" if missed else "every measured target met"
    if skipped:
        summary += f"; skipped {', '.join(skipped)} (corpus at {CORPUS})"
    print(summary, flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
