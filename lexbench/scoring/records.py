"""Count valid comment and post records in an answer (SPEC §3.5, §3.6).

Two extraction routes, chosen per answer:

- **native HTML** — the case's reviewed selectors on the pruned :class:`VisibleTree`; used when the
  answer is HTML and at least one reviewed record container is present. Its count is final: a failed
  native check is never rescued by the text parser.
- **structured text** — line units of the projection (Markdown, plain text, or HTML without the
  reviewed containers, then without navigation, sidebars and footers). Comments are read inside the
  comment component only; posts are anchored on owned post-detail links.

Every route applies the same record rules afterwards: an author that is a plausible name and not a
label, timestamp, count, subject line or pagination label; non-empty text that is not only labels,
timestamps or a placeholder; de-duplication by source record id, else by author and text (comments)
or by link (posts). The text route reads records as answers write them: author lines, colon labels,
list items headed by a name, and signatures after the text (README "How comments and posts are read").

Cost is linear in the answer: each unit is classified a bounded number of times, each selector match
walks up to its record once, and article-text checks use a set of reference windows, never a scan
of the reference per record.

Why one module of this size: comment and post records (SPEC §3.5–§3.6) share one record model, one ownership check and one label normalisation across HTML, Markdown and text; splitting by format would split the rule.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

import lxml.html

from lexbench.dataset.case import CommentContract, PostContract
from lexbench.scoring.labels import (
    ATTRIBUTION,
    CONNECTORS,
    MAX_COLON_NAME_WORDS,
    MAX_NAME_WORDS,
    LabelSet,
    is_count_phrase,
    is_navigation_label,
    is_subject_line,
    is_taxonomy_label,
    is_timestamp,
    label_normalise,
    leading_name,
    name_like,
    name_residue,
    only_metadata,
    plausible_name,
    quote_attribution,
    signature_name,
    strip_counts,
    verb_follows,
    without_urls,
)
from lexbench.scoring.links import PageBase
from lexbench.scoring.patterns import CasePattern
from lexbench.scoring.projection import CODE, HEADING, LIST_ITEM, Link, VisibleTree, _walk
from lexbench.scoring.view import AnswerView, Unit, first_occurrences
from lexbench.text import normalise

ARTICLE_WINDOW = 12
"""Normalised characters per window when testing whether record text was copied from the article."""
MAX_DETAIL_RECORDS = 40
"""At most this many records are listed in a component's details (reports stay small)."""

_COLON_LABEL = re.compile(r"^(?P<name>[^:：]{1,64}?)\s*[:：]\s+(?P<text>\S.*)$")
# The attribution verbs a record header line writes between the name and its colon.
_HEADER_VERB = r"(?:says|said|wrote|writes|replied|schrieb|sagt|dit|a écrit|escribió|dice|scrisse|schreef)"
# A label line whose text follows on the next lines: "Alice says:", "Bob wrote:", "Carol:".
_COLON_LINE = re.compile(r"^(?P<name>[^:：]{1,64}?)(?P<verb>\s+" + _HEADER_VERB + r")?\s*[:：]$", re.I)
# A record header of a name, an attribution verb, a colon and a date, the verb even glued to the name as
# some extractors write it: "Public Speaking Trainersays:11/2/2012", "Rachel says: August 6, 2012 at 3:37 pm".
_ATTRIBUTION_HEADER = re.compile(r"^(?P<name>[^:：]{1,64}?)\s*" + _HEADER_VERB + r"\s*[:：]\s*(?P<when>\S.*)$", re.I)
# The same with a parenthesised aside between the name and the verb: "Chimezirim Odimba(Twitter : @iteachcash)says:…".
_ASIDE_HEADER = re.compile(r"^(?P<name>[^()]{1,64}?)\s*\([^()]{0,64}\)\s*(?P<rest>" + _HEADER_VERB + r"\s*[:：].*)$", re.I)
_VERB_LAST = re.compile(r"\s" + _HEADER_VERB + r"\s*[:：]$", re.I)
_NAME_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")
MAX_BARE_COLON_WORDS = 3
"""A plain "Name:" line (no attribution verb) names an author only up to this many words."""


# --- results -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One valid record: its author (as shown), text length in normalised characters, and its
    identity (a source record id or a post link; ``None`` for comments identified by content)."""

    author: str
    chars: int
    identity: str | None = None


@dataclass
class RecordCount:
    """What one route found: valid distinct ``records``, rejected candidates counted by reason,
    the ``route`` taken (``"html selectors"``, ``"markdown comment section …"``) and a ``note``
    when no record could even be looked for (e.g. no comment section)."""

    route: str
    records: list[Record] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    note: str = ""

    def reject(self, reason: str) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1


class _Distinct:
    """De-duplication: distinct source ids stay distinct; without an id, equal keys count once."""

    def __init__(self, count: RecordCount) -> None:
        self.count = count
        self.seen: set[tuple[str, ...]] = set()

    def add(self, record: Record, key: tuple[str, ...]) -> None:
        if key in self.seen:
            self.count.duplicates += 1
            return
        self.seen.add(key)
        self.count.records.append(record)


# --- shared checks -------------------------------------------------------------------------------------


class ArticleText:
    """Tells whether a record's text is wholly copied from the reference body (SPEC §3.5: article
    text never supplies records). Holds every ``ARTICLE_WINDOW``-character window of the normalised
    reference; a text counts as article text when all its consecutive windows (and its last one) are
    reference windows. Texts shorter than one window are never judged as article text."""

    def __init__(self, reference: str | None) -> None:
        norm = normalise(reference or "")
        self.windows = {norm[i : i + ARTICLE_WINDOW] for i in range(len(norm) - ARTICLE_WINDOW + 1)}

    def contains(self, text_norm: str) -> bool:
        size = len(text_norm)
        if not self.windows or size < ARTICLE_WINDOW:
            return False
        starts = list(range(0, size - ARTICLE_WINDOW + 1, ARTICLE_WINDOW)) + [size - ARTICLE_WINDOW]
        return all(text_norm[i : i + ARTICLE_WINDOW] in self.windows for i in starts)


def _clean(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class _Labels:
    """A contract's label lists, prepared once per case."""

    metadata: LabelSet  # every label that is neither an author nor record text
    unavailable: LabelSet

    @classmethod
    def of(cls, contract: CommentContract | PostContract, chrome: Iterable[str] = ()) -> _Labels:
        """Labels of ``contract``; ``chrome`` adds the case's reviewed page-chrome phrases (stable
        groups outside the title and the article), which are never authors or record text either."""
        lists: list[str] = list(contract.ignored_labels) + list(chrome)
        if isinstance(contract, PostContract):
            lists += contract.non_author_labels + contract.metadata_labels
        return cls(LabelSet(lists), LabelSet(contract.unavailable_notices))

    def placeholder(self, text: str) -> bool:
        """True when ``text`` is only unavailable notices (and labels, timestamps, counts)."""
        if not self.unavailable:
            return False
        rest = self.unavailable.strip(label_normalise(text))
        return rest != label_normalise(text) and only_metadata(rest, self.metadata)

    def author_ok(self, name: str) -> bool:
        """Whether ``name`` can be an author: a plausible name that is no unavailable notice, subject
        line ("Re: (Score:3)"), score or count ("Score:2"), pagination label ("NEXT POST") or taxonomy
        label ("Categories", "Tags", "Filed under")."""
        return plausible_name(name, self.metadata) and not self.unavailable.matches(name) and not (
            is_subject_line(name) or is_count_phrase(name) or is_navigation_label(name) or is_taxonomy_label(name))


