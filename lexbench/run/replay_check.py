"""Whether the replay server can still serve pages (SPEC §3.1): an item it stops is the harness's
failure, recorded ``unresolvable`` with class ``infrastructure``, never the provider's."""

from __future__ import annotations

from typing import Protocol


class ReplayHealth(Protocol):
    """What the check needs of :class:`lexbench.replay.ReplayServer`."""

    @property
    def running(self) -> bool: ...

    def answering(self) -> bool: ...


def replay_problem(replay: ReplayHealth, *, probe: bool, suspect: bool) -> tuple[str | None, bool]:
    """Why ``replay`` cannot serve pages now (``None`` when it can), and whether it stays suspect.

    A stopped server is reported without a request. ``probe`` — or ``suspect``, a failed last probe —
    also sends it one: after a failed call, and before every call while it stays unanswered; not before
    every call, where it cost ~15 % of an I/O-bound item."""
    if not replay.running:
        return "the replay server stopped during the run, so the page could not be served", suspect
    if probe or suspect:
        if not replay.answering():
            return "the replay server no longer answers, so the page could not be served", True
        return None, False
    return None, suspect
