"""Projection of HTML, Markdown and plain text to reader text (SPEC §3.2)."""

from __future__ import annotations

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexbench.scoring.projection import Link, VisibleTree, sniff_format
from lexbench.scoring.view import project


def visible(html: str) -> str:
    return project(html, "html").text


# --- HTML visibility ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hidden_markup",
    [
        '<div style="display:none">SECRET</div>',
        '<div style="DISPLAY : None !important">SECRET</div>',
        "<p style='color: red; visibility:hidden'>SECRET</p>",
        "<p hidden>SECRET</p>",
        '<section hidden="until-found"><p>SECRET</p></section>',
        "<template><p>SECRET</p></template>",
        "<noscript>SECRET</noscript>",
        "<script>var SECRET = 1;</script>",
        "<style>.SECRET { color: red }</style>",
        "<textarea>SECRET</textarea>",
        '<div hidden><div><span style="display:block">SECRET</span></div></div>',
    ],
)
@pytest.mark.parametrize("depth", [0, 2100], ids=["tree", "too-deep-for-libxml2"])
def test_hidden_html_never_counts(hidden_markup: str, depth: int) -> None:
    page = f"<p>Before</p>{hidden_markup}<p>After</p>"
    text = visible("<html><body>" + "<div>" * depth + page + "</div>" * depth + "</body></html>")
    assert "SECRET" not in text
    assert "Before" in text and "After" in text


def test_head_title_alt_title_attributes_and_input_values_are_not_text() -> None:
    text = visible(
        "<html><head><title>HEADTITLE</title><meta name=description content=META></head><body>"
        '<img alt="ALTTEXT" title="TIPTEXT" src="x.png"><input value="INPUTVALUE"><input type=hidden value=H>'
        '<a href="/x" title="LINKTIP">Read more</a></body></html>'
    )
    for word in ("HEADTITLE", "META", "ALTTEXT", "TIPTEXT", "INPUTVALUE", "LINKTIP"):
        assert word not in text
    assert "Read more" in text


@pytest.mark.parametrize("depth", [0, 2100], ids=["tree", "too-deep-for-libxml2"])
def test_closed_details_shows_only_its_first_direct_summary(depth: int) -> None:
    text = visible(
        "<div>" * depth
        + "<details>LOOSE<summary>First summary</summary><p>FOLDED</p><summary>SECOND</summary></details>"
        "<details><div><summary>NESTED</summary></div></details>"
        + "</div>" * depth
    )
    assert "First summary" in text
    for word in ("LOOSE", "FOLDED", "SECOND", "NESTED"):
        assert word not in text


def test_open_details_keeps_everything() -> None:
    text = visible("<details open><summary>Summary</summary><p>Unfolded text</p></details>")
    assert "Summary" in text and "Unfolded text" in text


def test_text_after_a_hidden_element_stays_visible() -> None:
    assert visible('<p>Start <span hidden>gone</span>tail end</p>') == "Start tail end"


def test_aria_hidden_is_not_hidden() -> None:
    assert "Shown" in visible('<p aria-hidden="true">Shown</p>')


@pytest.mark.parametrize("depth", [0, 2100], ids=["tree", "too-deep-for-libxml2"])
@pytest.mark.parametrize(
    "fallback",
    ["<iframe>SECRET</iframe>", "<video><p>SECRET</p></video>", "<audio>SECRET</audio>",
     "<canvas>SECRET</canvas>", "<datalist><option>SECRET</option></datalist>", "<ruby>kan<rp>SECRET</rp></ruby>",
     '<div style="content-visibility: hidden"><p>SECRET</p></div>'],
)
def test_fallback_and_unrendered_content_is_invisible(fallback: str, depth: int) -> None:
    text = visible("<div>" * depth + f"<p>Before</p>{fallback}<p>After</p>" + "</div>" * depth)
    assert "SECRET" not in text and "Before" in text and "After" in text


@pytest.mark.parametrize("depth", [0, 2100], ids=["tree", "too-deep-for-libxml2"])
def test_a_drop_down_shows_only_its_selected_option(depth: int) -> None:
    wrap = lambda markup: "<div>" * depth + markup + "</div>" * depth  # noqa: E731
    assert visible(wrap("<select><option>ONE</option><optgroup><option selected>TWO</option></optgroup></select>")) == "TWO"
    assert visible(wrap("<select><option>ONE</option><option>TWO</option></select>")) == "ONE"
    assert visible(wrap("<select multiple><option>ONE</option><option>TWO</option></select>")) == "ONE\nTWO"


