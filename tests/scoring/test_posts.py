"""Posts v2 (SPEC §3.6): synthetic accepted and rejected answers in Markdown and HTML."""

from __future__ import annotations

import pytest
from factories import (
    FORUM_TITLE,
    FORUM_URL,
    POSTS,
    answer,
    make_post_case,
    post_article,
    post_contract,
    post_link,
    posts_html,
    posts_markdown,
    profile,
)

from lexbench.dataset.case import Case
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict

MINIMUM = 5


@pytest.fixture(scope="module")
def case() -> Case:
    return make_post_case()


def posts_of(verdict: Verdict) -> ComponentResult:
    result = verdict.component(Component.POSTS)
    assert result is not None, verdict.components
    return result


def assert_posts(verdict: Verdict, found: int) -> None:
    result = posts_of(verdict)
    assert result.measured == found, result.evidence
    assert result.threshold == MINIMUM
    if found >= MINIMUM:
        assert verdict.outcome is Outcome.PASS, verdict.explanation
    else:
        assert verdict.outcome is Outcome.FAIL and verdict.failure_class == "content", verdict.explanation


# --- accepted ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["linked", "permalink-first", "by-line"])
def test_complete_markdown_posts_pass(case: Case, style: str) -> None:
    verdict = evaluate_response(case, answer(posts_markdown(style=style)))
    assert_posts(verdict, 6)
    assert verdict.component(Component.TITLE).passed is True
    assert verdict.component(Component.REGIONS) is None  # a post collection has no body contract


def test_html_posts_with_reviewed_selectors_pass(case: Case) -> None:
    verdict = evaluate_response(case, answer(posts_html(), "html"))
    assert_posts(verdict, 6)
    assert "html selectors" in posts_of(verdict).evidence


def test_cleaned_html_without_native_containers_uses_the_text_route(case: Case) -> None:
    items = "".join(
        f"<div><a href='{profile(a)}'>{a}</a> · <a href='{post_link(n)}'>3 days ago</a></div><p>{t}</p>" for n, a, t in POSTS
    )
    page = f"<html><body><h1>{FORUM_TITLE}</h1>{items}<footer>Harbour Forum · Rules · Contact</footer></body></html>"
    verdict = evaluate_response(case, answer(page, "html"))
    assert_posts(verdict, 6)
    assert "html post links" in posts_of(verdict).evidence


def test_duplicate_links_count_once(case: Case) -> None:
    posts = POSTS[:5] + [POSTS[0]]
    assert_posts(evaluate_response(case, answer(posts_markdown(posts))), 5)
    # The same link twice in one post header (date and "#1") is one record.
    doubled = posts_markdown(style="linked").replace("· [3 days ago]", "· [#n](" + post_link(99) + ") [3 days ago]", 1)
    assert posts_of(evaluate_response(case, answer(doubled))).measured >= 6


def test_an_empty_outer_post_qualifies_through_attributed_quoted_text(case: Case) -> None:
    quote = f"> Tom Farrell wrote:\n>\n> {POSTS[1][2]}"
    empty_outer = (6, "Olek Brandt", quote)
    assert_posts(evaluate_response(case, answer(posts_markdown(POSTS[:5] + [empty_outer]))), 6)
    quoted_html = post_article(6, "Olek Brandt", "", body_html=f"<blockquote><cite>Tom Farrell</cite><p>{POSTS[1][2]}</p></blockquote>")
    page = posts_html(POSTS[:5], extra=quoted_html)
    assert_posts(evaluate_response(case, answer(page, "html")), 6)


def test_a_reply_that_quotes_and_answers_counts_once(case: Case) -> None:
    reply = (6, "Olek Brandt", f"> Tom Farrell wrote:\n>\n> {POSTS[1][2]}\n\nAgreed, and the almanac is free.")
    assert_posts(evaluate_response(case, answer(posts_markdown(POSTS[:5] + [reply]))), 6)


# --- rejected ----------------------------------------------------------------------------------------


def test_posts_without_authors_fail(case: Case) -> None:
    content = "\n\n".join(f"[3 days ago]({post_link(n)})\n\n{t}" for n, _a, t in POSTS)
    verdict = evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{content}\n"))
    assert_posts(verdict, 0)
    assert "6 no attributed author" in verdict.explanation


