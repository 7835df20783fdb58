"""The importers on the real corpus in ../shared/corpus (never copied into git; skipped when absent)."""

import re
from pathlib import Path

import pytest

from lexbench.dataset.case import CASE_ID_PATTERN, FRAGMENT_CHARS, MAX_REGIONS, MIN_ENDING_FRAGMENTS, ReviewStatus
from lexbench.dataset.compile import sha256_bytes
from lexbench.dataset.endings import SHORT_REFERENCE_FLAG
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.importers.html_text import visible_text
from lexbench.dataset.segment import normalise
from lexbench.dataset.suite import load_suite

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
