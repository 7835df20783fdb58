"""Comments v2 (SPEC §3.5): synthetic accepted and rejected answers in Markdown, plain text and HTML."""

from __future__ import annotations

import pytest
from factories import (
    COMMENTS,
    DELETED_NOTICE,
    PARAGRAPHS,
    answer,
    article_markdown_with,
    article_text_with,
    comment_contract,
    comment_li,
    comments_html,
    comments_markdown,
    comments_text,
    html_page,
    make_comment_case,
    markdown_page,
    recommendations_markdown,
)

from lexbench.dataset.case import Case
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict

MINIMUM = 5  # ceil(0.8 × 6)


@pytest.fixture(scope="module")
def case() -> Case:
    return make_comment_case()


def comments_of(verdict: Verdict) -> ComponentResult:
    result = verdict.component(Component.COMMENTS)
    assert result is not None, verdict.components
    return result


def assert_comments(verdict: Verdict, found: int) -> None:
    result = comments_of(verdict)
    assert result.measured == found, result.evidence
    assert result.threshold == MINIMUM
    assert result.passed is (found >= MINIMUM)
    if found >= MINIMUM:
        assert verdict.outcome is Outcome.PASS, verdict.explanation
    else:
        assert verdict.outcome is Outcome.FAIL and verdict.failure_class == "content", verdict.explanation
        assert f"< minimum {MINIMUM}" in verdict.explanation


# --- accepted ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["heading", "linked", "bold", "list", "colon"])
def test_complete_markdown_comments_pass_in_every_author_form(case: Case, style: str) -> None:
    verdict = evaluate_response(case, answer(article_markdown_with(comments_markdown(style=style))))
    assert_comments(verdict, 6)
    assert "comment section under its heading" in comments_of(verdict).evidence


@pytest.mark.parametrize("style", ["linked", "bold", "colon"])
def test_comments_right_after_the_body_ending_need_no_heading(case: Case, style: str) -> None:
    verdict = evaluate_response(case, answer(article_markdown_with(comments_markdown(style=style, heading=None))))
    assert_comments(verdict, 6)
    assert "after the body ending" in comments_of(verdict).evidence


def test_plain_text_colon_labelled_comments_pass(case: Case) -> None:
    for heading in ("Comments", None):
        verdict = evaluate_response(case, answer(article_text_with(comments_text(heading=heading)), "text"))
        assert_comments(verdict, 6)


def test_reformatted_comments_pass(case: Case) -> None:
    # Wrapped lines, another date format, extra blank lines and emphasis inside the text.
    records = [(i, a, t.replace(" the ", " the\n", 1).replace("piece", "*piece*")) for i, a, t in COMMENTS]
    section = comments_markdown(records, style="linked").replace("says:", "said on 3 Mar 2026:")
    verdict = evaluate_response(case, answer(article_markdown_with(section.replace("\n\n", "\n\n\n"))))
    assert_comments(verdict, 6)


def test_extra_recommendations_after_the_comments_do_not_count(case: Case) -> None:
    section = comments_markdown(style="bold") + "\n\n" + recommendations_markdown()
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert_comments(verdict, 6)  # the two recommendation "records" stop at the end label


def test_an_equal_level_heading_ends_the_comment_section(case: Case) -> None:
    section = comments_markdown(style="bold") + "\n\n" + recommendations_markdown("## More from the Gazette")
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 6)


def test_code_inside_an_attributed_comment_is_its_text(case: Case) -> None:
    records = [(i, a, t) for i, a, t in COMMENTS[:5]]
    section = comments_markdown(records, style="bold") + "\n\n**Ada Quill**\n\n```\nledger --export green-ink.csv\n```"
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 6)


def test_html_comments_with_reviewed_selectors_pass_nested_or_flattened(case: Case) -> None:
    for nest in (True, False):
        verdict = evaluate_response(case, answer(html_page(extra_body=comments_html(nest_reply=nest)), "html"))
        assert_comments(verdict, 6)
        assert "html selectors" in comments_of(verdict).evidence


def test_cleaned_html_without_native_containers_uses_the_text_parser(case: Case) -> None:
    items = "".join(f"<h3>{author}</h3><p>{text}</p><p>Reply</p>" for _id, author, text in COMMENTS)
    page = html_page(extra_body=f"<section><h2>Comments</h2>{items}</section><aside><h3>Editors</h3><p>x y</p></aside>")
    verdict = evaluate_response(case, answer(page, "html"))
    assert_comments(verdict, 6)
    assert "html comment section" in comments_of(verdict).evidence


def test_the_floor_is_the_rounded_up_eighty_percent_of_the_baseline(case: Case) -> None:
    assert_comments(evaluate_response(case, answer(article_markdown_with(comments_markdown(COMMENTS[:5])))), 5)
    small = make_comment_case(comments=comment_contract(baseline=3))
    verdict = evaluate_response(small, answer(article_markdown_with(comments_markdown(COMMENTS[:2]))))
    assert comments_of(verdict).threshold == 3 and comments_of(verdict).passed is False


