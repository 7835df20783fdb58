"""Choose the ending passage of an imported reference (``reference_scope.end``, SPEC §2).

The ending is the last passage of the article's own prose. Corpus references often close with lines
that are not: a photo credit, a copyright notice, an affiliate disclosure, a share prompt, a list of
related articles. :func:`choose_ending` skips such trailing lines by the rules of :data:`TRAILER_RULES`
(one row per kind, patterns in the corpus' languages where they are cheap), then extends the passage
backwards over whole lines until it yields at least :data:`~lexbench.dataset.case.MIN_ENDING_FRAGMENTS`
fragments, so that an ending can never be met by a few characters that also occur earlier.

The passage is an exact slice of the reference: its lines joined by ``\\n``, as the reference is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexbench.dataset.case import MIN_ENDING_FRAGMENTS
from lexbench.dataset.segment import normalised_length
from lexbench.errors import CorpusImportError
from lexbench.text import FRAGMENT_CHARS

SHORT_LINE_CHARS = 2 * FRAGMENT_CHARS
"""A trailing line with fewer normalised characters than this, and no sentence-final punctuation, is
a label ("Buy Now", "Instagram", "Conclusion", a lone name) rather than prose; one without a single
fragment ("." or "___") is never prose."""

_SENTENCE_END = re.compile(r"[.!?。！？…»\"”’')）」』]\s*$")


@dataclass(frozen=True)
class TrailerRule:
    """One kind of trailing non-prose line: ``name`` (reported per skipped line), what it is, and the
    case-insensitive ``pattern`` searched in the whitespace-collapsed line, which is at most ``max_chars``
    long when that is set (a heading-like rule must not take a paragraph that merely starts alike)."""

    name: str
    what: str
    pattern: re.Pattern[str]
    max_chars: int | None = None

    def matches(self, line: str) -> bool:
        """Whether the whitespace-collapsed ``line`` is of this kind."""
        return (self.max_chars is None or len(line) <= self.max_chars) and self.pattern.search(line) is not None


def _rule(name: str, what: str, *patterns: str, flags: int = re.IGNORECASE, max_chars: int | None = None,
          ) -> TrailerRule:
    return TrailerRule(name, what, re.compile("|".join(f"(?:{p})" for p in patterns), flags), max_chars)


_NAME = r"[A-Z][\w.'’-]+( [A-Z][\w.'’-]+){1,3}"  # two to four capitalised words

TRAILER_RULES: tuple[TrailerRule, ...] = (
    _rule(
        "credit", "image, photo, source, agency and reporting credits",
        r"^[(\[（【]?\s*(main |top |header |featured |cover )?"
        r"(image|photo|picture|graphic|foto|фото|bild|imagen|crédit photo|credit)s?( credits?| source)?"
        r"\s*(:|by\b|courtesy\b)",                                   # (Image credit: …), Photo: …, Top photo by …
        r"[-–—|]\s*(image|photo|foto|bild)\s*:",                      # … - Image: Raspberry Pi Foundation
        r"^[(\[]?\s*(provided by|courtesy of)\s",                     # Provided by European Space Agency
        r"^[(\[]?\s*(sources?|quelle|fuente|fonte|источник)\s*[:：]",  # Source: …, Quelle: dpa
        r"^[(\[]?\s*((additional )?reporting|writing|editing|compiled|contributing)( by\b|\s*:)",
        r"contributed( reporting)?( to this (report|story|article))?\.?$",
        r"^([\w.'’-]+ ){1,3}reported from [\w ]+(,? and [\w ]+ from [\w ]+)?\.?$",
        r"^with .{1,30} wires?$",                                     # With Post wires
        r"^[—–-]\s*.{1,80}\(@\w+\)",                                  # — Name (@handle) date: an embedded post
        r"^[(\[（【]?\s*(责编|责任编辑|编辑|作者|来源|本文来源|总监制|记者|撰文|摄影|图片来源|出品)\s*[:：︱|]",
        r"^[(（][^)）]{0,20}记者[^)）]*[)）]$", r"摄[)）]$",             # （总台央视记者 …）, 新华社发（…摄）
        r"^《[^》]{1,12}》\s*[（(]\s*\d{4}年",                          # 《光明日报》（2024年05月20日 03版）
        r"^\[?\s*사진\s*[=:]",                                         # [사진=JTBC]
    ),
    _rule(
        "copyright", "copyright, disclaimer and republication notices",
        r"^\W*[©ⓒ]", r"(^|\s)[©ⓒ]\s*\d{4}", r"\(c\)\s*\d{4}", r"^copyright\b", r"^저작권자",
        r"all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos reservados|"
        r"direitos reservados|все права защищены|riproduzione riservata|版权所有|無断転載|무단전재",
        r"^(disclaimer|haftungsausschluss|aviso legal|avertissement)\b",
        r"^this (article|story|post) (has been|was) (adapted|originally|first|republished|reprinted)",
        r"^this (article|story|post) (originally|first) (appeared|ran)\b", r"^originally published\b",
        r"\bfirst published\b.{0,30}\d{4}", r"^a version of this (article|story) appear",
        r"service mark|trademark of", r"^(correction|clarification|editor['’]?s note)\b.{0,40}[:：]",
    ),
    _rule(
        "notice", "affiliate, subscription and newsletter notices",
        r"^ftc\s*:", r"affiliate links?\b",
        r"^(subscribe|sign up|register|abonnieren|suscr[ií]bete|abonnez-vous|assine|inscreva-se|подпишитесь|"
        r"iscriviti)\b.*(\bnewsletter|\bour\b|\bunser|\bnuestr|\bnotre|\bnosso|for free)",
        r"(sign up|subscribe|abonn|suscr|inscr|assin|iscriv).{0,60}newsletter|newsletter.{0,60}(sign up|subscribe)",
        r"^receba em seu e-?mail",
    ),
    _rule(
        "share", "share, follow and comment prompts",
        r"^(share|teilen|compartir|partager|compartilhe|condividi|поделиться|分享)( this| on| via|\s*:|$)",
        r"^(follow us|folgen sie uns|folge uns|síguenos|suivez-nous|siga-nos|seguici)\b",
        r"^(be sure to )?(visit|like|follow|find) .{1,60} on (facebook|twitter|instagram|x)\b",
        r"^(follow|find) .{1,60}\bon\s*$", r"^follow [\w ]{1,30}:",
        r"^(facebook|twitter|x \(formerly twitter\)|instagram|youtube|tiktok|linkedin)\W*$",
        r"^\W*send (us )?your (story|stories|news) (ideas|tips)",
        r"^(leave a (comment|reply)|deixe (seu|sua|suas)|dejá|deja tu comentario|laissez un commentaire)",
        r"^(as always, )?let us know what you think\b",
        r"^(click here|continue reading|weiterlesen|check it out|see more (photos|pictures))",
    ),
    _rule(
        "related", "related-article and author headings, and 'read more' lines",
        r"^(read more|read also|related( stories| articles| posts| coverage| content| reading)?|see also|"
        r"more from|more on|recommended|you may also like|further reading|external links|sources (&|and) links|"
        r"references|story timeline|most popular|trending|about the author|"
        r"lesen sie auch|mehr zum thema|über den autor|leer más|lee también|relacionad[oa]s?|sobre el autor|"
        r"lire aussi|à lire aussi|voir aussi|à propos de l['’]auteur|leia (também|mais)|veja também|sobre o autor|"
        r"leggi anche|читайте также|об авторе|相关阅读|延伸阅读|推荐阅读|作者简介|関連記事|baca juga)"
        r"\s*([:：|].*)?$",                                            # the heading alone, or "Heading: title"
        r"^read more\b",
        max_chars=160,
    ),
    _rule(
        "poll", "poll results",
        r"^(total )?votes?\s*[:：]\s*\d", r"\(\s*\d[\d,.]*\s*votes?\s*\)\s*$",
        r"^(yes|no|ja|nein|sí|oui|non|sim|não)\s*[:\-–]?\s*\d+(\.\d+)?\s*%",
    ),
    _rule(
        "url", "bare addresses and contact lines",
        r"^\W*(\w+\s*[-–:]\s*)?(https?://|www\.)\S+\W*$",
        r"^\W*[\w.-]+\.(com|net|org|io|co|de|fr|es|it|br|ru|jp|cn|uk)(\.\w\w)?(/\S*)?\W*$",
        r"^.{0,40}\S+@\S+\.\w+\W*$",
    ),
    _rule(
        "lead-in", "a line introducing something the reference does not hold (it ends with a colon)",
        r"[:：]\s*$",
    ),
    _rule(
        "bio", "an author's or contributor's biography line",
        _NAME + r" (is|was) (an?|the) ([\w,-]+ ){0,8}"
        r"(?i:reporter|correspondent|journalist|producer|writer|editor|columnist|contributor|author)\b",
        _NAME + r" (covers|is on (Twitter|X|Instagram))\b",
        flags=0,
    ),
    _rule(
        "byline", "a lone author name or sign-off (two to four capitalised words)",
        r"^[-–—]?\s*" + _NAME + "$",
        flags=0,
    ),
)
"""The kinds of trailing line that are not the article's own prose, checked in this order."""


