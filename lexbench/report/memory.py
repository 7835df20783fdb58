"""Peak memory in the reports (issue 22, SPEC §6): per provider, the median and the maximum of its
items' peak memory (``metadata.peak_memory_bytes``, :mod:`lexbench.providers.memory`), and the text the
Markdown and HTML reports show. Pure: rows in, plain data and text out.

``report.json`` always has a ``memory`` list; ``report.md`` and ``report.html`` show it in the engine cost
table (:mod:`lexbench.report.cost`), only when some item was measured or timed, so the reports of earlier
runs keep their bytes.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from lexbench.run.record import RunRow


def memory_figures(rows: Iterable[RunRow], providers: Sequence[str]) -> list[dict[str, Any]]:
    """``report.json``'s ``memory``: one entry per provider of ``providers``, in that order::

        {"provider": "chromium-cdp", "measured_items": 12, "peak_memory_median_bytes": 431_000_000,
         "peak_memory_max_bytes": 471_000_000, "sampled_every_s": 0.1}

    Bytes; the median of an even count is the mean of the middle two, rounded to a whole byte;
    ``sampled_every_s`` is the coarsest sampling interval among the measured items. A provider none of
    whose items was measured (it runs no child process) has 0 items and ``None`` figures.
    """
    peaks: dict[str, list[int]] = {provider: [] for provider in providers}
    every: dict[str, list[float]] = {provider: [] for provider in providers}
    for row in rows:
        meta = row.metadata
        if meta.peak_memory_bytes is not None and row.provider in peaks:
            peaks[row.provider].append(meta.peak_memory_bytes)
            if meta.memory_sampled_every_s is not None:
                every[row.provider].append(meta.memory_sampled_every_s)
    return [{
        "provider": provider, "measured_items": len(peaks[provider]),
        "peak_memory_median_bytes": round(statistics.median(peaks[provider])) if peaks[provider] else None,
        "peak_memory_max_bytes": max(peaks[provider], default=None),
        "sampled_every_s": max(every[provider], default=None),
    } for provider in providers]


def mib_text(value: int | None) -> str:
    """Bytes as MiB (2^20 bytes) with one decimal, e.g. ``412.3 MiB``; ``not measured`` for ``None``."""
    return "not measured" if value is None else f"{value / 2**20:,.1f} MiB"
