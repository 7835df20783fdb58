"""Reliability tests (issues 11 and 19): each property test reports how many examples it ran, each
attack test (``@pytest.mark.attack(item=N, issue=27)``: the issue's item N; issue 19 when unnamed) that it ran."""

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


@pytest.fixture(autouse=True)
def _attack(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    marker = request.node.get_closest_marker("attack")
    if marker is not None:
        report(request.node, kind="attack", item=marker.kwargs["item"], issue=marker.kwargs.get("issue", 19),
               name=request.node.name)
    yield
