"""JSON Schemas of the authoring files, exported from their pydantic models so that editors can
validate ``rules.json`` and ``cohort.json`` as they are typed (SPEC §4).

``lexbench export-schemas`` also exports the approvals registry a reviewer keeps for ``lexbench report``
and ``compare --approvals`` (:class:`lexbench.run.approvals.ApprovalRegistry`, of a later layer than
this one), passing it in ``models``.

The committed copies live in ``schemas/`` at the repository root; ``lexbench export-schemas``
regenerates them and ``lexbench export-schemas --check`` (and the test suite) fails when they are
stale. A schema covers structure and field constraints; cross-field rules (contiguous regions,
approved inventory, decisions matching statuses, ...) are enforced by the models when loading.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from lexbench.dataset.case import Rules
from lexbench.dataset.cohort import Cohort
from lexbench.dataset.compile import dump_json
from lexbench.resources import shipped_dir

SCHEMA_DIR = shipped_dir("schemas")
"""The repository's ``schemas/`` directory."""
DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMAS: dict[str, type[BaseModel]] = {"rules.schema.json": Rules, "cohort.schema.json": Cohort}
"""Schema file name → the model it is generated from."""


def schema_bytes(model: type[BaseModel]) -> bytes:
    """The JSON Schema (draft 2020-12, validation mode) of ``model`` in the project's JSON byte format."""
    return dump_json({"$schema": DIALECT, **model.model_json_schema(mode="validation")})


def write_schemas(directory: Path = SCHEMA_DIR, models: Mapping[str, type[BaseModel]] = SCHEMAS) -> list[Path]:
    """Write the schema of each of ``models`` (file name → model) into ``directory`` (created if needed);
    returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, model in models.items():
        path = directory / name
        path.write_bytes(schema_bytes(model))
        paths.append(path)
    return paths


def stale_schemas(directory: Path = SCHEMA_DIR, models: Mapping[str, type[BaseModel]] = SCHEMAS) -> list[str]:
    """Names of the schema files of ``models`` in ``directory`` that are missing or differ from the models."""
    stale = []
    for name, model in models.items():
        path = directory / name
        if not path.is_file() or path.read_bytes() != schema_bytes(model):
            stale.append(name)
    return stale
