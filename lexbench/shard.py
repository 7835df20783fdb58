"""Splitting one run across machines: ``--shard=K/N`` (SPEC §6).

Shard ``K`` of ``N`` runs the items whose :func:`shard_of` is ``K``. The assignment depends only on
the item's case position in the suite and its provider's position in the selection, never on which
items were collected or deselected, so every process (controller, xdist workers, other machines)
agrees on it without talking to the others.

Balance: items are dealt round-robin in case order, with each case's providers rotated by one place
per case. Every shard gets the same number of items (±1) *and* a mix of providers — a plain
round-robin would give shard ``k`` every item of provider ``k`` whenever ``N`` divides the number of
providers, putting the slowest provider on one machine.

Example, 3 cases × 2 providers (``a``, ``b``), ``N = 2``::

    deal order   c1[a] c1[b] c2[b] c2[a] c3[a] c3[b]
    shard        1     2     1     2     1     2      → shard 1: c1[a], c2[b], c3[a]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Parse ``"K/N"`` with ``1 ≤ K ≤ N``; raises ``ValueError`` with the accepted form."""
        match = _SPEC.match(text)
        if not match:
            raise ValueError(f"{text!r}: expected K/N, e.g. 2/4")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise ValueError(f"{text!r}: K must be between 1 and N (N ≥ 1)")
        return cls(index=index, count=count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_position: int, provider_position: int, providers: int) -> bool:
        """Whether this shard runs the item of the case at ``case_position`` (0-based, suite order)
        and the provider at ``provider_position`` (0-based, selection order) of ``providers``."""
        return shard_of(case_position, provider_position, providers, self.count) == self.index


def shard_of(case_position: int, provider_position: int, providers: int, count: int) -> int:
    """The 1-based shard of ``count`` that runs one item (positions are 0-based; see the module docstring)."""
    if not 0 <= provider_position < providers:
        raise ValueError(f"provider position {provider_position} outside 0..{providers - 1}")
    dealt = case_position * providers + (provider_position - case_position) % providers
    return dealt % count + 1
