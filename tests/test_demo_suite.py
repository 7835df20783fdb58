"""The committed demo suite (``cases/demo``): it loads, recompiles byte for byte, and its evidence is honest.

Honest evidence means: every reference line and every stable phrase is text a reader actually sees on
the captured page (hidden, template, noscript and collapsed text never counts, SPEC §3.2), the
excerpt case claims only the displayed part, and each capture declares the charset its rule names.
Visibility is computed here with a small lxml walk, independent of the scorer under test.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import lxml.html
import pytest

from lexbench.dataset.case import Case
from lexbench.dataset.suite import build_suite, load_suite
from lexbench.text import FRAGMENT_CHARS

SUITE_DIR = Path(__file__).resolve().parents[1] / "cases" / "demo"
INVISIBLE_TAGS = {"head", "script", "style", "template", "noscript", "title"}
HIDDEN_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.IGNORECASE)
META_CHARSET = re.compile(rb"""<meta\s+charset=["']?([A-Za-z0-9_-]+)""", re.IGNORECASE)


@pytest.fixture(scope="module")
def suite():
    return load_suite("demo")


@pytest.fixture(scope="module")
def cases(suite) -> dict[str, Case]:
    return {case.id: case for case in suite.cases}


@pytest.fixture(scope="module")
def visible(suite) -> dict[str, str]:
    """Normalised visible text of every capture, by case id."""
    return {case.id: normalise(visible_text(decode_capture(case, suite.captures[case.id]))) for case in suite.cases}


