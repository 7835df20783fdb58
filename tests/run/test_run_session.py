"""The run engine driven without pytest (lexbench.run.session): the run directory a session writes —
manifest, rows, saved answers, reports — and how it refuses, resumes and stops (SPEC §6)."""

from __future__ import annotations

import errno
import hashlib
import json

import pytest

import lexbench.run.record
from lexbench.dataset.suite import load_suite
from lexbench.errors import RunError
from lexbench.providers import RuntimePolicy, build_provider, call_provider, default_config
from lexbench.providers.guard import NetworkGuard
from lexbench.answer import ProviderResult
from lexbench.run.record import checked_rows, count_tokens, read_manifest
from lexbench.report.render import render_terminal, write_reports
from lexbench.run.manifest import Certification
from lexbench.run.session import RunRequest, RunSession
from lexbench.scoring.evaluate import evaluate_response
from lexbench.run.shard import Shard
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # opens real runs (git for the code state) or a fresh interpreter

PROVIDERS = "reference-echo,trafilatura"
MANIFEST_FIELDS = ["argv", "suite", "providers", "provider_selection", "provider_config", "runtime_policy",
                   "fetch_timeout_s", "mode", "configuration", "configuration_sha256", "run", "certification",
                   "versions", "host", "code", "sessions", "started", "finished", "completion"]
REPORTS = ("report.md", "report.html", "report.json")


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("tiny") / "suite", ARTICLES[:2])))


def request(suite, tmp_path, providers: str = PROVIDERS, **options) -> RunRequest:
    config = default_config()
    specs = {spec.name: spec for spec in config.select(providers)}
    return RunRequest(suite=suite, specs=specs, provider_config=config, policy=RuntimePolicy(),
                      project_root=tmp_path, invocation_dir=tmp_path, provider_selection=providers,
                      argv=["pytest", "cases"], **options)


def answers(suite):
    """Per case: the control's answer (passes) and a made-up trafilatura answer that misses the page."""
    control = build_provider(default_config().select("reference-echo")[0], guard=NetworkGuard.allowing())
    for case in suite.cases:
        yield case, "reference-echo", call_provider(control, case, case.url, RuntimePolicy())
        yield case, "trafilatura", ProviderResult(success=True, content="Subscribe today.\n", content_format="markdown")


def test_a_session_writes_the_run_directory_lexbench_report_rebuilds(suite, tmp_path):
    session = RunSession.open(request(suite, tmp_path, run_dir="run"))
    run_dir = tmp_path / "run"
    opened = json.loads((run_dir / "manifest.json").read_text())  # before any item: no end, no completion
    assert list(opened) == MANIFEST_FIELDS[:-1] and opened["finished"] is None
    assert opened["sessions"][0]["finished"] is None
    for case, provider, answer in answers(suite):
        session.record(case, provider, answer, evaluate_response(case, answer))
    summary = session.finish(write_reports, render_terminal)
    session.close()
    assert session.run_dir == run_dir
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(
        ["manifest.json", "results.jsonl", "responses", "session.lock", *REPORTS])

    text = (run_dir / "manifest.json").read_text()
    manifest = json.loads(text)
    assert text == json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    assert list(manifest) == MANIFEST_FIELDS
    assert read_manifest(run_dir) == manifest  # the reading side accepts what the writing side wrote
    assert manifest["providers"] == ["reference-echo", "trafilatura"]
    assert manifest["suite"]["id"] == suite.id and manifest["suite"]["cases"] == 2
    assert manifest["run"] == {"measure_only": False, "certified_requested": False, "shard": None}
    assert manifest["certification"] is None and manifest["mode"] == "replay"
    assert manifest["completion"] == {"expected": 4, "recorded": 4, "missing": 0}
    [entry] = manifest["sessions"]
    assert list(entry) == ["started", "finished", "argv", "resumed_with", "workers", "worker_cpus"]
    assert entry["finished"] == manifest["finished"] and manifest["started"] == entry["started"]

    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [(r["case"], r["provider"], r["outcome"]) for r in rows] == [
        (case.id, provider, outcome) for case in suite.cases
        for provider, outcome in (("reference-echo", "pass"), ("trafilatura", "fail"))]
    assert {(r["dataset_sha256"], r["configuration_sha256"]) for r in rows} == {
        (suite.dataset_sha256, manifest["configuration_sha256"])}
    made_up = rows[1]
    assert made_up["content_chars"] == len("Subscribe today.\n")
    assert made_up["content_tokens"] == count_tokens("Subscribe today.\n")
    saved = run_dir / "responses" / f"{made_up['response_sha256']}.txt"
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == made_up["response_sha256"]
    assert saved.read_text() == "Subscribe today.\n"

    # The reports are exactly what `lexbench report RUN` builds from the manifest and rows.
    written = {name: (run_dir / name).read_bytes() for name in REPORTS}
    write_reports(run_dir, *reversed(checked_rows(run_dir)))
    assert {name: (run_dir / name).read_bytes() for name in REPORTS} == written
    titles = [line.text for line in summary if line.section]
    assert titles == ["lexbench leaderboard"]
    assert summary[-1].text.startswith(f"run record: {run_dir} (4 items;")



