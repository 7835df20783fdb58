"""A user's own fetcher as one test function on the plugin's fixtures, recorded like a built-in provider
(issue 20 item 2; README "Your own fetcher"). The user's project is a pytester directory."""

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest

OPEN_RUN = ("--lexbench",)
"""What turns the benchmark on for these runs (lexbench.plugin.state.benchmark_requested)."""

ONE_CASE = ("--providers=reference-echo", "-k", "carrick")
CASE = "article-001-en-carrick-tidal-array"

USER_TESTS = '''
    import html
    import time

    import pytest

    import lexbench
    from lexbench.answer import ErrorType


    def reviewed(case):
        return [case.title, case.reference_text, *[p for g in case.stable_groups for p in g.phrases]]


    def test_text_fetcher(lexbench_case, fetch_timeout):
        time.sleep(0.05)
        lexbench.assert_passes(lexbench_case, "\\n".join(reviewed(lexbench_case)), format="text")


    def test_markdown_fetcher(lexbench_case):
        body = "\\n\\n".join(line for line in "\\n".join(reviewed(lexbench_case)[1:]).split("\\n") if line)
        lexbench.assert_passes(lexbench_case, f"# {lexbench_case.title}\\n\\n{body}")


    def test_html_fetcher(lexbench_case):
        lines = "\\n".join(reviewed(lexbench_case)[1:]).split("\\n")
        body = "".join(f"<p>{html.escape(line)}</p>" for line in lines if line)
        title = html.escape(lexbench_case.title)
        lexbench.assert_passes(lexbench_case, f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>")


    def test_terse_fetcher(lexbench_case):
        lexbench.assert_passes(lexbench_case, "Nothing about tides here.")


    @pytest.mark.lexbench_provider_name("acme-api")
    def test_hosted(lexbench_case):
        lexbench.assert_passes(lexbench_case, lexbench.ProviderResult.failure(
            ErrorType.MISSING_CREDENTIALS, "ACME_KEY is unset"))


    def test_result_fetcher(lexbench_case):
        lexbench.assert_passes(lexbench_case, lexbench.ProviderResult(
            success=True, content="\\n".join(reviewed(lexbench_case)), content_format="text", latency_s=1.5))


    def test_broken_fetcher(lexbench_case):
        raise ConnectionError("acme.example refused the connection")
'''


@pytest.fixture
def project(pytester):
    """A user's project, the plugin loaded from its entry point and the benchmark off until ``--lexbench``."""
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    return pytester