def normalise(text: str) -> str:
    """SPEC §3.2 normal form: NFKC, casefold, letters and digits only."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch)[0] in "LN")


def articles(suite) -> list[Case]:
    """The fixed articles (a post collection has no reference body)."""
    return [case for case in suite.cases if case.body is not None]


def plain_articles(suite) -> list[Case]:
    """Fixed articles without a comment contract: their reference alone is a complete answer."""
    return [case for case in articles(suite) if case.comments is None]


def declared_charset(content_type: str) -> str:
    match = re.search(r"charset=([A-Za-z0-9_-]+)", content_type)
    assert match, f"content_type {content_type!r} names no charset"
    return match.group(1).lower()


def decode_capture(case: Case, data: bytes) -> str:
    return data.decode(declared_charset(case.capture.content_type))


def visible_text(html: str) -> str:
    """The page's visible text: no head, script, style, template, noscript, ``hidden`` or inline
    ``display:none``/``visibility:hidden`` subtrees, no attribute text, and a closed ``<details>``
    shows only its first direct ``<summary>``. Blocks are separated by newlines."""
    parts: list[str] = []

    def walk(element) -> None:
        parts.append(element.text or "")
        closed = element.tag == "details" and element.get("open") is None
        summary_seen = False
        for child in element:
            if isinstance(child.tag, str) and child.tag not in INVISIBLE_TAGS and child.get("hidden") is None \
                    and not HIDDEN_STYLE.search(child.get("style") or ""):
                if not closed or (child.tag == "summary" and not summary_seen):
                    walk(child)
                summary_seen = summary_seen or child.tag == "summary"
            parts.append("\n")
            parts.append(child.tail or "")

    walk(lxml.html.document_fromstring(html).body)
    return "".join(parts)


def all_markup_text(html: str) -> str:
    """Every text node of the document, hidden or not (for proving hidden text is really in the markup)."""
    return normalise(" ".join(lxml.html.document_fromstring(html).itertext()))


# --- the suite as a whole -------------------------------------------------------------------------


def test_suite_loads_with_at_least_twelve_reviewed_fixed_articles(suite):
    assert suite.id == "demo"
    assert suite.dataset.suite.review_status == "reviewed"
    assert len(articles(suite)) >= 12
    for case in suite.cases:
        if case.kind == "post_collection":  # scored by its posts contract, not a body
            assert case.body is None and case.posts is not None and case.category == "forum"
            assert 3 <= len(case.stable_groups) <= 6 and case.title and case.page_identity, case.id
            continue
        assert case.kind == "fixed_article" and case.category == "article" and case.delivery == "text"
        assert case.body is not None and case.body.contract_version == 4 and case.body.segmentation_version == 3
        assert 3 <= len(case.stable_groups) <= 6, case.id
        assert case.title_basis == "observed" and case.title
        assert case.page_identity, case.id


def test_case_numbers_are_ordered_and_keep_a_gap(suite):
    numbers = [int(case.id.split("-")[1]) for case in suite.cases]
    assert numbers == sorted(numbers)
    assert 9 not in numbers and max(numbers) > 9, "the demo suite shows that gaps keep original candidate ids"


def test_recompiling_rules_and_evidence_reproduces_dataset_json(tmp_path):
    copy = tmp_path / "demo"
    copy.mkdir()
    shutil.copy(SUITE_DIR / "rules.json", copy / "rules.json")
    shutil.copy(SUITE_DIR / "cohort.json", copy / "cohort.json")
    shutil.copytree(SUITE_DIR / "evidence", copy / "evidence")
    out = build_suite(copy)
    assert out.read_bytes() == (SUITE_DIR / "dataset.json").read_bytes()


# --- captures -------------------------------------------------------------------------------------


def test_every_capture_declares_the_charset_its_rule_names(suite):
    charsets = set()
    for case in suite.cases:
        data = suite.captures[case.id]
        match = META_CHARSET.search(data[:4096])
        assert match, f"{case.id}: capture has no <meta charset>"
        declared = declared_charset(case.capture.content_type)
        assert match.group(1).decode("ascii").lower() == declared, case.id
        data.decode(declared)  # the bytes really are in that charset
        charsets.add(declared)
    assert "utf-8" in charsets and len(charsets) == 2, charsets


def test_the_legacy_charset_capture_is_not_utf8(suite):
    (case,) = [c for c in suite.cases if declared_charset(c.capture.content_type) != "utf-8"]
    with pytest.raises(UnicodeDecodeError):
        suite.captures[case.id].decode("utf-8")
    assert "volvió" in decode_capture(case, suite.captures[case.id])


def test_title_is_the_visible_h1_not_the_head_title(suite):
    differs = 0
    for case in suite.cases:
        root = lxml.html.document_fromstring(decode_capture(case, suite.captures[case.id]))
        (h1,) = root.body.iter("h1")
        assert h1.text_content().strip() == case.title, case.id
        head_title = root.find(".//title").text_content()
        differs += head_title.strip() != case.title
    assert differs == len(suite.cases), "every demo page's <title> element differs from its visible headline"


# --- references ---------------------------------------------------------------------------------------


def test_every_reference_line_is_visible_text_of_its_capture(suite, visible):
    for case in articles(suite):
        for number, line in enumerate(case.reference_text.split("\n"), start=1):
            assert normalise(line), f"{case.id} line {number} is empty"
            assert normalise(line) in visible[case.id], f"{case.id} line {number} is not visible text: {line[:60]!r}"


def test_title_is_scored_apart_and_not_a_reference_line(suite):
    for case in articles(suite):
        assert case.title not in case.reference_text.split("\n"), case.id


def test_every_stable_phrase_is_visible_text(suite, visible):
    for case in suite.cases:
        for group in case.resolved_stable_groups():
            assert group.basis and group.observed, f"{case.id}/{group.id} lacks basis or observation date"
            for phrase in group.phrases:
                assert normalise(phrase) in visible[case.id], f"{case.id}/{group.id}: {phrase!r} is not visible"


def test_stable_phrases_are_not_body_text(suite):
    """A stable phrase that also occurs in the title or body would be satisfied by the article alone."""
    for case in articles(suite):
        article = normalise(f"{case.title}\n{case.reference_text}")
        for group in case.stable_groups:
            for phrase in group.phrases:
                assert normalise(phrase) not in article, f"{case.id}/{group.id}: {phrase!r} also occurs in the article"


def test_regions_give_several_fragments_and_the_ending_closes_the_reference(suite):
    for case in articles(suite):
        assert 2 <= len(case.body.regions) <= 5, case.id
        for region, text in zip(case.body.regions, case.region_texts(), strict=True):
            assert len(normalise(text)) >= 3 * FRAGMENT_CHARS, f"{case.id}: region {region.label!r} is too short"
        end = case.body.reference_scope.end
        assert case.reference_text.endswith(end), case.id
        assert len(normalise(end)) >= 2 * FRAGMENT_CHARS, case.id


def test_page_identity_matches_its_own_page_and_no_sibling(suite):
    texts = {case.id: " ".join(f"{case.title}\n{case.reference_text or ''}".split()) for case in suite.cases}
    for case in suite.cases:
        for pattern in case.page_identity:
            assert re.search(pattern, texts[case.id]), f"{case.id}: {pattern!r} does not match its own page"
        for other, text in texts.items():
            if other != case.id:
                assert not all(re.search(p, text) for p in case.page_identity), f"{case.id} identity matches {other}"


# --- the pages that exercise visibility rules ----------------------------------------------------------


def hidden_but_present(case: Case, data: bytes, sentence: str) -> None:
    """``sentence`` is in the capture's markup, not in its visible text, and not in the reference."""
    html = decode_capture(case, data)
    assert normalise(sentence) in all_markup_text(html), f"{case.id}: {sentence!r} is not in the markup at all"
    assert normalise(sentence) not in normalise(visible_text(html)), f"{case.id}: {sentence!r} is visible"
    assert normalise(sentence) not in normalise(case.reference_text), f"{case.id}: hidden {sentence!r} is in the reference"