@pytest.mark.parametrize(
    "header",
    ["**Member**\n\n[Permalink]({link})", "[Permalink]({link})", "**March 3, 2026**\n\n[#{n}]({link})",
     "**Posts: 24**\n\n[Share]({link})"],
    ids=["metadata-label", "permalink-caption", "timestamp", "count-label"],
)
def test_labels_timestamps_and_captions_are_never_authors(case: Case, header: str) -> None:
    content = "\n\n".join(header.format(link=post_link(n), n=n) + f"\n\n{t}" for n, _a, t in POSTS)
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{content}\n")), 0)


def test_a_link_and_an_author_without_text_is_not_a_post(case: Case) -> None:
    content = "\n\n".join(f"[{a}]({profile(a)}) · [3 days ago]({post_link(n)})\n\nLike · Reply" for n, a, _t in POSTS)
    verdict = evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{content}\n"))
    assert_posts(verdict, 0)
    assert "author without post text" in verdict.explanation


def test_quote_only_posts_are_not_records(case: Case) -> None:
    # Post links that appear only inside quotes are quoted posts, not outer records.
    quoted = "\n\n".join(f"> [{a}]({profile(a)}) · [3 days ago]({post_link(n)})\n>\n> {t}" for n, a, t in POSTS)
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{quoted}\n")), 0)
    # An outer post whose only content is an unattributed quote has no text of its own.
    bare_quotes = [(n, a, f"> {t}") for n, a, t in POSTS]
    assert_posts(evaluate_response(case, answer(posts_markdown(bare_quotes))), 0)


def test_links_of_another_thread_are_not_owned(case: Case) -> None:
    other = posts_markdown().replace("/t/sella-tides/4471/", "/t/ferry-times/5120/")
    verdict = evaluate_response(case, answer(other))
    assert_posts(verdict, 0)
    assert "no owned post-detail link" in verdict.explanation


def test_placeholders_are_not_posts(case: Case) -> None:
    removed = [(n, a, "This post was removed by a moderator.") for n, a, _t in POSTS]
    assert_posts(evaluate_response(case, answer(posts_markdown(removed))), 0)


def test_posts_inside_a_code_block_do_not_count(case: Case) -> None:
    fenced = "```\n" + posts_markdown() + "```\n"
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{fenced}")), 0)


def test_invisible_names_and_hidden_posts_do_not_count_in_html(case: Case) -> None:
    hidden_names = "".join(post_article(n, a, t, author_attrs=" style='display:none'") for n, a, t in POSTS)
    page = posts_html([], extra=hidden_names)
    assert_posts(evaluate_response(case, answer(page, "html")), 0)
    folded = posts_html(POSTS[:2], extra="<details><summary>4 more posts</summary>"
                        + "".join(post_article(*p) for p in POSTS[2:]) + "</details>")
    assert_posts(evaluate_response(case, answer(folded, "html")), 2)


def test_html_posts_with_only_an_unattributed_quote_do_not_count(case: Case) -> None:
    items = "".join(post_article(n, a, "", body_html=f"<blockquote><p>{t}</p></blockquote>") for n, a, t in POSTS)
    assert_posts(evaluate_response(case, answer(posts_html([], extra=items), "html")), 0)


def test_page_identity_and_stable_groups_still_apply(case: Case) -> None:
    wrong = posts_markdown().replace(FORUM_TITLE, "Ferry timetable thread").replace("Harbour Forum", "Dock Board")
    verdict = evaluate_response(case, answer(wrong))
    assert posts_of(verdict).passed is True
    assert verdict.component(Component.PAGE_IDENTITY).passed is False
    assert verdict.component(Component.STABLE_GROUPS).passed is False
    assert verdict.outcome is Outcome.FAIL


def test_non_author_labels_are_part_of_the_contract(case: Case) -> None:
    # The same answer passes when "Permalink" is not declared… and fails when it is.
    content = "\n\n".join(f"[Permalink]({post_link(n)})\n\n{t}" for n, _a, t in POSTS)
    assert posts_of(evaluate_response(case, answer(content))).measured == 0
    relaxed = make_post_case(posts=post_contract(non_author_labels=[]))
    content = "\n\n".join(f"**Harbourmaster**\n\n[open]({post_link(n)})\n\n{t}" for n, _a, t in POSTS)
    assert posts_of(evaluate_response(relaxed, answer(content))).measured == 6


