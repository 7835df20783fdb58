"""Attacks on the run directory and its reports (issue 19, items 6–10): two sessions on one directory,
links and foreign files in it, paths smuggled through rows, tampered rows and manifests, and HTML or
links from an answer reaching ``report.md``. Each test is marked ``attack`` with its item number and
counted under "reliability figures"."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from lexbench.cli import main as lexbench
from lexbench.errors import RunError
from lexbench.run.record import RunRecorder, RunRow, checked_rows, load_rows, merge_runs, save_response, write_manifest
from lexbench.report.render import render_markdown
from lexbench.run.rundir import LOCK_NAME, RunLock
from lexbench.verdict import Outcome
from tests.suite_factory import ARTICLES, write_suite

HEX = "d" * 64

# Every answer waits for the test's go-ahead (a file), so whichever session wins the lock is still
# running when the other one starts: a wait on the event, not on a duration.
GATED_ECHO = '''
import os, time
from lexbench.providers.local import ReferenceEcho

_fetch = ReferenceEcho.fetch


def _gated(self, case, timeout, url):
    deadline = time.monotonic() + 25
    while not os.path.exists(os.environ["LEXBENCH_TEST_GO"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _fetch(self, case, timeout, url)


ReferenceEcho.fetch = _gated
'''


def manifest(**fields):
    data = {"suite": {"id": "tiny", "dataset_sha256": HEX, "path": "/suites/tiny"}, "providers": ["a", "b"],
            "configuration": {"mode": "replay"}, "configuration_sha256": HEX,
            "run": {"shard": None, "measure_only": False, "certified_requested": False},
            "certification": None, "sessions": [{"started": "2026-01-01T00:00:00+00:00"}],
            "started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:01:00+00:00"}
    data.update(fields)
    return data


def row(case="c1", provider="a", **fields):
    data = dict(suite="tiny", case=case, provider=provider, output_contract="cleaned", category="article",
                track="body", lang="en", outcome=Outcome.FAIL, failure_class="regions", explanation="fail: short",
                dataset_sha256=HEX, configuration_sha256=HEX)
    data.update(fields)
    return RunRow(**data)


def make_run(path: Path, rows=(), **fields) -> Path:
    write_manifest(path, manifest(**fields))
    recorder = RunRecorder(path)
    for r in rows:
        recorder.append(r)
    recorder.close()
    return path


def append_line(run: Path, line: str) -> None:
    with open(run / "results.jsonl", "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


@pytest.fixture
def project(pytester):  # type: ignore[no-untyped-def]
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    return pytester


# --- item 6: one session per run directory --------------------------------------------------------

@pytest.mark.slow
@pytest.mark.attack(item=6)
def test_two_sessions_started_together_one_runs_the_other_names_it_and_stops(project, tmp_path):
    project.makeconftest(GATED_ECHO)
    suite = write_suite(project.path / "suite", ARTICLES)
    run, go = tmp_path / "run", tmp_path / "go"
    command = [sys.executable, "-m", "pytest", f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}",
               "-p", "no:randomly", "-q"]
    env = {**os.environ, "LEXBENCH_TEST_GO": str(go)}
    sessions = [subprocess.Popen(command, cwd=project.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, start_new_session=True) for _ in range(2)]
    try:
        # The loser stops before running any item; the winner waits for the go-ahead meanwhile.
        deadline = time.monotonic() + 300
        while all(s.poll() is None for s in sessions) and time.monotonic() < deadline:
            time.sleep(0.05)
        loser = next(s for s in sessions if s.poll() is not None)
        winner = next(s for s in sessions if s is not loser)
        output = loser.communicate()[0]
        go.touch()
        winner_output = winner.communicate(timeout=300)[0]
    finally:
        go.touch()
        for s in sessions:
            if s.poll() is None:
                os.killpg(s.pid, signal.SIGKILL)
                s.wait()
    assert loser.returncode == pytest.ExitCode.USAGE_ERROR, output
    assert "another session is using this run directory" in output and f"pid {winner.pid} " in output, output
    assert "--run-dir" in output and "passed" not in output
    assert winner.returncode == pytest.ExitCode.OK, winner_output
    items = [r.item_id for r in load_rows(run)]
    assert len(items) == len(set(items)) == 2
    assert lexbench(["report", str(run)]) == 0  # reportable
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--resume={run}")
    assert result.ret == pytest.ExitCode.OK  # resumable: every item is recorded, none runs again, and that is done
    assert "resumed: 2 items already recorded" in result.stdout.str()


@pytest.mark.slow
@pytest.mark.attack(item=6)
def test_a_lock_left_by_a_killed_session_does_not_block(tmp_path):
    run = make_run(tmp_path / "run", [row()])
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                               "from lexbench.run.rundir import RunLock; RunLock(Path(sys.argv[1])).acquire(); "
                               "print('held', flush=True); time.sleep(600)", str(run)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RunError, match=rf"another session is using this run directory \(pid {holder.pid} on "):
            RunLock(run).acquire()
        assert lexbench(["report", str(run)]) == 2  # a report is not rebuilt under a running session either
    finally:
        holder.kill()
        holder.wait()
    assert json.loads((run / LOCK_NAME).read_text())["pid"] == holder.pid  # the dead holder's record stays
    with RunLock(run):
        pass
    assert lexbench(["report", str(run)]) == 0


# --- item 7: a run directory is trusted only as lexbench leaves it ---------------------------------

@pytest.mark.attack(item=7)
@pytest.mark.parametrize("planted", ["results.jsonl", "manifest.json", "report.md", "responses", "responses/x.txt",
                                     "run directory"])
def test_a_link_in_a_run_directory_is_refused_and_its_target_untouched(tmp_path, capsys, planted):
    run = make_run(tmp_path / "run", [row(response_sha256=save_response(tmp_path / "run", "answer"))])
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret.txt").write_text("keep me\nlast line")
    target = victim if planted == "responses" else victim / "secret.txt"
    if planted == "run directory":
        link = tmp_path / "linked-run"
        link.symlink_to(run)
    else:
        link = run / planted
        if link.is_dir():
            for child in link.iterdir():
                child.unlink()
            link.rmdir()
        elif link.exists():
            link.unlink()
        link.symlink_to(target)
    assert lexbench(["report", str(tmp_path / "linked-run" if planted == "run directory" else run)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert (victim / "secret.txt").read_text() == "keep me\nlast line"
    assert sorted(p.name for p in victim.iterdir()) == ["secret.txt"]


@pytest.mark.attack(item=7)
def test_debug_logs_may_nest_but_not_link_out(tmp_path, capsys):
    run = make_run(tmp_path / "run", [row()])
    (run / "debug" / "exa" / "c1").mkdir(parents=True)
    (run / "debug" / "exa" / "c1" / "attempt-1-01.json").write_text("{}")
    assert lexbench(["report", str(run)]) == 0
    (tmp_path / "elsewhere").mkdir()
    (run / "debug" / "exa" / "c2").symlink_to(tmp_path / "elsewhere")
    assert lexbench(["report", str(run)]) == 2
    assert f"{run / 'debug' / 'exa' / 'c2'}: is a symbolic link" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.attack(item=7)
def test_a_new_session_refuses_a_file_a_foreign_directory_and_a_linked_results_file(project, tmp_path):
    suite = write_suite(project.path / "suite", ARTICLES[:1])
    base = [f"--suite={suite}", "--providers=reference-echo"]
    a_file = tmp_path / "notes.txt"
    a_file.write_text("my notes")
    foreign = tmp_path / "project"
    foreign.mkdir()
    (foreign / "manifest.json").write_text('{"name": "another tool", "version": 3}')
    (foreign / "report.md").write_text("# someone else's report")
    outside = tmp_path / "outside.jsonl"
    outside.write_text("line one\nline two")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "results.jsonl").symlink_to(outside)
    as_directory = make_run(tmp_path / "dir-results")
    (as_directory / "results.jsonl").unlink()
    (as_directory / "results.jsonl").mkdir()
    for run_option, message in [(f"--run-dir={a_file}", "exists and is not a directory"),
                                (f"--run-dir={foreign}", "not a lexbench run manifest"),
                                (f"--run-dir={linked}", "symbolic link"),
                                (f"--resume={as_directory}", "results.jsonl: is not a regular file")]:
        result = project.runpytest_subprocess(*base, run_option)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stderr.str()
        assert message in result.stderr.str() and "INTERNALERROR" not in result.stderr.str() + result.stdout.str()
    assert a_file.read_text() == "my notes" and outside.read_text() == "line one\nline two"
    assert (foreign / "report.md").read_text() == "# someone else's report"
    assert sorted(p.name for p in foreign.iterdir()) == ["manifest.json", "report.md"]


@pytest.mark.slow
@pytest.mark.attack(item=7)
@pytest.mark.parametrize("planted", ["results.jsonl", "served-fetches.jsonl"])
def test_a_hard_linked_file_in_a_new_run_directory_is_refused_and_its_other_name_untouched(project, tmp_path,
                                                                                           planted):
    """A hard link is no symbolic link, but appending to it writes the file outside the run directory
    (rows appended to it, its torn last line cut)."""
    suite = write_suite(project.path / "suite", ARTICLES[:1])
    outside = tmp_path / "outside.jsonl"
    outside.write_text("precious line one\nprecious torn")
    run = tmp_path / "run"
    run.mkdir()
    os.link(outside, run / planted)
    result = project.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    assert f"{run / planted}: has 2 names (a hard link)" in result.stderr.str()
    assert outside.read_text() == "precious line one\nprecious torn"


@pytest.mark.attack(item=7)
def test_reports_without_a_manifest_of_ours_are_not_overwritten(tmp_path, capsys):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "report.html").write_text("<p>another tool's page</p>")
    (folder / "results.jsonl").write_text(row().model_dump_json() + "\n")
    assert lexbench(["report", str(folder)]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    assert (folder / "report.html").read_text() == "<p>another tool's page</p>"
    write_manifest(folder, {"name": "another tool"})
    assert lexbench(["report", str(folder)]) == 2
    assert "not a lexbench run manifest" in capsys.readouterr().err


# --- item 8: fields that become paths -------------------------------------------------------------

@pytest.mark.attack(item=8)
@pytest.mark.parametrize("smuggled", ["../../victim/secret", "/etc/hostname", HEX.upper(), HEX + "\n", "a" * 63])
def test_merge_copies_nothing_from_outside_the_shards(tmp_path, capsys, smuggled):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret.txt").write_text("private")
    s1 = make_run(tmp_path / "runs" / "s1", [row("c1")], run={"shard": "1/2"})
    s2 = make_run(tmp_path / "runs" / "s2", [row("c2")], run={"shard": "2/2"})
    forged = row("c3").model_dump(mode="json") | {"response_sha256": smuggled}
    append_line(s2, json.dumps(forged))
    output = tmp_path / "runs" / "merged"
    assert lexbench(["report", "--merge", str(s1), str(s2), "--output", str(output)]) == 2
    error = capsys.readouterr().err
    assert "results.jsonl" in error and "line 2: field response_sha256" in error
    assert not output.exists()
    found = [p for p in tmp_path.rglob("*") if p.name == "secret.txt"]
    assert found == [victim / "secret.txt"]


# --- item 9: tampered rows and manifests ----------------------------------------------------------

@pytest.mark.attack(item=9)
@pytest.mark.parametrize(("tamper", "field"), [
    (lambda r: r | {"provider": "never-ran"}, "field provider: 'never-ran' is not a provider of this run"),
    (lambda r: r | {"latency_s": "__INF__"}, "field latency_s is not a finite number"),
    (lambda r: r | {"latency_s": "__NAN__"}, "line 2: field latency_s is not a finite number"),
    (lambda r: r | {"components": [{"name": "regions", "passed": False, "measured": "__INF__"}]},
     "field components.0.measured is not a finite number"),
    (lambda r: r | {"dataset_sha256": "not-a-hash"}, "field dataset_sha256"),
])
def test_a_tampered_row_is_refused_naming_file_line_and_field(tmp_path, capsys, tamper, field):
    run = make_run(tmp_path / "run", [row("c1")])
    text = json.dumps(tamper(row("c2").model_dump(mode="json")))
    append_line(run, text.replace('"__INF__"', "1e999").replace('"__NAN__"', "NaN"))
    append_line(run, row("c3").model_dump_json())
    assert lexbench(["report", str(run)]) == 2
    error = capsys.readouterr().err
    assert f"{run / 'results.jsonl'}: 1 line(s)" in error and "line 2" in error and field in error, error
    assert not (run / "report.md").exists()


@pytest.mark.attack(item=9)
@pytest.mark.parametrize(("fields", "named"), [
    ({"certification": ["certified"]}, "field certification"),
    ({"fetch_timeout_s": "__INF__"}, "field fetch_timeout_s is not a finite number"),
    ({"run": {"shard": "one/two"}}, "field run.shard"),
    ({"providers": "a,b"}, "field providers"),
])
def test_a_tampered_manifest_is_refused_naming_the_field(tmp_path, capsys, fields, named):
    run = make_run(tmp_path / "run", [row("c1")])
    text = json.dumps(manifest(**fields)).replace('"__INF__"', "1e999")
    (run / "manifest.json").write_text(text)
    assert lexbench(["report", str(run)]) == 2
    error = capsys.readouterr().err
    assert str(run / "manifest.json") in error and named in error and "Traceback" not in error, error
    with pytest.raises(RunError, match=named.replace(".", r"\.")):
        checked_rows(run)


# --- item 10: report.md shows what providers and cases supply as text -----------------------------

HOSTILE = [
    "<script>alert(document.cookie)</script>",
    "[click here](javascript:alert(1))",
    "![pixel](https://tracker.example/p.gif)",
    "<img src=x onerror=alert(1)>",
    "<https://evil.example/>",
    "`code` | cell\nbreak &amp; &lt;b&gt; **bold** __under__ ~~gone~~",
    "[ref]: javascript:alert(1)\n[ref]",
]


@pytest.mark.attack(item=10)
@pytest.mark.parametrize("hostile", HOSTILE)
def test_report_md_renders_hostile_text_as_text(hostile):
    name = hostile.replace("\n", " ")
    rows = [row("c1", name, explanation=f"fail: the API said {hostile}", failure_class=hostile, flags=[hostile],
                category=hostile, response_sha256=HEX),
            row(f"case {hostile}", "b", outcome=Outcome.PASS, failure_class=None, explanation="pass")]
    markdown = render_markdown(rows, manifest(providers=[name, "b"]))
    # markdown-it with raw HTML allowed and no URL filter: the most permissive CommonMark renderer,
    # plus GFM tables (markdown-it alone drops javascript: links; other renderers do not).
    renderer = MarkdownIt("commonmark", {"html": True}).enable("table")
    renderer.validateLink = lambda url: True
    html = renderer.render(markdown)
    lowered = html.lower()
    assert "<script" not in lowered and "<img" not in lowered and 'href="javascript:' not in lowered
    assert 'href="https://evil' not in lowered and 'href="https://tracker' not in lowered
    assert "<strong>" not in lowered and "<del>" not in lowered
    links = [line for line in html.splitlines() if "<a href" in line]
    assert all('href="responses/' + HEX + '.txt"' in line for line in links)
    # The text itself survives, shown as text: one table cell per field, line breaks folded.
    import html as html_module

    shown = html_module.unescape(html)
    assert " ".join(f"the API said {hostile}".split()) in shown