def test_distinct_record_ids_stay_distinct_and_identical_pairs_count_once(case: Case) -> None:
    twins = [("c-201", "Ilse Marten", "Same words."), ("c-202", "Ilse Marten", "Same words.")]
    html_records = COMMENTS[:3] + twins
    verdict = evaluate_response(case, answer(html_page(extra_body=comments_html(html_records, nest_reply=False)), "html"))
    assert comments_of(verdict).measured == 5  # two source ids, two records
    # Without ids (bold style has no permalink), a repeated section counts once.
    section = comments_markdown(COMMENTS[:4], style="bold") + "\n\n" + comments_markdown(COMMENTS[:4], style="bold", heading=None)
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert comments_of(verdict).measured == 4
    assert "duplicates counted once" in comments_of(verdict).evidence


def test_markdown_record_ids_come_from_permalinks(case: Case) -> None:
    twins = [("c-301", "Rob Tiernan", "Agreed."), ("c-302", "Rob Tiernan", "Agreed.")]
    verdict = evaluate_response(case, answer(article_markdown_with(comments_markdown(COMMENTS[:3] + twins))))
    assert comments_of(verdict).measured == 5
    assert {d.get("identity") for d in comments_of(verdict).details[1:]} >= {"c-301", "c-302"}


# --- rejected ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_format", ["markdown", "text", "html"])
def test_missing_comments_fail(case: Case, content_format: str) -> None:
    page = {"markdown": markdown_page(), "text": article_text_with(""), "html": html_page()}[content_format]
    verdict = evaluate_response(case, answer(page, content_format))
    assert_comments(verdict, 0)
    assert component_passed(verdict, Component.REGIONS)  # the body alone is complete


def component_passed(verdict: Verdict, name: Component) -> bool:
    result = verdict.component(name)
    return result is not None and result.passed is True


@pytest.mark.parametrize("content_format", ["markdown", "text", "html"])
def test_fewer_records_than_the_minimum_fail(case: Case, content_format: str) -> None:
    few = COMMENTS[:4]
    page = {
        "markdown": article_markdown_with(comments_markdown(few)),
        "text": article_text_with(comments_text(few)),
        "html": html_page(extra_body=comments_html(few, nest_reply=False)),
    }[content_format]
    assert_comments(evaluate_response(case, answer(page, content_format)), 4)


def test_bare_names_are_not_records(case: Case) -> None:
    names = "\n\n".join(f"**{author}**" for _id, author, _text in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with(f"## Comments\n\n{names}")))
    assert_comments(verdict, 0)
    assert "6 author without text" in verdict.explanation
    # In plain text a name alone on a line is not an author form at all.
    plain = "Comments\n" + "\n".join(author for _id, author, _text in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_text_with(plain), "text")), 0)


def test_placeholders_and_metadata_only_records_are_not_records(case: Case) -> None:
    records = [(i, a, DELETED_NOTICE) for i, a, _t in COMMENTS[:3]]
    records += [(i, a, "March 3, 2026 · Reply · Like (2)") for i, a, _t in COMMENTS[3:]]
    verdict = evaluate_response(case, answer(article_markdown_with(comments_markdown(records, style="bold"))))
    assert_comments(verdict, 0)
    assert "3 unavailable placeholder" in verdict.explanation
    html = html_page(extra_body=comments_html(records, nest_reply=False))
    assert_comments(evaluate_response(case, answer(html, "html")), 0)


def test_image_only_records_are_not_records(case: Case) -> None:
    section = "## Comments\n\n" + "\n\n".join(f"**{a}**\n\n![photo of the cape](cape-{i}.jpg)" for i, a, _t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 0)


def test_comment_text_taken_from_the_article_is_not_a_record(case: Case) -> None:
    fake = [(i, a, PARAGRAPHS[n]) for n, (i, a, _t) in enumerate(COMMENTS)]
    verdict = evaluate_response(case, answer(article_markdown_with(comments_markdown(fake, style="bold"))))
    assert_comments(verdict, 0)
    assert "6 article text" in verdict.explanation


def test_article_text_before_the_ending_never_supplies_records(case: Case) -> None:
    # Colon labels, bold lead-ins and linked names inside the body, and no comments.
    body = list(PARAGRAPHS)
    body[1] = "Note: " + body[1]
    body.insert(2, "**Teodor Brask**")
    body.insert(4, "[Sella Bay](https://gazette.example/tags/sella-bay)")
    assert_comments(evaluate_response(case, answer(markdown_page(body))), 0)


def test_colon_labels_need_the_ending_or_a_comment_heading(case: Case) -> None:
    # Neither the reviewed ending (the last paragraph is missing) nor a comment heading: no component.
    content = markdown_page(PARAGRAPHS[:-1]) + "\n" + comments_markdown(style="colon", heading=None)
    verdict = evaluate_response(case, answer(content))
    assert_comments(verdict, 0)
    assert "no comment section" in verdict.explanation


