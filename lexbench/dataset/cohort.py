"""``cohort.json``: who the candidates are, which of them form the approved inventory, and how the
suite got there (SPEC §4).

``rules.json`` says *how* each case is scored; ``cohort.json`` says *which* cases the suite is made of:

- ``candidates`` — every candidate ever numbered, in case-number order, under its original id.
  A candidate is ``approved`` (in the inventory), ``pending`` (under review, not compilable),
  ``removed`` or ``replaced`` (kept for provenance; numbers are never reused).
- ``gaps`` — case numbers that never held a candidate, each with its reason (e.g. a corpus page the
  importer skipped). Together with the candidates they account for every number up to the highest,
  so a gap is always deliberate, never a renumbering accident.
- ``decisions`` — authorised removals and replacements: the original entry, the review basis, the
  review date and the revision in which they took effect.
- ``history`` — one entry per revision: date, summary, inventory size and the provenance of the
  prior input (its ``source-inputs.json`` id and ``dataset.json`` hash).

The approved inventory is the ids of the ``approved`` candidates in list order; compilation requires
``rules.json`` to hold exactly those cases in that order (:func:`check_inventory`).
"""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, ValidationError, model_validator

from lexbench.dataset.case import CASE_ID_PATTERN, Model, NonEmpty, Rules, Sha256
from lexbench.errors import RulesError
from lexbench.jsonfile import InvalidJson, read_json, validation_problem

COHORT_NAME = "cohort.json"
CaseId = Annotated[str, StringConstraints(pattern=CASE_ID_PATTERN)]
_NUMBER = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*?-(\d{3})-[a-z]{2,3}-")


def case_number(case_id: str) -> int:
    """The ``NNN`` of ``<category>-<NNN>-<lang>-<slug>`` (SPEC §2) as an int; ``ValueError`` if absent."""
    match = _NUMBER.match(case_id)
    if match is None:
        raise ValueError(f"{case_id!r} is not a <category>-<NNN>-<lang>-<slug> case id")
    return int(match.group(1))


class CandidateStatus(StrEnum):
    """Where a candidate stands. Only ``approved`` candidates are compiled."""

    APPROVED = "approved"
    PENDING = "pending"
    REMOVED = "removed"
    REPLACED = "replaced"


class Candidate(Model):
    """A candidate's identity: its original id (never renumbered), name, URL and status.

    ``added_in`` is the revision that first listed it; ``source`` says where it came from (a corpus
    key, an editor's note), when known.
    """

    id: CaseId
    name: NonEmpty
    url: NonEmpty
    status: CandidateStatus
    added_in: int = Field(ge=1)
    source: NonEmpty | None = None

    @property
    def number(self) -> int:
        """The candidate's case number (``NNN`` of its id)."""
        return case_number(self.id)


class Gap(Model):
    """A case number that never held a candidate, with the reason; ``source`` names the original entry
    (e.g. the corpus key and file of a skipped page) when there was one."""

    number: int = Field(ge=1, le=999)
    reason: NonEmpty
    source: dict[str, str] | None = None


class Decision(Model):
    """An authorised removal or replacement (SPEC §4).

    ``original`` is the candidate's entry as it stood before the decision (its ``rules.json`` entry
    when it had one) and must name the same ``id``; ``basis`` is the review basis; ``reviewed`` the
    review date; ``revision`` the suite revision in which the decision took effect. A replacement
    names the candidate that takes the place of the original.
    """

    action: Literal["remove", "replace"]
    case: CaseId
    replacement: CaseId | None = None
    revision: int = Field(ge=1)
    reviewed: date
    basis: NonEmpty
    original: dict[str, Any] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Decision:
        if self.action == "replace" and self.replacement is None:
            raise ValueError(f"the replacement of {self.case} must name its replacement candidate")
        if self.action == "remove" and self.replacement is not None:
            raise ValueError(f"the removal of {self.case} names a replacement: use action 'replace'")
        if self.replacement == self.case:
            raise ValueError(f"{self.case} cannot replace itself")
        if self.original.get("id") != self.case:
            raise ValueError(f"original entry must be the entry of {self.case} (its 'id' is {self.original.get('id')!r})")
        return self


class PriorInput(Model):
    """Provenance of the input a revision replaces: the prior ``source-inputs.json`` id and the prior
    ``dataset.json`` sha256 (the prior external input directory itself stays unchanged)."""

    source_inputs_id: NonEmpty
    dataset_sha256: Sha256


class RevisionEntry(Model):
    """One revision of the suite: when, what changed, how many approved cases, and what it replaced."""

    revision: int = Field(ge=1)
    date: date
    summary: NonEmpty
    inventory: int = Field(ge=1)
    prior_input: PriorInput | None = None


