"""The run engine is usable without pytest: importing it never loads pytest."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # opens real runs (git for the code state) or a fresh interpreter


def test_importing_the_run_engine_does_not_import_pytest():
    code = ("import sys, lexbench.run, lexbench.run.session, lexbench.run.manifest, lexbench.run.row, "
            "lexbench.run.planning, lexbench.run.replay_check\n"
            "print(sorted(name for name in sys.modules if name == 'pytest' or name.startswith(('_pytest', 'xdist'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert result.stdout.strip() == "[]"
