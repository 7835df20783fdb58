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
# Chinese and Japanese dates, times and ages as comment headers write them: "11月22日", "2026年11月22日",
# "12时30分", "3天前", "5分钟前", "2時間前", "昨天", "今日". Digits are ASCII after the label normal form (NFKC).
_CJK_TIME = re.compile(
    r"^(?:(?=\d)(?:\d+年)?(?:\d+月)?(?:\d+[日号])?(?:\d+[时時点點])?(?:\d+分)?(?:\d+秒)?"
    r"|\d+(?:秒|分钟|分鐘|分|小时|小時|時間|天|日|周|週|个月|個月|ヶ月|か月|年)前"
    r"|刚刚|剛剛|昨天|前天|今天|昨日|今日|一昨日)$")
_TOKEN_SPLIT = re.compile(r"[\s,.:/\-–—|·•()\[\]@]+")

CONNECTORS = frozenset(
    "by from posted written wrote writes says said replied answered comment comments reply on at in "
    "von schrieb schreibt sagt antwortete geschrieben am um "
    "par de a écrit écrit dit répondu le "
    "por escribió escribe dice respondió el "
    "di scrisse scrive ha scritto dice "
    "door schreef schrijft zegt op".split()
)
"""Attribution syntax that may surround a name on its own line: "by Alice", "Alice says:", "von Bob",
"by kcin (34043) writes:"."""

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
    "2019-09-29 10:46:47", "3 days ago", "vor 2 Stunden", "11月22日", "3天前", "昨天"): every word is a
    date/time word or a number, and there is a digit or a relative day word. Standalone timestamps are
    metadata, never authors or record text (SPEC §3.6)."""
    return _is_timestamp(label_normalise(text))


def _is_timestamp(norm: str) -> bool:
    tokens = [t for t in _TOKEN_SPLIT.split(norm) if t]
    if not tokens:
        return False
    evidence = False
    for token in tokens:
        if _NUMBERISH.match(token) or _CJK_TIME.match(token):
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
    "Reply · Like (3)", "Posted March 3, 2012", "#12", "Permalink", or only pagination labels
    ("PREVIOUS POST", "« Older entries"). Such text is neither an author nor record text (SPEC §3.5
    metadata-only text)."""
    rest = labels.strip(label_normalise(text))
    return _only_metadata(rest) or is_navigation_label(rest)


def _only_metadata(rest: str) -> bool:
    for token in _TOKEN_SPLIT.split(rest):
        token = _PUNCT_EDGES.sub("", token)
        if not token or _NUMBERISH.match(token) or token in _TIME_TOKENS or token in CONNECTORS \
                or _CJK_TIME.match(token):
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


ATTRIBUTION_VERBS = frozenset(
    "says said wrote writes replied answered schrieb schreibt sagt antwortete dit écrit répondu "
    "dice escribió escribe respondió scrisse scrive schreef schrijft zegt".split()
)
"""The verbs of :data:`CONNECTORS` that attribute the text to the name before them: "Alice said:"."""


def verb_follows(line: str, name: str) -> bool:
    """True when, on ``line``, an attribution verb (:data:`ATTRIBUTION_VERBS`) directly follows ``name``
    ("[Arthur in the Garden!](…) said:", "**Bo!** schrieb:"): the verb says the text before it is a
    name, whatever that text's final punctuation."""
    norm_line, norm_name = label_normalise(line), label_normalise(name)
    index = norm_line.find(norm_name) if norm_name else -1
    if index < 0:
        return False
    after = _PUNCT_EDGES.sub("", norm_line[index + len(norm_name):]).split()
    return bool(after) and after[0].strip(":,") in ATTRIBUTION_VERBS


def plausible_name(text: str, labels: LabelSet, *, max_words: int = MAX_NAME_WORDS) -> bool:
    """True when ``text`` can be an author's name: non-empty, at most :data:`MAX_NAME_CHARS`
    characters and ``max_words`` words, has a letter, is not a URL, a timestamp, a count or any
    reviewed label, and does not end a sentence (a final initial, "Amy D.", is no sentence end)."""
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
    words = norm.split()
    if len(words) == 1 or not norm.endswith((".", "!", "?", "。", "！", "？")):
        return True
    # A final initial or suffix ("Amy D.", "John Smith Jr.") is part of a name, not the end of a sentence.
    return bool(_FINAL_INITIAL.match(words[-1]))


_FINAL_INITIAL = re.compile(r"^(?:[^\W\d_]|jr|sr)\.$")


def quote_attribution(text: str) -> str | None:
    """The name in a quote attribution line ("Alice wrote:" → "Alice"), else ``None``."""
    match = _QUOTE_ATTRIBUTION.match(label_normalise(text))
    if match is None:
        return None
    name = (match.group("before") or match.group("after") or "").strip(" :")
    return name or None