def test_a_navigation_label_cannot_open_the_comment_section(case: Case) -> None:
    content = "## [Comments](https://gazette.example/community)\n\n" + markdown_page(PARAGRAPHS[:-1]) + "\n" + \
        comments_markdown(style="colon", heading=None)
    assert_comments(evaluate_response(case, answer(content)), 0)


def test_recommendations_alone_supply_no_records(case: Case) -> None:
    verdict = evaluate_response(case, answer(article_markdown_with(recommendations_markdown())))
    assert_comments(verdict, 0)


def test_code_blocks_supply_no_authors(case: Case) -> None:
    section = "## Comments\n\n```\n" + comments_text(heading=None) + "\n```\n\n    **Ilse Marten**\n\n"
    fenced = comments_markdown(style="heading").replace("### ", "    ### ")
    for content in (section, fenced):
        assert_comments(evaluate_response(case, answer(article_markdown_with(content))), 0)


@pytest.mark.parametrize(
    "wrap",
    [
        "<div style='display:none'>{}</div>",
        "<details><summary>Show 6 comments</summary>{}</details>",
        "<template>{}</template>",
        "<div hidden>{}</div>",
    ],
    ids=["display-none", "closed-details", "template", "hidden"],
)
def test_hidden_html_comments_do_not_count(case: Case, wrap: str) -> None:
    verdict = evaluate_response(case, answer(html_page(extra_body=wrap.format(comments_html())), "html"))
    assert_comments(verdict, 0)


def test_hidden_authors_or_texts_inside_visible_records_do_not_count(case: Case) -> None:
    items = [comment_li(i, a, t, author_attrs=" style='display:none'") for i, a, t in COMMENTS[:3]]
    items += [comment_li(i, a, t, text_attrs=" hidden") for i, a, t in COMMENTS[3:]]
    page = html_page(extra_body=f"<ol>{''.join(items)}</ol>")
    verdict = evaluate_response(case, answer(page, "html"))
    assert_comments(verdict, 0)


def test_a_failed_native_count_is_not_rescued_by_the_text_parser(case: Case) -> None:
    native = comments_html(COMMENTS[:2], nest_reply=False)
    loose = "".join(f"<h3>{a}</h3><p>{t}</p>" for _i, a, t in COMMENTS[2:])
    verdict = evaluate_response(case, answer(html_page(extra_body=native + loose), "html"))
    assert_comments(verdict, 2)
    assert "html selectors" in comments_of(verdict).evidence


def test_comment_contract_without_html_selectors_reads_html_as_text(case: Case) -> None:
    plain = make_comment_case(comments=comment_contract(html=None))
    verdict = evaluate_response(plain, answer(html_page(extra_body=comments_html()), "html"))
    assert comments_of(verdict).passed is True


def test_a_colon_label_line_names_the_author_of_the_text_below(case: Case) -> None:
    # WordPress without a commenter URL: "Name says:" on its own line, the comment underneath.
    section = "### 6 Responses to “The Last Lighthouse Keeper”\n\n" + "\n\n".join(
        f"{i}. {author} says:\n\n   March 3, 2026 at 4:12 pm\n\n   {text}\n\n   Reply"
        for i, (_id, author, text) in enumerate(COMMENTS, start=1)
    )
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 6)


def test_a_section_label_heading_names_nobody(case: Case) -> None:
    # "Similar Posts:" between the ending and the comments is a section label, not an author heading.
    section = "### Similar Posts:\n\n- [Ferry timetable](https://gazette.example/ferry)\n\n" + \
        comments_markdown(COMMENTS[:2], style="bold", heading=None)
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert [d["author"] for d in comments_of(verdict).details[1:]] == ["Ilse Marten", "Rob Tiernan"]


def test_comments_in_an_open_disclosure_count(case: Case) -> None:
    page = html_page(extra_body=f"<details open><summary>Comments</summary>{comments_html()}</details>")
    assert_comments(evaluate_response(case, answer(page, "html")), 6)


def test_a_pingback_counts_through_its_source_identity_only_with_text(case: Case) -> None:
    pingback = "[Harbour Notes: Lighthouse week](https://notes.example/lighthouse-week) says:\n\n[…] the keeper turned the lens by hand until dawn […]"
    bare = "[Harbour Notes: Lighthouse week](https://notes.example/lighthouse-week) says:"
    counted = evaluate_response(case, answer(article_markdown_with(comments_markdown(COMMENTS[:4], style="bold") + "\n\n" + pingback)))
    assert_comments(counted, 5)
    uncounted = evaluate_response(case, answer(article_markdown_with(comments_markdown(COMMENTS[:4], style="bold") + "\n\n" + bare)))
    assert_comments(uncounted, 4)