def test_hidden_template_noscript_and_closed_details_text_is_excluded(suite, cases):
    case = cases["article-004-en-dahlia-tubers"]
    data = suite.captures[case.id]
    for sentence in (
        "Keep this sheet with your tubers so you remember which variety is which.",  # inline display:none
        "Enter your postcode to see the average first frost date for your area",  # hidden attribute
        "Comments are checked by our editors before they appear.",  # <template>
        "Turn on JavaScript to read and post comments on this guide.",  # <noscript>
        "In our trial beds, unlifted clumps survived three winters out of twelve.",  # closed <details> body
        "Before you go: get our free dahlia variety chart",  # display:none modal outside the article
    ):
        hidden_but_present(case, data, sentence)
    lines = case.reference_text.split("\n")
    assert "Why not just leave them in the ground?" in lines  # the closed details' summary stays visible
    assert "What you will need" in lines and "A garden fork with flat tines" in lines  # open details content


def test_excerpt_case_claims_only_the_displayed_part(suite, cases):
    case = cases["article-005-en-skerry-lighthouse"]
    scope = case.body.reference_scope
    assert scope.kind == "displayed_excerpt" and "Read more" in scope.cutoff_evidence
    assert any("Read more" in group.phrases for group in case.stable_groups if group.region == "controls")
    data = suite.captures[case.id]
    for sentence in (
        "a light that nobody looks at is only half a light",
        "it was his radio call, not the remote monitoring system, that reached the board first",
        "the doctor on the mainland has asked them, politely, to think about a plan",
    ):
        hidden_but_present(case, data, sentence)
    assert scope.end.endswith("has never quite stopped relying on them.")


def test_only_the_excerpt_case_declares_a_displayed_excerpt(suite):
    excerpts = [case.id for case in articles(suite) if case.body.reference_scope.kind == "displayed_excerpt"]
    assert excerpts == ["article-005-en-skerry-lighthouse"]
    assert all(case.track == "excerpt" for case in suite.cases if case.id in excerpts)


def test_figure_caption_is_body_text_and_alt_text_is_not(suite, cases):
    case = cases["article-010-en-whale-skeleton"]
    assert any(line.startswith("Conservators Ruth Ellory and Sam") for line in case.reference_text.split("\n"))
    assert "padded table" in suite.captures[case.id].decode("utf-8")  # the alt text exists in the markup
    assert "padded table" not in case.reference_text


