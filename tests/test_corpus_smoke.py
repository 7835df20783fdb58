"""Real-corpus smoke run: imported real pages × every local provider; the control must pass them all.

Reads ``../shared/corpus`` (never committed); skips with the reason when it is absent.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.dataset.importers import import_corpus

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
PAGES_PER_FORMAT = 12
FORMATS = ("scrapinghub-aeb", "mozilla-readability", "magic-html-bench")

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent: the real corpus is not on this machine")


@pytest.mark.slow
@pytest.mark.parametrize("corpus_format", FORMATS)
def test_real_pages_run_and_reference_echo_passes_every_case(tmp_path, corpus_format):
    suite = tmp_path / "suite"
    import_corpus(corpus_format, CORPUS / corpus_format, suite, limit=PAGES_PER_FORMAT, keep_going=True)
    run_dir = tmp_path / "run"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", f"--suite={suite}", f"--run-dir={run_dir}", "-q", "--tb=no",
         "-p", "no:cacheprovider", "-n", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode in (0, 1), completed.stdout[-3000:] + completed.stderr[-3000:]
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    cases = {r["case"] for r in rows}
    assert len(cases) >= PAGES_PER_FORMAT // 2
    echo = [r for r in rows if r["provider"] == "reference-echo"]
    missed = [f"{r['case']}: {r['explanation']}" for r in echo if r["outcome"] != "pass"]
    assert not missed, "reference-echo missed real cases (the scorer or the import is wrong):\n" + "\n".join(missed)
    providers = {r["provider"] for r in rows}
    assert providers == {"http-markdownify", "trafilatura", "readability", "reference-echo"}
    assert all(r["outcome"] in ("pass", "fail") for r in rows if r["provider"] != "reference-echo")
