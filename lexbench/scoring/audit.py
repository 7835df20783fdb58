"""The projection loss audit (SPEC §3.2): the reference fragments an answer holds but its projection
lost, and the rule that removed each.

A reference fragment (SPEC §3.4: the regions' and the ending's normalised text cut into 6-character
fragments) is *lost* when it occurs in the answer's raw normalised text, ``normalise(answer as
written)``, and not in the normalised projection the scorer measures. Every lost fragment is given the
projection rule that removed it, or :data:`UNEXPLAINED`.

The audit must not agree with the projection by construction, so it never calls the projection to
explain a loss. It reads the raw answer again, simply and separately — lxml for HTML (and HTML inside
Markdown), markdown-it-py tokens for Markdown — into a sequence of *segments* in document order, each
either reader text (labelled with its block number) or the text of one rule:

- ``link_target``: hrefs and other URL attributes, Markdown link destinations, autolinks, link
  reference definitions;
- ``image_alt``: ``<img alt>``, Markdown image text;
- ``html_attribute``: every other attribute value (title, value, placeholder, aria-*, class, …) and
  Markdown link and image titles;
- ``hidden_element``: content of head, title, script, style, template, noscript, textarea, iframe,
  video, audio, canvas, datalist, rp, ``hidden``, inline ``display:none`` / ``visibility:hidden`` /
  ``content-visibility:hidden``, a closed dialog, a closed details beyond its first summary, the
  options of a drop-down other than the displayed one, and Markdown inside an HTML element that
  hides it;
- ``html_comment``: comment text;
- ``markup``: tag and attribute names where the answer writes them (not those lxml or the Markdown
  renderer add), the doctype, entity names;
- ``code_info_string``: the info string of a fenced code block.

The segments are normalised and concatenated into the *reading*, each character keeping its label.
A lost fragment is looked up in the reading:

1. an occurrence made of reader text of one block only means the projection dropped text a reader
   sees: :data:`UNEXPLAINED`;
2. else an occurrence inside one rule's text is explained by that rule, and else an occurrence that
   straddles a rule's text and reader text by that rule (the first in :data:`RULES` order);
3. else an occurrence made of reader text of two or more blocks is ``block_join`` when the
   projection holds each of those blocks whole, and each is at least a fragment long (else the
   projection lost one, or the evidence is too short to say: :data:`UNEXPLAINED`).
   Normalisation deletes newlines, so a block boundary alone never separates two words in the
   normalised projection: a ``block_join`` loss means the projection did not keep the blocks next to
   each other (it reordered them, or put text between them). It is counted so such a loss is
   visible, not because the audit expects any;
4. a fragment that does not occur in the reading at all (the reading lost it too, e.g. table cells
   markdown-it drops) is :data:`UNEXPLAINED`.

Ordered-list numbers are reader text here (SPEC §3.2), a raw HTML line in Markdown hides later
Markdown only when the element it opens hides its content, and a comment or declaration line never
closed (``<!--``, ``<?``) hides nothing after it.

Why one module of this size: it is one report (``lexbench audit-projection``): per item, the reference fragments an answer holds but its projection loses, with the explanations it can give.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import lxml.etree
import lxml.html
from markdown_it import MarkdownIt
from markdown_it.rules_block.html_block import HTML_SEQUENCES
from markdown_it.token import Token

from lexbench.dataset.case import Case
from lexbench.scoring.coverage import measure
from lexbench.scoring.view import AnswerView
from lexbench.text import fragments, normalise

LINK_TARGET = "link_target"
IMAGE_ALT = "image_alt"
HTML_ATTRIBUTE = "html_attribute"
HIDDEN_ELEMENT = "hidden_element"
HTML_COMMENT = "html_comment"
MARKUP = "markup"
CODE_INFO_STRING = "code_info_string"
BLOCK_JOIN = "block_join"
UNEXPLAINED = "unexplained"
RULES = (LINK_TARGET, IMAGE_ALT, HTML_ATTRIBUTE, HIDDEN_ELEMENT, HTML_COMMENT, MARKUP, CODE_INFO_STRING, BLOCK_JOIN)
"""The rules a lost fragment can be explained by, in the order they are tried."""

_MAX_OCCURRENCES = 10_000  # of one fragment in the reading: enough to find a reader-text one


@dataclass(frozen=True)
class Loss:
    """One lost reference fragment: its normalised text, the rule that removed it (one of
    :data:`RULES` or :data:`UNEXPLAINED`), and for an unexplained loss ``context``, the raw answer
    around it, and ``note``, why it is unexplained."""

    fragment: str
    rule: str
    context: str = ""
    note: str = ""


@dataclass(frozen=True)
class AnswerAudit:
    """The audit of one answer: ``fragments`` distinct reference fragments, ``in_answer`` of them in the
    raw normalised answer, ``losses`` those in the answer but not in its projection, in reference order;
    ``format`` the format that was projected."""

    fragments: int
    in_answer: int
    losses: tuple[Loss, ...]
    format: str

    def counts(self) -> dict[str, int]:
        """Lost fragments per rule (``unexplained`` included), only rules that occur, in :data:`RULES` order."""
        counted = Counter(loss.rule for loss in self.losses)
        return {rule: counted[rule] for rule in (*RULES, UNEXPLAINED) if counted[rule]}

    @property
    def unexplained(self) -> tuple[Loss, ...]:
        return tuple(loss for loss in self.losses if loss.rule == UNEXPLAINED)


def reference_fragments(case: Case) -> list[str]:
    """The case's distinct reference fragments (SPEC §3.4) in order: each region's, then the ending's.
    Empty for a case without a body."""
    if case.body is None:
        return []
    texts = [*case.region_texts(), case.body.reference_scope.end]
    return list(dict.fromkeys(part for text in texts for part in fragments(text)))


def audit_answer(case: Case, content: str, content_format: str | None) -> AnswerAudit:
    """Audit one answer to ``case`` (SPEC §3.2): the lost fragments, each with its rule.

    ``content_format`` is the provider's declared format (sniffed when ``None`` or unknown, as the
    scorer does). Pure; never raises for any ``str`` answer.
    """
    wanted = reference_fragments(case)
    projection = AnswerView.of(content, content_format).projection
    raw = normalise(content)
    projected = "".join(normalise(piece) for piece in projection.pieces())
    # The scorer's own one-pass matcher (SPEC §3.4): linear in the answer, whatever the fragment count.
    absent = set(measure(raw, {"raw": wanted})["raw"].missing)
    in_answer = [part for part in wanted if part not in absent]
    unseen = set(measure(projected, {"projection": in_answer})["projection"].missing)
    lost = [part for part in in_answer if part in unseen]
    if not lost:
        return AnswerAudit(len(wanted), len(in_answer), (), projection.format)
    reading = read_answer(content, projection.format)
    losses = tuple(_classify(part, reading, content, projected) for part in lost)
    return AnswerAudit(len(wanted), len(in_answer), losses, projection.format)


# --- the reading -----------------------------------------------------------------------------------


@dataclass
class Reading:
    """An answer read into labelled, normalised segments. ``text`` is their concatenation;
    ``starts[i]``/``labels[i]`` the offset and label of segment ``i`` (a rule name, or the block
    number of reader text)."""

    text: str = ""
    starts: list[int] = field(default_factory=list)
    labels: list[str | int] = field(default_factory=list)
    _blocks: dict[int, str] | None = field(default=None, repr=False)

    def block_text(self, block: int) -> str:
        """The reader text of block number ``block``, normalised."""
        if self._blocks is None:
            ends = [*self.starts[1:], len(self.text)]
            texts: dict[int, list[str]] = {}
            for start, end, label in zip(self.starts, ends, self.labels, strict=True):
                if isinstance(label, int):
                    texts.setdefault(label, []).append(self.text[start:end])
            self._blocks = {number: "".join(parts) for number, parts in texts.items()}
        return self._blocks.get(block, "")

    def labels_between(self, start: int, end: int) -> list[str | int]:
        """Labels of the characters ``text[start:end]``, in order, one per segment touched."""
        index = bisect_right(self.starts, start) - 1
        found = []
        while index < len(self.starts) and self.starts[index] < end:
            found.append(self.labels[index])
            index += 1
        return found


class _Reader:
    """Collects segments while reading."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.starts: list[int] = []
        self.labels: list[str | int] = []
        self.length = 0
        self.block = 0

    def add(self, label: str | None, text: str | None) -> None:
        """Add ``text`` as reader text (``label`` ``None``) or as the text of rule ``label``."""
        if not text:
            return
        norm = normalise(text)
        if not norm:
            return
        self.parts.append(norm)
        self.starts.append(self.length)
        self.labels.append(self.block if label is None else label)
        self.length += len(norm)

    def new_block(self) -> None:
        self.block += 1

    def reading(self) -> Reading:
        return Reading("".join(self.parts), self.starts, self.labels)


