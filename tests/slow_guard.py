"""The ``slow`` partition's guard: a test not marked ``slow`` fails when it starts a process or a server.

``make test-fast`` runs ``-m "not slow"``, the tests that stay in-process; a process (pytest run in a
subprocess, a browser, a Node or extraction worker, git) or a listening socket (replay server, loopback
fake) is what makes a test take seconds on a loaded machine, so such a test must carry
``@pytest.mark.slow`` (or its module ``pytestmark = pytest.mark.slow``). The guard watches each phase
(setup, call, teardown) of every unmarked test: ``subprocess.Popen``, ``os.fork``, ``os.posix_spawn``,
multiprocessing's spawn and ``Process.start``, and ``socket.listen``. A module- or session-scoped fixture
is charged to the first test that sets it up, so a run of ``-m "not slow"`` checks every fixture the fast
tests use.
"""

from __future__ import annotations

import multiprocessing.process
import multiprocessing.util
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def _describe_popen(_self: Any, args: Any, *rest: Any, **kwargs: Any) -> str:
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
    return "a process: " + " ".join(map(str, argv))[:200]


def _describe_listen(sock: socket.socket, *rest: Any) -> str:
    try:
        return f"a server listening on {sock.getsockname()}"
    except OSError:
        return "a server (listening socket)"


# (owner, attribute, how a call is described): every way a test here starts a process or a server.
_WATCHED: list[tuple[Any, str, Callable[..., str]]] = [
    (subprocess.Popen, "_execute_child", _describe_popen),
    (os, "fork", lambda *a, **k: "a process (os.fork)"),
    (os, "posix_spawn", lambda path, *a, **k: f"a process: {path}"),
    (os, "posix_spawnp", lambda path, *a, **k: f"a process: {path}"),
    (multiprocessing.util, "spawnv_passfds", lambda path, args, *a, **k: "a process: " + " ".join(map(str, args))),
    # A forkserver, once started, forks its children out of our sight: watch each Process.start too.
    (multiprocessing.process.BaseProcess, "start", lambda process: f"a process: {process!r}"),
    (socket.socket, "listen", _describe_listen),
]


@contextmanager
def _watching(started: list[str]) -> Iterator[None]:
    """Within the block, every watched call appends its description to ``started`` (and still runs)."""
    # (owner, name, original, whether the owner itself defines it): an inherited method is deleted again.
    originals = [(owner, name, getattr(owner, name), name in vars(owner))
                 for owner, name, _ in _WATCHED if hasattr(owner, name)]
    describe = {name: how for _, name, how in _WATCHED}

    def spy(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def watched(*args: Any, **kwargs: Any) -> Any:
            started.append(describe[name](*args, **kwargs))
            return original(*args, **kwargs)
        return watched

    for owner, name, original, _ in originals:
        setattr(owner, name, spy(name, original))
    try:
        yield
    finally:
        for owner, name, original, own in originals:
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)


def _guarded(item: pytest.Item) -> Iterator[None]:
    if item.get_closest_marker("slow") is not None:
        return (yield)
    started: list[str] = []
    with _watching(started):
        outcome = yield
    if started:
        kinds = sorted(set(started))
        raise pytest.fail.Exception(
            f"{item.nodeid} is not marked slow but started {len(started)} process(es)/server(s), e.g. "
            f"{'; '.join(kinds[:3])}. Mark it @pytest.mark.slow (make test-fast leaves slow tests out) "
            "or keep it in-process.")
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Fail an unmarked test whose fixtures start a process or a server."""
    return (yield from _guarded(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail an unmarked test that starts a process or a server."""
    return (yield from _guarded(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Fail an unmarked test whose fixture teardown starts a process or a server."""
    return (yield from _guarded(item))
