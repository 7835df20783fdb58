"""The committed gold set matches its manifest, and ``lexbench check-gold`` names each problem (SPEC §8)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lexbench.cli import main
from lexbench.evals.gold import GOLD_ROOT, KINDS, MANIFEST_NAME, GoldManifest, GoldTuple, check_gold
from lexbench.verdict import Outcome

FIRST = "001-complete-markdown-carrick.json"
SECOND = "002-complete-markdown-rooftop.json"


def _tuples() -> list[GoldTuple]:
    return [GoldTuple.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(GOLD_ROOT.glob("[0-9]*.json"))]


def test_committed_gold_set_passes_check_gold(capsys):
    assert main(["check-gold", str(GOLD_ROOT)]) == 0
    assert "tuples match their manifest" in capsys.readouterr().out


def test_gold_set_covers_every_kind_and_class_with_advisory_labels():
    manifest = GoldManifest.model_validate_json((GOLD_ROOT / MANIFEST_NAME).read_text(encoding="utf-8"))
    tuples = _tuples()
    assert len(tuples) >= 60
    assert {r.kind for r in manifest.ranges} == set(KINDS)
    classes = Counter(t.expected_verdict for t in tuples)
    assert all(classes[o] >= 10 for o in Outcome), classes
    assert all(t.fabrication_intent for t in tuples), "every answer here was written for the gold set"
    labelled = sum(1 for t in tuples if t.human_expert_verdict is not None)
    assert 0.15 <= labelled / len(tuples) <= 0.3  # "about one in five"
    assert {t.case.suite for t in tuples} == {"demo"}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "gold"
    shutil.copytree(GOLD_ROOT, root)
    return root


def _edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def _bad_name(root: Path) -> None:
    (root / "notes.txt").write_text("scratch", encoding="utf-8")


def _stem_differs(root: Path) -> None:
    (root / FIRST).rename(root / "001-complete-markdown-harbour.json")


def _duplicate_id(root: Path) -> None:
    _edit(root / SECOND, tuple_id=FIRST.removesuffix(".json"))


def _unknown_kind(root: Path) -> None:
    (root / FIRST).rename(root / "001-complete-pdf-carrick.json")
    _edit(root / "001-complete-pdf-carrick.json", kind="complete-pdf", tuple_id="001-complete-pdf-carrick")


def _out_of_range(root: Path) -> None:
    shutil.copy(root / SECOND, root / "999-complete-markdown-extra.json")  # SECOND has no expert label
    _edit(root / "999-complete-markdown-extra.json", tuple_id="999-complete-markdown-extra")


def _missing_file(root: Path) -> None:
    (root / SECOND).unlink()


def _schema(root: Path) -> None:
    _edit(root / FIRST, expected_verdict=None)


def _wrong_class(root: Path) -> None:
    _edit(root / FIRST, expected_verdict="fail")


def _stale_reference(root: Path) -> None:
    data = json.loads((root / FIRST).read_text(encoding="utf-8"))
    _edit(root / FIRST, case={**data["case"], "reference_sha256": "0" * 64})


def _unknown_case(root: Path) -> None:
    data = json.loads((root / FIRST).read_text(encoding="utf-8"))
    _edit(root / FIRST, case={**data["case"], "id": "article-099-en-nowhere"})


def _range_gap(root: Path) -> None:
    manifest = json.loads((root / MANIFEST_NAME).read_text(encoding="utf-8"))
    manifest["ranges"][1]["first"] += 1
    manifest["ranges"][1]["count"] -= 1
    manifest["totals"]["tuples"] -= 1
    manifest["totals"]["pass"] -= 1
    (root / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")


def _label_count(root: Path) -> None:
    manifest = json.loads((root / MANIFEST_NAME).read_text(encoding="utf-8"))
    manifest["human_expert_verdicts"] += 1
    (root / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")


@pytest.mark.parametrize(
    ("mutate", "messages"),
    [
        (_bad_name, ["notes.txt: not a tuple file name"]),
        (_stem_differs, ["tuple_id '001-complete-markdown-carrick' differs from the file stem"]),
        (_duplicate_id, ["differs from the file stem", "duplicate tuple_id '001-complete-markdown-carrick'"]),
        (_unknown_kind, ["unknown kind 'complete-pdf'"]),
        (_out_of_range, ["id 999 is outside every manifest range"]),
        (_missing_file, ["declares 6 tuples, 5 files present; missing ids 002"]),
        (_schema, ["expected_verdict: Field required"]),
        (_wrong_class, ["kind 'complete-markdown' is expected pass, the tuple says fail"]),
        (_stale_reference, ["has a new reference text"]),
        (_unknown_case, ["case 'article-099-en-nowhere' is not in suite 'demo'"]),
        (_range_gap, ["leaves a gap after the previous range", "id 007 is outside every manifest range"]),
        (_label_count, ["human_expert_verdicts is"]),
    ],
    ids=lambda v: v.__name__.strip("_") if callable(v) else None,
)
def test_check_gold_names_each_problem_once(tmp_path, capsys, mutate, messages):
    root = _copy(tmp_path)
    mutate(root)
    problems = check_gold(root)
    assert len(problems) == len(messages), problems
    for expected, problem in zip(messages, problems, strict=True):
        assert expected in problem
    assert main(["check-gold", str(root)]) == 1
    out = capsys.readouterr().out
    assert f"{len(messages)} problem(s)" in out


def test_check_gold_on_a_missing_directory(tmp_path):
    assert check_gold(tmp_path / "nowhere") == [f"{tmp_path / 'nowhere'}: not a directory"]