def read_answer(content: str, content_format: str) -> Reading:
    """Read ``content`` (``"html"``, ``"markdown"`` or ``"text"``) into labelled segments (see the
    module docstring). Plain text is all reader text."""
    reader = _Reader()
    if content_format == "html":
        _read_html(content, reader, hidden=False)
    elif content_format == "markdown":
        _read_markdown(content, reader)
    else:
        reader.add(None, content)
    return reader.reading()


# --- HTML ------------------------------------------------------------------------------------------

_HIDING_TAGS = frozenset({"head", "title", "script", "style", "template", "noscript", "textarea", "iframe", "video",
                          "audio", "canvas", "datalist", "rp", "meta", "link", "base"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr"})
_URL_ATTRIBUTES = frozenset({"href", "src", "srcset", "action", "formaction", "cite", "data", "poster", "background",
                             "longdesc", "xlink:href"})
_INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark",
                     "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "del", "ins",
                     "label", "wbr", "img", "strike", "tt", "big", "nobr"})
_COMMENT = re.compile(r"<!--(.*?)(?:-->|\Z)", re.S)
_WRAPPERS = frozenset({"html", "head", "body"})  # what lxml puts around a fragment
_START_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)")
_END_TAG = re.compile(r"</([A-Za-z][A-Za-z0-9-]*)")
_DOCTYPE = re.compile(r"<!doctype", re.I)
_DECLARATION = re.compile(r"([\w-]+)\s*:\s*([^;]*)")