def test_a_post_header_repeating_its_link_is_one_post(case: Case) -> None:
    # Forum engines repeat the permalink ("date" and "#2") and put the author heading, title and
    # stats above it; the text follows the second link.
    posts = "\n\n".join(
        f"#### [{a}]({profile(a)})\n\n##### Senior Member\n\nJoined: 2019\n\n[3 days ago]({post_link(n)})\n\n"
        f"* [#{n}]({post_link(n)})\n\n{t}" for n, a, t in POSTS
    )
    verdict = evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{posts}\n"))
    assert posts_of(verdict).measured == 6
    assert [d["author"] for d in posts_of(verdict).details[1:3]] == ["skipper_ana", "Tom Farrell"]


# --- the post reader's review (issue 30): the comment reader's rules apply to posts too -------------


def test_a_list_item_headed_by_its_author_is_a_post(case: Case) -> None:
    # A thread written as list items: the author's name alone heads the item, the permalink and text follow.
    items = "\n".join(f"* {a}\n\n  [#{n}]({post_link(n)}) · 3 days ago\n\n  {t}" for n, a, t in POSTS)
    verdict = evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{items}\n\nHarbour Forum · Rules · Contact\n"))
    assert_posts(verdict, 6)
    # A bullet in the previous post's text heads no item holding the next post's link.
    bullets = "\n\n".join(f"[#{n}]({post_link(n)}) · 3 days ago\n\n{t}\n\n* Thanks" for n, _a, t in POSTS)
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{bullets}\n")), 0)


@pytest.mark.parametrize("header", [
    "## Re: Tide tables for Sella Bay\n\n[#{n}]({link})",
    "#### Tide tables (Score:4, Informative)\n\n[#{n}]({link})",
    "[Next thread](https://forum.harbour.example/t/ferry-times/5120) · [#{n}]({link})",
    "[« Previous thread](https://forum.harbour.example/t/ferry-times/5120)\n\n[#{n}]({link})",
], ids=["reply-subject", "score-subject", "next-thread", "previous-thread"])
def test_subject_lines_and_navigation_are_never_post_authors(case: Case, header: str) -> None:
    content = "\n\n".join(header.format(n=n, link=post_link(n)) + f"\n\n{t}" for n, _a, t in POSTS)
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{content}\n")), 0)


# --- post headers of community software (the harvest-forums threads of issue 30's merge) -------------


FOOTER = "Harbour Forum · Rules · Contact"


def member_header(author: str) -> str:
    """A Vanilla-style post header as answers write it: avatar and name both linked to the member's
    profile, then the member's counts and rank run together as the page shows them."""
    return f"[![]({profile(author)}.png)]({profile(author)}) [{author}]({profile(author)}) 15735 replies1052 threads Senior Member"


def test_a_name_linked_to_the_members_profile_heads_its_post_whatever_rank_follows(case: Case) -> None:
    items = "\n\n".join(f"{member_header(a)}\n\n[March 27]({post_link(n)})\n\n{t}\n\n0 · Reply" for n, a, t in POSTS)
    verdict = evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{items}\n\n{FOOTER}\n"))
    assert_posts(verdict, 6)
    assert [d["author"] for d in posts_of(verdict).details[1:4]] == ["skipper_ana", "Tom Farrell", "gullwing"]
    # The same header as cleaned HTML (no reviewed containers): the text route reads it alike.
    html = "".join(
        f"<li><a href='{profile(a)}'><img src='a.png'></a><a href='{profile(a)}'>{a}</a> 15735 replies"
        f"<span>1052 threads</span> Senior Member</li><li><a href='{post_link(n)}'>March 27</a></li><li><p>{t}</p></li>"
        for n, a, t in POSTS)
    verdict = evaluate_response(case, answer(f"<html><body><h1>{FORUM_TITLE}</h1><ul>{html}</ul><p>{FOOTER}</p></body></html>", "html"))
    assert_posts(verdict, 6)