def test_completion_counts_the_selected_items_and_certification_the_whole_plan(suite, tmp_path):
    session = RunSession.open(request(suite, tmp_path, run_dir="run"))
    session.manifest.certification = Certification(checks=[], tree={})  # as --certified opens it
    first = suite.cases[0]
    session.add_test_provider("mine", "test_user.py::test_mine")
    control = build_provider(default_config().select("reference-echo")[0], guard=NetworkGuard.allowing())
    answer = call_provider(control, first, first.url, RuntimePolicy())
    row = session.record(first, "reference-echo", answer, evaluate_response(first, answer))
    session.append_json(row.model_copy(update={"provider": "mine"}).model_dump_json())  # as the user's test sends it
    # The whole plan: 2 cases × (2 selected providers + the user's test).
    assert session.planned_items() == {f"{case.id}[{p}]" for case in suite.cases
                                       for p in ("reference-echo", "trafilatura", "mine")}
    selected = [f"{first.id}[reference-echo]", f"{first.id}[mine]"]  # what -k left
    session.finish(write_reports, render_terminal, selected)
    session.close()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["completion"] == {"expected": 2, "recorded": 2, "missing": 0}
    assert manifest["certification"]["certified"] is False
    assert manifest["certification"]["problems"] == [
        f"4 item(s) of the suite's cases × providers have no result; finish them with --resume={tmp_path / 'run'}"]

def test_a_crashed_item_is_a_fail_of_class_crashed_and_unknown_items_are_ignored(suite, tmp_path):
    session = RunSession.open(request(suite, tmp_path, run_dir="run"))
    case = suite.cases[0]
    row = session.record_crash(f"lexbench::{case.id}[trafilatura]", "worker 'gw1' crashed")
    assert session.record_crash("lexbench::no-such-case[trafilatura]", "x") is None
    assert session.record_crash(f"lexbench::{case.id}[not-selected]", "x") is None
    session.finish(write_reports, render_terminal)
    session.close()
    [written] = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert written == json.loads(row.model_dump_json())
    assert (written["outcome"], written["failure_class"], written["error_type"]) == ("fail", "crashed", "crashed")
    assert written["explanation"] == "fail: the item ended without a verdict (worker 'gw1' crashed)"
    assert written["latency_s"] is None and written["content_chars"] == 0 and written["flags"] == list(case.flags)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["completion"] == {"expected": 4, "recorded": 1, "missing": 3}


def test_a_resumed_session_keeps_the_first_session_and_runs_only_what_is_missing(suite, tmp_path):
    first = RunSession.open(request(suite, tmp_path, run_dir="run"))
    case, provider, answer = next(answers(suite))
    first.record(case, provider, answer, evaluate_response(case, answer))
    first.finish(write_reports, render_terminal)
    first.close()
    before = json.loads((tmp_path / "run" / "manifest.json").read_text())

    resumed = RunSession.open(request(suite, tmp_path, resume="run"))
    assert resumed.completed == {f"{case.id}[{provider}]"}
    resumed.finish(write_reports, render_terminal)
    resumed.close()
    after = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert after["sessions"][0] == before["sessions"][0] and after["started"] == before["started"]
    assert after["sessions"][1]["resumed_with"] == 1
    assert list(after) == MANIFEST_FIELDS


def test_refusals_are_run_errors_that_leave_the_directory_free(suite, tmp_path):
    with pytest.raises(RunError, match="exclude each other"):
        RunSession.open(request(suite, tmp_path, run_dir="run", measure_only=True, certified=True))
    session = RunSession.open(request(suite, tmp_path, run_dir="run"))
    with pytest.raises(RunError, match="session"):  # the first session holds the directory
        RunSession.open(request(suite, tmp_path, resume="run"))
    case, provider, answer = next(answers(suite))
    session.record(case, provider, answer, evaluate_response(case, answer))
    session.finish(write_reports, render_terminal)
    session.close()
    with pytest.raises(RunError, match="already holds results"):
        RunSession.open(request(suite, tmp_path, run_dir="run"))
    with pytest.raises(RunError, match="configuration sha256"):
        RunSession.open(request(suite, tmp_path, providers="reference-echo", resume="run"))
    with pytest.raises(RunError, match="name different directories"):
        RunSession.open(request(suite, tmp_path, run_dir="other", resume="run"))
    with pytest.raises(RunError, match="shard"):
        RunSession.open(request(suite, tmp_path, resume="run", shard=Shard.parse("1/2")))
    RunSession.open(request(suite, tmp_path, resume="run")).close()  # every refusal released the lock


def test_a_row_that_cannot_be_written_stops_the_run_and_says_how_to_resume(suite, tmp_path, monkeypatch):
    session = RunSession.open(request(suite, tmp_path, run_dir="run"))
    case, provider, answer = next(answers(suite))

    def disk_full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lexbench.run.record.os, "write", disk_full)
    with pytest.raises(RunError, match="No space left on device"):
        session.record(case, provider, answer, evaluate_response(case, answer))
    monkeypatch.undo()
    with pytest.raises(RunError):  # every later row fails the same way
        session.append_json("{}")
    summary = session.finish(write_reports, render_terminal)
    session.close()
    assert [line.text for line in summary if line.section] == ["lexbench run record"]
    assert summary[1].red and "the run stopped" in summary[1].text and f"--resume={tmp_path / 'run'}" in summary[1].text
    assert not any((tmp_path / "run" / name).exists() for name in REPORTS)
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["completion"]["recorded"] == 0


def test_a_measure_only_session_writes_no_report(suite, tmp_path):
    session = RunSession.open(request(suite, tmp_path, run_dir="run", measure_only=True))
    for case, provider, answer in answers(suite):
        session.record(case, provider, answer, evaluate_response(case, answer))
    summary = session.finish(write_reports, render_terminal)
    session.close()
    assert not any((tmp_path / "run" / name).exists() for name in REPORTS)
    assert [line.text for line in summary] == [
        "lexbench measure-only run",
        f"4 scored items in {tmp_path / 'run'} (results.jsonl, responses/); no report built — "
        f"lexbench report {tmp_path / 'run'} builds one"]
