"""The text normal forms the dataset and the scorer share (SPEC §3.2, §3.4). A leaf: imports nothing of
lexbench, so a case can check its own labels and the scorer can match them the same way.

Two normal forms exist:

- :func:`normalise` — for fragment coverage and phrase matching: NFKC, casefold, then only Unicode
  letters and digits. Whitespace, punctuation and Markdown decoration all vanish, so line wrapping
  and formatting never change a match.
- :func:`label_normalise` — for comparing short labels (titles, authors): words and their spacing
  survive, only width, case, whitespace runs, emphasis decoration and typographic variants
  (:data:`TYPOGRAPHIC_FOLDS`) are folded.

Page-identity patterns are matched against the answer after the same typographic fold, with the
pattern's literal characters folded alike (:func:`fold_pattern`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

# Everything that is not a letter or digit. `\w` also matches "_", hence the explicit class member.
_NOT_ALNUM = re.compile(r"[\W_]+")
# ASCII fast path: deleting bytes with bytes.translate is far faster than a regex on large answers.
_ASCII_NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())
# A run of emphasis/code markers touching a word edge (start, end, space or punctuation on one side).
# Markers inside a word (snake_case, a*b) are kept: they are part of the word, not decoration.
_DECORATION = re.compile(r"(?<!\w)[*_~`]+|[*_~`]+(?!\w)")
_WHITESPACE = re.compile(r"\s+")

FRAGMENT_CHARS = 6
"""Length of a body fragment in normalised characters (SPEC §3.4)."""


TYPOGRAPHIC_FOLDS: Mapping[str, str] = MappingProxyType(
    {
        # Single quotes, apostrophes and primes → '
        **dict.fromkeys("‘’‚‛′‹›＇", "'"),
        # Double quotes, guillemets and double primes → "
        **dict.fromkeys("“”„‟″«»＂", '"'),
        "‴": "'''",  # triple and quadruple primes, as NFKC spells them
        "⁗": "''''",
        # Hyphens, dashes and minus signs → - (with the forms NFKC turns into them: label
        # normalisation folds before NFKC, so that ″ reads as " and not as two primes)
        **dict.fromkeys("‐‑‒–—―−﹘﹣－︱︲⁻₋", "-"),
        # Non-breaking and other fixed-width spaces → a space
        **dict.fromkeys("\u00a0\u2007\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B))), " "),
        # The ellipsis character → three dots
        "…": "...",
        # Invisible characters a browser does not draw (soft hyphen, zero-width space, word joiner,
        # zero-width no-break space) → nothing: "Donau\u00addampf" reads as "Donaudampf"
        **dict.fromkeys("\u00ad\u200b\u2060\ufeff", ""),
    }
)
"""The typographic fold (SPEC §3.2): character → what it is read as, for label normalisation and for
page-identity matching. A provider may rewrite any of these (smart quotes made straight, an en dash
written as a hyphen, a non-breaking space as a space, "…" as "...", a soft hyphen dropped), and none of
them changes what a reader takes the words to be. Besides the table, a run of hyphens folds to one (after the table, so
"--" and "---", the ASCII spellings of "–" and "—", fold like the dashes themselves). Both sides of
every comparison are folded with :func:`fold_typography`; a page-identity pattern with
:func:`fold_pattern`."""

# A regex finding the table's characters: on a long non-ASCII answer holding few of them, ``re.sub``
# scans far faster than ``str.translate`` (which looks up every character).
_FOLDABLE = re.compile("[" + "".join(map(re.escape, TYPOGRAPHIC_FOLDS)) + "]")
_HYPHEN_RUN = re.compile(r"-{2,}")


def fold_typography(text: str) -> str:
    """Return ``text`` with every :data:`TYPOGRAPHIC_FOLDS` character replaced and every run of
    hyphens made one hyphen. Idempotent; linear in ``len(text)``; never raises for any ``str``."""
    if not text.isascii():
        text = _FOLDABLE.sub(lambda found: TYPOGRAPHIC_FOLDS[found.group()], text)
    return _HYPHEN_RUN.sub("-", text) if "--" in text else text


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
    """Return ``text`` in label normal form (SPEC §3.2): the typographic fold
    (:func:`fold_typography`), NFKC width folding, emphasis decoration (``*``, ``_``, ``~`` and
    backticks at word edges) removed, whitespace collapsed to single spaces, stripped, casefolded.
    ``"**Ｔｈｅ  Title**"`` → ``"the title"``; ``"It’s on – now"`` → ``"it's on - now"``. The fold
    comes first, so ``″`` reads as ``"`` rather than NFKC's two primes. Decoration stays in a text with
    more than :data:`MAX_DECORATION_MARKERS` markers."""
    folded = unicodedata.normalize("NFKC", fold_typography(text))
    if len(folded) <= MAX_DECORATION_MARKERS or sum(map(folded.count, "*_~`")) <= MAX_DECORATION_MARKERS:
        folded = _DECORATION.sub("", folded)
    return _WHITESPACE.sub(" ", folded).strip().casefold()


def fragments(text: str) -> list[str]:
    """Cut the normalised ``text`` into consecutive, non-overlapping ``FRAGMENT_CHARS``-character
    fragments (SPEC §3.4), in order, repeats kept; a tail shorter than a fragment is dropped."""
    return _FRAGMENT.findall(normalise(text))  # consecutive non-overlapping cuts, the short tail left out


_FRAGMENT = re.compile(f".{{{FRAGMENT_CHARS}}}", re.S)


def fold_pattern(pattern: str) -> str:
    """Return the page-identity ``pattern`` (``re`` syntax) with its literal characters folded as
    :func:`fold_typography` folds the text it searches (SPEC §2, §3.2), so ``Font d’Urle`` matches
    ``Font d'Urle`` and ``1914–1918`` matches ``1914-1918``.

    Only literals change: characters written as themselves or escaped (``\\’``, ``\\u2019``,
    ``\\N{EN DASH}``). Syntax is kept as written, a multi-character fold (``…``) becomes a group so a
    quantifier still applies to all of it, and a character class that names a folded character also
    accepts what it folds to (``[‘’]`` → ``['‘’]``). A hyphen literal next to another folds into it,
    as hyphen runs do in the text; a quantified hyphen (``-+``, ``–{2}``, ``-?``) matches the one
    hyphen of a folded run, or none when the quantifier allows zero. An invalid pattern stays
    invalid: the engine reports it as before.
    """
    out: list[str] = []
    hyphen_before = False  # the last item emitted requires a hyphen: a following one folds into it
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "[":
            end, piece = _fold_class(pattern, index)
            out.append(piece)
            index, hyphen_before = end, False
            continue
        literal, end = _escaped_literal(pattern, index) if char == "\\" else (char, index + 1)
        folded = TYPOGRAPHIC_FOLDS.get(literal, literal) if literal is not None else None
        if folded == "":  # an invisible character, gone from the folded text: so is its quantifier
            quantifier = _QUANTIFIER.match(pattern, end)
            index = quantifier.end() if quantifier else end
            continue
        if folded == "-":
            quantifier = _QUANTIFIER.match(pattern, end)
            optional = quantifier is not None and _allows_zero(quantifier.group())
            if not hyphen_before:
                written = pattern[index:end] if literal == "-" and quantifier is None else "-"
                out.append("-?" if optional else written)
                hyphen_before = not optional
            index = quantifier.end() if quantifier else end
            continue
        if folded is None or folded == literal:
            out.append(pattern[index:end])  # syntax, or a literal the fold leaves alone: as written
        else:
            out.append(re.escape(folded) if len(folded) == 1 else f"(?:{re.escape(folded)})")
        index, hyphen_before = end, False
    return "".join(out)


_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d*(?:,\d*)?\})[?+]?")
_ESCAPED_CODE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{([^}]*)\})")


def _allows_zero(quantifier: str) -> bool:
    return quantifier[0] in "*?" or quantifier.startswith(("{0", "{,"))


def _escaped_literal(pattern: str, index: int) -> tuple[str | None, int]:
    """The character an escape at ``pattern[index]`` (a backslash) stands for and the index after
    it; ``None`` for an escape that is syntax (``\\d``, ``\\b``, a backreference, ...)."""
    coded = _ESCAPED_CODE.match(pattern, index)
    if coded:
        hex_digits = coded.group(1) or coded.group(2) or coded.group(3)
        try:
            return (chr(int(hex_digits, 16)) if hex_digits else unicodedata.lookup(coded.group(4))), coded.end()
        except (ValueError, KeyError):
            return None, coded.end()  # not a character: left for the engine to reject
    if index + 1 >= len(pattern):
        return None, index + 1
    escaped = pattern[index + 1]
    return (None if escaped.isalnum() else escaped), index + 2


def _fold_class(pattern: str, start: int) -> tuple[int, str]:
    """The character class opening at ``pattern[start]``: the index after it, and the class with
    the folds of the characters it names added at its front (after any ``^``, so a negated class
    also refuses them). A class naming no folded character, or an unterminated one, is kept as written."""
    index = start + 1
    negated = pattern.startswith("^", index)
    index += negated
    body_start = index
    if pattern.startswith("]", index):
        index += 1  # a "]" first in a class is a literal
    extra: dict[str, None] = {}
    while index < len(pattern) and pattern[index] != "]":
        if pattern[index] == "\\":
            literal, index = _escaped_literal(pattern, index)
        else:
            literal, index = pattern[index], index + 1
        folded = TYPOGRAPHIC_FOLDS.get(literal) if literal is not None else None
        if folded:
            extra[folded[0]] = None  # one position of the class: "…" folds to "...", so "."
    if index >= len(pattern) or not extra:
        end = min(index + 1, len(pattern))
        return end, pattern[start:end]
    body = pattern[body_start:index]
    if body.startswith("]"):
        body = "\\" + body  # no longer first: escape it so it stays a literal
    added = "".join(re.escape(char) if char != " " else " " for char in extra)
    return index + 1, "[" + ("^" if negated else "") + added + body + "]"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` for a message a user reads: ``"1 item"``, ``"0 items"``, ``"3 items"``
    (``plural`` defaults to ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
