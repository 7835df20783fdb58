"""Compile authoring rules plus a hash-bound evidence home into a verified dataset (SPEC §4).

Pure apart from reading evidence files: nothing is downloaded, nothing is overwritten.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import ValidationError

from lexbench.dataset.case import Case, CaseRule, Dataset, ReferenceBinding, Rules
from lexbench.errors import EvidenceError, RulesError

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


def read_evidence(evidence_home: Path, rel_path: str, sha256: str, *, case_id: str) -> bytes:
    """Read one evidence file and check its sha256.

    Raises :class:`EvidenceError` naming the case and the file when it is missing or its bytes differ.
    """
    path = evidence_home / rel_path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise EvidenceError(f"case {case_id}: evidence file {path} is missing") from None
    except OSError as exc:
        raise EvidenceError(f"case {case_id}: evidence file {path} cannot be read: {exc}") from None
    actual = sha256_bytes(data)
    if actual != sha256:
        raise EvidenceError(
            f"case {case_id}: evidence file {path} has sha256 {actual}, but the rules bind {sha256}; "
            "the file was changed or belongs to another case"
        )
    return data


def compile_case(rule: CaseRule, evidence_home: Path) -> Case:
    """Verify one rule against the evidence home and return the compiled :class:`Case`.

    Checks the capture's and the reference's sha256, the reference's UTF-8 decoding, character count,
    opening, ending and region line ranges. Raises :class:`EvidenceError` or :class:`RulesError`.
    """
    read_evidence(evidence_home, rule.capture.path, rule.capture.sha256, case_id=rule.id)
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
        check_segmentation(rule, reference_text)
    try:
        return Case(**rule.model_dump(), reference_text=reference_text)
    except ValidationError as exc:
        raise RulesError(describe_validation_error(exc, case_id=rule.id)) from None


def check_segmentation(rule: CaseRule, reference_text: str) -> None:
    """Check what only the reference text can tell (SPEC §2): every region yields at least one
    6-character fragment, and the reviewed ending yields one and occurs in the reference.

    Raises :class:`RulesError` naming the case and the region.
    """
    from lexbench.scoring.normalise import fragments, normalise

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


def compile_dataset(rules: Rules, evidence_home: Path) -> Dataset:
    """Compile every rule, in order; any failing case stops compilation (no partial suite)."""
    cases = [compile_case(rule, evidence_home) for rule in rules.cases]
    return Dataset(suite=rules.suite, cases=cases)


def describe_validation_error(exc: ValidationError, *, case_id: str | None = None, source: str = "") -> str:
    """Turn a pydantic error into lines of ``<source> case <id>: <field path>: <problem>``."""
    lines = []
    for err in exc.errors():
        loc = list(err["loc"])
        where = case_id
        if where is None and len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
            where = f"#{loc[1] + 1}"
            loc = loc[2:]
        field = ".".join(str(part) for part in loc) or "(case)"
        prefix = f"{source}: " if source else ""
        lines.append(f"{prefix}case {where}: {field}: {err['msg']}" if where else f"{prefix}{field}: {err['msg']}")
    return "\n".join(lines)


def load_rules(path: Path) -> Rules:
    """Read and validate ``rules.json``; raises :class:`RulesError` naming case, field and problem."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RulesError(f"{path}: no rules.json here") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RulesError(f"{path}: not valid UTF-8 JSON: {exc}") from None
    try:
        rules = Rules.model_validate(raw)
    except ValidationError as exc:
        ids = [c.get("id") for c in raw.get("cases", [])] if isinstance(raw, dict) else []
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