def rows_of(run_dir):
    return {(row["case"], row["provider"]): row
            for row in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())}


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
def test_a_users_fetcher_is_scored_and_recorded_like_a_built_in_provider(project):
    project.makepyfile(test_user=textwrap.dedent(USER_TESTS))
    run_dir = project.path / "run"
    result = project.runpytest(*OPEN_RUN, "test_user.py", *ONE_CASE, f"--run-dir={run_dir}", "-rA",
                               f"--junitxml={project.path / 'out.xml'}")
    result.assert_outcomes(passed=5, failed=2, skipped=1)
    output = result.stdout.str()

    # The verdict is the outcome; a failure shows its explanation, not a traceback into lexbench.
    recorded = rows_of(run_dir)
    terse = recorded[(CASE, "terse_fetcher")]
    assert terse["outcome"] == "fail" and terse["explanation"].startswith("fail: ")
    assert f"test_terse_fetcher[{CASE}]" in output and terse["explanation"] in output
    assert "lexbench/run/fetcher.py" not in output and "def assert_passes" not in output
    assert "SKIPPED [1] test_user.py:" in output and "unresolvable: " in output and "ACME_KEY is unset" in output

    # Rows: one per case × test, named after the function (or its mark), formats sniffed or given.
    assert {provider for _, provider in recorded} == {
        "reference-echo", "text_fetcher", "markdown_fetcher", "html_fetcher", "terse_fetcher", "acme-api",
        "result_fetcher", "broken_fetcher"}
    assert all(case == CASE for case, _ in recorded)
    assert [recorded[(CASE, p)]["content_format"] for p in ("text_fetcher", "markdown_fetcher", "html_fetcher")] == [
        "text", "markdown", "html"]
    assert all(recorded[(CASE, p)]["outcome"] == "pass" for p in ("text_fetcher", "markdown_fetcher", "html_fetcher"))
    assert recorded[(CASE, "acme-api")]["outcome"] == "unresolvable"
    assert recorded[(CASE, "text_fetcher")]["latency_s"] >= 0.05  # measured around the call: it slept first
    assert recorded[(CASE, "result_fetcher")]["latency_s"] == 1.5  # a result's own latency is kept
    broken = recorded[(CASE, "broken_fetcher")]
    assert broken["outcome"] == "fail" and broken["failure_class"] == "crashed"
    assert "ConnectionError: acme.example refused the connection" in broken["explanation"]
    assert recorded[(CASE, "text_fetcher")]["output_contract"] == "cleaned"

    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["test_providers"]["acme-api"] == "test_user.py::test_hosted"
    assert set(manifest["providers"]) == {provider for _, provider in recorded}
    report = json.loads((run_dir / "report.json").read_text())
    listed = {p["provider"] for board in report["leaderboards"] for p in board["providers"]}
    assert {"text_fetcher", "acme-api", "broken_fetcher"} <= listed
    assert "text_fetcher" in output.split("lexbench leaderboard", 1)[1]
    suite_xml = ET.parse(project.path / "out.xml").getroot().find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite_xml.find("properties").iter("property")}
    assert props[f"lexbench/{CASE}[markdown_fetcher]/outcome"] == "pass"
    assert not [c for c in suite_xml.iter("testcase") if c.find("properties") is not None]  # valid xunit2


@pytest.mark.slow  # the replay server and a run
def test_the_fixtures_give_the_replay_url_the_timeout_a_built_provider_and_the_run(project):
    project.makepyfile(test_fetch='''
        import httpx
        import lexbench

        def test_httpx_fetcher(lexbench_case, fetch_timeout, lexbench_run, lexbench_provider):
            assert fetch_timeout == 12.5
            assert lexbench_run.directory.name == "run" and lexbench_run.suite.id == "demo"
            assert lexbench_case.url.startswith("http://127.0.0.1:") and lexbench_case.original_url.startswith("https://")
            trafilatura = lexbench_provider("trafilatura")
            assert trafilatura is lexbench_provider("trafilatura")  # built once per process
            extracted = trafilatura.fetch(lexbench_case.case, fetch_timeout, lexbench_case.url)
            assert extracted.success and "Carrick" in extracted.content
            page = httpx.get(lexbench_case.url, timeout=fetch_timeout)
            lexbench.assert_passes(lexbench_case, page.text, format="html")
    ''')
    result = project.runpytest(*OPEN_RUN, "test_fetch.py", *ONE_CASE, f"--run-dir={project.path / 'run'}",
                               "--fetch-timeout=12.5")
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") is None and outcomes["passed"] + outcomes.get("failed", 0) == 2, result.stdout.str()
    row = rows_of(project.path / "run")[(CASE, "httpx_fetcher")]
    assert row["content_format"] == "html" and row["content_chars"] > 1000 and row["latency_s"] > 0


