"""What a reader of a capture's first load sees, and the review checks it settles (SPEC §4).

A capture is rendered in Chromium with scripts off and its own inline and embedded CSS applied
(:mod:`lexbench.dataset.rendering` does that); every text run of the rendered page comes back as a
:class:`TextRun` with its element path and a state: ``visible``, ``hidden`` (with the rule that hides it)
or ``unproven`` (the capture cannot settle it: a class whose hiding CSS lived in a stylesheet the capture
lacks, ``<noscript>`` text). "Unproven" is never read as "visible".

This module is pure: the rules (:data:`HIDING_RULES`, the marker table :data:`MENU_MARKERS` and
:data:`CONVENTION_CLASSES`), the runs, and the checks over a case's rules (:func:`check_case`):

- a stable phrase whose every occurrence is hidden or unproven is refused;
- a stable group's ``selector`` (its location, as CSS) must contain each phrase's visible occurrence;
- a reference line not displayed in the capture, or not in it at all, is refused;
- reference lines whose element marks them as a byline, share bar, related links, credit, caption or
  widget are listed for review;
- a page whose capture shows comments while the case has no comment contract is listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from lexbench.text import FRAGMENT_CHARS, normalise

State = Literal["visible", "hidden", "unproven"]

HIDING_RULES: dict[str, str] = {
    "display_none": "display:none on the element or an ancestor",
    "visibility_hidden": "visibility:hidden or collapse",
    "zero_opacity": "opacity 0 on the element or an ancestor",
    "zero_size": "no rendered box: zero width or height (overflow hidden), font size 0, or no line box",
    "clipped": "clip or clip-path to 2 px or less",
    "off_canvas": "positioned wholly outside the page (negative offsets, text-indent)",
    "hidden_attribute": "the hidden attribute",
    "closed_details": "inside a closed <details>, outside its first <summary>",
    "collapsed": "max-height or height 0 with overflow hidden",
    "menu_marker": "inside a container the marker table names a drop-down, sub-menu, off-canvas or mobile menu",
    "nested_menu": "a list nested inside a navigation item (opens on hover or click)",
    "popup_menu": "inside an item marked aria-haspopup, after its own link (opens on hover or click)",
}
"""Each ``hidden`` reason and what it means; the order is the order the renderer tries them."""

UNPROVEN_RULES: dict[str, str] = {
    "convention_class": "a class that themes hide with an external stylesheet the capture lacks",
    "noscript": "<noscript> text, shown only with scripts off",
    "toggled": "the target of a control (data-toggle, data-target, aria-controls not expanded): it opens on "
               "click, unless the theme's missing stylesheet shows it at desktop widths (a mobile menu button)",
}
"""Each ``unproven`` reason: what the capture cannot settle."""

MENU_MARKERS: tuple[tuple[str, str], ...] = (
    ("dropdown-menu", "Bootstrap's drop-down list (.dropdown-menu), shown when its toggle is clicked"),
    ("dropdown-content", "the W3Schools/CSS-only drop-down pattern, shown on :hover"),
    ("sub-menu", "WordPress's nested menu list (wp_nav_menu writes ul.sub-menu), shown on hover"),
    ("submenu", "the common spelling of the same nested menu"),
    ("sub-nav", "secondary navigation that opens under a top item"),
    ("subnav", "the same, one word"),
    ("mega-menu", "a mega menu panel, shown on hover of its top item"),
    ("megamenu", "the same, one word"),
    ("flyout", "a fly-out menu panel"),
    ("off-canvas", "an off-canvas panel (Foundation, Bootstrap 5 .offcanvas), slid in by a button"),
    ("offcanvas", "the same, one word"),
    ("mobile-nav", "a mobile slide-out menu (e.g. div.m-mobile-nav), opened by a menu button"),
    ("mobile-menu", "the same"),
    ("slide-out", "a slide-out drawer"),
    ("drawer", "a navigation drawer"),
    ("more-list", "a 'more' drop-down (div.more-list), shown on hover of its trigger"),
)
"""Class or id tokens that mark a container as a menu a reader opens on hover or click (matched as a
hyphen-delimited part of a class or id token, so ``m-mobile-nav`` matches ``mobile-nav`` and
``dropdown-toggle``, the visible trigger, matches nothing). The basis of each is the framework or
pattern that writes it; revision 1's blind review found ``mobile-nav`` and ``more-list`` on real
captures. REVIEW.md: nested menu items count as not visible unless a rendering proves otherwise."""

CONVENTION_CLASSES: tuple[tuple[str, str], ...] = (
    ("screen-reader-text", "WordPress themes hide it for screen readers only"),
    ("sr-only", "Bootstrap's screen-reader-only class"),
    ("visually-hidden", "Bootstrap 5 and many themes: clipped to 1 px"),
    ("visuallyhidden", "HTML5 Boilerplate's spelling"),
    ("element-invisible", "Drupal's hidden-for-screen-readers class"),
    ("assistive-text", "older WordPress themes"),
    ("hidden", "a utility class that hides (Bootstrap 3, many themes)"),
    ("hide", "the same"),
    ("d-none", "Bootstrap 4/5 display:none utility"),
    ("is-hidden", "BEM-style state class"),
    ("invisible", "Bootstrap's visibility:hidden utility"),
    ("hidden-md", "Bootstrap 3 responsive utility: hidden at desktop widths"),
    ("hidden-lg", "the same, wide desktops"),
    ("visible-xs", "Bootstrap 3: shown only on phones, so hidden on a desktop"),
    ("visible-sm", "Bootstrap 3: shown only on tablets"),
    ("d-md-none", "Bootstrap 4/5: display:none from desktop widths up"),
    ("d-lg-none", "the same, from wide desktops up"),
)
"""Classes whose hiding CSS usually lives in the theme's external stylesheet, which captures lack: text
inside them is ``unproven`` unless the capture's own CSS already hid it (then it is ``hidden``). Matched
as whole class tokens: ``hidden-xs`` (hidden on phones only) is visible on the desktop the sources saved."""

NON_ARTICLE_MARKERS: tuple[tuple[str, str], ...] = (
    ("byline", r"byline|author|authors|writer|reporter"),
    ("share", r"share|shares|social|sharing|sharebar|share-bar"),
    ("related", r"related|recommended|read-more|readmore|more-stories|baca-juga"),
    ("credit", r"credit|credits|copyright|photographer"),
    ("caption", r"caption|figcaption|wp-caption"),
    ("widget", r"widget|sidebar|promo|advert|ad|ads|newsletter|subscribe|trending|gallery"),
)
"""Element markers that put a reference line on the review list, each matched as a whole hyphen- or
underscore-delimited part of the tag name or a class or id token (``article-byline``, ``ad-slot``, not
``head`` or ``shared-content-area``): attribution
(bylines, credits) belongs to stable groups, controls and widgets are not article text; captions and
body links stay in scope (the seed), so a caption is listed and kept."""

COMMENT_SECTION = r"(^|[\s_-])(comments?|commentlist|comment-list|disqus_thread|responses|replies)($|[\s_-])"
"""Class or id of a displayed comment section (matched by the renderer against elements with text)."""


@dataclass(frozen=True)
class TextRun:
    """One text node of the rendered capture: its text, state (``visible`` | ``hidden`` | ``unproven``),
    the rule behind a non-visible state (a key of :data:`HIDING_RULES` / :data:`UNPROVEN_RULES`, with
    ``:detail`` for markers), its element path (a CSS selector from ``html``), the non-article marker
    of its nearest marked ancestor (a key of :data:`NON_ARTICLE_MARKERS`) or ``None``, and the indices of
    the case's group selectors whose elements contain it."""

    text: str
    state: State
    reason: str | None
    path: str
    marker: str | None = None
    inside: tuple[int, ...] = ()


