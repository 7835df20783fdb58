"""The faster normalisation, coverage scan and page-identity check (issue 10) give exactly the results
of their plain definitions."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexbench.scoring import coverage
from lexbench.text import normalise

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


@given(st.text(alphabet="abc", max_size=60), st.lists(st.text(alphabet="abc", min_size=1, max_size=4), max_size=8),
       st.text(alphabet="abc", max_size=12))
def test_measure_with_whole_region_shortcut_matches_substring_tests(text: str, needles: list[str], inside: str) -> None:
    sets = {"region": needles, "inside": [inside[i : i + 3] for i in range(0, len(inside), 3)] or [""]}
    results = coverage.measure(text + inside, sets)
    for key, needle_list in sets.items():
        expected = sum(1 for needle in needle_list if needle in text + inside)
        assert results[key].found == expected


@given(st.text(alphabet="ab .*(|\\\nÜ", max_size=6), st.text(alphabet="ab .*(|\\\nÜ", max_size=30))
def test_page_identity_literal_shortcut_agrees_with_the_regex_engine(pattern: str, text: str) -> None:
    import regex

    from lexbench.scoring.evaluate import identity_matches

    try:
        expected = regex.search(pattern, text) is not None
    except regex.error:
        return  # not a valid pattern: rules never hold one (they are compiled when the rules load)
    assert identity_matches(pattern, text) == expected


@given(st.text(alphabet=" \t\n\u00a0\u2003ab", max_size=20))
def test_whitespace_collapse_equals_the_regex(text: str) -> None:
    from lexbench.scoring.evaluate import collapse_whitespace

    assert collapse_whitespace(text) == re.sub(r"\s+", " ", text)


@given(st.text(max_size=40))
def test_fragments_are_consecutive_cuts_of_the_normal_form(text: str) -> None:
    from lexbench.text import FRAGMENT_CHARS, fragments

    norm = normalise(text)
    usable = len(norm) - len(norm) % FRAGMENT_CHARS
    assert fragments(text) == [norm[i : i + FRAGMENT_CHARS] for i in range(0, usable, FRAGMENT_CHARS)]


@given(st.text(alphabet=st.sampled_from(list("aé\u0301\u0308\n \uac00\u1161\u11a8ﬁ_-Ａ") + ["\U0001f600"]), max_size=80))
def test_normalise_in_pieces_equals_normalise_at_once(text: str) -> None:
    from lexbench import text as module

    original = module._PIECE
    module._PIECE = 5  # pieces cut after newlines, often mid-composition without them
    try:
        pieces = module.normalise(text)
    finally:
        module._PIECE = original
    assert pieces == module._normalise(text)


@given(st.lists(st.text(), max_size=12), st.integers(min_value=1, max_value=40))
def test_normalising_a_projection_piece_by_piece_equals_normalising_its_text(texts: list[str], size: int) -> None:
    from lexbench.scoring.projection import Block, Projection

    projection = Projection(blocks=tuple(Block("paragraph", 0, text) for text in texts), format="markdown")
    pieces = list(projection.pieces(size))
    assert "\n".join(pieces) == projection.text
    assert "".join(normalise(piece) for piece in pieces) == normalise(projection.text)