def test_sidebar_comment_widgets_are_not_read_by_the_text_parser(case: Case) -> None:
    widget = "".join(f"<h4><a href='/u/{i}'>{a}</a></h4><p>{t}</p>" for i, a, t in COMMENTS)
    page = html_page(extra_body=f"<aside><h3>Recent comments</h3>{widget}</aside>")
    assert_comments(evaluate_response(case, answer(page, "html")), 0)


def test_an_explicit_heading_disambiguates_a_repeated_ending(case: Case) -> None:
    # The article appears twice (a summary view, then the full text): the section opens at its heading.
    body = "\n\n".join(PARAGRAPHS)
    content = f"# Summary\n\n{body}\n\n{article_markdown_with(comments_markdown(style='colon'))}"
    assert_comments(evaluate_response(case, answer(content)), 6)


def test_observed_labels_are_compared_in_label_normal_form(case: Case) -> None:
    # "ＲＥＰＬＹ" (full width), "**Like**" and "Report (2)" are the reviewed labels Reply, Like, Report.
    records = [(i, a, label) for (i, a, _t), label in zip(COMMENTS, ["ＲＥＰＬＹ", "**Like**", "Report (2)"] * 2)]
    assert_comments(evaluate_response(case, answer(article_markdown_with(comments_markdown(records, style="bold")))), 0)


# --- comments as answers write them (issue 30): accepted forms ---------------------------------------

PEOPLE = "https://people.example"


def listed(records: list[tuple[str, str, str]] | None = None, *, header: str = "{author}", marker: str = "*",
           extra: str = "") -> str:
    """Comments as list items: the item's first block names the author, its next paragraphs are the text."""
    items = []
    for number, (_id, author, text) in enumerate(COMMENTS if records is None else records, start=1):
        bullet = f"{number}." if marker == "1." else marker
        pad = " " * (len(bullet) + 1)
        items.append(f"{bullet} {header.format(author=author, id=_id)}\n\n{pad}{text}{extra.format(pad=pad)}")
    return "\n".join(items)


@pytest.mark.parametrize("header", [
    "{author}",                                            # markdownify's `* Amy D.` then `Love this.`
    f"{PEOPLE}/{{id}} {{author}}",                        # the commenter's site written as text beside the name
    "{author} on March 3, 2026 at 4:12 pm said:",         # a name, its date and an attribution label
], ids=["name", "url-and-name", "name-and-date"])
def test_list_items_headed_by_a_name_are_records(case: Case, header: str) -> None:
    section = listed(header=header)
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 6)
    assert_comments(evaluate_response(case, answer(article_markdown_with("## 6 Comments\n\n" + section))), 6)


def test_a_responses_list_of_name_date_and_text_counts_every_comment(case: Case) -> None:
    # WordPress as markdownify writes it: an avatar (no text), the name, the date, the text, "Reply";
    # replies are nested items with a linked name.
    items = []
    for number, (record_id, author, text) in enumerate(COMMENTS[:5], start=1):
        items.append(f"{number}. ![](https://avatars.example/{record_id}.png)\n\n   {author}\n\n   March 3, 2026 at 4:12 pm"
                     f"\n\n   {text}\n\n   [Reply](?replytocom={record_id})")
    _id, author, text = COMMENTS[5]
    items[1] += f"\n\n   * ![](https://avatars.example/r.png)\n\n     [{author}]({PEOPLE}/r)\n\n     {text}"
    section = "### 6 Responses to “The Last Lighthouse Keeper”\n\n" + "\n".join(items)
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert_comments(verdict, 6)
    assert {d["author"] for d in comments_of(verdict).details[1:]} == {a for _i, a, _t in COMMENTS}


def test_a_name_ending_in_an_initial_is_a_name(case: Case) -> None:
    records = [(i, a.split()[0] + " " + a.split()[-1][0] + "." if " " in a else a, t) for i, a, t in COMMENTS]
    verdict = evaluate_response(case, answer(article_markdown_with(listed(records))))
    assert_comments(verdict, 6)
    assert "Ilse M." in [d["author"] for d in comments_of(verdict).details[1:]]


@pytest.mark.parametrize("signature", ["Posted by {author} | Report", "— {author}", "-- {author}, March 3, 2026"])
def test_a_signature_after_the_text_names_its_author(case: Case, signature: str) -> None:
    records = "\n\n".join(f"{text}\n\n{signature.format(author=author)}" for _id, author, text in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with("## 6 Comments\n\n" + records)))
    assert_comments(verdict, 6)
    assert [d["author"] for d in comments_of(verdict).details[1:3]] == ["Ilse Marten", "Rob Tiernan"]
    # A plain "Comments" line (no heading markup) also shows that the comments have begun.
    plain = evaluate_response(case, answer(article_markdown_with("Comments\n\n" + records)))
    assert_comments(plain, 6)


