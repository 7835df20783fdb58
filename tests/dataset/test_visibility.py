"""The visibility proof's checks over rendered text runs (SPEC §4), without a browser: what a reviewer is
refused or asked to look at, given which runs a reader sees."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from lexbench.dataset.visibility import (CONVENTION_CLASSES, MENU_MARKERS, Rendering, TextRun, check_case,
                                         marker_pattern, summary)


def run(text: str, state: str = "visible", reason: str | None = None, marker: str | None = None,
        inside: tuple[int, ...] = ()) -> TextRun:
    return TextRun(text=text, state=state, reason=reason, path="html > body > p", marker=marker, inside=inside)


def rule(groups=(), kind="fixed_article", comments=None, flags=()):  # type: ignore[no-untyped-def]
    return SimpleNamespace(id="article-001-en-x", kind=kind, comments=comments, flags=list(flags), stable_groups=[
        SimpleNamespace(id=g[0], phrases=list(g[1]), selector=g[2] if len(g) > 2 else None) for g in groups])


def test_a_phrase_seen_somewhere_passes_and_one_only_in_a_menu_is_refused_with_its_rule():
    rendering = Rendering(runs=(run("Harbourline News"), run("Politics", "hidden", "menu_marker:sub-menu"),
                                run("Politics", "hidden", "nested_menu"), run("Energy", "unproven", "toggled")))
    proof = check_case(rule([("site", ["Harbourline News"]), ("nav", ["Politics", "Energy"])]), rendering, None)
    assert proof.problems == [
        "group 'nav': phrase 'Politics' is never visible: hidden (menu_marker:sub-menu), hidden (nested_menu)",
        "group 'nav': phrase 'Energy' is never visible: unproven (toggled)",
    ]


def test_a_phrase_split_over_runs_is_visible_only_when_every_run_is():
    shown = Rendering(runs=(run("Harbour"), run("line News")))
    half = Rendering(runs=(run("Harbour"), run("line News", "hidden", "clipped")))
    group = rule([("site", ["Harbourline News"])])
    assert check_case(group, shown, None).problems == []
    assert check_case(group, half, None).problems == ["group 'site': phrase 'Harbourline News' is never visible: "
                                                      "hidden (clipped)"]


def test_a_phrase_missing_from_the_capture_is_refused():
    proof = check_case(rule([("footer", ["Privacy notice"])]), Rendering(runs=(run("Terms"),)), None)
    assert proof.problems == ["group 'footer': phrase 'Privacy notice' is not in the rendered capture"]


def test_a_phrase_outside_its_location_selector_is_refused():
    rendering = Rendering(runs=(run("Energy", inside=()), run("Culture", inside=(0,))))
    proof = check_case(rule([("nav", ["Energy", "Culture"], "header nav")]), rendering, None)
    assert proof.problems == ["group 'nav': phrase 'Energy' is not inside its location 'header nav'"]


def test_reference_lines_not_displayed_and_not_in_the_capture_are_refused_by_line_number():
    rendering = Rendering(runs=(run("The turbines turned all winter."), run("Baca juga:", "hidden", "display_none"),
                                run("Trending now in the region", "hidden", "display_none")))
    reference = "The turbines turned all winter.\nTrending now in the region\nA widget line that no page holds"
    proof = check_case(rule(), rendering, reference)
    assert proof.problems == [
        "reference line 2 is not displayed (hidden: display_none): 'Trending now in the region'",
        "reference line 3 is not in the capture: 'A widget line that no page holds'",
    ]


def test_a_short_reference_line_is_judged_where_the_article_has_it_not_where_the_page_repeats_it():
    rendering = Rendering(runs=(run("Baca juga:"), run("First paragraph of the article body."),
                                run("Baca juga:", "hidden", "display_none"), run("Second paragraph of the body.")))
    reference = "First paragraph of the article body.\nBaca juga:\nSecond paragraph of the body."
    assert check_case(rule(), rendering, reference).problems == [
        "reference line 2 is not displayed (hidden: display_none): 'Baca juga:'"]


def test_lines_in_bylines_and_widgets_are_listed_for_review_not_refused():
    rendering = Rendering(runs=(run("By Maren Okafor, Energy correspondent", marker="byline"),
                                run("The turbines turned all winter.")))
    proof = check_case(rule(), rendering, "By Maren Okafor, Energy correspondent\nThe turbines turned all winter.")
    assert proof.problems == []
    assert proof.review == ["reference line 1 sits in a byline element: 'By Maren Okafor, Energy correspondent'"]


def test_a_listed_line_the_review_keeps_is_decided_with_its_reason_and_the_others_stay_listed():
    rendering = Rendering(runs=(run("A grey heron at dawn on the Tay.", marker="caption"),
                                run("By Maren Okafor", marker="byline"), run("The turbines turned all winter.")))
    reference = "A grey heron at dawn on the Tay.\nBy Maren Okafor\nThe turbines turned all winter."
    proof = check_case(rule(), rendering, reference, {"A grey heron at dawn on the Tay.": "caption"})
    assert proof.review == ["reference line 2 sits in a byline element: 'By Maren Okafor'"]
    assert proof.decided == ["reference line 1 sits in a caption element: 'A grey heron at dawn on the Tay.'; kept (caption)"]
    assert summary([proof])["decided"] == {"reference line in a caption element": 1}


def test_keep_decisions_name_a_reference_line_and_a_known_reason_or_are_refused_by_name():
    from lexbench.dataset.importers.common import PageError
    from lexbench.dataset.importers.reviewed import kept_lines

    lines = ["A grey heron at dawn.", "The turbines turned."]
    assert kept_lines(lines, [{"text": "A grey heron at dawn.", "reason": "caption"}]) == {"A grey heron at dawn.": "caption"}
    bad = {
        "reason 'pretty'": [{"text": "A grey heron at dawn.", "reason": "pretty"}],
        "is not a line of the reviewed reference": [{"text": "Gone", "reason": "caption"}],
        "kept twice": [{"text": "A grey heron at dawn.", "reason": "caption"}] * 2,
        "exactly text and reason": [{"line": 1, "reason": "caption"}],
        "must be a list": {"text": "x"},
    }
    for message, keeps in bad.items():
        with pytest.raises(PageError, match=re.escape(message)):
            kept_lines(lines, keeps)


def test_a_comment_section_the_review_flagged_as_showing_no_comment_is_decided_not_listed():
    rendering = Rendering(runs=(run("x"),), comment_section="html > body > div#comments")
    proof = check_case(rule(flags=["comment_section_without_displayed_comments: an empty box and a form"]), rendering, None)
    assert proof.review == [] and proof.decided[0].startswith("comments: the section (html > body > div#comments) was reviewed")
    kept_out = check_case(rule(flags=["comments_displayed_not_contracted: the contract could not fail"]), rendering, None)
    assert kept_out.review == [] and kept_out.decided[0].endswith("comments_displayed_not_contracted: the contract could not fail")
    assert check_case(rule(flags=["reference_omits_headline"]), rendering, None).decided == []


def test_a_comment_section_without_a_contract_is_listed_only_for_articles_without_one():
    rendering = Rendering(runs=(run("x"),), comment_section="html > body > div#comments")
    assert check_case(rule(), rendering, None).review == [
        "comments: the capture shows a comment section (html > body > div#comments) and the case has no comment contract"]
    assert check_case(rule(comments=object()), rendering, None).review == []
    assert check_case(rule(kind="post_collection"), rendering, None).review == []


def test_summary_counts_refusals_and_review_items_by_kind():
    proofs = [check_case(rule([("nav", ["Politics"])]), Rendering(runs=(run("Politics", "hidden", "nested_menu"),)),
                         "Gone line of text\n")]
    totals = summary(proofs)
    assert totals["problems"] == {"reference line not in capture": 1, "stable phrase hidden or unproven": 1}
    assert totals["runs"] == {"visible": 0, "hidden": 1, "unproven": 0} and totals["cases_with_problems"] == 1


@pytest.mark.parametrize(("token", "marker"), [
    ("m-mobile-nav", "mobile-nav"), ("sub-menu", "sub-menu"), ("dropdown-menu", "dropdown-menu"),
    ("more-list", "more-list"), ("megamenu", "megamenu"), ("nav_submenu", "submenu"), ("offcanvas-menu", "offcanvas"),
    ("mobile-nav-btn", None), ("mobile-nav-from-left", None), ("dropdown-toggle", None), ("off-canvas-wrapper", None),
    ("offcanvas-sidebar-mobile", None), ("navbar", None),
])
def test_menu_markers_name_the_menu_container_not_its_trigger_or_a_page_wrapper(token, marker):
    match = re.search(marker_pattern(MENU_MARKERS), token, re.I)
    assert (match.group(2) if match else None) == marker


@pytest.mark.parametrize(("token", "unproven"), [("screen-reader-text", True), ("sr-only", True), ("hidden", True),
                                                 ("visible-xs", True), ("hidden-xs", False), ("hidePhone", False)])
def test_convention_classes_match_whole_tokens_so_phone_only_hiding_stays_visible_on_a_desktop(token, unproven):
    assert bool(re.search(marker_pattern(CONVENTION_CLASSES, whole=True), token, re.I)) is unproven


def test_a_review_s_exclusions_leave_the_displayed_article_and_bad_ones_are_refused_by_name():
    from lexbench.dataset.importers.common import PageError
    from lexbench.dataset.importers.reviewed import exclude_lines

    lines = ["Lead paragraph.", "Baca juga:", "Second paragraph.", "TRENDING"]
    assert exclude_lines(lines, None) == lines
    assert exclude_lines(lines, [{"line": 2, "reason": "not_displayed", "text": "Baca juga:"},
                                 {"line": 4, "reason": "not_in_capture", "text": "TRENDING"}]) == \
        ["Lead paragraph.", "Second paragraph."]
    bad = {
        "reason 'gone'; use one of not_displayed": [{"line": 2, "reason": "gone", "text": "Baca juga:"}],
        "outside the reference's 4 lines": [{"line": 9, "reason": "widget", "text": "x"}],
        "line 2 is excluded twice": [{"line": 2, "reason": "widget", "text": "Baca juga:"}] * 2,
        "reads 'Baca juga:', not 'Baca'": [{"line": 2, "reason": "widget", "text": "Baca"}],
        "exactly line, reason and text": [{"line": 2, "reason": "widget"}],
        "leave no reference line": [{"line": n, "reason": "widget", "text": t} for n, t in enumerate(lines, 1)],
    }
    for message, exclusions in bad.items():
        with pytest.raises(PageError, match=re.escape(message)):
            exclude_lines(lines, exclusions)
