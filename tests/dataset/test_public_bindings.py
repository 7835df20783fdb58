"""Public bindings: generated in order and byte format, reproduced byte for byte, checked by
``lexbench validate`` and ``lexbench verify-inputs``, and required when a suite is loaded (SPEC §4)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.cli import main as cli_main
from lexbench.dataset.bindings import definition_sha256, public_task
from lexbench.dataset.compile import dump_json, sha256_bytes
from lexbench.dataset.suite import load_suite
from lexbench.errors import BindingError

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "cases"
DEMO = CASES / "demo"
BINDINGS = ("dataset-catalog.json", "tasks.json", "source-inputs.json")
EVIDENCE = sorted(str(p.relative_to(DEMO / "evidence")) for p in (DEMO / "evidence").rglob("*") if p.is_file())


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def edit_json(path: Path, change) -> None:
    value = read_json(path)
    change(value)
    path.write_bytes(dump_json(value))


@pytest.fixture
def cases_root(tmp_path) -> Path:
    """A copy of the committed demo suite and its registry in a temporary cases/ directory."""
    root = tmp_path / "cases"
    shutil.copytree(DEMO, root / "demo")
    shutil.copy(CASES / "registry.json", root / "registry.json")
    return root


@pytest.fixture
def demo(cases_root) -> Path:
    return cases_root / "demo"


# --- the committed demo bindings ------------------------------------------------------------------


def test_committed_demo_bindings_validate(capsys):
    code, out, err = run(capsys, "validate", "--suite=demo")
    assert code == 0, err
    assert out.startswith("validate demo: ok (dataset.json, rules.json, cohort.json, dataset-catalog.json, tasks.json, "
                          "source-inputs.json and the registry entry agree;")


def test_catalog_follows_the_documented_format():
    data = (DEMO / "dataset-catalog.json").read_bytes()
    catalog = json.loads(data)
    dataset_bytes = (DEMO / "dataset.json").read_bytes()
    dataset = json.loads(dataset_bytes)
    assert data == (json.dumps(catalog, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    assert "青禾日报".encode() in data
    assert list(catalog) == ["schema_version", "kind", "id", "name", "case_count", "dataset", "dataset_sha256", "cases"]
    assert (catalog["schema_version"], catalog["kind"], catalog["id"]) == (1, "frozen_dataset_catalog", "demo-v3")
    assert (catalog["name"], catalog["case_count"]) == ("lexbench demo suite", 15)
    assert (catalog["dataset"], catalog["dataset_sha256"]) == ("dataset.json", hashlib.sha256(dataset_bytes).hexdigest())
    for entry, case in zip(catalog["cases"], dataset["cases"], strict=True):
        assert list(entry) == ["id", "name", "url", "category", "track", "task_prompt", "definition_sha256",
                               "reference_sha256"]
        assert entry["definition_sha256"] == hashlib.sha256(json.dumps(
            case, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
        reference = case.get("reference_text")  # a post collection has no reference body: null
        assert entry["reference_sha256"] == (hashlib.sha256(reference.encode("utf-8")).hexdigest() if reference else None)


def test_tasks_are_the_public_projection_without_reference_text_or_evidence():
    tasks = read_json(DEMO / "tasks.json")
    dataset = read_json(DEMO / "dataset.json")
    assert list(tasks) == list(dataset) == ["suite", "cases"]
    assert tasks["suite"] == dataset["suite"]
    raw = (DEMO / "tasks.json").read_text(encoding="utf-8")
    assert "reference_text" not in raw and "captures/" not in raw and "references/" not in raw
    first = tasks["cases"][0]
    assert "capture" not in first and "path" not in first["body"]["reference"]
    assert first["body"]["reference"] == {k: v for k, v in dataset["cases"][0]["body"]["reference"].items() if k != "path"}
    assert first["body"]["regions"] == dataset["cases"][0]["body"]["regions"]


def test_source_inputs_and_registry_bind_the_final_bytes():
    dataset_hash = sha256_bytes((DEMO / "dataset.json").read_bytes())
    inputs = read_json(DEMO / "source-inputs.json")
    assert inputs == {
        "schema_version": 2, "kind": "frozen_reference_inputs", "id": f"demo-v3-{dataset_hash[:12]}",
        "catalog": "dataset-catalog.json", "catalog_sha256": sha256_bytes((DEMO / "dataset-catalog.json").read_bytes()),
        "dataset": "dataset.json", "dataset_sha256": dataset_hash, "files": {"dataset.json": dataset_hash}, "trees": {},
    }
    entry = read_json(CASES / "registry.json")["suites"]["demo"]
    assert entry == {
        "dataset_id": "demo-v3", "case_count": 15,
        "files": {name: sha256_bytes((DEMO / name).read_bytes()) for name in ("tasks.json", "dataset-catalog.json",
                                                                               "source-inputs.json")},
        "directory": "demo",
    }


def test_public_task_drops_only_reference_text_and_evidence_paths():
    case = read_json(DEMO / "dataset.json")["cases"][3]
    task = public_task(case)
    assert set(case) - set(task) == {"reference_text", "capture"}
    assert task["body"]["reference"]["sha256"] == case["body"]["reference"]["sha256"]
    assert case["body"]["reference"]["path"]  # the input is left untouched


# --- recompiling reproduces every byte -----------------------------------------------------------


def test_recompiling_an_unchanged_suite_reproduces_every_binding_byte_for_byte(tmp_path, capsys):
    cases_root = tmp_path / "cases"
    suite = cases_root / "demo"
    suite.mkdir(parents=True)
    for name in ("rules.json", "cohort.json"):
        shutil.copy(DEMO / name, suite / name)
    shutil.copytree(DEMO / "evidence", suite / "evidence")
    external = tmp_path / "external" / "demo-v1"
    code, out, err = run(capsys, "compile-articles", f"--suite={suite}", f"--evidence-home={suite / 'evidence'}",
                         f"--output={external / 'dataset.json'}")
    assert code == 0, err
    registry = cases_root / "registry.json"
    code, out, err = run(capsys, "publish", f"--suite={suite}", f"--dataset={external / 'dataset.json'}",
                         f"--registry={registry}")
    assert code == 0, err
    assert out.index("dataset-catalog.json") < out.index("tasks.json") < out.index("source-inputs.json") \
        < out.index("registry.json")
    for name in ("dataset.json", *BINDINGS):
        assert (suite / name).read_bytes() == (DEMO / name).read_bytes(), name
    assert read_json(registry)["suites"]["demo"] == read_json(CASES / "registry.json")["suites"]["demo"]
    committed = read_json(CASES / "registry.json")
    assert registry.read_bytes() == dump_json({**committed, "suites": {"demo": committed["suites"]["demo"]}})
    assert load_suite("demo", cases_root=cases_root).dataset.suite.id == "demo"


def test_publish_keeps_other_registry_entries(demo, cases_root, capsys):
    edit_json(cases_root / "registry.json", lambda r: r["suites"].update(other={"dataset_id": "other-v3"}))
    code, out, err = run(capsys, "publish", f"--suite={demo}", f"--registry={cases_root / 'registry.json'}")
    assert code == 0, err
    committed = list(read_json(CASES / "registry.json")["suites"])
    assert list(read_json(cases_root / "registry.json")["suites"]) == [*committed, "other"]


# --- a revision -----------------------------------------------------------------------------------


CURRENT = read_json(DEMO / "rules.json")["suite"]["revision"]
"""The committed demo's revision; the tests below publish the one after it."""
NEXT = CURRENT + 1


