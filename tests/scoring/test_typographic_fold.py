"""The typographic fold (SPEC §3.2): titles, labels and page identity read ’ as ', – as -, … as ...,
a non-breaking space as a space, on the answer and the reference alike."""

from __future__ import annotations

import re
import unicodedata
import warnings

import pytest
from factories import PARAGRAPHS, answer, html_page, make_case, markdown_page, text_page
from hypothesis import given
from hypothesis import strategies as st

from lexbench.scoring import evaluate_response
from lexbench.scoring.evaluate import identity_matches
from lexbench.text import TYPOGRAPHIC_FOLDS, fold_pattern, fold_typography, label_normalise
from lexbench.verdict import Component, Outcome

CURLY_TITLE = "“Told It Couldn’t Be Done”: Brask’s Light – 1987–1998 … and After"
STRAIGHT_TITLE = "\"Told It Couldn't Be Done\": Brask's Light - 1987-1998 ... and After"


def test_every_table_entry_is_one_character_read_as_ascii() -> None:
    assert all(len(key) == 1 and value.isascii() for key, value in TYPOGRAPHIC_FOLDS.items())
    assert fold_typography("Donau\u00addampf\u200bschiff\u2060fahrt\ufeff") == "Donaudampfschifffahrt"
    assert fold_typography("‘a’ “b” „c‟ ‹d› «e» 5′ 6″") == "'a' \"b\" \"c\" 'd' \"e\" 5' 6\""
    assert fold_typography("a‐b‑c‒d–e—f―g−h﹘i﹣j－k") == "a-b-c-d-e-f-g-h-i-j-k"
    assert fold_typography("a\u00a0b\u2007c\u202fd\u2003e\u3000f…") == "a b c d e f..."
    assert fold_typography("1914--1918 and 1914---1918") == "1914-1918 and 1914-1918"


def test_no_character_leaves_label_normal_form_unfolded() -> None:
    # NFKC runs after the fold: no character may turn into a table character there and escape it.
    leftovers = [
        f"U+{code:04X}" for code in range(0x10000)
        if not 0xD800 <= code < 0xE000 and any(ch in TYPOGRAPHIC_FOLDS for ch in label_normalise(chr(code)))
    ]
    assert leftovers == []


@pytest.mark.parametrize(
    ("reference", "written"),
    [
        (CURLY_TITLE, STRAIGHT_TITLE),
        (STRAIGHT_TITLE, CURLY_TITLE),
        ("Wait for it…", "Wait for it..."),
        ("Wait for it...", "Wait for it…"),
        ("Cape\u00a0Orra at 10\u202fpm", "Cape Orra at 10 pm"),
        ("Cape Orra — the keeper", "Cape Orra --- the keeper"),
        ("Donau\u00addampf\u00adschiff", "Donaudampfschiff"),
    ],
    ids=["straight-for-curly", "curly-for-straight", "dots-for-ellipsis", "ellipsis-for-dots", "space-for-nbsp",
         "triple-hyphen-for-em-dash", "soft-hyphens-dropped"],
)
def test_label_normal_form_folds_typographic_variants(reference: str, written: str) -> None:
    assert label_normalise(written) == label_normalise(reference)


def test_label_normal_form_still_tells_different_labels_apart() -> None:
    assert label_normalise(STRAIGHT_TITLE) != label_normalise(CURLY_TITLE.replace("Couldn’t", "Could"))
    assert label_normalise("Brask's light") != label_normalise("Brasks light")
    assert label_normalise("a - b") != label_normalise("a b")


@pytest.mark.parametrize("render", [markdown_page, text_page, html_page], ids=["markdown", "text", "html"])
@pytest.mark.parametrize(
    ("reference", "written"),
    [(CURLY_TITLE, STRAIGHT_TITLE), (STRAIGHT_TITLE, CURLY_TITLE),
     ("Die Donau\u00addampf\u00adschiff\u00adfahrt", "Die Donaudampfschifffahrt")],
    ids=["straight-for-curly", "curly-for-straight", "without-soft-hyphens"],
)
def test_title_written_with_other_quotes_and_dashes_passes(render, reference: str, written: str) -> None:
    verdict = evaluate_response(make_case(title=reference), answer(render(title=written), render.__name__.split("_")[0]))
    assert verdict.outcome is Outcome.PASS, verdict.explanation
    assert verdict.component(Component.TITLE).evidence.startswith("title found as a standalone")


def test_a_genuinely_different_title_still_fails() -> None:
    other = STRAIGHT_TITLE.replace("Brask's Light", "Brask's Lamp")
    verdict = evaluate_response(make_case(title=CURLY_TITLE), answer(markdown_page(title=other)))
    assert verdict.outcome is Outcome.FAIL
    assert verdict.component(Component.TITLE).passed is False
    assert "not found as a standalone" in verdict.explanation


