"""Containment: every process an engine or worker starts is found, measured and killed (SPEC §5; issue 27).

A process group is not a boundary: a child that calls ``setsid`` (or ``setpgid``) leaves it, and a
double fork re-parents it to init, so ``killpg`` and a walk of ``children(recursive=True)`` both miss
it. Each engine or worker process therefore runs in a :class:`Container`, of one of two kinds, decided
once per process by :func:`containment_mode` and recorded in each call's row (``metadata.containment``)
and in the manifest's ``host.engine_containment``:

- ``cgroup`` (preferred): a cgroup v2 directory of its own, ``<hierarchy><own cgroup>/lexbench-<pid>/
  <n>``. The process joins it before ``exec`` (a ``/bin/sh`` one-liner writes its pid into
  ``cgroup.procs`` and ``exec``\\ s the engine), so every descendant is born inside, whatever session
  or parent it ends up with. Members are read from ``cgroup.procs``; the kill is one write to
  ``cgroup.kill`` (the kernel kills the whole subtree; before Linux 5.14, SIGKILL to each member until
  none is left). No controller is needed: membership is what is used, not the memory controller.
- ``subreaper`` (the fallback when no cgroup v2 hierarchy is writable: not root, a read-only
  ``/sys/fs/cgroup``, no cgroup2 mount): the engine's root process is made a child subreaper
  (``prctl(PR_SET_CHILD_SUBREAPER)`` before ``exec``; kept across ``exec``), so orphans of its
  descendants re-parent to it rather than to init, and its recursive children are the whole tree while
  it runs; and it is started with ``LEXBENCH_CONTAINER=<pid>.<n>`` in its environment, which every
  descendant inherits, so one re-parented to init after the root ended is still found (in
  ``/proc/<pid>/environ``). The kill sends SIGKILL to every member until none is left, then to the
  root. Weaker: a descendant that both re-execs with a scrubbed environment and outlives the root is
  lost, and a SIGKILL of pytest leaves the tree running.
  The reason for the fallback is in :attr:`ContainmentMode.detail`; ``LEXBENCH_CONTAINMENT=subreaper``
  forces it (tests).

Every live container is killed when its owner ends it (timeout, normal end), at interpreter exit
(``atexit``: after Ctrl-C, or a worker thread still inside a call), and, for cgroups, by a watcher
process (``/bin/sh``, its own session) that waits on a pipe only this process holds: when this process
dies in any way, SIGKILL included, the watcher kills the session's whole cgroup subtree and removes it.
A session's leftovers from a process that died before its watcher ran are swept at the next probe.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import itertools
import os
import shutil
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ContainmentKind = Literal["cgroup", "subreaper"]
"""How a call's processes were contained (``metadata.containment``)."""
_KILL_WAIT_S = 5.0
_PR_SET_CHILD_SUBREAPER = 36
_TAG = "LEXBENCH_CONTAINER"
_JOIN = 'echo $$ > "$0" && exec "$@"'  # sh: join the cgroup named by $0, then become the engine
_WATCH = ('cat >/dev/null; echo 1 > "$0/cgroup.kill" 2>/dev/null; '
          'for i in 1 2 3 4 5 6 7 8 9 10; do grep -q "populated 0" "$0/cgroup.events" && break; sleep 0.2; done; '
          'for d in "$0"/*/; do rmdir "$d" 2>/dev/null; done; rmdir "$0" 2>/dev/null')


@dataclass(frozen=True)
class ContainmentMode:
    """This process's containment: ``kind`` (``cgroup`` or ``subreaper``), ``detail`` (the cgroup
    directory, or why the fallback was taken), ``root`` (the session's cgroup directory; ``None`` for
    ``subreaper``)."""

    kind: ContainmentKind
    detail: str
    root: Path | None = None

    def record(self) -> dict[str, str]:
        """As the manifest records it: ``{"kind": ..., "detail": ...}``."""
        return {"kind": self.kind, "detail": self.detail}


_MODE: ContainmentMode | None = None
_MODE_LOCK = threading.Lock()
_WATCHER: subprocess.Popen[bytes] | None = None
_LIVE: weakref.WeakSet[Container] = weakref.WeakSet()
_COUNTER = itertools.count(1)


