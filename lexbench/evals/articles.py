"""The checks a reviewed case must pass on its own evidence (REVIEW.md "Checking a review"; SPEC §3, §8).

:func:`case_problems` is what a reviewer runs on a filled-in review and what the suite's tests run on
every case of ``articles``: every phrase, the title and the ending are found by the scorer, not by eye;
regions are reviewed, not mechanical; the capture itself (as an HTML answer) passes its own contract;
and the rejected controls — title, each region, the ending, the stable groups, the comments or posts
removed — fail with the component they remove.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import lxml.etree
import lxml.html

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.dataset.case import Case, CaseKind, CaseRule
from lexbench.dataset.compile import check_segmentation
from lexbench.dataset.segment import auto_regions
from lexbench.errors import RulesError
from lexbench.providers.http import decode_text
from lexbench.evals.controls import ending_lines
from lexbench.scoring import evaluate_response
from lexbench.text import label_normalise, normalise
from lexbench.verdict import Component, Outcome, Verdict

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
    """The capture decoded as a browser would with its rule's content type (:func:`decode_text`), without
    an XML declaration (lxml refuses one in decoded text)."""
    return _XML_DECLARATION.sub("", decode_text(capture, rule.capture.content_type), count=1)


# --- a reviewed case's own contract, and each part of it removed (REVIEW.md, issue 17) -----------------


@dataclass(frozen=True)
class Rejected:
    """A rejected control of a reviewed case: ``name`` says what was removed, ``component`` is the
    component that must then fail, ``answer`` the HTML answer without it."""

    name: str
    component: Component
    answer: ProviderResult


def _html_answer(content: str) -> ProviderResult:
    return ProviderResult(success=True, content=content, content_format="html",
                          metadata=ResultMetadata(upstream_status=200))


def own_contract_answer(case: Case, capture_html: str, *, title: bool = True, drop_lines: frozenset[int] = frozenset(),
                        stable: bool = True, records: bool = True) -> ProviderResult:
    """An HTML answer made of exactly what a reviewed case requires: its stable phrases, its title as a
    heading, its reference lines as paragraphs (minus the one-based ``drop_lines``), and the capture's own
    comment or post records inside their original ancestors (so the reviewed selectors still select
    them; every other text of the capture is removed). ``title=False`` also drops every reference line
    and stable phrase that is the title itself (a body repetition is not a title, but it would be
    found as one). ``records=False`` drops the records. ``case`` must be compiled (reference text).
    Raises ``ValueError`` for a comments or posts contract without reviewed HTML selectors (REVIEW.md
    asks for selectors that select exactly the records)."""
    wanted = label_normalise(case.title or "")

    def keep(text: str) -> bool:
        return title or not wanted or label_normalise(text) != wanted

    phrases = [phrase for group in case.stable_groups for phrase in group.phrases] if stable else []
    lines = (case.reference_text or "").split("\n") if case.reference_text else []
    parts = [f"<p>{html.escape(p, quote=False)}</p>" for p in phrases if keep(p)]
    if title and case.title:
        parts.append(f"<h1>{html.escape(case.title, quote=False)}</h1>")
    parts += [f"<p>{html.escape(line, quote=False)}</p>" for number, line in enumerate(lines, start=1)
              if number not in drop_lines and keep(line)]
    own = "<div>" + "\n".join(parts) + "</div>"
    contract = case.comments or case.posts
    if contract is None:
        return _html_answer(f"<!DOCTYPE html><html><body>{own}</body></html>")
    if contract.html is None:
        raise ValueError(f"case {case.id}: its {'comments' if case.comments else 'posts'} contract has no reviewed "
                         "HTML selectors, so its records cannot be kept apart from the rest of the capture")
    root = lxml.html.document_fromstring(_XML_DECLARATION.sub("", capture_html, count=1))  # lxml refuses one in text
    chosen = root.cssselect(contract.html.record) if records else []
    # A record quoting a removed passage (a comment pasting the article's last paragraph) would supply it:
    # such records go too, so the control lacks the passage everywhere (seed: repeated wording may match).
    removed = [normalise(lines[number - 1]) for number in drop_lines if 0 < number <= len(lines)]
    needles = [line[i:i + 40] for line in removed for i in range(0, len(line) - 39, 40)]
    if needles:
        chosen = [record for record in chosen if not any(n in normalise(record.text_content()) for n in needles)]
    if not title and wanted:
        # The thread title shown inside a post (a forum's first-post subject) is the title too.
        for record in chosen:
            for node in list(record.iter(tag=lxml.etree.Element)):
                if node is not record and node.getparent() is not None and label_normalise(node.text_content()) == wanted:
                    node.drop_tree()
    # The sets hold the element proxies themselves: lxml keeps one proxy per node while it is referenced.
    inside = {node for record in chosen for node in record.iter()}
    ancestors = {node for record in chosen for node in record.iterancestors()}
    for element in list(root.iter()):
        if element in inside:
            continue
        if element in ancestors:
            element.text = None
            continue
        parent = element.getparent()
        if parent is not None and parent not in inside:
            parent.remove(element)  # its tail goes too: text outside the records
    for record in chosen:
        record.tail = None
    body = root.find("body")
    if body is None:
        body = lxml.html.Element("body")
        root.append(body)
    body.insert(0, lxml.html.fragment_fromstring(own))
    return _html_answer(lxml.html.tostring(root, encoding="unicode"))


def rejected_controls(case: Case, capture_html: str) -> list[Rejected]:
    """The answers a reviewed case must reject (REVIEW.md "Checking a review"), each
    :func:`own_contract_answer` with one part removed: the title (heading and any line that is the title),
    each region's lines, the ending passage's lines (:func:`ending_lines`), every stable group, and the
    comment or post records. Parts the case does not have give no control."""
    controls = []
    if case.title:
        controls.append(Rejected("title removed", Component.TITLE, own_contract_answer(case, capture_html, title=False)))
    if case.body is not None and case.reference_text is not None:
        for region in case.body.regions:
            lines = frozenset(range(region.first_line, region.last_line + 1))
            controls.append(Rejected(f"region {region.label!r} removed", Component.REGIONS,
                                     own_contract_answer(case, capture_html, drop_lines=lines)))
        ending = frozenset(ending_lines(case.reference_text.split("\n"), case.body.reference_scope.end))
        controls.append(Rejected("ending removed", Component.ENDING, own_contract_answer(case, capture_html, drop_lines=ending)))
    if case.stable_groups:
        controls.append(Rejected("stable groups removed", Component.STABLE_GROUPS,
                                 own_contract_answer(case, capture_html, stable=False)))
    if case.comments is not None:
        controls.append(Rejected("comments removed", Component.COMMENTS, own_contract_answer(case, capture_html, records=False)))
    if case.posts is not None:
        controls.append(Rejected("posts removed", Component.POSTS, own_contract_answer(case, capture_html, records=False)))
    return controls



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
