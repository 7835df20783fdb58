"""The scorer's output: a :class:`Verdict` with one :class:`ComponentResult` per contract (SPEC §3)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Outcome(StrEnum):
    """The three verdict classes (SPEC §3.1). ``unresolvable`` is never merged into ``fail``."""

    PASS = "pass"
    FAIL = "fail"
    UNRESOLVABLE = "unresolvable"


class Component(StrEnum):
    """Component families; reports count failures per family."""

    CALL = "call"
    TITLE = "title"
    REGIONS = "regions"
    ENDING = "ending"
    STABLE_GROUPS = "stable_groups"
    PAGE_IDENTITY = "page_identity"
    COMMENTS = "comments"
    POSTS = "posts"
    ANCHORS = "anchors"
    FILE = "file"
    """A ``file`` case: the answered bytes' sha256 against the file contract (SPEC §2)."""
    RESOURCES = "resources"
    """A ``resources`` case: recall of the contract's owned URLs against its floor (SPEC §2)."""
    SCORER = "scorer"
    """Not a contract: scoring itself met its time or memory budget (lexbench.scoring.budget)."""


class ComponentResult(BaseModel):
    """One contract's result.

    ``passed`` is ``None`` when the component is not scored for this case (e.g. an imported case with
    no independent title). ``measured`` and ``threshold`` are in the component's own unit (coverage
    share 0–1, a count, or 1/0 for found/not found). ``evidence`` is one short human-readable line;
    ``details`` holds per-region or per-group values for reports.
    """

    model_config = ConfigDict(extra="forbid")

    name: Component
    passed: bool | None
    measured: float | None = None
    threshold: float | None = None
    evidence: str = ""
    details: list[dict[str, Any]] = Field(default_factory=list)


class Verdict(BaseModel):
    """The verdict on one case × provider item.

    ``explanation`` is one paragraph, used verbatim as the pytest failure or skip message.
    ``failure_class`` names why a non-pass happened (an error type, or ``content`` when the call
    succeeded but the contracts failed); ``None`` on pass.
    """

    model_config = ConfigDict(extra="forbid")

    outcome: Outcome
    components: list[ComponentResult] = Field(default_factory=list)
    explanation: str
    failure_class: str | None = None

    def component(self, name: Component) -> ComponentResult | None:
        """The result of one component family, or ``None`` when it was not evaluated."""
        return next((c for c in self.components if c.name == name), None)
