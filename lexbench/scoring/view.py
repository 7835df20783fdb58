"""One projected answer, shared by every component that scores it (SPEC §3.2).

:func:`project` turns an answer into reader text in its format's one path (HTML walker, Markdown fast
path, plain lines); :class:`AnswerView` projects the answer once. HTML answers are parsed once into a
:class:`~lexbench.scoring.projection.VisibleTree` (invisible content already removed), from which
both the projection and the native record selectors are served. Line units for the record parsers
are built lazily, only for cases with comment or post contracts.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

import ahocorasick

from lexbench.scoring.fastpath import project_markdown_fast
from lexbench.scoring.projection import (
    CHROME_TAGS,
    CODE,
    PARAGRAPH,
    Block,
    Link,
    Projection,
    VisibleTree,
    project_html,
    sniff_format,
)
from lexbench.text import normalise


def project(content: str, content_format: str | None) -> Projection:
    """Project ``content`` to reader text (SPEC §3.2).

    ``content_format`` is the provider's declared format (``"html"``, ``"markdown"``, ``"text"``);
    ``None`` or an unknown value is sniffed with :func:`sniff_format`. Never raises on malformed
    input: broken HTML is repaired by lxml, empty documents give an empty projection.
    """
    fmt = content_format if content_format in ("html", "markdown", "text") else sniff_format(content)
    if fmt == "html":
        blocks = project_html(content)
    elif fmt == "markdown":
        notes: list[str] = []
        blocks = project_markdown_fast(content, notes=notes)  # equal to project_markdown, in linear time
        return Projection(blocks=tuple(blocks), format=fmt, notes=tuple(notes))
    else:
        blocks = [Block(PARAGRAPH, 0, line.strip()) for line in content.splitlines() if line.strip()]
        return Projection(blocks=tuple(blocks), format="text", source_text=content)
    return Projection(blocks=tuple(blocks), format=fmt)


# --- format sniffing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """One line of reader text, the unit the record parsers walk (SPEC §3.5, §3.6).

    A code block is one unit; any other block gives one unit per line. ``links`` and ``strong`` are
    the block's links and strong spans that fall on this line (a link without text stays with the
    block's first line). ``norm`` is the line in scoring normal form. ``opens_item`` is true on the
    first line of a list item's first block (:attr:`Block.opens_item`); ``continues`` on every line of
    a block but its first (a Markdown line break, not a new block).
    """

    kind: str
    level: int
    text: str
    links: tuple[Link, ...]
    strong: tuple[str, ...]
    quoted: bool
    norm: str
    opens_item: bool = False
    continues: bool = False


_FEW = 4_096
"""Below this many needle × text characters, ``str.find`` per needle beats building an automaton."""


def first_occurrences(text: str, needles: Iterable[str]) -> dict[str, int]:
    """The index of each needle's first occurrence in ``text``, as ``text.find(needle)`` gives it
    (``-1`` when absent, ``0`` for ``""``), in one Aho–Corasick pass when there are many needles:
    O(len(text) + total needle length), not needles × text."""
    wanted = set(needles)
    if len(wanted) < 2 or len(wanted) * len(text) <= _FEW:
        return {needle: text.find(needle) for needle in wanted}
    found = {needle: -1 for needle in wanted}
    if "" in found:
        found[""] = 0
    pending = {needle for needle in wanted if needle}
    automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
    for needle in pending:
        automaton.add_word(needle, needle)
    automaton.make_automaton()
    for end, needle in automaton.iter(text):  # in order of end, so a needle's first report is its first occurrence
        if needle in pending:
            found[needle] = end - len(needle) + 1
            pending.discard(needle)
            if not pending:
                break
    return found


def build_units(blocks: tuple[Block, ...] | list[Block]) -> list[Unit]:
    """Split blocks into line units (linear in the blocks' text)."""
    units: list[Unit] = []
    for block in blocks:
        if block.kind == CODE or "\n" not in block.text:
            units.append(Unit(block.kind, block.level, block.text, block.links, block.strong, block.quoted,
                              normalise(block.text), block.opens_item))
            continue
        lines = block.lines()
        # Each link and strong span goes to the first line holding its text, found in one pass over the
        # block (a paragraph of 25,000 links must not cost 25,000 scans of it).
        joined = "\n".join(lines)
        starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        first = first_occurrences(joined, [link.text for link in block.links] + list(block.strong))

        def line_of(needle: str) -> int | None:
            position = first.get(needle, -1)
            return bisect_right(starts, position) - 1 if position >= 0 else None

        placed_links: list[list[Link]] = [[] for _ in lines]
        for link in block.links:
            index = line_of(link.text) if link.text else None
            placed_links[index or 0].append(link)
        placed_strong: list[list[str]] = [[] for _ in lines]
        for span in block.strong:
            index = line_of(span)
            if index is not None:
                placed_strong[index].append(span)
        for number, (line, links, strong) in enumerate(zip(lines, placed_links, placed_strong, strict=True)):
            units.append(Unit(block.kind, block.level, line, tuple(links), tuple(strong), block.quoted, normalise(line),
                              block.opens_item and number == 0, number > 0))
    return units


@dataclass
class AnswerView:
    """An answer projected for scoring. Build with :meth:`of`.

    ``projection`` is the reader text (SPEC §3.2); ``tree`` the pruned HTML tree for HTML answers
    (``None`` otherwise, or for documents nested too deep to parse); :attr:`units` the line units of
    the projection; :attr:`chrome_free_units` the same without ``nav``/``aside``/``footer`` for HTML
    answers (the structured text parser's input, SPEC §3.5).
    """

    projection: Projection
    tree: VisibleTree | None = None

    @classmethod
    def of(cls, content: str, content_format: str | None) -> AnswerView:
        """Project ``content`` (declared ``content_format``, sniffed when unknown). Never raises."""
        fmt = content_format if content_format in ("html", "markdown", "text") else sniff_format(content)
        if fmt == "html":
            tree = VisibleTree.parse(content)
            if tree is not None:
                blocks = tuple(tree.blocks())
                return cls(Projection(blocks=blocks, format="html"), tree)
        return cls(project(content, fmt))

    @property
    def format(self) -> str:
        return self.projection.format

    @cached_property
    def units(self) -> list[Unit]:
        """Line units of the whole projection."""
        return build_units(self.projection.blocks)

    @cached_property
    def chrome_free_units(self) -> list[Unit]:
        """Line units without navigation, sidebars and footers (HTML answers; else :attr:`units`)."""
        if self.tree is None:
            return self.units
        return build_units(self.tree.blocks(skip=CHROME_TAGS))
