"""Reliability tests (issue 11): each property test reports how many examples it ran."""

from __future__ import annotations

import pytest

from tests.reliability.figures import examples_so_far, report


@pytest.fixture(autouse=True)
def _fuzz_examples(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    before = examples_so_far()
    yield
    ran = examples_so_far() - before
    if ran:
        report(request.node, kind="fuzz", examples=ran)
