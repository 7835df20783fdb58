"""The reference-echo control passes every committed demo case, record contracts included.

A control miss means the case or the scorer is wrong; this is the check `make bench` relies on.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

REPO = Path(__file__).resolve().parents[1]


def test_reference_echo_passes_every_demo_case(tmp_path):
    run_dir = tmp_path / "run"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--suite=demo", "--providers=reference-echo", f"--run-dir={run_dir}",
         "-q", "--tb=line", "-n", "0"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    missed = [f"{r['case']}: {r['explanation']}" for r in rows if r["outcome"] != "pass"]
    assert not missed, "\n".join(missed)
    assert completed.returncode == 0, completed.stdout[-2000:]
    kinds = {r["case"].split("-")[0] for r in rows}
    assert {"article", "forum"} <= kinds  # the post collection is among them
