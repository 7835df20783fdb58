"""Engine subprocesses under the runtime policy: deadline, output ceiling, kill and reap (SPEC §5).

Every browser or worker process a provider starts goes through :class:`EngineProcess`:

- it runs in a :class:`~lexbench.providers.containment.Container` (a cgroup v2 group of its own, or a
  subreaper's process tree where no cgroup is writable), so every process it starts is found, even one
  that left the process group with ``setsid`` or was re-parented by a double fork;
- stdout and stderr are read by threads into bounded buffers: output past ``max_output_bytes``
  (20,000,000 by default) kills the container and marks the run ``too_large``;
- on the deadline, on the ceiling, or when the ``with`` block ends, every member is killed with
  SIGKILL, the direct child is reaped, and the call waits (briefly) until no member is left, so no
  engine process outlives the call (nor the interpreter: see :mod:`~lexbench.providers.containment`);
- inside a provider call, the container is watched by the call's memory sampler from start to kill
  (:func:`~lexbench.providers.call.call_memory`, :mod:`~lexbench.providers.memory`), so the call's
  result records the peak memory of every process it ran, and its containment kind.

:func:`fresh_profile` gives each call its own empty profile directory, named with
:data:`PROFILE_PREFIX` so a test can find any engine process left behind (:func:`engine_processes`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lexbench.providers.call import CURRENT_CALL, call_memory
from lexbench.providers.containment import Container

MAX_OUTPUT_BYTES = 20_000_000
"""The subprocess output ceiling (SPEC §5), the same number as the response-body ceiling."""
PROFILE_PREFIX = "lexbench-profile-"
"""Every per-call profile directory's name starts with this; it appears in the engine's command line."""
_STDERR_KEEP = 64_000  # stderr is diagnostics only: keep its tail
_POLL_S = 0.1


@dataclass(frozen=True)
class ProcessRun:
    """What one finished engine process produced.

    ``returncode``: the child's exit status (negative for a signal; ``None`` only if it could not be
    reaped). ``stdout``: bytes, at most ``max_output_bytes`` (cut when ``too_large``). ``stderr``: the
    decoded tail (at most 64,000 bytes). ``elapsed_s``: wall seconds from start to reap.
    ``timed_out``: the deadline killed it. ``too_large``: the output ceiling killed it.
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes
    stderr: str
    elapsed_s: float
    timed_out: bool
    too_large: bool


class _Capture:
    """Reads one pipe into memory on a thread; calls ``on_overflow`` once past ``limit`` bytes."""

    def __init__(self, pipe, limit: int, keep_tail: bool, on_overflow, on_line=None) -> None:  # type: ignore[no-untyped-def]
        self.chunks: list[bytes] = []
        self.size = 0
        self.overflowed = False
        self._pipe, self._limit, self._keep_tail = pipe, limit, keep_tail
        self._on_overflow, self._on_line = on_overflow, on_line
        self.thread = threading.Thread(target=self._run, daemon=True, name="lexbench-engine-pipe")
        self.thread.start()

    def _run(self) -> None:
        pending = b""
        for chunk in iter(lambda: self._pipe.read1(65536), b""):
            if self._on_line is not None:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    self._on_line(line.decode("utf-8", errors="replace"))
                pending = pending[-65536:]
            if self._keep_tail:
                self.chunks.append(chunk)
                self.size += len(chunk)
                while self.size > self._limit and len(self.chunks) > 1:
                    self.size -= len(self.chunks.pop(0))
                continue
            if self.overflowed:
                continue
            room = self._limit - self.size
            self.chunks.append(chunk[:room])
            self.size += min(len(chunk), room)
            if len(chunk) > room:
                self.overflowed = True
                self._on_overflow()
        self._pipe.close()

    def data(self) -> bytes:
        return b"".join(self.chunks)


