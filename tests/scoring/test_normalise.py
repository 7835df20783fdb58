"""Normal forms for scoring (SPEC §3.2) and fragment cutting (SPEC §3.4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lexbench.text import FRAGMENT_CHARS, fragments, label_normalise, normalise


def test_normalise_keeps_only_casefolded_letters_and_digits() -> None:
    assert normalise("Hello, World! It's 2024_05 — ok?") == "helloworldits202405ok"


def test_normalise_folds_width_ligatures_and_case() -> None:
    assert normalise("ＦＵＬＬ ｗｉｄｔｈ ﬁne STRASSE Straße") == "fullwidthfinestrassestrasse"


def test_normalise_keeps_non_latin_letters() -> None:
    assert normalise("Привет, мир! 東京タワー 42") == "приветмир東京タワー42"


def test_normalise_drops_markdown_decoration_and_line_breaks() -> None:
    assert normalise("**Bold** _and_\n`code` [link](http://x)") == normalise("Bold and code link httpx")


def test_label_normalise_folds_decoration_width_space_and_case() -> None:
    assert label_normalise("  **The   Last** _Keeper_ ") == "the last keeper"
    assert label_normalise("`Ｔｉｔｌｅ`") == "title"
    assert label_normalise("~~Old~~ News") == "old news"


def test_label_normalise_keeps_words_and_inner_underscores() -> None:
    assert label_normalise("snake_case: A Title!") == "snake_case: a title!"
    assert label_normalise("The Title") != label_normalise("The Title, revisited")


def test_fragments_are_consecutive_six_character_cuts_without_short_tail() -> None:
    assert fragments("Abc def, ghi-jkl mn") == ["abcdef", "ghijkl"]
    assert fragments("short") == []


def test_fragments_keep_repeats() -> None:
    assert fragments("banana banana") == ["banana", "banana"]


@given(st.text())
def test_normalise_is_idempotent_and_alphanumeric(text: str) -> None:
    once = normalise(text)
    assert normalise(once) == once
    assert all(ch.isalnum() for ch in once)


@given(st.text())
def test_fragments_tile_the_normalised_text(text: str) -> None:
    parts = fragments(text)
    norm = normalise(text)
    assert all(len(p) == FRAGMENT_CHARS for p in parts)
    assert "".join(parts) == norm[: len(parts) * FRAGMENT_CHARS]
    assert len(norm) - len(parts) * FRAGMENT_CHARS < FRAGMENT_CHARS