@pytest.mark.parametrize("opening", [
    "[@{a}]({profile}) thanks, the gauge data settles it",
    "[{a}]({profile}) is right, you should read the gauge before the app.",
    "[{a}]({profile}) is right and you should read the gauge before trusting the app",
    "Ask [{a}]({profile})",
], ids=["mention", "sentence", "long-rest", "not-opening"])
def test_a_profile_link_in_running_text_names_no_post_author(case: Case, opening: str) -> None:
    # No header names anyone: the line after each permalink starts with a profile link, but as a mention
    # or inside a sentence, so the post has no attributed author.
    items = "\n\n".join(f"[March 27]({post_link(n)})\n\n" + opening.format(a=a, profile=profile(a)) + f"\n\n{t}"
                        for n, a, t in POSTS)
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{items}\n")), 0)


def test_a_share_button_is_no_post_author() -> None:
    # On main before issue 30, "Share" (a link to facebook.com/sharer) was read as the author of each post
    # after the first, where no label list names it (imported suites have empty ones).
    case = make_post_case(posts=post_contract(non_author_labels=[], ignored_labels=[], metadata_labels=[]))
    items = "\n\n".join(f"[#{n}]({post_link(n)})\n\n{t}\n\n0 · [Share](https://www.facebook.com/sharer/sharer.php?u=x)"
                        for n, _a, t in POSTS)
    assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{items}\n")), 0)


def stack_post(number: int, author: str, text: str, verb: str, editor: str | None = None) -> str:
    """A Stack Exchange post as markdownify writes it: the text, then its short permalink ("Share"), the
    post's controls, an editor's card (its date linked to the revisions) and the owner's card."""
    edited = (f"[edited Jul 28, 2016 at 13:13]({FORUM_URL}/posts/{number}/revisions)\n\n"
              f"[![]({profile(editor)}.png)]({profile(editor)})\n\n[{editor}]({profile(editor)})\n\n"
              "17.9k33 gold badges\n\n") if editor else ""
    return (f"{text}\n\n[Share]({post_link(number)} \"Short permalink\")\n\nShare a link to this post\n\n"
            f"Improve this post\n\nFollow\n\n{edited}{verb} Jul 28, 2016 at 13:01\n\n"
            f"[![]({profile(author)}.png)]({profile(author)})\n\n[{author}]({profile(author)}){author}\n\n4344 bronze badges")


def test_an_owner_card_after_a_closing_permalink_names_its_post() -> None:
    # forum-081 (Stack Exchange) as markdownify, chromium and jsdom write it: each post's link closes it,
    # and the "asked"/"answered" card after the link names its owner; an editor's card names nobody.
    case = make_post_case(posts=post_contract(metadata_labels=["asked", "answered", "edited"]))
    items = "\n\n".join(stack_post(n, a, t, "asked" if n == 1 else "answered", editor="Olek Brandt" if n < 3 else None)
                        for n, a, t in POSTS)
    verdict = evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{items}\n\n{FOOTER}\n"))
    assert_posts(verdict, 6)
    assert [d["author"] for d in posts_of(verdict).details[1:4]] == ["skipper_ana", "Tom Farrell", "gullwing"]


def test_an_editor_card_alone_or_a_date_line_far_from_the_name_names_no_owner() -> None:
    case = make_post_case(posts=post_contract(metadata_labels=["asked", "answered", "edited"]))
    n, a, t = POSTS[0]
    # Only the editor's card (its date a link to the revisions): nobody owns the post.
    edited = (f"{t}\n\n[Share]({post_link(n)})\n\n[edited Jul 28, 2016 at 13:13]({FORUM_URL}/posts/{n}/revisions)\n\n"
              f"[Olek Brandt]({profile('Olek Brandt')})")
    # A date line followed by text, then a profile link further down: no card.
    far = (f"{t}\n\n[Share]({post_link(n)})\n\nasked Jul 28, 2016 at 13:01\n\nThe tide turned early.\n\n"
           f"[{a}]({profile(a)})")
    for item in (edited, far):
        assert_posts(evaluate_response(case, answer(f"# {FORUM_TITLE}\n\n{item}\n")), 0)
