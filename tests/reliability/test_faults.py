"""Faults in the middle of a benchmark run (issue 11, SPEC §6): a worker killed with SIGKILL, the replay
server stopped, the disk filling up under the run directory, and Ctrl-C. Each is injected into a real
``pytest -n …`` run of a ten-article suite; afterwards every finished item has exactly one intact
row, nothing the run could not finish is lost (a resume completes it), and the failure is reported
for what it is (``crashed``, ``unresolvable``/``infrastructure``, a clear disk error, an interruption).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lexbench.run.record import load_rows
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

MANY = [dict(a, slug=f"{a['slug']}{i}", title=f"{a['title']} {i}") for i in range(5) for a in ARTICLES]
ITEMS = 10
SLOW_ECHO = '''
import time
from lexbench.providers.local import ReferenceEcho

_fetch = ReferenceEcho.fetch


def _slow(self, case, timeout, url):
    time.sleep(0.3)
    return _fetch(self, case, timeout, url)


ReferenceEcho.fetch = _slow
'''

# Four quick answers per process, then slow ones: however loaded the machine, the run is still going
# when the test interrupts it after four rows (a slow answer stays well inside the 30 s deadline). The
# resumed session answers quickly.
INTERRUPTIBLE_ECHO = '''
import signal, sys, time
from lexbench.providers.local import ReferenceEcho

# A pytest started from a background job of a non-interactive shell inherits an ignored SIGINT (POSIX)
# and Python keeps ignoring it; Ctrl-C at a terminal always meets Python's own handler, as here.
signal.signal(signal.SIGINT, signal.default_int_handler)

_fetch = ReferenceEcho.fetch
_calls = [0]
_RESUMED = any(arg.startswith("--resume") for arg in sys.argv)


def _quick_then_slow(self, case, timeout, url):
    _calls[0] += 1
    time.sleep(0.3 if _calls[0] <= 4 or _RESUMED else 20)
    return _fetch(self, case, timeout, url)


ReferenceEcho.fetch = _quick_then_slow
'''


@pytest.fixture
def project(pytester):  # type: ignore[no-untyped-def]
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    return pytester


@pytest.fixture
def suite(project) -> Path:  # type: ignore[no-untyped-def]
    return write_suite(project.path / "suite", MANY)


def conftest(*extra: str) -> str:
    return "\n".join(extra)


def every_item() -> list[str]:
    return sorted(f"article-{i:03d}-en-{a['slug']}[reference-echo]" for i, a in enumerate(MANY, 1))


def assert_intact(run: Path) -> list[str]:
    """Every line of results.jsonl is a row, and no item has two rows; returns the item ids."""
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(load_rows(run)), "a row of results.jsonl is damaged"
    items = [row.item_id for row in load_rows(run)]
    assert len(items) == len(set(items))
    return items


def resume_to_the_end(project, suite: Path, run: Path, before: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A resumed session finishes the run: every item exactly once, the earlier rows untouched."""
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--resume={run}")
    assert result.ret in (0, 1), result.stdout.str()[-2000:]
    after = assert_intact(run)
    assert sorted(after) == every_item()
    assert after[: len(before)] == before


def test_a_worker_killed_with_sigkill_is_recorded_as_crashed_and_the_run_continues(project, suite, tmp_path) -> None:
    """The item whose worker dies gets a ``crashed`` row; xdist replaces the worker and every other
    item still gets its verdict."""
    victim = f"article-005-en-{MANY[4]['slug']}"
    project.makeconftest(conftest(SLOW_ECHO, f'''
import os, signal
from lexbench.providers.local import ReferenceEcho
_echo = ReferenceEcho.fetch


def _killer(self, case, timeout, url):
    if case.id == {victim!r} and os.environ.get("PYTEST_XDIST_WORKER"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _echo(self, case, timeout, url)


ReferenceEcho.fetch = _killer
'''))
    run = tmp_path / "run"
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}",
                                          "-n", "2")
    output = result.stdout.str()
    assert "crashed" in output and "replacing" in output.lower(), output[-3000:]
    items = assert_intact(run)
    assert sorted(items) == every_item(), "every item, the killed one included, has a row"
    rows = {row.case: row for row in load_rows(run)}
    assert (rows[victim].outcome.value, rows[victim].failure_class) == ("fail", "crashed")
    assert {row.outcome.value for case, row in rows.items() if case != victim} == {"pass"}
    assert json.loads((run / "manifest.json").read_text())["completion"]["missing"] == 0


