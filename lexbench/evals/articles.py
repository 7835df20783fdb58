"""The checks a reviewed case must pass on its own evidence (REVIEW.md "Checking a review"; SPEC §3, §8).

:func:`case_problems` is what a reviewer runs on a filled-in review and what the suite's tests run on
every case of ``articles``: every phrase, the title and the ending are found by the scorer, not by eye;
regions are reviewed, not mechanical; the capture itself (as an HTML answer) passes its own contract;
and the rejected controls — title, each region, the ending, the stable groups, the comments or posts
removed — fail with the component they remove.
"""

from __future__ import annotations

import re

import lxml.html

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.charsets import decode_page
from lexbench.dataset.case import Case, CaseKind, CaseRule
from lexbench.dataset.compile import check_segmentation
from lexbench.dataset.importers.common import detect_charset
from lexbench.dataset.segment import auto_regions
from lexbench.errors import RulesError
from lexbench.evals.controls import rejected_controls
from lexbench.scoring import evaluate_response
from lexbench.text import normalise
from lexbench.verdict import Outcome, Verdict

MAX_REGIONS = 5
_MECHANICAL_LABEL = re.compile(r"^part \d+( \(lines \d+-\d+\))?$", re.IGNORECASE)


def _answer(content: str, fmt: str, title: str | None = None) -> ProviderResult:
    return ProviderResult(success=True, content=content, content_format=fmt, title=title,
                          metadata=ResultMetadata(upstream_status=200))


def _failed(verdict: Verdict) -> list[str]:
    return [f"{c.name.value}: {c.evidence}" for c in verdict.components if c.passed is False]


def _case(rule: CaseRule, reference: str | None) -> Case:
    return Case(**rule.model_dump(), reference_text=reference)


_XML_DECLARATION = re.compile(r"\A\ufeff?\s*<\?xml\s[^>]*\?>")


def capture_html(rule: CaseRule, capture: bytes) -> str:
    """The capture decoded as its rule's content type says (undecodable bytes become U+FFFD), without
    an XML declaration (lxml refuses one in decoded text)."""
    label = rule.capture.content_type.partition("charset=")[2] or detect_charset(capture).served
    return _XML_DECLARATION.sub("", decode_page(capture, label)[0], count=1)


def case_problems(rule: CaseRule, capture: bytes, reference: str | None) -> list[str]:
    """Every way one reviewed case fails its review checks, as readable lines (empty: it passes).

    ``capture`` is the capture's bytes; ``reference`` its reference body (lines joined by ``\\n``), or
    ``None`` for a post collection. Implements REVIEW.md's checks; raises nothing."""
    problems: list[str] = []
    case = _case(rule, reference)
    html = capture_html(rule, capture)
    if rule.body is not None and reference is not None:
        try:
            check_segmentation(rule, reference, reviewed=True)
        except RulesError as exc:
            problems.append(str(exc))
        regions = rule.body.regions
        if len(regions) > MAX_REGIONS:
            problems.append(f"{len(regions)} regions; at most {MAX_REGIONS} natural chapters")
        if any(_MECHANICAL_LABEL.match(region.label) for region in regions):
            problems.append("a region label is mechanical ('part N'); name the chapter as a reader would")
        try:
            mechanical = [(r.first_line, r.last_line) for r in auto_regions(reference.split("\n"))]
            if [(r.first_line, r.last_line) for r in regions] == mechanical and len(regions) > 1:
                problems.append("the regions are exactly auto_regions' equal cuts; review them by reading")
        except Exception:  # auto_regions refuses some references; then nothing can equal it
            pass
    if rule.kind is CaseKind.FIXED_ARTICLE:
        if not rule.title:
            problems.append("a fixed article needs its visible title")
        if len(rule.stable_groups) < 2:
            problems.append(f"{len(rule.stable_groups)} stable groups; at least two from the page's chrome")
        if not rule.page_identity:
            problems.append("no page identity pattern")
    visible = normalise("\n".join(lxml.html.document_fromstring(html).itertext())) if html.strip() else ""
    for group in rule.stable_groups:
        for phrase in group.phrases:
            if normalise(phrase) not in visible:
                problems.append(f"stable phrase {phrase!r} ({group.id}) is not in the capture's text")
    own = evaluate_response(case, _answer(html, "html", rule.title))
    if own.outcome is not Outcome.PASS:
        problems.append("the capture fails its own contract: " + "; ".join(_failed(own)))
    if reference is not None:
        echo_lines = ([rule.title] if rule.title else []) + [reference] + [
            phrase for group in rule.stable_groups for phrase in group.phrases]
        echo = evaluate_response(case, _answer("\n".join(echo_lines), "text"))
        failed = [line for line in _failed(echo) if not line.startswith(("comments", "posts"))]
        if failed:
            problems.append("the reference echo fails: " + "; ".join(failed))
    try:
        rejected = rejected_controls(case, html)
    except ValueError as exc:  # a records contract without reviewed selectors
        return [*problems, str(exc)]
    for control in rejected:
        verdict = evaluate_response(case, control.answer)
        result = verdict.component(control.component)
        if verdict.outcome is Outcome.PASS or result is None or result.passed is not False:
            problems.append(f"control '{control.name}' does not fail {control.component.value}")
    return problems
