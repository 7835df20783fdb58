"""The importers on the real corpus in ../shared/corpus (never copied into git; skipped when absent)."""

import re
from pathlib import Path

import pytest

from lexbench.dataset.case import CASE_ID_PATTERN, MAX_REGIONS, MIN_ENDING_FRAGMENTS, ReviewStatus
from lexbench.dataset.compile import sha256_bytes
from lexbench.dataset.endings import SHORT_REFERENCE_FLAG
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.importers.html_text import visible_text
from lexbench.dataset.suite import load_suite
from lexbench.errors import CorpusImportError
from lexbench.text import FRAGMENT_CHARS, normalise

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
PAGES = 15
FORMATS = {
    "scrapinghub-aeb": "aeb",
    "mozilla-readability": "readability",
    "magic-html-bench": "magic-html-articles",
}


@pytest.fixture(params=sorted(FORMATS))
def corpus_format(request):
    folder = CORPUS / request.param
    if not (folder / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {folder} is absent (it lives outside git, in ../shared/corpus)")
    return request.param


def test_first_pages_import_and_load_back(tmp_path, corpus_format):
    out = tmp_path / "suite"
    report = import_corpus(corpus_format, CORPUS / corpus_format, out, limit=PAGES)
    assert len(report.imported) + len(report.skipped) == PAGES
    assert len(report.imported) >= PAGES - 2

    suite = load_suite(str(out))
    assert suite.id == FORMATS[corpus_format]
    assert suite.dataset.suite.review_status is ReviewStatus.IMPORTED_UNREVIEWED
    assert [case.id for case in suite.cases] == report.imported

    findable = 0
    for case in suite.cases:
        assert re.match(CASE_ID_PATTERN, case.id), case.id
        assert case.id.startswith("article-") and case.lang in case.id.split("-")[2]
        body = case.body
        text = case.reference_text
        assert sha256_bytes(text.encode("utf-8")) == body.reference.sha256
        assert len(text) == body.reference.chars
        assert text.startswith(body.reference.opening) and text.endswith(body.reference.ending)
        assert (out / "evidence" / body.reference.path).read_bytes() == text.encode("utf-8")
        assert not text.endswith("\n") and "\n\n" not in text

        lines = text.split("\n")
        assert 1 <= len(body.regions) <= MAX_REGIONS
        assert body.regions[0].first_line == 1 and body.regions[-1].last_line == len(lines)
        for before, after in zip(body.regions, body.regions[1:]):
            assert after.first_line == before.last_line + 1
        for region_text in case.region_texts():
            assert len(normalise(region_text)) >= FRAGMENT_CHARS
        end = body.reference_scope.end
        assert f"\n{end}\n" in f"\n{text}\n", "the ending is whole consecutive lines of the reference"
        assert len(normalise(end)) // FRAGMENT_CHARS >= MIN_ENDING_FRAGMENTS or (
            end == text and SHORT_REFERENCE_FLAG in case.flags)

        charset = case.capture.content_type.split("charset=", 1)[1]
        page_text = normalise(visible_text(suite.captures[case.id], charset))
        if normalise(lines[0])[:80] in page_text:
            findable += 1
    assert findable > len(suite.cases) / 2, f"only {findable}/{len(suite.cases)} opening lines found in their captures"


def real_folder(name: str) -> Path:
    folder = CORPUS / name
    if not (folder / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {folder} is absent (it lives outside git, in ../shared/corpus)")
    return folder


def test_dragnet_first_pages_split_body_from_comments(tmp_path):
    out = tmp_path / "suite"
    report = import_corpus("dragnet", real_folder("dragnet"), out, limit=PAGES)
    assert len(report.imported) == PAGES and not report.skipped
    suite = load_suite(str(out))
    for case in suite.cases:
        assert "COMMENTS" not in case.reference_text and case.comments is None
        assert "reference_has_comments" in case.flags
    # Every staged page has > 200 characters after the delimiter (corpus README).
    assert all(probe["comments"]["chars"] > 150 for probe in report.probes.values())


def test_trafilatura_first_pages_carry_titles_and_probes(tmp_path):
    out = tmp_path / "suite"
    report = import_corpus("trafilatura-eval", real_folder("trafilatura-eval"), out, limit=PAGES, keep_going=True)
    assert len(report.imported) >= PAGES // 2
    assert all("no annotated title" in skip.reason for skip in report.skipped)
    suite = load_suite(str(out))
    shown = sum("title_not_standalone_in_capture" not in case.flags for case in suite.cases)
    assert shown > len(suite.cases) * 0.7, f"only {shown}/{len(suite.cases)} annotated titles stand alone in their captures"
    assert set(report.probes) == {case.id for case in suite.cases}
    assert all(probe["without"] for probe in report.probes.values())


@pytest.mark.parametrize("corpus_format", ["magic-html-forum", "webmainbench-sample"])
def test_other_formats_import_their_first_pages(tmp_path, corpus_format):
    folder = real_folder("magic-html-bench" if corpus_format == "magic-html-forum" else corpus_format)
    out = tmp_path / "suite"
    report = import_corpus(corpus_format, folder, out, limit=PAGES)
    assert len(report.imported) >= 4
    assert [case.id for case in load_suite(str(out)).cases] == report.imported


def test_gne_lists_are_refused_with_the_reason(tmp_path):
    with pytest.raises(CorpusImportError, match=r"4 skipped: list page without reference or URL"):
        import_corpus("gne-zh-lists", real_folder("gne-zh-lists"), tmp_path / "out")