class EngineProcess:
    """One engine process in its own container; use as a context manager.

    ``start`` launches ``argv`` (``stdin`` closed). ``wait_for_line(pattern, seconds)`` returns the
    first match of a regular expression in the stderr or stdout lines (e.g. Chromium's ``DevTools
    listening on ws://...``). ``finish(deadline_s)`` waits for a normal exit and returns a
    :class:`ProcessRun`; leaving the ``with`` block (or :meth:`kill`) kills and reaps the whole container.
    Raises ``FileNotFoundError``/``PermissionError`` from ``start`` when the binary cannot be run.
    """

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
                 max_output_bytes: int = MAX_OUTPUT_BYTES) -> None:
        self.argv = tuple(argv)
        self._env, self._cwd, self._limit = env, cwd, max_output_bytes
        self._lines: list[str] = []
        self._line_event = threading.Condition()
        self._started = 0.0
        self._too_large = threading.Event()
        self._memory = call_memory()
        self.container = Container()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> EngineProcess:
        self._started = time.perf_counter()
        self.process = self.container.spawn(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self._env,
            cwd=self._cwd)
        self._stdout = _Capture(self.process.stdout, self._limit, False, self._overflow, self._on_line)
        self._stderr = _Capture(self.process.stderr, _STDERR_KEEP, True, lambda: None, self._on_line)
        if self._memory is not None:
            self._memory.watch(self.container)
        context = CURRENT_CALL.get()
        if context is not None:
            context.trace.containment = self.container.kind
        return self

    def __enter__(self) -> EngineProcess:
        if self.process is not None:
            return self
        try:
            return self.start()
        except BaseException:
            # A Ctrl-C (or any error) after the spawn but inside start(): __exit__ will not run, so the
            # container is killed here, or its engine would outlive the call.
            if self.process is not None:
                self.container.kill()
            raise

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def _overflow(self) -> None:
        self._too_large.set()
        self.container.kill()

    def _on_line(self, line: str) -> None:
        with self._line_event:
            self._lines.append(line)
            self._line_event.notify_all()

    def wait_for_line(self, pattern: str, seconds: float) -> re.Match[str] | None:
        """The first output line matching ``pattern`` within ``seconds``; ``None`` on timeout or exit."""
        regex = re.compile(pattern)
        end = time.monotonic() + seconds
        seen = 0
        with self._line_event:
            while True:
                for line in self._lines[seen:]:
                    match = regex.search(line)
                    if match:
                        return match
                seen = len(self._lines)
                left = end - time.monotonic()
                if left <= 0 or (self.process is not None and self.process.poll() is not None
                                 and not self._stderr.thread.is_alive() and not self._stdout.thread.is_alive()):
                    return None
                self._line_event.wait(min(left, 0.1))

    def finish(self, deadline_s: float) -> ProcessRun:
        """Wait up to ``deadline_s`` seconds for the process to exit; past it, kill the group.

        The output ceiling kills it earlier. Either way every member is killed and reaped before this
        returns, and the pipes are drained.
        """
        assert self.process is not None
        end = self._started + deadline_s
        timed_out = False
        while self.process.poll() is None:
            if self._too_large.is_set():
                break
            left = end - time.perf_counter()
            if left <= 0:
                timed_out = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(min(left, _POLL_S))
        self.kill()
        return ProcessRun(
            argv=self.argv, returncode=self.process.returncode, stdout=self._stdout.data(),
            stderr=self._stderr.data().decode("utf-8", errors="replace"), elapsed_s=time.perf_counter() - self._started,
            timed_out=timed_out and not self._too_large.is_set(), too_large=self._too_large.is_set(),
        )

    def kill(self) -> None:
        """Kill every member of the container, reap the child, wait for it to empty; idempotent."""
        if self.process is None:
            return
        if self._memory is not None:
            self._memory.unwatch(self.container)  # its last sample, while it still runs
        self.container.kill()
        # A member killed before it closed an inherited pipe end keeps nothing open now.
        for capture in (self._stdout, self._stderr):
            capture.thread.join(1.0)


def run_process(argv: Sequence[str], deadline_s: float, *, env: Mapping[str, str] | None = None,
                cwd: str | Path | None = None, max_output_bytes: int = MAX_OUTPUT_BYTES) -> ProcessRun:
    """Run ``argv`` to completion within ``deadline_s`` seconds under the output ceiling (SPEC §5).

    Returns a :class:`ProcessRun`; raises ``FileNotFoundError``/``PermissionError`` when the binary
    cannot be started. Never leaves a member of its container running.
    """
    with EngineProcess(argv, env=env, cwd=cwd, max_output_bytes=max_output_bytes) as process:
        return process.finish(deadline_s)


@contextlib.contextmanager
def fresh_profile() -> Iterator[Path]:
    """A new, empty profile directory for one call, removed afterwards (even after a kill)."""
    path = Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _proc_stat(pid: str) -> tuple[int, str] | None:
    """(process group id, state letter) from ``/proc/<pid>/stat``; None if gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()  # the command name may contain spaces or ')'
    return int(fields[2]), fields[0]


def engine_processes(marker: str = PROFILE_PREFIX) -> list[tuple[int, str]]:
    """Live processes whose command line contains ``marker`` (default: any per-call profile dir).

    Returns (pid, command line) pairs, zombies excluded. Used by tests to prove no engine was left
    behind after a run.
    """
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        stat = _proc_stat(entry.name)
        if marker in cmdline and stat is not None and stat[1] != "Z":
            found.append((int(entry.name), cmdline.strip()))
    return found
