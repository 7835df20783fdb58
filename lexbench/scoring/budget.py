"""Scoring under a time and memory budget (SPEC §3, issue 19): a breach is a scorer limit.

``evaluate_response`` is bounded for every hostile shape we know of, but a new one must not cost a run
minutes or gigabytes, nor be charged to the provider. :func:`score_within_budget` scores in the calling
thread while a watchdog thread reads that thread's CPU clock, the wall clock and the process's resident
memory; past a limit it raises :class:`ScorerLimit` inside the scoring thread (between two Python
bytecodes), and the item gets an ``unresolvable`` verdict of failure class ``scorer_limit``: the
harness, not the provider, stopped it, and it is counted apart like every unresolvable item. The
answer itself is kept (the caller saves it as usual).
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from lexbench.answer import CallAssessment, ProviderResult
from lexbench.dataset.case import Case
from lexbench.scoring.evaluate import evaluate_response
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict

T = TypeVar("T")

SCORER_LIMIT = "scorer_limit"
"""The failure class of an item whose scoring met its budget."""


@dataclass(frozen=True)
class ScoringBudget:
    """Limits for scoring one answer: ``cpu_s`` seconds of the scoring thread's CPU, ``wall_s`` seconds
    of wall time (wide: a loaded machine stretches CPU time into wall time), and resident memory
    growth of ``memory_per_char`` bytes per answer character plus ``memory_floor_mb`` MB (the README
    promises less than ten times the answer; small answers carry fixed costs such as a parsed tree)."""

    cpu_s: float = 60.0
    wall_s: float = 240.0
    memory_per_char: float = 10.0
    memory_floor_mb: float = 256.0

    def memory_bytes(self, chars: int) -> int:
        """The resident-memory growth allowed for an answer of ``chars`` characters, in bytes."""
        return int(self.memory_floor_mb * 1024 * 1024 + self.memory_per_char * chars)


DEFAULT_BUDGET = ScoringBudget()


class ScorerLimit(Exception):
    """Raised inside the scoring thread by the watchdog when a budget is spent."""


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


try:
    import os

    _PAGE = os.sysconf("SC_PAGE_SIZE")
except (ValueError, OSError, AttributeError):
    _PAGE = 4096

_POLL_S = 0.05


class _Watchdog(threading.Thread):
    """Watches one thread's CPU clock, the wall clock and resident memory; on a breach, raises
    :class:`ScorerLimit` in the watched thread once and records why in ``breach``."""

    def __init__(self, target: int, budget: ScoringBudget, chars: int) -> None:
        super().__init__(name="lexbench-scoring-budget", daemon=True)
        self.target = target
        self.clock = time.pthread_getcpuclockid(target)
        self.cpu_start = time.clock_gettime(self.clock)
        self.wall_start = time.monotonic()
        self.memory_start = _resident_bytes()
        self.budget = budget
        self.memory_limit = budget.memory_bytes(chars)
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.breach: str | None = None

    def run(self) -> None:
        while not self.done.wait(_POLL_S):
            breach = self._check()
            if breach is None:
                continue
            with self.lock:
                if self.done.is_set():
                    return
                self.breach = breach
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.target), ctypes.py_object(ScorerLimit))
            return

    def _check(self) -> str | None:
        cpu = time.clock_gettime(self.clock) - self.cpu_start
        if cpu > self.budget.cpu_s:
            return f"{cpu:.1f} s of CPU > its {self.budget.cpu_s:g} s budget"
        wall = time.monotonic() - self.wall_start
        if wall > self.budget.wall_s:
            return f"{wall:.0f} s of wall time > its {self.budget.wall_s:g} s budget"
        grown = _resident_bytes() - self.memory_start
        if grown > self.memory_limit:
            return (f"{grown / 2**20:,.0f} MB of memory > its {self.memory_limit / 2**20:,.0f} MB budget "
                    f"({self.budget.memory_per_char:g} bytes per answer character + {self.budget.memory_floor_mb:g} MB)")
        return None

    def stop(self) -> None:
        """Stop watching; a limit raised but not yet delivered is withdrawn (called in the watched thread)."""
        with self.lock:
            self.done.set()
            if self.breach is not None:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.target), None)


def scorer_limit_verdict(reason: str, answer: ProviderResult) -> Verdict:
    """The verdict of an item whose scoring met its budget: ``unresolvable``, failure class
    ``scorer_limit``, one ``scorer`` component saying which limit and for how large an answer."""
    evidence = (f"scoring stopped: {reason}, on an answer of {len(answer.content):,} chars; the answer is "
                "saved and the item is not charged to the provider")
    return Verdict(
        outcome=Outcome.UNRESOLVABLE,
        components=[ComponentResult(name=Component.SCORER, passed=None, evidence=evidence,
                                    details=[{"reason": reason, "content_chars": len(answer.content)}])],
        explanation=f"unresolvable: scorer limit: {evidence}.",
        failure_class=SCORER_LIMIT,
    )


class BudgetSpent(Exception):
    """Raised by :func:`within_budget` when the work met a limit; ``reason`` says which, with figures."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def within_budget(work: Callable[[], T], chars: int, budget: ScoringBudget | None = None) -> T:
    """``work()`` in the calling thread under ``budget`` (default :data:`DEFAULT_BUDGET`), its memory
    limit sized for an answer of ``chars`` characters. Raises :class:`BudgetSpent` past a limit, and
    whatever ``work`` raises otherwise. The scorer's budget for any pass over one answer (scoring it,
    auditing its projection)."""
    watchdog = _Watchdog(threading.get_ident(), budget or DEFAULT_BUDGET, chars)
    watchdog.start()
    try:
        try:
            done = work()
        finally:
            watchdog.stop()
    except ScorerLimit:
        raise BudgetSpent(watchdog.breach or "a limit was met") from None
    if watchdog.breach is not None:  # met while a C call held the thread, which then returned first
        raise BudgetSpent(watchdog.breach)
    return done


def score_within_budget(case: Case, answer: ProviderResult, budget: ScoringBudget | None = None, *,
                        call: CallAssessment | None = None, served_url: str | None = None) -> Verdict:
    """``evaluate_response(case, answer, call, served_url=...)`` under ``budget`` (default
    :data:`DEFAULT_BUDGET`); past a limit, :func:`scorer_limit_verdict`. ``call``: the answer's call
    assessment when the caller holds it; ``served_url``: the URL the provider was handed (replay).
    Raises whatever scoring raises apart from the limit itself."""
    try:
        return within_budget(lambda: evaluate_response(case, answer, call, served_url=served_url),
                             len(answer.content), budget)
    except BudgetSpent as spent:
        return scorer_limit_verdict(spent.reason, answer)
