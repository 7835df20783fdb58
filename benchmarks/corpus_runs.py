"""Figures 3a and 4, over the real corpus (``../shared/corpus``) with the local providers.

- **3a** CPU-bound scaling: the local extractors (``http-markdownify``, ``trafilatura``, ``readability``)
  over the imported corpus suites, ``-n 2`` against ``-n 0``, each the wall time of the ``pytest``
  processes (one per suite, worker start-up included), over every item; ``--quick`` runs a
  deterministic quarter of them (``--shard=1/4`` of every suite: all suites and providers mixed).
- **4** Import and compile: ``lexbench import-corpus`` of every importable corpus folder (one process per
  folder, as a user runs it; it compiles the dataset and writes the bindings) against one ``-n 0`` run
  of the fastest real provider over the same suites (fastest = lowest median recorded latency in the
  figure 3a runs).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from benchmarks.common import (
    REPO, Figure, bench_env, fresh_dir, import_corpus, median, paired_rounds, python, ratios, run_timed, spread,
)

LOCAL_PROVIDERS = ("http-markdownify", "trafilatura", "readability")
SHARD = "1/4"


class CorpusRuns:
    """Runs the local providers over the imported suites and keeps the run directories."""

    def __init__(self, work: Path, suites: dict[str, Path], *, quick: bool) -> None:
        self.work = work
        self.suites = suites
        self.quick = quick
        self.serial_runs: list[Path] = []  # the -n 0 run directories of the latest round

    def run(self, workers: int, round_index: int, providers: tuple[str, ...] = LOCAL_PROVIDERS,
            shard: bool = True) -> tuple[float, list[Path]]:
        """Run ``providers`` over every suite with ``-n workers``; return total wall seconds and run dirs."""
        total = 0.0
        run_dirs = []
        for name, suite in self.suites.items():
            run_dir = fresh_dir(self.work / "runs", f"{name}-n{workers}-r{round_index}-{'-'.join(providers)[:40]}")
            argv = [python(), "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider", "-n", str(workers),
                    f"--suite={suite}", f"--providers={','.join(providers)}", f"--run-dir={run_dir}"]
            if shard and self.quick:
                argv.append(f"--shard={SHARD}")
            total += run_timed(argv, cwd=REPO, env=bench_env(), ok=(0, 1)).seconds
            run_dirs.append(run_dir)
        return total, run_dirs


def _rows(run_dirs: list[Path]) -> list[dict]:
    rows = []
    for run_dir in run_dirs:
        rows += [json.loads(line) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return rows


def scaling_figure(runs: CorpusRuns, rounds: int) -> Figure:
    """Figure 3a (also leaves the ``-n 0`` run directories for figures 1b, 1d and 4)."""
    serial_dirs: list[list[Path]] = []

    def serial() -> float:
        seconds, dirs = runs.run(0, len(serial_dirs))
        serial_dirs.append(dirs)
        return seconds

    parallel_count = [0]
    parallel_dirs: list[Path] = []

    def parallel() -> float:
        parallel_count[0] += 1
        seconds, dirs = runs.run(2, parallel_count[0])
        parallel_dirs.extend(dirs)
        return seconds

    serial_times, parallel_times = paired_rounds(rounds, serial, parallel)
    for path in [*parallel_dirs, *(d for dirs in serial_dirs[:-1] for d in dirs)]:
        shutil.rmtree(path, ignore_errors=True)  # only the last -n 0 runs are read again (figures 1b, 1d, 4)
    runs.serial_runs = serial_dirs[-1]
    items = len(_rows(serial_dirs[-1]))
    speedup = median(ratios(serial_times, parallel_times))
    scope = f"shard {SHARD} of every suite (--quick)" if runs.quick else "every item"
    details = [f"{items} items ({', '.join(LOCAL_PROVIDERS)} × {len(runs.suites)} suites, {scope}); {rounds} rounds",
               f"-n 0: {spread(serial_times)}", f"-n 2: {spread(parallel_times)}"]
    return Figure("3a", "CPU-bound local providers: -n 2 speed-up over -n 0", speedup, 1.7, ">=", details=details)


def provider_runs(runs: CorpusRuns) -> dict[str, list[Path]]:
    """The ``-n 0`` run directories by provider (all providers share them)."""
    return {provider: list(runs.serial_runs) for provider in LOCAL_PROVIDERS}


def fastest_provider(runs: CorpusRuns) -> str:
    """The local provider with the lowest median recorded latency in the ``-n 0`` runs."""
    rows = _rows(runs.serial_runs)
    latencies = {p: [r["latency_s"] for r in rows if r["provider"] == p and r.get("latency_s") is not None]
                 for p in LOCAL_PROVIDERS}
    return min((p for p in latencies if latencies[p]), key=lambda p: median(latencies[p]))


def import_figure(runs: CorpusRuns, rounds: int) -> Figure:
    """Figure 4."""
    provider = fastest_provider(runs)
    import_times: list[float] = []
    provider_times: list[float] = []
    latency_sums: list[float] = []
    for index in range(rounds):
        target = runs.work / "import-check"
        if target.exists():
            shutil.rmtree(target)
        _suites, seconds = import_corpus(target)
        import_times.append(seconds)
        total, dirs = runs.run(0, 100 + index, providers=(provider,), shard=False)
        provider_times.append(total)
        latency_sums.append(sum(r["latency_s"] or 0 for r in _rows(dirs)))
    share = median(ratios(import_times, provider_times))
    details = [f"import + compile of {', '.join(runs.suites)}: {spread(import_times)} (one process per folder)",
               f"{provider} (fastest by median latency) over every case, -n 0: {spread(provider_times)}; "
               f"its recorded latencies alone sum to {median(latency_sums):.1f} s",
               f"{rounds} rounds"]
    return Figure("4", f"import + compile of the corpus / one {provider} run over it", share, 1.0, "<", details=details)