def test_long_article_has_subheadings_a_list_and_a_table(cases):
    case = cases["article-003-en-water-loss-audit"]
    lines = case.reference_text.split("\n")
    assert len(case.reference_text.split()) >= 3000
    assert "Where the water goes" in lines and "Lessons for other towns" in lines
    assert "Component\tGallons per day\tShare of water produced" in lines  # table row, cells tab-separated
    assert "Use night flow to decide where to send leak crews, rather than walking the whole network." in lines


def test_demo_covers_cjk_and_other_languages(suite):
    langs = {case.lang for case in suite.cases}
    assert {"en", "zh", "ja", "de", "es", "fr"} <= langs
    for case in suite.cases:
        assert case.id.split("-")[2] == case.lang
        if case.lang in ("zh", "ja"):
            assert case.track == "body-cjk"


# --- the scorer accepts the reference itself ------------------------------------------------------------


def reference_answer(case: Case, *, stable_text: bool) -> str:
    """A Markdown answer: the title as a heading, the reference body, and optionally the stable text."""
    parts = [f"# {case.title}", *case.reference_text.split("\n")]
    if stable_text:
        parts += [phrase for group in case.stable_groups for phrase in group.phrases]
    return "\n\n".join(parts)


def test_reference_answer_with_stable_text_passes_every_case(suite):
    evaluate = pytest.importorskip("lexbench.scoring.evaluate").evaluate_response
    from lexbench.answer import ProviderResult

    failures = []
    for case in plain_articles(suite):
        answer = ProviderResult(success=True, content=reference_answer(case, stable_text=True), content_format="markdown")
        verdict = evaluate(case, answer)
        if verdict.outcome != "pass":
            failures.append(f"{case.id}: {verdict.explanation}")
    assert not failures, "\n".join(failures)


def test_reference_answer_without_page_chrome_fails_only_on_stable_groups(suite):
    evaluate = pytest.importorskip("lexbench.scoring.evaluate").evaluate_response
    from lexbench.answer import ProviderResult

    for case in plain_articles(suite):
        answer = ProviderResult(success=True, content=reference_answer(case, stable_text=False), content_format="markdown")
        verdict = evaluate(case, answer)
        failed = {c.name for c in verdict.components if c.passed is False}
        assert failed <= {"stable_groups"}, f"{case.id}: {verdict.explanation}"


def test_whole_capture_as_html_answer_passes_every_case(suite):
    """The scorer's own HTML projection of each capture agrees with the evidence: a whole-page dump passes."""
    evaluate = pytest.importorskip("lexbench.scoring.evaluate").evaluate_response
    from lexbench.answer import ProviderResult

    failures = []
    for case in suite.cases:
        html = decode_capture(case, suite.captures[case.id])
        verdict = evaluate(case, ProviderResult(success=True, content=html, content_format="html"))
        if verdict.outcome != "pass":
            failures.append(f"{case.id}: {verdict.explanation}")
    assert not failures, "\n".join(failures)


def test_sibling_article_and_missing_last_region_fail(suite):
    evaluate = pytest.importorskip("lexbench.scoring.evaluate").evaluate_response
    from lexbench.answer import ProviderResult

    cases = plain_articles(suite)
    for case, sibling in zip(cases, cases[1:] + cases[:1], strict=True):
        wrong = ProviderResult(success=True, content=reference_answer(sibling, stable_text=True), content_format="markdown")
        assert evaluate(case, wrong).outcome == "fail", f"{case.id} accepted {sibling.id}"
        cut = case.body.regions[-1].first_line - 1
        truncated = "\n\n".join([f"# {case.title}", *case.reference_text.split("\n")[:cut]]
                                + [p for g in case.stable_groups for p in g.phrases])
        verdict = evaluate(case, ProviderResult(success=True, content=truncated, content_format="markdown"))
        assert verdict.outcome == "fail", f"{case.id} accepted an answer without its last region"

