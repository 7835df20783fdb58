"""The scorer (SPEC §3): project an answer to reader text, normalise it, measure its contracts.

**The reading rule** (SPEC §3.2). The projection is the text a reader of the answer sees: a person
viewing it rendered, or a model reading it raw. Markup is not text: Markdown markers, link targets,
emphasis, images and their alt text, HTML tags, attributes and the HTML a browser never shows (head,
script, style, template, noscript, ``hidden``, inline ``display:none``/``visibility:hidden``, a closed
``<details>`` beyond its first summary, input values). Everything else is text. So an ordered list
number written in a Markdown answer (``1.``, ``11)``) is text; and where a parser's dialect would drop
something a reader sees, the reader wins: table cells beyond a GFM header's count are kept, an
``<html>``/``<head>``/``<body>`` line inside Markdown hides nothing (a browser ignores it in a body),
and an element that hides content but is never closed hides no Markdown after it. The numbers a browser
draws before the items of an HTML ``<ol>`` are text too (unless an inline style sets ``list-style:
none``), so a numbered list reads the same in HTML and in Markdown.

``lexbench audit-projection RUN`` checks the rule on real answers: every reference fragment present
in an answer's raw text but absent from its projection must be explained by one of the markup rules.
"""

from lexbench.scoring.evaluate import evaluate_response

__all__ = ["evaluate_response"]
