"""Project a provider's answer (HTML, Markdown or plain text) to reader text (SPEC §3.2).

The projection is what a reader would see: visible text only, decoration dropped, split into blocks
(headings, paragraphs, list items, quotes, code blocks, table cells). Coverage is measured on the
normalised ``Projection.text`` (normalised piece by piece, :meth:`Projection.pieces`); the title rule (SPEC §3.3) looks at individual blocks; link targets are kept
apart in ``Block.links`` for link checks. The choice of path by format is :func:`lexbench.scoring.view.project`.

Why one module of this size: it is the one reading rule (SPEC §3.2) applied to HTML and to Markdown; the two walkers share the visibility, list-marker and table rules, and a reader of the rule should find it in one place.
"""

from __future__ import annotations

import dataclasses
import html
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

import lxml.etree
import lxml.html
from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.rules_block.html_block import HTML_SEQUENCES
from markdown_it.rules_block.table import escapedSplit
from markdown_it.token import Token

Format = Literal["html", "markdown", "text"]

HEADING = "heading"
PARAGRAPH = "paragraph"
LIST_ITEM = "list_item"
QUOTE = "quote"
CODE = "code"
TABLE_CELL = "table_cell"
CAPTION = "caption"


@dataclass(frozen=True, slots=True)  # slots: a 20 MB answer has ~10^5 of these (80 bytes instead of 350)
class Link:
    """A hyperlink: its visible text and its target (``href``, may be empty)."""

    text: str
    href: str


@dataclass(frozen=True, slots=True)
class Block:
    """One block of reader text.

    ``kind`` is one of ``heading``, ``paragraph``, ``list_item``, ``quote``, ``code``,
    ``table_cell``, ``caption``; ``level`` is the heading level 1–6, else 0. ``text`` is the
    visible text (whitespace collapsed, except code blocks and Markdown line breaks, kept as
    ``\\n``); ``links`` are the links that end in this block (a link without visible text, e.g.
    around an icon, is kept with ``text == ""``); ``strong`` the visible texts of strong/bold spans
    that end in it (emphasis is dropped from ``text``, but a standalone bold name is an author form,
    SPEC §3.5); ``quoted`` is true inside a blockquote; ``opens_item`` is true on the first block of a
    list item (a Markdown ``*``/``1.`` item, an HTML ``<li>``), so the record parsers can tell where one
    item ends and the next begins (SPEC §3.5 list-item records). It changes no reader text.
    """

    kind: str
    level: int
    text: str
    links: tuple[Link, ...] = ()
    strong: tuple[str, ...] = ()
    quoted: bool = False
    opens_item: bool = False

    def lines(self) -> list[str]:
        """The block's non-empty lines, stripped (a Markdown paragraph may span several lines)."""
        return [line.strip() for line in self.text.split("\n") if line.strip()]


@dataclass(frozen=True)
class Projection:
    """Reader text of an answer: its ``blocks``; ``format`` is the format that was projected; ``notes``
    say where the projection was simplified to stay within its work bound (see
    :data:`MARKDOWN_LINK_BUDGET_S`); ``source_text`` is a plain-text answer's own text."""

    blocks: tuple[Block, ...] = field(default=())
    format: Format = "text"
    notes: tuple[str, ...] = ()
    source_text: str | None = None

    @property
    def text(self) -> str:
        """The reader text: the blocks' text joined by newlines (a plain-text answer's text unchanged).

        Joined on each access and not kept: one astral character makes the joined copy of a 20 MB
        answer four bytes per character, so coverage reads :meth:`pieces` instead (page identity, which
        needs the text whole, still joins it)."""
        return self.source_text if self.source_text is not None else "\n".join(b.text for b in self.blocks)

    def pieces(self, size: int = 1 << 20) -> Iterator[str]:
        """:attr:`text` in consecutive pieces of about ``size`` characters, cut at newlines (the
        newline at each cut is left out). Normalising the pieces gives the normalised text, since
        nothing composes across a newline and normalisation deletes it."""
        if self.source_text is not None:
            yield self.source_text
            return
        batch: list[str] = []
        length = 0
        for block in self.blocks:
            batch.append(block.text)
            length += len(block.text) + 1
            if length >= size:
                yield "\n".join(batch)
                batch, length = [], 0
        if batch:
            yield "\n".join(batch)


