"""``pytest golden`` runs the golden snapshot tests and nothing else: the plugin turns only ``cases/``
into benchmark items (SPEC §1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

REPO = Path(__file__).resolve().parents[1]


def test_pytest_golden_runs_only_the_golden_tests():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    completed = subprocess.run([sys.executable, "-m", "pytest", "golden", "-v", "-p", "no:cacheprovider"],
                               cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-2000:]
    items = [line.split()[0] for line in completed.stdout.splitlines() if "::" in line and "PASSED" in line]
    assert "golden/test_bindings.py::test_dataset_catalog" in items
    assert all(item.startswith("golden/") for item in items), items
    assert "snapshots passed" in completed.stdout and "leaderboard" not in completed.stdout