def test_a_subject_heading_over_a_byline_is_one_record_of_the_byline_author(case: Case) -> None:
    # Slashdot as markdownify writes it: a linked subject with its score, then "by Name (id) writes:".
    records = "\n".join(
        f"* #### [Re: the ledger]({PEOPLE}/c?cid={i}) ([Score:{n}](#), Insightful)\n\n"
        f"  by [{a} ({n}042)]({PEOPLE}/~{i}) writes:\n\n  {t}"
        for n, (i, a, t) in enumerate(COMMENTS, start=1))
    verdict = evaluate_response(case, answer(article_markdown_with(records)))
    assert_comments(verdict, 6)
    assert comments_of(verdict).details[1]["author"] == "Ilse Marten (1042)"


# --- comments as answers write them (issue 30): refused shapes ---------------------------------------


@pytest.mark.parametrize("subject", ["## Re: (Score:3)", "## Re:The keeper (Score:5, Insightful)",
                                     "### The keeper's ledger (Score:4, Interesting)", "**RE: the ledger**"])
def test_subject_lines_are_not_authors(case: Case, subject: str) -> None:
    # trafilatura on Slashdot: every comment's subject heading kept, every author line dropped.
    records = "\n\n".join(f"{subject}\n\n{text}" for _id, _author, text in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with(records)))
    assert_comments(verdict, 0)


@pytest.mark.parametrize("navigation", [
    "[PREVIOUS POST](https://gazette.example/coast/ferry)\n\n[NEXT POST](https://gazette.example/coast/storms)",
    "« [Ferry timetable changes for the summer](https://gazette.example/coast/ferry)",
    "[Storm season review](https://gazette.example/coast/storms) »",
    "[« Older entries](https://gazette.example/page/2)",
], ids=["next-previous", "arrow-led", "arrow-closed", "older-entries"])
def test_navigation_links_are_not_authors(case: Case, navigation: str) -> None:
    # The answer has the comments' text but no author form: a reader finds no record.
    texts = "\n\n".join(text for _id, _author, text in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with(f"{navigation}\n\n{texts}")))
    assert_comments(verdict, 0)


def test_share_controls_are_neither_authors_nor_text(case: Case) -> None:
    controls = "[Tweet](https://twitter.com/share)\n\n[Facebook](https://www.facebook.com/sharer.php?u=x)"
    texts = "\n\n".join(text for _id, _author, text in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(f"{controls}\n\n{texts}"))), 0)
    # Between a name-list and the comments, a share line is no record's text either.
    names = "\n".join(f"* {author}" for _id, author, _text in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(f"{controls}\n\n{names}"))), 0)


def test_related_post_lists_of_title_and_excerpt_are_not_records(case: Case) -> None:
    excerpt = "From the first of June the morning ferry to Sella Bay leaves twenty minutes earlier."
    related = "\n".join([
        f"* [Ferry timetable changes for summer](https://gazette.example/coast/ferry)\n\n  {excerpt}",
        f"* [Storm season review: the new sea wall](https://gazette.example/coast/storms)\n\n  {excerpt}",
        f"* Poke the fire\n\n  {excerpt}",
        f"* [The keeper's cottage](/coast/cottage)\n\n  {excerpt}",
    ])
    assert_comments(evaluate_response(case, answer(article_markdown_with(related))), 0)


def test_names_without_text_of_their_own_are_not_records(case: Case) -> None:
    names = "\n".join(f"* {author}" for _id, author, _text in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with("## 6 Comments\n\n" + names))), 0)
    # The text after the list is not the last name's: the item ended before it.
    after = names + "\n\n" + COMMENTS[0][2]
    assert_comments(evaluate_response(case, answer(article_markdown_with("## 6 Comments\n\n" + after))), 0)
    # A name standing in a sentence of a list item is no heading of a record.
    inline = "\n".join(f"* {author} wrote to the museum about the ledger" for _id, author, _text in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(inline))), 0)


def test_a_bulleted_list_inside_a_comment_is_its_text(case: Case) -> None:
    bullets = "The ledger lists\n\n- ships,\n- winds, and\n- weather  \n  noted at each hour."
    section = comments_markdown(COMMENTS[:4], style="bold") + f"\n\n**{COMMENTS[4][1]}**\n\n{bullets}"
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert_comments(verdict, 5)
    assert "weather" not in [d["author"] for d in comments_of(verdict).details[1:]]


def test_a_signature_before_the_comments_begin_signs_the_article(case: Case) -> None:
    # The article's own footer right after the body ending, with no comment heading: no record.
    footer = "Join the Gazette's coastal newsletter for more stories.\n\nPosted by Mara Ilves on March 3, 2026"
    assert_comments(evaluate_response(case, answer(article_markdown_with(footer))), 0)


def test_a_sentence_with_a_colon_is_not_a_colon_labelled_author(case: Case) -> None:
    section = "\n\n".join(f"Examples of what he noted: {text}" for _id, _author, text in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 0)


# --- the two misses left on http-markdownify answers (articles cases 102 and 103) --------------------


