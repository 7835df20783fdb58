"""evaluate_response on synthetic accepted and rejected answers (SPEC §3)."""

from __future__ import annotations

import re
import textwrap
import time

import pytest
from factories import (
    ATTRIBUTION,
    ENDING,
    FOOTER,
    NAVIGATION,
    OTHER_PARAGRAPHS,
    OTHER_TITLE,
    PARAGRAPHS,
    TITLE,
    answer,
    html_page,
    make_case,
    markdown_page,
    text_page,
)

from lexbench.answer import ErrorType, ResultMetadata
from lexbench.dataset.case import Case
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, Outcome, Verdict


@pytest.fixture(scope="module")
def case() -> Case:
    return make_case()


def component(verdict: Verdict, name: Component):
    result = verdict.component(name)
    assert result is not None, f"{name} missing from {verdict.components}"
    return result


def assert_pass(verdict: Verdict) -> None:
    assert verdict.outcome is Outcome.PASS, verdict.explanation
    assert verdict.failure_class is None
    assert verdict.explanation.startswith("pass: ")


def assert_content_fail(verdict: Verdict) -> None:
    assert verdict.outcome is Outcome.FAIL, verdict.explanation
    assert verdict.failure_class == "content"
    assert verdict.explanation.startswith("fail: ")
    assert component(verdict, Component.CALL).passed is True


# --- accepted ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "content_format"),
    [
        (markdown_page(), "markdown"),
        (text_page(), "text"),
        (html_page(), "html"),
        (markdown_page(), None),
        (html_page(), None),
        (text_page(), None),
    ],
    ids=["markdown", "text", "html", "markdown-sniffed", "html-sniffed", "text-sniffed"],
)
def test_complete_answer_passes_in_every_format(case: Case, content: str, content_format: str | None) -> None:
    verdict = evaluate_response(case, answer(content, content_format))
    assert_pass(verdict)
    assert component(verdict, Component.TITLE).passed is True
    assert component(verdict, Component.REGIONS).measured == 1.0
    assert component(verdict, Component.ENDING).measured == 1.0
    assert component(verdict, Component.STABLE_GROUPS).passed is True
    assert component(verdict, Component.PAGE_IDENTITY).passed is True
    assert "title found" in verdict.explanation
    assert "call ok (upstream 200" in verdict.explanation
    assert "completeness" not in verdict.explanation


def test_rewrapped_and_decorated_markdown_passes(case: Case) -> None:
    wrapped = [textwrap.fill(p, width=58) for p in PARAGRAPHS]
    wrapped[1] = wrapped[1].replace("green ink", "**green ink**").replace("the hour", "_the hour_")
    wrapped[3] = wrapped[3].replace("Sella Bay", "[Sella Bay](https://gazette.example/tags/sella-bay)")
    # A paragraph turned into a list, one clause per item.
    first, second = PARAGRAPHS[4].split(", and ")
    wrapped[4] = f"- {first},\n- and {second}"
    content = (
        f"{NAVIGATION}\n\n**{TITLE}**\n\n*{ATTRIBUTION}*\n\n" + "\n\n".join(wrapped) + f"\n\n> {FOOTER}\n"
    )
    verdict = evaluate_response(case, answer(content))
    assert_pass(verdict)
    assert component(verdict, Component.REGIONS).measured == 1.0


def test_title_as_setext_heading_and_extra_whitespace_passes(case: Case) -> None:
    content = markdown_page().replace(f"# {TITLE}", f"{TITLE.upper()}\n{'=' * 10}").replace(". ", ".   ")
    assert_pass(evaluate_response(case, answer(content)))


def test_title_on_its_own_line_directly_above_the_body_passes(case: Case) -> None:
    content = f"{TITLE}\n" + "\n\n".join(PARAGRAPHS) + f"\n\n{ATTRIBUTION}\n{FOOTER}\n"
    assert_pass(evaluate_response(case, answer(content)))


