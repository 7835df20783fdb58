"""Figures 2, 3 (I/O-bound) and 5: what the harness itself costs, with benchmark-only providers.

- **2** Harness overhead: 2,000 items (1,000 synthetic cases × 2 zero-latency providers) through the full
  path — collection, provider call, answer boundary, scoring, run record, JUnit properties — against a
  plain parametrized pytest test that does nothing, 2,000 times, with the same flags (``-n 0``,
  ``--junitxml``). Each side is timed from configuration (before lexbench loads its suite) to the end
  of its last item; interpreter start-up and imports are figure 5's, the end-of-run report is printed
  beside (whole-process times).
- **3b/3c** I/O-bound scaling: 200 items against a loopback fake API that answers after 200 ms, ``-n 16``.
  The items' span (first item started → last item finished, as the controller sees it, after every
  worker has started) against the ideal 200 × 0.2 s / 16; and the recorded latencies against the fake's
  own handling time.
- **5** Start-up: ``--collect-only`` of 1,000 cases × 5 providers against 1 case × 5 providers, whole
  processes.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.common import (
    Figure, Timed, bench_env, fresh_dir, median, paired_rounds, python, ratios, run_timed, spread,
)
from benchmarks.projects import write_bench_project, write_plain_project, write_synthetic_suite

ZERO_PROVIDERS = {f"zero{index}": {"type": "bench-zero"} for index in range(5)}
FAKE_DELAY_S = 0.2
IO_ITEMS = 200
IO_WORKERS = 16


class HarnessWork:
    """The synthetic suites and projects, built once under ``work``."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.project = write_bench_project(work / "project", ZERO_PROVIDERS)
        self.plain = write_plain_project(work / "plain", 2000)
        self.suite_1000 = self._suite("suite-1000", 1000)
        self.suite_1 = self._suite("suite-1", 1)
        self.suite_io = self._suite("suite-200", IO_ITEMS)

    def _suite(self, name: str, cases: int) -> Path:
        root = self.work / name
        if not (root / "dataset.json").is_file():
            write_synthetic_suite(root, cases)
        return root

    def lexbench(self, *args: str, marks: str | None = None, project: Path | None = None) -> Timed:
        """Run pytest in the benchmark project; exit codes 0 and 1 (provider misses) are fine."""
        argv = [python(), "-m", "pytest", "-q", "--tb=no", "-p", "benchmarks.timing_plugin", *args]
        return run_timed(argv, cwd=project or self.project, env=bench_env(),
                         marks=self.work / f"{marks}.marks.json" if marks else None, ok=(0, 1))


def _path(timed: Timed) -> float:
    """Seconds from configuration (before the suite is loaded) to the end of the last item: collection
    and every item, without interpreter start-up and imports (figure 5) or the end-of-run report."""
    return timed.marks["last_finish"] - timed.marks["configure"]


def overhead_figure(work: HarnessWork, rounds: int) -> Figure:
    """Figure 2: items per second through the full path, as a share of the do-nothing test's."""
    items = 2000
    lexbench_runs: list[Timed] = []
    plain_runs: list[Timed] = []
    def lexbench_run() -> float:
        run_dir = fresh_dir(work.work / "runs", "overhead")
        done = work.lexbench(f"--suite={work.suite_1000}", "--provider-config=providers.json", "--providers=zero0,zero1",
                             "-n", "0", f"--run-dir={run_dir}", f"--junitxml={work.work / 'overhead.xml'}",
                             marks="overhead")
        lexbench_runs.append(done)
        return _path(done)

    def plain_run() -> float:
        done = run_timed([python(), "-m", "pytest", "-q", "-n", "0", "-p", "benchmarks.timing_plugin",
                          f"--junitxml={work.work / 'plain.xml'}"], cwd=work.plain, env=bench_env(),
                         marks=work.work / "plain.marks.json")
        plain_runs.append(done)
        return _path(done)

    lexbench_times, plain_times = paired_rounds(rounds, lexbench_run, plain_run)
    _remove(work.work / "runs", "overhead-")  # after every timed run: deleting files slows new ones
    share = median(ratios(plain_times, lexbench_times))
    whole = median(ratios([t.seconds for t in plain_runs], [t.seconds for t in lexbench_runs]))
    collected = lexbench_runs[-1].marks.get("items")
    # The most the share could reach if every lexbench item cost only what a plain item costs: loading
    # the suite and collecting its items stay.
    setup = median([t.marks["collected"] - t.marks["configure"] for t in lexbench_runs])
    plain_items = median([t.marks["last_finish"] - t.marks["collected"] for t in plain_runs])
    ceiling = median(plain_times) / (setup + plain_items)
    details = [
        f"{collected} lexbench items (1,000 cases × 2 zero-latency providers), {items} plain items, both -n 0 "
        f"with --junitxml; {rounds} rounds, A B alternating",
        f"configuration → last item: lexbench {spread(lexbench_times)} ({items / median(lexbench_times):,.0f} "
        f"items/s), plain {spread(plain_times)} ({items / median(plain_times):,.0f} items/s)",
        f"ceiling (about): with items that cost no more than the plain test's ({plain_items:.2f} s for {items}), loading and "
        f"collecting the suite ({setup:.2f} s) would still hold the share to {ceiling:.0%}",
        f"whole processes (start-up and end-of-run report included): lexbench "
        f"{spread([t.seconds for t in lexbench_runs])}, plain {spread([t.seconds for t in plain_runs])} → {whole:.0%}",
    ]
    return Figure("2", "harness items/s vs a do-nothing parametrized test", share * 100, 50.0, ">=", "%",
                  details=details)


