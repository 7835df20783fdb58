"""Authoring: cohort.json, the approved inventory and compile-articles refuse bad input with messages that
say what to do (SPEC §4). Rule-level validation lives in tests/test_case_rules.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lexbench.cli import main as cli_main
from lexbench.dataset.cohort import COHORT_NAME, load_cohort
from lexbench.dataset.compile import dump_json, sha256_bytes
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.suite import build_suite, load_suite
from lexbench.errors import BindingError, EvidenceError, RulesError
from tests.dataset.test_corpus_import import hexkey, make_magic
from tests.suite_factory import ARTICLES, write_suite

DEMO = Path(__file__).resolve().parents[2] / "cases" / "demo"
THIRD = {"slug": "bridge", "title": "Footbridge reopens after repairs",
         "paragraphs": ["The footbridge over the river reopened to walkers on Friday afternoon.",
                        "Repairs to the deck took longer than planned because of the wet spring."]}


@pytest.fixture
def suite_dir(tmp_path):
    return write_suite(tmp_path / "s", [*ARTICLES, THIRD])


def edit_json(path: Path, change) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    path.write_bytes(dump_json(value))


def recompile(root: Path) -> None:
    build_suite(root, overwrite=True)


def compile_cli(root: Path, output: Path, capsys) -> tuple[int, str]:
    code = cli_main(["compile-articles", f"--suite={root}", f"--evidence-home={root / 'evidence'}", f"--output={output}"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


# --- the approved inventory -----------------------------------------------------------------------


def test_rules_must_be_the_approved_inventory_in_order(suite_dir):
    edit_json(suite_dir / "rules.json", lambda r: r["cases"].reverse())
    with pytest.raises(RulesError, match="case article-003-en-bridge is at position 1, where the approved inventory "
                                         "has article-001-en-tides: keep the cohort's case-number order"):
        recompile(suite_dir)


def test_a_missing_rule_is_refused_naming_the_case(suite_dir):
    edit_json(suite_dir / "rules.json", lambda r: r["cases"].pop(1))
    with pytest.raises(RulesError, match=r"missing 1 approved case\(s\): article-002-en-orchard; the whole approved "
                                         r"inventory must be compiled \(no partial suite\)"):
        recompile(suite_dir)


def test_a_rule_without_a_candidate_is_unresolved(suite_dir):
    def add(rules):
        extra = json.loads(json.dumps(rules["cases"][2]))
        extra["id"] = "article-004-en-bridge"
        rules["cases"].append(extra)

    edit_json(suite_dir / "rules.json", add)
    with pytest.raises(RulesError, match="case article-004-en-bridge is unresolved: cohort.json has no candidate"):
        recompile(suite_dir)


def test_a_pending_candidate_is_unresolved_and_not_compiled(suite_dir):
    def pend(cohort):
        cohort["candidates"][2]["status"] = "pending"
        cohort["history"][-1]["inventory"] = 2

    edit_json(suite_dir / COHORT_NAME, pend)
    with pytest.raises(RulesError, match="article-003-en-bridge is unresolved: its candidate is still pending"):
        recompile(suite_dir)


def test_a_rule_whose_url_changed_is_a_replacement_not_an_edit(suite_dir):
    edit_json(suite_dir / "rules.json", lambda r: r["cases"][0].update(url="https://elsewhere.example/x"))
    with pytest.raises(RulesError, match="a different page is a replacement: record it in cohort.json under a new id"):
        recompile(suite_dir)


def test_cohort_and_rules_revisions_must_move_together(suite_dir):
    edit_json(suite_dir / "rules.json", lambda r: r["suite"].update(revision=2))
    with pytest.raises(RulesError, match="cohort.json is at revision 1, rules.json at 2: update cohort.json and "
                                         "rules.json together"):
        recompile(suite_dir)


# --- cohort.json itself ---------------------------------------------------------------------------


def removal(cohort: dict, index: int, **extra) -> dict:
    candidate = cohort["candidates"][index]
    return {"action": "remove", "case": candidate["id"], "revision": cohort["revision"], "reviewed": "2026-11-30",
            "basis": "The page now shows a subscription wall on first load.",
            "original": {"id": candidate["id"], "url": candidate["url"]}, **extra}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["candidates"].append(c["candidates"][0]), "duplicate candidate id 'article-001-en-tides'"),
        (lambda c: c["candidates"].reverse(), "list candidates in case-number order"),
        (lambda c: c["candidates"][2].update(id="article-005-en-bridge"),
         r"case number\(s\) 003, 004 are neither a candidate nor a declared gap: keep removed candidates under their "
         "original ids"),
        (lambda c: c["candidates"][1].update(id="article-001-en-orchard"),
         "share number 001: a new candidate takes a new number"),
        (lambda c: c["gaps"].append({"number": 2, "reason": "x"}), "gap 002 is the number of a candidate"),
        (lambda c: c["candidates"][2].update(status="removed"),
         "article-003-en-bridge is removed without an authorised decision"),
        (lambda c: c["decisions"].append(removal(c, 2)), "its status is 'approved'; set it to 'removed'"),
        (lambda c: (c["candidates"][2].update(status="removed"),
                    c["decisions"].append(removal(c, 2, basis="")),
                    c["history"][-1].update(inventory=2)), "decisions.0.basis"),
        (lambda c: (c["candidates"][2].update(status="replaced"),
                    c["decisions"].append({**removal(c, 2), "action": "replace"})),
         "must name its replacement candidate"),
        (lambda c: c["history"][-1].update(inventory=5), "says inventory 5, but 3 candidates are approved"),
        (lambda c: c["history"].append({"revision": 2, "date": "2026-12-01", "summary": "x", "inventory": 3}),
         "must be consecutive and end at the cohort's revision 1"),
        (lambda c: c.update(schema_version=2), "schema_version"),
    ],
)
def test_invalid_cohorts_are_named(suite_dir, change, message):
    edit_json(suite_dir / COHORT_NAME, change)
    with pytest.raises(RulesError, match=message) as excinfo:
        load_cohort(suite_dir / COHORT_NAME)
    assert str(suite_dir / COHORT_NAME) in str(excinfo.value)


def test_an_authorised_removal_keeps_the_original_and_leaves_a_gap(suite_dir):
    """Removing 002 under revision 2: the rule goes, the candidate stays under its id, 003 keeps its number."""
    def cohort_v2(cohort):
        cohort["revision"] = 2
        cohort["candidates"][1]["status"] = "removed"
        cohort["decisions"].append(removal(cohort, 1))
        cohort["history"].append({"revision": 2, "date": "2026-11-30", "summary": "Remove 002", "inventory": 2,
                                  "prior_input": {"source_inputs_id": "tiny-v1-000000000000",
                                                  "dataset_sha256": sha256_bytes((suite_dir / "dataset.json").read_bytes())}})

    edit_json(suite_dir / COHORT_NAME, cohort_v2)
    edit_json(suite_dir / "rules.json", lambda r: (r["cases"].pop(1), r["suite"].update(revision=2)))
    recompile(suite_dir)
    suite = load_suite(str(suite_dir))
    assert [case.id for case in suite.cases] == ["article-001-en-tides", "article-003-en-bridge"]
    assert suite.dataset.suite.revision == 2
    assert load_cohort(suite_dir / COHORT_NAME).candidate("article-002-en-orchard").status == "removed"


def test_demo_cohort_keeps_the_gap_at_009():
    cohort = load_cohort(DEMO / COHORT_NAME)
    assert [gap.number for gap in cohort.gaps] == [9]
    assert len(cohort.approved_inventory()) == 15 and cohort.revision == 3
    assert cohort.approved_inventory() == [rule["id"] for rule in json.loads((DEMO / "rules.json").read_text())["cases"]]


def test_import_writes_a_cohort_with_skipped_pages_as_gaps(tmp_path):
    source = make_magic(tmp_path / "mh", [
        {"content": "Headline of the first article\nIts body text is long enough to count."},
        {"content": "列表 一 二 三 四 五 六", "remark": "列表页"},
        {"content": "Another article headline\nBody text of the article goes here."},
    ])
    out = tmp_path / "out"
    report = import_corpus("magic-html-bench", source, out)
    cohort = load_cohort(out / COHORT_NAME)
    assert cohort.approved_inventory() == report.imported
    assert cohort.candidates[0].source == f"magic-html-bench:article/{hexkey(1)}"
    (gap,) = cohort.gaps
    assert gap.number == 2 and "列表页" in gap.reason
    assert gap.source == {"key": f"article/{hexkey(2)}", "file": f"article/htmls/{hexkey(2)}.html.gz"}
    assert (out / "source-inputs.json").is_file() and load_suite(str(out)).id == "magic-html-articles"


# --- evidence -------------------------------------------------------------------------------------


def test_one_changed_byte_in_a_reference_is_refused(suite_dir):
    path = suite_dir / "evidence" / "references" / "article-002-en-orchard.txt"
    data = bytearray(path.read_bytes())
    data[10] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(EvidenceError, match=r"case article-002-en-orchard: evidence file .*references/"
                                            r"article-002-en-orchard.txt has sha256 [0-9a-f]{64}, but the rules bind"):
        recompile(suite_dir)


def test_a_missing_evidence_file_is_named_with_what_to_do(suite_dir):
    (suite_dir / "evidence" / "captures" / "article-003-en-bridge.html").unlink()
    with pytest.raises(EvidenceError, match=r"case article-003-en-bridge: evidence file .*captures/"
                                            r"article-003-en-bridge.html is missing; .* restore it"):
        recompile(suite_dir)


def test_a_hash_copied_into_the_wrong_case_is_named(suite_dir):
    def copy_hash(rules):
        rules["cases"][0]["body"]["reference"]["sha256"] = rules["cases"][1]["body"]["reference"]["sha256"]

    edit_json(suite_dir / "rules.json", copy_hash)
    with pytest.raises(EvidenceError, match="The bound sha256 is the one case article-002-en-orchard binds for "
                                            "references/article-002-en-orchard.txt: the hash was copied into the "
                                            "wrong case"):
        recompile(suite_dir)


def test_swapped_hashes_are_named(suite_dir):
    def swap(rules):
        a, b = rules["cases"][0]["capture"], rules["cases"][1]["capture"]
        a["sha256"], b["sha256"] = b["sha256"], a["sha256"]

    edit_json(suite_dir / "rules.json", swap)
    with pytest.raises(EvidenceError, match="the two cases' hashes are swapped"):
        recompile(suite_dir)


def test_a_reference_that_is_not_utf8_is_refused(suite_dir):
    path = suite_dir / "evidence" / "references" / "article-001-en-tides.txt"
    data = path.read_bytes().replace(b"harbour", "h\u00e4rbour".encode("latin-1"), 1)
    path.write_bytes(data)
    edit_json(suite_dir / "rules.json", lambda r: r["cases"][0]["body"]["reference"].update(sha256=sha256_bytes(data)))
    with pytest.raises(EvidenceError, match="case article-001-en-tides: reference references/article-001-en-tides.txt "
                                            "is not valid UTF-8"):
        recompile(suite_dir)


# --- compile-articles -----------------------------------------------------------------------------


def test_compile_articles_writes_a_new_file_and_says_it_is_not_published(suite_dir, tmp_path, capsys):
    output = tmp_path / "external" / "dataset.json"
    code, text = compile_cli(suite_dir, output, capsys)
    assert code == 0, text
    assert output.read_bytes() == (suite_dir / "dataset.json").read_bytes()
    assert "3 cases of tiny-v1" in text and f"sha256 {sha256_bytes(output.read_bytes())}" in text
    assert f"nothing is published yet: lexbench publish --suite={suite_dir} --dataset={output}" in text


def test_compile_articles_refuses_an_existing_output(suite_dir, tmp_path, capsys):
    output = tmp_path / "external" / "dataset.json"
    output.parent.mkdir()
    output.write_text("keep me")
    code, text = compile_cli(suite_dir, output, capsys)
    assert code == 2
    assert f"{output} already exists; refusing to overwrite a compiled output" in text
    assert output.read_text() == "keep me"


def test_compile_articles_refuses_to_write_beside_a_pinned_input(suite_dir, tmp_path, capsys):
    previous = tmp_path / "previous-input"
    previous.mkdir()
    shutil.copy(suite_dir / "dataset.json", previous / "dataset.json")
    code, text = compile_cli(suite_dir, previous / "new-dataset.json", capsys)
    assert code == 2
    assert f"{previous} holds the pinned input dataset.json of tiny-v1-" in text
    assert "keep the previous input directory unchanged" in text
    assert not (previous / "new-dataset.json").exists()


def test_compile_articles_refuses_to_write_into_the_evidence_home(suite_dir, capsys):
    code, text = compile_cli(suite_dir, suite_dir / "evidence" / "dataset.json", capsys)
    assert code == 2 and "is inside the evidence home" in text


def test_compile_articles_stops_at_the_first_bad_case_and_writes_nothing(suite_dir, tmp_path, capsys):
    (suite_dir / "evidence" / "references" / "article-003-en-bridge.txt").write_text("something else entirely")
    output = tmp_path / "external" / "dataset.json"
    code, text = compile_cli(suite_dir, output, capsys)
    assert code == 2 and "case article-003-en-bridge" in text
    assert not output.exists()


# --- an xdist worker's load -----------------------------------------------------------------------


def test_a_worker_loads_the_dataset_its_controller_checked_and_still_verifies_the_evidence(suite_dir):
    checked = load_suite(str(suite_dir))
    assert checked.dataset_sha256 == sha256_bytes((suite_dir / "dataset.json").read_bytes())
    # Authoring files edited mid-run: the controller's check is not repeated, since a worker scores
    # from dataset.json and the evidence only, and those are the bytes the controller checked.
    edit_json(suite_dir / "rules.json", lambda r: r["cases"].reverse())
    with pytest.raises(BindingError):
        load_suite(str(suite_dir))
    worker = load_suite(str(suite_dir), validated_sha256=checked.dataset_sha256)
    assert [case.id for case in worker.cases] == [case.id for case in checked.cases]
    assert worker.captures == checked.captures

    capture = suite_dir / "evidence" / "captures" / "article-003-en-bridge.html"
    capture.write_bytes(capture.read_bytes() + b" ")
    with pytest.raises(EvidenceError, match="case article-003-en-bridge: evidence file"):
        load_suite(str(suite_dir), validated_sha256=checked.dataset_sha256)


def test_a_worker_refuses_a_dataset_that_changed_after_the_run_started(suite_dir):
    checked = load_suite(str(suite_dir))
    dataset = suite_dir / "dataset.json"
    dataset.write_bytes(dataset.read_bytes() + b"\n")  # still valid, other bytes
    with pytest.raises(BindingError, match=r"dataset.json changed after the run started \(it now hashes to "
                                           r"[0-9a-f]{64}, the run checked " + checked.dataset_sha256 + r"\); one run cannot mix"):
        load_suite(str(suite_dir), validated_sha256=checked.dataset_sha256)