_SNIFF_WINDOW = 65_536
_HTML_START = re.compile(
    r"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--(?:(?!-->).)*-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
# Every sniffing pattern costs at most a bounded scan per start position, so hostile text (a run of
# "[a](" or "<p " with no closing bracket) is sniffed in linear time: a tag's attributes stop at the
# next "<", and a link's text and target are capped (possessively) at lengths no sniff needs.
_HTML_TAG = re.compile(
    r"<(?:p|div|span|a|h[1-6]|ul|ol|li|table|tr|td|th|br|article|section|main|header|footer|nav|"
    r"blockquote|pre|em|strong|b|i|img|figure|meta|script|style|link)\b[^<>]*+>",
    re.I,
)
_MD_SIGNALS = re.compile(
    r"^(?:#{1,6}[ \t]+\S|[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S|>[ \t]?\S|```|~~~|\|?[ \t]*:?-{3,}:?[ \t]*\|)"
    r"|\[[^\]\n]{1,200}+\]\([^)\s]{1,500}+(?:[ \t][^)\n]{0,200}+)?\)|\*\*[^*\n]+\*\*|^[^\n]+\n(?:=+|-+)[ \t]*$",
    re.M,
)


def sniff_format(content: str) -> Format:
    """Guess the format of an answer whose provider declared none (SPEC §3.2).

    ``"html"`` when it starts like an HTML document or is dominated by HTML tags, ``"markdown"``
    when it shows Markdown structure (headings, lists, quotes, fences, links, strong emphasis,
    tables, setext underlines), else ``"text"``. Markdown with a few inline tags (``<br>``) stays
    Markdown. Looks at the first 64 KiB only, so cost is constant.
    """
    head = content[:_SNIFF_WINDOW]
    if _HTML_START.match(head):
        return "html"
    tags = len(_HTML_TAG.findall(head))
    signals = len(_MD_SIGNALS.findall(head))
    if tags >= 3 and tags >= 2 * signals and tags * 200 >= len(head.strip()):
        return "html"
    if signals:
        return "markdown"
    return "html" if tags >= 3 else "text"


# --- HTML ------------------------------------------------------------------------------------------

# Elements whose content is never shown to a reader (SPEC §3.2). `title` lives in <head>; `textarea`
# content is a control value, like an input value; iframe/video/audio/canvas content is fallback text a
# browser that supports them never shows; a datalist is never rendered; <rp> only without ruby support.
_INVISIBLE_TAGS = frozenset(
    {"head", "title", "script", "style", "template", "noscript", "textarea", "meta", "link", "base",
     "iframe", "video", "audio", "canvas", "datalist", "rp"}
)
_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
_BLOCK_KIND: Mapping[str, str] = {
    **{f"h{n}": HEADING for n in range(1, 7)},
    "pre": CODE,
    "li": LIST_ITEM,
    "blockquote": QUOTE,
    "td": TABLE_CELL,
    "th": TABLE_CELL,
    "caption": CAPTION,
    "figcaption": CAPTION,
}
# Block elements without a kind of their own: they break blocks and inherit the enclosing kind.
_NEUTRAL_BLOCKS = frozenset(
    {
        "address", "article", "aside", "body", "center", "dd", "details", "dialog", "dir", "div", "dl",
        "dt", "fieldset", "figure", "footer", "form", "header", "hgroup", "hr", "html", "legend", "listing",
        "main", "menu", "nav", "ol", "p", "plaintext", "section", "summary", "table", "tbody", "tfoot",
        "thead", "tr", "ul", "xmp", "option", "optgroup", "select",
    }
)
_STRONG_TAGS = frozenset({"strong", "b"})
CHROME_TAGS = frozenset({"nav", "aside", "footer"})
"""Page chrome the structured text parser skips in HTML answers (SPEC §3.5: navigation, sidebars, footers)."""
_STYLE_DECL = re.compile(r"([\w-]+)\s*:\s*([^;]*)")
_IMPORTANT = re.compile(r"!\s*important", re.I)
_SPACES = re.compile(r"\s+")


def _style_values(style: str) -> dict[str, str]:
    return {prop.lower(): _IMPORTANT.sub("", value).strip().lower() for prop, value in _STYLE_DECL.findall(style)}


def _style_hides(style: str) -> bool:
    """True when an inline style removes the element with ``display:none``."""
    return _style_values(style).get("display") == "none"


def _style_visibility(style: str | None) -> bool | None:
    """The inline ``visibility`` of an element: False for hidden/collapse, True for visible, None when
    unset (inherited). A descendant can make itself visible again, as in CSS."""
    if not style:
        return None
    value = _style_values(style).get("visibility")
    if value in ("hidden", "collapse"):
        return False
    if value == "visible":
        return True
    return None


def _style_skips_contents(style: str | None) -> bool:
    """True for ``content-visibility:hidden``: the element's box stays, its contents are not rendered."""
    return bool(style) and _style_values(style).get("content-visibility") == "hidden"


def _element_hides(tag: str, attrib: Mapping[str, str]) -> bool:
    """True when the element and everything inside it is removed from view (SPEC §3.2).

    ``visibility:hidden`` is not here: it is inherited and a descendant may override it, so the
    walkers track it separately (:func:`_style_visibility`).
    """
    if tag in _INVISIBLE_TAGS or "hidden" in attrib:
        return True
    if tag == "input" and attrib.get("type", "").lower() == "hidden":
        return True
    # A <dialog> without `open` is not rendered by browsers.
    if tag == "dialog" and "open" not in attrib:
        return True
    style = attrib.get("style")
    return bool(style) and _style_hides(style)


def _is_listbox(attrib: Mapping[str, str]) -> bool:
    size = attrib.get("size", "").strip()
    return "multiple" in attrib or (size.isdigit() and int(size) > 1)


class _TooDeep(Exception):
    """libxml2 stops at 2048 nested elements and silently drops the rest of the document."""


# Characters lxml keeps in a parsed tree but refuses to set through its API (pruning moves tails):
# C0 controls other than tab/newline/return, U+FFFE/U+FFFF and surrogates. Invisible to a reader, they
# become U+FFFD, as NUL already does in the parser.
_DOCUMENT_END = re.compile(r"</(?:html|body)\s*>", re.I)
_XML_INCOMPATIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _parse_html(content: str) -> lxml.html.HtmlElement | None:
    # Bytes + explicit encoding: lxml refuses str input carrying an XML encoding declaration.
    # A parser per call: lxml parsers and their error logs are not safe to share between threads.
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True)
    if _XML_INCOMPATIBLE.search(content):
        content = _XML_INCOMPATIBLE.sub("\ufffd", content)
    if _DOCUMENT_END.search(content):
        # libxml2 drops everything after </html>; a browser keeps it in the body (HTML5 "after body").
        content = _DOCUMENT_END.sub("", content)
    data = content.encode("utf-8")
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, lxml.etree.XMLSyntaxError, ValueError):
        return None  # empty document, or only comments / whitespace
    if any("Excessive depth" in entry.message for entry in parser.error_log):
        raise _TooDeep
    return root