@dataclass(frozen=True)
class Rendering:
    """A rendered capture: its text runs in document order, whether the capture shows a comment section
    (with the path of the first), and the CSS selectors that did not parse (each with its message)."""

    runs: tuple[TextRun, ...]
    comment_section: str | None = None
    bad_selectors: tuple[tuple[int, str], ...] = ()

    def counts(self) -> dict[str, int]:
        """Runs per state: ``{"visible": n, "hidden": n, "unproven": n}``."""
        out = {"visible": 0, "hidden": 0, "unproven": 0}
        for run in self.runs:
            out[run.state] += 1
        return out


_RANK = {"visible": 0, "unproven": 1, "hidden": 2}


class TextIndex:
    """The rendered runs' normalised text (SPEC §3.2) with each character's run, so that a phrase or
    line found in it can be traced to the runs it covers."""

    def __init__(self, runs: Sequence[TextRun]) -> None:
        parts: list[str] = []
        owner: list[int] = []
        for i, run in enumerate(runs):
            text = normalise(run.text)
            parts.append(text)
            owner.extend([i] * len(text))
        self.runs = runs
        self.text = "".join(parts)
        self.owner = owner
        visible = [c if runs[owner[k]].state == "visible" else "\0" for k, c in enumerate(self.text)]
        self.visible_text = "".join(visible)

    def occurrences(self, needle: str) -> list[tuple[int, int]]:
        """Every ``(start, end)`` of the normalised ``needle`` in the page's normalised text."""
        if not needle:
            return []
        out, start = [], self.text.find(needle)
        while start >= 0:
            out.append((start, start + len(needle)))
            start = self.text.find(needle, start + 1)
        return out

    def covered(self, span: tuple[int, int]) -> list[TextRun]:
        """The runs a span of :attr:`text` covers, in order, each once."""
        seen: dict[int, None] = {}
        for k in range(*span):
            seen.setdefault(self.owner[k], None)
        return [self.runs[i] for i in seen]


