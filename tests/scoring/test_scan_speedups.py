"""The faster normalisation and the chunked coverage scan (issue 10) give exactly the results of their
plain definitions."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexbench.scoring import coverage
from lexbench.scoring.normalise import normalise

_NOT_ALNUM = re.compile(r"[\W_]+")


@given(st.text())
def test_normalise_equals_its_definition(text: str) -> None:
    assert normalise(text) == _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


@settings(suppress_health_check=list(HealthCheck))
@given(st.text(alphabet="abcde", max_size=400), st.lists(st.text(alphabet="abcde", min_size=1, max_size=6), min_size=1,
                                                         max_size=30))
def test_chunked_scan_finds_what_a_substring_test_finds(text: str, needles: list[str]) -> None:
    original = coverage._CHUNK
    coverage._CHUNK = 7  # many chunk borders and rebuilds
    try:
        found: set[str] = set()
        coverage._scan(text, set(needles), found)
    finally:
        coverage._CHUNK = original
    assert found == {needle for needle in needles if needle in text}