# --- rejected ----------------------------------------------------------------------------------------


def test_title_only_fails(case: Case) -> None:
    verdict = evaluate_response(case, answer(f"# {TITLE}\n"))
    assert_content_fail(verdict)
    assert component(verdict, Component.TITLE).passed is True
    assert component(verdict, Component.REGIONS).measured < 0.2
    assert component(verdict, Component.ENDING).passed is False


def test_navigation_only_fails_even_with_every_stable_group(case: Case) -> None:
    verdict = evaluate_response(case, answer(f"{NAVIGATION}\n\n{ATTRIBUTION}\n\n{FOOTER}\n"))
    assert_content_fail(verdict)
    assert component(verdict, Component.STABLE_GROUPS).passed is True
    assert component(verdict, Component.REGIONS).passed is False
    assert component(verdict, Component.TITLE).passed is False


def test_wrong_article_from_the_same_site_fails(case: Case) -> None:
    verdict = evaluate_response(case, answer(markdown_page(OTHER_PARAGRAPHS, OTHER_TITLE)))
    assert_content_fail(verdict)
    for name in (Component.TITLE, Component.REGIONS, Component.ENDING, Component.PAGE_IDENTITY):
        assert component(verdict, name).passed is False, name
    assert "page identity 0/1" in verdict.explanation


def test_repeated_opening_fails(case: Case) -> None:
    verdict = evaluate_response(case, answer(markdown_page(PARAGRAPHS[:2] * 25)))
    assert_content_fail(verdict)
    regions = component(verdict, Component.REGIONS)
    assert [d["coverage"] for d in regions.details][0] == 1.0
    assert "'Storm years'" in regions.evidence and "'Closing'" in regions.evidence


def test_one_omitted_region_fails_and_is_named(case: Case) -> None:
    verdict = evaluate_response(case, answer(markdown_page(PARAGRAPHS[:2] + PARAGRAPHS[4:])))
    assert_content_fail(verdict)
    regions = component(verdict, Component.REGIONS)
    assert regions.passed is False
    assert regions.threshold == 0.8
    assert re.search(r"region 2 'Storm years' \d+% of 45 fragments < 80%", verdict.explanation)
    assert component(verdict, Component.ENDING).passed is True
    assert [d["label"] for d in regions.details] == ["Opening", "Storm years", "Closing"]
    assert regions.details[1]["lines"] == [3, 4]


def test_missing_ending_fails_on_its_own(case: Case) -> None:
    verdict = evaluate_response(case, answer(markdown_page(PARAGRAPHS[:-1])))
    assert_content_fail(verdict)
    assert component(verdict, Component.REGIONS).passed is True  # the ending is a small part of 'Closing'
    ending = component(verdict, Component.ENDING)
    assert ending.passed is False and ending.measured == 0.0
    assert "ending 0% of 10 fragments < 80%" in verdict.explanation


def test_substantial_truncation_fails(case: Case) -> None:
    full = markdown_page()
    verdict = evaluate_response(case, answer(full[: int(len(full) * 0.6)]))
    assert_content_fail(verdict)
    assert component(verdict, Component.ENDING).passed is False
    assert component(verdict, Component.REGIONS).passed is False
    assert "'Closing'" in verdict.explanation


def test_missing_stable_group_fails_and_is_named(case: Case) -> None:
    verdict = evaluate_response(case, answer(markdown_page().replace(FOOTER, "")))
    assert_content_fail(verdict)
    groups = component(verdict, Component.STABLE_GROUPS)
    assert groups.passed is False and groups.measured == 1.0 and groups.threshold == 2.0
    assert "stable groups 1/2 (missing 'footer-letters')" in verdict.explanation
    assert groups.details[1]["missing"] == ["Valmora Gazette", "Letters to the editor"]


def test_legacy_v3_contract_scores_regions_without_ending(case: Case) -> None:
    legacy = make_case(body=case.body.model_copy(update={"contract_version": 3}))
    verdict = evaluate_response(legacy, answer(markdown_page(PARAGRAPHS[:-1])))
    assert_pass(verdict)
    assert verdict.component(Component.ENDING) is None


