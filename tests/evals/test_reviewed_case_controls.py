"""A reviewed case's own-contract answer and its rejected controls (REVIEW.md "Checking a review"), on
the scorer's synthetic fixed article, comment page and post collection: the answer of exactly what the
case requires passes, and each control fails on the component it removed."""

from __future__ import annotations

import pytest

from lexbench.evals.articles import own_contract_answer, rejected_controls
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, Outcome
from tests.scoring.factories import comments_html, html_page, make_case, make_comment_case, make_post_case, posts_html

CASES = {
    "fixed article": (make_case, lambda: html_page()),
    "comments": (make_comment_case, lambda: html_page(extra_body=comments_html())),
    "post collection": (make_post_case, lambda: posts_html()),
}


@pytest.mark.parametrize("kind", CASES)
def test_the_own_contract_answer_passes_and_every_control_fails_on_its_component(kind):
    make, capture = CASES[kind]
    case, html = make(), capture()
    verdict = evaluate_response(case, own_contract_answer(case, html))
    assert verdict.outcome is Outcome.PASS, verdict.explanation
    controls = rejected_controls(case, html)
    expected = {Component.TITLE, Component.STABLE_GROUPS}
    if case.body is not None:
        expected |= {Component.REGIONS, Component.ENDING}
    expected |= {Component.COMMENTS} if case.comments else set()
    expected |= {Component.POSTS} if case.posts else set()
    assert {control.component for control in controls} == expected
    if case.body is not None:
        assert sum(control.component is Component.REGIONS for control in controls) == len(case.body.regions)
    for control in controls:
        result = evaluate_response(case, control.answer)
        assert result.outcome is Outcome.FAIL, (control.name, result.explanation)
        assert result.component(control.component).passed is False, (control.name, result.explanation)


def test_the_records_keep_their_ancestors_and_nothing_else_of_the_capture():
    case = make_comment_case()
    answer = own_contract_answer(case, html_page(extra_body=comments_html()))
    assert "<section id=\"comments\">" in answer.content and "class=\"comment-list\"" in answer.content
    assert "Home" not in answer.content and "var t" not in answer.content  # the capture's chrome and scripts went


def test_a_record_contract_without_selectors_is_refused_by_name():
    case = make_comment_case(comments={**make_comment_case().comments.model_dump(), "html": None})
    with pytest.raises(ValueError, match=f"case {case.id}: its comments contract has no reviewed HTML selectors"):
        own_contract_answer(case, html_page(extra_body=comments_html()))


def test_an_xhtml_capture_with_an_encoding_declaration_keeps_its_records():
    """An XHTML capture starts `<?xml version="1.0" encoding="UTF-8"?>`, which lxml refuses in decoded text
    (a real articles page, 087, has one): the records are still found and the answer still passes."""
    case = make_comment_case()
    xhtml = '<?xml version="1.0" encoding="UTF-8"?>\n' + html_page(extra_body=comments_html())
    answer = own_contract_answer(case, xhtml)
    assert "class=\"comment-list\"" in answer.content
    assert evaluate_response(case, answer).outcome is Outcome.PASS
