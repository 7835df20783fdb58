"""The scorer's gold set: tuples of case + synthetic answer + expected verdict, and its checker (SPEC §8).

A gold set is one directory::

    cases/gold/
      manifest.json                          id ranges, kinds, counts, expected classes
      001-complete-markdown-carrick.json     one tuple per file: NNN-{kind-slug}-{discriminator}.json
      ...

Each tuple names a case of a committed suite (``case.suite`` + ``case.id``), pins the sha256 of the
reference text its answer was derived from, and holds a synthetic provider answer (content, format,
statuses, error) with the verdict the scorer must give it. ``human_expert_verdict`` is advisory: it
is compared with ``expected_verdict`` (concordance) and never gates.

:func:`check_gold` returns one message per problem; :func:`load_gold` raises :class:`GoldSetError`
with all of them, so nothing is scored from a set that does not match its manifest.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from lexbench.answer import ContentFormat, ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.case import SHA256_PATTERN, Case
from lexbench.dataset.suite import CASES_ROOT, load_suite
from lexbench.errors import LexbenchError
from lexbench.jsonfile import InvalidJson, read_json, validation_problem
from lexbench.verdict import Outcome

GOLD_ROOT = CASES_ROOT / "gold"
"""The committed gold set (``cases/gold/``)."""
MANIFEST_NAME = "manifest.json"

_NUMBER_DIGITS = 3
_TUPLE_FILE = re.compile(r"^(?P<number>\d{3})-(?P<rest>[a-z0-9]+(?:-[a-z0-9]+)+)\.json$")
_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"


class GoldSetError(LexbenchError):
    """The gold set does not match its manifest or schema; the message lists every problem."""


@dataclass(frozen=True)
class GoldKind:
    """One kind of tuple: its slug (used in file names), the verdict class it must get, and what it is."""

    slug: str
    expected: Outcome
    description: str


_KIND_LIST = [
    # pass: the whole page, in each format, and close-but-complete answers
    GoldKind("complete-markdown", Outcome.PASS, "the whole page as Markdown: title heading, site text, full body"),
    GoldKind("complete-text", Outcome.PASS, "the whole page as plain text, the title on its own line"),
    GoldKind("complete-html", Outcome.PASS, "the whole page as HTML, with hidden and head-only text around it"),
    GoldKind("near-complete", Outcome.PASS, "the page with small losses or extra noise, every region still ≥ 80 %"),
    # fail: the content does not meet the contracts
    GoldKind("truncated", Outcome.FAIL, "the answer stops part-way through the body"),
    GoldKind("abridged", Outcome.FAIL, "sentences dropped throughout: some region below 80 % but above half"),
    GoldKind("navigation-only", Outcome.FAIL, "site chrome only: navigation, footer, no article"),
    GoldKind("wrong-article", Outcome.FAIL, "the same site's chrome around another article"),
    GoldKind("repeated-opening", Outcome.FAIL, "the opening repeated, the rest of the body missing"),
    GoldKind("missing-ending", Outcome.FAIL, "the body without (most of) its reviewed ending"),
    GoldKind("missing-title", Outcome.FAIL, "the full body but no standalone title"),
    # fail: the call failed, whatever the content looks like
    GoldKind("upstream-non-2xx", Outcome.FAIL, "good-looking content, but the target page answered non-2xx"),
    GoldKind("service-error-in-200", Outcome.FAIL, "HTTP 200 from the service wrapping a service or origin error"),
    GoldKind("malformed-response", Outcome.FAIL, "the service's answer does not have its documented shape"),
    GoldKind("service-5xx", Outcome.FAIL, "the service itself answered 5xx"),
    GoldKind("empty-answer", Outcome.FAIL, "the call reported success with no content"),
    GoldKind("timeout", Outcome.FAIL, "no complete answer within the deadline"),
    # unresolvable: the operator's setup stopped the call
    GoldKind("auth-failure", Outcome.UNRESOLVABLE, "credentials missing or rejected by the service"),
    GoldKind("quota-exhausted", Outcome.UNRESOLVABLE, "the account's quota or credit is used up"),
    GoldKind("rate-limited", Outcome.UNRESOLVABLE, "the service rate-limited the call (429)"),
    GoldKind("infrastructure-failure", Outcome.UNRESOLVABLE, "a harness component failed (replay server, preflight)"),
]
KINDS: dict[str, GoldKind] = {kind.slug: kind for kind in _KIND_LIST}
"""Every known tuple kind by slug. A manifest or tuple naming another kind is a problem."""

TupleId = Annotated[str, StringConstraints(pattern=rf"^\d{{{_NUMBER_DIGITS}}}-{_SLUG}$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CaseRef(_Model):
    """The case a tuple is scored against: a committed suite's name and a case id in it.

    ``reference_sha256`` is the sha256 of the case's reference text when the answer was derived; a
    different value now means the suite was revised and the tuple must be re-derived.
    """

    suite: Annotated[str, StringConstraints(min_length=1)]
    id: Annotated[str, StringConstraints(min_length=1)]
    reference_sha256: Annotated[str, StringConstraints(pattern=SHA256_PATTERN)] | None = None


class GoldAnswer(_Model):
    """The synthetic provider answer: the :class:`ProviderResult` fields the answer boundary and the
    scorer read (SPEC §3.1, §5). Statuses are HTTP status codes; ``None`` means unknown."""

    success: bool
    content: str = ""
    content_format: ContentFormat | None = None
    api_http_status: int | None = Field(default=None, ge=100, le=599)
    upstream_status: int | None = Field(default=None, ge=100, le=599)
    error_type: ErrorType | None = None
    error_message: str | None = None

    def to_result(self) -> ProviderResult:
        """The answer as the :class:`ProviderResult` a provider would have returned."""
        return ProviderResult(
            success=self.success,
            content=self.content,
            content_format=self.content_format,
            error_type=self.error_type,
            error_message=self.error_message,
            metadata=ResultMetadata(api_http_status=self.api_http_status, upstream_status=self.upstream_status),
        )


class ExpertVerdict(_Model):
    """An advisory verdict from a reviewer who read the answer; compared, never gating (SPEC §8)."""

    verdict: Outcome
    reviewer: Annotated[str, StringConstraints(min_length=1)]
    note: str = ""


class GoldTuple(_Model):
    """One gold tuple (SPEC §8). ``tuple_id`` equals the file's stem; ``kind`` is a :data:`KINDS` slug.

    ``fabrication_intent`` is true when the answer was written for the gold set rather than captured
    from a provider; ``derivation`` says how it was made from the case, ``rationale`` why the
    expected verdict is right.
    """

    tuple_id: TupleId
    kind: Annotated[str, StringConstraints(pattern=rf"^{_SLUG}$")]
    case: CaseRef
    answer: GoldAnswer
    expected_verdict: Outcome
    fabrication_intent: bool
    derivation: Annotated[str, StringConstraints(min_length=1)]
    rationale: Annotated[str, StringConstraints(min_length=1)]
    human_expert_verdict: ExpertVerdict | None = None

    @property
    def number(self) -> int:
        return int(self.tuple_id[:_NUMBER_DIGITS])


class ManifestRange(_Model):
    """Tuples ``first``..``last`` (inclusive) are ``count`` tuples of one kind and expected class."""

    first: int = Field(ge=1)
    last: int = Field(ge=1)
    kind: str
    count: int = Field(ge=1)
    expected_verdict: Outcome


class ManifestTotals(_Model):
    """Tuple counts: all of them, and per expected class."""

    tuples: int = Field(ge=0)
    pass_: int = Field(ge=0, alias="pass")
    fail: int = Field(ge=0)
    unresolvable: int = Field(ge=0)

    def by_class(self) -> dict[Outcome, int]:
        return {Outcome.PASS: self.pass_, Outcome.FAIL: self.fail, Outcome.UNRESOLVABLE: self.unresolvable}


class GoldManifest(_Model):
    """``manifest.json``: the gold set's id, its id ranges and counts (SPEC §8)."""

    schema_version: Literal[1]
    id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]*$")]
    description: str = ""
    ranges: list[ManifestRange] = Field(min_length=1)
    totals: ManifestTotals
    human_expert_verdicts: int = Field(ge=0)