# --- title rules (SPEC §3.3) -------------------------------------------------------------------------


def body_markdown(prefix: str) -> str:
    return f"{prefix}\n\n{ATTRIBUTION}\n\n" + "\n\n".join(PARAGRAPHS) + f"\n\n{FOOTER}\n"


@pytest.mark.parametrize(
    ("prefix", "content_format"),
    [
        (f"```\n{TITLE}\n```", "markdown"),
        (f"    {TITLE}", "markdown"),
        (f"Today we publish {TITLE} in full.", "markdown"),
        (f"![{TITLE}](cover.jpg)", "markdown"),
        ("", "markdown"),
    ],
    ids=["fenced-code", "indented-code", "inside-sentence", "image-alt", "absent"],
)
def test_title_not_standalone_fails(case: Case, prefix: str, content_format: str) -> None:
    verdict = evaluate_response(case, answer(body_markdown(prefix), content_format))
    title = component(verdict, Component.TITLE)
    assert title.passed is False and title.measured == 0.0
    assert_content_fail(verdict)
    assert "not found as a standalone heading, line or paragraph" in verdict.explanation


def test_title_repeated_in_the_first_body_sentence_does_not_count(case: Case) -> None:
    # PARAGRAPHS[0] starts "When people speak of <title>, ...": a body repetition, not a title.
    verdict = evaluate_response(case, answer(body_markdown(NAVIGATION)))
    assert component(verdict, Component.TITLE).passed is False
    assert "inside longer text" in component(verdict, Component.TITLE).evidence


def test_provider_metadata_title_never_counts(case: Case) -> None:
    verdict = evaluate_response(case, answer(body_markdown(NAVIGATION), title=TITLE))
    assert component(verdict, Component.TITLE).passed is False


@pytest.mark.parametrize(
    "title_markup",
    [
        "",  # only <head><title>
        f"<h1 hidden>{TITLE}</h1>",
        f"<h1 style='display: none'>{TITLE}</h1>",
        f"<img alt='{TITLE}' src='cover.jpg'>",
        f"<pre>{TITLE}</pre>",
        f"<details><summary>Share</summary><h1>{TITLE}</h1></details>",
        f"<template><h1>{TITLE}</h1></template>",
    ],
    ids=["head-title", "hidden", "display-none", "img-alt", "pre", "closed-details", "template"],
)
def test_html_title_must_be_visible_outside_code(case: Case, title_markup: str) -> None:
    page = html_page().replace(f"<h1>{TITLE}</h1>", title_markup)
    page = page.replace(f"<title>{TITLE} | Valmora Gazette</title>", f"<title>{TITLE}</title>")
    assert f"<title>{TITLE}</title>" in page
    verdict = evaluate_response(case, answer(page, "html"))
    assert component(verdict, Component.TITLE).passed is False
    assert_content_fail(verdict)


def test_html_title_in_a_visible_block_element_passes(case: Case) -> None:
    page = html_page().replace(f"<h1>{TITLE}</h1>", f"<div class='headline'><strong>{TITLE}</strong></div>")
    assert_pass(evaluate_response(case, answer(page, "html")))


def test_titleless_and_untitled_sources_are_not_scored(case: Case) -> None:
    titleless = make_case(title=None, title_basis="titleless")
    verdict = evaluate_response(titleless, answer(body_markdown(NAVIGATION)))
    title = component(verdict, Component.TITLE)
    assert title.passed is None and title.evidence == "titleless post: no title to score"
    assert_pass(verdict)
    imported = make_case(title=None, title_basis="not_in_source")
    title = component(evaluate_response(imported, answer(body_markdown(NAVIGATION))), Component.TITLE)
    assert title.passed is None and title.evidence == "not scored: the source has no independent title"


