"""The lift gate on real pages: two runs over imported corpus pages, before and after a deliberately
broken scorer (20 % coverage threshold), must block and name the moved metrics (SPEC §8).

Reads ``../shared/corpus`` (never committed); skips with the reason when it is absent.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.cli import main
from lexbench.dataset.importers import import_corpus
from lexbench.evals.lift import ACK_TOKEN

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
PAGES = 30

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent: the real corpus is not on this machine")

# Loaded with -p into the benchmark's pytest run (and its xdist workers): the scorer, broken on purpose.
BROKEN_SCORER = """
from fractions import Fraction

import lexbench.scoring.evaluate as evaluate

assert hasattr(evaluate, "_THRESHOLD"), "the scorer's coverage threshold moved; update this test"
evaluate._THRESHOLD = Fraction(1, 5)
"""


def _bench(suite: Path, run_dir: Path, plugin_dir: Path | None = None) -> None:
    env = dict(os.environ)
    args = [sys.executable, "-m", "pytest", f"--suite={suite}", f"--run-dir={run_dir}", "-n", "2", "-q", "--tb=no",
            "-p", "no:cacheprovider"]
    if plugin_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_dir), env.get("PYTHONPATH")]))
        args[3:3] = ["-p", "broken_scorer"]
    completed = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert completed.returncode in (0, 1), completed.stdout[-3000:] + completed.stderr[-3000:]


@pytest.mark.slow
def test_compare_blocks_a_scoring_change_on_real_pages_and_names_the_metrics(tmp_path, capsys):
    suite = tmp_path / "suite"
    import_corpus("scrapinghub-aeb", CORPUS / "scrapinghub-aeb", suite, limit=PAGES, keep_going=True)
    plugin_dir = tmp_path / "plugins"
    plugin_dir.mkdir()
    (plugin_dir / "broken_scorer.py").write_text(BROKEN_SCORER, encoding="utf-8")
    before, after = tmp_path / "before", tmp_path / "after"
    _bench(suite, before)
    _bench(suite, after, plugin_dir)

    assert main(["compare", str(before), str(after)]) == 1
    out = capsys.readouterr().out
    blocked = re.findall(r"^\| `([^`]+)` \| ± \|[^\n]*\| BLOCKED \(", out, flags=re.M)
    assert blocked, out
    assert all(re.fullmatch(r"[a-z0-9._-]+\.[a-z0-9-]+\.[a-z_]+", m) for m in blocked), blocked
    assert all(f"Affected metric: {m}" in out for m in blocked)

    ack = tmp_path / "ack.txt"
    ack.write_text(f"{ACK_TOKEN}\nFollow-up: #9\n" + "".join(f"Affected metric: {m}\n" for m in blocked), encoding="utf-8")
    assert main(["compare", str(before), str(after), f"--ack={ack}"]) == 0
