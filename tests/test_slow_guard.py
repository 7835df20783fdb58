"""The slow partition is sound: a test that starts a process or a server without the ``slow`` marker
fails and names what it started; the same test marked slow passes (tests/slow_guard.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # the tests below start a process and a server on purpose

UNMARKED = """
import socket
import subprocess
import sys

import pytest


@pytest.fixture
def server():
    with socket.create_server(("127.0.0.1", 0)) as sock:
        yield sock


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_uses_a_server(server):
    assert server.getsockname()[1] > 0


def test_stays_in_process():
    assert sorted([3, 1, 2]) == [1, 2, 3]
"""


def test_an_unmarked_test_that_starts_a_process_or_a_server_fails_naming_it(pytester):  # type: ignore[no-untyped-def]
    pytester.makepyfile(test_inner=UNMARKED)
    result = pytester.runpytest("-p", "tests.slow_guard", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_starts_a_process is not marked slow but started 1 process(es)/server(s), "
                                 "e.g. a process: *-c pass. Mark it @pytest.mark.slow*"])
    result.stdout.fnmatch_lines(["*test_uses_a_server is not marked slow but started 1 process(es)/server(s), "
                                 "e.g. a server listening on ('127.0.0.1', *"])


def test_the_same_tests_marked_slow_pass(pytester):  # type: ignore[no-untyped-def]
    pytester.makepyfile(test_inner=UNMARKED + "\npytestmark = pytest.mark.slow\n")
    result = pytester.runpytest("-p", "tests.slow_guard", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