# --- HTML visibility reaches the verdict -------------------------------------------------------------


@pytest.mark.parametrize(
    "wrapper",
    [
        "<div style='display:none'>{}</div>",
        "<div hidden>{}</div>",
        "<details><summary>More</summary>{}</details>",
        "<template>{}</template>",
        "<noscript>{}</noscript>",
    ],
    ids=["display-none", "hidden", "closed-details", "template", "noscript"],
)
def test_hidden_body_text_does_not_count(case: Case, wrapper: str) -> None:
    hidden_closing = "".join(f"<p>{p}</p>" for p in PARAGRAPHS[4:])
    page = html_page(PARAGRAPHS[:4], extra_body=wrapper.format(hidden_closing))
    verdict = evaluate_response(case, answer(page, "html"))
    assert_content_fail(verdict)
    assert component(verdict, Component.ENDING).passed is False
    assert "'Closing'" in component(verdict, Component.REGIONS).evidence


def test_input_value_does_not_count(case: Case) -> None:
    page = html_page(PARAGRAPHS[:-1], extra_body=f"<input type='text' value='{ENDING}'>")
    verdict = evaluate_response(case, answer(page, "html"))
    assert component(verdict, Component.ENDING).passed is False


def test_open_details_counts(case: Case) -> None:
    page = html_page(PARAGRAPHS[:4], extra_body="<details open><summary>More</summary>"
                     + "".join(f"<p>{p}</p>" for p in PARAGRAPHS[4:]) + "</details>")
    assert_pass(evaluate_response(case, answer(page, "html")))


# --- other components, call failures, determinism ----------------------------------------------------


def test_case_without_stable_groups_reports_not_scored(case: Case) -> None:
    imported = make_case(stable_groups=[], stable_text_review_defaults=None)
    verdict = evaluate_response(imported, answer(markdown_page()))
    groups = component(verdict, Component.STABLE_GROUPS)
    assert groups.passed is None
    assert groups.evidence == "not scored: imported suite without reviewed stable groups"
    assert_pass(verdict)


def test_page_identity_matches_across_line_breaks_and_is_optional(case: Case) -> None:
    # The identity phrase "stairs at Cape Orra" is split across a wrapped line.
    content = markdown_page().replace("stairs at Cape", "stairs at\nCape")
    assert component(evaluate_response(case, answer(content)), Component.PAGE_IDENTITY).passed is True
    verdict = evaluate_response(make_case(page_identity=[]), answer(markdown_page()))
    assert component(verdict, Component.PAGE_IDENTITY).passed is None


@pytest.mark.parametrize("pattern", [r"Stairs At Cape Orra", r"Stairs at Cape Orra\b", r"STAIRS\s+AT CAPE ORRA"],
                         ids=["literal", "regex", "regex-whitespace"])
def test_page_identity_matches_case_aside(pattern: str) -> None:
    # trafilatura on a blog: the title "Algebra Gets a Bad Rap" appears only as the body's "Algebra gets a
    # bad rap." A reader sees the phrase; page identity is matched in label normal form, which casefolds.
    verdict = evaluate_response(make_case(page_identity=[pattern]), answer(markdown_page()))
    assert component(verdict, Component.PAGE_IDENTITY).passed is True, verdict.explanation
    # Another article still has no match, whatever the case.
    other = evaluate_response(make_case(page_identity=[pattern]), answer(markdown_page(OTHER_PARAGRAPHS, OTHER_TITLE)))
    assert component(other, Component.PAGE_IDENTITY).passed is False


def test_failed_call_with_perfect_content_fails_but_keeps_diagnostics(case: Case) -> None:
    result = answer(markdown_page(), metadata=ResultMetadata(api_http_status=200, upstream_status=404))
    verdict = evaluate_response(case, result)
    assert verdict.outcome is Outcome.FAIL
    assert verdict.failure_class == "upstream_status"
    assert component(verdict, Component.CALL).passed is False
    assert component(verdict, Component.REGIONS).passed is True  # still scored, for diagnostics
    assert verdict.explanation.startswith("fail: call failed: the target page answered 404")
    assert "diagnostic" in verdict.explanation


