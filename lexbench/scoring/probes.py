"""Boilerplate probes: how many of a case's ``without`` snippets an answer contains (issue 17).

trafilatura-eval annotates pages with snippets, not bodies: ``without`` lists page text a good
extraction leaves out (navigation, teasers, footers). For a case that carries them (``probes``), the
count found in an answer is a diagnostic of what the answer costs a reader, reported beside the noise
figure. It never decides a verdict.
"""

from __future__ import annotations

from lexbench.dataset.case import Case
from lexbench.scoring.view import AnswerView
from lexbench.text import normalise


def boilerplate_found(case: Case, content: str, content_format: str | None) -> int | None:
    """How many of ``case.probes.without`` occur in the reader text of the answer ``content`` (its
    projection, SPEC §3.2, compared in scoring normal form); ``None`` when the case has no such probes.
    A snippet with no letter or digit is never counted."""
    if case.probes is None or not case.probes.without:
        return None
    projection = AnswerView.of(content, content_format).projection
    text = "".join(normalise(piece) for piece in projection.pieces())
    return sum(1 for snippet in case.probes.without if (wanted := normalise(snippet)) and wanted in text)
