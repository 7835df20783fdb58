"""The demo suite's comment case (015) and post collection (016): their contracts on their own pages."""

from __future__ import annotations

import lxml.html
import markdownify
import pytest

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.dataset.case import Case
from lexbench.dataset.suite import load_suite
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, Outcome

COMMENTS_CASE = "article-015-en-westfold-boatyard"
POSTS_CASE = "forum-016-en-sella-bar-tides"


@pytest.fixture(scope="module")
def suite():
    return load_suite("demo")


def case_and_page(suite, case_id: str) -> tuple[Case, str]:
    case = next(c for c in suite.cases if c.id == case_id)
    return case, suite.captures[case_id].decode("utf-8")


def answer(content: str, content_format: str) -> ProviderResult:
    return ProviderResult(success=True, content=content, content_format=content_format,
                          metadata=ResultMetadata(upstream_status=200))


def without(html: str, selector: str) -> str:
    root = lxml.html.document_fromstring(html)
    for element in root.cssselect(selector):
        element.drop_tree()
    return lxml.html.tostring(root, encoding="unicode")


def as_markdown(html: str) -> str:
    root = lxml.html.document_fromstring(html)
    for element in root.xpath("//head|//script|//style|//details"):  # a reader never sees folded content
        element.drop_tree()
    return markdownify.markdownify(lxml.html.tostring(root, encoding="unicode"), heading_style="ATX")


def test_comment_case_counts_only_displayed_comments(suite) -> None:
    case, page = case_and_page(suite, COMMENTS_CASE)
    verdict = evaluate_response(case, answer(page, "html"))
    comments = verdict.component(Component.COMMENTS)
    assert verdict.outcome is Outcome.PASS, verdict.explanation
    assert comments.measured == 6  # the removed comment and the folded thread do not count
    assert comments.details[0]["rejected"] == {"unavailable placeholder": 1}
    markdown = evaluate_response(case, answer(as_markdown(page), "markdown"))
    assert markdown.outcome is Outcome.PASS, markdown.explanation
    assert markdown.component(Component.COMMENTS).measured == 6


def test_comment_case_fails_without_its_comments(suite) -> None:
    case, page = case_and_page(suite, COMMENTS_CASE)
    for content, fmt in ((without(page, "#comments"), "html"), (as_markdown(without(page, "#comments")), "markdown")):
        verdict = evaluate_response(case, answer(content, fmt))
        assert verdict.component(Component.COMMENTS).passed is False, verdict.explanation
        assert verdict.component(Component.REGIONS).passed is True  # the article alone is complete
        assert verdict.outcome is Outcome.FAIL


def test_post_collection_counts_owned_posts_with_authors(suite) -> None:
    case, page = case_and_page(suite, POSTS_CASE)
    verdict = evaluate_response(case, answer(page, "html"))
    posts = verdict.component(Component.POSTS)
    assert verdict.outcome is Outcome.PASS, verdict.explanation
    assert posts.measured == 7 and posts.threshold == 6
    assert verdict.component(Component.ANCHORS).passed is True
    markdown = evaluate_response(case, answer(as_markdown(page), "markdown"))
    assert markdown.outcome is Outcome.PASS, markdown.explanation


def test_post_collection_fails_without_authors_or_links(suite) -> None:
    case, page = case_and_page(suite, POSTS_CASE)
    no_authors = without(page, ".post-author")
    verdict = evaluate_response(case, answer(no_authors, "html"))
    assert verdict.component(Component.POSTS).measured == 0
    no_permalinks = as_markdown(without(page, "a.permalink"))
    verdict = evaluate_response(case, answer(no_permalinks, "markdown"))
    assert verdict.component(Component.POSTS).passed is False
    no_similar = evaluate_response(case, answer(without(page, ".hf-similar"), "html"))
    assert no_similar.component(Component.ANCHORS).passed is False
