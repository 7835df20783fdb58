"""Shared pieces of the performance benchmarks: figures, timing, temporary projects, the real corpus.

Every figure is a ratio measured side by side in one run: the two sides of a comparison run in turn
(A B A B …) for several rounds and the median of the per-round ratios is the figure, so a machine
whose speed drifts (other processes) moves both sides alike.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
"""The repository root (benchmarks run from a checkout)."""
CORPUS = Path(os.environ.get("LEXBENCH_CORPUS", REPO.parent / "shared" / "corpus"))
"""The real corpus, ``../shared/corpus`` beside the checkout (``LEXBENCH_CORPUS`` overrides)."""
CORPUS_FORMATS = ("scrapinghub-aeb", "mozilla-readability", "magic-html-bench")
"""The corpus folders ``lexbench import-corpus`` has a format for."""


@dataclass
class Figure:
    """One measured figure: ``value`` compared with ``target`` by ``relation`` (``"<="`` or ``">="``).

    ``skipped`` holds the reason when the figure could not be measured (e.g. the corpus is absent);
    a skipped figure is printed but never counts as missed. ``details`` are extra lines printed under it.
    """

    number: str
    name: str
    value: float | None
    target: float
    relation: str
    unit: str = "×"
    details: list[str] = field(default_factory=list)
    skipped: str | None = None

    @property
    def met(self) -> bool | None:
        if self.skipped is not None or self.value is None:
            return None
        return {"<=": self.value <= self.target, ">=": self.value >= self.target,
                "<": self.value < self.target, ">": self.value > self.target}[self.relation]

    def lines(self) -> list[str]:
        """The figure as printed by ``make perf``."""
        if self.skipped is not None:
            head = f"[{self.number}] {self.name}: SKIPPED ({self.skipped})"
        else:
            verdict = "met" if self.met else "MISSED"
            head = (f"[{self.number}] {self.name}: {_fmt(self.value)}{self.unit} "
                    f"(target {self.relation} {_fmt(self.target)}{self.unit}) {verdict}")
        return [head] + [f"      {line}" for line in self.details]


def _fmt(value: float | None) -> str:
    if value is None:
        return "?"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def median(values: Sequence[float]) -> float:
    """The median (the mean of the middle two for an even count)."""
    return statistics.median(values)


def spread(values: Sequence[float], unit: str = "s", scale: float = 1.0) -> str:
    """``median (min–max)`` of ``values`` for the detail lines."""
    return f"{median(values) * scale:.3g} {unit} (min {min(values) * scale:.3g}, max {max(values) * scale:.3g})"


def paired_rounds(rounds: int, a: Callable[[], float], b: Callable[[], float]) -> tuple[list[float], list[float]]:
    """Run ``a`` and ``b`` in turn ``rounds`` times (alternating which goes first); return both lists of
    seconds. Each callable measures itself and returns seconds."""
    times_a: list[float] = []
    times_b: list[float] = []
    for index in range(rounds):
        if index % 2:
            times_b.append(b())
            times_a.append(a())
        else:
            times_a.append(a())
            times_b.append(b())
    return times_a, times_b


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Per-round ratios (pairs measured back to back)."""
    return [n / d for n, d in zip(numerators, denominators, strict=True)]


def fresh_dir(parent: Path, stem: str) -> Path:
    """A path under ``parent`` named ``stem-N`` that does not exist yet (not created).

    Every timed run writes into a new directory, as a user's run does. Deleting a run directory and
    writing the next run into the same path made each new response file's creation wait on the file
    system: 0.5–0.6 ms instead of 0.14 ms per item here, with ``sync`` between them too."""
    index = 0
    while (parent / f"{stem}-{index}").exists():
        index += 1
    return parent / f"{stem}-{index}"


# --- subprocesses ------------------------------------------------------------------------------------


def python() -> str:
    """The interpreter running the benchmarks (the project's venv)."""
    return sys.executable


def bench_env(**extra: str) -> dict[str, str]:
    """Environment for benchmark subprocesses: the repository importable (``benchmarks`` package)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    if not os.environ.get("KEEP_PYTHONDONTWRITEBYTECODE"):  # as make does: start-up with bytecode caches
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    return env


@dataclass
class Timed:
    """A finished subprocess: wall seconds, exit code, output, and the timing plugin's marks (if any)."""

    seconds: float
    returncode: int
    stdout: str
    stderr: str
    marks: dict[str, float] = field(default_factory=dict)


def run_timed(argv: Sequence[str], *, cwd: Path, env: dict[str, str] | None = None, marks: Path | None = None,
              ok: Sequence[int] = (0,), timeout: float = 3600) -> Timed:
    """Run ``argv`` and time it as a whole process (wall clock). ``marks`` is where the timing plugin
    writes its in-process marks (passed as ``LEXBENCH_BENCH_MARKS``). Raises ``RuntimeError`` with the
    output tail when the exit code is not in ``ok``."""
    env = dict(env or bench_env())
    if marks is not None:
        marks.unlink(missing_ok=True)
        env["LEXBENCH_BENCH_MARKS"] = str(marks)
    start = time.perf_counter()
    done = subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    if done.returncode not in ok:
        tail = "\n".join((done.stdout + "\n" + done.stderr).strip().splitlines()[-30:])
        raise RuntimeError(f"{' '.join(argv[:6])} … exited {done.returncode}:\n{tail}")
    loaded = json.loads(marks.read_text()) if marks is not None and marks.exists() else {}
    return Timed(seconds, done.returncode, done.stdout, done.stderr, loaded)


# --- the real corpus ---------------------------------------------------------------------------------


def corpus_missing() -> str | None:
    """Why the corpus-based figures cannot run, or ``None`` when ``../shared/corpus`` is there."""
    if not CORPUS.is_dir():
        return f"the real corpus is absent ({CORPUS}); corpus-based figures need ../shared/corpus"
    missing = [name for name in CORPUS_FORMATS if not (CORPUS / name).is_dir()]
    if missing:
        return f"the corpus at {CORPUS} lacks {', '.join(missing)}"
    return None


def import_corpus(output: Path) -> tuple[dict[str, Path], float]:
    """Import every importable corpus folder into ``output/<format>`` with ``lexbench import-corpus``
    (import and compile), one process per folder as a user runs it. Returns the suite paths and the
    total wall seconds."""
    suites: dict[str, Path] = {}
    total = 0.0
    for name in CORPUS_FORMATS:
        target = output / name
        done = run_timed([python(), "-m", "lexbench.cli", "import-corpus", "--format", name,
                          "--source", str(CORPUS / name), "--output", str(target)], cwd=REPO)
        total += done.seconds
        suites[name] = target
    return suites, total


def cached_corpus_suites(work: Path) -> dict[str, Path]:
    """The imported corpus suites under ``work/suites`` (imported on first use)."""
    root = work / "suites"
    if all((root / name / "dataset.json").is_file() for name in CORPUS_FORMATS):
        return {name: root / name for name in CORPUS_FORMATS}
    if root.exists():
        import shutil

        shutil.rmtree(root)
    suites, _ = import_corpus(root)
    return suites
