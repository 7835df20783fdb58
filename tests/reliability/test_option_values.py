"""A fetch timeout that is not a positive, finite number of seconds is a usage error naming the option
(issue 19, item 12): ``--fetch-timeout=inf`` used to end in an INTERNALERROR and a damaged manifest."""

from __future__ import annotations

import pytest

from tests.suite_factory import ARTICLES, write_suite


@pytest.mark.parametrize("value", ["inf", "nan", "0", "-1", "1e400"])
def test_a_fetch_timeout_that_is_not_positive_and_finite_is_a_usage_error(pytester, value: str) -> None:  # type: ignore[no-untyped-def]
    pytester.makeini("[pytest]\ntestpaths = cases\naddopts = -p no:cacheprovider\n")
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]\n')
    suite = write_suite(pytester.path / "suite", ARTICLES)
    run = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}",
                                           f"--fetch-timeout={value}")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output[-2000:]
    assert "--fetch-timeout" in output and "positive, finite" in output and "INTERNALERROR" not in output
    assert not (run / "results.jsonl").exists()


pytestmark = pytest.mark.attack(item=12)  # counted in the terminal summary's reliability figures
