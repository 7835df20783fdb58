"""Anchors (SPEC §2): named-link floors for changing link collections and visible-control labels.

A named link is a link target with visible link text, outside code. Link floors count distinct
absolute targets that fully match the floor's pattern. A visible-control anchor passes on the
reviewed selector and attribute of a visible control in an HTML answer, or on the same label as a
standalone line or link text in any answer; hidden controls never reach the pruned tree, and password
fields are refused. Neither kind ever adds to body coverage.
"""

from __future__ import annotations

from dataclasses import dataclass

from lexbench.dataset.case import Anchors, LinkFloor, VisibleControl
from lexbench.scoring.links import PageBase
from lexbench.scoring.patterns import CasePattern
from lexbench.scoring.projection import CODE, iter_lines
from lexbench.scoring.view import AnswerView
from lexbench.text import label_normalise, normalise


@dataclass(frozen=True)
class AnchorResult:
    """One anchor's outcome: ``measured`` is the named-link count (floors) or 1/0 (controls)."""

    id: str
    kind: str
    passed: bool
    measured: int
    threshold: int
    how: str


def named_link_targets(view: AnswerView, base: PageBase) -> set[str]:
    """Absolute targets (the case's URLs, :class:`PageBase`) of every visible link with non-empty text in
    the answer (one pass)."""
    targets: set[str] = set()
    for block in view.projection.blocks:
        if block.kind == CODE:
            continue
        for link in block.links:
            if normalise(link.text) and link.href.strip():
                try:
                    targets.add(base.absolute(link.href))
                except ValueError:
                    continue
    return targets


def check_floor(floor: LinkFloor, targets: set[str]) -> AnchorResult:
    """A named-link floor against the answer's named link targets."""
    pattern = CasePattern(floor.href_pattern)
    found = sum(1 for target in targets if pattern.fullmatch(target))
    how = f"{found} named links" + (f" ({pattern.note()})" if pattern.timed_out else "")
    return AnchorResult(floor.id, "link_floor", found >= floor.minimum, found, floor.minimum, how)


_PASSWORD = "password"


def check_control(control: VisibleControl, view: AnswerView) -> AnchorResult:
    """A visible-control anchor: the reviewed selector/attribute in an HTML answer, or the same label
    as a standalone line or link text in any answer."""
    wanted = label_normalise(control.label)
    if view.tree is not None:
        for element in view.tree.root.cssselect(control.selector, translator="html"):
            if not view.tree.shown(element) or element.get("type", "").lower() == _PASSWORD:
                continue
            value = element.get(control.attribute)
            if value is not None and label_normalise(value) == wanted:
                return AnchorResult(control.id, "visible_control", True, 1, 1, f"{control.attribute} of {control.selector}")
    for block, line in iter_lines(view.projection.blocks):
        if block.kind == CODE:
            continue
        if label_normalise(line) == wanted or any(label_normalise(link.text) == wanted for link in block.links):
            return AnchorResult(control.id, "visible_control", True, 1, 1, "visible label in the text")
    return AnchorResult(control.id, "visible_control", False, 0, 1, "label not visible")


def check_anchors(anchors: Anchors, view: AnswerView, base: PageBase) -> list[AnchorResult]:
    """Every anchor of a case, floors first, in contract order; link targets resolved by ``base``."""
    results: list[AnchorResult] = []
    if anchors.link_floors:
        targets = named_link_targets(view, base)
        results.extend(check_floor(floor, targets) for floor in anchors.link_floors)
    results.extend(check_control(control, view) for control in anchors.visible_controls)
    return results