def bump_to_next_revision(demo: Path) -> None:
    inputs = read_json(demo / "source-inputs.json")
    edit_json(demo / "rules.json", lambda r: r["suite"].update(revision=NEXT))

    def cohort(c):
        c["revision"] = NEXT
        c["history"].append({"revision": NEXT, "date": "2026-12-01", "summary": f"Rebind the suite as revision {NEXT}",
                             "inventory": len(c["candidates"]),
                             "prior_input": {"source_inputs_id": inputs["id"], "dataset_sha256": inputs["dataset_sha256"]}})

    edit_json(demo / "cohort.json", cohort)


def test_a_new_revision_is_compiled_outside_and_published(demo, cases_root, tmp_path, capsys):
    previous = tmp_path / f"demo-v{CURRENT}"
    previous.mkdir()
    shutil.copy(demo / "dataset.json", previous / "dataset.json")
    bump_to_next_revision(demo)
    code, _, err = run(capsys, "compile-articles", f"--suite={demo}", f"--evidence-home={demo / 'evidence'}",
                       f"--output={previous / f'dataset-v{NEXT}.json'}")
    assert code == 2 and f"holds the pinned input dataset.json of demo-v{CURRENT}-" in err

    new = tmp_path / f"demo-v{NEXT}" / "dataset.json"
    assert run(capsys, "compile-articles", f"--suite={demo}", f"--evidence-home={demo / 'evidence'}",
               f"--output={new}")[0] == 0
    code, out, err = run(capsys, "publish", f"--suite={demo}", f"--dataset={new}",
                         f"--registry={cases_root / 'registry.json'}")
    assert code == 0, err
    assert read_json(demo / "dataset-catalog.json")["id"] == f"demo-v{NEXT}"
    assert read_json(demo / "source-inputs.json")["id"] == f"demo-v{NEXT}-{sha256_bytes(new.read_bytes())[:12]}"
    assert read_json(cases_root / "registry.json")["suites"]["demo"]["dataset_id"] == f"demo-v{NEXT}"
    assert (previous / "dataset.json").read_bytes() == (DEMO / "dataset.json").read_bytes()
    assert load_suite("demo", cases_root=cases_root).dataset.suite.revision == NEXT
    shutil.copytree(demo / "evidence", new.parent / "evidence")
    assert run(capsys, "verify-inputs", f"--suite={demo}", f"--source={new.parent}")[0] == 0


