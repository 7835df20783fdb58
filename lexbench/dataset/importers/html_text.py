"""HTML to paragraph lines: one line per block element, for references given as HTML (SPEC §4).

Only text nodes are kept: attributes (``alt``, ``title``) never become text, and ``script``,
``style``, ``template`` and ``noscript`` are dropped. Block elements and ``<br>`` end a line;
``<pre>`` keeps its own line breaks. The result goes through
:func:`lexbench.dataset.segment.split_paragraphs`, so lines are stripped and whitespace-collapsed.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

from lexbench.charsets import decode_page
from lexbench.dataset.segment import split_paragraphs

BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "dialog", "div",
        "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hgroup", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "body", "html",
    }
)
"""Elements whose start and end break the line (the reference's paragraph boundaries)."""

DROPPED_TAGS = frozenset({"script", "style", "template", "noscript", "head", "title"})
"""Elements whose text is not page text."""

_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


def _parse(html: str) -> lxml.html.HtmlElement | None:
    # lxml refuses str input that still carries an XML encoding declaration.
    html = _XML_DECLARATION.sub("", html, count=1)
    if not html.strip():
        return None
    try:
        return lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return None


def _tag(element: lxml.etree._Element) -> str | None:
    tag = element.tag
    if not isinstance(tag, str):  # comments, processing instructions, entities
        return None
    return tag.rsplit("}", 1)[-1].lower()


def _walk(element: lxml.etree._Element, out: list[str], in_pre: bool) -> None:
    tag = _tag(element)
    if tag is not None and tag not in DROPPED_TAGS:
        block = tag in BLOCK_TAGS
        pre = in_pre or tag == "pre"
        if block:
            out.append("\n")
        if tag == "br":
            out.append("\n")
        if element.text:
            out.append(element.text if pre else _SPACE.sub(" ", element.text))
        for child in element:
            _walk(child, out, pre)
        if block:
            out.append("\n")
    # The tail belongs to the parent's flow, even after a dropped element or a comment.
    if element.tail:
        out.append(element.tail if in_pre else _SPACE.sub(" ", element.tail))


def html_lines(html: str) -> list[str]:
    """Paragraph lines of an HTML document or fragment, one per block element.

    ``html`` is decoded text (not bytes). Returns ``[]`` for an empty or unparsable document.
    """
    root = _parse(html)
    if root is None:
        return []
    out: list[str] = []
    _walk(root, out, False)
    return split_paragraphs("".join(out))


def visible_text(data: bytes, charset: str = "utf-8") -> str:
    """The page's static text as lines joined by newlines (for checks, not for references).

    ``data`` are the capture bytes, decoded with ``charset`` (undecodable bytes are replaced; a label
    that is not a WHATWG text encoding reads as UTF-8: lexbench.charsets).
    """
    return "\n".join(html_lines(decode_page(data, charset)[0]))
