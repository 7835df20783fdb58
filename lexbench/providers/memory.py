"""Peak memory of the processes one provider call runs (issue 22; SPEC §5, engine resources).

A call's engines and workers run as child processes, each in its own
:class:`~lexbench.providers.containment.Container` (a cgroup, or a subreaper's process tree: Chromium
with its zygote, renderers and utilities; the Node worker; the extraction worker; crawl4ai beside its
browser; and anything they start, even in a session of its own). A :class:`PeakMemory` per call keeps
the largest sum, over samples, of the memory of every live member of every container (or bare process
group) the call watches::

    memory = PeakMemory()
    memory.watch(container)          # or a process group id
    ...                              # the call runs; the sampling thread samples every 0.1 s
    memory.unwatch(container)        # a last sample, before it is killed
    memory.close()                   # after the call: a last sample of what is still watched
    memory.peak_bytes                # e.g. 412_000_256, or None when no sample found a live member

One daemon thread per process (``lexbench-memory``) samples every watched :class:`PeakMemory` every
:data:`SAMPLE_EVERY_S` seconds and waits, without waking, while none is watched. It is shared rather
than started per call because a local provider's call takes ~15 ms and a thread start costs up to
0.5 ms on a loaded machine; for the same reason :meth:`PeakMemory.watch` takes no sample itself.

What is summed is each process's proportional set size (PSS, ``psutil``'s ``memory_full_info().pss``,
from ``/proc/<pid>/smaps_rollup``): a page shared by n processes counts 1/n in each, so a browser's
helpers, which share most of their code and much of their data, are not counted several times over, as
a sum of resident set sizes (RSS) would count them. Reading PSS makes the kernel walk the process's
page tables: measured at 2.9 ms for a process holding 200 MiB (on 2 loaded cores), against 0.015 ms for
RSS, and finding a group's members 0.4 ms among 110 processes. A sample of Chromium's group (~300 MB)
costs some 5 ms of one core every 0.1 s. A process whose PSS cannot be read (another user's, on a
hardened kernel) counts its RSS instead. Units: bytes.

Sampling misses what lives and dies between two samples: the figure is a lower bound of the true peak,
close to it for anything that holds its memory longer than the interval.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from typing import Protocol

SAMPLE_EVERY_S = 0.1
"""Seconds between two samples of a call's processes (recorded as ``metadata.memory_sampled_every_s``)."""


def group_members(pgid: int) -> list[int]:
    """The pids of the live processes whose process group is ``pgid`` (zombies left out), in pid order.

    Every member is found wherever it was re-parented, unlike a walk of a process's children.
    """
    import psutil  # loaded by the first watched call, not by every process that imports the providers

    members = []
    for pid in psutil.pids():
        try:
            if os.getpgid(pid) == pgid and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                members.append(pid)
        except (ProcessLookupError, psutil.Error):
            continue  # ended between the listing and the look-up
    return members


def process_memory_bytes(pid: int) -> int:
    """The proportional set size of ``pid`` in bytes (its RSS when PSS is unreadable; 0 once it is gone)."""
    import psutil

    try:
        process = psutil.Process(pid)
        try:
            return int(process.memory_full_info().pss)
        except psutil.AccessDenied:
            return int(process.memory_info().rss)
    except psutil.Error:
        return 0


def groups_memory_bytes(pgids: Iterable[int | Members]) -> int | None:
    """The summed memory (bytes, :func:`process_memory_bytes`) of every live member of ``pgids``: process
    group ids, or :class:`Members` (a :class:`~lexbench.providers.containment.Container`: its cgroup or
    process tree); ``None`` when none of them has a live member. A pid found twice counts once."""
    pids: set[int] = set()
    for source in set(pgids):
        pids.update(group_members(source) if isinstance(source, int) else source.pids())
    return sum(process_memory_bytes(pid) for pid in sorted(pids)) if pids else None


class Members(Protocol):
    """What a call watches besides a process group: anything that lists its live member pids."""

    def pids(self) -> list[int]: ...


class PeakMemory:
    """The peak summed memory of the process groups one call watches; see the module docstring.

    :meth:`watch` adds a group (the sampling thread samples it from its next tick on); :meth:`unwatch`
    samples once more and drops the group; :meth:`close` samples what is still watched and drops it all.
    ``peak_bytes``: the largest sample in bytes, ``None`` while no sample has found a live member.
    ``every_s``: the sampling interval in seconds. Thread-safe; ``unwatch`` and ``close`` are idempotent.
    """

    every_s = SAMPLE_EVERY_S

    def __init__(self) -> None:
        self.peak_bytes: int | None = None
        self._groups: set[int | Members] = set()
        self._lock = threading.Lock()

    def sample(self) -> int | None:
        """Sample the watched groups now: their summed memory in bytes (``None`` when no member is
        live), which also raises ``peak_bytes`` if larger."""
        with self._lock:
            total = groups_memory_bytes(self._groups) if self._groups else None
            if total is not None and (self.peak_bytes is None or total > self.peak_bytes):
                self.peak_bytes = total
        return total

    def watch(self, pgid: int | Members) -> None:
        """Count process group ``pgid`` (a group leader's pid), or a container's members, from now on."""
        with self._lock:
            self._groups.add(pgid)
        _SAMPLER.add(self)

    def unwatch(self, pgid: int | Members) -> None:
        """Sample once more (while the group still runs), then stop counting ``pgid``."""
        with self._lock:
            if pgid not in self._groups:
                return
        self.sample()
        with self._lock:
            self._groups.discard(pgid)
            idle = not self._groups
        if idle:
            _SAMPLER.discard(self)

    def close(self) -> None:
        """Sample what is still watched once more, then watch nothing (the call has ended)."""
        self.sample()
        with self._lock:
            self._groups.clear()
        _SAMPLER.discard(self)


class _Sampler:
    """The process's sampling thread: every :data:`SAMPLE_EVERY_S` seconds it samples each watched
    :class:`PeakMemory`; with none watched it waits on a condition, so an idle process never wakes."""

    def __init__(self) -> None:
        self._watched: set[PeakMemory] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, memory: PeakMemory) -> None:
        with self._changed:
            self._watched.add(memory)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, daemon=True, name="lexbench-memory")
                self._thread.start()
            self._changed.notify()

    def discard(self, memory: PeakMemory) -> None:
        with self._changed:
            self._watched.discard(memory)

    def forget_thread(self) -> None:
        """In a forked child: the parent's thread is not there; the next ``add`` starts one."""
        self._changed = threading.Condition()
        self._thread = None
        self._watched = set()

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._watched:
                    self._changed.wait()
            time.sleep(SAMPLE_EVERY_S)  # the interval itself; a new watch does not cut it short
            with self._changed:
                watched = list(self._watched)
            for memory in watched:
                memory.sample()


_SAMPLER = _Sampler()
os.register_at_fork(after_in_child=_SAMPLER.forget_thread)
