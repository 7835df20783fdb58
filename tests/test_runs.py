"""Runs worth keeping, driven as a user drives them (SPEC §6): a run killed with SIGKILL and resumed
has every item exactly once; shards merge into the unsharded run's report; reports regenerate byte
for byte; measure-only runs keep evidence without a report; certified runs check their requirements."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from lexbench.cli import main as lexbench
from lexbench.run.record import load_rows
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

REPORTS = ("report.md", "report.html", "report.json")
# Sixteen articles: enough items that a run can be killed half-way.
MANY = [dict(a, slug=f"{a['slug']}{i}", title=f"{a['title']} {i}") for i in range(8) for a in ARTICLES]
SLOW_ECHO = '''
import time
from lexbench.providers.local import ReferenceEcho

_fetch = ReferenceEcho.fetch


def _slow(self, case, timeout, url):
    time.sleep(0.25)
    return _fetch(self, case, timeout, url)


ReferenceEcho.fetch = _slow
'''
CLEAN_CODE = '''
import lexbench.run.record

lexbench.run.record.code_state = lambda *args, **kwargs: {"git": {"commit": "0" * 40, "uncommitted": []}}
'''


@pytest.fixture
def project(bench_project):
    return bench_project


def items(run_dir):
    return [r.item_id for r in load_rows(run_dir)]


def reports(run_dir):
    return {name: (run_dir / name).read_bytes() for name in REPORTS}


def test_a_killed_run_resumes_with_every_item_exactly_once(project, tmp_path_factory):
    project.makeconftest(SLOW_ECHO)
    suite = write_suite(project.path / "suite", MANY)
    run = tmp_path_factory.mktemp("runs") / "run"
    args = [f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}", "-n", "2", "-q"]
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=project.path, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Wait for a few finished items (a condition, not a duration), then kill everything.
        deadline = time.monotonic() + 300
        while len(items(run)) < 4 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    before = items(run)
    assert 4 <= len(before) < 16, "the run must be killed half-way for this test to mean anything"
    assert json.loads((run / "manifest.json").read_text())["finished"] is None

    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--resume={run}",
                                          "-n", "2")
    result.assert_outcomes(passed=16 - len(before))  # xdist workers deselect; the controller does not count them
    after = items(run)
    assert sorted(after) == sorted(f"article-{i:03d}-en-{a['slug']}[reference-echo]" for i, a in enumerate(MANY, 1))
    assert len(after) == len(set(after)) == 16
    assert after[:len(before)] == before
    manifest = json.loads((run / "manifest.json").read_text())
    assert [s["resumed_with"] for s in manifest["sessions"]] == [0, len(before)]
    assert manifest["finished"] and manifest["completion"] == {"expected": 16, "recorded": 16, "missing": 0}
    assert all((run / name).is_file() for name in REPORTS)


def test_resuming_a_finished_run_runs_nothing_and_exits_0(project, tmp_path_factory):
    """A retried CI job resumes a run that had finished: nothing is left, and that is success (not pytest's
    exit 5, "no tests collected")."""
    suite = write_suite(project.path / "suite", ARTICLES)
    run = tmp_path_factory.mktemp("runs") / "run"
    project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}")
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--resume={run}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "2 deselected" in result.stdout.str() and len(items(run)) == 2
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", "-k", "nosuchitem")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # an empty selection of a new run stays exit 5


def test_resume_refuses_other_settings_and_foreign_rows(project, tmp_path_factory):
    suite = write_suite(project.path / "suite", ARTICLES)
    run = tmp_path_factory.mktemp("runs") / "run"
    project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}")
    assert len(items(run)) == 2

    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--resume={run}",
                                          "--fetch-timeout=5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "configuration sha256" in result.stderr.str() and "resume with the same" in result.stderr.str()

    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and f"--resume={run}" in result.stderr.str()

    row = json.loads((run / "results.jsonl").read_text().splitlines()[0])
    row.update(case="article-009-en-other", dataset_sha256="0" * 64)
    with open(run / "results.jsonl", "a") as handle:
        handle.write(json.dumps(row) + "\n")
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--resume={run}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "refusing to mix" in result.stderr.str() and "article-009-en-other" in result.stderr.str()
    assert lexbench(["report", str(run)]) == 2


def test_shards_merge_into_the_report_of_the_unsharded_run(project, tmp_path_factory, capsys):
    suite = write_suite(project.path / "suite", ARTICLES[:1] + MANY[:3])
    runs = tmp_path_factory.mktemp("runs")
    providers = "--providers=reference-echo,trafilatura,http-markdownify"
    whole, first, second = runs / "whole", runs / "s1", runs / "s2"
    project.runpytest_subprocess(f"--suite={suite}", providers, f"--run-dir={whole}")
    project.runpytest_subprocess(f"--suite={suite}", providers, f"--run-dir={first}", "--shard=1/2", "-n", "2")
    project.runpytest_subprocess(f"--suite={suite}", providers, f"--run-dir={second}", "--shard=2/2")
    assert sorted(items(first) + items(second)) == sorted(items(whole))
    assert {len(items(first)), len(items(second))} == {6}
    assert {r.provider for r in load_rows(first)} == {"reference-echo", "trafilatura", "http-markdownify"}

    # Regenerating a run's reports gives the bytes the session wrote.
    written = reports(whole)
    assert lexbench(["report", str(whole)]) == 0
    assert reports(whole) == written

    merged = runs / "merged"
    assert lexbench(["report", "--merge", str(second), str(first), "--output", str(merged)]) == 0
    assert sorted(items(merged)) == sorted(items(whole)) and len(set(items(merged))) == 12
    assert json.loads((merged / "manifest.json").read_text())["run"]["shard"] is None
    failed = next(r for r in load_rows(merged) if r.outcome.value == "fail")
    assert f"responses/{failed.response_sha256}.txt" in (merged / "report.md").read_text()
    assert (merged / "responses" / f"{failed.response_sha256}.txt").is_file()

    # The unsharded run over the same results (rows in another order) reports the same bytes.
    same = runs / "same"
    shutil.copytree(whole, same)
    lines = (merged / "results.jsonl").read_text().splitlines()
    (same / "results.jsonl").write_text("\n".join(reversed(lines)) + "\n")
    assert lexbench(["report", str(same)]) == 0
    assert reports(same) == reports(merged)

    assert lexbench(["report", "--merge", str(first), str(whole), "--output", str(runs / "bad")]) == 2
    assert "not a shard" in capsys.readouterr().err


def test_measure_only_keeps_scored_evidence_without_a_report(project, tmp_path_factory):
    suite = write_suite(project.path / "suite", ARTICLES)
    run = tmp_path_factory.mktemp("runs") / "run"
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo,trafilatura",
                                          f"--run-dir={run}", "--measure-only")
    result.assert_outcomes(passed=2, failed=2)
    assert "no report built" in result.stdout.str()
    assert not any((run / name).exists() for name in REPORTS)
    assert len(items(run)) == 4 and any((run / "responses").iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["run"]["measure_only"] is True and manifest["certification"] is None
    assert lexbench(["report", str(run)]) == 0
    assert "Measure-only run" in (run / "report.md").read_text()

    result = project.runpytest_subprocess(f"--suite={suite}", f"--run-dir={run}", "--measure-only", "--certified")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "exclude each other" in result.stderr.str()


def test_certified_runs_check_their_requirements_and_say_so(project, tmp_path_factory):
    project.makeconftest(CLEAN_CODE)
    suite = write_suite(project.path / "suite", ARTICLES)
    runs = tmp_path_factory.mktemp("runs")
    result = project.runpytest_subprocess(f"--suite={suite}", f"--run-dir={runs / 'a'}", "--certified",
                                          "-k", "tides")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "provider list is not explicit" in result.stderr.str() and "-k 'tides'" in result.stderr.str()

    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={runs / 'b'}",
                                          "--certified")
    result.assert_outcomes(passed=2)
    manifest = json.loads((runs / "b" / "manifest.json").read_text())
    certification = manifest["certification"]
    assert certification["certified"] is True and "suite bindings verify" in certification["checks"]
    assert manifest["providers"] == ["reference-echo"] and manifest["code"]["git"]["uncommitted"] == []
    assert "Certified run" in (runs / "b" / "report.md").read_text()

    (suite / "tasks.json").unlink()
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={runs / 'c'}",
                                          "--certified")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "tasks.json" in result.stderr.str()
