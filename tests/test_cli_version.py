"""``lexbench --version``: the installed distribution's version, the one pyproject.toml declares."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from lexbench.cli import main

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_version_prints_the_declared_version_and_exits_0(capsys) -> None:
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"lexbench {declared}\n"


def test_version_outside_an_installed_distribution_says_so(capsys, monkeypatch) -> None:
    from importlib import metadata

    def absent(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", absent)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == "lexbench unknown (not installed)\n"
