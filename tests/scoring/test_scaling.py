"""Scoring stays linear in the answer size with comments and posts enabled (SPEC §3.4, §3.5, §3.6).

The figures are printed (run with ``-s`` to see them), never asserted: timing depends on the machine.
The record counts are asserted, so a faster but wrong scorer still fails.
"""

from __future__ import annotations

import time

import pytest
from factories import (
    COMMENTS,
    FORUM_TITLE,
    answer,
    article_markdown_with,
    comments_markdown,
    make_comment_case,
    make_post_case,
    post_article,
    post_contract,
    post_link,
    posts_html,
    profile,
)

from lexbench.scoring import evaluate_response
from lexbench.verdict import Component

def forum_markdown(posts: int) -> str:
    lines = [f"# {FORUM_TITLE}"]
    for n in range(1, posts + 1):
        author = f"sailor{n % 997}"
        lines.append(
            f"[{author}]({profile(author)}) · [{n % 28 + 1} days ago]({post_link(n)})\n\n"
            f"Post {n}: the harbour office table and the app disagree by {n % 40} minutes on spring tides; "
            "the gauge data settles it, and the printed almanac agrees with the gauge within a minute.\n\n"
            "Like · Reply · Quote"
        )
    return "\n\n".join(lines) + "\n\nHarbour Forum · Rules · Contact\n"


def report(request: pytest.FixtureRequest, label: str, size: int, seconds: float) -> None:
    line = f"{label}: {size / 1e6:.1f} MB scored in {seconds:.2f} s ({size / 1e6 / seconds:.1f} MB/s)"
    print("\n" + line)
    request.node.user_properties.append(("scoring_time", line))


def forum_html(posts: int) -> str:
    items = [post_article(n, f"sailor{n % 997}", f"Post {n}: the harbour office table and the app disagree by "
                          f"{n % 40} minutes on spring tides, and the gauge settles it.") for n in range(1, posts + 1)]
    return posts_html([], extra="".join(items))


def sized(build, target: int) -> tuple[str, int]:
    """``build(n)`` with n scaled so the answer is about ``target`` bytes."""
    sample = 200
    per_item = len(build(sample).encode()) / sample
    n = max(1, int(target / per_item))
    return build(n), n


@pytest.mark.parametrize(
    ("content_format", "megabytes"), [("markdown", 1), ("markdown", 5), ("html", 5)],
    ids=["markdown-1MB", "markdown-5MB", "html-5MB"],
)
def test_forum_answer(request: pytest.FixtureRequest, content_format: str, megabytes: int) -> None:
    build = forum_markdown if content_format == "markdown" else forum_html
    content, posts = sized(build, megabytes * 1_000_000)
    case = make_post_case(posts=post_contract(baseline=posts))
    started = time.perf_counter()
    verdict = evaluate_response(case, answer(content, content_format))
    elapsed = time.perf_counter() - started
    report(request, f"forum answer ({content_format}, {posts:,} posts)", len(content.encode()), elapsed)
    assert verdict.component(Component.POSTS).measured == posts


def test_article_answer_with_comments(request: pytest.FixtureRequest) -> None:
    megabytes = 1
    def build(n: int) -> str:
        many = [(f"c-{k}", f"reader {k % 500}", f"Thanks! {COMMENTS[k % 6][2]} ({k})") for k in range(n)]
        return article_markdown_with(comments_markdown(many, style="bold"))

    content, comments = sized(build, megabytes * 1_000_000)
    case = make_comment_case()
    started = time.perf_counter()
    verdict = evaluate_response(case, answer(content))
    elapsed = time.perf_counter() - started
    report(request, f"article with comments (markdown, {comments:,} comments)", len(content.encode()), elapsed)
    assert verdict.component(Component.COMMENTS).measured == comments
