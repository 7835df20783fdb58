"""Anchors (SPEC §2): named-link floors and opt-in visible-control anchors."""

from __future__ import annotations

import pytest
from factories import ATTRIBUTION, NAVIGATION, PARAGRAPHS, TITLE, answer, html_page, make_case, markdown_page

from lexbench.dataset.case import Case
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict

STORIES = [("Ferry timetable changes", "ferry-timetable"), ("Sea wall review", "sea-wall"),
           ("Harbour festival", "festival"), ("Lifeboat crew award", "lifeboat")]
SEARCH_LABEL = "Search the archive"


@pytest.fixture(scope="module")
def case() -> Case:
    return make_case(anchors={
        "link_floors": [{"id": "latest-stories", "href_pattern": r"https://gazette\.example/news/[a-z-]+",
                         "minimum": 3, "location": "latest stories rail"}],
        "visible_controls": [{"id": "archive-search", "label": SEARCH_LABEL, "selector": "form.search input[name=q]",
                              "attribute": "placeholder", "location": "header search box"}],
    })


def anchors_of(verdict: Verdict) -> ComponentResult:
    result = verdict.component(Component.ANCHORS)
    assert result is not None
    return result


def rail_html(stories=STORIES, *, link_text=True) -> str:
    items = "".join(f"<li><a href='/news/{slug}'>{title if link_text else '<img src=x.png>'}</a></li>"
                    for title, slug in stories)
    return f"<aside><h2>Latest</h2><ul>{items}</ul></aside>"


def search_html(attrs: str = "") -> str:
    return f"<form class='search'><input name='q' placeholder='{SEARCH_LABEL}'{attrs}></form>"


def rail_markdown(stories=STORIES) -> str:
    return "\n".join(f"- [{title}](https://gazette.example/news/{slug})" for title, slug in stories)


def test_html_floor_and_visible_control_pass(case: Case) -> None:
    verdict = evaluate_response(case, answer(html_page(extra_body=search_html() + rail_html()), "html"))
    assert anchors_of(verdict).passed is True, verdict.explanation
    assert verdict.outcome is Outcome.PASS
    assert anchors_of(verdict).details[0]["measured"] == 4


def test_markdown_floor_and_the_same_visible_label_pass(case: Case) -> None:
    content = markdown_page() + "\n" + rail_markdown() + f"\n\n{SEARCH_LABEL}\n"
    assert anchors_of(evaluate_response(case, answer(content))).passed is True


def test_too_few_named_links_fail(case: Case) -> None:
    content = markdown_page() + "\n" + rail_markdown(STORIES[:2]) + f"\n\n{SEARCH_LABEL}\n"
    verdict = evaluate_response(case, answer(content))
    assert anchors_of(verdict).passed is False
    assert "latest-stories: 2 named links < 3" in verdict.explanation


def test_links_without_visible_names_do_not_count(case: Case) -> None:
    verdict = evaluate_response(case, answer(html_page(extra_body=search_html() + rail_html(link_text=False)), "html"))
    assert anchors_of(verdict).passed is False
    content = markdown_page() + "\n" + "\n".join(f"[![{t}](x.png)](https://gazette.example/news/{s})" for t, s in STORIES)
    assert anchors_of(evaluate_response(case, answer(content + f"\n\n{SEARCH_LABEL}\n"))).passed is False


def test_plain_text_has_no_link_targets(case: Case) -> None:
    text = "\n".join([NAVIGATION, TITLE, ATTRIBUTION, *PARAGRAPHS, *(t for t, _s in STORIES), SEARCH_LABEL])
    verdict = evaluate_response(case, answer(text, "text"))
    details = {d["id"]: d for d in anchors_of(verdict).details}
    assert details["latest-stories"]["passed"] is False
    assert details["archive-search"]["passed"] is True  # the visible label itself, as a standalone line


@pytest.mark.parametrize(
    "control",
    [search_html(" type='hidden'"), search_html(" hidden"), search_html(" style='display:none'"),
     f"<details><summary>Search</summary>{search_html()}</details>",
     search_html(" type='password'"), f"<input name='q' aria-label='{SEARCH_LABEL}'>",
     f"<form class='search'><input name='q' title='{SEARCH_LABEL}'></form>"],
    ids=["type-hidden", "hidden", "display-none", "closed-details", "password", "aria-label", "title-attribute"],
)
def test_hidden_controls_and_other_attributes_do_not_count(case: Case, control: str) -> None:
    verdict = evaluate_response(case, answer(html_page(extra_body=control + rail_html()), "html"))
    details = {d["id"]: d for d in anchors_of(verdict).details}
    assert details["archive-search"]["passed"] is False, control
    assert verdict.outcome is Outcome.FAIL


def test_a_control_value_never_adds_to_body_coverage(case: Case) -> None:
    hidden_ending = f"<form class='search'><input name='q' placeholder='{PARAGRAPHS[-1]}'></form>"
    verdict = evaluate_response(case, answer(html_page(PARAGRAPHS[:-1], extra_body=hidden_ending), "html"))
    assert verdict.component(Component.ENDING).passed is False


def test_button_value_anchor(case: Case) -> None:
    button = make_case(anchors={"visible_controls": [
        {"id": "subscribe", "label": "Subscribe now", "selector": "input[type=submit]", "attribute": "value",
         "location": "newsletter box"}]})
    page = html_page(extra_body="<form><input type='submit' value='Subscribe now'></form>")
    assert anchors_of(evaluate_response(button, answer(page, "html"))).passed is True
    markdown = markdown_page() + "\n[Subscribe now](https://gazette.example/subscribe)\n"
    assert anchors_of(evaluate_response(button, answer(markdown))).passed is True
