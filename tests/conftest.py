"""Shared fixtures for the harness's own tests, the Hypothesis profiles and the reliability figures."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import settings

HARNESS_PLUGINS = ("pytester", "tests.slow_guard")
"""Registered from :func:`pytest_configure`, not ``pytest_plugins``: pytest refuses ``pytest_plugins`` in
a conftest below its rootdir, which this one is when pytest starts above the checkout."""

# Modest example counts keep `make test` fast; HYPOTHESIS_PROFILE=lexbench-thorough fuzzes for longer.
# No deadline: example times swing with machine load, and the properties are about results, not speed.
settings.register_profile("lexbench", max_examples=50, deadline=None)
settings.register_profile("lexbench-thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lexbench"))

# The harness's runs never touch the user's history cache (~/.cache/lexbench): empty means none, for this
# process and the pytest sessions it starts; tests/test_history.py gives each test its own.
os.environ["LEXBENCH_HISTORY_CACHE"] = ""

BENCH_INI = "[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n"
"""A user's project with the benchmark switched on (the plugin loads from its entry point)."""


@pytest.fixture
def bench_project(pytester):  # type: ignore[no-untyped-def]
    """``pytester`` in a project whose ini file switches the benchmark on (:data:`BENCH_INI`)."""
    pytester.makeini(BENCH_INI)
    return pytester


FIGURE = "lexbench.figure"
"""``user_properties`` name under which a test reports one figure (a JSON object) for the summary."""


def pytest_configure(config) -> None:  # type: ignore[no-untyped-def]
    """``pytest_configure``: load pytester and the slow guard; register the reliability tests' ``attack``
    marker and the ``slow`` marker."""
    for name in HARNESS_PLUGINS:
        config.pluginmanager.import_plugin(name)
    config.addinivalue_line("markers", "attack(item, issue=19): an attack of the issue's item N (issue 19 by "
                            "default), refused by its protection")
    config.addinivalue_line("markers", "slow: starts a process or a server (tests/slow_guard.py checks it) or "
                            "takes minutes; make test runs it, make test-fast (-m 'not slow') leaves it out")


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """``pytest_terminal_summary``: the reliability figures tests reported (issue 11), summed over
    xdist workers: fuzz examples run and each hostile answer's scoring time and memory."""
    # Each phase's report repeats the properties set so far: keep one of each per test.
    seen = {(report.nodeid, value) for reports in terminalreporter.stats.values() for report in reports
            for name, value in getattr(report, "user_properties", ()) if name == FIGURE}
    figures = [json.loads(value) for _, value in sorted(seen)]
    if not figures:
        return
    examples = [f for f in figures if f["kind"] == "fuzz"]
    hostile = sorted((f for f in figures if f["kind"] == "hostile"), key=lambda f: -f["wall_s"])
    attacks = [f for f in figures if f["kind"] == "attack"]
    terminalreporter.section("reliability figures")
    if attacks:
        # One line per issue whose attacks ran (issue 19's first round, issue 27's second).
        outcome = {r.nodeid: status for status in ("passed", "skipped") for r in terminalreporter.stats.get(status, ())}
        for issue in sorted({f.get("issue", 19) for f in attacks}):
            mine = [f for f in attacks if f.get("issue", 19) == issue]
            items = sorted({f["item"] for f in mine})
            names = {f["name"] for f in mine}
            tests = {nodeid for nodeid, value in seen if json.loads(value)["kind"] == "attack"
                     and json.loads(value).get("issue", 19) == issue and json.loads(value)["name"] in names}
            held = sum(1 for nodeid in tests if outcome.get(nodeid) == "passed")
            skipped = sum(1 for nodeid in tests if outcome.get(nodeid) == "skipped")
            terminalreporter.write_line(f"attacks (issue {issue}): {held} refused by their protection, "
                                        f"{len(tests) - held - skipped} not refused, {skipped} skipped; "
                                        f"items {', '.join(map(str, items))}")
    if examples:
        terminalreporter.write_line(f"fuzz: {sum(f['examples'] for f in examples):,} examples in "
                                    f"{len(examples)} property tests")
    if hostile:
        terminalreporter.write_line(f"hostile answers: {len(hostile)} scored; slowest first (wall s, CPU s, "
                                    "peak MB above the input)")
        for f in hostile:
            terminalreporter.write_line(f"  {f['name']:<34} {f['chars']:>12,} chars  {f['wall_s']:7.2f}  "
                                        f"{f['cpu_s']:7.2f}  {f['peak_mb']:8.1f}")
