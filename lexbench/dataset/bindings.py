"""Public bindings of a compiled suite: what they hold and how they are built and written (SPEC §4).

A suite directory publishes, next to its ``dataset.json``, in this order:

1. ``dataset-catalog.json`` — ``schema_version`` 1, ``kind`` ``frozen_dataset_catalog``; the dataset
   id, name and case count; ``dataset`` (``"dataset.json"``) and its ``dataset_sha256``; per case id,
   name, url, category, track, task_prompt, ``definition_sha256`` (sha256 of the case's canonical JSON,
   :func:`definition_sha256`) and ``reference_sha256`` (sha256 of the UTF-8 reference text, or null).
2. ``tasks.json`` — the dataset's top-level fields with each case replaced by :func:`public_task`: no
   reference text, no evidence paths, the reference bindings instead.
3. ``source-inputs.json`` — ``schema_version`` 2, ``kind`` ``frozen_reference_inputs``; id = dataset id
   + ``-`` + the first 12 hex digits of the dataset sha256; the catalog and its final-bytes sha256; the
   dataset and its sha256; ``files`` ``{"dataset.json": sha256}``; ``trees`` ``{}`` (no captures).
4. the suite's entry in the registry (``cases/registry.json`` for committed suites): dataset id, case
   count, sha256 of ``tasks.json``, ``dataset-catalog.json`` and ``source-inputs.json``, directory.

Every file is UTF-8 JSON with ``ensure_ascii=False``, indent 2 and one trailing newline
(:func:`lexbench.dataset.compile.dump_json`); every hash is over final file bytes, never re-serialised
JSON. The dataset id is ``<suite id>-v<revision>`` (:func:`dataset_id`).

The checks that keep them honest live in :mod:`lexbench.dataset.checks`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexbench.dataset.compile import dump_json, sha256_bytes
from lexbench.jsonfile import InvalidJson, decode_json, read_json

if TYPE_CHECKING:
    from lexbench.dataset.case import Dataset

DATASET_NAME = "dataset.json"
CATALOG_NAME = "dataset-catalog.json"
TASKS_NAME = "tasks.json"
SOURCE_INPUTS_NAME = "source-inputs.json"
REGISTRY_NAME = "registry.json"
BINDING_FILES = (CATALOG_NAME, TASKS_NAME, SOURCE_INPUTS_NAME)
"""The public binding files of a suite directory, in generation order."""
REGISTRY_FILES = (TASKS_NAME, CATALOG_NAME, SOURCE_INPUTS_NAME)
"""The files a registry entry hashes, in the entry's order."""
CATALOG_CASE_FIELDS = ("id", "name", "url", "category", "track", "task_prompt")


def dataset_id(suite: Mapping[str, Any]) -> str:
    """The dataset id of a suite revision: ``<suite id>-v<revision>`` (e.g. ``demo-v1``).

    ``suite`` is the ``suite`` object of ``dataset.json`` (or ``SuiteInfo.model_dump()``).
    """
    return f"{suite['id']}-v{suite['revision']}"


