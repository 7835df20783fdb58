"""A fast, exact Markdown projection: the same blocks as :func:`~lexbench.scoring.projection.project_markdown`
in linear time with a small constant (issue 10: a 20 MB answer must score within 3× of NFKC + casefold).

markdown-it parses every line through a generic rule machine and builds a token object per piece of
text; on a 20 MB answer that is ~90 % of the scorer's time. This module re-implements, for the
constructs that make up almost all provider Markdown, exactly what markdown-it (CommonMark + tables +
strikethrough, as configured in :mod:`~lexbench.scoring.projection`) would produce, and hands
everything else back to ``project_markdown`` itself:

- **Block level**: paragraphs, ATX headings, fenced and indented code, thematic breaks, pipe tables,
  list items and block quotes (nested too) are parsed here. Anything else (setext headings, lazy
  continuations that could change a block, tabs in indentation inside a quote or list item, a quote
  line indented four columns or more…) makes the *segment* around it — from one safe split point (a
  blank line followed by an unindented line outside fenced code that is not a list item, which could
  continue a list above it) to the next — fall back to ``project_markdown`` of that segment. Documents
  with raw HTML blocks or link reference definitions (both have document-wide effects) fall back whole.
- **Inline level**: a port of markdown-it's inline rules (text, newline, escape, backticks,
  strikethrough, emphasis, link, image, autolink, entity, and the delimiter post-processing) without
  token objects. Raw inline HTML makes its segment fall back (it is projected by the HTML rules).

The result is equal, block for block (kind, level, text, links, strong spans, quoted), to
``project_markdown``; ``tests/scoring/test_fastpath.py`` checks that differentially over the demo
suite, the real corpus and generated Markdown.

Why one module of this size: it is one single-pass scanner (a state machine over the answer's lines) whose states share every helper; split, each part would need the others' state.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import replace
from itertools import accumulate

from markdown_it.common.entities import entities
from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isValidEntityCode, isWhiteSpace, mdTrim, unescapeAll
from markdown_it.helpers import parseLinkDestination, parseLinkTitle
from markdown_it.rules_block.html_block import HTML_SEQUENCES
from markdown_it.rules_block.table import escapedSplit, headerLineRe
from markdown_it.rules_inline.autolink import AUTOLINK_RE, EMAIL_RE

from lexbench.scoring.projection import (
    _MARKDOWN,
    CODE,
    HEADING,
    LIST_ITEM,
    PARAGRAPH,
    QUOTE,
    TABLE_CELL,
    Block,
    Link,
    emphasis_heavy,
    emphasis_note,
    ordered_marker_text,
    project_markdown,
)

__all__ = ["project_markdown_fast"]

_NEWLINES = re.compile(r"\r\n?")
# Raw HTML blocks (and their hiding state across blocks) and link reference definitions act on the
# whole document: such documents take the full parser. A "<" that begins a line's content, after any
# quote or list markers, is where markdown-it tries an HTML block; its start patterns decide.
_HTML_CANDIDATE = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+[ \t>]*)*(<.*)", re.M)


def _has_html_block(src: str) -> bool:
    """Whether some line could start a raw HTML block (a superset: lines in code count too)."""
    for match in _HTML_CANDIDATE.finditer(src):
        text = match.group(1)
        if any(sequence[0].search(text) for sequence in HTML_SEQUENCES):
            return True
    return False
_SENTINEL = "lexbenchfastpathsentinel"
_MAX_LEVEL = 40  # markdown-it's maxNesting is 100; deeper nesting falls back long before it matters


class _Fallback(Exception):
    """The construct at hand is outside the fast subset: project this segment with markdown-it."""


class _Whole(Exception):
    """A segment spent markdown-it's link budget: the whole answer goes to ``project_markdown``, whose
    budget (and note) then applies to the answer as a whole, exactly as without this module."""


def project_markdown_fast(content: str, *, notes: list[str] | None = None) -> list[Block]:
    """Reader-text blocks of a Markdown document, equal to :func:`project_markdown` (SPEC §3.2), in
    linear time for ordinary Markdown. ``notes`` as for ``project_markdown`` (only a pathological
    answer that exhausts its link budget gets one). Never raises on malformed input."""
    src = _NEWLINES.sub("\n", content).replace("\0", "\ufffd")  # markdown-it's normalize rule
    if "]:" in src or _has_html_block(src):
        return project_markdown(content, notes=notes)
    document = _Document(src)
    try:
        blocks = document.run()
        if document.heavy and notes is not None:
            notes.append(emphasis_note(document.heavy))
        return blocks
    except _Whole:
        return project_markdown(content, notes=notes)
    finally:
        document.top = None  # break the document ↔ parser cycle: its lines go now, not at the next GC


# --- block level -------------------------------------------------------------------------------------


def _indent(line: str) -> tuple[int, int, bool]:
    """(characters of leading spaces/tabs, columns with tabs expanded, whether a tab was among them)."""
    count = columns = 0
    tab = False
    for ch in line:
        if ch == " ":
            columns += 1
        elif ch == "\t":
            columns += 4 - columns % 4
            tab = True
        else:
            break
        count += 1
    return count, columns, tab


_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_HR = re.compile(r"([*\-_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_BULLET = re.compile(r"[-*+](?:[ \t]|$)")
_ORDERED = re.compile(r"(\d{1,9})([.)])(?:[ \t]|$)")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
# First characters that may start something other than paragraph text (after up to 3 spaces).
_DELIMITER_ROW_START = ("|", "-", ":")
_BLOCK_STARTERS = frozenset("#`~>*-_+=0123456789")  # "<": the document has no raw HTML block


def _fence_open(body: str) -> tuple[str, int] | None:
    """(marker, length) when ``body`` (a line without its indentation) opens a fenced code block."""
    match = _FENCE.match(body)
    if match is None:
        return None
    marker, params = match.group(1), match.group(2)
    if marker[0] == "`" and "`" in params:
        return None
    return marker[0], len(marker)


def _continues_list(body: str) -> bool:
    """Whether an unindented line after a blank line may be the next item of a list above it: then it
    is no safe split point, since on its own it may parse differently (``- |a`` over a delimiter row
    is a table at the top level, but a list item's paragraph inside the list)."""
    return bool(_BULLET.match(body) or _ORDERED.match(body))


class _Document:
    """The whole answer: a top-level pass that projects native segments here and the others with
    ``project_markdown`` (see the module docstring)."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.lines = src.split("\n")
        self._offsets: array | None = None  # built by the first fallback: most answers never need it
        self.blocks: list[Block] = []
        self.orphans: list[Link] = []  # text-less links waiting for the next block made from inline content
        # Safe split points reached so far: (line, number of blocks then, links waiting then).
        self.checkpoints: list[tuple[int, int, tuple[Link, ...]]] = [(0, 0, ())]
        self.top: _Blocks | None = _Blocks(self, self.lines, PARAGRAPH, False)
        self.marker = ""  # ordered-list markers waiting for their item's first block (SPEC §3.2)
        self.item_pending = False  # a list item opened and has not produced its first block (Block.opens_item)
        self.heavy = 0  # inline blocks read as plain text for their emphasis markers (projection.emphasis_heavy)

    def run(self) -> list[Block]:
        lines = self.lines
        count = len(lines)
        line = 0
        previous_blank = True
        while line < count:
            text = lines[line]
            if not text.strip(" \t"):
                previous_blank = True
                line += 1
                continue
            if previous_blank and text[0] not in " \t" and line and not _continues_list(text):
                self.checkpoints.append((line, len(self.blocks), tuple(self.orphans) if self.orphans else ()))
            previous_blank = False
            try:
                line = self.top.block(line)
            except _Fallback:
                line = self._fall_back(line)
                previous_blank = True  # a fallback ends at a safe split point (or the end)
        if self.orphans and self.blocks:
            last = self.blocks[-1]
            self.blocks[-1] = replace(last, links=last.links + tuple(self.orphans))
        return self.blocks

    def _line_offsets(self) -> array:
        """Where each line starts in ``src``, plus ``len(src) + 1``: one machine integer per line (a list
        of int objects took ~36 bytes per line, ~18 MB for a 20 MB answer)."""
        if self._offsets is None:
            self._offsets = array("q", accumulate((len(line) + 1 for line in self.lines), initial=0))
        return self._offsets

    def emit(self, content: str, kind: str, level: int, quoted: bool) -> None:
        """Project one inline content into its block (if it has text) and pass text-less links on."""
        heavy = emphasis_heavy(content)
        self.heavy += heavy
        produced, loose = _inline_blocks(content, kind, level, quoted, plain=heavy)
        if produced is not None:
            if self.marker:
                produced = replace(produced, text=f"{self.marker} {produced.text}")
                self.marker = ""
            if self.item_pending:
                produced = replace(produced, opens_item=True)
                self.item_pending = False
            if self.orphans:
                produced = replace(produced, links=tuple(self.orphans) + produced.links)
                self.orphans = []
            self.blocks.append(produced)
        self.orphans.extend(loose)

    def code(self, text: str, quoted: bool) -> None:
        if text:
            if self.marker:
                text, self.marker = f"{self.marker} {text}", ""
            self.blocks.append(Block(CODE, 0, text, quoted=quoted, opens_item=self.item_pending))
            self.item_pending = False

    def end_item(self, quoted: bool) -> None:
        """An ordered item that produced no text block: its marker alone is its reader text. Either way
        the item is over, so no later block opens it."""
        if self.marker:
            self.blocks.append(Block(LIST_ITEM, 0, self.marker, quoted=quoted, opens_item=self.item_pending))
            self.marker = ""
        self.item_pending = False

    def _fall_back(self, line: int) -> int:
        """Re-project with markdown-it from the last safe split point at which no text-less link was
        waiting (so the segment starts in the same state as in a whole-document parse) to the next safe
        split point after the block at ``line`` that needs it. Returns the line to continue at."""
        while self.checkpoints[-1][2]:
            self.checkpoints.pop()
        start, kept, _ = self.checkpoints[-1]
        del self.blocks[kept:]
        self.orphans = []
        self.marker = ""
        self.item_pending = False
        end = self._next_split(line)  # no fence is open at `line`: the lines before it were parsed here
        produced, carried = self._project(start, end)
        if produced is None:  # the split point was not safe after all: take the rest of the document
            end = len(self.lines)
            produced, carried = self._project(start, end)
            assert produced is not None
        self.blocks.extend(produced)
        self.orphans = carried
        return end

    def _project(self, start: int, end: int) -> tuple[list[Block] | None, list[Link]]:
        """``project_markdown`` of lines ``start``..``end``, and the text-less links left at its end.
        A sentinel paragraph after the segment collects those links as the next block would; ``None``
        when the sentinel did not come out as a paragraph of its own (a fence left open)."""
        offsets = self._line_offsets()
        segment = self.src[offsets[start] : offsets[end] - 1]
        notes: list[str] = []
        produced = project_markdown(segment + "\n\n" + _SENTINEL, notes=notes)
        if notes:
            raise _Whole
        tail = produced.pop() if produced else None
        if tail is not None and tail.kind == PARAGRAPH and tail.text == _SENTINEL and not tail.quoted and not tail.strong:
            return produced, list(tail.links)
        if end < len(self.lines):
            return None, []
        # A fence open at the end of the answer swallowed the sentinel: without it the segment ends the
        # answer, as it does in a whole-answer parse, unless its links would need an earlier block.
        produced = project_markdown(segment, notes=notes)
        if notes or not produced:
            raise _Whole
        return produced, []

    def _next_split(self, line: int) -> int:
        """The first safe split point after ``line`` (where a top-level block starts): a line with no
        indentation after a blank line, outside any fenced code block that could be open at the top
        level. A line that only looks like a top-level fence opener (inside a list item, say) keeps the
        scan going, which makes the segment longer but never cuts a construct in two."""
        lines = self.lines
        count = len(lines)
        first = lines[line]
        chars, columns, _tab = _indent(first)
        fence = _fence_open(first[chars:]) if columns < 4 else None
        blank = False
        index = line + 1
        while index < count:
            text = lines[index]
            chars, columns, _tab = _indent(text)
            body = text[chars:]
            if fence is not None:
                if columns < 4 and body[:1] == fence[0]:
                    run = len(body) - len(body.lstrip(fence[0]))
                    if run >= fence[1] and not body[run:].strip(" \t"):
                        fence = None
                index += 1
                continue
            if not body:
                blank = True
            else:
                if blank and chars == 0 and not _continues_list(body):
                    return index
                blank = False
                if columns < 4:
                    fence = _fence_open(body)
            index += 1
        return count


MAX_CONTAINER_DEPTH = 40
"""Nested quotes/lists deeper than this leave the fast path (each level is a Python call frame)."""


class _Blocks:
    """Block parsing over the lines of one container — the document, a list item or a block quote —
    with the container's indentation or ``>`` already removed (markdown-it's ``blkIndent``). ``kind``
    is what a paragraph here becomes (paragraph, list item or quote) and ``quoted`` whether a block
    quote encloses it."""

    __slots__ = ("doc", "lines", "kind", "quoted", "depth")

    def __init__(self, doc: _Document, lines: list[str], kind: str, quoted: bool, depth: int = 0) -> None:
        if depth > MAX_CONTAINER_DEPTH:
            raise _Fallback  # deep nesting: markdown-it's own nesting limit handles it without recursion
        self.doc, self.lines, self.kind, self.quoted, self.depth = doc, lines, kind, quoted, depth

    def parse_all(self) -> None:
        lines = self.lines
        line = 0
        while line < len(lines):
            if not lines[line].strip(" \t"):
                line += 1
            else:
                line = self.block(line)

    def block(self, line: int) -> int:
        """Project the block starting at ``line`` (not blank); return the next line to look at."""
        text = self.lines[line]
        chars, columns, tab = _indent(text)
        if tab and self is not self.doc.top:
            raise _Fallback  # tab stops: markdown-it counts partial tabs against the container's offset
        if columns >= 4:  # a leading tab always reaches column 4 (and no table starts indented)
            return self.indented_code(line)
        body = text[chars:]
        first = body[0]
        if self.table_at(line):
            return self.table(line)
        if first in _BLOCK_STARTERS:
            if first in "`~":
                fence = _fence_open(body)
                if fence is not None:
                    return self.fence(line, columns, fence)
            elif first == ">":
                return self.quote(line)
            if first in "*-_" and _HR.match(body):
                return line + 1
            if (first in "*-+" and _BULLET.match(body)) or (first.isdigit() and _ORDERED.match(body)):
                return self.list(line)
            if first == "#" and _ATX.match(body):
                return self.heading(line, body)
        return self.paragraph(line)

    def interrupts(self, line: int) -> bool:
        """Whether ``line`` ends a paragraph (markdown-it's paragraph terminators). Raises
        :class:`_Fallback` for a setext underline or a construct handled only by markdown-it."""
        text = self.lines[line]
        chars, columns, tab = _indent(text)
        if columns >= 4:
            return False  # continuation, whatever it looks like
        body = text[chars:]
        if self.table_at(line):
            return True
        first = body[0]
        if first not in _BLOCK_STARTERS:
            return False
        if tab:
            raise _Fallback
        if first in "=-" and _SETEXT.match(body):
            raise _Fallback  # the paragraph becomes a heading
        if first in "`~":
            return _fence_open(body) is not None
        if first == ">":
            return True
        if first in "*-_" and _HR.match(body):
            return True
        if first in "*-+" and _BULLET.match(body):
            return bool(body[1:].strip(" \t"))  # an empty item cannot interrupt a paragraph
        if first.isdigit():
            match = _ORDERED.match(body)
            return match is not None and int(match.group(1)) == 1 and bool(body[match.end(2):].strip(" \t"))
        if first == "#":
            return _ATX.match(body) is not None
        return False

    def paragraph(self, line: int) -> int:
        lines = self.lines
        count = len(lines)
        end = line + 1
        while end < count:
            if not lines[end].strip(" \t") or self.interrupts(end):
                break
            end += 1
        content = lines[line] if end == line + 1 else "\n".join(lines[line:end])
        self.doc.emit(mdTrim(content), self.kind, 0, self.quoted)
        return end

    def heading(self, line: int, body: str) -> int:
        level = len(body) - len(body.lstrip("#"))
        pos, maximum = level, len(body)
        while maximum > pos and body[maximum - 1] in " \t":
            maximum -= 1
        hashes = maximum
        while hashes > pos and body[hashes - 1] == "#":
            hashes -= 1
        if hashes > pos and body[hashes - 1] in " \t":
            maximum = hashes  # a closing sequence of hashes
        self.doc.emit(mdTrim(body[pos:maximum]), HEADING, level, self.quoted)
        return line + 1

    def indented_code(self, line: int) -> int:
        """An indented code block (markdown-it's ``code`` rule): ``line`` and every later line indented
        by four columns or more, across blank lines; trailing blank lines are not part of it. Four
        columns are removed from each line. Inside a container, tabs in its indentation fall back (their
        stops depend on the columns the container's markers took)."""
        lines = self.lines
        count = len(lines)
        end = last = line + 1
        while end < count:
            text = lines[end]
            if not text.strip(" \t"):
                end += 1
                continue
            if _indent(text)[1] < 4:
                break
            end += 1
            last = end
        block = lines[line:last]
        if self is not self.doc.top and any("\t" in text[: len(text) - len(text.lstrip(" \t"))] for text in block):
            raise _Fallback
        code = "\n".join(_strip_columns(text, 4) for text in block)
        self.doc.code(code.strip("\n").rstrip(), self.quoted)
        return last

    def fence(self, line: int, indent: int, fence: tuple[str, int]) -> int:
        lines = self.lines
        count = len(lines)
        marker, length = fence
        end = line + 1
        closed = False
        while end < count:
            text = lines[end]
            chars, columns, _tab = _indent(text)
            body = text[chars:]
            if columns < 4 and body[:1] == marker:
                run = len(body) - len(body.lstrip(marker))
                if run >= length and not body[run:].strip(" \t"):
                    closed = True
                    break
            end += 1
        code = "\n".join(_strip_columns(lines[index], indent) for index in range(line + 1, end))
        self.doc.code(code.strip("\n").rstrip(), self.quoted)
        return end + 1 if closed else end

    def list(self, line: int) -> int:
        """A list: each item's lines (the first line's content, then every blank or further-indented
        line) are parsed as a container of their own. A less-indented line right after an item's text
        would be a lazy continuation unless it starts a block that ends the list; lazy lines, empty
        items and tabs fall back."""
        lines = self.lines
        count = len(lines)
        index = line
        marker = None
        while True:
            text = lines[index]
            chars, columns, tab = _indent(text)
            if tab or columns >= 4:
                raise _Fallback
            body = text[chars:]
            bullet = _BULLET.match(body)
            ordered = None if bullet else _ORDERED.match(body)
            if bullet is None and ordered is None:
                raise _Fallback
            this = body[0] if bullet is not None else ordered.group(2)
            if marker is None:
                marker = this
            elif this != marker:
                return index  # a new list starts here
            if ordered is not None:
                self.doc.marker = ordered_marker_text(ordered.group(1), ordered.group(2), self.doc.marker)
            self.doc.item_pending = True
            after = 1 if bullet is not None else ordered.end(2)
            rest = body[after:]
            end = index + 1
            trailing_blank = more = False
            if not rest.strip(" \t"):
                if "\t" in rest:
                    raise _Fallback
                # An empty first line: the item's content starts on the next line, one column after
                # the marker; a blank line right after it leaves the item empty.
                content_column = chars + after + 1
                first_content = ""
                plain = False
                if end >= count or not lines[end].strip(" \t"):
                    self.doc.end_item(self.quoted)  # an empty item
                    while end < count and not lines[end].strip(" \t"):
                        end += 1
                    if end >= count:
                        return end
                    index = end
                    following = lines[end]
                    f_chars, f_columns, _f_tab = _indent(following)
                    f_body = following[f_chars:]
                    if f_columns < 4 and (_BULLET.match(f_body) or _ORDERED.match(f_body)) and not _HR.match(f_body):
                        continue  # the next item, or a new list
                    return end
            else:
                spaces = len(rest) - len(rest.lstrip(" "))
                if spaces > 4 or "\t" in rest[: spaces + 1]:
                    raise _Fallback  # tabs, indented code inside the item
                content_column = chars + after + spaces
                first_content = rest[spaces:]
                # While the item is one paragraph of plain lines, a less-indented plain line continues
                # it (a lazy continuation line).
                plain = not _starts_block(first_content)
            item = [first_content]
            while end < count:
                following = lines[end]
                if not following.strip(" \t"):
                    trailing_blank = True
                    plain = False
                    item.append(_strip_columns(following, content_column))
                    end += 1
                    continue
                f_chars, f_columns, f_tab = _indent(following)
                if f_tab:
                    raise _Fallback
                if f_columns >= content_column:
                    virtual = following[content_column:]
                    if f_columns - content_column < 4 and _starts_block(virtual.lstrip(" ")):
                        plain = False
                elif plain and f_columns < 4 and not trailing_blank and self._lazy(end):
                    virtual = following[f_chars:]
                else:
                    break
                item.append(virtual)
                trailing_blank = False
                more = True
                end += 1
            if not more and not _starts_block(first_content):
                self.doc.emit(mdTrim(first_content), LIST_ITEM, 0, self.quoted)
            else:
                _Blocks(self.doc, item, LIST_ITEM, self.quoted, self.depth + 1).parse_all()
            self.doc.end_item(self.quoted)
            if end >= count:
                return end
            following = lines[end]
            f_chars, f_columns, _f_tab = _indent(following)
            f_body = following[f_chars:]
            if f_columns < 4 and (_BULLET.match(f_body) or _ORDERED.match(f_body)) and not _HR.match(f_body):
                index = end  # the next item (or a new list, decided at the top of the loop)
                continue
            if trailing_blank:
                return end  # the list ends; the enclosing container takes the line
            if f_columns < 4 and f_body[:1] in "#`~>" and (
                    (f_body[0] == "#" and _ATX.match(f_body)) or (f_body[0] in "`~" and _fence_open(f_body))
                    or f_body[0] == ">"):
                return end
            if f_columns < 4 and f_body[:1] in "*-_" and _HR.match(f_body):
                return end
            raise _Fallback  # a lazy continuation line

    def _lazy(self, line: int) -> bool:
        """Whether ``line`` (less indented than a list item's content, right after its paragraph text)
        continues that paragraph: it must be plain text that starts nothing, not even a table."""
        body = self.lines[line].lstrip(" ")
        # "=" could underline, a "|" (or a row opening with "|", "-" or ":") turn the item into a table
        if _starts_block(body) or body[0] in "=|:-" or "|" in body or self.table_at(line):
            return False
        return True

    def quote(self, line: int) -> int:
        lines = self.lines
        count = len(lines)
        inner: list[str] = []
        index = line
        lazy = False
        while index < count:
            text = lines[index]
            chars, columns, tab = _indent(text)
            if (columns >= 4 or tab) and text[chars : chars + 1] == ">":
                raise _Fallback  # markdown-it continues a quote with ">" however deeply it is indented
            if columns < 4 and not tab and text[chars : chars + 1] == ">":
                if lazy and "|" in text:
                    raise _Fallback
                rest = text[chars + 1 :]
                if rest[:1] == " ":
                    rest = rest[1:]
                if "\t" in rest[: len(rest) - len(rest.lstrip(" \t")) + 1]:
                    raise _Fallback
                inner.append(rest)
                index += 1
                continue
            if not text.strip(" \t"):
                break
            if inner and not inner[-1].strip(" \t"):
                break  # after an empty quote line a plain line is no lazy continuation
            body = text[chars:]
            if columns < 4 and not tab and (
                    (body[0] in "`~" and _fence_open(body)) or (body[0] in "*-_" and _HR.match(body))
                    or _BULLET.match(body) or _ORDERED.match(body) or (body[0] == "#" and _ATX.match(body))):
                break  # blockquote terminators end the quote (no line here starts raw HTML)
            # A lazy continuation line: it continues the quote's paragraph, so the quote must be one
            # paragraph of plain lines; a "|" anywhere near could make a table out of it here. Inside
            # another container markdown-it keeps the line's full indentation (it matters in code
            # spans), which these de-indented lines no longer have.
            if tab or "|" in text or any("|" in part for part in inner) or self is not self.doc.top or (
                    inner and len(inner[0]) - len(inner[0].lstrip(" ")) >= 4) or any(  # code has no lazy lines
                    not part.strip(" \t") or (len(part) - len(part.lstrip(" ")) < 4 and _starts_block(part.lstrip(" ")))
                    for part in inner):
                raise _Fallback
            inner.append(text)
            lazy = True
            index += 1
            continue
        _Blocks(self.doc, inner, QUOTE, True, self.depth + 1).parse_all()
        return index

    def table_at(self, line: int) -> bool:
        """markdown-it's table rule (silent part): a header row then a delimiter row."""
        lines = self.lines
        if line + 1 >= len(lines):
            return False
        delimiter = lines[line + 1]
        if delimiter.lstrip(" \t")[:1] not in _DELIMITER_ROW_START or "|" not in lines[line]:
            return False  # the common case, decided without the full rule
        chars, columns, _tab = _indent(delimiter)
        if columns >= 4:
            return False
        body = delimiter[chars:]
        if len(body) < 2 or body[0] not in "|-:":
            return False
        second = body[1]
        if second not in "|-:" and second not in " \t":
            return False
        if body[0] == "-" and second in " \t":
            return False
        for ch in body[2:]:
            if ch not in "|-:" and ch not in " \t":
                return False
        aligns = 0
        parts = body.split("|")
        for position, part in enumerate(parts):
            cell = mdTrim(part)
            if not cell:
                if position == 0 or position == len(parts) - 1:
                    continue
                return False
            if not headerLineRe.search(cell):
                return False
            aligns += 1
        header = lines[line]
        chars, columns, _tab = _indent(header)
        if columns >= 4:
            return False
        header_text = mdTrim(header[chars:])
        if "|" not in header_text:
            return False
        cells = _split_row(header_text)
        return bool(cells) and len(cells) == aligns

    def table(self, line: int) -> int:
        lines = self.lines
        count = len(lines)
        doc, quoted = self.doc, self.quoted
        header = _split_row(mdTrim(lines[line].lstrip(" \t")))
        columns = len(header)
        for cell in header:
            doc.emit(mdTrim(cell), TABLE_CELL, 0, quoted)
        index = line + 2
        autocompleted = 0
        while index < count:
            text = lines[index]
            chars, indent_columns, tab = _indent(text)
            body = text[chars:]
            if body and indent_columns < 4 and body[0] in _BLOCK_STARTERS:
                # Fence, quote, hr, list, raw HTML and heading end a table (blockquote terminators).
                if tab:
                    raise _Fallback
                first = body[0]
                if first == ">":
                    break
                if first in "`~" and _fence_open(body) is not None:
                    break
                if first in "*-_" and _HR.match(body):
                    break
                if first in "*-+" and _BULLET.match(body):
                    break
                if first.isdigit() and _ORDERED.match(body):
                    break
                if first == "#" and _ATX.match(body):
                    break
            if not mdTrim(text) or indent_columns >= 4:
                break
            cells = _split_row(mdTrim(body))
            autocompleted += columns - len(cells)
            if autocompleted > 0x10000:
                break
            for position in range(columns):
                cell = cells[position] if position < len(cells) else ""
                doc.emit(mdTrim(cell) if cell else "", TABLE_CELL, 0, quoted)
            for cell in cells[columns:]:  # beyond the header's count: dropped by GFM, seen by a reader
                if mdTrim(cell):
                    doc.emit(mdTrim(cell), TABLE_CELL, 0, quoted)
            index += 1
        return index


def _split_row(row: str) -> list[str]:
    """markdown-it's ``escapedSplit`` (cells split at unescaped pipes), plain ``split`` without backslashes."""
    cells = row.split("|") if "\\" not in row else escapedSplit(row)
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _strip_columns(line: str, indent: int) -> str:
    """markdown-it's ``getLines`` for one code line (fenced or indented) at the top level or with no
    tab in its indentation: remove up to ``indent`` columns of indentation, tab stops every 4 columns."""
    if not indent:
        return line
    columns = 0
    position = 0
    while position < len(line) and columns < indent:
        ch = line[position]
        if ch == " ":
            columns += 1
        elif ch == "\t":
            columns += 4 - columns % 4
        else:
            break
        position += 1
    if columns > indent:
        return " " * (columns - indent) + line[position:]
    return line[position:]


def _starts_block(content: str) -> bool:
    """Whether ``content`` (the first line of a list item, or a block quote's line) would start a block
    other than a paragraph: a fence, quote, thematic break, list, raw HTML or heading. A quote's later
    lines are checked with it too, which is stricter than needed (an ordered item not at 1 does not
    interrupt), never looser."""
    if not content:
        return False
    first = content[0]
    if first == ">":
        return True
    if first in "`~":
        return _fence_open(content) is not None
    if first == "#":
        return _ATX.match(content) is not None
    if first in "*-_" and _HR.match(content):
        return True
    if first in "*-+":
        return _BULLET.match(content) is not None
    if first.isdigit():
        return _ORDERED.match(content) is not None
    return False


# --- inline level ------------------------------------------------------------------------------------

_INLINE_MARKUP = re.compile(r"[\\`*_~\[\]!<&]")
_SPACES = re.compile(r"\s+")
_TERMINATOR = re.compile(r"[\n!#$%&*+\-:<=>@\[\\\]^_`{}~]")
_ESCAPABLE = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
_DIGITAL_ENTITY = re.compile(r"&#((?:x[a-f0-9]{1,6}|[0-9]{1,7}));", re.IGNORECASE)
_NAMED_ENTITY = re.compile(r"&([a-z][a-z0-9]{1,31});", re.IGNORECASE)
_STAR, _UNDERSCORE, _TILDE = 0x2A, 0x5F, 0x7E


def _inline_blocks(content: str, kind: str, level: int, quoted: bool, plain: bool = False) -> tuple[Block | None, list[Link]]:
    """The block of one inline content (or ``None``) and the links of a text-less one; ``plain``: read
    it as plain text, markers kept."""
    if plain or not _INLINE_MARKUP.search(content):
        text = "\n".join(line.strip() for line in content.split("\n")).strip() if "\n" in content else content.strip()
        return (Block(kind, level, text, quoted=quoted) if text else None), []
    simple = _simple_links(content)
    if simple is not None:
        text, links = simple
    else:
        text, links, strong = _parse_inline(content)
        if text and strong:
            return Block(kind, level, text, tuple(links), tuple(strong), quoted), []
    if not text:
        return None, links
    return Block(kind, level, text, tuple(links), (), quoted), []


def _collapse(text: str) -> str:
    """``_SPACES.sub(" ", text).strip()``, skipping the regex when there is nothing to collapse."""
    if "  " in text or not text.isprintable():
        text = _SPACES.sub(" ", text)
    return text.strip()


def _finish(text: str) -> str:
    if "\n" in text:
        text = "\n".join(line.strip() for line in text.split("\n"))
    return text.strip()


_SIMPLE_LINK = re.compile(r"\[([^\\`*_~\[\]!<&\n]*)\]\(([^ \x00-\x1f\x7f()\\<][^ \x00-\x1f\x7f()\\]*)\)")


def _simple_links(content: str) -> tuple[str, list[Link]] | None:
    """Text and links of an inline whose only markup is ``[label](target)`` links with plain labels and
    targets (navigation lists are made of these); ``None`` for anything else. Exactly what markdown-it
    makes of such text: each link becomes its label, the rest stays as written."""
    pieces: list[str] = []
    links: list[Link] = []
    position = 0
    for match in _SIMPLE_LINK.finditer(content):
        start = match.start()
        if _INLINE_MARKUP.search(content, position, start):
            return None
        href = match.group(2)
        if "&" in href:
            href = unescapeAll(href)
        if not _MARKDOWN.validateLink(href):
            return None
        label = match.group(1)
        pieces.append(content[position:start])
        pieces.append(label)
        links.append(Link(_collapse(label), href))
        position = match.end()
    if not links or _INLINE_MARKUP.search(content, position):
        return None
    pieces.append(content[position:])
    return _finish("".join(pieces)), links


def _parse_inline(content: str) -> tuple[str, list[Link], list[str]]:
    """Text, links and strong spans of one inline content, through the port of markdown-it's rules."""
    state = _InlineState(content)
    state.tokenize()
    state.post_process()
    pieces: list[str] = []
    links: list[Link] = []
    strong: list[str] = []
    open_links: list[tuple[int, str]] = []
    open_strong: list[int] = []
    for token in state.tokens:
        ttype = token[0]
        if ttype == "text":
            pieces.append(token[1])
        elif ttype == "br":
            pieces.append("\n")
        elif ttype == "link_open":
            open_links.append((len(pieces), token[1]))
        elif ttype == "link_close":
            if open_links:
                start, href = open_links.pop()
                links.append(Link(_collapse("".join(pieces[start:])), href))
        elif ttype == "strong_open":
            open_strong.append(len(pieces))
        elif ttype == "strong_close":
            if open_strong:
                strong_text = _collapse("".join(pieces[open_strong.pop() :]))
                if strong_text:
                    strong.append(strong_text)
    return _finish("".join(pieces)), links, strong


class _Delimiter:
    __slots__ = ("marker", "length", "token", "end", "open", "close")

    def __init__(self, marker: int, length: int, token: int, can_open: bool, can_close: bool) -> None:
        self.marker, self.length, self.token, self.end = marker, length, token, -1
        self.open, self.close = can_open, can_close


class _InlineState:
    """markdown-it's ``StateInline`` for the supported rules; tokens are ``[type, content]`` lists.

    Token types: ``text`` (text, code spans, escapes, entities, unmatched markers), ``br`` (soft or
    hard break), ``link_open`` (content: href), ``link_close``, ``image``, ``delim`` (an emphasis or
    strikethrough marker until post-processing turns it into text or a tag), tag types after it.
    """

    __slots__ = ("src", "pos", "pos_max", "tokens", "pending", "delimiters", "scopes", "previous",
                 "level", "cache", "backticks", "last_seen", "work")

    def __init__(self, src: str) -> None:
        self.src = src
        self.pos = 0
        self.pos_max = len(src)
        self.tokens: list[list] = []
        self.pending: list[str] = []
        self.delimiters: list[_Delimiter] = []
        self.scopes: list[list[_Delimiter]] = []  # delimiter lists of link scopes, in push order
        self.previous: list[list[_Delimiter]] = []
        self.level = 0
        self.cache: dict[int, int] = {}
        self.backticks: dict[int, int] | None = None
        self.last_seen: dict[str, int] = {}  # last position of an HTML terminator in src
        # Link labels are found by rescanning (quadratic on runs of "["): past this many steps the
        # segment goes to markdown-it, whose link budget decides what such text becomes.
        self.work = 64 * len(src) + 4096

    def last(self, term: str) -> int:
        found = self.last_seen.get(term)
        if found is None:
            found = self.last_seen[term] = self.src.rfind(term)
        return found

    # -- token stream --

    def flush(self) -> None:
        if self.pending:
            self.tokens.append(["text", "".join(self.pending)])
            self.pending = []

    def push(self, ttype: str, content: str, nesting: int) -> None:
        self.flush()
        if nesting < 0:
            self.level -= 1
            self.delimiters = self.previous.pop()
        if nesting > 0:
            self.level += 1
            if self.level > _MAX_LEVEL:
                raise _Fallback
            self.previous.append(self.delimiters)
            self.delimiters = []
            self.scopes.append(self.delimiters)
        self.tokens.append([ttype, content])

    # -- the rule chain --

    def tokenize(self) -> None:
        """Tokenize ``pos``..``pos_max`` and flush the pending text."""
        self.tokenize_range()
        self.flush()

    def rule(self, ch: str, *, silent: bool) -> bool:
        """Try the rules that react to ``ch`` at ``self.pos`` (markdown-it's order); True if one matched."""
        if ch == "\n":
            return self.newline(silent)
        if ch == "\\":
            return self.escape(silent)
        if ch == "`":
            return self.backtick(silent)
        if ch == "~":
            return False if silent else self.strikethrough()
        if ch == "*" or ch == "_":
            return False if silent else self.emphasis(ch)
        if ch == "[":
            return self.link(silent)
        if ch == "!":
            return self.image(silent)
        if ch == "<":
            if self.autolink(silent):
                return True
            if self.html_inline_here():
                raise _Fallback  # raw HTML: markdown-it renders it and projects it by the HTML rules
            return False
        if ch == "&":
            return self.entity(silent)
        return False

    def skip_token(self) -> None:
        """markdown-it's ``skipToken``: move past one token in validation mode (cached)."""
        self.work -= 1
        if self.work < 0:
            raise _Fallback
        pos = self.pos
        if pos in self.cache:
            self.pos = self.cache[pos]
            return
        ch = self.src[pos]
        ok = False
        self.level += 1
        if self.level > _MAX_LEVEL:
            raise _Fallback
        if ch not in "\n!#$%&*+-:<=>@[\\]^_`{}~":
            match = _TERMINATOR.search(self.src, pos, self.pos_max)
            self.pos = match.start() if match else self.pos_max
            ok = self.pos > pos
        else:
            ok = self.rule(ch, silent=True)
        self.level -= 1
        if not ok:
            self.pos += 1
        self.cache[pos] = self.pos

    # -- rules --

    def newline(self, silent: bool) -> bool:
        if not silent:
            # markdown-it trims the spaces before a break from the pending text.
            text = "".join(self.pending)
            if text.endswith(" "):
                text = text.rstrip(" ") if text.endswith("  ") else text[:-1]
            self.pending = [text] if text else []
            self.push("br", "", 0)
        pos = self.pos + 1
        while pos < self.pos_max and self.src[pos] in " \t":
            pos += 1
        self.pos = pos
        return True

    def escape(self, silent: bool) -> bool:
        src = self.src
        pos = self.pos + 1
        if pos >= self.pos_max:
            return False
        ch = src[pos]
        if ch == "\n":
            if not silent:
                self.push("br", "", 0)
            pos += 1
            while pos < self.pos_max and src[pos] in " \t":
                pos += 1
            self.pos = pos
            return True
        escaped = ch
        if 0xD800 <= ord(ch) <= 0xDBFF and pos + 1 < self.pos_max and 0xDC00 <= ord(src[pos + 1]) <= 0xDFFF:
            escaped += src[pos + 1]
            pos += 1
        if not silent:
            self.push("text", escaped if ch in _ESCAPABLE else "\\" + escaped, 0)
        self.pos = pos + 1
        return True

    def backtick(self, silent: bool) -> bool:
        src = self.src
        start = self.pos
        maximum = self.pos_max
        pos = start + 1
        while pos < maximum and src[pos] == "`":
            pos += 1
        length = pos - start
        if self.backticks is None:
            runs: dict[int, int] = {}
            scan = 0
            while (found := src.find("`", scan)) != -1:
                scan = found + 1
                while scan < len(src) and src[scan] == "`":
                    scan += 1
                runs[scan - found] = found
            self.backticks = runs
        if self.backticks.get(length, -1) >= pos:
            match_end = pos
            while (match_start := src.find("`", match_end)) != -1 and match_start < maximum:
                match_end = match_start + 1
                while match_end < len(src) and src[match_end] == "`":
                    match_end += 1
                if match_end > maximum:
                    break
                if match_end - match_start == length:
                    if not silent:
                        code = src[pos:match_start].replace("\n", " ")
                        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
                            code = code[1:-1]
                        self.push("text", code, 0)
                    self.pos = match_end
                    return True
        if not silent:
            self.pending.append(src[start:pos])
        self.pos = pos
        return True

    def scan_delims(self, start: int, can_split_word: bool) -> tuple[bool, bool, int]:
        src = self.src
        maximum = self.pos_max
        marker = src[start]
        last = src[start - 1] if start > 0 else " "
        pos = start
        while pos < maximum and src[pos] == marker:
            pos += 1
        count = pos - start
        nxt = src[pos] if pos < maximum else " "
        last_punct = isMdAsciiPunct(ord(last)) or isPunctChar(last)
        next_punct = isMdAsciiPunct(ord(nxt)) or isPunctChar(nxt)
        last_space = isWhiteSpace(ord(last))
        next_space = isWhiteSpace(ord(nxt))
        left = not (next_space or (next_punct and not (last_space or last_punct)))
        right = not (last_space or (last_punct and not (next_space or next_punct)))
        can_open = left and (can_split_word or not right or last_punct)
        can_close = right and (can_split_word or not left or next_punct)
        return can_open, can_close, count

    def strikethrough(self) -> bool:
        can_open, can_close, length = self.scan_delims(self.pos, True)
        if length < 2:
            return False
        remaining = length
        if remaining % 2:
            self.push("text", "~", 0)
            remaining -= 1
        for _ in range(remaining // 2):
            self.push("delim", "~~", 0)
            self.delimiters.append(_Delimiter(_TILDE, 0, len(self.tokens) - 1, can_open, can_close))
        self.pos += length
        return True

    def emphasis(self, marker: str) -> bool:
        can_open, can_close, length = self.scan_delims(self.pos, marker == "*")
        code = ord(marker)
        for _ in range(length):
            self.push("delim", marker, 0)
            self.delimiters.append(_Delimiter(code, length, len(self.tokens) - 1, can_open, can_close))
        self.pos += length
        return True

    def parse_link_label(self, start: int, disable_nested: bool) -> int:
        """markdown-it's ``parseLinkLabel``: the position of the matching ``]``, or -1."""
        old_pos = self.pos
        found = False
        self.pos = start + 1
        level = 1
        src = self.src
        while self.pos < self.pos_max:
            marker = src[self.pos]
            if marker == "]":
                level -= 1
                if level == 0:
                    found = True
                    break
            previous = self.pos
            self.skip_token()
            if marker == "[":
                if previous == self.pos - 1:
                    level += 1
                elif disable_nested:
                    self.pos = old_pos
                    return -1
        label_end = self.pos if found else -1
        self.pos = old_pos
        return label_end

    def _destination(self, pos: int, image: bool) -> tuple[int, str] | None:
        """After ``(``: destination and title up to ``)``, as markdown-it's link and image rules parse
        them (the image rule tries a title even after a bad destination). Returns (position after
        ``)``, href), or ``None`` when this is no inline link (the document defines no references)."""
        src = self.src
        maximum = self.pos_max
        pos += 1
        while pos < maximum and src[pos] in " \t\n":
            pos += 1
        if pos >= maximum:
            return None
        href = ""
        ok, end, destination = _link_destination(src, pos, maximum)
        if ok:
            href = destination  # projection.py keeps targets as written (normalizeLink is the identity)
            if _MARKDOWN.validateLink(href):
                pos = end
            else:
                href = ""
        if ok or image:
            start = pos
            while pos < maximum and src[pos] in " \t\n":
                pos += 1
            # A title needs whitespace before it and an opening quote or parenthesis: test that first,
            # since parseLinkTitle costs an object per call and most links have no title.
            title = parseLinkTitle(src, pos, maximum) if pos < maximum and start != pos and src[pos] in "\"'(" else None
            if title is not None and title.ok:
                pos = title.pos
                while pos < maximum and src[pos] in " \t\n":
                    pos += 1
        if pos >= maximum or src[pos] != ")":
            return None
        return pos + 1, href

    def link(self, silent: bool) -> bool:
        label_end = self.parse_link_label(self.pos, True)
        if label_end < 0:
            return False
        pos = label_end + 1
        if not (pos < self.pos_max and self.src[pos] == "("):
            return False  # a reference link, and the document defines no references
        parsed = self._destination(pos, image=False)
        if parsed is None:
            return False
        end, href = parsed
        if not silent:
            label_start = self.pos + 1
            old_max = self.pos_max
            self.pos = label_start
            self.pos_max = label_end
            self.push("link_open", href, 1)
            self.tokenize_range()
            self.push("link_close", "", -1)
            self.pos_max = old_max
        self.pos = end
        return True

    def tokenize_range(self) -> None:
        """Tokenize ``pos``..``pos_max`` (a link's text), keeping pending text for the caller's flush."""
        src = self.src
        end = self.pos_max
        while self.pos < end:
            ch = src[self.pos]
            if ch not in "\n!#$%&*+-:<=>@[\\]^_`{}~":
                match = _TERMINATOR.search(src, self.pos, end)
                stop = match.start() if match else end
                self.pending.append(src[self.pos : stop])
                self.pos = stop
                continue
            if not self.rule(ch, silent=False):
                self.pending.append(ch)
                self.pos += 1

    def image(self, silent: bool) -> bool:
        src = self.src
        if self.pos + 1 < self.pos_max and src[self.pos + 1] != "[":
            return False
        if self.pos + 1 >= self.pos_max:
            return False  # "!" at the end: markdown-it's label parse finds nothing
        label_end = self.parse_link_label(self.pos + 1, False)
        if label_end < 0:
            return False
        pos = label_end + 1
        if not (pos < self.pos_max and src[pos] == "("):
            return False
        parsed = self._destination(pos, image=True)
        if parsed is None:
            return False
        if not silent:
            self.push("image", "", 0)  # images and their alt text are not reader text
        self.pos = parsed[0]
        return True

    def autolink(self, silent: bool) -> bool:
        src = self.src
        start = pos = self.pos
        maximum = self.pos_max
        while True:
            pos += 1
            if pos >= maximum:
                return False
            ch = src[pos]
            if ch == "<":
                return False
            if ch == ">":
                break
        url = src[start + 1 : pos]
        if AUTOLINK_RE.search(url) is not None:
            href = url
        elif EMAIL_RE.search(url) is not None:
            href = "mailto:" + url
        else:
            return False
        if not _MARKDOWN.validateLink(href):
            return False
        if not silent:
            self.push("link_open", href, 1)
            self.push("text", _MARKDOWN.normalizeLinkText(url), 0)
            self.push("link_close", "", -1)
        self.pos += len(url) + 2
        return True

    def html_inline_here(self) -> bool:
        """Whether markdown-it's html_inline rule would match at ``pos`` (its cheap checks, then the
        tag pattern)."""
        src = self.src
        pos = self.pos
        if pos + 2 >= self.pos_max:
            return False
        ch = src[pos + 1]
        if ch not in "!?/" and not ("a" <= ch.lower() <= "z" and ch.isascii()):
            return False
        if src.startswith("<!--", pos):
            if self.last(">") < pos + 4:
                return False
            if not src.startswith("<!-->", pos) and not src.startswith("<!--->", pos) and self.last("-->") < pos + 4:
                return False
        elif src.startswith("<![CDATA[", pos):
            if self.last("]]>") < pos + 9:
                return False
        elif ch == "?":
            if self.last("?>") < pos + 2:
                return False
        elif ch == "!":
            if self.last(">") < pos + 3:
                return False
        elif self.last(">") < pos + 2:
            return False
        return HTML_TAG_RE.match(src, pos) is not None

    def entity(self, silent: bool) -> bool:
        src = self.src
        pos = self.pos
        if pos + 1 >= self.pos_max:
            return False
        if src[pos + 1] == "#":
            match = _DIGITAL_ENTITY.match(src, pos, self.pos_max)
            if match:
                if not silent:
                    value = match.group(1)
                    code = int(value[1:], 16) if value[0].lower() == "x" else int(value, 10)
                    self.push("text", chr(code) if isValidEntityCode(code) else "\ufffd", 0)
                self.pos += len(match.group(0))
                return True
            return False
        match = _NAMED_ENTITY.match(src, pos, self.pos_max)
        if match and match.group(1) in entities:
            if not silent:
                self.push("text", entities[match.group(1)], 0)
            self.pos += len(match.group(0))
            return True
        return False

    # -- post-processing (balance_pairs, strikethrough, emphasis) --

    def post_process(self) -> None:
        scopes = [self.delimiters, *self.scopes]
        for delimiters in scopes:
            _balance(delimiters)
        for delimiters in scopes:
            self._strikethrough_pairs(delimiters)
        for delimiters in scopes:
            self._emphasis_pairs(delimiters)
        for token in self.tokens:
            if token[0] == "delim":
                token[0] = "text"

    def _strikethrough_pairs(self, delimiters: list[_Delimiter]) -> None:
        tokens = self.tokens
        lone: list[int] = []
        for start in delimiters:
            if start.marker != _TILDE or start.end == -1:
                continue
            end = delimiters[start.end]
            tokens[start.token] = ["s_open", ""]
            tokens[end.token] = ["s_close", ""]
            before = tokens[end.token - 1]
            if before[0] in ("text", "delim") and before[1] == "~":
                lone.append(end.token - 1)
        while lone:
            i = lone.pop()
            j = i + 1
            while j < len(tokens) and tokens[j][0] == "s_close":
                j += 1
            j -= 1
            if i != j:
                tokens[i], tokens[j] = tokens[j], tokens[i]

    def _emphasis_pairs(self, delimiters: list[_Delimiter]) -> None:
        tokens = self.tokens
        i = len(delimiters) - 1
        while i >= 0:
            start = delimiters[i]
            if (start.marker != _UNDERSCORE and start.marker != _STAR) or start.end == -1:
                i -= 1
                continue
            end = delimiters[start.end]
            strong = (
                i > 0
                and delimiters[i - 1].end == start.end + 1
                and delimiters[i - 1].marker == start.marker
                and delimiters[i - 1].token == start.token - 1
                and delimiters[start.end + 1].token == end.token + 1
            )
            tokens[start.token] = ["strong_open" if strong else "em_open", ""]
            tokens[end.token] = ["strong_close" if strong else "em_close", ""]
            if strong:
                tokens[delimiters[i - 1].token] = ["text", ""]
                tokens[delimiters[start.end + 1].token] = ["text", ""]
                i -= 1
            i -= 1


_PLAIN_DESTINATION = re.compile(r"[^ \x00-\x1f\x7f()\\<][^ \x00-\x1f\x7f()\\]*")


def _link_destination(src: str, pos: int, maximum: int) -> tuple[bool, int, str]:
    """markdown-it's ``parseLinkDestination`` as (ok, end, unescaped destination); a destination without
    parentheses, backslashes or a leading ``<`` (nearly all) is matched by one regex instead."""
    match = _PLAIN_DESTINATION.match(src, pos, maximum)
    if match is not None:
        end = match.end()
        if end >= maximum or src[end] not in "(\\":
            destination = match.group()
            return True, end, unescapeAll(destination) if "&" in destination else destination
    result = parseLinkDestination(src, pos, maximum)
    return result.ok, result.pos, result.str


def _balance(delimiters: list[_Delimiter]) -> None:
    """markdown-it's ``processDelimiters``: pair every closer with its opener (rule of 3, linear)."""
    if not delimiters:
        return
    openers_bottom: dict[int, list[int]] = {}
    maximum = len(delimiters)
    header = 0
    last_token = -2
    jumps: list[int] = []
    closer_index = 0
    while closer_index < maximum:
        closer = delimiters[closer_index]
        jumps.append(0)
        if delimiters[header].marker != closer.marker or last_token != closer.token - 1:
            header = closer_index
        last_token = closer.token
        closer.length = closer.length or 0
        if not closer.close:
            closer_index += 1
            continue
        if closer.marker not in openers_bottom:
            openers_bottom[closer.marker] = [-1, -1, -1, -1, -1, -1]
        min_opener = openers_bottom[closer.marker][(3 if closer.open else 0) + (closer.length % 3)]
        opener_index = header - jumps[header] - 1
        new_min = opener_index
        while opener_index > min_opener:
            opener = delimiters[opener_index]
            if opener.marker != closer.marker:
                opener_index -= jumps[opener_index] + 1
                continue
            if opener.open and opener.end < 0:
                odd = (
                    (opener.close or closer.open)
                    and (opener.length + closer.length) % 3 == 0
                    and (opener.length % 3 != 0 or closer.length % 3 != 0)
                )
                if not odd:
                    last_jump = jumps[opener_index - 1] + 1 if opener_index > 0 and not delimiters[opener_index - 1].open else 0
                    jumps[closer_index] = closer_index - opener_index + last_jump
                    jumps[opener_index] = last_jump
                    closer.open = False
                    opener.end = closer_index
                    opener.close = False
                    new_min = -1
                    last_token = -2
                    break
            opener_index -= jumps[opener_index] + 1
        if new_min != -1:
            openers_bottom[closer.marker][(3 if closer.open else 0) + ((closer.length or 0) % 3)] = new_min
        closer_index += 1