def containment_mode() -> ContainmentMode:
    """Probe once per process (creating this session's cgroup directory when it can) and return the mode."""
    global _MODE
    with _MODE_LOCK:
        if _MODE is None:
            _MODE = _probe()
        return _MODE


def _cgroup2_base() -> Path:
    """The cgroup v2 directory this process is in; raises ``OSError`` with the reason when there is none."""
    mount = None
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        for line in mounts:
            fields = line.split()
            if len(fields) > 2 and fields[2] == "cgroup2":
                mount = fields[1]
                break
    if mount is None:
        raise OSError(errno.ENOENT, "no cgroup2 hierarchy is mounted")
    own = next((line.split("::", 1)[1].strip() for line in Path("/proc/self/cgroup").read_text().splitlines()
                if line.startswith("0::")), None)
    if own is None:
        raise OSError(errno.ENOENT, "this process is in no cgroup v2 group (/proc/self/cgroup has no 0:: line)")
    return Path(mount) / own.lstrip("/")


def _probe() -> ContainmentMode:
    forced = os.environ.get("LEXBENCH_CONTAINMENT", "")
    if forced == "subreaper":
        return ContainmentMode("subreaper", "subreaper: forced by LEXBENCH_CONTAINMENT=subreaper")
    try:
        base = _cgroup2_base()
        _sweep(base)
        root = base / f"lexbench-{os.getpid()}"
        root.mkdir(exist_ok=True)
        probe = root / "probe"
        probe.mkdir(exist_ok=True)
        try:
            joined = subprocess.run(["/bin/sh", "-c", 'echo $$ > "$0"', str(probe / "cgroup.procs")],
                                    capture_output=True, timeout=30)
        finally:
            _remove(probe)
        if joined.returncode != 0:
            raise OSError(errno.EACCES, joined.stderr.decode(errors="replace").strip() or "cannot join a cgroup")
    except (OSError, subprocess.SubprocessError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return ContainmentMode("subreaper", f"subreaper: no writable cgroup v2 hierarchy ({reason})")
    return ContainmentMode("cgroup", f"cgroup v2 at {root}", root)


def _sweep(base: Path) -> None:
    """Kill and remove the session directories of lexbench processes that are gone."""
    with contextlib.suppress(OSError):
        for entry in base.glob("lexbench-*"):
            pid = entry.name.removeprefix("lexbench-")
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                _kill_cgroup(entry)
                for child in entry.iterdir():
                    if child.is_dir():
                        _remove(child)
                _remove(entry)


def _start_watcher(root: Path) -> None:
    global _WATCHER
    with _MODE_LOCK:
        if _WATCHER is None:
            # Its own session: Ctrl-C in the terminal reaches pytest, not the watcher.
            _WATCHER = subprocess.Popen(["/bin/sh", "-c", _WATCH, str(root)], stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _forget_after_fork() -> None:
    global _MODE, _WATCHER, _LIVE
    _MODE, _WATCHER, _LIVE = None, None, weakref.WeakSet()


os.register_at_fork(after_in_child=_forget_after_fork)


def _executable(argv0: str, env: Mapping[str, str] | None) -> None:
    """Raise ``FileNotFoundError``/``PermissionError`` as ``Popen`` would, since the wrapper hides them."""
    if "/" in argv0:
        if not os.path.exists(argv0):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv0)
        if os.path.isdir(argv0) or not os.access(argv0, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), argv0)
        return
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    if shutil.which(argv0, path=path) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv0)


def _become_subreaper() -> None:  # runs in the child between fork and exec: no locks, no allocation worth naming
    _LIBC.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


_LIBC = ctypes.CDLL(None, use_errno=True)