@pytest.mark.parametrize(
    ("fields", "failure_class"),
    [
        ({"success": False, "error_type": ErrorType.AUTH}, "auth"),
        ({"metadata": ResultMetadata(api_http_status=429)}, "rate_limited"),
        ({"success": False, "error_type": ErrorType.MISSING_CREDENTIALS}, "missing_credentials"),
    ],
)
def test_unresolvable_verdict_has_only_the_call(case: Case, fields: dict, failure_class: str) -> None:
    verdict = evaluate_response(case, answer("", **fields))
    assert verdict.outcome is Outcome.UNRESOLVABLE
    assert verdict.failure_class == failure_class
    assert [c.name for c in verdict.components] == [Component.CALL]
    assert verdict.explanation.startswith("unresolvable: ")


@pytest.mark.parametrize(
    ("fields", "failure_class"),
    [
        ({"success": False, "error_type": ErrorType.TIMEOUT, "error_message": "no answer in 30 s"}, "timeout"),
        ({"success": False, "error_type": ErrorType.SERVICE_ERROR, "metadata": ResultMetadata(api_http_status=503)},
         "service_error"),
        ({"success": False, "error_type": ErrorType.MALFORMED_RESPONSE}, "malformed_response"),
    ],
)
def test_failed_calls_fail_with_their_error_type(case: Case, fields: dict, failure_class: str) -> None:
    verdict = evaluate_response(case, answer("", **fields))
    assert verdict.outcome is Outcome.FAIL
    assert verdict.failure_class == failure_class
    assert f"the provider reported {failure_class}" in verdict.explanation
    assert "no content to diagnose" in verdict.explanation


def test_empty_successful_answer_fails(case: Case) -> None:
    verdict = evaluate_response(case, answer("  \n\t "))
    assert verdict.outcome is Outcome.FAIL and verdict.failure_class == "empty_content"


def test_same_input_gives_equal_verdicts(case: Case) -> None:
    for content in (markdown_page(), markdown_page(PARAGRAPHS[:3]), html_page()):
        first = evaluate_response(case, answer(content))
        second = evaluate_response(make_case(), answer(content))
        assert first == second
        assert first.model_dump_json() == second.model_dump_json()


def test_large_answer_is_scored_in_linear_time(case: Case) -> None:
    # ~2 MB of Markdown around the article: a per-fragment rescan or a quadratic step would take far longer.
    filler = "Unrelated *paragraph* with a [link](https://example.com) and more words about tides.\n\n" * 24_000
    content = markdown_page() + filler
    started = time.perf_counter()
    verdict = evaluate_response(case, answer(content))
    assert time.perf_counter() - started < 30
    assert_pass(verdict)


def test_a_cases_needles_are_built_once_for_all_its_items_and_never_for_another_case(monkeypatch) -> None:
    """The needle-set cache (issue 10) shares a case's needles between its providers' items; an equal
    but distinct case, or a case whose id() is reused after it is gone, gets its own."""
    from lexbench.scoring import evaluate as module

    built: list[str] = []
    original = module._build_needle_sets
    monkeypatch.setattr(module, "_build_needle_sets", lambda case: built.append(case.id) or original(case))
    module._NEEDLE_CACHE.clear()
    case = make_case()
    first = evaluate_response(case, answer(markdown_page()))
    second = evaluate_response(case, answer(markdown_page()))
    assert built == [case.id] and first == second
    other = make_case(title="Another title")
    evaluate_response(other, answer(markdown_page()))
    assert len(built) == 2
    for _ in range(module._NEEDLE_CACHE_SIZE + 1):  # the cache stays bounded
        evaluate_response(make_case(), answer(markdown_page()))
    assert len(module._NEEDLE_CACHE) <= module._NEEDLE_CACHE_SIZE