@pytest.mark.parametrize("depth", [0, 2100], ids=["tree", "too-deep-for-libxml2"])
def test_visibility_hidden_is_inherited_and_can_be_overridden(depth: int) -> None:
    text = visible("<div>" * depth + '<div style="visibility:hidden">GONE<p style="visibility: visible">Shown</p>'
                   "<span>GONE</span></div><p>tail</p>" + "</div>" * depth)
    assert text == "Shown\ntail"


def test_visible_tree_prunes_what_a_reader_cannot_see() -> None:
    tree = VisibleTree.parse(
        "<html><head><title>T</title></head><body><p>Shown <span hidden>GONE</span>tail</p>"
        "<details>LOOSE<summary>Sum</summary><p>FOLDED</p></details><input type=hidden value=GONE>"
        '<div style="visibility:hidden">GONE<b style="visibility:visible">Back</b></div></body></html>'
    )
    assert tree is not None
    body = lxml.html.tostring(tree.root.find("body"), encoding="unicode")
    for word in ("GONE", "FOLDED", "LOOSE", "<title>"):
        assert word not in body
    assert [b.text for b in tree.blocks()] == ["Shown tail", "Sum", "Back"]
    hidden_div = tree.root.find("body/div")
    assert tree.shown(hidden_div) is False and tree.shown(hidden_div.find("b")) is True


def test_strong_spans_quotes_and_text_less_links_are_recorded() -> None:
    html_blocks = project(
        "<p><b>Alice</b> says <a href='/p/1'><img src=x></a></p><blockquote><p>Quoted <strong>Bob</strong></p>"
        "</blockquote><div><a href='/p/2'><img src=y></a></div><p>Next</p>",
        "html",
    ).blocks
    assert [(b.text, b.strong, b.quoted) for b in html_blocks] == [
        ("Alice says", ("Alice",), False), ("Quoted Bob", ("Bob",), True), ("Next", (), False)]
    assert html_blocks[0].links == (Link("", "/p/1"),)
    assert html_blocks[2].links == (Link("", "/p/2"),)  # a text-less link joins the text that follows it
    md_blocks = project("**Alice** says [](/p/1)\n\n[](/p/2)\n\nNext\n\n> **Bob** wrote", "markdown").blocks
    assert [(b.text, b.strong, b.quoted) for b in md_blocks] == [
        ("Alice says", ("Alice",), False), ("Next", (), False), ("Bob wrote", ("Bob",), True)]
    assert md_blocks[1].links == (Link("", "/p/2"),)


def test_html_blocks_and_kinds() -> None:
    projection = project(
        "<h2>Heading <a href='/h'>two</a></h2><p>One<br>Two</p><ul><li>Item</li></ul>"
        "<blockquote>Quoted</blockquote><pre>line 1\nline 2</pre><table><tr><td>Cell</td></tr></table>",
        "html",
    )
    kinds = [(b.kind, b.level, b.text) for b in projection.blocks]
    assert kinds == [
        ("heading", 2, "Heading two"),
        ("paragraph", 0, "One"),
        ("paragraph", 0, "Two"),
        ("list_item", 0, "Item"),
        ("quote", 0, "Quoted"),
        ("code", 0, "line 1\nline 2"),
        ("table_cell", 0, "Cell"),
    ]
    assert projection.blocks[0].links == (Link("two", "/h"),)
    assert projection.text == "Heading two\nOne\nTwo\nItem\nQuoted\nline 1\nline 2\nCell"


@pytest.mark.parametrize(
    "broken",
    ["", "   \n ", "<!-- only a comment -->", "<?php echo 1 ?>", "<html><body><p>unclosed <b>bold",
     '<?xml version="1.0" encoding="latin-1"?><p>Déjà vu</p>', "a\x00b<p>nul</p>", "</p></div></body>", "<<<>>>&&&"],
)
def test_broken_html_never_crashes(broken: str) -> None:
    projection = project(broken, "html")
    assert isinstance(projection.text, str)


def test_xml_declaration_and_comments_keep_surrounding_text() -> None:
    assert visible('<?xml version="1.0" encoding="latin-1"?><p>Déjà <!-- c -->vu</p>') == "Déjà vu"


def test_deeply_nested_html_keeps_all_visible_text() -> None:
    # libxml2 gives up past 2048 levels; the projection must neither recurse nor lose the rest.
    text = visible("<p>start</p>" + "<div>" * 5000 + "deep" + "</div>" * 5000 + "<p>after</p><p hidden>SECRET</p>")
    assert text == "start\ndeep\nafter"


def test_script_with_less_than_sign_does_not_swallow_the_page() -> None:
    source = "<script>if (a<b) run()</script>\n\nVisible paragraph\n"
    assert project(source, "markdown").text == "Visible paragraph"