@pytest.mark.slow  # pytest-xdist workers are processes
def test_with_two_workers_the_rows_reach_the_controller(project, tmp_path_factory):
    project.makepyfile(test_user=textwrap.dedent(USER_TESTS))
    serial, parallel = (tmp_path_factory.mktemp("runs") / name for name in ("serial", "parallel"))
    for run_dir, workers in ((serial, "0"), (parallel, "2")):
        result = project.runpytest_subprocess(*OPEN_RUN, "test_user.py", *ONE_CASE, f"--run-dir={run_dir}",
                                              "-n", workers)
        result.assert_outcomes(passed=5, failed=2, skipped=1)

    timings = ("latency_s", "attempts", "started_at", "finished_at")

    def comparable(run_dir):  # everything but the timings
        return {item: {key: value for key, value in row.items() if key not in timings}
                for item, row in rows_of(run_dir).items()}

    assert comparable(parallel) == comparable(serial) and len(comparable(serial)) == 8
    for run_dir in (serial, parallel):  # the workers tell the controller what they selected
        completion = json.loads((run_dir / "manifest.json").read_text())["completion"]
        assert completion == {"expected": 8, "recorded": 8, "missing": 0}
    assert json.loads((parallel / "manifest.json").read_text())["test_providers"].keys() == {
        "text_fetcher", "markdown_fetcher", "html_fetcher", "terse_fetcher", "acme-api", "result_fetcher",
        "broken_fetcher"}
    assert (parallel / "report.json").is_file()


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
def test_a_provider_name_taken_twice_is_refused_before_any_item_runs(project):
    project.makepyfile(test_user='''
        import pytest

        @pytest.mark.lexbench_provider_name("reference-echo")
        def test_mine(lexbench_case):
            pass
    ''', test_other='''
        import pytest

        def test_acme(lexbench_case):
            pass

        @pytest.mark.lexbench_provider_name("acme")
        def test_second(lexbench_case):
            pass
    ''')
    result = project.runpytest(*OPEN_RUN, "test_user.py", "--providers=reference-echo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_user.py::test_mine: provider name 'reference-echo' is also a selected "
                                 "provider; mark the test @pytest.mark.lexbench_provider_name('another-name')*"])
    result = project.runpytest(*OPEN_RUN, "test_other.py", "--providers=reference-echo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_other.py::test_second and test_other.py::test_acme both record as provider "
                                 "'acme'*"])
    assert not (project.path / "runs").exists()  # a refused session leaves no run directory


def test_a_users_test_parametrized_beyond_the_cases_is_refused_before_any_item_runs(project):
    project.makepyfile(test_user='''
        import pytest
        import lexbench

        @pytest.mark.parametrize("mode", ["a", "b"])
        def test_variants(lexbench_case, mode):
            lexbench.assert_passes(lexbench_case, "text")
    ''')
    result = project.runpytest(*OPEN_RUN, "test_user.py", "--providers=reference-echo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_user.py::test_variants: parametrized over mode as well as the cases, so each "
                                 "variant would record the same case under provider 'variants'*"])
    assert not (project.path / "runs").exists()


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
def test_a_users_test_that_gives_no_answer_fails_and_is_recorded(project):
    project.makepyfile(test_user='''
        def test_forgetful(lexbench_case):
            pass
    ''')
    run_dir = project.path / "run"
    result = project.runpytest(*OPEN_RUN, "test_user.py", *ONE_CASE, f"--run-dir={run_dir}", "-rf")
    result.assert_outcomes(failed=1, passed=1)  # reference-echo's item passes
    assert "call lexbench.assert_passes(lexbench_case, answer) once" in result.stdout.str()
    row = rows_of(run_dir)[(CASE, "forgetful")]
    assert row["outcome"] == "fail" and "returned without an answer" in row["explanation"]