def _style(attrib: dict[str, str] | lxml.etree._Attrib) -> dict[str, str]:
    style = attrib.get("style") or ""
    return {name.lower(): value.replace("!important", "").strip().lower() for name, value in _DECLARATION.findall(style)}


def _hides(tag: str, attrib: lxml.etree._Attrib) -> bool:
    """True when the element and everything in it is out of view."""
    if tag in _HIDING_TAGS or "hidden" in attrib:
        return True
    if tag == "input" and (attrib.get("type") or "").lower() == "hidden":
        return True
    if tag == "dialog" and "open" not in attrib:
        return True
    return _style(attrib).get("display") == "none"


def _visibility(attrib: lxml.etree._Attrib) -> bool | None:
    value = _style(attrib).get("visibility")
    return False if value in ("hidden", "collapse") else True if value == "visible" else None


def _attribute_rule(name: str) -> str:
    name = name.lower()
    if name in _URL_ATTRIBUTES:
        return LINK_TARGET
    return IMAGE_ALT if name == "alt" else HTML_ATTRIBUTE


def _read_html(markup: str, reader: _Reader, *, hidden: bool, written: str | None = None) -> None:
    """Read an HTML document or fragment; ``hidden`` when it sits inside an element that hides it.
    ``written`` is the answer's own text of the markup when ``markup`` was rendered from it (Markdown
    with inline HTML): only tag names written there are markup of the answer."""
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=False, remove_pis=True, huge_tree=True)
    try:
        root = lxml.html.document_fromstring(markup.encode("utf-8", "replace"), parser=parser)
    except (lxml.etree.ParserError, lxml.etree.XMLSyntaxError, ValueError):
        for comment in _COMMENT.findall(markup):  # lxml finds no document in markup of comments only
            reader.add(HIDDEN_ELEMENT if hidden else HTML_COMMENT, comment)
        return
    for sibling in reversed(list(root.itersiblings(preceding=True))):  # comments before <html>
        if sibling.tag is lxml.etree.Comment:
            reader.add(HIDDEN_ELEMENT if hidden else HTML_COMMENT, sibling.text)
    if _DOCTYPE.search(markup):  # lxml reports a default doctype for markup that has none
        reader.add(MARKUP, root.getroottree().docinfo.doctype)
    # A tag's name is in the answer only where it was written: lxml adds html and body around a
    # fragment and closes many elements itself, and a Markdown renderer writes tags of its own.
    source = markup if written is None else written
    opened = frozenset(name.lower() for name in _START_TAG.findall(source))
    closed = frozenset(name.lower() for name in _END_TAG.findall(source))
    _read_tree(root, reader, hidden, opened, closed)
    for sibling in root.itersiblings():  # comments after </html>
        if sibling.tag is lxml.etree.Comment:
            reader.add(HIDDEN_ELEMENT if hidden else HTML_COMMENT, sibling.text)