class _BlockBuilder:
    """Collects text pieces into blocks while walking a tree. Every operation is O(1) amortised,
    whatever the nesting depth."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.pieces: list[str] = []
        self.links: list[Link] = []
        self.strong: list[str] = []
        self.orphans: list[Link] = []  # links without text in a block without text: they go to the next block
        self.opened: list[bool] = []  # per open block element: did it push onto `specific`?
        self.specific: list[tuple[str, int]] = []  # enclosing kinds other than paragraph, innermost last
        self.code_depth = 0
        self.quote_depth = 0
        self.serial = 0  # bumps on every flush, so an open span knows its text was cut
        self.item_pending = False  # an <li> opened and has not produced its first block yet

    def open_block(self, tag: str) -> None:
        self.flush()
        if tag == "li":
            self.item_pending = True
        kind = _BLOCK_KIND.get(tag, PARAGRAPH)
        self.opened.append(kind != PARAGRAPH)
        if kind != PARAGRAPH:
            self.specific.append((kind, int(tag[1]) if kind == HEADING else 0))
        if kind == CODE:
            self.code_depth += 1
        elif kind == QUOTE:
            self.quote_depth += 1

    def close_block(self) -> None:
        self.flush()
        if self.opened.pop():
            kind, _ = self.specific.pop()
            if kind == LIST_ITEM:
                self.item_pending = False  # an item without text of its own marks no later block
            if kind == CODE:
                self.code_depth -= 1
            elif kind == QUOTE:
                self.quote_depth -= 1

    def kind(self) -> tuple[str, int]:
        if self.code_depth:
            return CODE, 0
        return self.specific[-1] if self.specific else (PARAGRAPH, 0)

    def in_code(self) -> bool:
        return self.code_depth > 0

    def span_text(self, serial: int, start: int) -> str:
        """Text of a span that opened at piece ``start`` of block ``serial`` (only the part in the
        current block if a block boundary fell inside it)."""
        return _SPACES.sub(" ", "".join(self.pieces[start if serial == self.serial else 0 :])).strip()

    def finish(self) -> list[Block]:
        """Flush the last block; trailing text-less links join the last block. Returns the blocks."""
        self.flush()
        if self.orphans and self.blocks:
            last = self.blocks[-1]
            self.blocks[-1] = Block(last.kind, last.level, last.text, last.links + tuple(self.orphans), last.strong,
                                    last.quoted, last.opens_item)
            self.orphans = []
        return self.blocks

    def flush(self) -> None:
        raw = "".join(self.pieces)
        kind, level = self.kind()
        text = raw.strip("\n").rstrip() if kind == CODE else _SPACES.sub(" ", raw).strip()
        if text:
            links = tuple(self.orphans + self.links) if self.orphans else tuple(self.links)
            self.orphans = []
            self.blocks.append(Block(kind, level, text, links, tuple(self.strong), self.quote_depth > 0,
                                     self.item_pending))
            self.item_pending = False
        elif self.links:
            # An icon-only link (no visible text) still carries a target, e.g. a post permalink: it
            # belongs with the text that follows it.
            self.orphans.extend(self.links)
        self.pieces = []
        self.links = []
        self.strong = []
        self.serial += 1


class _Span:
    """An open inline span (link or strong) while walking: where its text started."""

    __slots__ = ("serial", "start", "href")

    def __init__(self, serial: int, start: int, href: str | None) -> None:
        self.serial, self.start, self.href = serial, start, href


def project_html(content: str) -> list[Block]:
    """Visible text blocks of an HTML document (SPEC §3.2). Never raises on malformed input."""
    try:
        root = _parse_html(content)
    except _TooDeep:
        return _project_html_flat(content)
    if root is None:
        return []
    return _walk(root, invisible=_prune(root))


def _walk(
    root: lxml.html.HtmlElement,
    skip: frozenset[str] = frozenset(),
    *,
    invisible: set[lxml.html.HtmlElement] | frozenset[lxml.html.HtmlElement] = frozenset(),
    builder: _BlockBuilder | None = None,
    finish: bool = True,
) -> list[Block]:
    """Blocks of a tree already pruned by :func:`_prune` (the one place the visibility rules live);
    ``invisible`` is what ``_prune`` returned, elements named in ``skip`` are left out."""
    out = builder or _BlockBuilder()
    # Iterative walk (deep documents must not hit the recursion limit). Items are
    # (element, entering, emit_tail); a tail is text after the element, owned by its parent.
    stack: list[tuple[lxml.html.HtmlElement, bool, bool]] = [(root, True, False)]
    spans: list[_Span] = []
    counters: dict[lxml.html.HtmlElement, list[int]] = {}  # per <ol>: [next value, step]
    while stack:
        el, entering, emit_tail = stack.pop()
        tag = el.tag if isinstance(el.tag, str) else None
        if tag is not None:
            tag = tag.lower()
        if not entering:
            _leave(out, el, tag, spans)
            if emit_tail and el.tail:
                out.pieces.append(el.tail)
            continue
        if tag is None or tag in skip:
            if emit_tail and el.tail:
                out.pieces.append(el.tail)
            continue
        shown = el not in invisible
        if tag == "br":
            if shown:
                out.pieces.append("\n") if out.in_code() else out.flush()
            if emit_tail and el.tail:
                out.pieces.append(el.tail)
            continue
        _enter(out, el, tag, spans, shown)
        if tag == "li" and shown:
            marker = _ordered_marker(el, counters)
            if marker:
                out.pieces.append(marker + " ")
        stack.append((el, False, emit_tail))
        if el.text:
            out.pieces.append(el.text)
        for child in reversed(el):
            stack.append((child, True, True))
    if not finish:
        out.flush()
        return out.blocks
    return out.finish()


def _displayed_option(select: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    options = [o for o in select.iter("option")]
    return next((o for o in options if "selected" in o.attrib), options[0] if options else None)


def _no_marker(style: str | None) -> bool:
    if not style:
        return False
    values = _style_values(style)
    return values.get("list-style-type") == "none" or "none" in values.get("list-style", "").split()


def _ordered_marker(li: lxml.html.HtmlElement, counters: dict[lxml.html.HtmlElement, list[int]]) -> str | None:
    """The marker a browser draws before ``li`` when it is an item of an ``<ol>`` (SPEC §3.2: ordered-list
    numbers are text, in HTML as in Markdown): ``start``, ``reversed``, ``type`` and an item's ``value``
    honoured, none where an inline style sets ``list-style: none``. ``counters`` keeps each list's next
    value, so a list of n items costs O(n)."""
    parent = li.getparent()
    if parent is None or not isinstance(parent.tag, str) or parent.tag.lower() != "ol":
        return None
    state = counters.get(parent)
    if state is None:
        step = -1 if "reversed" in parent.attrib else 1
        start = _integer(parent.attrib.get("start"))
        if start is None:
            start = sum(1 for c in parent if isinstance(c.tag, str) and c.tag.lower() == "li") if step < 0 else 1
        state = counters[parent] = [start, step]
    value = _integer(li.attrib.get("value"))
    if value is not None:
        state[0] = value
    number = state[0]
    state[0] += state[1]
    if _no_marker(parent.attrib.get("style")) or _no_marker(li.attrib.get("style")):
        return None
    return f"{_counter_text(number, parent.attrib.get('type', '1'))}."


def _integer(value: str | None) -> int | None:
    try:
        return int(value.strip()) if value is not None else None
    except ValueError:
        return None


_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def _counter_text(number: int, kind: str) -> str:
    """``number`` as an ``<ol type>`` draws it: ``1`` decimal, ``a``/``A`` letters, ``i``/``I`` roman
    numerals (decimal outside the range a browser draws them in)."""
    if kind in ("a", "A") and number > 0:
        letters = ""
        while number:
            number, rest = divmod(number - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters.upper() if kind == "A" else letters
    if kind in ("i", "I") and 0 < number < 4000:
        roman = ""
        for value, numeral in _ROMAN:
            while number >= value:
                roman, number = roman + numeral, number - value
        return roman.upper() if kind == "I" else roman
    return str(number)


def _enter(out: _BlockBuilder, el: lxml.html.HtmlElement, tag: str, spans: list[_Span], shown: bool) -> None:
    if tag in _BLOCK_KIND or tag in _NEUTRAL_BLOCKS:
        out.open_block(tag)
    elif tag == "a" and "href" in el.attrib:
        spans.append(_Span(out.serial, len(out.pieces), el.attrib.get("href", "") if shown else None))
    elif tag in _STRONG_TAGS:
        spans.append(_Span(out.serial, len(out.pieces), None))
    elif tag in _VOID_TAGS and tag != "wbr":
        # Images, inputs etc. contribute no text (alt, title and value are attributes), only a gap.
        out.pieces.append(" ")


def _leave(out: _BlockBuilder, el: lxml.html.HtmlElement, tag: str | None, spans: list[_Span]) -> None:
    if tag is None:
        return
    if tag in _BLOCK_KIND or tag in _NEUTRAL_BLOCKS:
        out.close_block()
    elif ((tag == "a" and "href" in el.attrib) or tag in _STRONG_TAGS) and spans:
        span = spans.pop()
        text = out.span_text(span.serial, span.start)
        if tag == "a":
            # An invisible link (inherited visibility:hidden) has no target a reader could see.
            if span.href is not None and (text or span.serial == out.serial):
                out.links.append(Link(text, span.href))
        elif text:
            out.strong.append(text)


class VisibleTree:
    """A parsed HTML answer with everything a reader cannot see removed (SPEC §3.2).

    Native record selectors (SPEC §3.5, §3.6) and visible-control anchors run on this tree, so hidden
    descendants, closed ``<details>`` content and hidden controls can satisfy no check. ``invisible``
    holds elements that remain in the tree only because a descendant may be visible again
    (inherited ``visibility:hidden``); their own text is already gone. Build with :meth:`parse`.
    """

    def __init__(self, root: lxml.html.HtmlElement, invisible: set[lxml.html.HtmlElement]) -> None:
        self.root = root
        self.invisible = invisible  # holds the proxies alive, so identity membership stays valid

    @classmethod
    def parse(cls, content: str) -> VisibleTree | None:
        """Parse and prune ``content``; ``None`` for an empty document or one nested deeper than
        libxml2 accepts (the flat projection handles those; native selectors are then unavailable)."""
        try:
            root = _parse_html(content)
        except _TooDeep:
            return None
        if root is None:
            return None
        return cls(root, _prune(root))

    def blocks(self, skip: frozenset[str] = frozenset()) -> list[Block]:
        """The projection's blocks of this tree; ``skip`` leaves out elements by tag (e.g. :data:`CHROME_TAGS`)."""
        return _walk(self.root, skip, invisible=self.invisible)

    def shown(self, element: lxml.html.HtmlElement) -> bool:
        """False for an element kept only for its visible descendants."""
        return element not in self.invisible