def span_state(runs: Iterable[TextRun]) -> tuple[State, str | None]:
    """The state of text spread over ``runs``: the least visible of theirs, with its reason."""
    worst: TextRun | None = None
    for run in runs:
        if worst is None or _RANK[run.state] > _RANK[worst.state]:
            worst = run
    return ("visible", None) if worst is None or worst.state == "visible" else (worst.state, worst.reason)


@dataclass
class CaseProof:
    """The proof's findings for one case: problems (refusals, each one line naming the phrase or line and
    the rule), review items (non-article lines, a comment section without a contract), and counts."""

    case_id: str
    problems: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    decided: list[str] = field(default_factory=list)
    """Listed items the review has decided: a line kept with its reason, a comment section reviewed."""

    def as_json(self) -> dict[str, Any]:
        """``{"case", "problems", "review", "decided", "counts"}`` for ``prove-visibility --json``."""
        return {"case": self.case_id, "problems": self.problems, "review": self.review, "decided": self.decided,
                "counts": self.counts}


def group_selectors(rule: Any) -> list[str]:
    """The CSS selectors of a case rule's stable groups, in group order (groups without one skipped)."""
    return [group.selector for group in rule.stable_groups if getattr(group, "selector", None)]


def _line_coverage(line: str, text: str) -> float:
    cuts = [line[i:i + FRAGMENT_CHARS] for i in range(0, len(line) - FRAGMENT_CHARS + 1, FRAGMENT_CHARS)]
    if not cuts:
        return 1.0 if line and line in text else 0.0
    return sum(1 for cut in cuts if cut in text) / len(cuts)


LINE_FOUND = 0.8
"""A reference line is located when this share of its 6-character fragments is found (the body
contract's own tolerance): source annotations differ from the capture by spacing and punctuation."""


NO_DISPLAYED_COMMENTS = "comment_section_without_displayed_comments"
"""The rules flag by which a review decides a listed comment section shows no comment to contract (an empty
box, a form, comments loaded only by a script): the section is then decided, not to review."""
NOT_CONTRACTED = "comments_displayed_not_contracted"
"""The rules flag by which a review decides displayed comments get no contract, with its basis after a colon
(e.g. a contract the scorer could not fail on that page): decided, and the basis is printed with it."""
COMMENT_DECISIONS = (NO_DISPLAYED_COMMENTS, NOT_CONTRACTED)


def check_case(rule: Any, rendering: Rendering, reference: str | None,
               kept: Mapping[str, str] | None = None) -> CaseProof:
    """Check one case's rules against its rendered capture (SPEC §4).

    ``rule`` is a :class:`~lexbench.dataset.case.CaseRule` (stable groups, comments, flags); ``reference``
    the reference body text (lines) or ``None``; ``kept`` the review's keep decisions ``{line text: reason}``
    (``sources.json`` ``keep``): a listed line it names is decided, not to review. Returns a
    :class:`CaseProof`; raises nothing.
    """
    proof = CaseProof(rule.id, counts=rendering.counts())
    index = TextIndex(rendering.runs)
    for i, message in rendering.bad_selectors:
        proof.problems.append(f"stable-group selector #{i + 1} does not parse: {message}")
    selectors = group_selectors(rule)
    for group in rule.stable_groups:
        selector = getattr(group, "selector", None)
        where = selectors.index(selector) if selector in selectors else None
        for phrase in group.phrases:
            spans = index.occurrences(normalise(phrase))
            if not spans:
                proof.problems.append(f"group {group.id!r}: phrase {phrase!r} is not in the rendered capture")
                continue
            states = [(span, span_state(index.covered(span))) for span in spans]
            shown = [span for span, (state, _) in states if state == "visible"]
            if not shown:
                reasons = sorted({f"{state} ({reason})" for _, (state, reason) in states})
                proof.problems.append(f"group {group.id!r}: phrase {phrase!r} is never visible: " + ", ".join(reasons))
                continue
            if where is not None and not any(all(where in run.inside for run in index.covered(span)) for span in shown):
                proof.problems.append(f"group {group.id!r}: phrase {phrase!r} is not inside its location {selector!r}")
    if reference is not None:
        _check_reference(reference, index, proof, kept or {})
    if rendering.comment_section and rule.kind == "fixed_article" and getattr(rule, "comments", None) is None:
        decision = next((flag for flag in rule.flags if flag.split(":")[0] in COMMENT_DECISIONS), None)
        if decision is not None:
            proof.decided.append(f"comments: the section ({rendering.comment_section}) was reviewed: {decision}")
            return proof
        proof.review.append(f"comments: the capture shows a comment section ({rendering.comment_section}) and the "
                            "case has no comment contract")
    return proof


