"""A run directory is trusted only as lexbench leaves it (SPEC §6; issue 19).

:func:`check_run_dir` refuses, before anything is read or written, a run directory that is a
symbolic link or not a directory, a lexbench file in it that is a link or of the wrong kind
(``results.jsonl`` a directory, ``responses/`` a link out of the run, an answer file linked
elsewhere), and files lexbench did not write (``report.*`` or other files beside no manifest).
Every file lexbench writes there is opened with ``O_NOFOLLOW`` (:func:`write_file`), so a link
planted after the check fails the write instead of redirecting it.

:class:`RunLock` keeps two sessions out of one run directory: the controller holds an advisory
``flock`` on ``session.lock`` for its whole session (xdist workers never take it; they write only
content-addressed answers under ``responses/``). The kernel releases the lock when its holder dies,
so a killed session never blocks the next; the file keeps the last holder's pid, host, start time
and argv for the refusal message.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from lexbench.errors import RunError

LOCK_NAME = "session.lock"
FILES = ("manifest.json", "results.jsonl", "report.md", "report.html", "report.json", "served-fetches.jsonl", LOCK_NAME)
"""Regular files lexbench keeps in a run directory."""
DIRECTORIES = ("responses", "debug")
"""Directories lexbench keeps in a run directory: ``responses/`` holds regular files, ``debug/`` folders
of regular files; no link in either."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def check_run_dir(run_dir: Path, *, manifest_required: bool) -> None:
    """Refuse ``run_dir`` unless it is absent (and may be created) or a real directory holding only
    what lexbench writes, none of it a symbolic link.

    With ``manifest_required`` (resume, report, merge input) the directory must exist. A directory
    without ``manifest.json`` may hold only lexbench's own entries (a session killed before its
    manifest), never another tool's files. Raises :class:`RunError` naming the path and the fix.
    """
    try:
        info = os.lstat(run_dir)
    except FileNotFoundError:
        if manifest_required:
            raise RunError(f"{run_dir}: no such run directory") from None
        return
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise RunError(f"{run_dir}: is a symbolic link (to {os.readlink(run_dir)}); a run directory is used only "
                       "as itself: name the real directory")
    if not stat.S_ISDIR(info.st_mode):
        raise RunError(f"{run_dir}: exists and is not a directory; it is left untouched — choose a new --run-dir")
    entries = {entry.name: entry for entry in os.scandir(run_dir)}
    for name, entry in sorted(entries.items()):
        path = run_dir / name
        if entry.is_symlink():
            raise RunError(f"{path}: is a symbolic link (to {os.readlink(path)}); lexbench never reads or writes "
                           "through links in a run directory — remove it or use a new run directory")
        if name in FILES and not entry.is_file(follow_symlinks=False):
            raise RunError(f"{path}: is not a regular file; the run directory was not left this way by lexbench")
        _refuse_hard_link(entry)
        if name in DIRECTORIES:
            if not entry.is_dir(follow_symlinks=False):
                raise RunError(f"{path}: is not a directory; the run directory was not left this way by lexbench")
            for inner in _entries(path, nested=name == "debug"):
                if inner.is_symlink():
                    raise RunError(f"{inner.path}: is a symbolic link (to {os.readlink(inner.path)}); lexbench "
                                   "never reads or writes through links in a run directory — remove it or use a new "
                                   "run directory")
                if not inner.is_file(follow_symlinks=False) and not (name == "debug" and inner.is_dir(follow_symlinks=False)):
                    raise RunError(f"{inner.path}: is not a regular file; lexbench writes "
                                   "only plain files there — remove it or use a new run directory")
                _refuse_hard_link(inner)
    if "manifest.json" not in entries:
        if manifest_required:
            raise RunError(f"{run_dir}: not a run directory (no manifest.json)")
        foreign = sorted(name for name in entries if name not in FILES + DIRECTORIES and not _own_temporary(name))
        reports = sorted(name for name in entries if name.startswith("report."))
        if foreign or reports:
            raise RunError(f"{run_dir}: holds files lexbench did not write ({', '.join((reports + foreign)[:5])}) and "
                           "no run manifest; it is left untouched — choose a new --run-dir")


def _refuse_hard_link(entry: os.DirEntry[str]) -> None:
    """Refuse a regular file with more than one name: appending to it (``results.jsonl``) or truncating
    it (the session lock) would write the same file under its other name, perhaps outside the run."""
    if entry.is_file(follow_symlinks=False) and (links := entry.stat(follow_symlinks=False).st_nlink) > 1:
        raise RunError(f"{entry.path}: has {links} names (a hard link); lexbench never writes a file that is also "
                       "elsewhere — remove it or use a new run directory")


def _entries(folder: Path, *, nested: bool):
    """The entries of ``folder``; with ``nested`` those of its sub-folders too (``debug/<provider>/<case>/``),
    never descending through a link."""
    pending = [folder]
    while pending:
        for entry in os.scandir(pending.pop()):
            yield entry
            if nested and entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))


def _own_temporary(name: str) -> bool:
    return name.startswith(".lexbench-") and name.endswith(".tmp")


def make_run_dir(run_dir: Path) -> None:
    """Create ``run_dir`` (and missing parents); an existing one was checked by :func:`check_run_dir`."""
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(run_dir)
    except FileExistsError:
        check_run_dir(run_dir, manifest_required=False)  # it appeared since: check what it is


def append_file(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` (created if absent), never through a symbolic link (``O_NOFOLLOW``)
    nor to a file with another name (a hard link planted since the run directory was checked: ``RunError``)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644)
    try:
        if os.fstat(fd).st_nlink > 1:
            raise RunError(f"{path}: has {os.fstat(fd).st_nlink} names (a hard link); lexbench never writes a file "
                           "that is also elsewhere — remove it or use a new run directory")
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically: a new temporary file (``O_EXCL | O_NOFOLLOW``) in the
    same directory, fsynced, renamed over ``path``. A rename replaces a link planted at ``path`` rather
    than writing through it, so nothing outside the directory is ever written."""
    fd, tmp = tempfile.mkstemp(prefix=".lexbench-", suffix=".tmp", dir=path.parent)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)


def open_nofollow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses a symbolic link at ``path`` (``OSError`` ``ELOOP``)."""
    return os.open(path, flags | _NOFOLLOW | os.O_CLOEXEC, mode)


class RunLock:
    """An exclusive advisory lock on one run directory for one session (see the module docstring).

    :meth:`acquire` raises :class:`RunError` naming the holder when another live session has it;
    :meth:`release` (or the process's death) frees it."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock without waiting and record this session (pid, host, start time, argv) in it."""
        try:
            fd = open_nofollow(self.path, os.O_RDWR | os.O_CREAT)
        except OSError as exc:
            raise RunError(f"{self.path}: cannot open the session lock ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise RunError(f"{self.path}: cannot lock the run directory ({exc.strerror or exc})") from None
            raise RunError(f"{self.path.parent}: another session is using this run directory ({holder}); wait for "
                           "it to finish, or choose another --run-dir") from None
        record = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": datetime.now(UTC).replace(microsecond=0).isoformat(), "argv": sys.argv}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "replace"), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Free the lock (the file stays, naming the last holder)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        holder = json.loads(os.pread(fd, 65536, 0).decode("utf-8", "replace"))
        argv = " ".join(str(a) for a in holder["argv"])
        return f"pid {holder['pid']} on {holder['host']}, started {holder['started']}: {argv[:300]}"
    except (OSError, ValueError, KeyError, TypeError):
        return "its details are not written yet"