@dataclass(frozen=True)
class GoldSet:
    """A checked gold set: its manifest, its tuples in id order, and the case each one names."""

    root: Path
    manifest: GoldManifest
    tuples: list[GoldTuple]
    cases: dict[str, Case] = field(repr=False)
    """Case per ``tuple_id``."""


def _schema_problems(exc: ValidationError, where: str) -> list[str]:
    out = []
    for err in exc.errors():
        out.append(f"{where}: {validation_problem(err)}")
    return out


def _read_json(path: Path) -> tuple[object | None, str | None]:
    try:
        return read_json(path), None
    except (OSError, InvalidJson) as exc:
        return None, f"{path.name}: not readable UTF-8 JSON: {exc}"


def _manifest_problems(manifest: GoldManifest) -> list[str]:
    problems = []
    expected_first = 1
    for index, rng in enumerate(manifest.ranges, start=1):
        where = f"{MANIFEST_NAME}: range {index} ({rng.first:03d}-{rng.last:03d} {rng.kind})"
        kind = KINDS.get(rng.kind)
        if kind is None:
            problems.append(f"{where}: unknown kind {rng.kind!r}; known kinds: {', '.join(KINDS)}")
        elif rng.expected_verdict is not kind.expected:
            problems.append(f"{where}: kind {rng.kind!r} is expected {kind.expected.value}, "
                            f"the range says {rng.expected_verdict.value}")
        if rng.last < rng.first:
            problems.append(f"{where}: last id {rng.last} is before first id {rng.first}")
        elif rng.count != rng.last - rng.first + 1:
            problems.append(f"{where}: count {rng.count} does not match the id range ({rng.last - rng.first + 1} ids)")
        if rng.first != expected_first:
            relation = "overlaps the previous range" if rng.first < expected_first else "leaves a gap after the previous range"
            problems.append(f"{where}: starts at {rng.first}, expected {expected_first} ({relation})")
        expected_first = max(expected_first, rng.last + 1)
    totals = manifest.totals
    in_ranges = sum(r.count for r in manifest.ranges)
    if totals.tuples != in_ranges:
        problems.append(f"{MANIFEST_NAME}: totals.tuples is {totals.tuples} but the ranges hold {in_ranges}")
    for outcome, declared in totals.by_class().items():
        counted = sum(r.count for r in manifest.ranges if r.expected_verdict is outcome)
        if declared != counted:
            problems.append(f"{MANIFEST_NAME}: totals.{outcome.value} is {declared} but the ranges hold {counted}")
    return problems


