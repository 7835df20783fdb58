"""Invalid rules and datasets fail with a message naming the case, the field and the problem (SPEC §2)."""

import json

import pytest

from lexbench.dataset.compile import load_rules
from lexbench.dataset.suite import build_suite, load_suite
from lexbench.errors import RulesError
from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture
def suite_dir(tmp_path):
    return write_suite(tmp_path / "s", ARTICLES)


def edit_rules(root, change):
    rules = json.loads((root / "rules.json").read_text())
    change(rules["cases"][0])
    (root / "rules.json").write_text(json.dumps(rules))


def recompile(root):
    (root / "dataset.json").unlink()
    build_suite(root)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["body"].update(contract_version=1), "version 1 is unsupported"),
        (lambda c: c["body"].update(contract_version=7), "version 7 is unknown: this lexbench reads version 4"),
        (lambda c: c["stable_groups"][0].update(basis=""),
         "stable_groups.0.basis: Value error, an empty basis override is invalid: omit the field to use "
         "stable_text_review_defaults"),
        (lambda c: c["stable_text_review_defaults"].update(observed=" "), "an empty observed override is invalid"),
        (lambda c: c.update(delivery="file"), "delivery 'file' needs a file contract"),
        (lambda c: c.update(delivery="resources"), "delivery 'resources' needs a resources contract"),
        (lambda c: c.update(file={"sha256": "a" * 64, "size": 3, "media_type": "text/csv"}),
         "a file contract belongs to 'file' delivery, not 'text'"),
        (lambda c: c.update(delivery="file", file={"sha256": "a" * 64, "size": 3, "media_type": "text/csv"}),
         "a 'file' case is judged by its file contract alone: drop body, stable_groups, page_identity"),
        (lambda c: c.update(page_identity=["Tidal (turbines"]), "does not compile"),
        (lambda c: c["body"]["reference_scope"].update(end=""), "reference_scope.end"),
        (lambda c: c.update(stable_text_review_defaults={}), "stable_text_review_defaults is empty"),
        (lambda c: c.update(stable_text_review_defaults=None), "no stability basis"),
        (lambda c: c["body"]["regions"][1].update(first_line=4), "expected 3"),
        (lambda c: c.update(id="Article-1"), "id"),
        (lambda c: c.update(surprise=True), "surprise"),
    ],
)
def test_invalid_rules_name_case_and_field(suite_dir, change, message):
    edit_rules(suite_dir, change)
    with pytest.raises(RulesError, match=message) as excinfo:
        load_rules(suite_dir / "rules.json")
    assert "article-001-en-tides" in str(excinfo.value) or "Article-1" in str(excinfo.value) or "#1" in str(excinfo.value)


def test_ending_from_another_article_is_refused_at_compile(suite_dir):
    edit_rules(suite_dir, lambda c: c["body"]["reference_scope"].update(end="A sentence from another article entirely."))
    with pytest.raises(RulesError, match="article-001-en-tides: reference_scope.end is not part of the reference"):
        recompile(suite_dir)


def test_duplicate_case_ids_are_refused(suite_dir):
    rules = json.loads((suite_dir / "rules.json").read_text())
    rules["cases"].append(rules["cases"][0])
    (suite_dir / "rules.json").write_text(json.dumps(rules))
    with pytest.raises(RulesError, match="duplicate case id 'article-001-en-tides'"):
        load_rules(suite_dir / "rules.json")


def test_edited_reference_text_in_dataset_is_refused_at_load(suite_dir):
    dataset = json.loads((suite_dir / "dataset.json").read_text())
    text = dataset["cases"][0]["reference_text"]
    dataset["cases"][0]["reference_text"] = text[:30] + text[30:].replace("e", "a", 1)
    (suite_dir / "dataset.json").write_text(json.dumps(dataset))
    with pytest.raises(RulesError, match="sha256"):
        load_suite(str(suite_dir))