def _prune(root: lxml.html.HtmlElement) -> set[lxml.html.HtmlElement]:
    """Remove invisible content from ``root`` in place; return the elements left in the tree whose own
    text was removed because of inherited ``visibility:hidden``. One pass, no recursion."""
    invisible: set[lxml.html.HtmlElement] = set()
    removals: list[lxml.html.HtmlElement] = []
    stack: list[tuple[lxml.html.HtmlElement, bool]] = [(root, True)]
    while stack:
        el, parent_shown = stack.pop()
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        if tag is None or _element_hides(tag, el.attrib):
            removals.append(el)
            continue
        style = el.attrib.get("style")
        own = _style_visibility(style)
        shown = parent_shown if own is None else own
        children = list(el)
        keep: list[lxml.html.HtmlElement] | None = None
        if _style_skips_contents(style):
            keep = []
        elif tag == "details" and "open" not in el.attrib:
            summary = next((c for c in children if isinstance(c.tag, str) and c.tag.lower() == "summary"), None)
            keep = [summary] if summary is not None else []
        elif tag == "select" and not _is_listbox(el.attrib):
            option = _displayed_option(el)
            keep = [option] if option is not None else []
        if keep is not None:
            el.text = None
            for child in children:
                if child in keep:
                    child.tail = None
                else:
                    el.remove(child)
            if tag == "select" and keep and keep[0].getparent() is not el:
                el.append(keep[0])  # an option inside an <optgroup>: lift it out of the removed group
                keep[0].tail = None
            children = list(el)
        if not shown:
            invisible.add(el)
            el.text = None
            for child in children:
                child.tail = None
        for child in children:
            stack.append((child, shown))
    for el in removals:
        if el.getparent() is not None:
            el.drop_tree()  # keeps the tail: it belongs to the parent (already cleared if that is invisible)
    return invisible


def _project_html_flat(content: str) -> list[Block]:
    """Fallback for documents nested deeper than libxml2 accepts (it drops everything past depth
    2048): a flat tag scanner with the same visibility rules, so the rest of the page is not lost.
    Implicitly closed elements are not repaired, which only affects block kinds."""
    out = _BlockBuilder()
    stack: list[_FlatElement] = []
    spans: list[_Span] = []
    open_counts: dict[str, int] = {}
    selected_options = _SelectedOptions(content)
    position = 0
    ended = True
    for start, end, closing, name, rest in _iter_tags(content):
        text_here = stack[-1].text_visible if stack else True
        if text_here and start > position:
            out.pieces.append(html.unescape(content[position:start]))
        position = end
        ended = not (name is not None and not closing and name.lower() in _RAW_TEXT_TAGS)
        if name is None:
            continue  # comment
        tag = name.lower()
        if closing:
            # Per-tag counts keep stray closing tags O(1); a matching one pops what it closes.
            if open_counts.get(tag):
                index = next(i for i in range(len(stack) - 1, -1, -1) if stack[i].tag == tag)
                for element in reversed(stack[index:]):
                    _leave_flat(out, element, spans)
                    open_counts[element.tag] -= 1
                del stack[index:]
            continue
        attrs = _parse_attributes(rest)
        parent = stack[-1] if stack else None
        present = (parent.content_present if parent else True) and not _element_hides(tag, attrs)
        if tag == "summary" and parent is not None and parent.closed_details and not parent.summary_shown:
            parent.summary_shown = True
            present = parent.present  # the first direct summary of a closed <details> shows
        if tag == "option" and parent is not None and parent.dropdown is not None:
            present = parent.present and parent.dropdown.show(attrs)
        own = _style_visibility(attrs.get("style"))
        shown = (parent.shown if parent else True) if own is None else own
        if tag == "br":
            if present and shown:
                out.pieces.append("\n") if out.in_code() else out.flush()
            continue
        element = _FlatElement(tag, present, shown)
        if present:
            if tag in _BLOCK_KIND or tag in _NEUTRAL_BLOCKS:
                out.open_block(tag)
                element.opened_block = True
            elif (tag == "a" and "href" in attrs) or tag in _STRONG_TAGS:
                href = (attrs.get("href", "") if shown else None) if tag == "a" else None
                spans.append(_Span(out.serial, len(out.pieces), href))
                element.opened_span = "a" if tag == "a" else "strong"
            elif tag in _VOID_TAGS and tag != "wbr":
                out.pieces.append(" ")
        if tag in _VOID_TAGS or rest.rstrip().endswith("/"):
            _leave_flat(out, element, spans)
            continue
        element.closed_details = tag == "details" and "open" not in attrs
        skips = _style_skips_contents(attrs.get("style"))
        element.content_present = present and not element.closed_details and not skips
        if tag == "select" and not _is_listbox(attrs):
            element.dropdown = _Dropdown(selected_options.has_selected(end))
            element.content_present = present and not skips
        elif tag == "optgroup" and parent is not None and parent.dropdown is not None:
            element.dropdown = parent.dropdown  # options inside a group belong to the same drop-down
        element.text_visible = element.content_present and shown and tag not in ("select", "optgroup")
        stack.append(element)
        open_counts[tag] = open_counts.get(tag, 0) + 1
    if ended and (stack[-1].text_visible if stack else True) and position < len(content):
        out.pieces.append(html.unescape(content[position:]))
    return out.finish()