def test_publish_refuses_changed_bytes_under_a_published_revision(demo, tmp_path, capsys):
    edit_json(demo / "rules.json", lambda r: r["cases"][0].update(name="Another name"))
    new = tmp_path / "ext" / "dataset.json"
    assert run(capsys, "compile-articles", f"--suite={demo}", f"--evidence-home={demo / 'evidence'}",
               f"--output={new}")[0] == 0
    code, _, err = run(capsys, "publish", f"--suite={demo}", f"--dataset={new}")
    assert code == 2
    assert f"revision {CURRENT} of demo is already published with other bytes" in err
    assert "bump the revision in rules.json and cohort.json" in err
    assert (demo / "dataset.json").read_bytes() == (DEMO / "dataset.json").read_bytes()


# --- validate -------------------------------------------------------------------------------------


def validate(capsys, demo: Path, cases_root: Path) -> tuple[int, str]:
    code, out, err = run(capsys, "validate", f"--suite={demo}", f"--registry={cases_root / 'registry.json'}")
    return code, out + err


def test_a_definition_hash_in_the_wrong_case_is_named(demo, cases_root, capsys):
    def swap(catalog):
        first, second = catalog["cases"][0], catalog["cases"][1]
        first["definition_sha256"], second["definition_sha256"] = second["definition_sha256"], first["definition_sha256"]

    edit_json(demo / "dataset-catalog.json", swap)
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert ("dataset-catalog.json: case article-001-en-carrick-tidal-array: definition_sha256 is case "
            "article-002-zh-rooftop-gardens's hash (a hash in the wrong case)") in text
    assert "source-inputs.json: catalog_sha256" in text  # the catalog's bytes changed too


def test_an_edited_dataset_is_caught_by_validate_and_by_loading(demo, cases_root, capsys):
    edit_json(demo / "dataset.json", lambda d: d["cases"][4].update(name="Renamed without a revision"))
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert "dataset-catalog.json: dataset_sha256" in text and "dataset.json changed after its bindings were published" in text
    assert "dataset-catalog.json: case article-005-en-skerry-lighthouse: name is" in text
    assert "tasks.json: case article-005-en-skerry-lighthouse: name differ(s)" in text
    with pytest.raises(BindingError, match="its bindings do not agree"):
        load_suite("demo", cases_root=cases_root)


def test_reference_text_in_tasks_is_named(demo, cases_root, capsys):
    edit_json(demo / "tasks.json", lambda t: t["cases"][2].update(reference_text="leaked"))
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert "tasks.json: case article-003-en-water-loss-audit: carries reference_text" in text


def test_reordered_catalog_cases_are_named(demo, cases_root, capsys):
    edit_json(demo / "dataset-catalog.json", lambda c: c["cases"].insert(0, c["cases"].pop(1)))
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert ("dataset-catalog.json: case article-002-zh-rooftop-gardens is at position 1, where dataset.json has "
            "article-001-en-carrick-tidal-array (cases reordered)") in text


def test_a_stale_registry_hash_is_named(demo, cases_root, capsys):
    edit_json(cases_root / "registry.json", lambda r: r["suites"]["demo"]["files"].update({"tasks.json": "0" * 64}))
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert "registry.json entry 'demo': files['tasks.json'] is 0000" in text and "demo/tasks.json hashes to" in text


