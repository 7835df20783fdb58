"""A fetch timeout that is not a positive, finite number of seconds within a day, or a retry count outside
0–100, is a usage error naming the option (issue 19, item 12): ``--fetch-timeout=inf`` used to end in an
INTERNALERROR and a damaged manifest, and ``--fetch-timeout=1e300`` (finite) in pytest-timeout's
``OverflowError`` when it armed the item's backstop timer."""

from __future__ import annotations

import pytest

from tests.suite_factory import ARTICLES, write_suite


@pytest.mark.parametrize("value", ["inf", "nan", "0", "-1", "1e400", "1e300", "86401"])
def test_a_fetch_timeout_that_is_not_positive_and_finite_is_a_usage_error(pytester, value: str) -> None:  # type: ignore[no-untyped-def]
    output = _refused(pytester, f"--fetch-timeout={value}")
    assert "--fetch-timeout" in output and "positive, finite" in output


@pytest.mark.parametrize("value", ["-1", "101", "1000000000000000000000"])
def test_a_retry_count_outside_its_range_is_a_usage_error(pytester, value: str) -> None:  # type: ignore[no-untyped-def]
    output = _refused(pytester, f"--retries={value}")
    assert "--retries" in output and "retries must be" in output


def _refused(pytester, option: str) -> str:  # type: ignore[no-untyped-def]
    """Run a tiny benchmark session with ``option``; check it stops with a usage error before any item
    and no traceback, and return its output."""
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES)
    run = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}",
                                           option)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output[-2000:]
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert not (run / "results.jsonl").exists()
    return output


pytestmark = [pytest.mark.attack(item=12), pytest.mark.slow]  # counted in the terminal summary's reliability figures
