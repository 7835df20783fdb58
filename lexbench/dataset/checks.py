"""The checks that keep a suite's public bindings honest (SPEC §4).

:func:`validate_suite` checks committed bindings (:mod:`lexbench.dataset.bindings`) against each other
and against ``dataset.json`` (and, when present, ``rules.json`` and ``cohort.json``);
:func:`verify_inputs` checks an external input directory (``dataset.json`` plus evidence) against them.
Both return problem lines that name the file and the case; an empty list means everything agrees.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexbench.dataset.bindings import (
    BINDING_FILES, CATALOG_CASE_FIELDS, CATALOG_NAME, DATASET_NAME, REGISTRY_FILES, SOURCE_INPUTS_NAME, TASKS_NAME,
    build_catalog, build_source_inputs, build_tasks, dataset_id, definition_sha256, generate_bindings,
)
from lexbench.dataset.case import Dataset
from lexbench.dataset.cohort import COHORT_NAME, Cohort, inventory_problems, load_cohort
from lexbench.dataset.compile import dump_json, evidence_bindings, load_dataset, load_rules, sha256_bytes
from lexbench.errors import RulesError
from lexbench.jsonfile import InvalidJson, decode_json, read_json, read_regular_file

def _read_json(path: Path, problems: list[str], label: str) -> tuple[bytes, Any] | None:
    try:
        data = read_regular_file(path)
    except FileNotFoundError:
        problems.append(f"{label}: missing")
        return None
    except OSError as exc:
        problems.append(f"{label}: cannot be read ({exc.strerror or exc})")
        return None
    try:
        return data, decode_json(data)
    except InvalidJson as exc:
        problems.append(f"{label}: not UTF-8 JSON ({exc})")
        return None


def _field_problems(label: str, committed: Any, expected: Mapping[str, Any], fields: list[str] | None = None) -> list[str]:
    if not isinstance(committed, dict):
        return [f"{label}: not a JSON object"]
    names = fields if fields is not None else list(dict.fromkeys([*expected, *committed]))
    problems = []
    for name in names:
        if name not in committed:
            problems.append(f"{label}: {name} is missing")
        elif name not in expected:
            problems.append(f"{label}: unexpected field {name}")
        elif committed[name] != expected[name]:
            problems.append(f"{label}: {name} is {_short(committed[name])}, expected {_short(expected[name])}")
    return problems


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "…"


def _case_list_problems(label: str, got: list[Any], want: list[str], against: str) -> list[str]:
    if got == want:
        return []
    if not all(isinstance(case_id, str) for case_id in got):
        return [f"{label}: a case's id is missing or not text ({', '.join(_short(c) for c in got if not isinstance(c, str))})"]
    missing = [c for c in want if c not in got]
    extra = [c for c in got if c not in want]
    problems = []
    if missing:
        problems.append(f"{label}: lacks case(s) {', '.join(missing)} of {against}")
    if extra:
        problems.append(f"{label}: has case(s) {', '.join(extra)} that {against} does not")
    if not missing and not extra:
        position = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
        if position is not None:
            problems.append(
                f"{label}: case {got[position]} is at position {position + 1}, where {against} has {want[position]} "
                "(cases reordered)"
            )
        else:  # same cases in the same order, but one of the lists repeats some
            repeated = sorted({c for c in got if got.count(c) > 1} | {c for c in want if want.count(c) > 1})
            problems.append(f"{label}: case(s) {', '.join(repeated)} listed more than once")
    return problems


def _hash_problem(label: str, case_id: str, field: str, got: Any, want: Any, owners: Mapping[str, str]) -> str | None:
    if got == want:
        return None
    owner = owners.get(got) if isinstance(got, str) else None
    if owner is not None and owner != case_id:
        return f"{label}: case {case_id}: {field} is case {owner}'s hash (a hash in the wrong case); expected {want}"
    return f"{label}: case {case_id}: {field} is {got}, but dataset.json gives {want}"


def check_catalog(committed: Any, expected: dict[str, Any], label: str = CATALOG_NAME) -> list[str]:
    """Compare a parsed catalog with the one generated from ``dataset.json``; one line per problem."""
    if not isinstance(committed, dict):
        return [f"{label}: not a JSON object"]
    problems = []
    top = [name for name in expected if name != "cases"]
    if committed.get("dataset_sha256") != expected["dataset_sha256"]:
        problems.append(
            f"{label}: dataset_sha256 {committed.get('dataset_sha256')} does not match dataset.json "
            f"({expected['dataset_sha256']}): dataset.json changed after its bindings were published; restore it, "
            "or compile a new revision and publish it"
        )
        top.remove("dataset_sha256")
    problems += _field_problems(label, {k: v for k, v in committed.items() if k != "cases"},
                                {k: v for k, v in expected.items() if k != "cases"}, top)
    cases = committed.get("cases")
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        return [*problems, f"{label}: cases is not a list of objects"]
    want = {c["id"]: c for c in expected["cases"]}
    problems += _case_list_problems(label, [c.get("id") for c in cases], list(want), "dataset.json")
    owners = {c[field]: c["id"] for c in expected["cases"] for field in ("definition_sha256", "reference_sha256")
              if c[field]}
    for case in cases:
        reference = want.get(case["id"]) if isinstance(case.get("id"), str) else None
        if reference is None:
            continue
        case_label = f"{label}: case {case['id']}"
        problems += _field_problems(case_label, case, reference, [*CATALOG_CASE_FIELDS])
        for field in ("definition_sha256", "reference_sha256"):
            problem = _hash_problem(label, case["id"], field, case.get(field), reference[field], owners)
            if problem:
                problems.append(problem)
        extra = set(case) - set(reference)
        if extra:
            problems.append(f"{case_label}: unexpected field(s) {', '.join(sorted(extra))}")
    return problems


def check_tasks(committed: Any, expected: dict[str, Any], label: str = TASKS_NAME) -> list[str]:
    """Compare a parsed ``tasks.json`` with the public projection of ``dataset.json``."""
    if not isinstance(committed, dict):
        return [f"{label}: not a JSON object"]
    problems = _field_problems(label, {k: v for k, v in committed.items() if k != "cases"},
                               {k: v for k, v in expected.items() if k != "cases"})
    cases = committed.get("cases")
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        return [*problems, f"{label}: cases is not a list of objects"]
    want = {c["id"]: c for c in expected["cases"]}
    problems += _case_list_problems(label, [c.get("id") for c in cases], list(want), "dataset.json")
    for case in cases:
        if "reference_text" in case:
            problems.append(f"{label}: case {case.get('id')}: carries reference_text; the public projection must not")
        reference = want.get(case["id"]) if isinstance(case.get("id"), str) else None
        if reference is not None and case != reference:
            fields = [k for k in dict.fromkeys([*reference, *case]) if case.get(k) != reference.get(k)]
            problems.append(
                f"{label}: case {case['id']}: {', '.join(fields)} differ(s) from the public projection of dataset.json"
            )
    return problems


def check_suite_files(root: Path, *, registry: Path | None, registry_required: bool,
                      dataset_json: tuple[bytes, Any] | None = None) -> list[str]:
    """Check the binding files of ``root`` against each other and ``root/dataset.json``.

    ``registry`` is the registry that should hold this suite's entry (``None``: not checked);
    ``registry_required`` makes a missing registry or entry a problem; ``dataset_json`` is
    ``dataset.json``'s bytes and their decoded JSON when the caller already read them (a 1,000-case
    dataset is ~5 MB: decoding it once per check, not three times). Returns problem lines.
    """
    problems: list[str] = []
    if dataset_json is None:
        try:
            dataset_bytes = (root / DATASET_NAME).read_bytes()
            dataset_json = (dataset_bytes, decode_json(dataset_bytes))
        except (OSError, InvalidJson) as exc:
            return [f"{DATASET_NAME}: cannot be read as UTF-8 JSON ({exc})"]
    dataset_bytes, dataset = dataset_json
    expected = generate_bindings(dataset_bytes, directory=root.name, decoded=dataset)
    committed: dict[str, bytes] = {}

    found = _read_json(root / CATALOG_NAME, problems, CATALOG_NAME)
    if found:
        committed[CATALOG_NAME] = found[0]
        problems += check_catalog(found[1], json.loads(expected.catalog))
    found = _read_json(root / TASKS_NAME, problems, TASKS_NAME)
    if found:
        committed[TASKS_NAME] = found[0]
        problems += check_tasks(found[1], json.loads(expected.tasks))
    found = _read_json(root / SOURCE_INPUTS_NAME, problems, SOURCE_INPUTS_NAME)
    if found:
        committed[SOURCE_INPUTS_NAME] = found[0]
        want = json.loads(expected.source_inputs)
        if CATALOG_NAME in committed:
            # The catalog hash is over the committed catalog's final bytes.
            want["catalog_sha256"] = sha256_bytes(committed[CATALOG_NAME])
        problems += [
            p + (" (the catalog was edited after source-inputs.json was written)" if "catalog_sha256" in p else "")
            for p in _field_problems(SOURCE_INPUTS_NAME, found[1], want)
        ]
    for name, data in committed.items():
        if data != expected.files()[name] and not any(p.startswith(name) for p in problems):
            problems.append(
                f"{name}: same content, different bytes: not in the generated format (UTF-8, ensure_ascii=False, "
                "indent 2, one trailing newline); regenerate it with lexbench publish"
            )

    if registry is not None:
        problems += _registry_problems(root, registry, dataset, committed, registry_required)
    return problems


def _registry_problems(root: Path, registry: Path, dataset: Mapping[str, Any], committed: Mapping[str, bytes],
                       required: bool) -> list[str]:
    label = f"{registry.name} entry {root.name!r}"
    try:
        value = read_json(registry)
        entry = value["suites"].get(root.name)
    except FileNotFoundError:
        return [f"{registry}: missing; publish the suite to create its entry"] if required else []
    except (OSError, InvalidJson, KeyError, TypeError, AttributeError) as exc:
        return [f"{registry}: not a suite registry ({exc!r})"]
    if entry is None:
        return [f"{label}: missing; publish the suite to add it"] if required else []
    if not isinstance(entry, dict):
        return [f"{label}: not a JSON object"]
    expected = {
        "dataset_id": dataset_id(dataset["suite"]),
        "case_count": len(dataset["cases"]),
        "files": {name: sha256_bytes(committed[name]) if name in committed else None for name in REGISTRY_FILES},
        "directory": root.name,
    }
    problems = _field_problems(label, {k: v for k, v in entry.items() if k != "files"},
                               {k: v for k, v in expected.items() if k != "files"})
    files = entry.get("files")
    if not isinstance(files, dict):
        return [*problems, f"{label}: files is not an object"]
    for name in REGISTRY_FILES:
        if name not in committed:
            continue
        if files.get(name) != expected["files"][name]:
            problems.append(
                f"{label}: files[{name!r}] is {files.get(name)}, but {root.name}/{name} hashes to "
                f"{expected['files'][name]}"
            )
    extra = set(files) - set(REGISTRY_FILES)
    if extra:
        problems.append(f"{label}: unexpected file(s) {', '.join(sorted(extra))}")
    return problems


def check_authoring(root: Path, dataset: Dataset | None = None) -> list[str]:
    """Check ``dataset.json`` against the suite's authoring sources, when present: each compiled case
    must be its ``rules.json`` rule plus reference text (no edit since compilation), and the cases must
    be ``cohort.json``'s approved inventory for the same suite and revision. ``dataset`` is the parsed
    ``dataset.json`` when the caller already has it."""

    problems: list[str] = []
    if dataset is None:
        try:
            dataset = load_dataset(root / DATASET_NAME)
        except RulesError as exc:
            return [str(exc)]
    if (root / "rules.json").is_file():
        try:
            rules = load_rules(root / "rules.json")
        except RulesError as exc:
            problems.append(str(exc))
        else:
            if rules.suite != dataset.suite:
                problems.append("rules.json: suite differs from dataset.json's; recompile and publish")
            rules_by_id = {rule.id: rule for rule in rules.cases}
            for case in dataset.cases:
                rule = rules_by_id.get(case.id)
                compiled = case.model_dump(exclude={"reference_text"})
                if rule is None:
                    problems.append(f"rules.json: case {case.id} of dataset.json has no rule")
                elif rule.model_dump() != compiled:
                    fields = [k for k in compiled if compiled[k] != rule.model_dump().get(k)]
                    problems.append(
                        f"rules.json: case {case.id}: {', '.join(fields)} changed after compilation; compile a new "
                        "revision (lexbench compile-articles) and publish it"
                    )
            problems += _case_list_problems("rules.json", [r.id for r in rules.cases], [c.id for c in dataset.cases],
                                            "dataset.json")
    cohort = _cohort_or_problem(root, problems)
    if cohort is not None:
        if (cohort.suite, cohort.revision) != (dataset.suite.id, dataset.suite.revision):
            problems.append(
                f"cohort.json is for {cohort.suite} revision {cohort.revision}, dataset.json for "
                f"{dataset.suite.id} revision {dataset.suite.revision}"
            )
        problems += inventory_problems([c.id for c in dataset.cases], cohort, source=DATASET_NAME)
    return problems


def validate_suite(root: Path, *, registry: Path | None, committed: bool, dataset: Dataset | None = None,
                   dataset_json: tuple[bytes, Any] | None = None) -> list[str]:
    """Everything ``lexbench validate`` checks for the suite directory ``root`` (SPEC §4).

    A ``committed`` suite (one under ``cases/``) must have ``cohort.json``, every binding file and its
    ``registry`` entry; other suites are checked for what they have (bindings all or none). ``dataset``
    is the parsed ``dataset.json`` and ``dataset_json`` its bytes and decoded JSON, when the caller
    already has them. Returns problem lines naming the file and the case; empty when everything agrees.
    """

    present = [name for name in BINDING_FILES if (root / name).is_file()]
    problems: list[str] = []
    if committed and not (root / COHORT_NAME).is_file():
        problems.append(f"{COHORT_NAME}: missing; a committed suite keeps its candidates and history in one")
    if committed or present:
        problems += check_suite_files(root, registry=registry, registry_required=committed, dataset_json=dataset_json)
    problems += check_authoring(root, dataset)
    return problems


def validate_without_dataset(root: Path, *, registry: Path | None, committed: bool) -> list[str]:
    """What can be checked of a suite whose ``dataset.json`` is external and not on this machine (SPEC §4):
    ``tasks.json`` must be exactly the public projection of ``rules.json`` (it carries no reference text);
    the catalog's cases, fields and ``reference_sha256`` must agree with the rules' bindings;
    ``source-inputs.json`` must be the one generated from the catalog's final bytes and its
    ``dataset_sha256``; the registry entry must hash the committed files; ``rules.json`` must be the
    cohort's approved inventory. Each case's ``definition_sha256`` and the dataset hash itself need the
    compiled dataset (:func:`verify_inputs`). Returns problem lines; empty when everything agrees."""

    problems: list[str] = []
    try:
        rules = load_rules(root / "rules.json")
    except RulesError as exc:
        return [str(exc)]
    cases = [{**rule.model_dump(mode="json"), "reference_text": None} for rule in rules.cases]
    projected = {"suite": rules.suite.model_dump(mode="json"), "cases": cases}
    committed_files: dict[str, bytes] = {}
    for name in BINDING_FILES:
        found = _read_json(root / name, problems, name)
        if found:
            committed_files[name] = found[0]
    if TASKS_NAME in committed_files:
        problems += check_tasks(decode_json(committed_files[TASKS_NAME]), json.loads(dump_json(build_tasks(projected))))
    if CATALOG_NAME in committed_files:
        catalog = decode_json(committed_files[CATALOG_NAME])
        expected = build_catalog(projected, str(catalog.get("dataset_sha256")))
        for case, rule in zip(expected["cases"], rules.cases):
            case["reference_sha256"] = rule.body.reference.sha256 if rule.body is not None else None
        by_id = {c.get("id"): c for c in catalog.get("cases", []) if isinstance(c, dict)}
        for case in expected["cases"]:  # definition hashes need the reference text: taken as committed
            if case["id"] in by_id:
                case["definition_sha256"] = by_id[case["id"]].get("definition_sha256")
        problems += check_catalog(catalog, expected)
        if SOURCE_INPUTS_NAME in committed_files:
            want = build_source_inputs(projected, str(catalog.get("dataset_sha256")), committed_files[CATALOG_NAME])
            problems += _field_problems(SOURCE_INPUTS_NAME, decode_json(committed_files[SOURCE_INPUTS_NAME]), want)
    if registry is not None and len(committed_files) == len(BINDING_FILES):
        problems += _registry_problems(root, registry, projected, committed_files, committed)
    if (root / COHORT_NAME).is_file():
        cohort = _cohort_or_problem(root, problems)
        if cohort is not None:
            problems += inventory_problems([rule.id for rule in rules.cases], cohort, source="rules.json")
    elif committed:
        problems.append(f"{COHORT_NAME}: missing; a committed suite keeps its candidates and history in one")
    return problems


def _cohort_or_problem(root: Path, problems: list[str]) -> Cohort | None:
    """The suite's ``cohort.json``, or ``None`` when it is absent or invalid (then its error is added to
    ``problems``)."""
    if not (root / COHORT_NAME).is_file():
        return None
    try:
        return load_cohort(root / COHORT_NAME)
    except RulesError as exc:
        problems.append(str(exc))
        return None


def verify_inputs(root: Path, source: Path, *, evidence_home: Path | None = None,
                  registry: Path | None = None, committed: bool = False) -> list[str]:
    """``lexbench verify-inputs``: check an external input directory against the suite's bindings.

    ``source`` holds ``dataset.json``; ``evidence_home`` (default ``source/evidence``) the captures and
    references. First the suite itself must validate (:func:`validate_suite`); then the source's
    ``dataset.json`` must hash to the pinned sha256 (otherwise each differing case is named), and every
    evidence file the pinned cases bind must be present with its pinned sha256. Problem lines name the
    file (relative to ``source`` when inside it) and the case. Reads files only.
    """

    external = not (root / DATASET_NAME).is_file()
    if external and not (root / SOURCE_INPUTS_NAME).is_file():
        return [f"{root / SOURCE_INPUTS_NAME}: missing; publish the suite's bindings first (lexbench publish)"]
    evidence_home = evidence_home if evidence_home is not None else source / "evidence"
    if external:
        # The suite commits no dataset.json: the source's must be the pinned one, and the bindings are
        # validated against it.
        return _verify_external_inputs(root, source, evidence_home, registry, committed)
    problems = validate_suite(root, registry=registry, committed=committed)
    if problems:
        return ["the suite's own bindings do not agree (run lexbench validate):", *problems]
    if not (root / SOURCE_INPUTS_NAME).is_file():
        return [f"{root / SOURCE_INPUTS_NAME}: missing; publish the suite's bindings first (lexbench publish)"]
    pinned_inputs = read_json(root / SOURCE_INPUTS_NAME)
    pinned_hash = pinned_inputs["files"][DATASET_NAME]

    def show(path: Path) -> str:
        try:
            return str(path.relative_to(source))
        except ValueError:
            return str(path)

    source_dataset = source / DATASET_NAME
    try:
        data = read_regular_file(source_dataset)
    except FileNotFoundError:
        problems.append(f"{show(source_dataset)}: missing (the input directory must hold the compiled dataset)")
    except OSError as exc:
        problems.append(f"{show(source_dataset)}: {exc.strerror or exc}")
    else:
        if sha256_bytes(data) != pinned_hash:
            problems.append(
                f"{show(source_dataset)}: sha256 {sha256_bytes(data)}, but {SOURCE_INPUTS_NAME} pins {pinned_hash}"
                f" ({pinned_inputs['id']})"
            )
            problems += _dataset_case_problems(data, root, show(source_dataset))
    try:
        pinned = load_dataset(root / DATASET_NAME)
    except RulesError as exc:
        return [*problems, str(exc)]
    return problems + _evidence_problems(pinned, evidence_home, show)


def _verify_external_inputs(root: Path, source: Path, evidence_home: Path, registry: Path | None,
                            committed: bool) -> list[str]:

    pinned_inputs = read_json(root / SOURCE_INPUTS_NAME)
    pinned_hash = pinned_inputs["files"][DATASET_NAME]
    source_dataset = source / DATASET_NAME

    def show(path: Path) -> str:
        try:
            return str(path.relative_to(source))
        except ValueError:
            return str(path)

    try:
        data = read_regular_file(source_dataset)
    except FileNotFoundError:
        return [f"{show(source_dataset)}: missing (the input directory must hold the compiled dataset; "
                f"lexbench fetch-evidence --suite {root.name} writes one)"]
    except OSError as exc:
        return [f"{show(source_dataset)}: {exc.strerror or exc}"]
    if sha256_bytes(data) != pinned_hash:
        return [f"{show(source_dataset)}: sha256 {sha256_bytes(data)}, but {SOURCE_INPUTS_NAME} pins {pinned_hash} "
                f"({pinned_inputs['id']})", *_dataset_case_problems(data, root, show(source_dataset))]
    try:
        decoded = decode_json(data)
        dataset = Dataset.model_validate(decoded)
    except (InvalidJson, ValueError) as exc:
        return [f"{show(source_dataset)}: not a valid compiled dataset ({exc})"]
    problems = validate_suite(root, registry=registry, committed=committed, dataset=dataset, dataset_json=(data, decoded))
    if problems:
        return ["the suite's own bindings do not agree (run lexbench validate):", *problems]
    return _evidence_problems(dataset, evidence_home, show)


def _evidence_problems(pinned: Dataset, evidence_home: Path, show: Any) -> list[str]:

    problems: list[str] = []
    if not evidence_home.is_dir():
        return [f"{show(evidence_home)}: no evidence directory (give --evidence-home)"]
    for case in pinned.cases:
        for rel_path, sha256 in evidence_bindings(case):
            path = evidence_home / rel_path
            try:
                actual = sha256_bytes(read_regular_file(path))
            except FileNotFoundError:
                problems.append(f"{show(path)} (case {case.id}): missing")
                continue
            except OSError as exc:
                problems.append(f"{show(path)} (case {case.id}): cannot be read ({exc.strerror or exc})")
                continue
            if actual != sha256:
                problems.append(f"{show(path)} (case {case.id}): sha256 {actual}, but the pinned case binds {sha256}")
    return problems


def _dataset_case_problems(data: bytes, root: Path, label: str) -> list[str]:
    # Name the cases that differ from the pinned catalog, so a reviewer knows where to look.
    try:
        dataset = decode_json(data)
        cases = dataset["cases"]
        got = {case["id"]: definition_sha256(case) for case in cases}
    except (InvalidJson, KeyError, TypeError) as exc:
        return [f"{label}: not a compiled dataset ({exc!r})"]
    catalog = read_json(root / CATALOG_NAME)
    want = {case["id"]: case["definition_sha256"] for case in catalog["cases"]}
    problems = _case_list_problems(label, list(got), list(want), CATALOG_NAME)
    for case_id, digest in got.items():
        if case_id in want and digest != want[case_id]:
            problems.append(f"{label}: case {case_id}: definition differs from the pinned one (definition_sha256 "
                            f"{digest[:12]}…, pinned {want[case_id][:12]}…)")
    if not problems:
        problems.append(f"{label}: every case matches the catalog, but the file's bytes differ (top-level fields or format)")
    return problems
