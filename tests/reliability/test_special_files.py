"""Evidence and suite files that are not regular files are refused before they are read (issue 19,
item 12): a capture symlinked to ``/dev/zero`` used to be read until ``MemoryError``, one replaced
by a FIFO blocked the run forever. Each load runs in a child process with a 2 GB address-space limit
and a deadline, so a regression fails the test instead of exhausting the machine or hanging."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.reliability.hostile import in_child
from tests.suite_factory import ARTICLES, write_suite

CASE = "article-002-en-orchard"
DEADLINE_S = 120.0


def load_and_report(suite: str) -> str:
    """Load the suite in this (child) process; the refusal's message, or ``"loaded"``."""
    import resource

    from lexbench.dataset.suite import load_suite
    from lexbench.errors import LexbenchError

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    try:
        load_suite(suite)
    except LexbenchError as exc:
        return str(exc)
    return "loaded"


def _dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.timeout(DEADLINE_S + 60)
@pytest.mark.parametrize(("name", "replace", "kind"), [
    (f"evidence/captures/{CASE}.html", _dev_zero, "character device"),
    (f"evidence/captures/{CASE}.html", _fifo, "FIFO"),
    (f"evidence/references/{CASE}.txt", _fifo, "FIFO"),
], ids=["capture->/dev/zero", "capture-fifo", "reference-fifo"])
def test_a_special_file_in_place_of_evidence_is_refused_with_its_name(tmp_path: Path, name: str, replace, kind: str) -> None:  # type: ignore[no-untyped-def]
    suite = write_suite(tmp_path / "tiny", ARTICLES)
    replace((suite / name).resolve())
    message = in_child(load_and_report, (str(suite),), DEADLINE_S)
    assert message != "loaded"
    assert Path(name).name in message and f"not a regular file (a {kind})" in message, message


pytestmark = [pytest.mark.attack(item=12), pytest.mark.slow]  # counted in the terminal summary's reliability figures
