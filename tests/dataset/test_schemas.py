"""The exported JSON Schemas of rules.json and cohort.json: up to date, and usable by an editor (SPEC §4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.cli import main as cli_main

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "cases" / "demo"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_exported_schemas_are_up_to_date(capsys):
    code, out, err = run(capsys, "export-schemas", "--check")
    assert code == 0, f"{err}(regenerate with: lexbench export-schemas)"


def test_schemas_validate_the_demo_files_and_catch_a_bad_status():
    jsonschema = pytest.importorskip("jsonschema")
    for schema_name, document in (("rules.schema.json", "rules.json"), ("cohort.schema.json", "cohort.json")):
        schema = read_json(REPO / "schemas" / schema_name)
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(read_json(DEMO / document))
    cohort = read_json(DEMO / "cohort.json")
    cohort["candidates"][0]["status"] = "maybe"
    errors = list(jsonschema.Draft202012Validator(read_json(REPO / "schemas" / "cohort.schema.json")).iter_errors(cohort))
    assert [list(e.absolute_path) for e in errors] == [["candidates", 0, "status"]]


def test_stale_schemas_are_reported(tmp_path, capsys):
    assert run(capsys, "export-schemas", f"--output-dir={tmp_path}")[0] == 0
    (tmp_path / "cohort.schema.json").write_text("{}\n")
    code, out, err = run(capsys, "export-schemas", "--check", f"--output-dir={tmp_path}")
    assert code == 1 and "stale in" in err and "cohort.schema.json" in err
