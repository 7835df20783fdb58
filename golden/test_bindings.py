"""Golden snapshots of the committed suites' public bindings (SPEC §1, §4): demo, and articles and dynamic (whose
dataset and evidence are external: its bindings are all that is committed).

Each snapshot is the exact bytes of one committed binding file (the registry entry in the project's JSON
format), stored under ``golden/__snapshots__/test_bindings/``. A dataset revision changes them on
purpose: run ``pytest golden --snapshot-update`` after ``lexbench publish`` and review the diff together
with the new bindings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from lexbench.dataset.compile import dump_json

CASES = Path(__file__).resolve().parents[1] / "cases"
DEMO = CASES / "demo"
ARTICLES = CASES / "articles"


class BindingFileSnapshot(SingleFileSnapshotExtension):
    """One snapshot file per test, holding the binding's text exactly (UTF-8, ``.json``)."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(BindingFileSnapshot)


def binding_text(name: str, suite: Path = DEMO) -> str:
    return (suite / name).read_bytes().decode("utf-8")


def registry_entry_text(suite: str) -> str:
    registry = json.loads((CASES / "registry.json").read_text(encoding="utf-8"))
    return dump_json(registry["suites"][suite]).decode("utf-8")


def test_dataset_catalog(golden):
    assert binding_text("dataset-catalog.json") == golden


def test_tasks(golden):
    assert binding_text("tasks.json") == golden


def test_source_inputs(golden):
    assert binding_text("source-inputs.json") == golden


def test_registry_entry(golden):
    assert registry_entry_text("demo") == golden


def test_articles_dataset_catalog(golden):
    assert binding_text("dataset-catalog.json", ARTICLES) == golden


def test_articles_tasks(golden):
    assert binding_text("tasks.json", ARTICLES) == golden


def test_articles_source_inputs(golden):
    assert binding_text("source-inputs.json", ARTICLES) == golden


def test_articles_registry_entry(golden):
    assert registry_entry_text("articles") == golden


DYNAMIC = CASES / "dynamic"
"""The dynamic suite (issue 28): pages built from its npm project and recorded as web archives (external)."""


def test_dynamic_dataset_catalog(golden):
    assert binding_text("dataset-catalog.json", DYNAMIC) == golden


def test_dynamic_tasks(golden):
    assert binding_text("tasks.json", DYNAMIC) == golden


def test_dynamic_source_inputs(golden):
    assert binding_text("source-inputs.json", DYNAMIC) == golden


def test_dynamic_registry_entry(golden):
    assert registry_entry_text("dynamic") == golden