def test_bindings_in_another_byte_format_are_named(demo, cases_root, capsys):
    catalog = read_json(demo / "dataset-catalog.json")
    (demo / "dataset-catalog.json").write_text(json.dumps(catalog, indent=2) + "\n", encoding="utf-8")  # \u escapes
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert "dataset-catalog.json: same content, different bytes: not in the generated format" in text


def test_rules_edited_after_compilation_are_named(demo, cases_root, capsys):
    edit_json(demo / "rules.json", lambda r: r["cases"][1].update(task_prompt="Something else."))
    code, text = validate(capsys, demo, cases_root)
    assert code == 1
    assert "rules.json: case article-002-zh-rooftop-gardens: task_prompt changed after compilation" in text


def test_a_committed_suite_must_have_its_bindings(demo, cases_root):
    (demo / "tasks.json").unlink()
    with pytest.raises(BindingError, match="tasks.json: missing"):
        load_suite("demo", cases_root=cases_root)


def test_a_committed_suite_must_have_its_registry_entry(demo, cases_root):
    edit_json(cases_root / "registry.json", lambda r: r["suites"].pop("demo"))
    with pytest.raises(BindingError, match="registry.json entry 'demo': missing; publish the suite to add it"):
        load_suite("demo", cases_root=cases_root)


@pytest.mark.slow
def test_the_benchmark_refuses_a_suite_whose_bindings_disagree(demo, tmp_path):
    edit_json(demo / "tasks.json", lambda t: t["cases"][0].update(title="Another title"))
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", f"--suite={demo}", f"--run-dir={tmp_path / 'run'}", "-q",
         "--providers=reference-echo", "-p", "no:cacheprovider"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 4, completed.stdout[-2000:] + completed.stderr[-2000:]
    assert "tasks.json: case article-001-en-carrick-tidal-array: title differ(s)" in completed.stderr


# --- verify-inputs --------------------------------------------------------------------------------


@pytest.fixture
def external(tmp_path) -> Path:
    """An external input directory as published for demo-v1: dataset.json plus evidence/."""
    source = tmp_path / "demo-v1-input"
    source.mkdir()
    shutil.copy(DEMO / "dataset.json", source / "dataset.json")
    shutil.copytree(DEMO / "evidence", source / "evidence")
    return source


def test_verify_inputs_accepts_the_published_input(external, capsys):
    code, out, err = run(capsys, "verify-inputs", "--suite=demo", f"--source={external}")
    assert code == 0, err
    assert f"verify-inputs demo: {external} matches" in out


@pytest.mark.parametrize("relative", EVIDENCE)
def test_one_changed_byte_in_any_evidence_file_is_named_with_its_case(external, capsys, relative):
    path = external / "evidence" / relative
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))
    case_id = Path(relative).stem
    code, out, err = run(capsys, "verify-inputs", "--suite=demo", f"--source={external}")
    assert code == 1
    assert f"evidence/{relative} (case {case_id}): sha256 " in err
    assert err.count("(case ") == 1


def test_a_missing_evidence_file_is_named(external, capsys):
    (external / "evidence" / "captures" / "article-010-en-whale-skeleton.html").unlink()
    code, out, err = run(capsys, "verify-inputs", "--suite=demo", f"--source={external}")
    assert code == 1
    assert "evidence/captures/article-010-en-whale-skeleton.html (case article-010-en-whale-skeleton): missing" in err


def test_a_different_dataset_names_the_cases_that_differ(external, capsys):
    edit_json(external / "dataset.json", lambda d: d["cases"][7]["stable_groups"][0].update(location="elsewhere"))
    code, out, err = run(capsys, "verify-inputs", "--suite=demo", f"--source={external}")
    assert code == 1
    assert "dataset.json: sha256 " in err and "but source-inputs.json pins" in err
    assert "dataset.json: case article-008-ja-sento-coworking: definition differs from the pinned one" in err


def test_verify_inputs_with_a_separate_evidence_home(external, tmp_path, capsys):
    evidence = tmp_path / "elsewhere"
    shutil.move(external / "evidence", evidence)
    assert run(capsys, "verify-inputs", "--suite=demo", f"--source={external}")[0] == 1
    code, out, err = run(capsys, "verify-inputs", "--suite=demo", f"--source={external}", f"--evidence-home={evidence}")
    assert code == 0, err


def test_definition_hash_is_over_canonical_json():
    case = {"b": "é", "a": [1, 2]}
    assert definition_sha256(case) == hashlib.sha256('{"a":[1,2],"b":"é"}'.encode()).hexdigest()
