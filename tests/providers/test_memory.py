"""Peak memory of a call's process groups (issue 22): a child of known size is measured within 20 %,
the sampling thread keeps a peak that is gone by the end, pages a process group shares count once, and
the figure reaches the result's metadata through the runtime policy.

Each child allocates and touches ``SIZE`` bytes, says so on stdout, and holds them until told on
stdin: the tests wait on those messages, never on the clock, so a loaded machine only makes them slower.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import psutil
import pytest

from lexbench.answer import ProviderResult
from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers.base import Provider
from lexbench.providers.engine_process import EngineProcess
from lexbench.providers.memory import SAMPLE_EVERY_S, PeakMemory, group_members, groups_memory_bytes
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # starts child processes of 200 MiB

SIZE = 200 * 2**20
"""Bytes each child allocates (200 MiB); the measured figure must be within 20 % of it."""
WAIT_S = 300.0
"""A bound on waiting for a child's message, far beyond the work, so only a hang fails on it."""

# Allocates and touches SIZE bytes (repeating one byte writes every page), reports, holds until EOF.
HOLD = f"""
import sys
block = bytearray(b"\\x01") * {SIZE}
print("allocated", flush=True)
sys.stdin.read()
"""
# The same for an engine process, whose stdin is closed: holds until its process group is killed.
HOLD_UNTIL_KILLED = HOLD.replace("sys.stdin.read()", "import signal; signal.pause()")
# Waits for "go", allocates, reports; on "free" lets the block go (munmap: the memory leaves the
# process), reports, and holds until EOF.
STEPS = f"""
import sys
sys.stdin.readline()
block = bytearray(b"\\x01") * {SIZE}
print("allocated", flush=True)
sys.stdin.readline()
del block
print("freed", flush=True)
sys.stdin.read()
"""
# Allocates, then forks: parent and child share the block's pages copy-on-write, in one process group.
SHARED = f"""
import os, sys
block = bytearray(b"\\x01") * {SIZE}
if os.fork() == 0:
    sys.stdin.read()
    os._exit(0)
print("allocated", flush=True)
sys.stdin.read()
os.wait()
"""


def child(script: str) -> subprocess.Popen[str]:
    """A Python child running ``script`` in its own session (so its pid is its process group id)."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)


def said(process: subprocess.Popen[str], message: str) -> None:
    """Wait (on the pipe, not the clock) until ``process`` prints ``message``."""
    line = process.stdout.readline().strip()
    assert line == message, f"the child said {line!r} instead of {message!r} (exit {process.poll()})"


def finish(process: subprocess.Popen[str]) -> None:
    process.stdin.close()
    assert process.wait(WAIT_S) == 0


def test_a_child_holding_200_mib_is_measured_within_20_percent():
    process = child(HOLD)
    try:
        said(process, "allocated")
        memory = PeakMemory()
        memory.watch(process.pid)
        memory.unwatch(process.pid)
    finally:
        finish(process)
    assert memory.peak_bytes is not None and abs(memory.peak_bytes - SIZE) <= 0.2 * SIZE, memory.peak_bytes / 2**20


def test_the_sampling_thread_keeps_a_peak_that_is_gone_when_the_call_ends():
    process = child(STEPS)
    memory = PeakMemory()
    try:
        memory.watch(process.pid)
        before = memory.sample()  # the bare interpreter, before the block exists
        process.stdin.write("go\n")
        process.stdin.flush()
        said(process, "allocated")
        # Only the thread samples from here on: wait (bounded far beyond any load) until it has seen the block.
        end = time.monotonic() + WAIT_S
        while (memory.peak_bytes or 0) < 0.8 * SIZE and time.monotonic() < end:
            time.sleep(SAMPLE_EVERY_S)
        process.stdin.write("free\n")
        process.stdin.flush()
        said(process, "freed")
        after = memory.sample()
        memory.close()
    finally:
        finish(process)
    assert before is not None and before < SIZE / 4 and after is not None and after < SIZE / 4  # the block came and went...
    assert abs(memory.peak_bytes - SIZE) <= 0.2 * SIZE, memory.peak_bytes / 2**20  # ...and the peak kept it
    assert [t.name for t in threading.enumerate()].count("lexbench-memory") == 1  # one thread for every call


def test_pages_a_process_group_shares_count_once():
    process = child(SHARED)
    try:
        said(process, "allocated")
        members = group_members(process.pid)
        resident = sum(psutil.Process(pid).memory_info().rss for pid in members)
        measured = groups_memory_bytes([process.pid])
    finally:
        finish(process)
    assert len(members) == 2  # the forked child is found as a member of the group
    assert resident > 1.6 * SIZE  # summed RSS counts the shared block twice...
    assert measured is not None and abs(measured - SIZE) <= 0.2 * SIZE, measured / 2**20  # ...PSS once


def test_a_group_without_live_members_is_not_measured():
    process = child("pass")
    assert process.wait(WAIT_S) == 0
    memory = PeakMemory()
    memory.watch(process.pid)
    memory.unwatch(process.pid)
    memory.unwatch(process.pid)  # a second unwatch is ignored
    memory.close()
    assert memory.peak_bytes is None and groups_memory_bytes([process.pid]) is None


# --- through the runtime policy: the figure reaches the result's metadata ---------------------------


class HoldingEngine(Provider):
    """Runs a child that holds ``SIZE`` bytes as an engine process, and answers once it has allocated."""

    type_name = "holding-engine"
    family = "engine"
    needs_network = False

    def fetch(self, case, timeout, url):
        with EngineProcess([sys.executable, "-c", HOLD_UNTIL_KILLED]) as process:
            assert process.wait_for_line("^allocated$", timeout) is not None
            # Leaving the block kills the group: its last sample is taken first, while it holds the block.
        return ProviderResult(success=True, content="# Held\n\nText.", content_format="markdown")


class InProcess(Provider):
    type_name = "in-process"
    needs_network = False

    def fetch(self, case, timeout, url):
        return ProviderResult(success=True, content="# Here\n\nText.", content_format="markdown")


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


def test_an_engine_call_records_its_peak_memory_and_interval_in_the_metadata(case):
    result = call_provider(HoldingEngine(), case, "http://127.0.0.1:9/", RuntimePolicy(timeout_s=WAIT_S, retries=0))
    assert result.success, result.error_message
    peak = result.metadata.peak_memory_bytes
    assert peak is not None and abs(peak - SIZE) <= 0.2 * SIZE, peak / 2**20
    assert result.metadata.memory_sampled_every_s == SAMPLE_EVERY_S
    assert result.attempts[0].peak_memory_bytes == peak


def test_an_in_process_call_is_not_measured_and_its_answer_has_no_memory_field(case):
    result = call_provider(InProcess(), case, "http://127.0.0.1:9/", RuntimePolicy(retries=0))
    assert result.success and result.metadata.peak_memory_bytes is None
    assert "memory" not in result.model_dump_json()  # rows of such providers keep their bytes
