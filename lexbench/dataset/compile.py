"""Compile authoring rules plus a hash-bound evidence home into a verified dataset (SPEC §4).

Pure apart from reading evidence files: nothing is downloaded, nothing is overwritten. The public
bindings generated from a compiled dataset live in :mod:`lexbench.dataset.bindings`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typing import Any

from pydantic import ValidationError

from lexbench.dataset.archive import read_archive
from lexbench.dataset.case import MIN_ENDING_FRAGMENTS, Case, CaseRule, Dataset, FileContract, ReferenceBinding, ReviewStatus, Rules
from lexbench.dataset.cohort import Cohort, check_inventory, load_cohort
from lexbench.errors import EvidenceError, RulesError
from lexbench.jsonfile import InvalidJson, decode_json, read_json, read_regular_file, validation_problem
from lexbench.text import fragments, normalise

OPENING_CHARS = 40
"""How many characters of the reference's start and end a binding pins."""


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def bind_reference(text: str, path: str) -> ReferenceBinding:
    """Build the binding of a reference body: sha256 of its UTF-8 bytes, length, opening and ending.

    ``text`` must be non-empty after stripping; raises :class:`RulesError` otherwise.
    """
    if not text.strip():
        raise RulesError(f"reference {path}: the reference body is empty")
    return ReferenceBinding(
        path=path,
        sha256=sha256_bytes(text.encode("utf-8")),
        chars=len(text),
        opening=text[:OPENING_CHARS],
        ending=text[-OPENING_CHARS:],
    )


class EvidenceMismatch(EvidenceError):
    """An evidence file's bytes do not hash to the sha256 its case binds.

    ``case_id``, ``path`` (the full path read), ``rel_path`` (as bound), ``actual`` and ``expected``
    (hex sha256) let callers say more, e.g. that the hash belongs to another case.
    """

    def __init__(self, message: str, *, case_id: str, path: Path, rel_path: str, actual: str, expected: str) -> None:
        super().__init__(message)
        self.case_id = case_id
        self.path = path
        self.rel_path = rel_path
        self.actual = actual
        self.expected = expected


def read_evidence(evidence_home: Path, rel_path: str, sha256: str, *, case_id: str) -> bytes:
    """Read one evidence file and check its sha256.

    Raises :class:`EvidenceError` naming the case and the file when it is missing, and
    :class:`EvidenceMismatch` when its bytes differ from the binding.
    """
    path = evidence_home / rel_path
    try:
        data = read_regular_file(path)
    except FileNotFoundError:
        raise EvidenceError(
            f"case {case_id}: evidence file {path} is missing; the rules bind it by sha256 {sha256[:12]}…, so "
            "restore it from the evidence home it was reviewed in"
        ) from None
    except OSError as exc:
        raise EvidenceError(f"case {case_id}: evidence file {path} cannot be read: {exc}") from None
    actual = sha256_bytes(data)
    if actual != sha256:
        raise EvidenceMismatch(
            f"case {case_id}: evidence file {path} has sha256 {actual}, but the rules bind {sha256}; "
            "the file was changed or belongs to another case",
            case_id=case_id, path=path, rel_path=rel_path, actual=actual, expected=sha256,
        )
    return data