# --- Markdown ----------------------------------------------------------------------------------------


def test_markdown_keeps_link_text_and_separates_targets() -> None:
    projection = project("See [the harbour report](https://example.com/r) now.", "markdown")
    assert projection.text == "See the harbour report now."
    assert projection.blocks[0].links == (Link("the harbour report", "https://example.com/r"),)


def test_markdown_drops_images_and_their_alt_text() -> None:
    assert project("Before ![ALTTEXT](pic.png) after", "markdown").text == "Before  after"


def test_markdown_drops_decoration() -> None:
    source = "## **Bold** heading\n\n> quoted _text_\n\n- item ~~one~~\n\n| a | b |\n|---|---|\n| c | d |\n"
    projection = project(source, "markdown")
    assert [(b.kind, b.text) for b in projection.blocks] == [
        ("heading", "Bold heading"),
        ("quote", "quoted text"),
        ("list_item", "item one"),
        ("table_cell", "a"),
        ("table_cell", "b"),
        ("table_cell", "c"),
        ("table_cell", "d"),
    ]


def test_markdown_code_blocks_are_kept_as_code_blocks() -> None:
    projection = project("Intro\n\n```python\nprint('kept')\n```\n\n    indented code\n", "markdown")
    assert [(b.kind, b.text) for b in projection.blocks] == [
        ("paragraph", "Intro"),
        ("code", "print('kept')"),
        ("code", "indented code"),
    ]


def test_deeply_nested_markdown_keeps_its_text() -> None:
    nested_list = "".join("  " * i + f"- item{i}\n" for i in range(30))
    assert "item29" in project(nested_list + "\nafter the list\n", "markdown").text
    assert "deep quote" in project(">" * 40 + " deep quote\n", "markdown").text


def test_markdown_paragraph_lines_survive_as_lines() -> None:
    projection = project("Title line\nBody *starts* here", "markdown")
    assert projection.blocks[0].lines() == ["Title line", "Body starts here"]


def test_markdown_html_follows_the_html_rules() -> None:
    source = (
        "Visible <span hidden>SECRET</span> text\n\n"
        '<div style="display:none">SECRET</div>\n\n'
        "<details>\n<summary>Fold</summary>\n\nSECRET inside the fold\n\n</details>\n\n"
        "After &amp; done"
    )
    text = project(source, "markdown").text
    assert "SECRET" not in text
    assert "Visible" in text and "Fold" in text and "After & done" in text


# --- plain text and sniffing ---------------------------------------------------------------------------


def test_plain_text_keeps_text_and_makes_one_block_per_line() -> None:
    projection = project("First line\n\n  Second line  \n", "text")
    assert projection.text == "First line\n\n  Second line  \n"
    assert [b.text for b in projection.blocks] == ["First line", "Second line"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("<!doctype html><html><body>x</body></html>", "html"),
        ("<div><p>One</p><p>Two</p><p>Three</p></div>", "html"),
        ("# Heading\n\nText", "markdown"),
        ("Intro\n\n- one\n- two", "markdown"),
        ("A [link](https://x.example) here", "markdown"),
        ("Just a sentence.\nAnd another one.", "text"),
        ("# Heading<br>\n\n- one<br>\n- two<br>\n- three\n\nA [link](https://x.example)", "markdown"),
        ("<!-- a --><!-- b --><html><body>x</body></html>", "html"),
        ("", "text"),
    ],
)
def test_sniff_format(content: str, expected: str) -> None:
    assert sniff_format(content) == expected


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("<>/=\"' abcdiv&#;!-\n*_[]()`#>|")), max_size=200),
    st.sampled_from(["html", "markdown", "text", None]),
)
def test_projection_never_raises(content: str, content_format: str | None) -> None:
    projection = project(content, content_format)
    assert all(block.text for block in projection.blocks)


# --- what a reader sees, whatever the Markdown dialect drops (SPEC §3.2) ------------------------------


def test_ordered_list_numbers_are_text() -> None:
    assert project("Intro.\n\n1. Finland\n\n2. Norway", "markdown").text == "Intro.\n1. Finland\n2. Norway"
    assert project("11) Italy\n12) Spain", "markdown").text == "11) Italy\n12) Spain"
    assert project("- bullets\n- stay bare", "markdown").text == "bullets\nstay bare"


def test_a_head_line_in_markdown_hides_nothing_after_it() -> None:
    answer = "A first para\n\n<head>\n\nB text after the head line\n\n</head>\n\n<body>\n\nC"
    assert project(answer, "markdown").text == "A first para\nB text after the head line\nC"