class Container:
    """One engine or worker process and everything it starts; see the module docstring.

    ``spawn(argv, **popen_kwargs)`` starts it (``start_new_session`` is always set) and returns the
    ``Popen``; ``pids()`` lists its live members (zombies left out); ``kill()`` kills them all and waits
    until none is left (idempotent, also run at interpreter exit). ``kind`` is the containment used.
    Raises ``FileNotFoundError``/``PermissionError`` from ``spawn`` when the binary cannot run.
    """

    def __init__(self) -> None:
        self.mode = containment_mode()
        self.kind: ContainmentKind = self.mode.kind
        self.path: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.tag: str | None = None
        self._killed = False

    def spawn(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, **popen: Any) -> subprocess.Popen[bytes]:
        argv = list(argv)
        if self.mode.root is not None:
            _executable(argv[0], env)
            _start_watcher(self.mode.root)
            self.path = self.mode.root / str(next(_COUNTER))
            self.path.mkdir()
            argv = ["/bin/sh", "-c", _JOIN, str(self.path / "cgroup.procs"), *argv]
            extra: dict[str, Any] = {}
        else:
            self.tag = f"{os.getpid()}.{next(_COUNTER)}"
            env = {**(env if env is not None else os.environ), _TAG: self.tag}
            extra = {"preexec_fn": _become_subreaper}
        _LIVE.add(self)
        try:
            self.process = subprocess.Popen(argv, env=dict(env) if env is not None else None,
                                            start_new_session=True, **popen, **extra)
        except BaseException:
            self._release()
            raise
        return self.process

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def pids(self) -> list[int]:
        """The live members: every pid in the cgroup, or the root and its recursive children."""
        if self.path is not None:
            try:
                return sorted(int(line) for line in (self.path / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                return []
        tree = _tree(self.pid) if self.process is not None and self.process.poll() is None else []
        return sorted(set(tree) | set(_tagged(self.tag))) if self.tag is not None else tree

    def kill(self) -> None:
        """SIGKILL every member, reap the root, wait (at most 5 s) until no member is left, clean up."""
        if self._killed or self.process is None:
            return
        self._killed = True
        end = time.monotonic() + _KILL_WAIT_S
        if self.path is not None:
            _kill_cgroup(self.path)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(_KILL_WAIT_S)
            while self.pids() and time.monotonic() < end:
                _kill_cgroup(self.path)
                time.sleep(0.02)
        else:
            while time.monotonic() < end:
                descendants = [pid for pid in self.pids() if pid != self.process.pid]
                if not descendants:
                    break
                for pid in descendants:  # the root lives until they are gone, so orphans come back to it
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.02)
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(_KILL_WAIT_S)
        self._release()

    def _release(self) -> None:
        _LIVE.discard(self)
        if self.path is not None:
            end = time.monotonic() + 1.0
            while not _remove(self.path) and time.monotonic() < end:
                time.sleep(0.02)


def _tagged(tag: str) -> list[int]:
    """Live processes (zombies left out) whose environment holds ``LEXBENCH_CONTAINER=tag``."""
    needle = f"{_TAG}={tag}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as environ:
                if needle not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                raw = stat.read()
        except OSError:
            continue
        if raw[raw.rfind(b")") + 2:][:1] != b"Z":
            found.append(int(entry.name))
    return found


def _tree(root: int | None) -> list[int]:
    import psutil  # as for memory sampling: loaded by the first contained call

    if root is None:
        return []
    try:
        process = psutil.Process(root)
        members = [process, *process.children(recursive=True)]
    except psutil.Error:
        return []
    live = []
    for member in members:
        with contextlib.suppress(psutil.Error):
            if member.status() != psutil.STATUS_ZOMBIE:
                live.append(member.pid)
    return sorted(live)


def _kill_cgroup(path: Path) -> None:
    try:
        (path / "cgroup.kill").write_text("1")
        return
    except FileNotFoundError:
        pass  # before Linux 5.14: one member at a time
    except OSError:
        return
    with contextlib.suppress(OSError, ValueError):
        for line in (path / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                os.kill(int(line), signal.SIGKILL)


def _remove(path: Path) -> bool:
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


@atexit.register
def kill_all() -> None:
    """Kill every live container of this process, then remove its session directory (at exit)."""
    for container in list(_LIVE):
        with contextlib.suppress(Exception):
            container.kill()
    mode = _MODE
    if mode is not None and mode.root is not None:
        _remove(mode.root)