def startup_figure(work: HarnessWork, rounds: int) -> Figure:
    """Figure 5."""
    providers = "--providers=" + ",".join(ZERO_PROVIDERS)

    def collect(suite: Path) -> float:
        return work.lexbench(f"--suite={suite}", "--provider-config=providers.json", providers, "--collect-only",
                             f"--run-dir={fresh_dir(work.work / 'runs', 'collect')}").seconds

    many, one = paired_rounds(rounds, lambda: collect(work.suite_1000), lambda: collect(work.suite_1))
    extra = median([a - b for a, b in zip(many, one, strict=True)])
    details = [f"1,000 cases × 5 providers: {spread(many)}", f"1 case × 5 providers:      {spread(one)}",
               f"{rounds} rounds; whole pytest processes"]
    return Figure("5", "collection of 1,000 cases × 5 providers, beyond 1 case", extra, 2.0, "<=", " s",
                  details=details)


def io_figures(work: HarnessWork, rounds: int) -> list[Figure]:
    """Figure 3b: the items' span and the recorded latencies against a 200 ms loopback fake API."""
    from benchmarks.bench_providers import FakeApiServer

    answer = "# A fake answer\n\n" + "Some paragraph text of a typical answer. " * 200
    spans: list[float] = []
    deviations: list[float] = []
    worst_p95: list[float] = []
    handled_median: list[float] = []
    recorded_median: list[float] = []
    project = work.work / "io-project"
    for round_index in range(rounds):
        with FakeApiServer(FAKE_DELAY_S, answer) as server:
            write_bench_project(project, {"fake": {"type": "bench-fake-api", "options": {"endpoint": server.endpoint}}})
            run_dir = fresh_dir(work.work / "runs", "io")
            done = work.lexbench(f"--suite={work.suite_io}", "--provider-config=providers.json", "--providers=fake",
                                 "-n", str(IO_WORKERS), f"--run-dir={run_dir}", "--retries=0",
                                 marks="io", project=project)
            handled = list(server.handled)
        rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
        latencies = sorted(row["latency_s"] for row in rows if row.get("latency_s") is not None)
        if len(latencies) != IO_ITEMS or len(handled) < IO_ITEMS:
            raise RuntimeError(f"I/O run recorded {len(latencies)} latencies and {len(handled)} fake calls, "
                               f"expected {IO_ITEMS}")
        spans.append(done.marks["last_finish"] - done.marks["first_start"])
        true = median(handled)
        handled_median.append(true)
        recorded_median.append(median(latencies))
        deviations.append(median(latencies) / true - 1)
        worst_p95.append(latencies[int(0.95 * len(latencies))] / true - 1)
    _remove(work.work / "runs", "io-")
    ideal = IO_ITEMS * FAKE_DELAY_S / IO_WORKERS
    span = median(spans)
    deviation = median(deviations)
    return [
        Figure("3b", f"I/O-bound: {IO_ITEMS} items at -n {IO_WORKERS} / ideal {ideal:g} s", span / ideal, 1.3, "<=",
               details=[f"items' span (first start → last finish, controller clock): {spread(spans)}; "
                        f"{rounds} rounds; worker start-up not included"]),
        Figure("3c", "I/O-bound: recorded latency vs the fake's true latency", abs(deviation) * 100, 10.0, "<=", "%",
               details=[f"recorded median {median(recorded_median) * 1000:.1f} ms, fake's own handling median "
                        f"{median(handled_median) * 1000:.1f} ms (deviation {deviation:+.1%}); p95 recorded "
                        f"{median(worst_p95):+.1%} from the true median"]),
    ]


def _remove(parent: Path, prefix: str) -> None:
    """Delete the run directories under ``parent`` whose names start with ``prefix``."""
    import shutil

    for path in parent.glob(f"{prefix}*"):
        shutil.rmtree(path, ignore_errors=True)