class _Dropdown:
    """Which option of a flat-scanned drop-down is displayed: the first selected one, else the first."""

    def __init__(self, has_selected: bool) -> None:
        self.has_selected = has_selected
        self.shown = False

    def show(self, attrs: Mapping[str, str]) -> bool:
        if self.shown or (self.has_selected and "selected" not in attrs):
            return False
        self.shown = True
        return True


_SELECTED_OPTION = re.compile(r"<option\b[^<>]*?\bselected\b", re.I)
_SELECT_END = re.compile(r"</select\s*>", re.I)


class _SelectedOptions:
    """Answers "does the drop-down starting at ``start`` have a selected option?" for one document.

    Each search result is remembered and reused while it still lies ahead, so a document of many
    unclosed ``<select>`` elements costs one scan, not one scan to the end per element."""

    def __init__(self, content: str) -> None:
        self.content = content
        self._end: tuple[int, int] = (-1, -1)  # (searched from, next </select> start or len)
        self._selected: tuple[int, int] = (-1, -1)  # (searched from, next selected option start or -1)

    def _next(self, pattern: re.Pattern[str], start: int, cached: tuple[int, int], missing: int) -> tuple[int, int]:
        searched_from, found = cached
        if searched_from != -1 and searched_from <= start and (found >= start or found == missing):
            return cached
        match = pattern.search(self.content, start)
        return start, match.start() if match else missing

    def has_selected(self, start: int) -> bool:
        self._end = self._next(_SELECT_END, start, self._end, len(self.content))
        self._selected = self._next(_SELECTED_OPTION, start, self._selected, -1)
        selected = self._selected[1]
        return selected != -1 and selected < self._end[1]


@dataclass
class _FlatElement:
    tag: str
    present: bool
    shown: bool
    content_present: bool = False
    text_visible: bool = False
    closed_details: bool = False
    summary_shown: bool = False
    opened_block: bool = False
    opened_span: str | None = None
    dropdown: _Dropdown | None = None


def _leave_flat(out: _BlockBuilder, element: _FlatElement, spans: list[_Span]) -> None:
    if element.opened_block:
        out.close_block()
    elif element.opened_span and spans:
        span = spans.pop()
        text = out.span_text(span.serial, span.start)
        if element.opened_span == "a":
            if span.href is not None and (text or span.serial == out.serial):
                out.links.append(Link(text, span.href))
        elif text:
            out.strong.append(text)


# --- Markdown --------------------------------------------------------------------------------------

# markdown-it silently drops content nested deeper than maxNesting (20 in the CommonMark preset:
# only 10 nested list levels). 100 keeps real documents whole and stays far from Python's recursion limit.
_MARKDOWN = MarkdownIt("commonmark", {"maxNesting": 100}).enable(["table", "strikethrough"])
# Keep link targets as written: URL re-encoding costs seconds on large answers and link checks
# compare targets themselves.
_MARKDOWN.normalizeLink = lambda url: url  # type: ignore[method-assign]
# Inline parsing is run lazily by project_markdown: most of markdown-it's time goes there, and an
# inline without any markup character is its own reader text.
_MARKDOWN.disable(["inline", "text_join"])
_INLINE_MARKUP = re.compile(r"[\\`*_~\[\]!<&]")

MARKDOWN_LINK_BUDGET_S = 1.0
"""Fixed part of the CPU time (seconds, this thread) markdown-it's link and image rules may spend on
one answer; :data:`MARKDOWN_LINK_BUDGET_PER_CHAR_S` more is allowed per character of the answer.

A link label is found by re-scanning the text after each ``[`` through nested rules, up to
markdown-it's nesting limit: ordinary Markdown costs well under a microsecond per character, but a
run of ``[`` (or ``![``, ``[a][``, ``<![CDATA[``) costs about 60 µs per character — twenty minutes for
a 20 MB answer. Past the budget the remaining inline blocks that contain markup are read as plain
text (their words still count for coverage and titles; their links and strong spans are lost) and
the projection says so in ``Projection.notes``. Real answers stay far below the budget, so their
scores never depend on the machine's speed."""
MARKDOWN_LINK_BUDGET_PER_CHAR_S = 1e-6
_BUDGET_KEY = "lexbench_link_budget"
MAX_EMPHASIS_MARKERS = 10_000
"""An inline block (one paragraph, heading or table cell) with more ``*``, ``_`` and ``~`` than this is
read as plain text, markers kept. Every marker becomes a delimiter object that emphasis pairing keeps
until the block ends (about 250 bytes each): 20 MB of ``*a_`` took 3.5 GB and 80 s. Real paragraphs
hold a few dozen markers; the count is of characters, so both Markdown paths decide alike."""
_HEAVY_KEY = "lexbench_emphasis_heavy"


def emphasis_heavy(content: str) -> bool:
    """Whether one inline block's ``content`` has more emphasis markers than :data:`MAX_EMPHASIS_MARKERS`."""
    if len(content) <= MAX_EMPHASIS_MARKERS:
        return False  # cannot hold that many: no counting on the ordinary paragraph
    return content.count("*") + content.count("_") + content.count("~") > MAX_EMPHASIS_MARKERS


