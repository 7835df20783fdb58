"""lexbench installed in someone else's project (issue 20): the plugin loads through its entry point,
changes nothing until the benchmark is switched on, then collects the suite from the installed package
from any directory, and leaves no run directory when no item runs."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO_ITEMS = 60  # the demo suite's 15 cases x the 4 default local providers


def collected(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [line for line in result.outlines if "::" in line and " " not in line]


def test_an_unrelated_test_run_is_unchanged(pytester):
    pytester.makepyfile(test_mine="def test_mine():\n    assert True\n")
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")  # -q: no header (its plugin list names lexbench)
    result.assert_outcomes(passed=1)
    assert "lexbench" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "runs").exists()


def test_lexbench_collects_the_demo_suite_of_the_installed_package_without_a_cases_directory(pytester):
    pytester.makepyfile(test_mine="def test_mine():\n    assert True\n")
    result = pytester.runpytest("--lexbench", "--collect-only", "-q", "-p", "no:cacheprovider")
    items = collected(result)
    assert len(items) == DEMO_ITEMS + 1, result.stdout.str()
    assert "lexbench::article-001-en-carrick-tidal-array[trafilatura]" in items
    assert "test_mine.py::test_mine" in items
    assert not (pytester.path / "runs").exists()  # --collect-only runs no item


def test_the_ini_switch_turns_the_benchmark_on_from_a_subdirectory(pytester, monkeypatch):
    pytester.makeini("[pytest]\nlexbench = true\n")
    monkeypatch.chdir(pytester.mkdir("sub"))
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider", "--providers=reference-echo")
    assert len(collected(result)) == 15, result.stdout.str()


def test_a_benchmark_option_without_the_switch_says_how_to_switch_it_on(pytester):
    pytester.makepyfile(test_mine="def test_mine():\n    assert True\n")
    result = pytester.runpytest("--suite=demo", "--providers=trafilatura", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--suite, --providers: the lexbench benchmark is off in this session; switch it on with --lexbench" \
        in result.stderr.str()  # the default suite named explicitly is still an option the session would ignore
    result = pytester.runpytest("--fetch-timeout=5", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK  # a fixture's value (fetch_timeout) means something with it off too


def test_a_keyword_that_selects_nothing_leaves_no_run_directory_and_names_what_it_was_matched_against(pytester):
    result = pytester.runpytest("--lexbench", "-k", "trafilaturra", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert not (pytester.path / "runs").exists()
    result.stdout.fnmatch_lines(["lexbench: -k 'trafilaturra' selected no item, so no run record was written; "
                                 "the benchmark's items are <case-id>[<provider>] for the 15 cases of suite "
                                 "demo and the providers http-markdownify, trafilatura, readability, "
                                 "reference-echo"])


@pytest.mark.slow
def test_with_workers_too_no_item_means_no_run_directory_and_an_item_means_one(pytester):
    result = pytester.runpytest_subprocess("--lexbench", "-n", "2", "-k", "trafilaturra", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert not (pytester.path / "runs").exists()
    assert "lexbench: -k 'trafilaturra' selected no item" in result.stdout.str()
    result = pytester.runpytest_subprocess("--lexbench", "-n", "2", "-k", "article-001 and reference-echo",
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    (run,) = (pytester.path / "runs").iterdir()
    assert len((run / "results.jsonl").read_text().splitlines()) == 1


def run_pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_checkout_collects_from_its_parent_directory(tmp_path):
    """pytest started above the checkout: its conftests are then below the rootdir, where pytest refuses
    ``pytest_plugins``. The checkout's own configuration files, with one test beside them."""
    checkout = tmp_path / "checkout"
    (checkout / "tests").mkdir(parents=True)
    for name in ("pyproject.toml", "conftest.py", "tests/__init__.py", "tests/conftest.py", "tests/slow_guard.py"):
        if (REPO / name).is_file():
            shutil.copy(REPO / name, checkout / name)
    (checkout / "tests" / "test_one.py").write_text("def test_one():\n    assert True\n")
    result = run_pytest(tmp_path, "-q", "-n", "0")
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout + result.stderr
    result = run_pytest(tmp_path, "-q", "--collect-only", "--lexbench", "--providers=reference-echo")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "16 tests collected" in result.stdout  # the demo's 15 items and the test


@pytest.mark.slow
def test_the_benchmark_is_collected_from_the_tests_directory_when_switched_on():
    result = run_pytest(REPO / "tests", "-q", "--collect-only", "--lexbench", "--providers=reference-echo",
                        "test_shard.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lexbench::article-001-en-carrick-tidal-array[reference-echo]" in result.stdout


def test_the_wheel_ships_every_file_of_every_committed_suite():
    """pyproject's package data names the shipped files by pattern: a suite or binding added to ``cases/``
    without a pattern that ships it would be missing from the installed package."""
    import tomllib

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    cases = REPO / "cases"
    shipped = {path for pattern in patterns["lexbench._shipped.cases"] for path in cases.glob(pattern)
               if path.is_file()}
    # the suites are the registry's; cases/gold and cases/articles-judged calibrate the scorer and stay in the repository
    suites = [cases / name for name in json.loads((cases / "registry.json").read_text(encoding="utf-8"))["suites"]]
    assert {path.name for path in suites} >= {"demo", "articles"}
    # A built-site suite's npm install and build output (git-ignored) are made on the machine, never shipped.
    made_here = {"node_modules", "dist"}
    unshipped = sorted(str(path.relative_to(cases)) for suite in suites for path in suite.rglob("*")
                       if path.is_file() and path not in shipped and not made_here & set(path.relative_to(cases).parts))
    assert unshipped == []
    assert cases / "registry.json" in shipped


def test_the_wheel_ships_every_package_of_the_source_tree():
    """pyproject lists lexbench's packages by hand (the shipped data sit beside them under other names): a
    directory of modules missing from the list would be missing from the installed package."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    source = {".".join(path.parent.relative_to(REPO).parts) for path in (REPO / "lexbench").rglob("*.py")
              if "__pycache__" not in path.parts}
    assert sorted(source - listed) == []
