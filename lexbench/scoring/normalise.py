"""Text normalisation for scoring (SPEC §3.2, §3.4).

Two normal forms exist:

- :func:`normalise` — for fragment coverage and phrase matching: NFKC, casefold, then only Unicode
  letters and digits. Whitespace, punctuation and Markdown decoration all vanish, so line wrapping
  and formatting never change a match.
- :func:`label_normalise` — for comparing short labels (titles, authors): words and their spacing
  survive, only width, case, whitespace runs and emphasis decoration are folded.
"""

from __future__ import annotations

import re
import unicodedata

from lexbench.dataset.case import FRAGMENT_CHARS

# Everything that is not a letter or digit. `\w` also matches "_", hence the explicit class member.
_NOT_ALNUM = re.compile(r"[\W_]+")
# ASCII fast path: deleting bytes with bytes.translate is far faster than a regex on large answers.
_ASCII_NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())
# A run of emphasis/code markers touching a word edge (start, end, space or punctuation on one side).
# Markers inside a word (snake_case, a*b) are kept: they are part of the word, not decoration.
_DECORATION = re.compile(r"(?<!\w)[*_~`]+|[*_~`]+(?!\w)")
_WHITESPACE = re.compile(r"\s+")


_PIECE = 1 << 20  # characters normalised at a time: NFKC, casefold and the filter each copy their input


def normalise(text: str) -> str:
    """Return ``text`` in scoring normal form (SPEC §3.2): NFKC, casefold, letters and digits only.

    Linear in ``len(text)``; a 20 MB answer takes about a second. Never raises for any ``str``. Long
    texts are normalised a megabyte at a time, cut after a newline: nothing composes across a newline,
    so the result is the same, and the intermediate copies stay small.
    """
    if len(text) <= _PIECE:
        return _normalise(text)
    parts = []
    start = 0
    while start < len(text):
        end = start + _PIECE
        if end < len(text):
            cut = text.rfind("\n", start, end)
            if cut < 0:
                cut = text.find("\n", end)
            end = len(text) if cut < 0 else cut + 1
        parts.append(_normalise(text[start:end]))
        start = end
    return "".join(parts)


def _normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    if folded.isascii():
        return folded.encode("ascii").translate(None, _ASCII_NOT_ALNUM).decode("ascii")
    # Delete ASCII punctuation and spaces bytewise first (UTF-8 multi-byte sequences hold no ASCII
    # bytes), so the regex only has the non-ASCII rest to remove: about twice as fast on real text.
    data = folded.encode("utf-8", "surrogatepass").translate(None, _ASCII_NOT_ALNUM)
    return _NOT_ALNUM.sub("", data.decode("utf-8", "surrogatepass"))


MAX_DECORATION_MARKERS = 10_000
"""A text with more ``*``, ``_``, ``~`` and backticks than this keeps them in label normal form: the
decoration pattern makes one string per run it removes (about 25 bytes per character of a line of
``*a_``), and no label carries thousands of markers. The Markdown projection reads such a paragraph
as plain text, markers kept, by the same rule (projection.MAX_EMPHASIS_MARKERS)."""


def label_normalise(text: str) -> str:
    """Return ``text`` in label normal form (SPEC §3.2): NFKC width folding, emphasis decoration
    (``*``, ``_``, ``~`` and backticks at word edges) removed, whitespace collapsed to single spaces,
    stripped, casefolded. ``"**Ｔｈｅ  Title**"`` → ``"the title"``. Decoration stays in a text with
    more than :data:`MAX_DECORATION_MARKERS` markers."""
    folded = unicodedata.normalize("NFKC", text)
    if sum(map(folded.count, "*_~`")) <= MAX_DECORATION_MARKERS:
        folded = _DECORATION.sub("", folded)
    return _WHITESPACE.sub(" ", folded).strip().casefold()


def fragments(text: str) -> list[str]:
    """Cut the normalised ``text`` into consecutive, non-overlapping ``FRAGMENT_CHARS``-character
    fragments (SPEC §3.4), in order, repeats kept; a tail shorter than a fragment is dropped."""
    return _FRAGMENT.findall(normalise(text))  # consecutive non-overlapping cuts, the short tail left out


_FRAGMENT = re.compile(f".{{{FRAGMENT_CHARS}}}", re.S)