@pytest.mark.parametrize(
    ("pattern", "paragraph"),
    [
        ("the keeper’s routine", "the keeper's routine"),  # a literal pattern
        (r"keeper’s\s+routine", "the keeper's routine"),  # a regex
        ("winter of 1987–1988", "winter of 1987-1988"),
        (r"winter of \d{4}[–—]\d{4}", "winter of 1987-1988"),  # a dash class still accepts the folded hyphen
        (r"winter of 1987\u20131988", "winter of 1987--1988"),  # an escaped en dash
        ("keeper's routine", "the keeper’s routine"),  # the reverse: a straight pattern, a curly answer
        ("lens by hand…", "lens by hand..."),
        (r"lens by hand…$|lens by hand…\s", "lens by hand... until"),
        ("Cape\u00a0Orra", "Cape Orra"),
    ],
)
def test_page_identity_pattern_matches_typographic_variants(pattern: str, paragraph: str) -> None:
    case = make_case(page_identity=[pattern])
    content = markdown_page([*PARAGRAPHS[:-1], f"{PARAGRAPHS[-1]} Later, {paragraph}."])
    identity = evaluate_response(case, answer(content)).component(Component.PAGE_IDENTITY)
    assert identity.passed is True, identity.evidence


def test_page_identity_still_refuses_other_text() -> None:
    case = make_case(page_identity=["keeper’s routine – at dawn"])
    identity = evaluate_response(case, answer(markdown_page())).component(Component.PAGE_IDENTITY)
    assert identity.passed is False
    assert identity.evidence == "page identity 0/1 (no match for 'keeper’s routine – at dawn')"


@pytest.mark.parametrize(
    ("pattern", "folded"),
    [
        ("d’Urle", "d'Urle"),
        ("[‘’]s", "['‘’]s"),
        ("[–-]", r"[\-–-]"),  # stays a valid class, not a reversed range
        ("[^’]+", "[^'’]+"),  # a negated class refuses the folded character too
        ("[]’]", r"['\]’]"),  # a leading "]" stays a literal
        ("…+", r"(?:\.\.\.)+"),  # the quantifier applies to the whole fold
        ("a–{2}b", "a-b"),
        ("a—?b", "a-?b"),
        ("x--y", "x-y"),
        ("Donau\u00addampf", "Donaudampf"),
        ("a–\u00ad+–b", "a-b"),  # an invisible character (and its quantifier) between hyphens: one run
        (r"\u2019s \N{EM DASH} \d+", r"'s - \d+"),
        (r"(?i-m:a)\.\-[a-z]{2}", r"(?i-m:a)\.\-[a-z]{2}"),  # syntax, escapes and plain classes as written
    ],
)
def test_pattern_folds_literals_and_keeps_syntax(pattern: str, folded: str) -> None:
    assert fold_pattern(pattern) == folded
    re.compile(fold_pattern(pattern))


_TYPOGRAPHIC = "ab -'\"." + "".join(TYPOGRAPHIC_FOLDS)[:60:3] + "…–—’“"


@given(st.text(alphabet=_TYPOGRAPHIC, max_size=8), st.text(alphabet=_TYPOGRAPHIC, max_size=40))
def test_an_escaped_literal_matches_where_its_folded_text_occurs(literal: str, text: str) -> None:
    # Oracle: substring search of the two folded strings, independent of the pattern folder.
    expected = fold_typography(literal) in fold_typography(text)
    assert identity_matches(re.escape(literal), text) is expected
    if "." not in literal:  # the only regex syntax in the alphabet
        assert identity_matches(literal, text) is expected  # the literal shortcut


def test_a_pathological_pattern_still_gives_up_within_its_bound() -> None:
    assert identity_matches("(a+)+–$", "a" * 30_000 + "!", timeout_s=0.2) is None


def test_fold_is_idempotent_and_keeps_other_characters() -> None:
    text = "Fähre – „Brücke“ ‘statt’ … 東京\u00a0タワー ﬁ"
    once = fold_typography(text)
    assert fold_typography(once) == once
    assert once == "Fähre - \"Brücke\" 'statt' ... 東京 タワー ﬁ"
    assert unicodedata.normalize("NFKC", once) == unicodedata.normalize("NFKC", fold_typography(once))


@given(st.text(alphabet="ab-–—’…[]^()|?*+{}2,\\.:u", max_size=14))
def test_a_pattern_that_compiles_still_compiles_folded(pattern: str) -> None:
    import regex

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # re's notes on possible set syntax, not errors
        try:
            re.compile(pattern)
            regex.compile(pattern)
        except (re.error, regex.error):
            return  # rules refuse it at load time (case.py), so the scorer never sees it
        re.compile(fold_pattern(pattern))
        regex.compile(fold_pattern(pattern))  # the engine the scorer searches with