# --- lines that look like names but name nobody (SPEC §3.5) --------------------------------------------

# A reply subject starts with a reply prefix ("Re:", "RE[2]:", "AW:", "SV:", "Antw:"), as mail and forum
# software write it; a score decoration is a bracketed "label: number" group ("(Score:5, Insightful)",
# "[Rating: 4]"). Both are the shape of a subject line, whatever its words.
_REPLY_PREFIX = re.compile(r"^(?:re|aw|sv|antw)\s*(?:\[\d+\]|\^\d+)?\s*:", re.I)
_SCORE_DECORATION = re.compile(r"[(\[][^()\[\]]*?[^\W\d_]+\s*[:=]\s*[+-]?\d[^()\[\]]*[)\]]")
# A count or score standing alone where a name would be: "Score:2", "12 points", "+5 Funny", "3 Antworten".
# ("2. Max", an ordered item's number before a name, is no count.)
_COUNT_PHRASE = re.compile(
    r"^(?:[^\W\d_]+\s*[:=]\s*[+-]?\d[\d.,]*(?:\s*,\s*[^\W\d_]+)?|[+-]?\d[\d,]*(?:\.\d+)?\s+[^\W\d_]+)$")


def is_subject_line(text: str) -> bool:
    """True when ``text`` is a comment's subject line, not its author: it starts with a reply prefix
    ("Re: (Score:3)", "Re:Not me!") or carries a score decoration ("Justification of Apathy (Score:5,
    Interesting)"). Decided by the line's shape (SPEC §3.5: a subject line is never an author)."""
    norm = label_normalise(text).lstrip("#").strip()
    return bool(_REPLY_PREFIX.match(norm) or _SCORE_DECORATION.search(norm))


def is_count_phrase(text: str) -> bool:
    """True when ``text`` is a score or count decoration on its own: "Score:2", "Score: 5, Insightful",
    "12 points", "3 replies". Such a line names nobody (SPEC §3.5)."""
    return bool(_COUNT_PHRASE.match(_PUNCT_EDGES.sub("", label_normalise(text))))


# Pagination between pages of a site, in the corpus languages: a direction word, alone or with what is
# paged ("Next post", "« Older entries", "Vorheriger Beitrag", "Article précédent", "Entrada anterior").
_NAV_DIRECTIONS = frozenset(
    "next previous prev older newer earlier later back forward "
    "nächster nächste nächstes vorheriger vorherige vorheriges älterer ältere älteres neuerer neuere neueres weiter zurück "
    "suivant suivante suivants précédent précédente précédents "
    "siguiente siguientes anterior anteriores "
    "successivo successiva precedente precedenti "
    "próximo próxima "
    "volgende vorige oudere nieuwere".split()
)
_NAV_OBJECTS = frozenset(
    "post posts entry entries article articles page pages story stories item thread topic comment comments "
    "photo gallery chapter episode the to "
    "beitrag beiträge artikel seite eintrag einträge zum zur "
    "billet billets publication "
    "entrada entradas artículo artículos página "
    "articolo articoli pagina "
    "artigo artigos postagem "
    "bericht berichten".split()
)


def is_navigation_label(text: str) -> bool:
    """True when ``text`` is a pagination link's label: every word is a direction ("next", "older",
    "précédent") or what is paged ("post", "Beitrag"), with at least one direction, arrows and
    punctuation aside ("[NEXT POST]", "« Previous Post", "Older Entries »"). It names nobody (SPEC §3.5)."""
    words = [w for w in (_PUNCT_EDGES.sub("", t) for t in _TOKEN_SPLIT.split(label_normalise(text))) if w]
    if not words or not any(w in _NAV_DIRECTIONS for w in words):
        return False
    return all(w in _NAV_DIRECTIONS or w in _NAV_OBJECTS for w in words)


# Taxonomy and filing labels, in the corpus languages: the line they head lists the post's categories or
# tags ("Categories: [Blogging Sense](…)", "Tags: a, b", "Filed under: News", "Posted in: Travel"). Such a
# label names nobody, whatever follows it (SPEC §3.5).
_TAXONOMY_LABELS = frozenset(label.casefold() for label in (
    "category", "categories", "tag", "tags", "tagged", "tagged with", "tagged as", "filed under", "filed in",
    "posted in", "posted under", "labels", "label", "topics", "topic", "keywords", "sections", "archived in",
    "kategorie", "kategorien", "schlagwort", "schlagworte", "schlagwörter", "abgelegt unter", "veröffentlicht in",
    "catégorie", "catégories", "étiquette", "étiquettes", "mots-clés", "mots clés", "classé dans", "publié dans",
    "categoría", "categorías", "etiqueta", "etiquetas", "archivado en", "publicado en",
    "categoria", "categorie", "tag associati", "archiviato in", "pubblicato in",
    "categorias", "marcadores", "arquivado em", "publicado em",
    "categorieën", "trefwoorden", "geplaatst in",
))


