"""Find and load a compiled suite, verifying its bindings and evidence before any provider is called
(SPEC §2, §4).

A suite directory holds::

    rules.json            the authoring source
    cohort.json           candidate identities, gaps, decisions, revision history
    evidence/             the evidence home: captures/ and references/, bound by sha256
    dataset.json          the compiled, verified cases (committed for the demo suite; external otherwise)
    dataset-catalog.json  public bindings, generated from dataset.json (lexbench.dataset.bindings)
    tasks.json
    source-inputs.json

A *committed* suite is a directory directly under ``cases/``; it must have every binding and its entry
in ``cases/registry.json``. ``--suite`` takes a name under ``cases/`` or a path to such a directory.

An *external-evidence* suite (a reviewed suite over real pages, e.g. ``cases/articles``) commits
``rules.json``, ``cohort.json``, ``sources.json`` and the bindings, but not ``dataset.json`` nor its
evidence: those are in its input directory, ``.evidence/<suite>/`` at the repository root (git-ignored),
written by ``lexbench fetch-evidence`` (:mod:`lexbench.dataset.evidence`) and checked against the
committed bindings whenever the suite is loaded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.dataset.bindings import DATASET_NAME, REGISTRY_NAME, SOURCE_INPUTS_NAME, TASKS_NAME, Bindings, replace_file, write_bindings
from lexbench.dataset.case import Case, Dataset
from lexbench.dataset.checks import check_authoring, validate_suite
from lexbench.dataset.cohort import COHORT_NAME, inventory_problems, load_cohort
from lexbench.dataset.compile import (
    compile_dataset, dump_json, load_dataset, load_rules, read_dataset, read_evidence, sha256_bytes, write_new,
)
from lexbench.errors import BindingError, RulesError
from lexbench.jsonfile import read_json, read_regular_file
from lexbench.resources import data_root, shipped_dir

CASES_ROOT = shipped_dir("cases")
"""The committed suites: the checkout's ``cases/`` directory, or the copy installed with the package."""
SOURCES_NAME = "sources.json"


def is_external(root: Path) -> bool:
    """Whether the suite directory ``root`` keeps its dataset and evidence outside git: it binds its
    source files in ``sources.json`` and holds no ``dataset.json`` of its own."""
    return (root / SOURCES_NAME).is_file() and not (root / DATASET_NAME).is_file()


def input_dir(root: Path, cases_root: Path = CASES_ROOT) -> Path:
    """Where the suite's ``dataset.json`` and ``evidence/`` are: ``root`` itself, or for a committed
    external-evidence suite ``<repository root>/.evidence/<suite>`` (``cases_root``'s parent is the
    repository root). A suite directory elsewhere is its own input directory."""
    if is_external(root) and is_committed(root, cases_root):
        return (cases_root.parent if cases_root != CASES_ROOT else data_root()) / ".evidence" / root.name
    return root