def _is_url_text(text: str) -> bool:
    low = text.strip().lower()
    return "://" in low or low.startswith("www.")


# Share and bookmark endpoints ("Tweet" → twitter.com/share, facebook.com/sharer.php, …/intent/tweet):
# a link there is a page control, whatever its text, never a person (SPEC §3.5 pure UI labels).
_SHARE_TARGET = re.compile(
    r"(?:/share(?:r|article)?\b|/intent/|/submit\?|/pin/create|/bookmarks/mark|/post\?url=|/update\.bml\?|"
    r"/dialog/feed\?|addthis\.com|addtoany\.com|^mailto:)", re.I)


def _is_share_link(href: str) -> bool:
    return bool(_SHARE_TARGET.search(href.strip()))


def _share_controls(unit: Unit, labels: _Labels, titles: Callable[[Link], bool] | None = None) -> bool:
    """True for a line of share links ("Tumblr", "Digg") or of links to the site's other pages by title
    (``titles``, :class:`SiteTitles`) and nothing else: page controls and navigation, neither an author
    nor record text."""
    if not unit.links or not all(_is_share_link(link.href) or (titles is not None and titles(link))
                                 for link in unit.links):
        return False
    rest = label_normalise(unit.text)
    for link in unit.links:
        if link.text:
            rest = rest.replace(label_normalise(link.text), " ")
    return only_metadata(rest, labels.metadata)


_PAGINATION_OPEN = ("«", "‹", "←", "<")
_PAGINATION_CLOSE = ("»", "›", "→", ">")


def _pagination_line(unit: Unit) -> bool:
    """True for a link line an arrow leads or closes ("« [At Google Zeitgeist…](…)", "[Time To Begin,
    Again](…) »"): a link to the previous or next page, titled by that page, never an author."""
    text = unit.text.strip()
    return bool(unit.links) and (text.startswith(_PAGINATION_OPEN) or text.endswith(_PAGINATION_CLOSE))


class SiteTitles:
    """Tells a linked title from a linked name (SPEC §3.5 refused shapes): a link to another page of the
    case's own site (same host, a path other than the root) whose text is not :func:`name_like` is a
    page title ("[Ferry timetable changes for summer](/coast/ferry)", a related post), not an author.
    A commenter's link to the site's root, or a name-like text ("[Bobbi Newman](/)", "[DyingIsFun]
    (/users/129502)"), or a link off the site stays an author."""

    def __init__(self, base: PageBase | None, labels: _Labels) -> None:
        self.host = _host(base.case_url) if base is not None else None
        self.base = base
        self.labels = labels

    def __call__(self, link: Link) -> bool:
        if self.base is None or self.host is None or name_like(link.text, self.labels.metadata, max_words=MAX_NAME_WORDS):
            return False
        try:
            target = urlsplit(self.base.absolute(link.href))
        except ValueError:
            return False
        return _host(target.geturl()) == self.host and target.path.strip("/") != ""


