"""Figure 7 of ``make perf``: ``lexbench history``'s default summary over 1,000 runs × 2,500 items (issue 31).

The runs are synthetic but shaped as lexbench writes them: a manifest that ``read_manifest`` accepts and
2,500 rows per run (100 cases × 25 providers) with the six scored components, one attempt and the
identity fields, ~0.9 KB a row; outcomes drift from run to run. They are written once into the scratch
directory and reused by later rounds. The figure is the wall time of ``lexbench history RUNS`` in a fresh
process (import, scan, the row checks, the summary) once its figure cache is filled — the interactive
case — median of the rounds, against the 2 s target; the details give the first, cold summary that reads
every row, one after a night's run changed, and the process's peak RSS (MB).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import Figure

RUNS = 1000
CASES = 100
PROVIDERS = 25
TARGET_S = 2.0
COMPONENTS = ("call", "title", "regions", "ending", "stable_groups", "page_identity")
DATASET = hashlib.sha256(b"synthetic suite").hexdigest()


def _configuration(providers: list[str]) -> dict:
    return {"providers": providers, "provider_config_sha256_redacted": "0" * 64,
            "provider_specs": {p: {"type": p, "output_contract": "cleaned", "options": {}} for p in providers},
            "runtime_policy": {"timeout_s": 30.0, "retries": 1, "max_body_bytes": 20000000}, "mode": "replay"}


def write_runs(folder: Path, runs: int = RUNS) -> Path:
    """``runs`` run directories under ``folder`` (kept when already complete); returns ``folder``."""
    marker = folder / f".complete-{runs}"
    if marker.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    providers = [f"provider-{p:02d}" for p in range(PROVIDERS)]
    configuration = _configuration(providers)
    config_sha = hashlib.sha256(json.dumps(configuration, sort_keys=True).encode()).hexdigest()
    skill = {p: 0.5 + 0.45 * i / PROVIDERS for i, p in enumerate(providers)}
    rng = random.Random(31)
    # Each item's row in a few variants (pass/fail × latency), built once; a run picks one per item, so
    # writing 2.5 million rows costs a join, not 2.5 million json.dumps.
    variants: dict[tuple[str, str], list[list[str]]] = {}
    for c in range(CASES):
        case = f"article-{c:03d}-en-case"
        for p in providers:
            pair: list[list[str]] = [[], []]
            for passed in (False, True):
                comps = [{"name": name, "passed": passed or name != "title", "measured": 1.0 if passed else 0.5,
                          "threshold": 0.8, "evidence": f"{name} {'ok' if passed else 'missing'}"} for name in COMPONENTS]
                for latency in (0.12, 0.4, 0.9, 1.7):
                    pair[passed].append(json.dumps({
                        "suite": "synthetic", "case": case, "provider": p, "output_contract": "cleaned",
                        "category": "article", "track": "body", "lang": "en", "outcome": "pass" if passed else "fail",
                        "failure_class": None if passed else "content", "explanation": "pass" if passed else "fail: title",
                        "components": comps, "latency_s": latency, "attempts": [{"latency_s": latency}],
                        "content_chars": 2000 + c, "reference_chars": 1900, "content_tokens": 400,
                        "dataset_sha256": DATASET, "configuration_sha256": config_sha}, separators=(",", ":")))
            variants[(case, p)] = pair
    for n in range(runs):
        run = folder / f"run-{n:04d}"
        run.mkdir(exist_ok=True)
        day = f"2026-{1 + n // 300:02d}-{1 + (n // 10) % 28:02d}T{n % 10:02d}:00:00+00:00"
        lines = [pair[rng.random() < skill[key[1]]][rng.randrange(4)] for key, pair in variants.items()]
        (run / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        manifest = {"suite": {"id": "synthetic", "revision": 1, "dataset_sha256": DATASET, "cases": CASES},
                    "providers": providers, "configuration": configuration, "configuration_sha256": config_sha,
                    "run": {"measure_only": False, "certified_requested": False, "shard": None},
                    "versions": {"scorer": 2}, "started": day, "finished": day,
                    "completion": {"expected": CASES * PROVIDERS, "recorded": CASES * PROVIDERS, "missing": 0}}
        (run / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    marker.write_text("", encoding="utf-8")
    return folder


_CHILD = """
import resource, sys, time
start = time.perf_counter()
from lexbench.cli import main
code = main(["history", sys.argv[1]])
sys.stderr.write(f"{time.perf_counter() - start} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} {code}\\n")
"""


def _one(folder: Path, env: dict[str, str]) -> tuple[float, float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, str(folder)], capture_output=True, text=True, timeout=3600, env=env)
    total = time.perf_counter() - started
    _inner, rss_kb, code = done.stderr.strip().splitlines()[-1].split()
    if code != "0":
        raise SystemExit(f"lexbench history failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return total, int(rss_kb) / 1024


def history_figure(work: Path, rounds: int, runs: int = RUNS) -> Figure:
    """Figure 7: seconds for the default summary with the figure cache filled (see the module docstring);
    the details give the first, cold summary (every row read) and one after a new night."""
    folder = write_runs(work / "history-runs", runs)
    size = sum(f.stat().st_size for f in folder.glob("*/results.jsonl"))
    cache = work / "history-cache.duckdb"
    cache.unlink(missing_ok=True)
    env = dict(os.environ) | {"LEXBENCH_HISTORY_CACHE": str(cache)}
    cold, cold_rss = _one(folder, env)
    walls, peaks = [], [cold_rss]
    for _ in range(rounds):
        wall, rss = _one(folder, env)
        walls.append(wall)
        peaks.append(rss)
    latest = folder / f"run-{runs - 1:04d}" / "results.jsonl"
    os.utime(latest)  # a changed run: read and checked again, the others from the cache
    changed, rss = _one(folder, env)
    peaks.append(rss)
    return Figure("7", f"lexbench history summary, {runs:,} runs × {CASES * PROVIDERS:,} items", statistics.median(walls),
                  TARGET_S, "<=", unit=" s",
                  details=[f"cached: wall s per round {', '.join(f'{w:.2f}' for w in walls)}; one run changed: {changed:.2f} s; "
                           f"first (cold, every row read): {cold:.1f} s",
                           f"peak RSS {max(peaks):.0f} MB (cold {cold_rss:.0f} MB); {runs * CASES * PROVIDERS:,} rows, "
                           f"results.jsonl {size / 1e9:.2f} GB"])