def _read_tree(root: lxml.html.HtmlElement, reader: _Reader, hidden: bool, opened: frozenset[str],
               closed: frozenset[str]) -> None:
    # Iterative: (element, entering, content hidden, visible, tail hidden). A tail belongs to the parent.
    stack: list[tuple[lxml.etree._Element, bool, bool, bool, bool]] = [(root, True, hidden, True, hidden)]
    suppressed: set[lxml.etree._Element] = set()  # options a drop-down does not display
    while stack:
        el, entering, content_hidden, visible, tail_hidden = stack.pop()
        tail_label = HIDDEN_ELEMENT if tail_hidden else None
        if not isinstance(el.tag, str):
            if el.tag is lxml.etree.Comment:
                reader.add(HTML_COMMENT, el.text)
            reader.add(tail_label, el.tail)
            continue
        tag = el.tag.lower()
        if not entering:
            if tag not in opened:
                # Written by the Markdown renderer from "[text](target 'title')" or "![alt](src)": the
                # answer holds these values after the text, and no attribute names.
                for name, value in el.attrib.items():
                    reader.add(_attribute_rule(name), value)
            if tag in closed:
                reader.add(MARKUP, tag)
            if tag not in _INLINE and (tag in opened or tag not in _WRAPPERS):
                reader.new_block()
            reader.add(tail_label, el.tail)
            continue
        if tag not in _INLINE and (tag in opened or tag not in _WRAPPERS):
            reader.new_block()
        if tag in opened:
            reader.add(MARKUP, tag)
            for name, value in el.attrib.items():
                reader.add(MARKUP, name)
                reader.add(_attribute_rule(name), value)
        hides = content_hidden or _hides(tag, el.attrib) or el in suppressed
        own = _visibility(el.attrib)
        shown = visible if own is None else own
        text_hidden = hides or not shown
        children = list(el)
        child_hidden = {id(child): hides for child in children}
        tails_hidden = text_hidden
        if not hides:
            if _style(el.attrib).get("content-visibility") == "hidden":
                text_hidden = tails_hidden = True
                child_hidden = dict.fromkeys(child_hidden, True)
            elif tag == "details" and "open" not in el.attrib:
                # A closed details shows its first direct summary only.
                text_hidden = tails_hidden = True
                summary = next((c for c in children if isinstance(c.tag, str) and c.tag.lower() == "summary"), None)
                child_hidden = {id(c): c is not summary for c in children}
            elif tag == "select" and not _listbox(el.attrib):
                options = list(el.iter("option"))
                shown_option = next((o for o in options if "selected" in o.attrib), options[0] if options else None)
                suppressed.update(o for o in options if o is not shown_option)
                text_hidden = tails_hidden = True
        reader.add(HIDDEN_ELEMENT if text_hidden else None, el.text)
        stack.append((el, False, hides, shown, tail_hidden))
        for child in reversed(children):
            stack.append((child, True, child_hidden[id(child)], shown, tails_hidden))


def _listbox(attrib: lxml.etree._Attrib) -> bool:
    size = (attrib.get("size") or "").strip()
    return "multiple" in attrib or (size.isdigit() and int(size) > 1)