def _check_reference(reference: str, index: TextIndex, proof: CaseProof, kept: Mapping[str, str]) -> None:
    # Lines are read in order: each is located at its first occurrence after the previous line's, so a
    # short line ("Baca juga:") is judged where the article has it, not wherever the page repeats it.
    cursor = 0
    for number, line in enumerate(reference.splitlines(), start=1):
        needle = normalise(line)
        if not needle:
            continue
        spans = index.occurrences(needle)
        if spans:
            span = next((s for s in spans if s[0] >= cursor), spans[0])
            cursor = span[1]
            state, reason = span_state(index.covered(span))
            if state != "visible":
                proof.problems.append(f"reference line {number} is not displayed ({state}: {reason}): {_quote(line)}")
                continue
            markers = {run.marker for run in index.covered(span) if run.marker}
        else:
            if _line_coverage(needle, index.visible_text) >= LINE_FOUND:
                markers = set()
            elif _line_coverage(needle, index.text) >= LINE_FOUND:
                proof.problems.append(f"reference line {number} is not displayed (hidden or unproven): {_quote(line)}")
                continue
            else:
                proof.problems.append(f"reference line {number} is not in the capture: {_quote(line)}")
                continue
        for marker in sorted(markers):
            message = f"reference line {number} sits in a {marker} element: {_quote(line)}"
            if line in kept:
                proof.decided.append(f"{message}; kept ({kept[line]})")
            else:
                proof.review.append(message)


def _quote(line: str, limit: int = 90) -> str:
    line = " ".join(line.split())
    return repr(line if len(line) <= limit else line[: limit - 1] + "…")


def summary(proofs: Sequence[CaseProof]) -> dict[str, Any]:
    """Totals over cases: cases, runs per state, problems, review items and decided items by kind (the
    first words of each message up to the colon), for the verb's last lines and ``--json``."""
    kinds: dict[str, int] = {}
    for proof in proofs:
        for problem in proof.problems:
            kind = _kind(problem)
            kinds[kind] = kinds.get(kind, 0) + 1
    review: dict[str, int] = {}
    for proof in proofs:
        for item in proof.review:
            kind = _kind(item)
            review[kind] = review.get(kind, 0) + 1
    decided: dict[str, int] = {}
    for proof in proofs:
        for item in proof.decided:
            kind = _kind(item)
            decided[kind] = decided.get(kind, 0) + 1
    runs = {"visible": 0, "hidden": 0, "unproven": 0}
    for proof in proofs:
        for state, n in proof.counts.items():
            runs[state] += n
    return {"cases": len(proofs), "runs": runs, "problems": dict(sorted(kinds.items())),
            "review": dict(sorted(review.items())), "decided": dict(sorted(decided.items())),
            "cases_with_problems": sum(1 for p in proofs if p.problems)}


_KINDS = (
    (re.compile(r"is not in the rendered capture"), "stable phrase not in capture"),
    (re.compile(r"is never visible"), "stable phrase hidden or unproven"),
    (re.compile(r"is not inside its location"), "stable phrase outside its location"),
    (re.compile(r"selector #\d+ does not parse"), "selector does not parse"),
    (re.compile(r"reference line \d+ is not displayed"), "reference line not displayed"),
    (re.compile(r"reference line \d+ is not in the capture"), "reference line not in capture"),
    (re.compile(r"reference line \d+ sits in a (\w+)"), "reference line in a {0} element"),
    (re.compile(r"^comments:"), "comment section without a contract"),
)


def _kind(message: str) -> str:
    for pattern, kind in _KINDS:
        match = pattern.search(message)
        if match:
            return kind.format(*match.groups())
    return "other"


def marker_pattern(markers: Sequence[tuple[str, str]], *, whole: bool = False) -> str:
    """A JavaScript regex source matching a class or id token that names one of ``markers`` (its second
    group): the token ends with the marker after ``-``/``_`` or at its start, optionally followed by one
    of :data:`MENU_SUFFIXES` (``m-mobile-nav``, ``sub-menu-list``); ``whole``: the token is the marker.
    A marker followed by anything else is a state or layout token (``mobile-nav-from-left`` on
    ``<body>``, Foundation's ``off-canvas-wrapper`` around the whole page) and does not match."""
    names = "|".join(re.escape(m) for m, _ in markers)
    suffixes = "|".join(MENU_SUFFIXES)
    return f"^()({names})$" if whole else f"(^|[-_])({names})([-_]({suffixes}))?$"


MENU_SUFFIXES = ("menu", "nav", "list", "panel", "items", "links")
"""What may follow a menu marker inside one token and still name the menu itself."""