@pytest.mark.parametrize("linked", [True, False], ids=["linked-name", "plain-name"])
def test_a_signature_broken_over_the_lines_of_one_paragraph_names_its_author(case: Case, linked: bool) -> None:
    # HubSpot as markdownify writes it: the text, then "posted on <date>" / "by" / the name, one paragraph.
    def name(i: str, a: str) -> str:
        return f"[{a}]({PEOPLE}/{i})" if linked else a
    records = "\n\n---\n\n".join(f"{t}\n\nposted on Wednesday, October 24, 2012 at 7:26 PM\nby\n{name(i, a)}"
                                 for i, a, t in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with("### COMMENTS\n\n" + records)))
    assert_comments(verdict, 6)
    # Each text is its signer's, not the next commenter's: the linked name closes a record, it opens none.
    details = comments_of(verdict).details[1:]
    assert [d["author"] for d in details[:2]] == ["Ilse Marten", "Rob Tiernan"]


def test_a_filing_line_or_a_long_paragraph_is_no_broken_signature(case: Case) -> None:
    # Between the verb and "by" only a date may stand; a paragraph longer than a signature is text.
    filed = "\n\n".join(f"{t}\n\nPosted in Uncategorized\nby\n{a}" for _i, a, t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with("### COMMENTS\n\n" + filed))), 0)
    long = "\n\n".join(f"{t}\n\nposted on March 3\nat the harbour\nafter the storm\nand then by\n{a}" for _i, a, t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with("### COMMENTS\n\n" + long))), 0)


def test_a_linked_name_ending_like_a_sentence_is_a_name_when_said_follows(case: Case) -> None:
    # A WordPress commenter named by the blog's title: "[Arthur in the Garden!](…) said:".
    records = [(i, a + "!", t) for i, a, t in COMMENTS]
    section = "\n".join(f"* {n}\n\n  [{a}]({PEOPLE}/{i}) said:\n\n  {t}\n\n  November 8, 2012 8:22 am"
                        for n, (i, a, t) in enumerate(records, start=1))
    verdict = evaluate_response(case, answer(article_markdown_with("## 6 Comments\n\n" + section)))
    assert_comments(verdict, 6)
    assert "Ilse Marten!" in [d["author"] for d in comments_of(verdict).details[1:]]


@pytest.mark.parametrize("line", ["[{a}!]({url})", "[{a}!]({url}) — read more", "**Thanks, {a}!**"],
                         ids=["link-alone", "link-and-words", "bold-alone"])
def test_a_linked_exclamation_without_an_attribution_verb_names_nobody(case: Case, line: str) -> None:
    # Names of two words and more: "Ilse Marten!" with no verb after it reads as an exclamation.
    section = "\n\n".join(line.format(a=a, url=f"{PEOPLE}/{i}") + f"\n\n{t}" for i, a, t in COMMENTS if " " in a)
    assert_comments(evaluate_response(case, answer(article_markdown_with("## 6 Comments\n\n" + section))), 0)


# --- reader faults of the judged set (cases/articles/judged) -----------------------------------------

TAXONOMY = ("Categories: [Coast](https://gazette.example/category/coast \"View all posts in Coast\")  \n"
            "Tags: [lighthouse](https://gazette.example/tag/lighthouse), [ledger](https://gazette.example/tag/ledger)"
            "\n\nFiled under: News\n\nPosted in: Coast, History")


def test_taxonomy_lines_after_the_ending_are_not_comments(case: Case) -> None:
    # readability on a WordPress post: the body, then its categories and tags as colon-labelled lines.
    assert_comments(evaluate_response(case, answer(article_markdown_with(TAXONOMY))), 0)
    # After real comments they add no record.
    section = comments_markdown(style="colon", heading=None) + "\n\n" + TAXONOMY
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 6)


def test_a_colon_label_over_only_links_is_no_comment(case: Case) -> None:
    links = "\n\n".join(f"{a}: [ledger](https://gazette.example/tag/ledger), [coast](https://gazette.example/tag/coast)"
                        for _i, a, _t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(links))), 0)
    # Text of its own beside a link is a comment.
    own = "\n\n".join(f"{a}: {t} See [the museum](https://museum.example/ledger)." for _i, a, t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(own))), 6)


@pytest.mark.parametrize("header", ["{a}says:3/3/2026", "{a} says: March 3, 2026 at 4:12 pm",
                                    "{a}(Twitter : @coast)says:3/3/2026"], ids=["glued", "spaced", "aside"])
