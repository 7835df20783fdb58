"""Figures the reliability tests report (issue 11): each becomes a ``lexbench.figure`` user property,
summed or listed by ``tests/conftest.py`` in the terminal summary, across xdist workers."""

from __future__ import annotations

import json

import pytest

FIGURE = "lexbench.figure"
_examples = [0]


def count_example() -> None:
    """Count one Hypothesis example (call it first in a property test's body)."""
    _examples[0] += 1


def examples_so_far() -> int:
    """Examples counted in this process so far."""
    return _examples[0]


def report(node: pytest.Item, **figure: object) -> None:
    """Attach one figure (JSON-serialisable fields, with a ``kind``) to the test's report."""
    node.user_properties.append((FIGURE, json.dumps(figure, sort_keys=True)))