def is_taxonomy_label(text: str) -> bool:
    """True when ``text`` is a taxonomy or filing label ("Categories", "Tags", "Filed under", "Posted in",
    "Labels", "Schlagworte", "Étiquettes"), edge punctuation and counts aside: it heads a list of the
    post's categories, never an author (SPEC §3.5)."""
    return _strip_counts(label_normalise(text)) in _TAXONOMY_LABELS


_NAME_PARTICLES = frozenset("van von de der den del della di da du dos das la le ter ten bin ibn al el y e".split())
_URL_TOKEN = re.compile(r"(?:https?://|www\.)\S+", re.I)


def without_urls(text: str) -> str:
    """``text`` without bare URL tokens: a commenter's site written as text beside the name
    ("http://twitter.com/jyarmis Jonathan L. Yarmis") is a link target, not part of the name."""
    return " ".join(_URL_TOKEN.sub(" ", text).split())


def name_like(text: str, labels: LabelSet, *, max_words: int = MAX_COLON_NAME_WORDS) -> bool:
    """True when ``text`` is shaped like a person's name, for names that no link or bold marks
    (SPEC §3.5 list-item records, trailing signatures): a :func:`plausible_name` of at most
    ``max_words`` words, no colon, not a subject line, a count or a pagination label, and either one
    word (a user name: "garaged", "kestrel_77") or words that each start with a capital, a digit or a
    caseless letter, name particles aside ("Amy D.", "Jonathan L. Yarmis", "Ludwig van Dijk"). A
    phrase such as "Poke the box" or "Ferry timetable changes" is a title, not a name."""
    if not plausible_name(text, labels, max_words=max_words) or ":" in text or "：" in text:
        return False
    if is_subject_line(text) or is_count_phrase(text) or is_navigation_label(text):
        return False
    words = text.split()
    if text.rstrip().endswith((".", "!", "?", "。", "！", "？")) and not _FINAL_INITIAL.match(label_normalise(words[-1])):
        return False  # "Word!" opening a comment is its text, not a one-word name
    if len(words) == 1:
        return True
    for word in words:
        first = next((ch for ch in word if ch.isalpha()), None)
        if first is not None and first.islower() and word.lower() not in _NAME_PARTICLES:
            return False
    return True


# A signature after a comment's text: "— Alice", "-- Bob", "~ Carol", "Posted by TexARC | Report as abusive",
# "posted on Wednesday, October 24, 2012 at 7:26 PM by Darren" (its date between the verb and "by").
# Not a bare "by X" or "- X" (a byline, a list marker), and never before the text (SPEC §3.5).
_SIGNATURE = re.compile(
    r"^(?:(?:—|–|―|--|~)\s*"
    r"|(?:posted|submitted|written|added|geschrieben|verfasst|publié|posté|écrit|publicado|escrito|enviado|"
    r"pubblicato|scritto|inviato|geplaatst|geschreven)(?:\s+(?P<when>[^\n]{1,80}?))?\s+"
    r"(?:by|von|par|por|da|di|door)\s+)(?P<rest>\S.*)$",
    re.I,
)


def signature_name(line: str, labels: LabelSet) -> str | None:
    """The name a trailing signature line gives ("Posted by TexARC | Report as abusive" → "TexARC",
    "— Mary Ann Smith, 3 March" → "Mary Ann Smith", "posted on Wednesday, October 24, 2012 at 7:26 PM by
    Darren" → "Darren"), else ``None``: the shortest run of words after the signature syntax that is
    :func:`name_like` and leaves only labels, timestamps and counts. Between the verb and "by" only a
    date may stand ("Posted in Uncategorized by Admin" is a filing line, not a signature)."""
    match = _SIGNATURE.match(line.strip())
    if match is None:
        return None
    when = match.group("when")
    if when and not _only_metadata(labels.strip(label_normalise(when))):
        return None
    return leading_name(match.group("rest"), labels)


def leading_name(text: str, labels: LabelSet) -> str | None:
    """The name that opens ``text`` when only labels, timestamps, counts and attribution syntax follow
    it ("TexARC | Report as abusive" → "TexARC", "Beth on August 22, 2012 at 6:29 pm said:" → "Beth"),
    else ``None``: the shortest run of at most :data:`MAX_COLON_NAME_WORDS` words with such a rest,
    and it must be :func:`name_like`."""
    words = text.split()
    for size in range(1, min(len(words), MAX_COLON_NAME_WORDS) + 1):
        name = " ".join(words[:size]).rstrip(",;|·")
        rest = " ".join(words[size:])
        if _only_metadata(labels.strip(label_normalise(rest))):
            return name if name_like(name, labels) else None
    return None