def test_a_name_says_date_header_opens_a_record(case: Case, header: str) -> None:
    # trafilatura on WordPress: "Public Speaking Trainersays:11/2/2012", then the text, then "Reply".
    section = "\n\n".join(f"{header.format(a=a)}\n\n{t}\n\nReply" for _i, a, t in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert_comments(verdict, 6)
    assert [d["author"] for d in comments_of(verdict).details[1:3]] == ["Ilse Marten", "Rob Tiernan"]


@pytest.mark.parametrize("line", ["The keeper's ledger says: 1912", "The ledger says: the winter of 1912 was cold"])
def test_a_sentence_with_says_and_a_colon_is_no_header(case: Case, line: str) -> None:
    section = "\n\n".join(f"{line}\n\n{t}" for _i, _a, t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 0)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_name_line_over_a_date_line_heads_a_record(case: Case, fmt: str) -> None:
    # langchain on WordPress (plain text): "Rosa" / "09. Aug, 2012 at 4:27 pm" / "#" / the text / "Reply";
    # holzwerken as markdownify writes it: "Unbekannter Nutzer" / "21. Jan 2022" / the text / "0".
    records = [(i, a + " (Coast Walks)" if n == 1 else a, t) for n, (i, a, t) in enumerate(COMMENTS)]
    section = "\n\n".join(f"{a}\n\n09. Aug, 2012 at 4:27 pm\n\n#\n\n{t}\n\nReply" for _i, a, t in records)
    page = article_text_with(section) if fmt == "text" else article_markdown_with(section)
    verdict = evaluate_response(case, answer(page, fmt))
    assert_comments(verdict, 6)
    assert [d["author"] for d in comments_of(verdict).details[1:3]] == ["Ilse Marten", "Rob Tiernan (Coast Walks)"]
    # One name under two texts is two records.
    twice = "\n\n".join(f"Unbekannter Nutzer\n\n21. Jan 2022\n\n{t}\n\n0" for _i, _a, t in COMMENTS)
    page = article_text_with(twice) if fmt == "text" else article_markdown_with(twice)
    assert_comments(evaluate_response(case, answer(page, fmt)), 6)


def test_names_and_dates_without_a_date_line_or_text_are_not_records(case: Case) -> None:
    # A bare name over its text (no date line), a list of names and dates (recent comments) and a
    # title over a date and an excerpt (related posts) name nobody.
    bare = "\n\n".join(f"{a}\n\n{t}" for _i, a, t in COMMENTS)
    dates = "\n\n".join(f"{a}\n\nMarch 3, 2026" for _i, a, _t in COMMENTS) + "\n\nLeave a Reply"
    related = "\n\n".join(f"Poke the box\n\nMarch 3, 2026\n\n{t}" for _i, _a, t in COMMENTS)
    for section in (bare, dates, related):
        assert_comments(evaluate_response(case, answer(article_text_with(section), "text")), 0)
        assert_comments(evaluate_response(case, answer(article_markdown_with(section))), 0)


@pytest.mark.parametrize("header,first", [
    ("{a} on August 22, 2012 at 6:29 pm said:", "Ilse Marten"),   # langchain on edublogs (plain text)
    ("by {a} (579941) writes:", "Ilse Marten"),                   # langchain on Slashdot (plain text)
], ids=["name-date-said", "by-name-id-writes"])
def test_a_plain_attribution_line_ending_in_its_verb_heads_a_record(case: Case, header: str, first: str) -> None:
    section = "\n\n".join(f"{header.format(a=a)}\n\n{t}\n\nReply ↓" for _i, a, t in COMMENTS)
    verdict = evaluate_response(case, answer(article_text_with("Comments\n\n" + section), "text"))
    assert_comments(verdict, 6)
    assert comments_of(verdict).details[1]["author"] == first


@pytest.mark.parametrize("line", ["The museum said:", "Then the old keeper on March 3, 2026 said:",
                                  "by the harbour the keeper wrote:"])
def test_a_sentence_ending_in_said_is_no_header(case: Case, line: str) -> None:
    section = "\n\n".join(f"{line}\n\n{t}" for _i, _a, t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_text_with("Comments\n\n" + section), "text")), 0)


def run_on(records: list[tuple[str, str, str]], opening: str = "6 Responses to “The Last Lighthouse Keeper”") -> str:
    """A whole comment section on one line, as langchain writes WordPress: each "Name says: <date>" glued
    to its text, each text closed by a glued "Reply"."""
    return opening + "".join(f"{a} says: March {n}, 2026 at 4:1{n} pm{t} Reply" for n, (_i, a, t) in enumerate(records, 1))


def test_a_run_on_line_of_name_says_date_records_counts_each_record(case: Case) -> None:
    verdict = evaluate_response(case, answer(article_text_with(run_on(COMMENTS)), "text"))
    assert_comments(verdict, 6)
    assert [d["author"] for d in comments_of(verdict).details[1:4]] == ["Ilse Marten", "Rob Tiernan", "Mara Ilves"]
    # The count decoration and heading label before the first name are no part of it.
    verdict = evaluate_response(case, answer(article_text_with(run_on(COMMENTS, "6 Comments ")), "text"))
    assert comments_of(verdict).details[1]["author"] == "Ilse Marten"


