"""Your own fetcher, scored by lexbench in your project's test run: ``pytest --lexbench`` (SPEC §1).

Each selected case (the demo suite by default, ``--suite=NAME`` for another) gives one test; its verdict
is the outcome, its explanation the failure message, and its row lands in the run record and report
beside the built-in providers, under this test function's name.
"""

import httpx

import lexbench


def my_fetch(url: str, timeout: float) -> str:
    """Stand-in for your fetcher: the page's HTML as served. In replay mode ``url`` is the frozen page on
    lexbench's loopback replay server."""
    response = httpx.get(url, timeout=timeout, follow_redirects=True)
    response.raise_for_status()
    return response.text


def test_my_fetcher(lexbench_case, fetch_timeout):  # type: ignore[no-untyped-def]
    answer = my_fetch(lexbench_case.url, timeout=fetch_timeout)
    lexbench.assert_passes(lexbench_case, answer)
