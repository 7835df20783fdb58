"""The benchmark as a user runs it: items, outcomes, JUnit XML, run record, -n 0 vs -n 2 (SPEC §1, §6)."""

import json
import xml.etree.ElementTree as ET

import pytest

from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture
def bench(pytester):
    """A project directory with the plugin loaded, a cases/ directory and a two-case suite."""
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    pytester.makeini("[pytest]\ntestpaths = cases\naddopts = -p no:cacheprovider\n")
    (pytester.path / "cases").mkdir()
    suite = write_suite(pytester.path / "suite", ARTICLES)
    return pytester, suite


def rows(run_dir):
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_items_are_case_by_provider_and_verdicts_are_outcomes(bench):
    pytester, suite = bench
    run_dir = pytester.path / "run"
    result = pytester.runpytest_subprocess(
        f"--suite={suite}", "--providers", "reference-echo,http-markdownify,trafilatura",
        f"--run-dir={run_dir}", "--collect-only", "-q")
    ids = [line for line in result.outlines if "[" in line and "::" in line]
    assert len(ids) == 6
    assert any(line.endswith("::article-001-en-tides[trafilatura]") for line in ids)

    result = pytester.runpytest_subprocess(
        f"--suite={suite}", "--providers", "reference-echo,http-markdownify,trafilatura",
        f"--run-dir={run_dir}", "-rA", "--junitxml", str(pytester.path / "out.xml"))
    # reference-echo and the whole-page dump pass; trafilatura drops the site navigation (a stable group).
    result.assert_outcomes(passed=4, failed=2)
    output = result.stdout.str()
    assert "stable groups 0/1 (missing 'nav')" in output and "Traceback" not in output
    assert "lexbench leaderboard" in output and "reference-echo" in output

    recorded = rows(run_dir)
    assert len(recorded) == 6
    by_item = {(r["case"], r["provider"]): r for r in recorded}
    assert by_item[("article-001-en-tides", "reference-echo")]["outcome"] == "pass"
    assert by_item[("article-001-en-tides", "trafilatura")]["failure_class"] == "content"
    assert by_item[("article-001-en-tides", "http-markdownify")]["outcome"] == "pass"
    sha = by_item[("article-001-en-tides", "trafilatura")]["response_sha256"]
    assert "four tidal turbines" in (run_dir / "responses" / f"{sha}.txt").read_text()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["suite"]["id"] == "tiny" and manifest["finished"]
    assert manifest["providers"] == ["reference-echo", "http-markdownify", "trafilatura"]
    report = (run_dir / "report.md").read_text()
    assert "| reference-echo |" in report and "Controls" in report

    cases = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    props = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")} for c in cases}
    assert props["article-002-en-orchard[reference-echo]"]["lexbench.regions"] == "1.0000"
    assert "lexbench.latency_s" in props["article-002-en-orchard[trafilatura]"]


def test_k_selects_one_provider(bench):
    pytester, suite = bench
    result = pytester.runpytest_subprocess(f"--suite={suite}", "-k", "reference-echo",
                                           f"--run-dir={pytester.path / 'r'}")
    result.assert_outcomes(passed=2, deselected=6)


def test_parallel_run_records_the_same_rows(bench, tmp_path_factory):
    pytester, suite = bench
    # Run directories outside the project: pytest must not mistake them for test paths in workers.
    outside = tmp_path_factory.mktemp("runs")
    serial, parallel = outside / "serial", outside / "parallel"
    pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={serial}", "-n", "0")
    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={parallel}", "-n", "2")
    assert "lexbench leaderboard" in result.stdout.str()

    def key(run):
        return sorted((r["case"], r["provider"], r["outcome"], r["failure_class"]) for r in rows(run))

    assert key(serial) == key(parallel)
    assert len(key(parallel)) == 8


def test_unresolvable_is_a_skip_with_reason(bench, monkeypatch):
    pytester, suite = bench
    # A provider pointed at a dead replay server: infrastructure, not the method -> unresolvable.
    pytester.makeconftest(
        'pytest_plugins = ["lexbench.plugin"]\n'
        "import lexbench.plugin as p\n"
        "def _broken(self, case):\n"
        "    raise OSError('address already in use')\n"
        "p.BenchState.target_url = _broken\n")
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers", "trafilatura",
                                           f"--run-dir={pytester.path / 'r'}", "-rs")
    result.assert_outcomes(skipped=2)
    assert "unresolvable" in result.stdout.str() and "replay server" in result.stdout.str()
    assert {r["outcome"] for r in rows(pytester.path / "r")} == {"unresolvable"}


def test_bad_suite_and_provider_are_usage_errors(bench):
    pytester, _ = bench
    result = pytester.runpytest_subprocess("--suite", "no-such-suite")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "no dataset.json" in result.stderr.str()
    result = pytester.runpytest_subprocess("--providers", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown provider(s) nope" in result.stderr.str()


def test_tampered_capture_stops_before_any_provider_call(bench):
    pytester, suite = bench
    capture = next((suite / "evidence" / "captures").iterdir())
    capture.write_bytes(capture.read_bytes() + b" ")
    result = pytester.runpytest_subprocess(f"--suite={suite}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert capture.name in result.stderr.str() and "sha256" in result.stderr.str()