# --- Markdown --------------------------------------------------------------------------------------

# The projection's dialect (CommonMark with GFM tables and strikethrough), read with a separate parser
# instance; the nesting limit is raised as a browser would, so deep lists are not cut short.
# text_join is off so entities stay tokens of their own: their names are markup.
_MARKDOWN = MarkdownIt("commonmark", {"maxNesting": 100}).enable(["table", "strikethrough"]).disable("text_join")
_MARKDOWN.normalizeLink = lambda url: url  # type: ignore[method-assign]
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>")
_ATTR = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?")
_CROSS_BLOCK_HIDING = frozenset({"template", "noscript", "script", "style", "title", "textarea"})


class _OpenElements:
    """Raw HTML elements opened in one Markdown block and closed in a later one. Markdown between them
    is hidden only when an open element hides its content: a closed details, an element with
    ``hidden`` or ``display:none``/``visibility:hidden``, template, script and the like. A ``<head>`` or
    ``<div>`` line hides nothing, as a browser renders it and as a model reads it."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, bool]] = []

    @property
    def hiding(self) -> bool:
        return any(hides for _, hides in self.stack)

    def feed(self, markup: str) -> None:
        for closing, name, rest in _TAG.findall(markup):
            name = name.lower()
            if closing:
                for index in range(len(self.stack) - 1, -1, -1):
                    if self.stack[index][0] == name:
                        del self.stack[index:]
                        break
            elif name not in _VOID and not rest.rstrip().endswith("/"):
                names = {m.lower() for m in _ATTR.findall(rest)}
                style = _style({"style": _style_attribute(rest)})
                hides = (name in _CROSS_BLOCK_HIDING or "hidden" in names or style.get("display") == "none"
                         or style.get("visibility") in ("hidden", "collapse")
                         or (name == "details" and "open" not in names))
                self.stack.append((name, hides))


def _style_attribute(rest: str) -> str:
    match = re.search(r"""style\s*=\s*(?:"([^"]*)"|'([^']*)')""", rest, re.I)
    return (match.group(1) or match.group(2) or "") if match else ""


def _read_markdown(content: str, reader: _Reader) -> None:
    env: dict[str, object] = {}
    tokens = _MARKDOWN.parse(content, env)
    open_elements = _OpenElements()
    for token in tokens:
        hidden = open_elements.hiding
        label = HIDDEN_ELEMENT if hidden else None
        kind = token.type
        if kind == "html_block":
            reader.new_block()
            rest = _never_closed_rest(token.content)
            if rest is not None:  # only the opening line is markup; a reader of the answer sees the rest
                _read_html(token.content[: len(token.content) - len(rest)], reader, hidden=hidden)
                _read_markdown(rest, reader)
                continue
            _read_html(token.content, reader, hidden=hidden)
            open_elements.feed(token.content)
            reader.new_block()
        elif kind == "list_item_open":
            reader.new_block()
            if token.info:  # an ordered item's number is reader text (SPEC §3.2)
                reader.add(label, token.info + token.markup)
        elif kind == "fence":
            reader.new_block()
            reader.add(HIDDEN_ELEMENT if hidden else CODE_INFO_STRING, token.info)
            reader.add(label, token.content)
            reader.new_block()
        elif kind == "code_block":
            reader.new_block()
            reader.add(label, token.content)
            reader.new_block()
        elif kind == "inline":
            _read_inline(token.children or [], reader, hidden)
            reader.new_block()
    references = env.get("references")
    if isinstance(references, dict):  # link reference definitions: "[label]: destination 'title'"
        for name, definition in references.items():
            reader.new_block()
            reader.add(LINK_TARGET, name)
            reader.add(LINK_TARGET, definition.get("href"))
            reader.add(HTML_ATTRIBUTE, definition.get("title"))