def trailer_rule(line: str) -> str | None:
    """The name of the :data:`TRAILER_RULES` row (or ``"short"``) that marks ``line`` as trailing
    non-prose, else ``None``. ``line`` is one reference paragraph."""
    text = " ".join(line.split())
    for rule in TRAILER_RULES:
        if rule.matches(text):
            return rule.name
    length = normalised_length(text)
    if length < FRAGMENT_CHARS or (length < SHORT_LINE_CHARS and not _SENTENCE_END.search(text)):
        return "short"
    return None


@dataclass(frozen=True)
class Ending:
    """The chosen ending of a reference: ``text`` is lines ``first_line..last_line`` (one-based,
    inclusive) joined by ``\\n``; ``fragments`` is how many it yields; ``skipped`` lists each trailing
    line left out as ``(line number, rule name)``; ``flag`` names an import flag when the ending could
    not meet the rule (``None`` when it does)."""

    text: str
    first_line: int
    last_line: int
    fragments: int
    skipped: tuple[tuple[int, str], ...]
    flag: str | None = None


SHORT_REFERENCE_FLAG = "ending_is_whole_short_reference"
"""Import flag: the whole reference yields fewer than 10 fragments, so it is the ending."""
NO_PROSE_FLAG = "ending_not_found_in_prose"
"""Import flag: every line of the reference looked like trailing non-prose; the last lines are used."""