def fetch_hint(root: Path) -> str:
    """The command that writes an external-evidence suite's input directory."""
    return f"lexbench fetch-evidence --suite {root.name}"


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its dataset, where it lives, each case's verified capture bytes, and the sha256 of
    the ``dataset.json`` bytes it was loaded from (what a run records and its workers check against)."""

    dataset: Dataset
    root: Path
    evidence_home: Path
    captures: dict[str, bytes] = field(repr=False)
    dataset_sha256: str
    """sha256 of the ``dataset.json`` bytes this suite was loaded (and validated) from."""

    @property
    def id(self) -> str:
        return self.dataset.suite.id

    @property
    def cases(self) -> list[Case]:
        return self.dataset.cases


def resolve_suite_dir(name_or_path: str, cases_root: Path = CASES_ROOT) -> Path:
    """Map ``--suite`` to a directory: a committed suite name, or a path. Raises :class:`RulesError`."""
    candidate = Path(name_or_path).expanduser()
    if "/" not in name_or_path and (cases_root / name_or_path).is_dir():
        candidate = cases_root / name_or_path
    if is_external(candidate):
        if not (input_dir(candidate, cases_root) / DATASET_NAME).is_file():
            raise RulesError(
                f"suite {name_or_path!r} keeps its dataset and evidence outside git and they are not on this machine "
                f"({input_dir(candidate, cases_root)} is absent): fetch them with {fetch_hint(candidate)}"
            )
        return candidate.resolve()
    if not (candidate / "dataset.json").is_file():
        known = sorted(p.name for p in cases_root.iterdir() if (p / "dataset.json").is_file() or is_external(p)) \
            if cases_root.is_dir() else []
        raise RulesError(
            f"suite {name_or_path!r}: no dataset.json at {candidate}. Known suites: {', '.join(known) or 'none'}; "
            "or pass the path of an imported suite (lexbench import-corpus --output DIR)"
        )
    return candidate.resolve()


def suite_root(name_or_path: str, cases_root: Path = CASES_ROOT) -> Path:
    """Map ``--suite`` to a suite directory that has a ``rules.json`` (it may not be compiled yet).

    Raises :class:`RulesError` naming the known suites when there is none."""
    candidate = Path(name_or_path).expanduser()
    if "/" not in name_or_path and (cases_root / name_or_path).is_dir():
        candidate = cases_root / name_or_path
    if not (candidate / "rules.json").is_file():
        known = sorted(p.name for p in cases_root.iterdir() if (p / "rules.json").is_file()) if cases_root.is_dir() else []
        raise RulesError(f"suite {name_or_path!r}: no rules.json at {candidate}. Known suites: {', '.join(known) or 'none'}")
    return candidate.resolve()


def read_suite_dataset(root: Path, cases_root: Path = CASES_ROOT) -> tuple[Dataset, tuple[bytes, Any]]:
    """The suite's compiled dataset (from its input directory, :func:`input_dir`), with the file's bytes and
    decoded JSON. Raises :class:`RulesError` when it is absent or invalid."""
    return read_dataset(input_dir(root, cases_root) / DATASET_NAME)


def is_committed(root: Path, cases_root: Path = CASES_ROOT) -> bool:
    """Whether the suite directory ``root`` is a committed suite: a direct child of ``cases_root``."""
    return root.resolve().parent == cases_root.resolve()


def registry_for(root: Path, cases_root: Path = CASES_ROOT) -> Path | None:
    """The registry that lists ``root``: ``cases_root/registry.json`` for a committed suite, else ``None``."""
    return cases_root.resolve() / REGISTRY_NAME if is_committed(root, cases_root) else None


def check_suite(root: Path, cases_root: Path = CASES_ROOT, dataset: Dataset | None = None,
                dataset_json: tuple[bytes, Any] | None = None) -> None:
    """Raise :class:`BindingError` listing every problem :func:`~lexbench.dataset.checks.validate_suite`
    finds in the suite directory ``root`` (committed suites must have all their bindings). ``dataset``
    and ``dataset_json`` (bytes and decoded JSON) are ``dataset.json`` when the caller already read it."""
    problems = validate_suite(root, registry=registry_for(root, cases_root), committed=is_committed(root, cases_root),
                              dataset=dataset, dataset_json=dataset_json)
    if problems:
        raise BindingError(
            f"suite {root}: its bindings do not agree ({len(problems)} problem(s)); run lexbench validate "
            f"--suite={root} for the list:\n  " + "\n  ".join(problems)
        )


def load_suite(name_or_path: str, cases_root: Path = CASES_ROOT, *, validated_sha256: str | None = None) -> Suite:
    """Load a suite through the authoring pipeline: validate ``dataset.json``, check its public
    bindings, rules and cohort (:func:`check_suite`; required for committed suites, checked when
    present otherwise), then verify every capture and reference body against its sha256 binding.

    ``validated_sha256`` is for an xdist worker: the sha256 of the ``dataset.json`` bytes its
    controller loaded and checked. When the bytes read here hash the same, the binding, rules and
    cohort checks are not repeated (a worker scores from ``dataset.json`` and the evidence only, and
    those bytes were checked); when they differ, the dataset changed during the run and
    :class:`BindingError` says so. The dataset model and every evidence file are validated either way.

    Raises :class:`RulesError` for a malformed dataset, :class:`BindingError` for bindings that do not
    agree, and :class:`~lexbench.errors.EvidenceError` for a missing or tampered capture or reference
    body — all before any provider is called.
    """
    root = resolve_suite_dir(name_or_path, cases_root)
    inputs = input_dir(root, cases_root)
    dataset, dataset_json = read_dataset(inputs / DATASET_NAME)
    sha256 = sha256_bytes(dataset_json[0])
    if validated_sha256 is None:
        check_suite(root, cases_root, dataset, dataset_json)  # the same bytes: read and decoded once
    elif sha256 != validated_sha256:
        raise BindingError(
            f"suite {root}: {DATASET_NAME} changed after the run started (it now hashes to {sha256}, the run "
            f"checked {validated_sha256}); one run cannot mix two datasets: start the run again"
        )
    evidence_home = inputs / "evidence"
    captures = {
        case.id: read_evidence(evidence_home, case.capture.path, case.capture.sha256, case_id=case.id)
        for case in dataset.cases
    }
    for case in dataset.cases:
        # The reference body is scored from dataset.json (bound by the same sha256); its evidence file
        # must still agree, or the suite's evidence home is not the one the cases were compiled from.
        if case.body is not None:
            read_evidence(evidence_home, case.body.reference.path, case.body.reference.sha256, case_id=case.id)
    return Suite(dataset=dataset, root=root, evidence_home=evidence_home, captures=captures, dataset_sha256=sha256)


def build_suite(root: Path, *, overwrite: bool = False, registry: Path | None = None) -> Path:
    """Compile ``root/rules.json`` + ``root/cohort.json`` against ``root/evidence`` into
    ``root/dataset.json``, then write its public bindings (and ``registry``'s entry, when given).

    Refuses to overwrite an existing ``dataset.json`` unless ``overwrite`` is set. Raises
    :class:`RulesError` / :class:`~lexbench.errors.EvidenceError` from compilation. Returns the
    ``dataset.json`` path.
    """
    dataset = compile_dataset(load_rules(root / "rules.json"), root / "evidence", load_cohort(root / COHORT_NAME))
    out = root / DATASET_NAME
    data = dump_json(dataset.model_dump(mode="json"))
    if overwrite and out.exists():
        out.unlink()
    write_new(out, data)
    write_bindings(root, registry=registry)
    return out


@dataclass(frozen=True)
class Published:
    """What :func:`publish_suite` did: the bindings, whether ``dataset.json`` was replaced, seconds taken."""

    bindings: Bindings
    adopted: bool
    seconds: float


def publish_suite(root: Path, *, dataset: Path | None = None, registry: Path | None = None) -> Published:
    """``lexbench publish``: (re)generate the public bindings of the suite directory ``root`` (SPEC §4).

    With ``dataset`` (a file written by ``compile-articles``), that dataset first becomes the suite's
    ``dataset.json``: it must be for the same suite, match ``rules.json`` and ``cohort.json`` (same
    revision, exactly the approved inventory), and be a new revision — a changed dataset under an
    already published revision is refused (frozen inputs never change). Then the catalog, tasks,
    source inputs and ``registry``'s entry are written in that order. Raises :class:`RulesError`.

    An external-evidence suite (:func:`is_external`) never adopts a ``dataset.json``: its bindings are
    generated from ``dataset`` or, by default, from its fetched input directory (:func:`input_dir`), after
    the same checks; a different dataset under an already published revision is refused.
    """
    started = time.perf_counter()
    if is_external(root):
        return _publish_external(root, dataset, registry, started)
    current_path = root / DATASET_NAME
    adopted = False
    if dataset is not None:
        new_bytes = _read_dataset_bytes(Path(dataset), f"--dataset {dataset}")
        new = load_dataset(Path(dataset))
        _check_adoptable(root, new, new_bytes, current_path)
        problems = _authoring_problems(root, new)
        if problems:
            raise RulesError("\n".join(problems))
        if not current_path.is_file() or current_path.read_bytes() != new_bytes:
            replace_file(current_path, new_bytes)
            adopted = True
    elif not current_path.is_file():
        raise RulesError(f"{current_path}: no dataset.json to publish; pass --dataset FILE from compile-articles")
    else:
        problems = _authoring_problems(root, load_dataset(current_path))
        if problems:
            raise RulesError("\n".join(problems))
    bindings = write_bindings(root, registry=registry)
    return Published(bindings=bindings, adopted=adopted, seconds=time.perf_counter() - started)


def _read_dataset_bytes(path: Path, name: str) -> bytes:
    """A dataset file's bytes through the bounded, kind-checked reader; :class:`RulesError` naming ``name``."""
    try:
        return read_regular_file(path)
    except FileNotFoundError:
        raise RulesError(f"{name}: no such file (compile it with lexbench compile-articles)") from None
    except OSError as exc:
        raise RulesError(f"{name}: {exc.strerror or exc}") from None


def _publish_external(root: Path, dataset: Path | None, registry: Path | None, started: float) -> Published:
    # An external-evidence suite publishes bindings of its fetched dataset; dataset.json stays outside git.
    path = Path(dataset) if dataset is not None else input_dir(root, root.parent) / DATASET_NAME
    if not path.exists():
        raise RulesError(f"{path}: no compiled dataset to publish; run {fetch_hint(root)} first (or pass --dataset FILE)")
    data = _read_dataset_bytes(path, str(path))
    new = load_dataset(path)
    rules = load_rules(root / "rules.json")
    if new.suite.id != rules.suite.id:
        raise RulesError(f"the dataset is for suite {new.suite.id!r}, but {root} holds suite {rules.suite.id!r}")
    problems = _authoring_problems(root, new)
    if problems:
        raise RulesError("\n".join(problems))
    if (root / SOURCE_INPUTS_NAME).is_file() and (root / TASKS_NAME).is_file():
        pinned = read_json(root / SOURCE_INPUTS_NAME)["files"][DATASET_NAME]
        published = read_json(root / TASKS_NAME)["suite"]["revision"]
        if pinned != sha256_bytes(data) and new.suite.revision <= published:
            raise RulesError(
                f"revision {published} of {new.suite.id} is already published with another dataset (sha256 {pinned}), "
                f"and this one is revision {new.suite.revision}: frozen inputs never change; bump the revision in "
                "rules.json and cohort.json (with a history entry), fetch the evidence again and publish"
            )
    bindings = write_bindings(root, registry=registry, dataset_bytes=data)
    return Published(bindings=bindings, adopted=False, seconds=time.perf_counter() - started)


def _authoring_problems(root: Path, dataset: Dataset) -> list[str]:
    problems = []
    if not (root / COHORT_NAME).is_file():
        problems.append(f"{root / COHORT_NAME}: missing; a published suite needs its cohort")
    return problems + check_authoring(root, dataset)


def _check_adoptable(root: Path, new: Dataset, new_bytes: bytes, current_path: Path) -> None:
    rules = load_rules(root / "rules.json")
    if new.suite.id != rules.suite.id:
        raise RulesError(f"the dataset is for suite {new.suite.id!r}, but {root} holds suite {rules.suite.id!r}")
    cohort = load_cohort(root / COHORT_NAME)
    problems = inventory_problems([case.id for case in new.cases], cohort, source="the new dataset")
    if problems:
        raise RulesError("\n".join(problems))
    if not current_path.is_file():
        return
    current = read_json(current_path)["suite"]
    if current_path.read_bytes() == new_bytes:
        return
    if new.suite.revision <= current["revision"]:
        raise RulesError(
            f"revision {current['revision']} of {new.suite.id} is already published with other bytes, and the new "
            f"dataset is revision {new.suite.revision}: frozen inputs never change; bump the revision in rules.json "
            "and cohort.json (with a history entry) and compile again"
        )
