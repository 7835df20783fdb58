"""Every benchmark option has an ini twin with the same help; the command line wins over the ini file, the
ini file over the default; values are read and checked the same way from both, and a bad ini value is a
usage error naming its key and file (issue 20, item 4). Sessions run in-process with the control only."""

from __future__ import annotations

import json

import pytest

from lexbench.plugin.options import OPTIONS
from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture
def project(pytester):
    """A project whose ini file sits in ``conf/`` (so ini-relative and invocation-relative paths differ),
    with a cases/ directory and a two-case suite at ``suite/``."""
    (pytester.path / "cases").mkdir()
    (pytester.path / "conf").mkdir()
    write_suite(pytester.path / "suite", ARTICLES)
    return pytester


def _run(pytester, ini: str, *args: str):  # type: ignore[no-untyped-def]
    ini_path = pytester.path / "conf" / "pytest.ini"
    ini_path.write_text("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n" + ini)
    return pytester.runpytest("-c", str(ini_path), f"--rootdir={pytester.path}", "cases", *args)


def _manifest(run_dir) -> dict:  # type: ignore[no-untyped-def]
    return json.loads((run_dir / "manifest.json").read_text())


@pytest.mark.slow  # a session that opens its run reads git's state (the code's facts)
def test_ini_values_apply_with_paths_relative_to_the_ini_file(project):
    result = _run(project, "lexbench_suite = ../suite\nlexbench_providers = reference-echo\n"
                           "lexbench_run_dir = ../runs/from-ini\nlexbench_fetch_timeout = 12.5\n"
                           "lexbench_retries = 0\nlexbench_measure_only = true\n")
    result.assert_outcomes(passed=2)
    manifest = _manifest(project.path / "runs" / "from-ini")
    assert manifest["suite"]["id"] == "tiny" and manifest["providers"] == ["reference-echo"]
    assert manifest["fetch_timeout_s"] == 12.5 and manifest["runtime_policy"]["retries"] == 0
    assert manifest["run"]["measure_only"] is True
    assert not (project.path / "runs" / "from-ini" / "report.md").exists()  # measure-only: no report


@pytest.mark.slow  # a session that opens its run reads git's state (the code's facts)
def test_the_command_line_wins_over_the_ini_file_and_its_paths_are_relative_to_the_invocation(project):
    result = _run(project, "lexbench_suite = ../suite\nlexbench_providers = no-such-provider\n"
                           "lexbench_run_dir = ../runs/from-ini\nlexbench_fetch_timeout = 12.5\n",
                  "--providers=reference-echo", "--run-dir", "runs/from-cli", "--fetch-timeout=7")
    result.assert_outcomes(passed=2)
    manifest = _manifest(project.path / "runs" / "from-cli")
    assert manifest["fetch_timeout_s"] == 7 and manifest["providers"] == ["reference-echo"]
    assert not (project.path / "runs" / "from-ini").exists()


@pytest.mark.slow  # a session that opens its run reads git's state (the code's facts)
def test_defaults_apply_without_either(project):
    result = _run(project, "", "--suite=suite", "--providers=reference-echo", "--run-dir=r")
    result.assert_outcomes(passed=2)
    assert _manifest(project.path / "r")["fetch_timeout_s"] == 30


@pytest.mark.parametrize(("line", "reason"), [
    ("lexbench_fetch_timeout = soon", "expected a number, got 'soon'"),
    ("lexbench_fetch_timeout = inf", "positive, finite"),
    ("lexbench_retries = 1.5", "expected a whole number, got '1.5'"),
    ("lexbench_retries = 101", "retries must be"),
    ("lexbench_live = maybe", "expected true or false, got 'maybe'"),
    ("lexbench_shard = 3/2", "K must be between 1 and N"),
    ("lexbench_replay_public_url = ftp://frozen.example.org", "lexbench_replay_public_url"),
])
def test_a_bad_ini_value_is_a_usage_error_naming_the_key_and_the_file(project, line, reason):
    result = _run(project, f"lexbench_suite = ../suite\n{line}\n", "--run-dir=r")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    key = line.split(" =")[0]
    assert f"{key} in {project.path / 'conf' / 'pytest.ini'}: " in result.stderr.str()
    assert reason in result.stderr.str()
    assert not (project.path / "r").exists()


def test_a_bad_command_line_value_names_the_flag_the_same_way(project):
    result = _run(project, "lexbench_suite = ../suite\n", "--retries=1.5", "--run-dir=r")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--retries: expected a whole number, got '1.5'" in result.stderr.str()


def test_each_option_has_an_ini_twin_with_the_same_help(pytester):
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    shown = " ".join(pytester.runpytest("--help").stdout.str().split())  # help text is wrapped
    assert len(OPTIONS) == 13
    for option in OPTIONS:
        words = " ".join(option.help.split()[:6])
        assert shown.count(words) == 2, option.name  # once under the flag, once under the ini key
        assert f"{option.flag}" in shown and f"{option.ini} (" in shown


@pytest.mark.slow  # a session that opens its run reads git's state (the code's facts)
def test_a_run_without_pytest_xdist_loaded_writes_its_record(project):
    # The plugin implements xdist's hooks; with xdist unloaded they must be optional, not an INTERNALERROR.
    result = _run(project, "", "-p", "no:xdist", "--suite=suite", "--providers=reference-echo",
                  "--run-dir", "runs/no-xdist")
    result.assert_outcomes(passed=2)
    assert _manifest(project.path / "runs" / "no-xdist")["completion"]["recorded"] == 2