def test_table_cells_beyond_the_header_count_are_kept() -> None:
    answer = "| Site | |\n| --- | --- |\n| nav | | article text |"
    assert project(answer, "markdown").text == "Site\nnav\narticle text"


def test_a_closed_hiding_element_hides_markdown_but_an_unclosed_one_does_not() -> None:
    closed = "<details><summary>More</summary>\n\nFolded text\n\n</details>\n\nAfter"
    assert project(closed, "markdown").text == "More\nAfter"
    unclosed = "Before\n\n<div hidden>\n\nText a reader of the answer sees"
    assert project(unclosed, "markdown").text == "Before\nText a reader of the answer sees"
    script = "Before\n\n<script>\n\nText after an unclosed script line"
    assert "Text after an unclosed script line" in project(script, "markdown").text


@pytest.mark.parametrize(("markup", "text"), [
    ("<ol><li>Finland</li><li>Norway</li></ol>", "1. Finland\n2. Norway"),
    ('<ol start="11" type="I"><li>a<li value="20">b<li>c</ol>', "XI. a\nXX. b\nXXI. c"),
    ("<ol reversed><li>x</li><li>y</li><li>z</li></ol>", "3. x\n2. y\n1. z"),
    ('<ol type="a"><li>x<li hidden>gone<li>y</ol>', "a. x\nb. y"),  # a hidden item draws no number
    ('<ol style="list-style: none"><li>x</li></ol>', "x"),
    ("<ul><li>bullet</li></ul>", "bullet"),
])
def test_html_ordered_list_numbers_are_text_as_in_markdown(markup: str, text: str) -> None:
    assert visible(markup) == text


def test_a_numbered_list_reads_the_same_in_html_and_markdown() -> None:
    markdown = project("1. Finland\n2. Norway\n3. Sweden", "markdown").text
    assert visible("<ol><li>Finland</li><li>Norway</li><li>Sweden</li></ol>") == markdown


def item_starts(content: str, content_format: str) -> list[tuple[str, bool]]:
    return [(block.text, block.opens_item) for block in project(content, content_format).blocks]


def test_the_first_block_of_each_list_item_is_marked_in_markdown() -> None:
    # An avatar-only first paragraph gives no block: the name after it opens the item. An item whose
    # content is an image alone opens with its number; nothing outside a list is marked.
    answer = ("* Amy D.\n\n  Love this.\n* ![](avatar.png)\n\n  David D\n\n  Nice.\n  * Reply\n\n"
              "1. ![](x.png)\n2. Two\n\nAfter")
    assert item_starts(answer, "markdown") == [
        ("Amy D.", True), ("Love this.", False), ("David D", True), ("Nice.", False), ("Reply", True),
        ("1.", True), ("2. Two", True), ("After", False)]
    assert item_starts("Amy D.\n\nLove this.", "markdown") == [("Amy D.", False), ("Love this.", False)]


def test_the_first_block_of_each_list_item_is_marked_in_html() -> None:
    page = ("<ul><li><img src='a.png'><div><cite>Amy D.</cite></div><p>Love this.</p></li><li><div></div>Bob</li>"
            "</ul><p>After</p>")
    assert item_starts(page, "html") == [("Amy D.", True), ("Love this.", False), ("Bob", True), ("After", False)]


def test_line_units_keep_the_item_start_on_the_first_line_only() -> None:
    from lexbench.scoring.view import AnswerView

    units = AnswerView.of("* Amy D.  \n  Love this.\n* Bob", "markdown").units
    assert [(u.text, u.opens_item, u.continues) for u in units] == [
        ("Amy D.", True, False), ("Love this.", False, True), ("Bob", True, False)]


@pytest.mark.parametrize("opening", ["<!-- a note never closed", "<?php echo 1", "<!DOCTYPE html", "<![CDATA[ x"])
def test_a_comment_or_declaration_never_closed_hides_nothing_after_its_line(opening: str) -> None:
    # CommonMark HTML block types 2-5 end only at their closing sequence, so markdown-it runs an unclosed
    # one to the end of its container; a reader of the raw answer still sees the text that follows.
    answer = f"Before\n\n{opening}\n\nText after the line\n\n1. listed"
    assert project(answer, "markdown").text == "Before\nText after the line\n1. listed"
    quoted = f"> {opening}\n> quoted text\n\nAfter"
    assert project(quoted, "markdown").text == "quoted text\nAfter"
    assert all(block.quoted for block in project(quoted, "markdown").blocks[:1])
    closed = "Before\n\n<!-- a note\n\nstill the note -->\n\nAfter"
    assert project(closed, "markdown").text == "Before\nAfter"
