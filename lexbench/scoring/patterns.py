"""Regular expressions that come from a case, searched under a time bound (SPEC §2, §3).

A reviewed pattern with catastrophic backtracking (``https://news\\.example/(\\w+-?)+/`` takes 30 s on
a 28-character link) must not stall a run on a hostile answer. Every pattern a case carries
(``page_identity``, ``href_pattern``, ``post_link_pattern``, ``record_id_pattern``) is compiled with
the ``regex`` engine, whose searches can stop; patterns use ``re`` syntax and the case validators
check that both engines accept them.
"""

from __future__ import annotations

import re
import warnings

import regex

PATTERN_TIMEOUT_S = 2.0
"""Seconds one search of one case pattern may take. Real patterns finish in milliseconds even on a
20 MB answer, so only a pathological pattern × text pair meets the bound."""

_REGEX_SYNTAX = re.compile(r"[.^$*+?{}\[\]\\|()]")  # a pattern without these matches itself literally


def compile_case_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """``pattern`` compiled by the ``regex`` engine (with ``flags``). Raises ``regex.error`` when it does
    not compile."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # regex's notes on set syntax, not errors
        return regex.compile(pattern, flags)


class CasePattern:
    """One case pattern, searched on the texts of one answer. Each search gets
    :data:`PATTERN_TIMEOUT_S`; once one gives up, ``timed_out`` is set and every later search of
    this answer counts as no match at once (a hostile answer with 100,000 links costs one bound,
    not 100,000)."""

    def __init__(self, pattern: str, timeout_s: float = PATTERN_TIMEOUT_S, *, ignore_case: bool = False) -> None:
        self.pattern = pattern
        self.timeout_s = timeout_s
        self.timed_out = False
        self._compiled = compile_case_pattern(pattern, regex.IGNORECASE | regex.FULLCASE if ignore_case else 0)

    def search(self, text: str) -> regex.Match[str] | None:
        """The first match in ``text``; ``None`` when there is none or the bound was met."""
        return self._run(self._compiled.search, text)

    def fullmatch(self, text: str) -> regex.Match[str] | None:
        """A match of the whole of ``text``; ``None`` when there is none or the bound was met."""
        return self._run(self._compiled.fullmatch, text)

    def note(self) -> str:
        """One evidence line when the bound was met, else ``""``."""
        if not self.timed_out:
            return ""
        return (f"pattern {self.pattern!r} gave up after {self.timeout_s:g} s (catastrophic backtracking: "
                "review the pattern); it matched nothing more in this answer")

    def _run(self, method, text: str):  # type: ignore[no-untyped-def]
        if self.timed_out:
            return None
        try:
            return method(text, timeout=self.timeout_s)
        except TimeoutError:
            self.timed_out = True
            return None


def pattern_matches(pattern: str, text: str, timeout_s: float = PATTERN_TIMEOUT_S, *,
                    ignore_case: bool = False) -> bool | None:
    """Whether ``pattern`` occurs in ``text`` (case aside when ``ignore_case``): ``None`` when the search
    gave up after ``timeout_s``. A pattern without regex syntax is a literal, matched without the timed
    engine's per-call cost."""
    if not _REGEX_SYNTAX.search(pattern):
        return pattern.casefold() in text.casefold() if ignore_case else pattern in text
    bounded = CasePattern(pattern, timeout_s, ignore_case=ignore_case)
    found = bounded.search(text)
    return None if bounded.timed_out else found is not None