def _host(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host[4:] if host and host.startswith("www.") else host


_SENTENCE_END = (".", "!", "?", "。", "！", "？")


def _author_line(unit: Unit, labels: _Labels, *, skip_link: Callable[[str], bool] | None = None,
                 heading_floor: int | None = None, title_link: Callable[[Link], bool] | None = None) -> str | None:
    """The author named by a standalone author line (SPEC §3.5 author forms), else ``None``.

    Accepted: a heading (deeper than ``heading_floor`` when given) that is a name; a line that is a
    linked name or a bold name plus only attribution syntax, labels, timestamps and counts
    ("Alice says:", "by Alice · 3 days ago"); a linked or bold name that an attribution verb follows
    even when it ends like a sentence ("[Arthur in the Garden!](…) said:"). Never from code blocks or
    quotes, never a bare name, and never from a subject line: "## [Re:](…) ([Score:3](#))" names nobody, whatever it links, nor from a
    link ``title_link`` calls a page title (:class:`SiteTitles`).
    """
    if unit.kind == CODE or unit.quoted or is_subject_line(unit.text) or _pagination_line(unit):
        return None
    candidates: list[str] = []
    for link in unit.links:
        if link.text and not _is_url_text(link.text) and not _is_share_link(link.href) \
                and not (skip_link and skip_link(link.href)) and not (title_link and title_link(link)):
            candidates.append(link.text)
    candidates.extend(unit.strong)
    marked = list(candidates)  # the names a link or bold marks
    if unit.kind == HEADING:
        if heading_floor is not None and unit.level <= heading_floor:
            return None
        labelled = _COLON_LINE.match(unit.text.strip())
        if labelled is None:
            candidates.append(unit.text)
        elif labelled.group("verb"):
            candidates.append(labelled.group("name"))  # "Alice says:" as a heading
        # else a heading such as "Similar Posts:" labels a section; it names nobody
    for candidate in candidates:
        if labels.author_ok(candidate) and name_residue(unit.text, candidate, labels.metadata):
            return _clean(candidate)
    # A linked or bold name that an attribution verb follows is a name even when it ends like a sentence:
    # "[Arthur in the Garden!](…) said:" (a commenter named by the blog's title).
    for candidate in marked:
        bare = candidate.rstrip().rstrip("".join(_SENTENCE_END))
        if bare and candidate.rstrip() != bare and verb_follows(unit.text, candidate) and labels.author_ok(bare) \
                and name_residue(unit.text, candidate, labels.metadata):
            return _clean(candidate)
    return None


# A member's profile page, as forum and community software address it: a path segment naming the
# member space ("/profile/christine55", "/members/kataster.123/", "/u/ana", "/benutzer/…") or a
# profile query ("memberlist.php?mode=viewprofile&u=5", "member.php?u=5", "index.php?showuser=5").
_PROFILE_TARGET = re.compile(
    r"(?:/(?:profile|profiles|member|members|user|users|u|people|benutzer|mitglied|mitglieder|membre|membres|"
    r"usuario|usuarios|perfil|utente|utenti|gebruiker|gebruikers)/[^/?#\s]"
    r"|[?&](?:mode=viewprofile|showuser=)|/member\.php\?(?:[^#\s]*&)?u(?:serid)?=)", re.I)
MAX_RANK_WORDS = 6
"""How many words (numbers aside) may follow a profile-linked name on its post header line: the
member's rank and counts ("Posts: 14,580 Community champion Disability Gamechanger")."""


def _is_profile_link(href: str) -> bool:
    """Whether ``href`` is a member's profile page (:data:`_PROFILE_TARGET`)."""
    return bool(_PROFILE_TARGET.search(href.strip()))


def _profile_author(unit: Unit, labels: _Labels, skip_link: Callable[[str], bool] | None = None) -> str | None:
    """The author of a post header line that opens with a name linked to the member's profile page,
    whatever rank and counts follow it (SPEC §3.6 attributed author; README "How comments and posts
    are read"): "[poppy123456](/profile/poppy123456) Posts: 14,580Community champion" → "poppy123456",
    an avatar link before the name aside. Refused: a line that does not open with the linked name, a
    mention ("[@christine55](/profile/christine55) welcome"), a name that is no :func:`name_like` name,
    and a rest that reads as a sentence (a sentence end, or more than :data:`MAX_RANK_WORDS` words
    besides numbers: "[Bob](/profile/bob) is right, you should apply before your results come in.").
    ``None`` otherwise, and for code, quotes and subject lines."""
    if unit.kind == CODE or unit.quoted or is_subject_line(unit.text):
        return None
    named = next((link for link in unit.links if link.text.strip()), None)
    if named is None or not _is_profile_link(named.href) or (skip_link and skip_link(named.href)):
        return None
    name = _clean(named.text)
    line = _clean(unit.text)
    if not line.startswith(name) or name.startswith("@") or not labels.author_ok(name) \
            or not name_like(name, labels.metadata, max_words=MAX_NAME_WORDS):
        return None
    rest = line[len(name):].strip()
    words = [word for word in rest.split() if any(ch.isalpha() for ch in word)]
    if rest.endswith(_SENTENCE_END) or len(words) > MAX_RANK_WORDS:
        return None
    return name


def _colon_author(unit: Unit, labels: _Labels) -> tuple[str, str] | None:
    """A colon-labelled author (SPEC §3.5): ``("Alice", "Great piece")`` for "Alice: Great piece",
    ``("Alice", "")`` for a label line "Alice says:" or "Alice:" whose text follows; else ``None``.
    No link or bold marks such a name, so it must be shaped like one (:func:`name_like`): "Examples of
    missing stuff: brass wire…" is a sentence with a colon, and "Re: Tide tables" a subject line. A
    taxonomy label ("Categories:", "Tags:") names nobody, and a label whose text is only links ("Tags:
    [blog](…), [google](…)") heads a menu, not a comment."""
    if unit.kind in (CODE, HEADING) or unit.quoted or is_subject_line(unit.text):
        return None
    header = _attribution_header(unit.text, labels)
    if header is not None:
        return header, ""
    line = _COLON_LINE.match(unit.text.strip())
    if line is not None:
        name = line.group("name").strip()
        words = len(label_normalise(name).split())
        if labels.author_ok(name) and not is_timestamp(name) and (
            line.group("verb") or words <= MAX_BARE_COLON_WORDS
        ) and words <= MAX_COLON_NAME_WORDS and name_like(name, labels.metadata):
            return _clean(name), ""
        return None
    match = _COLON_LABEL.match(unit.text)
    if match is None:
        return None
    name, text = match.group("name").strip(), match.group("text").strip()
    if not labels.author_ok(name) or len(label_normalise(name).split()) > MAX_COLON_NAME_WORDS \
            or not name_like(name, labels.metadata):
        return None
    if any(":" in link.text and label_normalise(name) in label_normalise(link.text) for link in unit.links):
        return None  # the colon is inside a linked title ("[At Google Zeitgeist: Theoretical Physics…](…)")
    if is_timestamp(name) or not normalise(text):
        return None
    if unit.links and _only_link_text(text, unit.links, labels):
        return None  # "Tags: [blog](…), [google](…)": a label over a list of links is a menu, not a comment
    return _clean(name), text


def _attribution_header(line: str, labels: _Labels) -> str | None:
    """The name of a record header "<name> says: <date>" (:data:`_ATTRIBUTION_HEADER`), the verb even glued
    to the name ("Public Speaking Trainersays:11/2/2012") and a parenthesised aside after the name dropped
    ("Chimezirim Odimba(Twitter : @iteachcash)says:11/3/2012" → "Chimezirim Odimba"), or a line of a name,
    its date and the verb ("Beth on August 22, 2012 at 6:29 pm said:" → "Beth"); else ``None``. Only
    a date may follow the colon, and the name must be :func:`name_like`: "The report says: 2012 was dry"
    is a sentence."""
    text = _clean(line)
    if _VERB_LAST.search(text):  # "Beth on August 22, 2012 at 6:29 pm said:": a name, its date, the verb
        words = text.split()
        if len(words) > 1 and label_normalise(words[0]) in ATTRIBUTION:
            text = " ".join(words[1:])  # "by garaged (579941) writes:"
        name = leading_name(text, labels.metadata)
        return _clean(name) if name is not None and labels.author_ok(name) else None
    match = _ATTRIBUTION_HEADER.match(text)
    if match is None:
        aside = _ASIDE_HEADER.match(text)
        if aside is None:
            return None
        match = _ATTRIBUTION_HEADER.match(aside.group("name") + " " + aside.group("rest"))
        if match is None:
            return None
    name = _NAME_ASIDE.sub("", match.group("name")).strip()
    if not is_timestamp(match.group("when")) or not labels.author_ok(name) or not name_like(name, labels.metadata):
        return None
    return _clean(name)


# --- comments ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommentSection:
    """Where the comment component lies in a unit list: ``[start, end)``; ``opened_by`` is
    ``"heading"`` or ``"ending"``; ``level`` the comment heading's level (None when it opened at the
    ending or at a heading-like line)."""

    start: int
    end: int
    opened_by: str
    level: int | None
    end_reason: str


def _heading_label_matches(text: str, labels: Sequence[str]) -> bool:
    norm = strip_counts(text)
    for label in labels:
        key = strip_counts(label)
        if key and (norm == key or norm.startswith(key + " ")):
            return True
    return False


def _comment_heading(unit: Unit, contract: CommentContract, text_format: bool) -> int | None:
    """The level of an explicit comment heading (7 for a heading-like standalone line), else None.

    A heading, a standalone bold line or (plain text) a standalone line whose label, count
    decorations ignored, is or starts with a reviewed heading label. A heading that is only a link to
    another page is navigation, and a navigation label cannot open the section (SPEC §3.5).
    """
    if unit.kind == CODE or unit.quoted or not contract.heading_labels:
        return None
    if not _heading_label_matches(unit.text, contract.heading_labels):
        return None
    whole = label_normalise(unit.text)
    for link in unit.links:
        if label_normalise(link.text) == whole and not link.href.startswith("#"):
            return None
    if unit.kind == HEADING:
        return unit.level
    if text_format or any(label_normalise(s) == whole for s in unit.strong):
        return 7
    return None


def _locate_ending(units: Sequence[Unit], ending: str) -> int | None:
    """Index of the unit in which the first occurrence of the reviewed ending ends, else None.

    The ending is matched in scoring normal form across unit boundaries; when the whole passage is
    not found, its last 30 normalised characters are tried (a reformatted first sentence must not
    hide where the body ends)."""
    target = normalise(ending)
    if not target:
        return None
    offsets: list[int] = []
    total = 0
    for unit in units:
        total += len(unit.norm)
        offsets.append(total)
    joined = "".join(unit.norm for unit in units)
    for needle in (target, target[-30:]):
        position = joined.find(needle)
        if position >= 0:
            last_char = position + len(needle) - 1
            return bisect_right(offsets, last_char)
    return None


def locate_comment_section(units: Sequence[Unit], contract: CommentContract, ending: str | None,
                           text_format: bool) -> CommentSection | None:
    """Find the comment component (SPEC §3.5): it opens at the first explicit comment heading after
    the located body ending, else right after the ending, else (ending absent) at the first comment
    heading; it ends before a standalone reviewed end label or a heading of equal or higher level
    than the comment heading. ``None`` when neither the ending nor a comment heading is found."""
    ending_at = _locate_ending(units, ending) if ending else None
    search_from = 0 if ending_at is None else ending_at + 1
    start: int | None = None
    level: int | None = None
    opened_by = "ending"
    for index in range(search_from, len(units)):
        found = _comment_heading(units[index], contract, text_format)
        if found is not None:
            start, level, opened_by = index + 1, (found if found <= 6 else None), "heading"
            break
    if start is None:
        if ending_at is None:
            return None
        start = ending_at + 1
    end_labels = LabelSet(contract.end_labels)
    for index in range(start, len(units)):
        unit = units[index]
        if unit.kind != CODE and not unit.quoted and end_labels.matches(unit.text):
            return CommentSection(start, index, opened_by, level, f"end label {unit.text!r}")
        if level is not None and unit.kind == HEADING and unit.level <= level and not unit.quoted:
            return CommentSection(start, index, opened_by, level, f"heading {unit.text!r}")
    return CommentSection(start, len(units), opened_by, level, "end of answer")


# A record header inside a run-on line: an attribution verb, its colon and a date (month-name, day-month or
# numeric, a time after it allowed), the text glued right after it: "Max says: November 12, 2012 at 8:51 amWhile…".
_RUN_ON_DATE = (r"(?:[^\W\d_]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\.?\s+[^\W\d_]{3,9}\.?,?\s+\d{4}"
                r"|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2})(?:,?\s+(?:at|um|à)?\s*\d{1,2}[:h.]\d{2}(?:\s?[ap]\.?m\.?)?)?")
_RUN_ON_HEADER = re.compile(r"(?<=\S)\s+(?:says|said|wrote|schrieb|a écrit|escribió|scrisse|schreef)\s*[:：]\s*"
                            r"(?P<date>" + _RUN_ON_DATE + r")", re.I)
_GLUE = re.compile(r"(?:(?<=[^\W\d_])(?=[A-Z][a-z])(?<![A-Z])|(?<=[”\"'’).!?:|])(?=\w))")
_NAME_END_PUNCT = tuple(".!?:;|”\"'’)(,")


def _run_on_name_start(text: str, end: int, floor: int, labels: _Labels, headings: LabelSet) -> int | None:
    """Where the name before a run-on header (ending at ``end``) starts: the longest run of at most
    :data:`MAX_COLON_NAME_WORDS` words back from ``end`` that is :func:`name_like`, never crossing a
    sentence end, punctuation, a label or comment heading label (``headings``), a word with a digit
    before a name, or ``floor``; a word glued to what came before ("ReplyMax",
    "Knowledge”Matthew") starts at the glue. ``None`` when no name stands there, or when the name runs on
    from ordinary words of a sentence (no boundary before it)."""
    best: int | None = None
    position = end
    for _ in range(MAX_COLON_NAME_WORDS):
        start = text.rfind(" ", floor, position)
        word_start = start + 1 if start >= 0 else floor
        word = text[word_start:position]
        glued = [m.start() for m in _GLUE.finditer(word)]
        if glued:
            word_start += glued[-1]
            word = text[word_start:position]
        if not word or word.endswith(_NAME_END_PUNCT) or labels.metadata.matches(word) or headings.matches(word) \
                or (best is not None and any(ch.isdigit() for ch in word)):
            break  # "5 Comments Rachel says:" names Rachel
        candidate = text[word_start:end].strip()
        if labels.author_ok(candidate) and name_like(candidate, labels.metadata):
            best = word_start
        else:
            return None  # the name runs on from a sentence's words ("The keeper's ledger says:"): no header
        if glued or start < floor:
            break
        position = start
        while position > floor and text[position - 1] == " ":
            position -= 1
    return best


_GLUED_DATE = re.compile(r"^(?P<name>[^\n]{0,63}?\S)(?P<date>\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})(?!\d)"
                         r"(?:\s+\d{1,2}:\d{2}(?:\s?[AaPp]\.?[Mm]\.?)?)?)\s*(?P<text>\S.*)$", re.S)


def _glued_name(name: str, labels: _Labels) -> bool:
    """Whether ``name``, glued to a date in a run-on line, reads as a name: :func:`name_like` (up to
    :data:`MAX_NAME_WORDS` words), or up to three words none of which is attribution syntax ("Sumit
    singh", not "We went there on")."""
    if name_like(name, labels.metadata, max_words=MAX_NAME_WORDS):
        return True
    words = label_normalise(name).split()
    return len(words) <= 3 and not any(word in CONNECTORS for word in words)


def _split_label_run_on(unit: Unit, labels: _Labels, ignored: Sequence[str]) -> list[Unit] | None:
    """A run-on line of records closed by glued reply controls, as Blogger reads in plain text ("Dan
    Renae7/10/2012I've recently…ReplyDeleteinternetricks4u8/12/2012It really works…ReplyDelete"):
    the line is cut at each run of the contract's ignored labels, written as the page writes them; a
    piece that opens with a name (:func:`_glued_name`, no sentence end) glued to a numeric date, no
    space between (a time after it allowed), and then its text is a record. Two such records at least, else ``None``. Each
    record becomes a header unit, its name marked as a link or bold would mark it, and its text."""
    words = sorted({label.strip() for label in ignored if label.strip()}, key=len, reverse=True)
    if not words:
        return None
    separator = re.compile("(?:" + "|".join(re.escape(w) for w in words) + r")+")
    pieces, last = [], 0
    for match in separator.finditer(unit.text):
        pieces.append(unit.text[last:match.start()])
        last = match.end()
    pieces.append(unit.text[last:])
    if len(pieces) < 3:
        return None
    result: list[Unit] = []
    headers = 0
    for piece in pieces:
        match = _GLUED_DATE.match(piece.strip())
        name = match.group("name").strip() if match is not None else ""
        if match is not None and labels.author_ok(name) and not name.endswith(_SENTENCE_END) \
                and is_timestamp(match.group("date")) and _glued_name(name, labels):
            header = f"{name} {match.group('date')}"
            result.append(replace(unit, text=header, norm=normalise(header), strong=(name,), opens_item=False, continues=False))
            result.append(replace(unit, text=match.group("text").strip(), norm=normalise(match.group("text")), strong=(),
                                  opens_item=False, continues=False))
            headers += 1
        elif piece.strip():
            result.append(replace(unit, text=piece.strip(), norm=normalise(piece), strong=(), opens_item=False, continues=False))
    return result if headers >= 2 else None


def _split_run_on(units: Sequence[Unit], labels: _Labels, heading_labels: Sequence[str] = (),
                  ignored: Sequence[str] = ()) -> list[Unit]:
    """``units`` with each run-on line of records split at its record headers (SPEC §3.5; issue 30:
    structure that shows one record per item). A line without links holding two or more
    "<name> says: <date>" headers, each glued to its text ("…chart. ReplyMax says: November 12, 2012 at
    8:51 amWhile this is…"), becomes the text before the first header, then for each record its header
    line and its text. One such header in a line is running text and stays as it is."""
    result: list[Unit] = []
    headings = LabelSet(heading_labels)
    for unit in units:
        if unit.kind == CODE or unit.quoted or unit.links or len(unit.text) < 40:
            result.append(unit)
            continue
        text = unit.text
        cuts: list[tuple[int, int]] = []  # (name start, header end)
        floor = 0
        for match in _RUN_ON_HEADER.finditer(text):
            if not is_timestamp(match.group("date")):
                continue
            start = _run_on_name_start(text, match.start(), floor, labels, headings)
            if start is None:
                continue
            cuts.append((start, match.end()))
            floor = match.end()
        if len(cuts) < 2:
            split = _split_label_run_on(unit, labels, ignored)
            result.extend(split if split is not None else [unit])
            continue
        pieces = [text[: cuts[0][0]]]
        for number, (start, header_end) in enumerate(cuts):
            following = cuts[number + 1][0] if number + 1 < len(cuts) else len(text)
            pieces += [text[start:header_end], text[header_end:following]]
        for piece in pieces:
            if piece.strip():
                result.append(replace(unit, text=piece.strip(), norm=normalise(piece), strong=(), opens_item=False,
                                      continues=False))
    return result


@dataclass
class _Draft:
    """A candidate comment: its author line, text lines, the link targets seen and a source id."""

    author: str
    texts: list[str] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    record_id: str | None = None


def _item_text(unit: Unit, labels: _Labels) -> bool:
    """Whether ``unit`` is record text of its own: not only labels, timestamps and counts, and not
    only link text (an item of links alone is a menu, not a comment)."""
    if unit.kind == CODE:
        return True
    if only_metadata(unit.text, labels.metadata):
        return False
    rest = label_normalise(unit.text)
    for link in unit.links:
        if link.text:
            rest = rest.replace(label_normalise(link.text), " ")
    return not only_metadata(rest, labels.metadata)


def _only_link_text(text: str, links: Sequence[Link], labels: _Labels) -> bool:
    """Whether ``text`` is only the text of ``links`` (and separators, labels, timestamps, counts)."""
    rest = label_normalise(text)
    for link in links:
        if link.text:
            rest = rest.replace(label_normalise(link.text), " ")
    return only_metadata(rest, labels.metadata)


_ORDERED_MARKER = re.compile(r"^\d{1,9}[.)]\s+")


def _item_name(units: Sequence[Unit], index: int, end: int, labels: _Labels) -> str | None:
    """The name heading a list item at ``units[index]``: the item's first block, standing alone as
    that block, is a short name-like line (see :func:`_list_item_author`); else ``None``."""
    unit = units[index]
    if not unit.opens_item or unit.kind != LIST_ITEM or unit.quoted:
        return None
    if index + 1 < end and units[index + 1].continues:
        return None  # the line runs on in the same block: a sentence, not a name heading its record
    name = leading_name(without_urls(_ORDERED_MARKER.sub("", unit.text.strip())), labels.metadata)
    return _clean(name) if name is not None and labels.author_ok(name) else None


def _list_item_author(units: Sequence[Unit], index: int, end: int, labels: _Labels) -> str | None:
    """The author of a list-item record (SPEC §3.5) opening at ``units[index]``, else ``None``.

    A list item whose first block is a short name-like line (:func:`~lexbench.scoring.labels.leading_name`:
    its ordered-list number, any bare URL written beside the name, and a date or labels after it
    aside: "2. David D", "http://twitter.com/jyarmis Jonathan L. Yarmis", "Beth on August 22, 2012 at
    6:29 pm said:"), standing alone as that block, and that has text of its own
    (:func:`_item_text`) in a later block before the next item or the end of the list. An item of a
    name alone, of a title ("Poke the box") and an excerpt, or a bullet whose line runs on into the
    same paragraph ("- expansion" + "of mutually profitable relationships…", a list inside a
    comment's sentence) is none.
    """
    name = _item_name(units, index, end, labels)
    if name is None:
        return None
    unit = units[index]
    for ahead in range(index + 1, end):
        following = units[ahead]
        if following.kind != LIST_ITEM or following.opens_item or following.quoted != unit.quoted:
            return None  # the item ended without text of its own
        if _item_text(following, labels):
            return name
    return None


def _dated_name(units: Sequence[Unit], index: int, end: int, labels: _Labels) -> str | None:
    """The author of a record headed by a name line and a date line (SPEC §3.5): ``units[index]`` is a
    line of a :func:`name_like` name alone (a parenthesised aside after it allowed: "Laura (Tutti
    Dolci)"), and the next line is a standalone timestamp ("09. Aug, 2012 at 4:27 pm", "21. Jan 2022");
    else ``None``. The record's text is what follows (a header with none is no record). The date line
    is the structure that shows one record per item: a bare name without it, in running text or a list
    of names, names nobody."""
    unit = units[index]
    if unit.kind in (CODE, HEADING) or unit.quoted or index + 1 >= end:
        return None
    line = _clean(_ORDERED_MARKER.sub("", unit.text.strip()) if unit.kind == LIST_ITEM else unit.text)
    if not line or ":" in line or "：" in line:
        return None
    name = _NAME_ASIDE.sub("", line).strip()
    if not name or not labels.author_ok(name) or not name_like(name, labels.metadata):
        return None
    date = units[index + 1]
    if date.kind == CODE or date.quoted or not is_timestamp(date.text):
        return None
    return line  # without text of its own it is no record (author without text), nor the text of the one above


_POSTED = re.compile(r"^(?:posted|submitted|written|added|geschrieben|verfasst|publié|posté|écrit|publicado|escrito|"
                     r"enviado|pubblicato|scritto|inviato|geplaatst|geschreven)\b", re.I)
MAX_SIGNATURE_LINES = 4
"""How many lines of one paragraph a signature may be broken over ("posted on <date>" / "by" / "Darren")."""


def _signature_block(units: Sequence[Unit], index: int, end: int) -> int:
    """The end of the paragraph that ``units[index]`` opens when it is broken over 2 to
    :data:`MAX_SIGNATURE_LINES` lines (a signature candidate read as one line), else ``index``. In plain
    text, where each line is a unit, a "posted …" line, a bare "by" line and the next line are read so too.
    Code, quotes and list items are never signature blocks."""
    unit = units[index]
    if unit.continues or unit.kind == CODE or unit.quoted or unit.kind == LIST_ITEM:
        return index
    if index + 2 < end and not units[index + 1].continues and label_normalise(units[index + 1].text) in ATTRIBUTION \
            and _POSTED.match(unit.text.strip()) and all(u.kind != CODE and not u.quoted for u in units[index + 1:index + 3]):
        return index + 3  # plain text, a line a unit: "posted on <date>" / "by" / "Darren"
    stop = index + 1
    while stop < end and units[stop].continues and stop - index < MAX_SIGNATURE_LINES:
        stop += 1
    if stop == index + 1 or (stop < end and units[stop].continues):
        return index  # one line (read as it is), or a paragraph longer than a signature
    return stop


def _text_comment_drafts(units: Sequence[Unit], section: CommentSection, labels: _Labels,
                         heading_labels: Sequence[str] = (), titles: SiteTitles | None = None) -> list[_Draft]:
    """Candidate records of the comment component, in order (SPEC §3.5 author forms).

    An author line (heading, linked or bold name), a colon-labelled author or a list-item record opens
    a record whose text follows it; a list-item record's text ends with its list. A trailing signature
    ("Posted by TexARC", "— Alice") closes a record whose author follows its text: it claims the text
    that no author above claimed since the last heading or record, once the comments have begun (the
    section opened at its heading, a record came before, or a line showed a reviewed heading label,
    "Comments" as a plain line). Before that, "Posted by Dharmesh Shah on Wed, Oct 24, 2012" after the
    ending signs the article, not a comment."""
    drafts: list[_Draft] = []
    current: _Draft | None = None
    in_item = False  # current is a list-item record: it ends where its list does
    unclaimed: list[Unit] = []  # text after no author line: a trailing signature may claim it
    begun = section.opened_by == "heading"  # whether text here can be a comment's yet
    skip_to = section.start  # units before it were read as part of a signature block
    for index in range(section.start, section.end):
        if index < skip_to:
            continue
        unit = units[index]
        if in_item and (unit.kind != LIST_ITEM or unit.quoted):
            current, in_item = None, False
        if unit.kind == HEADING:
            unclaimed = []
        if not begun and heading_labels and _heading_label_matches(unit.text, heading_labels):
            begun, unclaimed = True, []
            continue
        block_end = _signature_block(units, index, section.end) if current is None else index
        if block_end > index:  # "posted on <date>" / "by" / "[Darren](…)": one signature over three lines
            signed = signature_name(" ".join(u.text for u in units[index:block_end]), labels.metadata)
            if signed is not None and labels.author_ok(signed):
                if unclaimed and begun:
                    drafts.append(_Draft(signed, [u.text for u in unclaimed],
                                         [link.href for u in (*unclaimed, *units[index:block_end]) for link in u.links]))
                unclaimed, skip_to = [], block_end
                continue
        author = _author_line(unit, labels, heading_floor=section.level, title_link=titles)
        if author is not None:
            current, in_item, unclaimed = _Draft(author, hrefs=[link.href for link in unit.links]), False, []
            drafts.append(current)
            begun = True
            continue
        # A colon line right under an author line is that author's text ("Update: …"), not a new author.
        colon = _colon_author(unit, labels) if current is None or current.texts else None
        if colon is not None:
            current = _Draft(colon[0], [colon[1]] if colon[1] else [], [link.href for link in unit.links])
            in_item, unclaimed, begun = False, [], True
            drafts.append(current)
            continue
        # A name over its date line, else a list item headed by a name: a new record (the list item's text
        # runs to the end of its list).
        dated = _dated_name(units, index, section.end, labels)
        listed = _list_item_author(units, index, section.end, labels) if dated is None else None
        if dated is not None or listed is not None:
            current = _Draft(dated if dated is not None else listed, hrefs=[link.href for link in unit.links])
            in_item, unclaimed, begun = listed is not None, [], True
            drafts.append(current)
            continue
        if current is None:
            signed = signature_name(unit.text, labels.metadata) if unit.kind != CODE and not unit.quoted else None
            if signed is not None and labels.author_ok(signed):
                if unclaimed and begun:
                    drafts.append(_Draft(signed, [u.text for u in unclaimed],
                                         [link.href for u in (*unclaimed, unit) for link in u.links]))
                unclaimed = []
            elif unit.kind == CODE or not (only_metadata(unit.text, labels.metadata)
                                           or _share_controls(unit, labels, titles)):
                unclaimed.append(unit)  # prompts before the first author ("Leave a reply") stay unclaimed
            continue
        current.hrefs.extend(link.href for link in unit.links)
        if unit.kind != CODE and (only_metadata(unit.text, labels.metadata) or _share_controls(unit, labels, titles)
                                  or label_normalise(unit.text) == label_normalise(current.author)):
            continue
        current.texts.append(unit.text)
    return drafts


def _finish_comments(drafts: Iterable[_Draft], count: RecordCount, labels: _Labels, article: ArticleText) -> RecordCount:
    distinct = _Distinct(count)
    for draft in drafts:
        text = " ".join(draft.texts)
        norm = normalise(text)
        if not norm:
            count.reject("author without text")
        elif labels.placeholder(text):
            count.reject("unavailable placeholder")
        elif article.contains(norm):
            count.reject("article text")
        else:
            source_id = draft.record_id
            key = ("id", source_id) if source_id else ("pair", label_normalise(draft.author), norm)
            distinct.add(Record(draft.author, len(norm), source_id), key)
    return count


def count_comments(view: AnswerView, contract: CommentContract, ending: str | None,
                   reference: str | None, chrome: Iterable[str] = (), base: PageBase | None = None) -> RecordCount:
    """Valid distinct comment records in ``view`` (SPEC §3.5).

    ``ending`` is the case's reviewed body ending (locates the comment component in text answers);
    ``reference`` the reference body (record text wholly copied from it is rejected); ``chrome`` the
    case's page-chrome phrases; ``base`` how links read as the case's URLs (links to the site's other
    pages with a title's text are titles, not authors: :class:`SiteTitles`). Native HTML selectors are used when
    the answer is HTML and the reviewed record containers are present.
    """
    labels = _Labels.of(contract, chrome)
    article = ArticleText(reference)
    if view.tree is not None and contract.html is not None:
        native = _native_records(view.tree, contract.html.record)
        if native.containers:
            return _native_comments(native, contract, labels, article)
    units = _split_run_on(view.chrome_free_units if view.tree is not None else view.units, labels,
                          contract.heading_labels, contract.ignored_labels)
    route = f"{view.format} comment section"
    section = locate_comment_section(units, contract, ending, text_format=view.format == "text")
    if section is None:
        what = "the body ending" if ending else "a body ending"
        return RecordCount(route, note=f"no comment section: neither {what} nor a comment heading was found")
    route += " after the body ending" if section.opened_by == "ending" else " under its heading"
    drafts = _text_comment_drafts(units, section, labels, contract.heading_labels, SiteTitles(base, labels))
    count = RecordCount(route)
    if contract.record_id_pattern:
        pattern = CasePattern(contract.record_id_pattern)
        for draft in drafts:
            match = next((m for href in draft.hrefs if (m := pattern.search(href))), None)
            if match is not None:
                draft.record_id = match.group(1) if match.groups() else match.group(0)
        count.note = pattern.note()
    return _finish_comments(drafts, count, labels, article)


# --- native HTML ---------------------------------------------------------------------------------------


@dataclass
class _Native:
    """Record containers of a pruned tree and the owner lookup for selector matches."""

    tree: VisibleTree
    containers: list[lxml.html.HtmlElement]
    index: dict[lxml.html.HtmlElement, int]

    def owner(self, element: lxml.html.HtmlElement) -> int | None:
        """Index of the nearest record container enclosing (or being) ``element``."""
        node: lxml.html.HtmlElement | None = element
        while node is not None:
            found = self.index.get(node)
            if found is not None:
                return found
            node = node.getparent()
        return None

    def owned(self, selector: str, *, outside: set[lxml.html.HtmlElement] | None = None) -> dict[int, list]:
        """Matches of ``selector`` grouped by owning record, in document order; matches inside an
        element of ``outside`` (e.g. quotes) are left out."""
        groups: dict[int, list[lxml.html.HtmlElement]] = {}
        for match in self.tree.root.cssselect(selector, translator="html"):
            if outside and _inside(match, outside):
                continue
            owner = self.owner(match)
            if owner is not None:
                groups.setdefault(owner, []).append(match)
        return groups

    def text(self, element: lxml.html.HtmlElement, *, skip: set[lxml.html.HtmlElement] | None = None) -> str:
        """Visible text of ``element`` without nested records (and without elements in ``skip``)."""
        own = self.index.get(element)
        pieces: list[str] = []
        stack: list[tuple[lxml.html.HtmlElement, bool]] = [(element, True)]
        while stack:
            node, entering = stack.pop()
            if not entering:
                if node.tail and node is not element:
                    pieces.append(node.tail)
                continue
            if node is not element and ((node in self.index and self.index[node] != own) or (skip and node in skip)):
                if node.tail:
                    pieces.append(node.tail)
                continue
            if not isinstance(node.tag, str):
                if node.tail:
                    pieces.append(node.tail)
                continue
            stack.append((node, False))
            if node.text:
                pieces.append(node.text)
            pieces.append(" ")
            for child in reversed(node):
                stack.append((child, True))
        return _clean("".join(pieces))


def _inside(element: lxml.html.HtmlElement, containers: set[lxml.html.HtmlElement]) -> bool:
    node = element
    while node is not None:
        if node in containers:
            return True
        node = node.getparent()
    return False


def _native_records(tree: VisibleTree, record_selector: str) -> _Native:
    containers = list(tree.root.cssselect(record_selector, translator="html"))
    return _Native(tree, containers, {element: index for index, element in enumerate(containers)})


def _native_comments(native: _Native, contract: CommentContract, labels: _Labels,
                     article: ArticleText) -> RecordCount:
    selectors = contract.html
    assert selectors is not None
    count = RecordCount("html selectors")
    authors = native.owned(selectors.author)
    texts = native.owned(selectors.text)
    drafts: list[_Draft] = []
    for index, container in enumerate(native.containers):
        author = next((t for a in authors.get(index, []) if (t := native.text(a))), "")
        if not author or not _native_author_ok(author, labels):
            count.reject("no author" if not author else "label or timestamp as author")
            continue
        texts_here = [t for element in texts.get(index, []) if (t := native.text(element))]
        record_id = container.get(selectors.record_id_attribute) if selectors.record_id_attribute else None
        drafts.append(_Draft(author, [t for t in texts_here if not only_metadata(t, labels.metadata)],
                             record_id=record_id or None))
    return _finish_comments(drafts, count, labels, article)


def _native_author_ok(author: str, labels: _Labels) -> bool:
    # Reviewed selectors are precise, so only labels, timestamps and counts are refused here.
    return bool(strip_counts(author)) and not labels.metadata.matches(author) and not is_timestamp(author) \
        and not labels.unavailable.matches(author)


# --- posts ---------------------------------------------------------------------------------------------


class PostLinks:
    """Owned post-detail links (SPEC §3.6): an href, resolved as the case's URL (:class:`PageBase`: against
    the case URL, a target under the served replay page rebased onto it), that fully matches the
    contract's pattern. :meth:`key` gives the absolute URL (the record identity) or None."""

    def __init__(self, pattern: str, base: PageBase) -> None:
        self.pattern = CasePattern(pattern)
        self.base = base
        self._cache: dict[str, str | None] = {}

    def key(self, href: str) -> str | None:
        if href in self._cache:
            return self._cache[href]
        key = self._resolve(href.strip())
        if len(self._cache) < 100_000:
            self._cache[href] = key
        return key

    def _resolve(self, href: str) -> str | None:
        if not href:
            return None
        try:
            absolute = self.base.absolute(href)
        except ValueError:
            return None
        if self.pattern.fullmatch(absolute) or self.pattern.fullmatch(href):
            return absolute
        return None


def _last_word(text: str, end: int) -> str | None:
    """``text[:end].split()[-1]`` (``None`` when there is no word) without copying ``text[:end]``:
    ``text`` is in label normal form, so words are separated by single spaces."""
    stop = max(0, len(text) + end) if end < 0 else min(end, len(text))
    while stop and text[stop - 1] == " ":
        stop -= 1
    start = text.rfind(" ", 0, stop) + 1
    return text[start:stop] or None


def _attribution_in_link_line(unit: Unit, links: PostLinks, labels: _Labels) -> str | None:
    """An author named on the same line as the post link: a linked or bold name after an attribution
    connector ("… by Alice"), else one placed before the post link ("Alice · 3 days ago")."""
    if unit.kind == CODE:
        return None
    text = label_normalise(unit.text)
    owned = [label_normalise(link.text) for link in unit.links if link.text and links.key(link.href)]
    names = [link.text for link in unit.links if link.text and not links.key(link.href) and not _is_url_text(link.text)]
    names += list(unit.strong)
    # One pass over the line for every position (a line of thousands of links must stay linear).
    positions = first_occurrences(text, owned + [label_normalise(name) for name in names])
    first_owned = min((positions[norm] for norm in owned), default=-1)
    fallback = None
    for name in names:
        if not labels.author_ok(name):
            continue
        position = positions[label_normalise(name)]
        before = _last_word(text, position)
        if before is not None and before.strip(",:;·|-") in ATTRIBUTION:
            return _clean(name)
        if fallback is None and (first_owned < 0 or 0 <= position < first_owned):
            fallback = _clean(name)
    return fallback


def count_posts(view: AnswerView, contract: PostContract, base: PageBase, chrome: Iterable[str] = ()) -> RecordCount:
    """Valid distinct post records in ``view`` (SPEC §3.6): distinct owned post-detail links with a
    non-empty attributed author and visible post text (or, for an empty outer post, attributed
    quoted text). Native selectors for HTML answers with the reviewed containers, else the text route.
    ``chrome`` is the case's page-chrome phrases (never authors or post text)."""
    labels = _Labels.of(contract, chrome)
    links = PostLinks(contract.post_link_pattern, base)
    native = _native_records(view.tree, contract.html.record) if view.tree is not None and contract.html is not None else None
    if native is not None and native.containers:
        counted = _native_posts(native, contract, labels, links)
    else:
        units = view.chrome_free_units if view.tree is not None else view.units
        counted = _text_posts(units, labels, links, route=f"{view.format} post links")
    if links.pattern.timed_out:
        counted.note = "; ".join(filter(None, (counted.note, links.pattern.note())))
    return counted


def _text_posts(units: Sequence[Unit], labels: _Labels, links: PostLinks, route: str) -> RecordCount:
    count = RecordCount(route)
    occurrences: list[tuple[int, list[str]]] = []
    for index, unit in enumerate(units):
        if unit.quoted or unit.kind == CODE:
            continue  # a link inside a quote is a quoted post, not an outer record
        keys = list(dict.fromkeys(k for link in unit.links if (k := links.key(link.href))))
        if not keys:
            continue
        if occurrences and set(keys) <= set(occurrences[-1][1]) and all(
            only_metadata(units[between].text, labels.metadata) for between in range(occurrences[-1][0] + 1, index)
        ):
            continue  # the same link again in the same post header ("date" and "#2"): one occurrence
        occurrences.append((index, keys))
    if not occurrences:
        count.note = "no owned post-detail link in the answer"
        return count

    def skip_owned(href: str) -> bool:
        return links.key(href) is not None

    # First pass: each occurrence's author and the unit that names it.
    authors: list[tuple[str | None, int]] = []
    closing: set[int] = set()  # occurrences whose link closes their post (an owner card follows it)
    for number, (index, _keys) in enumerate(occurrences):
        previous = occurrences[number - 1][0] if number else -1
        following = occurrences[number + 1][0] if number + 1 < len(occurrences) else len(units)
        # Same line first, then the lines that follow the link before any text, then the lines just
        # above it (preceding-line attribution), never crossing the neighbouring post links.
        name = _attribution_in_link_line(units[index], links, labels)
        at = index
        if name is None:
            for ahead in range(index + 1, following):
                unit = units[ahead]
                if unit.kind != CODE and only_metadata(unit.text, labels.metadata):
                    continue
                name, at = _author_line(unit, labels, skip_link=skip_owned) or _profile_author(unit, labels, skip_owned), ahead
                break
        if name is None:
            found = _card_author(units, index, following, labels, skip_owned)
            if found is not None:
                name, at = found
                closing.add(number)
        if name is None:
            found = _preceding_author(units, index, previous, labels, skip_owned)
            if found is not None:
                name, at = found
        authors.append((name, at if name is not None else index))
    consumed = {at for name, at in authors if name is not None}

    qualified: dict[str, Record] = {}
    failures: dict[str, str] = {}
    for number, (index, keys) in enumerate(occurrences):
        name, at = authors[number]
        following = occurrences[number + 1][0] if number + 1 < len(occurrences) else len(units)
        if name is None:
            reason = "no attributed author"
        else:
            if number in closing:  # the post's text is above its link, back to the previous post's card
                start = max(authors[number - 1][1], occurrences[number - 1][0]) + 1 if number else 0
                own, quote = _segment_text(units, start, index, consumed, name, labels)
            else:
                own, quote = _segment_text(units, max(index, at) + 1, following, consumed, name, labels)
            if own:
                reason = "" if not labels.placeholder(own) else "unavailable placeholder"
            elif quote:
                reason = ""
            else:
                reason = "author without post text"
            if not reason:
                chars = len(normalise(own or quote))
                for key in keys:
                    qualified.setdefault(key, Record(name, chars, key))
                continue
        for key in keys:
            failures.setdefault(key, reason)
    for key, reason in failures.items():
        if key not in qualified:
            count.reject(reason)
    count.records = list(qualified.values())
    return count


CARD_WINDOW = 12
"""How many lines after a post link its owner card may begin (the link's controls: "Share", "Copy link",
"Improve this answer", "Follow")."""
CARD_GAP = 2
"""How many lines (avatars, labels) may stand between an owner card's date line and the owner's name."""


def _card_author(units: Sequence[Unit], index: int, following: int, labels: _Labels,
                 skip_owned: Callable[[str], bool]) -> tuple[str, int] | None:
    """The owner named by the card after a post link that closes its post (SPEC §3.6; Stack Exchange's
    "asked Jul 28, 2016 at 13:01" / avatar / "[Bhavneet Singh Bajwa](/users/187623/…)"): within
    :data:`CARD_WINDOW` lines after the link and before the next post link, a line of a date (not a
    count alone) and labels ("asked", "answered") that is no link, then, within :data:`CARD_GAP` lines of avatars or labels, a name linked
    to the member's profile. An editor's card ("[edited Jul 28, 2016 at 13:13](/posts/…/revisions)",
    its date line a link to the revisions) names no owner. ``(name, index of its line)`` or ``None``."""
    for ahead in range(index + 1, min(following, index + 1 + CARD_WINDOW)):
        unit = units[ahead]
        if unit.kind == HEADING:
            return None
        when = labels.metadata.strip(label_normalise(unit.text)).strip()
        if unit.kind == CODE or unit.quoted or unit.links or not is_timestamp(when) \
                or not any(ch.isalpha() or ch in ":/" for ch in when):
            continue  # a count alone ("0 · Reply") is no date
        for card in range(ahead + 1, min(following, ahead + 2 + CARD_GAP)):
            name = _profile_author(units[card], labels, skip_owned)
            if name is not None:
                return name, card
            if not only_metadata(units[card].text, labels.metadata):
                break
    return None


PRECEDING_WINDOW = 8
"""How many lines above a post link may hold its author (a post header: avatar, name, title, stats)."""


def _preceding_author(units: Sequence[Unit], index: int, previous: int, labels: _Labels,
                      skip_owned: Callable[[str], bool]) -> tuple[str, int] | None:
    """The author named in the lines just above a post link (preceding-line attribution), never
    crossing the previous post link. A linked author heading wins over a plain heading, which wins
    over a linked or bold name line; ties go to the nearest."""
    best: tuple[int, int, str] | None = None
    for back in range(index - 1, max(previous, index - 1 - PRECEDING_WINDOW), -1):
        unit = units[back]
        profiled = _profile_author(unit, labels, skip_owned)
        name = profiled or _author_line(unit, labels, skip_link=skip_owned)
        if name is None:
            name = _item_name(units, back, index, labels) if _same_item(units, back, index) else None
            if name is None:
                continue  # "* skipper_ana" heads a list-item post only when the link is in its item
        linked = any(label_normalise(link.text) == label_normalise(name) for link in unit.links)
        rank = 0 if profiled else (0 if linked else 1) if unit.kind == HEADING else 2
        if best is None or rank < best[0]:
            best = (rank, back, name)
    return (best[2], best[1]) if best is not None else None


def _same_item(units: Sequence[Unit], start: int, index: int) -> bool:
    """Whether ``units[index]`` lies in the list item that ``units[start]`` opens."""
    return all(units[i].kind == LIST_ITEM and not units[i].opens_item for i in range(start + 1, index + 1))


def _segment_text(units: Sequence[Unit], start: int, end: int, consumed: set[int], author: str,
                  labels: _Labels) -> tuple[str, str]:
    """(own text, attributed quoted text) of a post segment's units ``[start, end)``."""
    own: list[str] = []
    quoted: list[str] = []
    author_norm = label_normalise(author)
    index = start
    while index < end:
        unit = units[index]
        if index in consumed:
            index += 1
            continue
        if unit.quoted:
            group_end = index
            while group_end < end and units[group_end].quoted:
                group_end += 1
            group = units[index:group_end]
            attributed = quote_attribution(group[0].text) is not None or _author_line(
                Unit(group[0].kind, group[0].level, group[0].text, group[0].links, group[0].strong, False, group[0].norm),
                labels,
            ) is not None
            if not attributed and own and quote_attribution(own[-1]) is not None:
                own.pop()  # "Alice wrote:" just above the quote attributes it
                attributed = True
            if attributed:
                body = [u.text for u in group[1:]] if quote_attribution(group[0].text) else [u.text for u in group]
                quoted.extend(t for t in body if not only_metadata(t, labels.metadata))
            index = group_end
            continue
        if unit.kind == CODE or not (only_metadata(unit.text, labels.metadata) or label_normalise(unit.text) == author_norm):
            own.append(unit.text)
        index += 1
    return " ".join(own).strip(), " ".join(quoted).strip()


def _native_posts(native: _Native, contract: PostContract, labels: _Labels, links: PostLinks) -> RecordCount:
    selectors = contract.html
    assert selectors is not None
    count = RecordCount("html selectors")
    quotes: set[lxml.html.HtmlElement] = set()
    if selectors.quote:
        quotes = set(native.tree.root.cssselect(selectors.quote, translator="html"))
    link_groups = native.owned(selectors.link or "a[href]", outside=quotes)
    authors = native.owned(selectors.author, outside=quotes)
    texts = native.owned(selectors.text)
    quotes_of: dict[int, list[lxml.html.HtmlElement]] = {}
    for quote in quotes:
        owner = native.owner(quote)
        if owner is not None:
            quotes_of.setdefault(owner, []).append(quote)
    qualified: dict[str, Record] = {}
    failures: dict[str, str] = {}
    for index, _container in enumerate(native.containers):
        keys = [k for a in link_groups.get(index, []) if (k := links.key(a.get("href", "")))]
        if not keys:
            count.reject("no owned post link")
            continue
        key = keys[0]
        author = next((t for a in authors.get(index, []) if (t := native.text(a))), "")
        if not author or not _native_author_ok(author, labels):
            failures.setdefault(key, "no attributed author" if not author else "label or timestamp as author")
            continue
        own_parts = [native.text(element, skip=quotes) for element in texts.get(index, [])]
        quote_parts = [_attributed_quote_text(q, selectors.author, labels) for q in quotes_of.get(index, [])]
        own = " ".join(p for p in own_parts if p and not only_metadata(p, labels.metadata))
        quote_text = " ".join(p for p in quote_parts if p)
        if own and labels.placeholder(own):
            failures.setdefault(key, "unavailable placeholder")
        elif own or quote_text:
            qualified.setdefault(key, Record(author, len(normalise(own or quote_text)), key))
        else:
            failures.setdefault(key, "author without post text")
    for key, reason in failures.items():
        if key not in qualified:
            count.reject(reason)
    count.records = list(qualified.values())
    return count


def _attributed_quote_text(quote: lxml.html.HtmlElement, author_selector: str, labels: _Labels) -> str:
    """The text of a quoted post when the quote names its author (an author match, a ``cite``, or a
    first line such as "Alice wrote:"), else ""."""
    blocks = _walk(quote)
    if not blocks:
        return ""
    named = bool(quote.cssselect(author_selector, translator="html")) or any(
        (c.text_content() or "").strip() for c in quote.iter("cite")
    )
    first = blocks[0].text.split("\n")[0]
    attribution_line = quote_attribution(first) is not None
    if not (named or attribution_line):
        return ""
    lines = [line for b in blocks for line in b.text.split("\n") if line.strip()]
    if attribution_line:
        lines = lines[1:]
    return " ".join(line for line in lines if not only_metadata(line, labels.metadata))