def test_a_replay_server_stopped_mid_run_makes_items_unresolvable_not_failures(project, suite, tmp_path) -> None:
    """From the moment the replay server stops, the local provider cannot fetch anything; those items
    are ``unresolvable`` with failure class ``infrastructure`` and say why — the provider did not fail."""
    stop_at = f"article-006-en-{MANY[5]['slug']}"
    project.makeconftest(conftest(f'''
import lexbench.plugin as plugin

_call = plugin.CaseItem._call


def _call_after_stopping(self):
    state = self.config.stash[plugin.STATE]
    if self.case.id == {stop_at!r} and state.replay is not None:
        state.replay.stop()  # the server goes away between two items
    return _call(self)


plugin.CaseItem._call = _call_after_stopping
'''))
    run = tmp_path / "run"
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=http-markdownify", f"--run-dir={run}",
                                          "-n", "0", "-rs")
    rows = {row.case: row for row in load_rows(run)}
    assert len(rows) == ITEMS
    stopped = [row for row in rows.values() if row.outcome.value == "unresolvable"]
    assert stopped and all(row.failure_class == "infrastructure" for row in stopped)
    assert all("replay server" in row.explanation for row in stopped)
    assert rows[stop_at].outcome.value == "unresolvable"
    assert not [row for row in rows.values() if row.outcome.value == "fail"], "no item may fail because of it"
    assert "replay server" in result.stdout.str()


DISK_FULL_AFTER_ROWS = 5
FULL_DISK = f'''
import errno, os
import lexbench.run.record as record


class _FillingDisk:
    """os for lexbench.run.record, whose writes fail with ENOSPC once {DISK_FULL_AFTER_ROWS} rows are written."""

    rows = 0

    def __getattr__(self, name):
        return getattr(os, name)

    def write(self, fd, data):
        data = bytes(data)
        if data.endswith(b"\\n"):
            type(self).rows += 1
        if type(self).rows > {DISK_FULL_AFTER_ROWS}:
            half = os.write(fd, data[: len(data) // 2])  # the disk takes half a row, then is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)


record.os = _FillingDisk()
'''


def test_a_full_disk_stops_the_run_with_a_clear_error_and_keeps_completed_rows(project, suite, tmp_path) -> None:
    """The results file cannot take another row: the run stops at once (no provider is called for
    nothing), says what happened and how to continue, and the rows written before are intact."""
    project.makeconftest(conftest(FULL_DISK))
    run = tmp_path / "run"
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}",
                                          "-n", "2")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert "INTERNALERROR" not in output
    assert "No space left on device" in output and f"--resume={run}" in output
    before = assert_intact(run)
    assert len(before) == DISK_FULL_AFTER_ROWS
    project.makeconftest(conftest())
    resume_to_the_end(project, suite, run, before)


def _mount_small_tmpfs(where: Path) -> bool:
    where.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def test_a_real_full_disk_keeps_completed_rows_and_the_run_resumes_elsewhere(project, suite, tmp_path) -> None:
    """The same on a 64 KiB tmpfs that really fills up (root only; skipped where mounting is refused)."""
    project.makeconftest(conftest())
    disk = tmp_path / "disk"
    if not _mount_small_tmpfs(disk):
        pytest.skip("cannot mount a tmpfs here (needs root); the ENOSPC test above covers the behaviour")
    try:
        run = disk / "run"
        result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}",
                                              "-n", "2")
        output = result.stdout.str() + result.stderr.str()
        assert result.ret not in (pytest.ExitCode.OK, pytest.ExitCode.INTERNAL_ERROR), output[-3000:]
        assert "INTERNALERROR" not in output and "No space left on device" in output
        before = assert_intact(run)
        assert 0 < len(before) < ITEMS
        moved = tmp_path / "run"
        shutil.copytree(run, moved)
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=30)
    resume_to_the_end(project, suite, moved, before)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_ctrl_c_keeps_completed_rows_and_the_run_resumes(project, suite, tmp_path, workers: str) -> None:
    """SIGINT to the pytest process part-way: the rows of finished items are on disk, intact, and a
    resumed session runs only the rest."""
    project.makeconftest(conftest(INTERRUPTIBLE_ECHO))
    run = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "pytest", f"--suite={suite}", "--providers=reference-echo",
                                f"--run-dir={run}", "-n", workers], cwd=project.path, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    results = run / "results.jsonl"

    def written() -> int:  # finished rows on disk (validated below, by assert_intact)
        return results.read_bytes().count(b"\n") if results.exists() else 0

    try:
        started = time.monotonic()
        while written() < 4 and process.poll() is None and time.monotonic() < started + 300:
            time.sleep(0.05)
        seen = f"interrupted after {time.monotonic() - started:.1f} s with {written()} rows written"
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == pytest.ExitCode.INTERRUPTED, seen + "\n" + output.decode(errors="replace")[-3000:]
    before = assert_intact(run)
    assert 4 <= len(before) < ITEMS, "the run must be interrupted part-way for this test to mean anything"
    resume_to_the_end(project, suite, run, before)
