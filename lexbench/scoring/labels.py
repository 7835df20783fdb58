"""Label syntax for record contracts (SPEC §3.5–§3.7): reviewed label lists, timestamps, counts, names.

What a label *means* comes from the case's contract (``ignored_labels``, ``unavailable_notices``,
``non_author_labels``, ``metadata_labels``, comment ``heading_labels`` and ``end_labels``); what a
timestamp, a count decoration or an attribution connector *looks like* is syntax and lives here, as
the seed asks. Every comparison uses label normalisation (:func:`label_normalise`) on both sides.

Everything here is linear in the length of the text it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from lexbench.text import label_normalise as _label_normalise

# Record parsers normalise the same short strings many times (labels, names, "Reply · Like"):
# a bounded cache keeps that cheap without changing any result.
label_normalise = lru_cache(maxsize=65_536)(_label_normalise)

# Count decorations around a label: "Comments (12)", "12 Comments", "[3]", "#4", "12 ×".
_LEADING_COUNT = re.compile(r"^[#(\[]?\d[\d.,\s]*[)\]]?\s*[×x:.-]?\s+")
_TRAILING_COUNT = re.compile(r"\s*[(\[]?[#:]?\s*\d[\d.,]*\s*[)\]]?$")
_PUNCT_EDGES = re.compile(r"^[\W_]+|[\W_]+$")

# Words of dates and times in the corpus languages (en, de, fr, es, pt, it, nl), casefolded.
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "januar jänner februar märz mai juni juli oktober dezember mär okt dez "
    "janvier février mars avril juin juillet août septembre octobre novembre décembre janv févr avr juil déc "
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre ene dic "
    "janeiro fevereiro março maio junho julho setembro outubro dezembro fev "
    "gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre gen mag giu lug ago set ott "
    "januari februari maart mei augustus oktober"
).split()
_WEEKDAYS = (
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun "
    "montag dienstag mittwoch donnerstag freitag samstag sonntag mo di mi do fr sa so "
    "lundi mardi mercredi jeudi vendredi samedi dimanche "
    "lunes martes miércoles jueves viernes sábado domingo"
).split()
_TIME_WORDS = (
    "at on um am pm a.m p.m uhr h à le el de del of the in on ago vor her il y a hace fa há "
    "yesterday today now just gestern heute vorgestern hier aujourd'hui ayer hoy ieri oggi ontem hoje "
    "second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks month months year years "
    "sekunde sekunden minuten stunde stunden tag tage tagen woche wochen monat monate monaten jahr jahre jahren "
    "seconde secondes heure heures jour jours semaine semaines mois an ans année années "
    "segundo segundos minuto minutos hora horas día días semana semanas mes meses año años "
    "utc gmt cet cest est edt pst pdt bst"
).split()
_TIME_TOKENS = frozenset(_MONTHS) | frozenset(_WEEKDAYS) | frozenset(_TIME_WORDS)
_RELATIVE = frozenset("yesterday today now just gestern heute vorgestern hier ayer hoy ieri oggi ontem hoje".split())
_NUMBERISH = re.compile(r"^\d+(?:st|nd|rd|th|er|e|º|ª|h|am|pm|\.)?$")
_TOKEN_SPLIT = re.compile(r"[\s,.:/\-–—|·•()\[\]@]+")

CONNECTORS = frozenset(
    "by from posted written wrote says said replied answered comment comments reply on at in "
    "von schrieb sagt antwortete geschrieben am um "
    "par de a écrit dit répondu le "
    "por escribió dice respondió el "
    "di scrisse ha scritto dice "
    "door schreef zegt op".split()
)
"""Attribution syntax that may surround a name on its own line: "by Alice", "Alice says:", "von Bob"."""

ATTRIBUTION = frozenset("by von par por di door from de".split())
"""Words that put the following name in the author's place on a post's header line: "#12 by Alice"."""

_QUOTE_ATTRIBUTION = re.compile(
    r"^(?:(?P<before>.+?)\s+(?:wrote|said|says|schrieb|a écrit|escribió|scrisse|schreef|disse)\b.*"
    r"|(?:quote|quoting|zitat|citation|cita|citazione|citaat)\b\s*(?:from|von|de|di|van|:)?\s*:?\s*(?P<after>.+?))\s*:?$",
    re.I,
)
"""Quote attribution syntax: "Alice wrote:", "Quote from Alice", "Zitat von Bob"."""

MAX_NAME_CHARS = 64
MAX_NAME_WORDS = 6
MAX_COLON_NAME_WORDS = 4


def strip_counts(label: str) -> str:
    """``label`` in label normal form without count decorations and edge punctuation:
    "Comments (12)" → "comments", "12 Responses:" → "responses", "#4" → ""."""
    return _strip_counts(label_normalise(label))


@lru_cache(maxsize=65_536)
def _strip_counts(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        # Counts and the punctuation around a label ("Reply:", "(3)", "…") are decoration.
        text = _PUNCT_EDGES.sub("", _TRAILING_COUNT.sub("", _LEADING_COUNT.sub("", text))).strip()
    return "" if text.lstrip("#").isdigit() else text


def is_timestamp(text: str) -> bool:
    """True when ``text`` is only a date and/or time ("March 3, 2012 at 4:12 pm", "10. April 2020",
    "2019-09-29 10:46:47", "3 days ago", "vor 2 Stunden"): every word is a date/time word or a number,
    and there is a digit or a relative day word. Standalone timestamps are metadata, never authors
    or record text (SPEC §3.6)."""
    return _is_timestamp(label_normalise(text))


def _is_timestamp(norm: str) -> bool:
    tokens = [t for t in _TOKEN_SPLIT.split(norm) if t]
    if not tokens:
        return False
    evidence = False
    for token in tokens:
        if _NUMBERISH.match(token):
            evidence = True
        elif token in _TIME_TOKENS:
            evidence = evidence or token in _RELATIVE
        else:
            return False
    return evidence


class LabelSet:
    """A reviewed label list, compared in label normal form with count decorations ignored.

    :meth:`matches` answers "is this whole text one of the labels"; :meth:`strip` removes every
    occurrence of any label at word boundaries (longest first), for lines such as
    "Reply · Report · Like (3)".
    """

    def __init__(self, labels: Iterable[str]) -> None:
        self.keys = frozenset(k for k in (strip_counts(label) for label in labels) if k)
        alternatives = sorted((re.escape(k) for k in self.keys), key=len, reverse=True)
        self._pattern = re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)") if alternatives else None

    def __bool__(self) -> bool:
        return bool(self.keys)

    def matches(self, text: str) -> bool:
        """True when ``text`` (count decorations ignored) is exactly one of the labels."""
        return bool(self.keys) and _strip_counts(label_normalise(text)) in self.keys

    def strip(self, normalised: str) -> str:
        """``normalised`` (already label-normalised) with every label occurrence removed."""
        return self._pattern.sub(" ", normalised) if self._pattern is not None else normalised


def only_metadata(text: str, labels: LabelSet) -> bool:
    """True when ``text`` holds nothing but labels, timestamps, counts, connectors and punctuation:
    "Reply · Like (3)", "Posted March 3, 2012", "#12", "Permalink". Such text is neither an author
    nor record text (SPEC §3.5 metadata-only text)."""
    return _only_metadata(labels.strip(label_normalise(text)))


def _only_metadata(rest: str) -> bool:
    for token in _TOKEN_SPLIT.split(rest):
        token = _PUNCT_EDGES.sub("", token)
        if not token or _NUMBERISH.match(token) or token in _TIME_TOKENS or token in CONNECTORS:
            continue
        if not any(ch.isalnum() for ch in token):
            continue
        return False
    return True


def name_residue(line: str, name: str, labels: LabelSet) -> bool:
    """True when ``line`` is ``name`` plus only attribution syntax, labels, timestamps and counts:
    "Alice says:", "by Alice", "Alice — March 3, 2012 at 4:12 pm". Used to accept a linked or bold
    name as a standalone author line."""
    norm_line = label_normalise(line)
    norm_name = label_normalise(name)
    index = norm_line.find(norm_name)
    if not norm_name or index < 0:
        return False
    rest = norm_line[:index] + " " + norm_line[index + len(norm_name) :]
    return _only_metadata(labels.strip(rest))


def plausible_name(text: str, labels: LabelSet, *, max_words: int = MAX_NAME_WORDS) -> bool:
    """True when ``text`` can be an author's name: non-empty, at most :data:`MAX_NAME_CHARS`
    characters and ``max_words`` words, has a letter, is not a URL, a timestamp, a count or any
    reviewed label, and does not end a sentence."""
    norm = label_normalise(text)
    if not norm or len(norm) > MAX_NAME_CHARS or len(norm.split()) > max_words:
        return False
    if not any(ch.isalpha() for ch in norm):
        return False
    if "://" in norm or norm.startswith("www.") or norm.startswith("<"):
        return False
    # Only labels, counts, timestamps and connectors ("Comment 12", "Posted by") name nobody.
    if _strip_counts(norm) in labels.keys or _is_timestamp(norm) or _only_metadata(labels.strip(norm)):
        return False
    return not norm.rstrip().endswith((".", "!", "?", "。", "！", "？")) or len(norm.split()) == 1


def quote_attribution(text: str) -> str | None:
    """The name in a quote attribution line ("Alice wrote:" → "Alice"), else ``None``."""
    match = _QUOTE_ATTRIBUTION.match(label_normalise(text))
    if match is None:
        return None
    name = (match.group("before") or match.group("after") or "").strip(" :")
    return name or None
