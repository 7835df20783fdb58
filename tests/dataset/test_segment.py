"""Paragraph splitting and automatic regions for imported references (SPEC §2, segmentation v3)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexbench.dataset.case import MAX_REGIONS, MIN_ENDING_FRAGMENTS
from lexbench.dataset.endings import choose_ending
from lexbench.dataset.segment import auto_regions, normalised_length, split_paragraphs
from lexbench.errors import CorpusImportError
from lexbench.text import FRAGMENT_CHARS, normalise


def test_split_paragraphs_normalises_endings_strips_and_collapses():
    text = "  First   line\r\n\r\nSecond\tline \u00a0 here\rThird\u2028Fourth\n\n   \n"
    assert split_paragraphs(text) == ["First line", "Second line here", "Third", "Fourth"]


def test_split_paragraphs_of_blank_text_is_empty():
    assert split_paragraphs(" \n\t\r\n") == []


def test_normalise_keeps_letters_and_digits_only():
    assert normalise("Ｆｕｌｌ-width, café_№ 1!") == "fullwidthcaféno1"
    assert normalised_length("a b_c—d") == 4


def _check_regions(lines, regions):
    assert 1 <= len(regions) <= MAX_REGIONS
    expected = 1
    for region in regions:
        assert region.first_line == expected
        assert region.last_line >= region.first_line
        text = "".join(lines[region.first_line - 1 : region.last_line])
        assert normalised_length(text) >= FRAGMENT_CHARS, region
        expected = region.last_line + 1
    assert expected == len(lines) + 1


def test_long_reference_gets_five_balanced_regions_with_labels():
    lines = [f"Paragraph number {i} has a fair amount of words in it." for i in range(1, 21)]
    regions = auto_regions(lines)
    _check_regions(lines, regions)
    assert len(regions) == 5
    assert [r.last_line - r.first_line + 1 for r in regions] == [4, 4, 4, 4, 4]
    assert regions[0].label == "part 1 (lines 1-4)"


def test_short_lines_are_merged_into_a_neighbour():
    lines = ["A long opening paragraph with plenty of letters in it.", "ok", "!", "—", "Another long closing paragraph."]
    regions = auto_regions(lines)
    _check_regions(lines, regions)
    assert len(regions) < len(lines)


def test_single_line_reference_is_one_region():
    regions = auto_regions(["Just one line of text."])
    assert [(r.first_line, r.last_line, r.label) for r in regions] == [(1, 1, "part 1 (line 1)")]


def test_huge_first_paragraph_does_not_produce_empty_regions():
    lines = ["word " * 2000, "Share this article", "tags"]
    regions = auto_regions(lines)
    _check_regions(lines, regions)


def test_max_regions_is_respected_and_validated():
    lines = [f"line {i} with words" for i in range(30)]
    assert len(auto_regions(lines, max_regions=2)) == 2
    with pytest.raises(ValueError):
        auto_regions(lines, max_regions=0)


def test_reference_without_a_fragment_is_rejected():
    with pytest.raises(CorpusImportError, match="at least 6"):
        auto_regions(["— • —", "abc", "!!"])
    with pytest.raises(CorpusImportError, match="at least 6"):
        choose_ending(["abc", "de"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab ,.—1\u00e9", min_size=0, max_size=40), min_size=1, max_size=40))
def test_regions_always_cover_every_line_contiguously(lines):
    lines = [line for line in (" ".join(line.split()) for line in lines) if line]
    if sum(normalised_length(line) for line in lines) < FRAGMENT_CHARS:
        with pytest.raises(CorpusImportError):
            auto_regions(lines)
        return
    _check_regions(lines, auto_regions(lines))
    ending = choose_ending(lines)
    assert f"\n{ending.text}\n" in "\n" + "\n".join(lines) + "\n"  # whole lines, an exact passage
    total = sum(normalised_length(line) for line in lines) // FRAGMENT_CHARS
    assert ending.fragments == normalised_length(ending.text) // FRAGMENT_CHARS >= min(MIN_ENDING_FRAGMENTS, total)
