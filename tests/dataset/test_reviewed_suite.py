"""Reviewed suites over an external corpus: the committed review, its materialisation (SPEC §3.5, §4)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import lxml.html
import pytest

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.dataset.case import CaseKind, ReviewStatus
from lexbench.dataset.cohort import check_inventory, load_cohort
from lexbench.dataset.compile import dump_json, load_rules, sha256_bytes
from lexbench.dataset.endings import choose_ending
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.importers.reviewed import cut_reference
from lexbench.dataset.suite import load_suite
from lexbench.errors import CorpusImportError
from lexbench.evals.articles import capture_html
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, Outcome

REPO_ROOT = Path(__file__).resolve().parents[2]
REVIEW = REPO_ROOT / "cases" / "articles"
CORPUS = REPO_ROOT.parent / "shared" / "corpus"


def html_answer(html: str) -> ProviderResult:
    return ProviderResult(success=True, content=html, content_format="html", metadata=ResultMetadata(upstream_status=200))


# --- the committed review (no corpus needed) ----------------------------------------------------------


def test_the_committed_review_is_a_valid_reviewed_suite() -> None:
    rules = load_rules(REVIEW / "rules.json")
    check_inventory(rules, load_cohort(REVIEW / "cohort.json"))
    sources = json.loads((REVIEW / "sources.json").read_text(encoding="utf-8"))
    assert sources["evidence_home"] == "../shared/corpus"
    assert rules.suite.review_status is ReviewStatus.REVIEWED
    for rule in rules.cases:
        assert rule.id in sources["cases"]
        if rule.kind is CaseKind.FIXED_ARTICLE:
            assert rule.body is not None and rule.title
        if rule.comments is not None or rule.posts is not None:
            contract = rule.comments or rule.posts
            assert contract.html is not None and contract.baseline >= 1


def test_the_review_commits_no_capture_or_reference_body() -> None:
    committed = {path.name for path in REVIEW.iterdir()}
    assert committed <= {"rules.json", "cohort.json", "sources.json", "review-notes.json", "README.md", "tasks.json",
                         "dataset-catalog.json", "source-inputs.json"}
    for rule in load_rules(REVIEW / "rules.json").cases:
        if rule.body is not None:
            assert len(rule.body.reference_scope.end) < rule.body.reference.chars  # a reviewed ending passage


# --- materialisation on a synthetic corpus ------------------------------------------------------------


def make_repository(tmp_path: Path, *, page: str, reference: str) -> tuple[Path, Path]:
    """A repository root (pyproject.toml), a corpus beside it and a one-case review pointing at it."""
    root = tmp_path / "repo"
    (root / "reviews" / "one").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    corpus = tmp_path / "corpus" / "dragnet"
    (corpus / "HTML").mkdir(parents=True)
    (corpus / "Corrected").mkdir()
    with gzip.open(corpus / "HTML" / "X1.html.gz", "wb") as handle:
        handle.write(page.encode())
    (corpus / "Corrected" / "X1.html.corrected.txt").write_text(reference, encoding="utf-8")
    lines = cut_reference(reference, "before_comments", None)
    text = "\n".join(lines)
    rule = {
        "id": "article-001-en-tides", "name": "Tides", "url": "https://tides.example/a", "category": "article",
        "track": "comments", "task_prompt": "Return the article and its comments.", "kind": "fixed_article",
        "lang": "en", "capture": {"path": "captures/article-001-en-tides.html", "sha256": sha256_bytes(page.encode())},
        "title": "Spring tides at the bar", "title_basis": "observed",
        "body": {"contract_version": 4, "reference": {"path": "references/article-001-en-tides.txt",
                 "sha256": sha256_bytes(text.encode()), "chars": len(text), "opening": text[:40], "ending": text[-40:]},
                 "reference_scope": {"kind": "complete", "end": choose_ending(lines).text},
                 "regions": [{"label": "Article", "first_line": 1, "last_line": len(lines)}]},
        "stable_text_review_defaults": {"basis": "site header", "observed": "2026-01-01"},
        "stable_groups": [{"id": "site", "region": "navigation", "phrases": ["Tide Notes"], "location": "header"}],
        "comments": {"contract_version": 2, "baseline": 2, "html": {"record": "li.comment", "author": "cite",
                     "text": "p"}, "ignored_labels": [], "unavailable_notices": [], "heading_labels": ["Comments"],
                     "end_labels": [], "observed": "2026-01-01", "evidence": "two comments on the capture"},
    }
    rules = {"suite": {"id": "one", "revision": 1, "name": "one reviewed page"}, "cases": [rule]}
    review = root / "reviews" / "one"
    (review / "rules.json").write_bytes(dump_json(rules))
    (review / "sources.json").write_bytes(dump_json({"evidence_home": "../corpus", "cases": {rule["id"]: {
        "capture": "dragnet/HTML/X1.html.gz",
        "reference": {"file": "dragnet/Corrected/X1.html.corrected.txt", "part": "before_comments"}}}}))
    cohort = {"schema_version": 1, "suite": "one", "revision": 1, "candidates": [
        {"id": rule["id"], "name": "Tides", "url": rule["url"], "status": "approved", "added_in": 1}],
        "history": [{"revision": 1, "date": "2026-01-01", "summary": "first", "inventory": 1}]}
    (review / "cohort.json").write_bytes(dump_json(cohort))
    return review, corpus


PAGE = ("<html><body><nav>Tide Notes</nav><h1>Spring tides at the bar</h1><p>The bar is shallow at low water.</p>"
        "<p>Cross it two hours either side of high water.</p><h2>Comments</h2><ol>"
        "<li class='comment'><cite>Ana</cite><p>Two hours is generous on springs.</p></li>"
        "<li class='comment'><cite>Bo</cite><p>Agreed, I go at half flood.</p></li></ol></body></html>")
REFERENCE = ("The bar is shallow at low water.\nCross it two hours either side of high water.\n"
             "!@#$%^&*()  COMMENTS\nAna\nTwo hours is generous on springs.\n")


def test_materialising_a_review_builds_a_runnable_reviewed_suite(tmp_path: Path) -> None:
    review, _corpus = make_repository(tmp_path, page=PAGE, reference=REFERENCE)
    report = import_corpus("reviewed-suite", review, tmp_path / "out")
    assert report.imported == ["article-001-en-tides"]
    suite = load_suite(str(tmp_path / "out"))
    assert suite.dataset.suite.review_status is ReviewStatus.REVIEWED
    case = suite.cases[0]
    assert case.reference_text == "The bar is shallow at low water.\nCross it two hours either side of high water."
    assert evaluate_response(case, html_answer(PAGE)).outcome is Outcome.PASS


def test_a_changed_corpus_file_is_named(tmp_path: Path) -> None:
    review, corpus = make_repository(tmp_path, page=PAGE, reference=REFERENCE)
    with gzip.open(corpus / "HTML" / "X1.html.gz", "wb") as handle:
        handle.write(PAGE.replace("generous", "plenty").encode())
    with pytest.raises(CorpusImportError, match="no longer hash to the reviewed capture sha256"):
        import_corpus("reviewed-suite", review, tmp_path / "out")


def test_an_absent_evidence_home_is_explained(tmp_path: Path) -> None:
    review, corpus = make_repository(tmp_path, page=PAGE, reference=REFERENCE)
    for path in sorted(corpus.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    corpus.rmdir()
    corpus.parent.rmdir()
    with pytest.raises(CorpusImportError, match="is absent"):
        import_corpus("reviewed-suite", review, tmp_path / "out")


# --- the real review against ../shared/corpus -----------------------------------------------------------


@pytest.fixture(scope="module")
def real_suite(tmp_path_factory: pytest.TempPathFactory):
    if not (CORPUS / "dragnet" / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {CORPUS} is absent (it lives outside git, in ../shared/corpus)")
    out = tmp_path_factory.mktemp("articles") / "suite"
    import_corpus("reviewed-suite", REVIEW, out)
    return load_suite(str(out))


def test_every_reviewed_capture_satisfies_its_own_contract(real_suite) -> None:
    failing = {}
    for case in real_suite.cases:
        verdict = evaluate_response(case, html_answer(capture_html(case, real_suite.captures[case.id])))
        if verdict.outcome is not Outcome.PASS:
            failing[case.id] = verdict.explanation
    assert not failing


def test_every_reviewed_capture_fails_without_its_records(real_suite) -> None:
    passing = []
    for case in real_suite.cases:
        contract, component = (case.comments, Component.COMMENTS) if case.comments else (case.posts, Component.POSTS)
        if contract is None:
            continue
        root = lxml.html.document_fromstring(capture_html(case, real_suite.captures[case.id]))
        for element in root.cssselect(contract.html.record):
            element.drop_tree()
        verdict = evaluate_response(case, html_answer(lxml.html.tostring(root, encoding="unicode")))
        if verdict.component(component).passed is not False:
            passing.append(case.id)
    assert not passing