def compile_case(rule: CaseRule, evidence_home: Path, *, reviewed: bool = False) -> Case:
    """Verify one rule against the evidence home and return the compiled :class:`Case`.

    Checks the capture's and the reference's sha256 (and a web archive's per-record digests), the reference's UTF-8 decoding, character count,
    opening, ending and region line ranges; a ``reviewed`` suite's ending must also yield at least
    :data:`~lexbench.dataset.case.MIN_ENDING_FRAGMENTS` fragments. Raises :class:`EvidenceError` or
    :class:`RulesError`.
    """
    capture = read_evidence(evidence_home, rule.capture.path, rule.capture.sha256, case_id=rule.id)
    page, served_as = capture, rule.capture.content_type
    if rule.capture.is_archive:
        archive = read_archive(capture, source=f"case {rule.id}: capture {evidence_home / rule.capture.path}")
        page, served_as = archive.page.body, archive.page.content_type
    if rule.file is not None:
        check_file_binding(rule.id, rule.file, page, served_as, where=str(evidence_home / rule.capture.path))
    reference_text = None
    if rule.body is not None:
        binding = rule.body.reference
        data = read_evidence(evidence_home, binding.path, binding.sha256, case_id=rule.id)
        try:
            reference_text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EvidenceError(f"case {rule.id}: reference {binding.path} is not valid UTF-8 ({exc})") from None
        if len(reference_text) != binding.chars:
            raise EvidenceError(
                f"case {rule.id}: reference {binding.path} has {len(reference_text)} characters, "
                f"the binding says {binding.chars}"
            )
        if not reference_text.startswith(binding.opening):
            raise EvidenceError(f"case {rule.id}: reference {binding.path} does not start with the bound opening")
        if not reference_text.endswith(binding.ending):
            raise EvidenceError(f"case {rule.id}: reference {binding.path} does not end with the bound ending")
        check_segmentation(rule, reference_text, reviewed=reviewed)
    try:
        return Case(**rule.model_dump(), reference_text=reference_text)
    except ValidationError as exc:
        raise RulesError(describe_validation_error(exc, case_id=rule.id)) from None


def check_file_binding(case_id: str, contract: FileContract, data: bytes, content_type: str, *, where: str) -> None:
    """Check a ``file`` case's contract against the document its capture serves as the page (SPEC §2): the
    ``sha256`` and ``size`` of its bytes and its media type (``content_type`` without parameters).
    Raises :class:`EvidenceError` naming the case, the field and both values."""
    actual = {"sha256": sha256_bytes(data), "size": len(data),
              "media_type": content_type.split(";", 1)[0].strip().lower()}
    for name, value in actual.items():
        if getattr(contract, name) != value:
            raise EvidenceError(f"case {case_id}: file.{name} is {getattr(contract, name)!r} but the page its capture "
                                f"serves ({where}) has {value!r}: rebind the file contract to the recorded document")


def check_segmentation(rule: CaseRule, reference_text: str, *, reviewed: bool = False) -> None:
    """Check what only the reference text can tell (SPEC §2): every region yields at least one
    6-character fragment, and the ending yields one (at least :data:`MIN_ENDING_FRAGMENTS` in a
    ``reviewed`` suite, where it is the reviewed ending passage) and occurs in the reference.

    Raises :class:`RulesError` naming the case and the region, or the case and the ending's
    fragment count.
    """
    assert rule.body is not None
    lines = reference_text.split("\n")
    if rule.body.regions[-1].last_line != len(lines):
        raise RulesError(
            f"case {rule.id}: regions cover lines 1..{rule.body.regions[-1].last_line} but the reference has "
            f"{len(lines)} lines"
        )
    for region in rule.body.regions:
        text = "\n".join(lines[region.first_line - 1 : region.last_line])
        if not fragments(text):
            raise RulesError(
                f"case {rule.id}: region {region.label!r} (lines {region.first_line}-{region.last_line}) yields no "
                "6-character fragment; merge it into its neighbour"
            )
    end = rule.body.reference_scope.end
    if not fragments(end):
        raise RulesError(f"case {rule.id}: reference_scope.end {end!r} is too short to yield a 6-character fragment")
    if normalise(end) not in normalise(reference_text):
        raise RulesError(f"case {rule.id}: reference_scope.end is not part of the reference body")
    if reviewed and len(fragments(end)) < MIN_ENDING_FRAGMENTS:
        raise RulesError(
            f"case {rule.id}: reference_scope.end yields {len(fragments(end))} fragments; a reviewed ending needs at "
            f"least {MIN_ENDING_FRAGMENTS} (SPEC §2), or a few characters that also occur earlier could meet it. "
            "Extend it backwards over whole lines of the article's own prose"
        )