class Cohort(Model):
    """``cohort.json`` (SPEC §4): candidate identities, gaps, decisions and revision history.

    Validation errors are :class:`pydantic.ValidationError`; :func:`load_cohort` turns them into
    :class:`~lexbench.errors.RulesError` messages naming the file and field.
    """

    schema_version: Literal[1]
    suite: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    revision: int = Field(ge=1)
    candidates: list[Candidate] = Field(min_length=1)
    gaps: list[Gap] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    history: list[RevisionEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Cohort:
        self._check_numbers()
        self._check_decisions()
        self._check_history()
        return self

    def _check_numbers(self) -> None:
        by_id: set[str] = set()
        previous: Candidate | None = None
        for candidate in self.candidates:
            if candidate.id in by_id:
                raise ValueError(f"duplicate candidate id {candidate.id!r}")
            by_id.add(candidate.id)
            if previous is not None and candidate.number == previous.number:
                raise ValueError(
                    f"candidates {previous.id} and {candidate.id} share number {candidate.number:03d}: "
                    "a new candidate takes a new number; original ids are never reused"
                )
            if previous is not None and candidate.number < previous.number:
                raise ValueError(
                    f"candidate {candidate.id} comes after {previous.id}: list candidates in case-number order"
                )
            if candidate.added_in > self.revision:
                raise ValueError(f"candidate {candidate.id} is added in revision {candidate.added_in}, after {self.revision}")
            previous = candidate
        numbers = {c.number for c in self.candidates}
        gaps: set[int] = set()
        for gap in self.gaps:
            if gap.number in numbers:
                raise ValueError(f"gap {gap.number:03d} is the number of a candidate; a gap is an unused number")
            if gap.number in gaps:
                raise ValueError(f"gap {gap.number:03d} is declared twice")
            gaps.add(gap.number)
        unexplained = [n for n in range(1, max(numbers) + 1) if n not in numbers and n not in gaps]
        if unexplained:
            listed = ", ".join(f"{n:03d}" for n in unexplained[:10])
            raise ValueError(
                f"case number(s) {listed} are neither a candidate nor a declared gap: keep removed candidates "
                "under their original ids, and declare each unused number in 'gaps' with its reason"
            )
        if not any(c.status is CandidateStatus.APPROVED for c in self.candidates):
            raise ValueError("no candidate is approved: the inventory would be empty")

    def _check_decisions(self) -> None:
        candidates = {c.id: c for c in self.candidates}
        decided: dict[str, Decision] = {}
        for decision in self.decisions:
            original = candidates.get(decision.case)
            if original is None:
                raise ValueError(f"decision on {decision.case}: no such candidate; keep it in 'candidates' under its original id")
            if decision.case in decided:
                raise ValueError(f"{decision.case} has two decisions; one authorised removal or replacement per candidate")
            decided[decision.case] = decision
            expected = CandidateStatus.REMOVED if decision.action == "remove" else CandidateStatus.REPLACED
            if original.status is not expected:
                raise ValueError(
                    f"decision to {decision.action} {decision.case}, but its status is {original.status.value!r}; "
                    f"set it to {expected.value!r}"
                )
            if decision.replacement is not None and decision.replacement not in candidates:
                raise ValueError(
                    f"{decision.case} is replaced by {decision.replacement}, which is not a candidate; add it to 'candidates'"
                )
            if decision.revision > self.revision:
                raise ValueError(f"decision on {decision.case} takes effect in revision {decision.revision}, after {self.revision}")
        for candidate in self.candidates:
            if candidate.status in (CandidateStatus.REMOVED, CandidateStatus.REPLACED) and candidate.id not in decided:
                raise ValueError(
                    f"candidate {candidate.id} is {candidate.status.value} without an authorised decision: record it in "
                    "'decisions' with its original entry and review basis"
                )

    def _check_history(self) -> None:
        revisions = [entry.revision for entry in self.history]
        expected = list(range(revisions[0], revisions[0] + len(revisions)))
        if revisions != expected or revisions[-1] != self.revision:
            raise ValueError(
                f"history revisions {revisions} must be consecutive and end at the cohort's revision {self.revision}"
            )
        for entry in self.history:
            if entry.revision > 1 and entry.prior_input is None:
                raise ValueError(
                    f"history revision {entry.revision} has no prior_input: record the source-inputs id and dataset "
                    "sha256 of the input it replaces"
                )
        approved = len(self.approved_inventory())
        if self.history[-1].inventory != approved:
            raise ValueError(
                f"history revision {self.revision} says inventory {self.history[-1].inventory}, but {approved} "
                "candidates are approved"
            )

    def approved_inventory(self) -> list[str]:
        """Ids of the approved candidates, in case-number order: the cases ``rules.json`` must hold."""
        return [c.id for c in self.candidates if c.status is CandidateStatus.APPROVED]

    def candidate(self, case_id: str) -> Candidate | None:
        """The candidate with this id, or ``None``."""
        return next((c for c in self.candidates if c.id == case_id), None)


def load_cohort(path: Path) -> Cohort:
    """Read and validate ``cohort.json``; raises :class:`RulesError` naming the file, field and problem."""
    try:
        raw = read_json(path)
    except FileNotFoundError:
        raise RulesError(
            f"{path}: no cohort.json here; every suite keeps its candidate identities and history in one "
            "(see README, 'Revising a suite')"
        ) from None
    except OSError as exc:
        raise RulesError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except InvalidJson as exc:
        raise RulesError(f"{path}: not valid UTF-8 JSON: {exc}") from None
    try:
        return Cohort.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            lines.append(f"{path}: {validation_problem(err)}")
        raise RulesError("\n".join(lines)) from None


def inventory_problems(case_ids: list[str], cohort: Cohort, *, source: str) -> list[str]:
    """What keeps ``case_ids`` (in order) from being exactly the cohort's approved inventory.

    ``source`` names where the ids come from (``rules.json``, ``dataset.json``) in the messages.
    Returns one line per problem: unresolved cases (no candidate, pending, removed, replaced),
    missing approved cases, and the first reordered position. Empty when they match.
    """
    inventory = cohort.approved_inventory()
    approved = set(inventory)
    problems = []
    for case_id in case_ids:
        if case_id in approved:
            continue
        candidate = cohort.candidate(case_id)
        if candidate is None:
            problems.append(
                f"{source}: case {case_id} is unresolved: cohort.json has no candidate with this id; add it as a "
                "candidate (a new number) and approve it, or delete the rule"
            )
        elif candidate.status is CandidateStatus.PENDING:
            problems.append(
                f"{source}: case {case_id} is unresolved: its candidate is still pending in cohort.json; approve, "
                "remove or replace it before compiling"
            )
        else:
            problems.append(
                f"{source}: case {case_id} is unresolved: cohort.json records it as {candidate.status.value}; delete "
                "its rule, or record a new decision"
            )
    present = set(case_ids)
    missing = [case_id for case_id in inventory if case_id not in present]
    if missing:
        problems.append(
            f"{source}: missing {len(missing)} approved case(s): {', '.join(missing)}; the whole approved inventory "
            "must be compiled (no partial suite), or record their removal in cohort.json"
        )
    if not problems:
        for position, (got, want) in enumerate(zip(case_ids, inventory), start=1):
            if got != want:
                problems.append(
                    f"{source}: case {got} is at position {position}, where the approved inventory has {want}: "
                    "keep the cohort's case-number order"
                )
                break
    return problems


def check_inventory(rules: Rules, cohort: Cohort, *, source: str = "rules.json") -> None:
    """Require ``rules`` to be exactly the cohort's approved inventory, for the same suite and revision.

    Also checks that each rule's URL is its candidate's URL (a different page is a replacement, not an
    edit). Raises :class:`RulesError` listing every problem.
    """
    problems = []
    if cohort.suite != rules.suite.id:
        problems.append(f"cohort.json is for suite {cohort.suite!r}, {source} for {rules.suite.id!r}")
    if cohort.revision != rules.suite.revision:
        problems.append(
            f"cohort.json is at revision {cohort.revision}, {source} at {rules.suite.revision}: update cohort.json "
            "and rules.json together"
        )
    problems += inventory_problems([rule.id for rule in rules.cases], cohort, source=source)
    for rule in rules.cases:
        candidate = cohort.candidate(rule.id)
        if candidate is not None and candidate.url != rule.url:
            problems.append(
                f"{source}: case {rule.id}: url {rule.url!r} is not its candidate's url {candidate.url!r}; a different "
                "page is a replacement: record it in cohort.json under a new id"
            )
    if problems:
        raise RulesError("\n".join(problems))


def initial_cohort(
    rules: Rules,
    *,
    on: date,
    summary: str,
    gaps: list[Gap] | None = None,
    sources: dict[str, str] | None = None,
) -> Cohort:
    """A cohort for a suite's first appearance: every rule an approved candidate added in the rules'
    revision, the given ``gaps``, no decisions, one history entry dated ``on``.

    ``sources`` maps case ids to where each candidate came from. Raises :class:`RulesError` when the
    result is not a valid cohort (e.g. an undeclared gap in the numbering).
    """
    candidates = [
        Candidate(id=rule.id, name=rule.name, url=rule.url, status=CandidateStatus.APPROVED,
                  added_in=rules.suite.revision, source=(sources or {}).get(rule.id))
        for rule in rules.cases
    ]
    entry = RevisionEntry(revision=rules.suite.revision, date=on, summary=summary, inventory=len(candidates))
    try:
        return Cohort(schema_version=1, suite=rules.suite.id, revision=rules.suite.revision,
                      candidates=candidates, gaps=gaps or [], history=[entry])
    except ValidationError as exc:
        raise RulesError("; ".join(err["msg"] for err in exc.errors())) from None