def _never_closed_rest(markup: str) -> str | None:
    """The text after the opening line of an HTML block of CommonMark types 1–5 (``<script>``,
    ``<style>``, ``<textarea>``, ``<!--``, ``<?``, ``<!X``, ``<![CDATA[``) whose closing sequence never
    comes, so that markdown-it ran it to the end of its container; else ``None``."""
    head, newline, rest = markup.partition("\n")
    opening = head.lstrip(" \t")
    sequence = next((seq for seq in HTML_SEQUENCES[:5] if seq[0].search(opening)), None)
    if not newline or sequence is None or opening[1:4].lower() == "pre":
        return None
    return None if any(sequence[1].search(line) for line in markup.split("\n")) else rest


def _read_inline(children: Sequence[Token], reader: _Reader, hidden: bool) -> None:
    label = HIDDEN_ELEMENT if hidden else None
    if any(child.type == "html_inline" for child in children):
        # Inline HTML follows the HTML rules: read the rendered inline as HTML.
        # The renderer has no rule for escapes and entities (text_special): they go in as plain text.
        ready = [Token("text", "", 0, content=c.content) if c.type == "text_special" else c for c in children]
        written = "".join(c.content for c in children if c.type == "html_inline")
        _read_html(_MARKDOWN.renderer.renderInline(ready, _MARKDOWN.options, {}), reader, hidden=hidden, written=written)
        return
    links: list[Token] = []
    for child in children:
        kind = child.type
        if kind in ("text", "code_inline"):
            reader.add(label, child.content)
        elif kind == "text_special":
            if child.info == "entity":
                reader.add(MARKUP, child.markup)  # the entity's name is markup; the character is text
            else:
                reader.add(label, child.content)
        elif kind == "link_open":
            links.append(child)
        elif kind == "link_close" and links:
            link = links.pop()
            reader.add(LINK_TARGET, str(link.attrGet("href") or ""))
            reader.add(HTML_ATTRIBUTE, str(link.attrGet("title") or ""))
        elif kind == "image":
            reader.add(IMAGE_ALT, "".join(_inline_text(child.children or [])) or child.content)
            reader.add(LINK_TARGET, str(child.attrGet("src") or ""))
            reader.add(HTML_ATTRIBUTE, str(child.attrGet("title") or ""))


def _inline_text(children: Iterable[Token]) -> Iterable[str]:
    for child in children:
        if child.type in ("text", "code_inline", "text_special"):
            yield child.content
        elif child.children:
            yield from _inline_text(child.children)


# --- classification --------------------------------------------------------------------------------


def _classify(fragment: str, reading: Reading, content: str, projected: str) -> Loss:
    contained: set[str] = set()
    straddled: set[str] = set()
    joined = False
    text = reading.text
    position = text.find(fragment)
    seen = 0
    while position >= 0 and seen < _MAX_OCCURRENCES:
        labels = reading.labels_between(position, position + len(fragment))
        rules = {label for label in labels if isinstance(label, str)}
        blocks = {label for label in labels if isinstance(label, int)}
        if not rules and len(blocks) == 1:
            return Loss(fragment, UNEXPLAINED, raw_context(content, fragment),
                        "reader text in the audit's reading, missing from the projection")
        if not rules:
            # Only a join of blocks the projection kept whole, each of them, but not side by side.
            # (A block shorter than a fragment could be found anywhere: that is no evidence.)
            if all(len(text := reading.block_text(block)) >= len(fragment) and text in projected for block in blocks):
                joined = True
            else:
                return Loss(fragment, UNEXPLAINED, raw_context(content, fragment),
                            "reader text across blocks, and the projection lost one of those blocks")
        elif len(rules) == 1 and not blocks:
            contained |= rules
        else:
            straddled |= rules
        seen += 1
        position = text.find(fragment, position + 1)
    for found in (contained, straddled):
        rule = next((rule for rule in RULES if rule in found), None)
        if rule is not None:
            return Loss(fragment, rule)
    if joined:
        return Loss(fragment, BLOCK_JOIN)
    return Loss(fragment, UNEXPLAINED, raw_context(content, fragment),
                "in the raw answer but not in the audit's reading of it either: its parser dropped it too "
                "(markdown-it drops table cells beyond the header's count)")


