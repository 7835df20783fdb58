"""Fragment coverage in one pass over the answer (SPEC §3.4).

All needles of a case — every region's fragments, the ending's fragments, every stable-group phrase —
go into one Aho–Corasick automaton, and the normalised answer is scanned once. Cost is linear in the
answer size plus the needles, never fragments × answer: a 20 MB answer is scanned once, not once per
fragment.

This measures a tolerance, not exact text: a fragment counts as found wherever it occurs, so report
the result as *coverage*, never as completeness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import ahocorasick


@dataclass(frozen=True)
class NeedleResult:
    """Coverage of one needle set.

    ``total`` counts needle positions (a fragment that occurs twice in a region counts twice);
    ``found`` the positions whose string occurs anywhere in the answer; ``missing`` the distinct
    missing strings in first-seen order. ``coverage`` is ``found / total`` in 0–1 (1.0 for an empty
    set, which has nothing to miss).
    """

    total: int
    found: int
    missing: tuple[str, ...]

    @property
    def coverage(self) -> float:
        return self.found / self.total if self.total else 1.0

    def reaches(self, numerator: int, denominator: int) -> bool:
        """Exact rational comparison ``found / total >= numerator / denominator`` (no float rounding)."""
        return self.found * denominator >= numerator * self.total


def measure(normalised_output: str, needle_sets: Mapping[str, Sequence[str]]) -> dict[str, NeedleResult]:
    """Measure every needle set against ``normalised_output`` in one Aho–Corasick pass (SPEC §3.4).

    ``normalised_output`` must already be in :func:`~lexbench.text.normalise` form, and
    so must the needles. ``needle_sets`` maps a key (e.g. ``"region:1"``) to its needles, in order,
    repeats allowed. Returns a :class:`NeedleResult` per key. An empty needle string is trivially found
    (the empty string occurs in every text). Time is O(len(output) + total needle length + matches),
    and the scan stops early once every distinct needle has been seen.
    """
    found: set[str] = set()
    whole: set[str] = set()  # keys whose needles were all found at once
    if normalised_output and len(normalised_output) <= _WHOLE_CHECK_LIMIT:
        # A region's fragments are consecutive cuts of its text: when their concatenation occurs in the
        # answer (a passing answer usually holds its regions whole), every one of them is found. One
        # substring search each instead of scanning match by match.
        for key, needles in needle_sets.items():
            if len(needles) > 1 and "".join(needles) in normalised_output:
                found.update(needles)
                whole.add(key)
    found.discard("")
    wanted = {needle for key, needles in needle_sets.items() if key not in whole for needle in needles
              if needle and needle not in found}
    if wanted and normalised_output:
        _scan(normalised_output, wanted, found)
    results: dict[str, NeedleResult] = {}
    for key, needles in needle_sets.items():
        if key in whole:
            results[key] = NeedleResult(total=len(needles), found=len(needles), missing=())
            continue
        hits = 0
        missing: dict[str, None] = {}
        for needle in needles:
            if not needle or needle in found:
                hits += 1
            else:
                missing.setdefault(needle)
        results[key] = NeedleResult(total=len(needles), found=hits, missing=tuple(missing))
    return results


_CHUNK = 1 << 16  # characters scanned between checks on how much of the scan is wasted
_WHOLE_CHECK_LIMIT = 1_000_000  # above it, failing containment searches would cost more than they save


def _automaton(needles: set[str]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
    for needle in needles:
        automaton.add_word(needle, needle)
    automaton.make_automaton()
    return automaton


def _scan(text: str, wanted: set[str], found: set[str]) -> None:
    """Add to ``found`` every needle of ``wanted`` that occurs in ``text``, in one left-to-right pass.

    Matches are reported one by one, and a needle that was already found keeps matching: an answer
    that repeats its text would cost a Python step per repeated fragment. So the scan goes chunk by
    chunk, counting those wasted matches, and rebuilds the automaton without the found needles once
    the waste exceeds what a rebuild costs. Still linear: every rebuild is paid for by the waste
    before it."""
    remaining = set(wanted)
    automaton = _automaton(remaining)
    overlap = max(len(needle) for needle in wanted) - 1
    wasted = 0
    position = 0
    length = len(text)
    while position < length and remaining:
        end = min(length, position + _CHUNK)
        start = max(0, position - overlap)
        first_new = position - start  # matches ending before this index were seen in the last chunk
        # A slice, not iter(text, start, end): that form costs time proportional to the whole text.
        for end_index, needle in automaton.iter(text[start:end]):
            if end_index < first_new:
                continue
            if needle in remaining:
                remaining.discard(needle)
                found.add(needle)
                if not remaining:
                    return
            else:
                wasted += 1
        position = end
        if remaining and wasted > 4 * len(remaining) + 1024:
            automaton = _automaton(remaining)
            wasted = 0