def compile_dataset(rules: Rules, evidence_home: Path, cohort: Cohort) -> Dataset:
    """Compile the whole approved inventory, in order (SPEC §4).

    First requires ``rules`` to be exactly ``cohort``'s approved inventory for the same suite and
    revision (missing, reordered or unresolved rules raise :class:`RulesError` listing each one), then
    verifies every case against ``evidence_home`` with :func:`compile_case`. Any failing case stops
    compilation: no partial suite is ever returned. A hash bound in the wrong case is named as such.
    A ``reviewed`` suite's endings must each yield at least ten fragments; an imported one's need one.
    Reads evidence files only; never downloads.
    """
    check_inventory(rules, cohort)
    cases = []
    for rule in rules.cases:
        try:
            cases.append(compile_case(rule, evidence_home, reviewed=rules.suite.review_status is ReviewStatus.REVIEWED))
        except EvidenceMismatch as exc:
            raise EvidenceMismatch(
                str(exc) + _wrong_case_hint(exc, rules), case_id=exc.case_id, path=exc.path, rel_path=exc.rel_path,
                actual=exc.actual, expected=exc.expected,
            ) from None
    return Dataset(suite=rules.suite, cases=cases)


def evidence_bindings(rule: CaseRule) -> list[tuple[str, str]]:
    """``(relative path, sha256)`` of every evidence file a rule binds: its capture, then its reference."""
    files = [(rule.capture.path, rule.capture.sha256)]
    if rule.body is not None:
        files.append((rule.body.reference.path, rule.body.reference.sha256))
    return files


def _wrong_case_hint(exc: EvidenceMismatch, rules: Rules) -> str:
    for rule in rules.cases:
        if rule.id == exc.case_id:
            continue
        for rel_path, sha256 in evidence_bindings(rule):
            if sha256 == exc.expected:
                return (f". The bound sha256 is the one case {rule.id} binds for {rel_path}: the hash was copied into "
                        f"the wrong case; bind {exc.rel_path} by its own sha256")
            if sha256 == exc.actual:
                return (f". The file's own sha256 is bound by case {rule.id} (for {rel_path}): the two cases' hashes "
                        "are swapped")
    return ""


def compile_articles(
    rules_path: Path,
    cohort_path: Path,
    evidence_home: Path,
    output: Path,
    *,
    pinned_datasets: dict[str, str] | None = None,
) -> Dataset:
    """``lexbench compile-articles``: compile ``rules_path`` + ``cohort_path`` against ``evidence_home``
    into the new file ``output`` (SPEC §4). Never downloads; never publishes bindings.

    Refuses (:class:`RulesError`) before compiling when ``output`` already exists, lies inside the
    evidence home, or would go into a directory that holds a pinned input: a ``dataset.json`` whose
    sha256 is a key of ``pinned_datasets`` (sha256 → what pins it, e.g. ``"demo-v1"``). Keep the previous
    external input directory unchanged and write each revision to a new one. Returns the dataset.
    """
    output = Path(output)
    evidence_home = Path(evidence_home)
    refuse_output(output, evidence_home, pinned_datasets or {})
    if not evidence_home.is_dir():
        raise EvidenceError(f"--evidence-home {evidence_home}: no such directory")
    dataset = compile_dataset(load_rules(rules_path), evidence_home, load_cohort(cohort_path))
    write_new(output, dump_json(dataset.model_dump(mode="json")))
    return dataset


