"""Path options and pytest's rootdir (issue 20, item 4). pytest chooses its rootdir and ini file before any
plugin's options are known (pytest issue #8846): in ``--suite PATH`` with PATH an existing directory
outside the project it took PATH for a test path, rooted the session there without the project's ini file
and, without the plugin loaded from that ini, answered ``unrecognized arguments``. With the plugin loaded
first (an entry point; ``-p lexbench.plugin`` here) the session is refused with the reason and the
``--opt=PATH`` form, before anything is collected; ``--opt=PATH`` works from anywhere, and ``--opt PATH``
whenever PATH does not move the rootdir (inside the project, or not yet existing)."""

from __future__ import annotations

import json

import pytest

from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture
def outside(tmp_path_factory):
    """A directory outside the project, holding a suite and a provider configuration."""
    root = tmp_path_factory.mktemp("outside")
    write_suite(root / "suite", ARTICLES)
    (root / "providers.json").write_text(json.dumps(
        {"schema_version": 1, "providers": [{"name": "echo", "type": "reference-echo", "output_contract": "control"}],
         "default_providers": ["echo"]}))
    return root


@pytest.fixture
def project(pytester):
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    (pytester.path / "cases").mkdir()
    return pytester


@pytest.mark.parametrize("flag", ["--suite", "--run-dir", "--provider-config", "--resume"])
def test_the_space_form_with_a_directory_outside_the_project_is_refused_with_the_equals_form(project, outside, flag):
    path = {"--suite": outside / "suite", "--provider-config": outside / "providers.json"}.get(flag, outside)
    result = project.runpytest("-p", "lexbench.plugin", flag, str(path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert f"{flag} {path}: pytest read the option's path as a test path" in error
    assert f"write {flag}={path}" in error and str(project.path / "tox.ini") in error  # makeini writes tox.ini
    assert "collected" not in result.stdout.str()


@pytest.mark.slow  # the run record reads git's state
def test_the_equals_form_works_for_every_path_option_outside_the_project(project, outside):
    args = ("-p", "lexbench.plugin", f"--suite={outside / 'suite'}", f"--provider-config={outside / 'providers.json'}")
    project.runpytest(*args, f"--run-dir={outside / 'run'}", "-k", "tides").assert_outcomes(passed=1)
    project.runpytest(*args, f"--resume={outside / 'run'}").assert_outcomes(passed=1)
    rows = (outside / "run" / "results.jsonl").read_text().splitlines()
    assert [json.loads(row)["provider"] for row in rows] == ["echo", "echo"]


@pytest.mark.slow
def test_the_space_form_works_where_the_path_does_not_move_the_rootdir(project, outside):
    write_suite(project.path / "suite", ARTICLES)
    result = project.runpytest("-p", "lexbench.plugin", "--suite", "./suite", "--providers", "reference-echo",
                               "--run-dir", str(outside / "new-run"))  # not there yet: no test path
    result.assert_outcomes(passed=2)
    assert (outside / "new-run" / "manifest.json").is_file()
