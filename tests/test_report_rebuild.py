"""``lexbench report`` rebuilds the reports of a run made before the architecture change byte for byte
(issue 18: a structural change with no change of behaviour).

``tests/fixtures/run-before-architecture`` is a demo run (trafilatura, http-markdownify, reference-echo)
recorded at the commit before the package layout changed: its manifest, its rows and the three reports
that commit wrote. The reports are rebuilt from the manifest and rows alone and compared byte for byte.
A deliberate change of what the reports show regenerates the three expected files (``lexbench report``
on a copy of the manifest and rows, its reports copied back) in the same commit, which says so.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "run-before-architecture"
REPORTS = ("report.md", "report.html", "report.json")


@pytest.mark.slow  # starts the lexbench CLI in a subprocess, as a user does
def test_lexbench_report_rebuilds_an_earlier_run_byte_for_byte(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for name in ("manifest.json", "results.jsonl"):
        shutil.copy(FIXTURE / name, run / name)
    done = subprocess.run([sys.executable, "-m", "lexbench.cli", "report", str(run)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    for name in REPORTS:
        assert (run / name).read_bytes() == (FIXTURE / name).read_bytes(), f"{name} differs from the earlier run's"