def refuse_output(output: Path, evidence_home: Path, pinned_datasets: dict[str, str]) -> None:
    """Raise :class:`RulesError` when ``output`` must not be written (see :func:`compile_articles`)."""
    if output.exists():
        raise RulesError(
            f"{output} already exists; refusing to overwrite a compiled output. Write the new dataset to a new "
            "external directory"
        )
    resolved = output.resolve()
    home = evidence_home.resolve()
    if resolved.is_relative_to(home):
        raise RulesError(
            f"{output} is inside the evidence home {evidence_home}, whose files are pinned inputs; write the dataset "
            "to a new external directory"
        )
    neighbour = resolved.parent / "dataset.json"
    if neighbour.is_file():
        try:
            neighbour_sha256 = sha256_bytes(read_regular_file(neighbour))
        except OSError:
            neighbour_sha256 = None  # not a dataset lexbench pinned (it could not be one unread)
        pinned_by = pinned_datasets.get(neighbour_sha256) if neighbour_sha256 else None
        if pinned_by is not None:
            raise RulesError(
                f"{resolved.parent} holds the pinned input dataset.json of {pinned_by}; keep the previous input "
                "directory unchanged and write the new dataset to a new external directory"
            )


def describe_validation_error(exc: ValidationError, *, case_id: str | None = None, source: str = "") -> str:
    """Turn a pydantic error into lines of ``<source> case <id>: <field path>: <problem>``."""
    lines = []
    for err in exc.errors():
        loc = list(err["loc"])
        where = case_id
        if where is None and len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
            where = f"#{loc[1] + 1}"
            loc = loc[2:]
        problem = validation_problem({**err, "loc": loc}, root="the case" if where else "the top level")
        prefix = f"{source}: " if source else ""
        lines.append(f"{prefix}case {where}: {problem}" if where else f"{prefix}{problem}")
    return "\n".join(lines)


def load_rules(path: Path) -> Rules:
    """Read and validate ``rules.json``; raises :class:`RulesError` naming case, field and problem."""
    try:
        raw = read_json(path)
    except FileNotFoundError:
        raise RulesError(f"{path}: no rules.json here") from None
    except OSError as exc:
        raise RulesError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except InvalidJson as exc:
        raise RulesError(f"{path}: not valid UTF-8 JSON: {exc}") from None
    try:
        rules = Rules.model_validate(raw)
    except ValidationError as exc:
        cases = raw.get("cases") if isinstance(raw, dict) else None
        ids = [c.get("id") if isinstance(c, dict) else None for c in cases] if isinstance(cases, list) else []
        raise RulesError(_with_case_ids(describe_validation_error(exc, source=str(path)), ids)) from None
    return rules


def _with_case_ids(message: str, ids: list[object]) -> str:
    # "case #3" is hard to find in a 100-case file: add the id where the row has one.
    for index, case_id in enumerate(ids):
        if isinstance(case_id, str):
            message = message.replace(f"case #{index + 1}:", f"case {case_id}:")
    return message


def dump_json(value: object) -> bytes:
    """The project's JSON byte format (SPEC §4): UTF-8, ``ensure_ascii=False``, indent 2, one newline."""
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def write_new(path: Path, data: bytes) -> None:
    """Write ``data`` to a path that must not exist yet; raises :class:`RulesError` if it does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "xb") as handle:
            handle.write(data)
    except FileExistsError:
        raise RulesError(f"{path} already exists; refusing to overwrite a compiled output") from None


def load_dataset(path: Path) -> Dataset:
    """Read and validate a ``dataset.json``; raises :class:`RulesError` naming case and field."""
    return read_dataset(path)[0]


def read_dataset(path: Path) -> tuple[Dataset, tuple[bytes, Any]]:
    """:func:`load_dataset`, also returning the file's bytes and their decoded JSON."""
    try:
        data = read_regular_file(path)
        raw = decode_json(data)
    except (OSError, InvalidJson) as exc:
        raise RulesError(f"{path}: cannot read the compiled dataset: {exc}") from None
    try:
        return Dataset.model_validate(raw), (data, raw)
    except ValidationError as exc:
        raise RulesError(describe_validation_error(exc, source=str(path))) from None