def test_with_the_benchmark_off_a_users_test_is_skipped_with_how_to_turn_it_on(project):
    project.makepyfile(test_user='''
        import lexbench

        def test_mine(lexbench_case):
            lexbench.assert_passes(lexbench_case, "text")
    ''')
    result = project.runpytest("test_user.py", "-rs")
    result.assert_outcomes(skipped=1)  # off, lexbench loads no suite: the test is not parametrized over its cases
    assert ("SKIPPED [1] test_user.py:3: lexbench is off in this session: pass --lexbench (or set `lexbench = "
            "true` in the ini file)" in result.stdout.str())
    result = project.runpytest("test_user.py", "--collect-only", "-q")
    assert "test_user.py::test_mine" in result.outlines and "1 test collected" in result.stdout.str()
    assert not (project.path / "runs").exists()


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
def test_a_resumed_run_runs_only_the_cases_a_users_test_has_not_answered(project):
    project.makepyfile(test_user='''
        import lexbench

        def test_echo(lexbench_case):
            lexbench.assert_passes(lexbench_case, lexbench_case.title or "untitled")
    ''')
    run_dir = project.path / "run"
    project.runpytest(*OPEN_RUN, "test_user.py", *ONE_CASE, f"--run-dir={run_dir}").assert_outcomes(passed=1, failed=1)
    result = project.runpytest(*OPEN_RUN, "test_user.py", "--providers=reference-echo", "-k", "carrick or sella",
                               f"--resume={run_dir}")
    result.assert_outcomes(passed=1, failed=1, deselected=28)  # the carrick items are already recorded
    assert sorted(rows_of(run_dir)) == sorted((case, provider) for case in (CASE, "forum-016-en-sella-bar-tides")
                                              for provider in ("reference-echo", "echo"))
    assert json.loads((run_dir / "manifest.json").read_text())["test_providers"] == {"echo": "test_user.py::test_echo"}


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
def test_completion_counts_the_items_selected_not_those_k_deselected(project):
    project.makepyfile(test_user='''
        import lexbench

        def test_my_fetcher(lexbench_case):
            lexbench.assert_passes(lexbench_case, lexbench_case.title or "untitled")
    ''')
    run_dir = project.path / "run"
    result = project.runpytest(*OPEN_RUN, "test_user.py", "--providers=reference-echo", "-k", "my_fetcher",
                               f"--run-dir={run_dir}")
    outcomes = result.parseoutcomes()
    assert outcomes["deselected"] == 15 and outcomes.get("passed", 0) + outcomes.get("failed", 0) == 15
    recorded = rows_of(run_dir)
    assert len(recorded) == 15 and {provider for _, provider in recorded} == {"my_fetcher"}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["completion"] == {"expected": 15, "recorded": 15, "missing": 0}

    # A resume without -k selects the suite's items too: the run now expects both providers' items.
    result = project.runpytest(*OPEN_RUN, "test_user.py", "--providers=reference-echo", f"--resume={run_dir}")
    assert result.parseoutcomes()["deselected"] == 15  # the user's test's items are already recorded
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["completion"] == {"expected": 30, "recorded": 30, "missing": 0} and len(rows_of(run_dir)) == 30


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
def test_shards_deal_a_users_test_by_case_and_merge(project, tmp_path):
    from lexbench.run.record import merge_runs

    project.makepyfile(test_user='''
        import lexbench

        def test_echo(lexbench_case):
            lexbench.assert_passes(lexbench_case, lexbench_case.title or "untitled")
    ''')
    shards = [project.path / f"shard{k}" for k in (1, 2)]
    for k, run_dir in enumerate(shards, 1):
        result = project.runpytest(*OPEN_RUN, "test_user.py", "--providers=reference-echo", "-k", "carrick or rooftop",
                                   f"--shard={k}/2", f"--run-dir={run_dir}")
        result.assert_outcomes(passed=1, failed=1, deselected=28)
        assert len(rows_of(run_dir)) == 2  # one case of the two each, by the suite's item and the user's test
        completion = json.loads((run_dir / "manifest.json").read_text())["completion"]
        assert completion == {"expected": 2, "recorded": 2, "missing": 0}
    merged = merge_runs(shards, tmp_path / "merged")
    assert merged["providers"] == ["reference-echo", "echo"]
    assert sorted(rows_of(tmp_path / "merged")) == sorted(
        (case, provider) for case in (CASE, "article-002-zh-rooftop-gardens") for provider in ("reference-echo", "echo"))
