"""Link targets read as the case's URLs behind replay (SPEC §7; lexbench.scoring.links).

A provider handed the replay URL that writes the page's links absolute against it (crawl4ai, most hosted
services) must score as one that keeps them relative: same post records, same named-link floors.
"""

from __future__ import annotations

import pytest
from factories import FORUM_URL, POSTS, answer, make_case, make_post_case, markdown_page, posts_markdown

from lexbench.run.fetcher import CaseTarget, VerdictFailure, assert_passes
from lexbench.scoring import evaluate_response
from lexbench.scoring.links import PageBase
from lexbench.verdict import Component, Outcome

LOOPBACK_ARCHIVE = "http://127.0.0.1:41234/replay/home-024-en-ledger/"
LOOPBACK_FILE = "http://127.0.0.1:41234/replay/forum-002-en-sella-tides"
PUBLIC = "https://replay.example.org/r7Qx/firecrawl/k2Jd/replay/home-024-en-ledger/"
STORIES = ["ferry-timetable", "sea-wall", "festival", "lifeboat"]


@pytest.mark.parametrize(("case_url", "served", "href", "expected"), [
    # an archive page: the served directory is the case's directory
    ("https://ledger.example/", LOOPBACK_ARCHIVE, LOOPBACK_ARCHIVE + "news/a/", "https://ledger.example/news/a/"),
    ("https://ledger.example/", LOOPBACK_ARCHIVE, "news/a/", "https://ledger.example/news/a/"),
    ("https://ledger.example/", LOOPBACK_ARCHIVE, LOOPBACK_ARCHIVE + "#top", "https://ledger.example/#top"),
    ("https://ledger.example/", LOOPBACK_ARCHIVE, LOOPBACK_ARCHIVE.rstrip("/"), "https://ledger.example/"),
    ("https://ledger.example/", PUBLIC, PUBLIC + "news/a/", "https://ledger.example/news/a/"),
    # scheme and host are case-insensitive, the path is not
    ("https://ledger.example/", LOOPBACK_ARCHIVE, "HTTP://127.0.0.1:41234/replay/home-024-en-ledger/News/",
     "https://ledger.example/News/"),
    # a one-file capture: the page is a file of the replay directory, as the case URL is of its own
    (FORUM_URL, LOOPBACK_FILE, LOOPBACK_FILE, FORUM_URL),
    (FORUM_URL, LOOPBACK_FILE, "http://127.0.0.1:41234/replay/4471/p/3", f"{FORUM_URL}/p/3"),
    # anything else resolves as it always did
    ("https://ledger.example/", LOOPBACK_ARCHIVE, "https://other.example/news/a/", "https://other.example/news/a/"),
    ("https://ledger.example/", LOOPBACK_ARCHIVE, "http://127.0.0.1:41234/replay/another-case/x",
     "http://127.0.0.1:41234/replay/another-case/x"),
    ("https://ledger.example/", None, "/news/a/", "https://ledger.example/news/a/"),
    ("https://ledger.example/", "https://ledger.example/", "https://ledger.example/a", "https://ledger.example/a"),
])
def test_a_target_under_the_served_page_is_read_as_the_case_url(case_url, served, href, expected) -> None:
    assert PageBase(case_url, served).absolute(href) == expected


def floor_case():
    return make_case(anchors={"link_floors": [{"id": "latest", "href_pattern": r"https://gazette\.example/coast/news/[a-z-]+",
                                                "minimum": 3, "location": "latest stories rail"}],
                              "visible_controls": []})


def rail(prefix: str) -> str:
    return markdown_page() + "\n" + "\n".join(f"- [Story {slug}]({prefix}news/{slug})" for slug in STORIES) + "\n"


@pytest.mark.parametrize("served", ["http://127.0.0.1:41234/replay/article-001-en-valmora-lighthouse/",
                                    "https://replay.example.org/r7Qx/exa/k2Jd/replay/article-001-en-valmora-lighthouse/"])
def test_named_links_made_absolute_against_the_replay_url_count_like_relative_ones(served: str) -> None:
    case = floor_case()  # its URL: https://gazette.example/coast/last-lighthouse-keeper (directory /coast/)
    relative = evaluate_response(case, answer(rail("")), served_url=served)
    absolute = evaluate_response(case, answer(rail(served)), served_url=served)
    for verdict in (relative, absolute):
        floor = verdict.component(Component.ANCHORS)
        assert floor is not None and floor.passed is True, verdict.explanation
        assert floor.details[0]["measured"] == 4
    # without the served URL the scorer cannot tell the replay host from a foreign one
    unknown = evaluate_response(case, answer(rail(served)))
    assert unknown.component(Component.ANCHORS).details[0]["measured"] == 0


def test_post_links_made_absolute_against_the_replay_url_count_as_owned() -> None:
    case = make_post_case()
    served = "http://127.0.0.1:41234/replay/forum-002-en-sella-tides"
    content = posts_markdown().replace(FORUM_URL + "/p/", "http://127.0.0.1:41234/replay/4471/p/")
    assert "127.0.0.1" in content
    verdict = evaluate_response(case, answer(content), served_url=served)
    posts = verdict.component(Component.POSTS)
    assert posts is not None and posts.passed is True, verdict.explanation
    assert posts.measured == len(POSTS)
    assert evaluate_response(case, answer(content)).component(Component.POSTS).measured == 0


def test_a_users_fetcher_that_read_the_replay_url_is_scored_against_it() -> None:
    served = "http://127.0.0.1:41234/replay/forum-002-en-sella-tides"
    case = make_post_case()
    content = posts_markdown().replace(FORUM_URL + "/p/", "http://127.0.0.1:41234/replay/4471/p/")
    target = CaseTarget(case, lambda: served)
    assert target.served_url is None  # nothing handed before the test reads its URL
    assert target.url == served  # the test fetched what it was handed
    assert target.served_url == served
    assert assert_passes(target, content, format="markdown").outcome is Outcome.PASS
    with pytest.raises(VerdictFailure, match="posts 0 valid"):
        assert_passes(case, content, format="markdown")  # a bare Case: no URL was handed