def _range_of(manifest: GoldManifest, number: int) -> ManifestRange | None:
    return next((r for r in manifest.ranges if r.first <= number <= r.last), None)


class _CaseLookup:
    """Loads each named suite once; remembers why a suite could not be loaded."""

    def __init__(self, cases_root: Path) -> None:
        self.cases_root = cases_root
        self.suites: dict[str, dict[str, Case] | str] = {}

    def find(self, ref: CaseRef) -> Case | str:
        if ref.suite not in self.suites:
            try:
                suite = load_suite(ref.suite, self.cases_root)
                self.suites[ref.suite] = {case.id: case for case in suite.cases}
            except LexbenchError as exc:
                self.suites[ref.suite] = f"suite {ref.suite!r} cannot be loaded: {str(exc).splitlines()[0]}"
        cases = self.suites[ref.suite]
        if isinstance(cases, str):
            return cases
        case = cases.get(ref.id)
        return case if case is not None else f"case {ref.id!r} is not in suite {ref.suite!r}"


def _tuple_problems(name: str, item: GoldTuple, manifest: GoldManifest | None, lookup: _CaseLookup) -> tuple[list[str], Case | None]:
    problems = []
    stem = name.removesuffix(".json")
    if item.tuple_id != stem:
        problems.append(f"{name}: tuple_id {item.tuple_id!r} differs from the file stem {stem!r}")
    kind = KINDS.get(item.kind)
    if kind is None:
        problems.append(f"{name}: unknown kind {item.kind!r}; known kinds: {', '.join(KINDS)}")
    elif item.expected_verdict is not kind.expected:
        problems.append(f"{name}: kind {item.kind!r} is expected {kind.expected.value}, "
                        f"the tuple says {item.expected_verdict.value}")
    if not stem.startswith(f"{stem[:_NUMBER_DIGITS]}-{item.kind}-"):
        problems.append(f"{name}: the file name's kind slug does not match kind {item.kind!r} "
                        f"(expected {stem[:_NUMBER_DIGITS]}-{item.kind}-<discriminator>.json)")
    if manifest is not None:
        rng = _range_of(manifest, int(stem[:_NUMBER_DIGITS]))
        if rng is None:
            problems.append(f"{name}: id {stem[:_NUMBER_DIGITS]} is outside every manifest range")
        elif rng.kind != item.kind and kind is not None:  # an unknown kind is reported once, above
            problems.append(f"{name}: id {stem[:_NUMBER_DIGITS]} is in the {rng.kind!r} range "
                            f"({rng.first:03d}-{rng.last:03d}) but the tuple's kind is {item.kind!r}")
    found = lookup.find(item.case)
    if isinstance(found, str):
        problems.append(f"{name}: {found}")
        return problems, None
    pinned = item.case.reference_sha256
    if pinned is not None and found.body is not None and found.body.reference.sha256 != pinned:
        problems.append(f"{name}: case {found.id!r} has a new reference text (sha256 {found.body.reference.sha256[:12]}…, "
                        f"the tuple was derived from {pinned[:12]}…): re-derive the answer from the revised case")
    return problems, found