def emphasis_note(blocks: int) -> str:
    """The projection note for ``blocks`` inline blocks read as plain text by :func:`emphasis_heavy`."""
    return (f"{blocks} inline block(s) with more than {MAX_EMPHASIS_MARKERS:,} emphasis markers read as plain "
            "text (links and strong spans there not extracted)")


_BUDGET_CHECK_EVERY = 64  # reading the thread clock on every call would cost more than the rule


class _BudgetSpent(Exception):
    """Raised inside markdown-it when an answer's link-rule budget is spent."""


class _LinkBudget:
    """The CPU time left for markdown-it's link and image rules on one answer."""

    def __init__(self, chars: int) -> None:
        self.until = time.thread_time() + MARKDOWN_LINK_BUDGET_S + MARKDOWN_LINK_BUDGET_PER_CHAR_S * chars
        self.calls = 0
        self.spent = False
        self.plain_blocks = 0

    def charge(self) -> None:
        self.calls += 1
        if self.calls % _BUDGET_CHECK_EVERY == 0 and time.thread_time() > self.until:
            self.spent = True
            raise _BudgetSpent


def _budgeted(rule_name: str) -> None:
    index = _MARKDOWN.inline.ruler.__find__(rule_name)
    rule = _MARKDOWN.inline.ruler.__rules__[index]
    original = rule.fn

    def charged(state, silent):  # type: ignore[no-untyped-def]
        budget = state.env.get(_BUDGET_KEY) if isinstance(state.env, dict) else None
        if budget is not None:
            budget.charge()
        return original(state, silent)

    _MARKDOWN.inline.ruler.at(rule_name, charged, {"alt": rule.alt})


for _rule in ("link", "image"):
    _budgeted(_rule)
# Where a tag or comment may start, then the whole tag matched at that position. Quotes delimit a value
# only after "=", every other character (including a stray quote) is consumed possessively, so a match
# attempt never backtracks and fails only when no ">" follows at all.
_TAG_START = re.compile(r"<(?:!--|/?[A-Za-z])")
_HTML_TAG_TOKEN = re.compile(
    r"<!--|<(/?)([A-Za-z][A-Za-z0-9-]*+)((?:[^\"'>=]++|=\s*+\"[^\"]*+\"|=\s*+'[^']*+'|[=\"'])*+)>"
)
_RAW_TEXT_TAGS = frozenset({"script", "style", "textarea", "title"})


def _iter_tags(markup: str) -> Iterator[tuple[int, int, str, str | None, str]]:
    """Yield ``(start, end, closing, name, rest)`` for every tag and comment (name ``None``) in
    ``markup``. The content of script/style/textarea/title is skipped to its closing tag, so a ``<``
    inside a script cannot open a phantom element. A tag that never ends (no ``>`` after it) ends the
    scan, as end of file inside a tag does in a browser: the rest stays text, and hostile markup such
    as thousands of unclosed ``<a `` costs one pass, not one pass per ``<``."""
    position = 0
    while True:
        start = _TAG_START.search(markup, position)
        if start is None:
            return
        match = _HTML_TAG_TOKEN.match(markup, start.start())
        if match is None:
            return
        closing, name, rest = match.groups()
        if name is None:  # a comment; str.find keeps unclosed comments linear
            end = markup.find("-->", match.end())
            if end < 0:
                yield match.start(), len(markup), "", None, ""
                return
            yield match.start(), end + 3, "", None, ""
            position = end + 3
            continue
        yield match.start(), match.end(), closing, name, rest
        position = match.end()
        if name is not None and not closing and name.lower() in _RAW_TEXT_TAGS:
            end = re.compile(rf"</{name}\s*>", re.I).search(markup, position)
            if end is None:
                return  # unclosed: the rest of the document is its raw text
            yield end.start(), end.end(), "/", name, ""
            position = end.end()


_DECORATION_TOKENS = frozenset({"em_open", "em_close", "strong_open", "strong_close", "s_open", "s_close"})
# An unclosed quoted value runs to the end of the tag (as in a browser), so a run of `x="a` costs one
# scan instead of one scan to the end per quote.
_ATTRIBUTE = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(?:\"([^\"]*)(?:\"|\Z)|'([^']*)(?:'|\Z)|([^\s\"'=<>`]+)))?")


