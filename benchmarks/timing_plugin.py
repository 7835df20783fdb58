"""A pytest plugin for the benchmarks (``-p benchmarks.timing_plugin``): wall-clock marks of one session.

On the controller only, it writes ``{"configure", "collected", "first_start", "last_finish",
"unconfigure", "items"}`` (``time.time()`` seconds) to the file named by ``LEXBENCH_BENCH_MARKS``:
``configure`` is taken before any other plugin configures (suite loading included after it),
``first_start``/``last_finish`` bracket the items as the controller sees them (with xdist: after every
worker has started and collected), ``unconfigure`` after the reports are written.
"""

from __future__ import annotations

import json
import os
import time

import pytest

_MARKS: dict[str, float] = {}


def _controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput") and bool(os.environ.get("LEXBENCH_BENCH_MARKS"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Mark the start of configuration (before the lexbench plugin loads its suite)."""
    _MARKS["configure"] = time.time()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Mark the end of collection."""
    _MARKS["collected"] = time.time()
    _MARKS["items"] = len(session.items)


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    """Mark the first item's start."""
    _MARKS.setdefault("first_start", time.time())


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    """Mark the latest item's end."""
    _MARKS["last_finish"] = time.time()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Mark the end and write the marks (controller only)."""
    if not _controller(config):
        return
    _MARKS["unconfigure"] = time.time()
    with open(os.environ["LEXBENCH_BENCH_MARKS"], "w", encoding="utf-8") as handle:
        json.dump(_MARKS, handle)