def test_one_says_date_in_running_text_is_no_run_on_section(case: Case) -> None:
    # One header in a line is running text; a sentence before "says:" names nobody.
    one = "Comments " + run_on(COMMENTS[:1], "") + " and the harbour was quiet that night."
    assert_comments(evaluate_response(case, answer(article_text_with(one), "text")), 0)
    sentences = "".join(f"The keeper's ledger says: March {n}, 2026 at 4:1{n} pm{t} " for n, (_i, _a, t) in enumerate(COMMENTS, 1))
    assert_comments(evaluate_response(case, answer(article_text_with(sentences), "text")), 0)


def test_a_run_on_line_closed_by_glued_reply_controls_counts_each_record(case: Case) -> None:
    # langchain on Blogger: "Dan Renae7/10/2012I've recently…ReplyDeleteinternetricks4u8/12/2012It really…".
    records = [(i, a.lower() if n == 1 else a, t) for n, (i, a, t) in enumerate(COMMENTS)]
    line = "".join(f"{a}3/{n}/26 4:1{n} PM{t}ReplyLike" for n, (_i, a, t) in enumerate(records, 1))
    verdict = evaluate_response(case, answer(article_text_with("6 Comments\n" + line), "text"))
    assert_comments(verdict, 6)
    assert [d["author"] for d in comments_of(verdict).details[1:3]] == ["Ilse Marten", "rob tiernan"]


def test_glued_controls_without_a_name_and_a_date_split_nothing(case: Case) -> None:
    # The controls alone, or a sentence before the date, are no record headers.
    texts = "ReplyLike".join(t for _i, _a, t in COMMENTS)
    dated = "ReplyLike".join(f"We went there on 3/{n}/26 and {t}" for n, (_i, _a, t) in enumerate(COMMENTS, 1))
    glued = dated.replace(" on 3/", " on3/")
    for line in (texts, dated, glued):
        assert_comments(evaluate_response(case, answer(article_text_with("6 Comments\n" + line), "text")), 0)


def test_a_plain_text_signature_over_three_lines_names_its_author(case: Case) -> None:
    # langchain on HubSpot: each text, then "posted on <date>" / "by" / the name, a line each (plain text
    # keeps no paragraphs).
    records = "\n\n".join(f"{t}\n\t\tposted on Wednesday, October 24, 2012 at 7:26 PM\n\t\tby\n\t\t{a}" for _i, a, t in COMMENTS)
    verdict = evaluate_response(case, answer(article_text_with("COMMENTS\n" + records), "text"))
    assert_comments(verdict, 6)
    assert [d["author"] for d in comments_of(verdict).details[1:3]] == ["Ilse Marten", "Rob Tiernan"]
    # A filing line over "by" is no signature: only a date stands between the verb and "by".
    filed = "\n\n".join(f"{t}\nPosted in Uncategorized\nby\n{a}" for _i, a, t in COMMENTS)
    assert_comments(evaluate_response(case, answer(article_text_with("COMMENTS\n" + filed), "text")), 0)


@pytest.mark.parametrize("date", ["11月22日", "2026年11月22日", "3天前", "2時間前", "昨天"])
def test_a_linked_name_with_a_chinese_or_japanese_date_heads_a_list_item_record(date: str) -> None:
    # chromium-cdp on dynamic's Chinese comment widget: "1. [下河街老住户](user/5100/) 说： [11月22日](#comment-88301)",
    # the text, "[回复](#reply-88301)"; a deleted comment's notice alone is no record. Before CJK dates were
    # read as timestamps, the date left the header's residue unexplained and no record was found (scorer 4).
    case = make_comment_case(comments=comment_contract(ignored_labels=["回复", "说："], unavailable_notices=["该评论已被删除"],
                                                       heading_labels=["网友评论"]))
    items = [f"{n}. [{a}](user/{5100 + n}/) 说： [{date}](#comment-{i})\n\n   {t}\n\n   [回复](#reply-{i})"
             for n, (i, a, t) in enumerate(COMMENTS, start=1)]
    items.insert(2, "3. 该评论已被删除")
    verdict = evaluate_response(case, answer(article_markdown_with("## 网友评论\n\n" + "\n".join(items))))
    assert_comments(verdict, 6)


@pytest.mark.parametrize("date", ["11月22日", "3天前", "2時間前"])
def test_a_name_line_over_a_chinese_or_japanese_date_line_heads_a_record(case: Case, date: str) -> None:
    # A standalone CJK date is a timestamp (metadata), as "09. Aug, 2012 at 4:27 pm" is: the name line
    # over it heads a record, and the date line is never the record's text.
    section = "\n\n".join(f"{a}\n\n{date}\n\n{t}\n\nReply" for _i, a, t in COMMENTS)
    verdict = evaluate_response(case, answer(article_markdown_with(section)))
    assert_comments(verdict, 6)
    english = "\n\n".join(f"{a}\n\n09. Aug, 2012 at 4:27 pm\n\n{t}\n\nReply" for _i, a, t in COMMENTS)
    same = comments_of(evaluate_response(case, answer(article_markdown_with(english)))).details[1:7]
    assert comments_of(verdict).details[1:7] == same  # the same authors and texts as under an English date line