def _parse_attributes(raw: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for name, dq, sq, bare in _ATTRIBUTE.findall(raw):
        attrs.setdefault(name.lower(), dq or sq or bare)
    return attrs


_DOCUMENT_TAGS = frozenset({"html", "head", "body"})


class _RawHtmlTracker:
    """Tracks elements opened by raw HTML blocks in Markdown whose content continues in later
    Markdown blocks, e.g. ``<details>`` … Markdown … ``</details>``. While an invisible one is open,
    the Markdown in between is hidden too (SPEC §3.2: HTML inside Markdown follows the HTML rules)."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, bool]] = []  # (tag, hides)
        self.counts: dict[str, int] = {}  # open elements per tag: stray closing tags cost O(1)
        self.hiding_open = 0  # open elements that hide their content

    @property
    def hiding(self) -> bool:
        return self.hiding_open > 0

    def feed(self, markup: str) -> None:
        for _start, _end, closing, name, rest in _iter_tags(markup):
            if name is None:
                continue  # comment
            name = name.lower()
            if name in _DOCUMENT_TAGS:
                continue  # a browser ignores these inside a body; nothing after them is hidden
            if closing:
                if self.counts.get(name):
                    while self.stack:
                        tag, hides = self.stack.pop()
                        self.counts[tag] -= 1
                        self.hiding_open -= hides
                        if tag == name:
                            break
            elif name not in _VOID_TAGS and not rest.rstrip().endswith("/"):
                attrs = _parse_attributes(rest)
                hides = _element_hides(name, attrs) or (name == "details" and "open" not in attrs)
                self.stack.append((name, hides))
                self.counts[name] = self.counts.get(name, 0) + 1
                self.hiding_open += hides


def ordered_marker_text(number: str, delimiter: str, pending: str = "") -> str:
    """The reader text of an ordered list item's marker: its ``number`` and ``delimiter`` as written
    (``"11"``, ``")"`` → ``"11)"``), after the markers still ``pending`` from enclosing items whose
    first block has not come yet (``"1. 1."``). SPEC §3.2: ordered-list numbers are text."""
    own = f"{number}{delimiter}"
    return f"{pending} {own}" if pending else own


def _quote_all(blocks: list[Block], quoted: bool) -> list[Block]:
    return [b if not quoted or b.quoted else _with(b, quoted=True) for b in blocks]


def _unclosed_html_block_rest(markup: str) -> str | None:
    """For an HTML block that markdown-it ran to the end of its container because its closing sequence
    never came, the text after its opening line; else ``None``. These are CommonMark HTML block types
    1–5 (``<script>``, ``<style>``, ``<textarea>``; ``<!--``; ``<?``; ``<!X``; ``<![CDATA[``), which
    do not end at a blank line. ``<pre>`` is left alone: its text is shown anyway."""
    head, newline, rest = markup.partition("\n")
    if not newline:
        return None
    opening = head.lstrip(" \t")
    for start, close, _ in HTML_SEQUENCES[:5]:
        if start.search(opening):
            if opening[1:4].lower() == "pre" or any(close.search(line) for line in markup.split("\n")):
                return None
            return rest
    return None


class _SurplusCells:
    """Body-row cells beyond a GFM table's header count, which markdown-it drops (as GitHub's renderer
    does) although a reader of the raw answer sees them: read again from the row's source line."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.lines: list[str] | None = None  # split on the first table row: most answers have none
        self.columns = 0
        self.in_header = False
        self.line: int | None = None

    def row(self, where: list[int] | None) -> None:
        self.line = where[0] if where else None

    def cell(self, kind: str) -> None:
        if kind == "th_open":
            if not self.in_header:
                self.in_header, self.columns = True, 0
            self.columns += 1
        else:
            self.in_header = False

    def surplus(self, quoted: bool) -> list[str]:
        """The trimmed surplus cells of the row just closed (none for a header row)."""
        if self.in_header:
            self.in_header = False
            self.line = None
            return []
        if self.line is None:
            return []
        if self.lines is None:
            self.lines = self.content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        text = self.lines[self.line] if self.line < len(self.lines) else ""
        self.line = None
        text = mdTrim(text)
        if quoted:
            while text.startswith(">"):
                text = text[1:].strip()
        cells = escapedSplit(text)
        if cells and cells[0] == "":
            cells.pop(0)
        if cells and cells[-1] == "":
            cells.pop()
        return [mdTrim(cell) for cell in cells[self.columns :] if mdTrim(cell)]


def project_markdown(content: str, *, notes: list[str] | None = None) -> list[Block]:
    """Reader-text blocks of a Markdown document (SPEC §3.2): CommonMark with tables and
    strikethrough. Link text kept (targets in ``links``), images and their alt text dropped,
    decoration dropped, fenced/indented code kept as ``code`` blocks, raw HTML projected by the
    HTML rules. Soft and hard line breaks inside a paragraph are kept as ``\\n``.

    What a reader sees is kept where the parser's dialect would drop it (SPEC §3.2):

    - an ordered list item's marker as written (``1.``, ``11)``) opens the item's first block
      (:func:`ordered_marker_text`);
    - table cells beyond the header's column count follow the row's other cells;
    - ``<html>``, ``<head>`` and ``<body>`` lines are ignored, as a browser ignores them in a body;
    - an element that hides content (``<details>``, ``<div hidden>``, ``<script>``…) hides the
      Markdown after it only up to its closing tag: left unclosed, that Markdown is shown; so does a
      comment (``<!--``) or declaration (``<?``, ``<!X``, ``<![CDATA[``) never closed, after its line.

    Link parsing runs under a CPU budget (:data:`MARKDOWN_LINK_BUDGET_S`); when it is spent, a line
    saying how many inline blocks were read as plain text is appended to ``notes``."""
    budget = _LinkBudget(len(content))
    env: dict[str, object] = {_BUDGET_KEY: budget}
    tokens = _MARKDOWN.parse(content, env)
    blocks: list[Block] = []
    held: list[Block] = []  # blocks under an open hiding element: dropped at its closing tag
    containers: list[str] = []  # enclosing list items / quotes, innermost last
    leaf: tuple[str, int] = (PARAGRAPH, 0)
    raw_html = _RawHtmlTracker()
    orphans: list[Link] = []  # text-less links (e.g. "[](permalink)") waiting for the next block
    marker = ""  # ordered-list markers waiting for their item's first block
    item_pending = False  # a list item opened and has not produced its first block yet
    table = _SurplusCells(content)

    def emit(produced: list[Block]) -> None:
        nonlocal marker, item_pending
        if marker and produced:
            produced[0] = _with(produced[0], text=f"{marker} {produced[0].text}")
            marker = ""
        if item_pending and produced:
            produced[0] = _with(produced[0], opens_item=True)
            item_pending = False
        (held if raw_html.hiding else blocks).extend(produced)

    def take_inline(token: Token, leaf: tuple[str, int], quoted: bool) -> None:
        nonlocal orphans
        produced, loose = _inline_blocks(token, leaf, env, quoted)
        if raw_html.hiding:
            emit(produced)  # shown only if the hiding element is never closed
            return
        if produced and orphans:
            produced[0] = _with(produced[0], links=tuple(orphans) + produced[0].links)
            orphans = []
        emit(produced)
        orphans.extend(loose)

    for token in tokens:
        kind = token.type
        quoted = QUOTE in containers
        if kind == "html_block":
            markup = token.content
            rest = _unclosed_html_block_rest(markup)
            if rest is not None:
                # A <script> or <!-- line never closed: markdown-it's HTML block runs to the end of its
                # container, hiding it. Only the opening line is markup; the rest is read.
                emit(_quote_all(project_html(markup[: len(markup) - len(rest)]), quoted))
                emit(_quote_all(project_markdown(rest, notes=notes), quoted))
                continue
            emit(_quote_all(project_html(markup), quoted))
            was_hiding = raw_html.hiding
            raw_html.feed(markup)
            if was_hiding and not raw_html.hiding:
                held.clear()
            continue
        if kind == "list_item_open":
            containers.append(LIST_ITEM)
            item_pending = True
            if token.info:  # an ordered item: its number as written
                marker = ordered_marker_text(token.info, token.markup, marker)
        elif kind == "blockquote_open":
            containers.append(QUOTE)
        elif kind in ("list_item_close", "blockquote_close"):
            if containers:
                containers.pop()
            if kind == "list_item_close" and marker:
                alone, marker = marker, ""  # an item with no text of its own: its marker alone
                emit([Block(LIST_ITEM, 0, alone, quoted=QUOTE in containers)])
            if kind == "list_item_close":
                item_pending = False  # an item without a block of its own marks no later block
        elif kind == "heading_open":
            leaf = (HEADING, int(token.tag[1]))
        elif kind in ("th_open", "td_open"):
            leaf = (TABLE_CELL, 0)
            table.cell(kind)
        elif kind == "tr_open":
            table.row(token.map)
        elif kind == "tr_close":
            for cell in table.surplus(quoted):
                take_inline(Token("inline", "", 0, content=cell), (TABLE_CELL, 0), quoted)
        elif kind == "paragraph_open":
            leaf = (containers[-1] if containers else PARAGRAPH, 0)
        elif kind in ("fence", "code_block"):
            text = token.content.strip("\n").rstrip()
            if text:
                emit([Block(CODE, 0, text, quoted=quoted)])
        elif kind == "inline":
            take_inline(token, leaf, quoted)
    if raw_html.hiding:
        blocks.extend(held)  # never closed: a reader of the answer sees that text
    if orphans and blocks:
        blocks[-1] = _with(blocks[-1], links=blocks[-1].links + tuple(orphans))
    heavy = env.get(_HEAVY_KEY, 0)
    if heavy and notes is not None:
        notes.append(emphasis_note(heavy))  # type: ignore[arg-type]
    if budget.spent and notes is not None:
        total = MARKDOWN_LINK_BUDGET_S + MARKDOWN_LINK_BUDGET_PER_CHAR_S * len(content)
        notes.append(f"Markdown link parsing spent its {total:.1f} s budget; {budget.plain_blocks} inline "
                     "block(s) read as plain text (links and strong spans there not extracted)")
    return blocks


def _with(block: Block, **changes: object) -> Block:
    return dataclasses.replace(block, **changes)  # type: ignore[arg-type]


def _inline_blocks(
    token: Token, leaf: tuple[str, int], env: dict[str, object], quoted: bool
) -> tuple[list[Block], list[Link]]:
    """The blocks of one inline token, and the links of a text-less inline (to attach to the next block)."""
    kind, level = leaf
    budget = env.get(_BUDGET_KEY)
    spent = isinstance(budget, _LinkBudget) and budget.spent
    if spent or not _INLINE_MARKUP.search(token.content):
        # No emphasis, code, link, image, HTML, entity or escape: the text is the reader text.
        return _plain_inline(token, leaf, quoted, budget if spent else None), []
    if emphasis_heavy(token.content):
        env[_HEAVY_KEY] = int(env.get(_HEAVY_KEY, 0)) + 1  # type: ignore[call-overload]
        return _plain_inline(token, leaf, quoted, None), []
    children: list[Token] = []
    try:
        _MARKDOWN.inline.parse(token.content, _MARKDOWN, env, children)
    except _BudgetSpent:
        return _plain_inline(token, leaf, quoted, budget), []
    if any(child.type == "html_inline" for child in children):
        # Inline HTML (e.g. <span hidden>, <br>) follows the HTML rules: render and project.
        # Soft breaks become <br> so the paragraph's lines survive as lines (SPEC §3.3 title lines).
        rendered = [_render_ready(c) for c in children]
        html = _MARKDOWN.renderer.renderInline(rendered, _MARKDOWN.options, {})
        builder = _BlockBuilder()
        parts = _project_fragment(html, builder)
        loose = list(builder.orphans)
        if all(b.kind == PARAGRAPH for b in parts):
            if not parts:
                return [], loose
            text = "\n".join(b.text for b in parts)
            links = tuple(link for b in parts for link in b.links)
            strong = tuple(s for b in parts for s in b.strong)
            return [Block(kind, level, text, links, strong, quoted)], loose
        return [
            _with(b, quoted=quoted or b.quoted) if b.kind != PARAGRAPH else Block(kind, level, b.text, b.links, b.strong, quoted)
            for b in parts
        ], loose
    pieces: list[str] = []
    links: list[Link] = []
    strong: list[str] = []
    open_links: list[tuple[int, str]] = []
    open_strong: list[int] = []
    for child in children:
        ctype = child.type
        if ctype in ("text", "code_inline", "text_special"):
            pieces.append(child.content)
        elif ctype in ("softbreak", "hardbreak"):
            pieces.append("\n")
        elif ctype == "link_open":
            open_links.append((len(pieces), str(child.attrGet("href") or "")))
        elif ctype == "link_close" and open_links:
            start, href = open_links.pop()
            links.append(Link(_SPACES.sub(" ", "".join(pieces[start:])).strip(), href))
        elif ctype == "strong_open":
            open_strong.append(len(pieces))
        elif ctype == "strong_close" and open_strong:
            strong_text = _SPACES.sub(" ", "".join(pieces[open_strong.pop() :])).strip()
            if strong_text:
                strong.append(strong_text)
        elif ctype == "image":
            continue  # images and their alt text are not reader text
        elif child.content and not child.children and ctype not in _DECORATION_TOKENS:
            pieces.append(child.content)
    text = "".join(pieces)
    if "\n" in text:
        text = "\n".join(line.strip() for line in text.split("\n"))
    text = text.strip()
    if not text:
        return [], links
    return [Block(kind, level, text, tuple(links), tuple(strong), quoted)], []


def _plain_inline(token: Token, leaf: tuple[str, int], quoted: bool, budget: object) -> list[Block]:
    """An inline token read as plain text: its lines, stripped (counted against a spent ``budget``)."""
    if isinstance(budget, _LinkBudget):
        budget.plain_blocks += 1
    text = "\n".join(line.strip() for line in token.content.split("\n")).strip()
    return [Block(leaf[0], leaf[1], text, quoted=quoted)] if text else []


def _project_fragment(markup: str, builder: _BlockBuilder) -> list[Block]:
    """Blocks of an HTML fragment through ``builder``, whose text-less links stay in ``builder.orphans``."""
    try:
        root = _parse_html(markup)
    except _TooDeep:
        return _project_html_flat(markup)
    if root is None:
        return []
    return _walk(root, invisible=_prune(root), builder=builder, finish=False)


def _render_ready(token: Token) -> Token:
    if token.type == "softbreak":
        return Token("hardbreak", "br", 0)
    if token.type == "text_special":  # escapes and entities; text_join is disabled above
        return Token("text", "", 0, content=token.content)
    return token


def iter_lines(blocks: Iterable[Block]) -> Iterable[tuple[Block, str]]:
    """Every (block, line) pair: each block's own text and, for multi-line blocks, each line."""
    for block in blocks:
        yield block, block.text
        if "\n" in block.text:
            for line in block.lines():
                yield block, line
