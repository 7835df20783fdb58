"""The reader-judged set's gate (issue 30): verdicts on the judged real answers agree with the readers.

The answers are regenerated here: the benchmark runs the judged cases × providers over the ``articles``
evidence (the pinned local providers, the headless engines on the system Chromium, the Node worker,
LangChain), then every answer byte-equal to a judged one is scored and set beside the readers' decisions
(``lexbench run-evals --judged``). An answer whose bytes differ is refused by name and fails the test. The
gate (>= 0.97 per component and overall, no comment false pass, comment false fails <= 3 %) must pass, as
``run-evals --judged`` exits by it, and no component may fall below the floors committed in
``cases/articles-judged/floors.json`` (the measured agreement, raised as the reader improves), so a scoring
change cannot lose agreement with the readers unnoticed. Skips, saying why,
without the evidence (``lexbench fetch-evidence --suite articles``, or ``../shared/corpus``) or without a
provider the set needs (Chromium, ``make workers``, ``make langchain``)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.evals.judged import JUDGED_ROOT, agreement, compare_run, gate, load_judged, render
from lexbench.dataset.suite import CASES_ROOT, load_suite
from tests.dataset.articles_evidence import articles_inputs

REPO = CASES_ROOT.parent
NODE_WORKER = REPO / "providers" / "workers" / "readability-js" / "node_modules"


def missing_providers(providers: set[str]) -> list[str]:
    """What this machine lacks to regenerate the judged answers, one reason per missing piece."""
    out = []
    if providers & {"chromium-cdp", "chromium-dump-dom"} and not (shutil.which("chromium") or Path("/usr/bin/chromium").exists()):
        out.append("Chromium (apt-get install chromium)")
    if providers & {"jsdom", "readability-js"} and not (NODE_WORKER.is_dir() and shutil.which("node")):
        out.append("the Node worker (make workers)")
    if "langchain" in providers and importlib.util.find_spec("langchain_community") is None:
        out.append("LangChain (make langchain)")
    return out


@pytest.mark.slow
def test_verdicts_on_the_judged_answers_agree_with_the_readers(tmp_path: Path) -> None:
    judged = load_judged(JUDGED_ROOT)
    providers = {answer.provider for answer in judged}
    cases = sorted({answer.case for answer in judged})
    lacking = missing_providers(providers)
    if lacking:
        pytest.skip("the judged answers cannot be regenerated here: missing " + ", ".join(lacking))
    inputs = articles_inputs(tmp_path)
    run = tmp_path / "run"
    command = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "--tb=no", "-n", "2",
               f"--suite={inputs}", "--provider-config=providers/providers.example.json",
               f"--providers={','.join(sorted(providers))}", "-k", " or ".join(cases), f"--run-dir={run}"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert done.returncode in (0, 1), f"the regenerating run failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    suite = load_suite(str(inputs))
    result = compare_run(judged, run, {case.id: case for case in suite.cases})
    counted = agreement(result.compared)
    report = render(counted, result.refused)
    assert not result.refused, "\n".join(result.refused) + "\n\n" + report
    problems = gate(counted, result.refused)
    assert not problems, "\n".join(problems) + "\n\n" + report
    # Stricter than the gate where the agreement is higher: no component may lose agreement against the
    # floors committed with the set (the agreement measured when it was last raised).
    floors = json.loads((JUDGED_ROOT / "floors.json").read_text(encoding="utf-8"))
    below = [f"{c}: {a}/{n} < committed floor {floors['agreement'][c]}" for c, (a, n) in counted.per_component.items()
             if n and a / n < floors["agreement"][c]]
    if counted.false_pass > floors["comment_false_pass_max"]:
        below.append(f"comments: {counted.false_pass} false passes > committed {floors['comment_false_pass_max']}")
    assert not below, "\n".join(below) + "\n\n" + report
