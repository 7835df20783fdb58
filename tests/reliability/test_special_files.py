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


# --- issue 27: every file a user names to lexbench goes through the one bounded, kind-checked reader --


def load_config_and_report(path: str) -> str:
    """Load ``path`` as the provider configuration in this (child) process, with 1.25 GiB of address
    space beyond its size at start; the refusal's message, ``"MemoryError"`` or ``"loaded"``."""
    import resource

    from lexbench.errors import LexbenchError
    from lexbench.providers.build import load_config

    size = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith("VmSize:"))
    limit = size * 1024 + (1280 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        load_config(Path(path))
    except LexbenchError as exc:
        return str(exc)
    except MemoryError:
        return "MemoryError"
    return "loaded"


def _socket(path: Path) -> None:
    import socket

    socket.socket(socket.AF_UNIX).bind(str(path))


@pytest.mark.attack(item=9, issue=27)
@pytest.mark.timeout(DEADLINE_S + 60)
@pytest.mark.parametrize(("make", "kind"), [
    (None, "character device"), (os.mkfifo, "FIFO"), (_socket, "socket"),
], ids=["/dev/zero", "fifo", "socket"])
def test_a_special_file_as_provider_config_is_refused_by_kind(tmp_path: Path, make, kind: str) -> None:  # type: ignore[no-untyped-def]
    path = Path("/dev/zero")
    if make is not None:
        path = tmp_path / "providers.json"
        make(path)
    message = in_child(load_config_and_report, (str(path),), DEADLINE_S)
    assert message == f"cannot read provider configuration {path}: not a regular file (a {kind}); refusing to read it"


def run_cli_and_report(argv: list[str]) -> tuple[int, str]:
    """``lexbench ARGV`` in this (child) process, bounded like :func:`load_config_and_report`; the exit
    code and what it printed on stderr (``MemoryError`` as a message)."""
    import contextlib
    import io
    import resource

    from lexbench.cli import main

    size = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith("VmSize:"))
    limit = size * 1024 + (1280 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
    except MemoryError:
        return -1, "MemoryError"
    return code, err.getvalue()


def _publish_dataset(tmp_path: Path) -> tuple[list[str], Path]:
    suite = write_suite(tmp_path / "tiny", ARTICLES)
    return ["publish", "--suite", str(suite), "--dataset", str(tmp_path / "new-dataset.json")], tmp_path / "new-dataset.json"


def _verify_source(tmp_path: Path) -> tuple[list[str], Path]:
    suite = write_suite(tmp_path / "tiny", ARTICLES)
    source = tmp_path / "inputs"
    (source / "evidence").mkdir(parents=True)
    return ["verify-inputs", "--suite", str(suite), "--source", str(source)], source / "dataset.json"


def _import_index(tmp_path: Path) -> tuple[list[str], Path]:
    corpus = tmp_path / "aeb"
    corpus.mkdir()
    return (["import-corpus", "--format", "scrapinghub-aeb", "--source", str(corpus), "--output", str(tmp_path / "out")],
            corpus / "_index.tsv")


@pytest.mark.attack(item=2, issue=27)
@pytest.mark.timeout(DEADLINE_S + 60)
@pytest.mark.parametrize("command", [_publish_dataset, _verify_source, _import_index],
                         ids=["publish --dataset", "verify-inputs --source", "import-corpus --source"])
@pytest.mark.parametrize(("make", "kind"), [(os.mkfifo, "FIFO"), (lambda p: p.symlink_to("/dev/zero"), "character device")],
                         ids=["fifo", "dev-zero"])
def test_a_special_file_named_to_a_command_is_refused_by_kind(tmp_path: Path, command, make, kind: str) -> None:  # type: ignore[no-untyped-def]
    argv, special = command(tmp_path)
    make(special)
    code, stderr = in_child(run_cli_and_report, (argv,), DEADLINE_S)
    assert code in (1, 2), (code, stderr)
    assert f"not a regular file (a {kind}); refusing to read it" in stderr, stderr
    assert special.name in stderr, stderr