def _related_block_start(lines: list[str], last: int) -> int | None:
    """Index of a related-articles heading among the last lines up to ``last`` when every line after
    it reads as a title (no sentence-final punctuation), else None."""
    related = next(rule for rule in TRAILER_RULES if rule.name == "related")
    for index in range(last, max(-1, last - 10), -1):
        line = " ".join(lines[index].split())
        if related.matches(line):
            return index
        if _SENTENCE_END.search(line):
            return None
    return None


def choose_ending(lines: list[str], min_fragments: int = MIN_ENDING_FRAGMENTS) -> Ending:
    """The ending passage of a reference given as paragraph lines (SPEC §2, ``reference_scope.end``).

    Trailing lines matched by :func:`trailer_rule` are skipped, and so is a block of titles under a
    related-articles heading; from the last remaining line the passage grows backwards over whole
    lines until it yields ``min_fragments`` fragments. When the whole reference yields fewer, the
    whole reference is the ending and ``flag`` is :data:`SHORT_REFERENCE_FLAG`; when no line is prose,
    the rule is applied from the last line and ``flag`` is :data:`NO_PROSE_FLAG`.

    Raises :class:`CorpusImportError` when the reference yields no fragment at all.
    """
    lengths = [normalised_length(line) for line in lines]
    total = sum(lengths)
    if total < FRAGMENT_CHARS:
        raise CorpusImportError(
            f"the reference has only {total} normalised characters (letters/digits); it needs at least "
            f"{FRAGMENT_CHARS} to yield one fragment for its ending"
        )
    if total // FRAGMENT_CHARS < min_fragments:
        return Ending("\n".join(lines), 1, len(lines), total // FRAGMENT_CHARS, (), SHORT_REFERENCE_FLAG)

    skipped: list[tuple[int, str]] = []
    last = len(lines) - 1
    while last >= 0:
        name = trailer_rule(lines[last])
        if name is None:
            block = _related_block_start(lines, last)
            if block is None:
                break
            skipped += [(index + 1, "related") for index in range(last, block - 1, -1)]
            last = block - 1
            continue
        skipped.append((last + 1, name))
        last -= 1
    flag = None
    if last < 0:
        last, skipped, flag = len(lines) - 1, [], NO_PROSE_FLAG

    first, chars = last, lengths[last]
    while chars // FRAGMENT_CHARS < min_fragments and first > 0:
        first -= 1
        chars += lengths[first]
    if chars // FRAGMENT_CHARS < min_fragments:
        # Not enough prose before the trailer: take the trailing lines after it too, in order.
        while chars // FRAGMENT_CHARS < min_fragments and last < len(lines) - 1:
            last += 1
            chars += lengths[last]
        skipped = [item for item in skipped if item[0] > last + 1]
    return Ending("\n".join(lines[first : last + 1]), first + 1, last + 1, chars // FRAGMENT_CHARS,
                  tuple(sorted(skipped)), flag)