def _collect(root: Path, cases_root: Path) -> tuple[list[str], GoldManifest | None, list[GoldTuple], dict[str, Case]]:
    if not root.is_dir():
        return [f"{root}: not a directory"], None, [], {}
    problems: list[str] = []
    manifest: GoldManifest | None = None
    raw, error = _read_json(root / MANIFEST_NAME) if (root / MANIFEST_NAME).is_file() else (None, f"{MANIFEST_NAME}: missing")
    if error:
        problems.append(error)
    else:
        try:
            manifest = GoldManifest.model_validate(raw)
        except ValidationError as exc:
            problems += _schema_problems(exc, MANIFEST_NAME)
        else:
            problems += _manifest_problems(manifest)

    lookup = _CaseLookup(cases_root)
    tuples: list[GoldTuple] = []
    cases: dict[str, Case] = {}
    numbers: dict[str, list[str]] = defaultdict(list)
    ids: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.iterdir()):
        name = path.name
        if name == MANIFEST_NAME or name.startswith("."):
            continue
        match = _TUPLE_FILE.match(name)
        if not path.is_file() or match is None:
            problems.append(f"{name}: not a tuple file name (NNN-{{kind-slug}}-{{discriminator}}.json: "
                            "zero-padded number, lowercase, hyphenated)")
            continue
        numbers[match["number"]].append(name)
        raw, error = _read_json(path)
        if error:
            problems.append(error)
            continue
        try:
            item = GoldTuple.model_validate(raw)
        except ValidationError as exc:
            problems += _schema_problems(exc, name)
            continue
        ids[item.tuple_id].append(name)
        found, case = _tuple_problems(name, item, manifest, lookup)
        problems += found
        tuples.append(item)
        if case is not None:
            cases[item.tuple_id] = case

    for number, names in sorted(numbers.items()):
        if len(names) > 1:
            problems.append(f"id {number} is used by {len(names)} files: {', '.join(names)}")
    for tuple_id, names in sorted(ids.items()):
        if len(names) > 1:
            problems.append(f"duplicate tuple_id {tuple_id!r} in {', '.join(names)}")
    if manifest is not None:
        problems += _count_problems(manifest, tuples, numbers, all_parsed=len(tuples) == sum(map(len, numbers.values())))
    return problems, manifest, sorted(tuples, key=lambda t: t.tuple_id), cases


def _count_problems(
    manifest: GoldManifest, tuples: list[GoldTuple], numbers: dict[str, list[str]], *, all_parsed: bool
) -> list[str]:
    problems = []
    for rng in manifest.ranges:
        present = [n for n in range(rng.first, rng.last + 1) if f"{n:03d}" in numbers]
        missing = [f"{n:03d}" for n in range(rng.first, rng.last + 1) if f"{n:03d}" not in numbers]
        if missing:
            shown = ", ".join(missing[:10]) + (" …" if len(missing) > 10 else "")
            problems.append(f"{MANIFEST_NAME}: range {rng.first:03d}-{rng.last:03d} ({rng.kind}) declares "
                            f"{rng.count} tuples, {len(present)} files present; missing ids {shown}")
    labelled = sum(1 for t in tuples if t.human_expert_verdict is not None)
    # An unreadable tuple is already reported; its missing label would only repeat that problem.
    if all_parsed and labelled != manifest.human_expert_verdicts:
        problems.append(f"{MANIFEST_NAME}: human_expert_verdicts is {manifest.human_expert_verdicts} but "
                        f"{labelled} tuples carry one")
    return problems


def check_gold(root: Path, cases_root: Path = CASES_ROOT) -> list[str]:
    """Validate a gold set directory against its manifest (SPEC §8). Pure reading; never raises.

    Returns one human-readable message per problem (empty when the set is sound): file names
    (``NNN-{kind-slug}-{discriminator}.json``), stems equal to ``tuple_id``, ids inside their manifest
    range and of its kind, contiguous non-overlapping ranges, counts per range and class, the tuple
    schema, duplicate ids and numbers, unknown kinds, each kind's expected class, the expert-verdict
    count, and that every named case exists with the reference text its answer was derived from.
    """
    return _collect(root, cases_root)[0]


def load_gold(root: Path, cases_root: Path = CASES_ROOT) -> GoldSet:
    """Load a gold set for scoring; raises :class:`GoldSetError` listing every problem that
    :func:`check_gold` finds (nothing is scored from a set that fails its own check)."""
    problems, manifest, tuples, cases = _collect(root, cases_root)
    if problems or manifest is None:
        listed = "\n".join(f"  {p}" for p in problems)
        raise GoldSetError(f"{root}: the gold set has {len(problems)} problem(s); run lexbench check-gold {root}\n{listed}")
    return GoldSet(root=root, manifest=manifest, tuples=tuples, cases=cases)