def raw_context(content: str, fragment: str, width: int = 50) -> str:
    """The raw answer around the first place ``fragment`` occurs in it (letters and digits matched
    case-insensitively, anything else allowed between them), newlines shown as ``⏎``; ``""`` when the
    fragment only appears after NFKC folding."""
    pattern = r"[\W_]*".join(re.escape(char) for char in fragment)
    match = re.search(pattern, content, re.I)
    if match is None:
        return ""
    start, end = max(0, match.start() - width), min(len(content), match.end() + width)
    return (("…" if start else "") + content[start:end] + ("…" if end < len(content) else "")).replace("\n", "⏎")


# --- a run directory --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemAudit:
    """The audit of one run item: ``case`` × ``provider`` and its answer's :class:`AnswerAudit`."""

    case: str
    provider: str
    audit: AnswerAudit


def audit_items(items: Iterable[tuple[Case, str, str, str | None]]) -> list[ItemAudit]:
    """Audit ``(case, provider, answer, content format)`` items in order (see :func:`audit_answer`)."""
    return [ItemAudit(case.id, provider, audit_answer(case, answer, fmt)) for case, provider, answer, fmt in items]


def totals(items: Sequence[ItemAudit]) -> dict[str, int]:
    """Lost fragments per rule over ``items`` (only rules that occur, in :data:`RULES` order, then ``unexplained``)."""
    counted: Counter[str] = Counter()
    for item in items:
        counted.update(item.audit.counts())
    return {rule: counted[rule] for rule in (*RULES, UNEXPLAINED) if counted[rule]}


def summary_line(items: Sequence[ItemAudit]) -> str:
    """One line: items audited, lost fragments, per-rule counts, unexplained count."""
    counted = totals(items)
    lost = sum(counted.values())
    rules = ", ".join(f"{rule} {count}" for rule, count in counted.items()) or "none"
    with_losses = sum(1 for item in items if item.audit.losses)
    return (f"audit-projection: {len(items)} item(s), {with_losses} with lost fragments; {lost} lost fragment(s) "
            f"({rules}); {counted.get(UNEXPLAINED, 0)} unexplained")


def render_table(items: Sequence[ItemAudit], examples: int = 3) -> str:
    """A readable table: one row per item (case, provider, format, fragments in the answer, lost, per-rule
    counts), then under each item with losses up to ``examples`` explained fragments with their rule
    and every unexplained fragment with its raw context; then :func:`summary_line`."""
    header = ("case", "provider", "format", "in answer", "lost", "by rule")
    rows = [header]
    for item in items:
        counts = item.audit.counts()
        rows.append((item.case, item.provider, item.audit.format, f"{item.audit.in_answer}/{item.audit.fragments}",
                     str(len(item.audit.losses)), ", ".join(f"{rule} {n}" for rule, n in counts.items()) or "-"))
    widths = [max(len(row[column]) for row in rows) for column in range(len(header) - 1)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])
        if index == 0:
            continue
        audit = items[index - 1].audit
        explained = [loss for loss in audit.losses if loss.rule != UNEXPLAINED][:examples]
        for loss in explained:
            lines.append(f"    {loss.fragment!r:10} {loss.rule}")
        for loss in audit.unexplained:
            lines.append(f"    {loss.fragment!r:10} UNEXPLAINED ({loss.note}): {loss.context or '(no raw context)'}")
    lines.append(summary_line(items))
    return "\n".join(lines)


def to_json(items: Sequence[ItemAudit]) -> dict[str, object]:
    """The audit as a JSON-able dict: ``items`` (case, provider, format, fragments, in_answer, lost,
    counts, losses with fragment/rule/context/note) and ``totals`` per rule."""
    return {
        "items": [
            {"case": item.case, "provider": item.provider, "format": item.audit.format,
             "fragments": item.audit.fragments, "in_answer": item.audit.in_answer, "lost": len(item.audit.losses),
             "counts": item.audit.counts(),
             "losses": [{"fragment": loss.fragment, "rule": loss.rule, "context": loss.context, "note": loss.note}
                        for loss in item.audit.losses]}
            for item in items
        ],
        "totals": totals(items),
        "unexplained": totals(items).get(UNEXPLAINED, 0),
    }