def definition_sha256(case: Mapping[str, Any]) -> str:
    """sha256 of the full compiled case as canonical JSON: ``json.dumps(case, ensure_ascii=False,
    sort_keys=True, separators=(",", ":"))`` encoded as UTF-8 (SPEC §4)."""
    text = json.dumps(case, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def reference_sha256(case: Mapping[str, Any]) -> str | None:
    """sha256 of the case's UTF-8 reference text, or ``None`` when it has no (or an empty) body."""
    text = case.get("reference_text")
    return hashlib.sha256(text.encode("utf-8")).hexdigest() if text else None


def public_task(case: Mapping[str, Any]) -> dict[str, Any]:
    """The public projection of a compiled case (``tasks.json``): every field except the reference
    text and the evidence — no ``reference_text``, no ``capture``, and the body's reference binding
    without its ``path`` (sha256, chars, opening, ending remain). Field order is the case's."""
    task = {key: value for key, value in case.items() if key not in ("reference_text", "capture")}
    body = case.get("body")
    if body is not None:
        reference = {key: value for key, value in body["reference"].items() if key != "path"}
        task["body"] = {**body, "reference": reference}
    return task


@dataclass(frozen=True)
class Bindings:
    """The generated bindings of one ``dataset.json``: each file's final bytes and the registry entry."""

    dataset_sha256: str
    catalog: bytes
    tasks: bytes
    source_inputs: bytes
    registry_entry: dict[str, Any]

    def files(self) -> dict[str, bytes]:
        """Binding file name → bytes, in generation order."""
        return {CATALOG_NAME: self.catalog, TASKS_NAME: self.tasks, SOURCE_INPUTS_NAME: self.source_inputs}


def build_catalog(dataset: Mapping[str, Any], dataset_hash: str) -> dict[str, Any]:
    """The ``dataset-catalog.json`` value for a parsed dataset whose file hashes to ``dataset_hash``."""
    return {
        "schema_version": 1,
        "kind": "frozen_dataset_catalog",
        "id": dataset_id(dataset["suite"]),
        "name": dataset["suite"]["name"],
        "case_count": len(dataset["cases"]),
        "dataset": DATASET_NAME,
        "dataset_sha256": dataset_hash,
        "cases": [
            {
                **{key: case[key] for key in CATALOG_CASE_FIELDS},
                "definition_sha256": definition_sha256(case),
                "reference_sha256": reference_sha256(case),
            }
            for case in dataset["cases"]
        ],
    }


def build_tasks(dataset: Mapping[str, Any]) -> dict[str, Any]:
    """The ``tasks.json`` value: the dataset's top-level fields, cases replaced by :func:`public_task`."""
    return {key: ([public_task(case) for case in value] if key == "cases" else value) for key, value in dataset.items()}


def build_source_inputs(dataset: Mapping[str, Any], dataset_hash: str, catalog_bytes: bytes) -> dict[str, Any]:
    """The ``source-inputs.json`` value; ``catalog_bytes`` are the final bytes of the catalog file."""
    return {
        "schema_version": 2,
        "kind": "frozen_reference_inputs",
        "id": f"{dataset_id(dataset['suite'])}-{dataset_hash[:12]}",
        "catalog": CATALOG_NAME,
        "catalog_sha256": sha256_bytes(catalog_bytes),
        "dataset": DATASET_NAME,
        "dataset_sha256": dataset_hash,
        "files": {DATASET_NAME: dataset_hash},
        "trees": {},
    }


def build_registry_entry(dataset: Mapping[str, Any], files: Mapping[str, bytes], directory: str) -> dict[str, Any]:
    """A registry entry: dataset id, case count, sha256 of each registered file's bytes, directory."""
    return {
        "dataset_id": dataset_id(dataset["suite"]),
        "case_count": len(dataset["cases"]),
        "files": {name: sha256_bytes(files[name]) for name in REGISTRY_FILES},
        "directory": directory,
    }


def generate_bindings(dataset_bytes: bytes, *, directory: str, decoded: Any = None) -> Bindings:
    """Generate every binding of the ``dataset.json`` bytes, in order (SPEC §4).

    ``directory`` is the suite directory's name for the registry entry; ``decoded`` is the bytes'
    JSON when the caller already decoded them. Pure: writes nothing. Raises ``ValueError``
    (:class:`~lexbench.jsonfile.InvalidJson`) when the bytes are not UTF-8 JSON.
    """
    dataset = decode_json(dataset_bytes) if decoded is None else decoded
    dataset_hash = sha256_bytes(dataset_bytes)
    catalog = dump_json(build_catalog(dataset, dataset_hash))
    tasks = dump_json(build_tasks(dataset))
    source_inputs = dump_json(build_source_inputs(dataset, dataset_hash, catalog))
    files = {CATALOG_NAME: catalog, TASKS_NAME: tasks, SOURCE_INPUTS_NAME: source_inputs}
    return Bindings(dataset_hash, catalog, tasks, source_inputs, build_registry_entry(dataset, files, directory))


def write_bindings(root: Path, *, registry: Path | None, dataset_bytes: bytes | None = None) -> Bindings:
    """(Re)generate the bindings of ``root/dataset.json`` (or of ``dataset_bytes``, the external dataset of
    a suite that does not commit it) and write them into ``root`` in order, then update this suite's
    entry in ``registry`` (when given; other entries are kept as they are).

    Binding files are derived data and are replaced; each write is atomic. Returns the bindings.
    """
    if dataset_bytes is None:
        dataset_bytes = (root / DATASET_NAME).read_bytes()
    bindings = generate_bindings(dataset_bytes, directory=root.name)
    for name, data in bindings.files().items():
        replace_file(root / name, data)
    if registry is not None:
        update_registry(registry, root.name, bindings.registry_entry)
    return bindings


def update_registry(registry: Path, suite: str, entry: dict[str, Any]) -> None:
    """Set ``suites[suite]`` of the registry file to ``entry``, keeping every other entry, their order
    and an existing entry's ``directory``. Creates the file when absent."""
    if registry.exists():
        value = read_json(registry)
    else:
        value = {"schema_version": 1, "kind": "suite_registry", "suites": {}}
    previous = value["suites"].get(suite)
    if previous is not None and "directory" in previous:
        entry = {**entry, "directory": previous["directory"]}
    value["suites"][suite] = entry
    replace_file(registry, dump_json(value))


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file + rename); unchanged bytes are not rewritten."""
    if path.is_file() and path.read_bytes() == data:
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
