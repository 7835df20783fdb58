"""The engine cost in the reports (issue 28 item 4): per provider, seconds per page (median, p90), peak
memory per page (median, maximum: :mod:`lexbench.report.memory`) and pages per minute with how many of
its items ran at once. Pure: rows in, plain data and text out.

Pages per minute come from the items' own wall clock (``started_at``, ``finished_at`` of each row,
:class:`~lexbench.run.record.RunRow`), never from the session's start and end: the reports read no session
facts, so shards merged report exactly like the unsharded run over the same rows. The figure is
``60 × items ÷ (last finished_at − first started_at)`` over the provider's items, call and scoring
included, pytest's start and collection left out; beside it, the largest number of its items that ran at
once (2 for a provider run alone at ``-n 2``) and how many other providers' items ran inside the same span
(the workers were shared: the figure is not the provider's alone). Nothing is extrapolated: a provider
whose rows carry no times (rows recorded before issue 28, a user's test) has no figure.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from lexbench.report.memory import memory_figures, mib_text
from lexbench.run.record import RunRow


def page_seconds(row: RunRow) -> float | None:
    """Seconds the provider spent on the row's page: the sum over its attempts (a retried page cost every
    call), else the row's ``latency_s``; ``None`` when no time was recorded."""
    if row.attempts:
        return sum(attempt.latency_s for attempt in row.attempts)
    return row.latency_s


def _p90(values: list[float]) -> float:
    # Nearest rank: the smallest value with at least 90 % of the values at or below it.
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    # An item that ends exactly when another starts did not run beside it (ends sort before starts), but an
    # item shorter than the rows' millisecond resolution (start == end) still ran: its end sorts after starts.
    events = sorted([(start, 1, 1) for start, _ in spans]
                    + [(end, 2 if end == start else 0, -1) for start, end in spans])
    running = most = 0
    for _, _, step in events:
        running += step
        most = max(most, running)
    return most


def engine_cost(rows: Iterable[RunRow], providers: Sequence[str]) -> list[dict[str, Any]]:
    """``report.json``'s ``engine_cost``: one entry per provider of ``providers``, in that order::

        {"provider": "chromium-cdp", "timed_items": 24, "page_seconds_median": 3.27, "page_seconds_p90": 5.1,
         "memory_items": 24, "peak_memory_median_bytes": 301_000_000, "peak_memory_max_bytes": 340_000_000,
         "wall_items": 24, "wall_s": 61.2, "pages_per_minute": 23.5, "at_once": 2, "others_in_span": 0}

    Seconds per page: :func:`page_seconds` over every item with a time (unresolvable ones too: they cost
    time), median and nearest-rank p90, 4 decimals. Memory: :func:`~lexbench.report.memory.memory_figures`
    (bytes; ``None`` for a provider that runs no child process). ``wall_items`` counts the rows with both
    times; ``wall_s`` spans them (seconds); ``pages_per_minute`` is ``60 × wall_items ÷ wall_s`` (2
    decimals); ``at_once`` the most of them that overlapped; ``others_in_span`` the other providers' timed
    items overlapping that span. All ``None`` (``wall_items`` 0) without times.
    """
    rows = list(rows)
    memory = {entry["provider"]: entry for entry in memory_figures(rows, providers)}
    entries = []
    for provider in providers:
        own = [r for r in rows if r.provider == provider]
        seconds = [s for s in map(page_seconds, own) if s is not None]
        spans = [(r.started_at, r.finished_at) for r in own if r.started_at is not None and r.finished_at is not None]
        entry: dict[str, Any] = {
            "provider": provider, "timed_items": len(seconds),
            "page_seconds_median": round(statistics.median(seconds), 4) if seconds else None,
            "page_seconds_p90": round(_p90(seconds), 4) if seconds else None,
            "memory_items": memory[provider]["measured_items"],
            "peak_memory_median_bytes": memory[provider]["peak_memory_median_bytes"],
            "peak_memory_max_bytes": memory[provider]["peak_memory_max_bytes"],
            "wall_items": len(spans), "wall_s": None, "pages_per_minute": None, "at_once": None, "others_in_span": None,
        }
        if spans:
            first, last = min(s for s, _ in spans), max(e for _, e in spans)
            wall = max(last - first, 1e-3)  # a single instant item still took a millisecond
            entry.update(wall_s=round(wall, 3), pages_per_minute=round(60 * len(spans) / wall, 2),
                         at_once=_most_at_once(spans),
                         others_in_span=sum(1 for r in rows if r.provider != provider and r.started_at is not None
                                            and r.finished_at is not None and r.started_at < last and r.finished_at > first))
        entries.append(entry)
    return entries


COST_INTRO = ("Seconds per page: the provider's time on each page, every attempt summed (median and p90 over the "
              "items with a time). Peak memory per page: the largest sum of the proportional set sizes (PSS) of the "
              "call's engine or worker processes, sampled while it ran; providers that run no child process "
              "(in-process and hosted ones) are not measured. Pages per minute: 60 × items ÷ the wall-clock span "
              "from the first item's start to the last one's end (call and scoring, not pytest's start), measured "
              "at the number of items that ran at once, never scaled to another worker count; run one provider "
              "(pytest -n 2 -k NAME) for its figure alone.")


def cost_intro(report: dict[str, Any]) -> str | None:
    """The sentence before the engine cost table (what each figure is and how it was measured, with the
    memory sampling interval), or ``None`` when no item of ``report`` has a peak memory or item times and
    the table is left out (the reports of earlier runs keep their bytes)."""
    entries = report.get("engine_cost") or []
    if not any(entry["memory_items"] or entry["wall_items"] for entry in entries):
        return None
    every = sorted({e["sampled_every_s"] for e in report.get("memory") or [] if e["sampled_every_s"] is not None})
    sampled = f" Memory was sampled every {' or '.join(f'{s:g}' for s in every)} s." if every else ""
    return COST_INTRO + sampled


COST_HEAD = ["provider", "timed items", "median s per page", "p90 s per page", "median peak memory",
             "max peak memory", "pages per minute", "measured at"]
COST_FIGURES = [False, True, True, True, True, True, True, False]
"""The table's column heads and which columns are figures (right-aligned)."""


def _seconds(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:.2f}"


def measured_at(entry: dict[str, Any]) -> str:
    """``2 at once``, with ``, beside 40 items of other providers`` when the span was shared; ``not
    recorded`` without item times."""
    if entry["at_once"] is None:
        return "not recorded"
    shared = entry["others_in_span"]
    return f"{entry['at_once']} at once" + (f", beside {shared} item{'' if shared == 1 else 's'} of other providers"
                                           if shared else "")


def cost_rows(report: dict[str, Any]) -> list[list[str]]:
    """The cells of the engine cost table, one row per provider (:data:`COST_HEAD`)."""
    return [[e["provider"], str(e["timed_items"]), _seconds(e["page_seconds_median"]), _seconds(e["page_seconds_p90"]),
             mib_text(e["peak_memory_median_bytes"]), mib_text(e["peak_memory_max_bytes"]),
             "not recorded" if e["pages_per_minute"] is None else
             f"{e['pages_per_minute']:,.1f} ({e['wall_items']} in {e['wall_s']:,.1f} s)",
             measured_at(e)] for e in report.get("engine_cost") or []]
