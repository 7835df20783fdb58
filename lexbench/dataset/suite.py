"""Find and load a compiled suite, verifying its evidence before any provider is called (SPEC §2, §4).

A suite directory holds::

    rules.json      the authoring source
    dataset.json    the compiled, verified cases (committed for the demo suite; external otherwise)
    evidence/       the evidence home: captures/ and references/, bound by sha256

``--suite`` takes a name under ``cases/`` or a path to such a directory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lexbench.dataset.case import Case, Dataset
from lexbench.dataset.compile import compile_dataset, describe_validation_error, dump_json, load_rules, read_evidence
from lexbench.errors import RulesError

CASES_ROOT = Path(__file__).resolve().parents[2] / "cases"
"""The repository's ``cases/`` directory (committed suites)."""


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its dataset, where it lives, and each case's verified capture bytes."""

    dataset: Dataset
    root: Path
    evidence_home: Path
    captures: dict[str, bytes] = field(repr=False)

    @property
    def id(self) -> str:
        return self.dataset.suite.id

    @property
    def cases(self) -> list[Case]:
        return self.dataset.cases

    def dataset_sha256(self) -> str:
        """sha256 of the suite's ``dataset.json`` bytes."""
        from lexbench.dataset.compile import sha256_bytes

        return sha256_bytes((self.root / "dataset.json").read_bytes())


def resolve_suite_dir(name_or_path: str, cases_root: Path = CASES_ROOT) -> Path:
    """Map ``--suite`` to a directory: a committed suite name, or a path. Raises :class:`RulesError`."""
    candidate = Path(name_or_path).expanduser()
    if "/" not in name_or_path and (cases_root / name_or_path).is_dir():
        candidate = cases_root / name_or_path
    if not (candidate / "dataset.json").is_file():
        known = sorted(p.name for p in cases_root.iterdir() if (p / "dataset.json").is_file()) if cases_root.is_dir() else []
        raise RulesError(
            f"suite {name_or_path!r}: no dataset.json at {candidate}. Known suites: {', '.join(known) or 'none'}; "
            "or pass the path of an imported suite (lexbench import-corpus --output DIR)"
        )
    return candidate.resolve()


def load_dataset(path: Path) -> Dataset:
    """Read and validate a ``dataset.json``; raises :class:`RulesError` naming case and field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RulesError(f"{path}: cannot read the compiled dataset: {exc}") from None
    try:
        return Dataset.model_validate(raw)
    except ValidationError as exc:
        raise RulesError(describe_validation_error(exc, source=str(path))) from None


def load_suite(name_or_path: str, cases_root: Path = CASES_ROOT) -> Suite:
    """Load a suite and verify every capture against its sha256 binding.

    Raises :class:`RulesError` for a malformed dataset and :class:`~lexbench.errors.EvidenceError`
    for a missing or tampered capture — before any provider is called.
    """
    root = resolve_suite_dir(name_or_path, cases_root)
    dataset = load_dataset(root / "dataset.json")
    evidence_home = root / "evidence"
    captures = {
        case.id: read_evidence(evidence_home, case.capture.path, case.capture.sha256, case_id=case.id)
        for case in dataset.cases
    }
    return Suite(dataset=dataset, root=root, evidence_home=evidence_home, captures=captures)


def build_suite(root: Path, *, overwrite: bool = False) -> Path:
    """Compile ``root/rules.json`` against ``root/evidence`` into ``root/dataset.json``.

    Refuses to overwrite an existing ``dataset.json`` unless ``overwrite`` is set. Returns its path.
    """
    from lexbench.dataset.compile import write_new

    dataset = compile_dataset(load_rules(root / "rules.json"), root / "evidence")
    out = root / "dataset.json"
    data = dump_json(dataset.model_dump(mode="json"))
    if overwrite and out.exists():
        out.unlink()
    write_new(out, data)
    return out
