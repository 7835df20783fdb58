"""Property tests of the scorer on generated answers (issue 11): the text projection, HTML and Markdown
parsing, normalisation and the comment/post record parsers never raise on any input, and scoring is
deterministic and always yields a verdict that can be written to the run record.

Answers are generated from grammars (element trees with visibility attributes, Markdown blocks with
inline markup, comment and post author forms) and from raw Unicode that includes NUL, bidi controls,
zero-width joiners and lone surrogates. Example counts follow the Hypothesis profile set in
``tests/conftest.py``.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.scoring import evaluate_response
from lexbench.scoring.projection import sniff_format
from lexbench.scoring.view import AnswerView, project
from lexbench.text import fragments, label_normalise, normalise
from lexbench.verdict import Outcome
from tests.reliability.figures import count_example
from tests.scoring.factories import (
    COMMENTS,
    FORUM_URL,
    PARAGRAPHS,
    POSTS,
    TITLE,
    make_case,
    make_comment_case,
    make_post_case,
)

NASTY = ["\x00", "\u202e", "\u202d", "\u2066", "\u2069", "\u200d", "\u200b", "\ufeff", "\r", "\r\n", "\t", "\u00a0",
         "\u2028", "&amp;", "&#0;", "&#x110000;", "&nbsp", "\\", "`", "*", "_", "~", "[", "]", "(", ")", "!", "#", "|",
         "<", ">", '"', "'", "=", "-", "ﬁ", "Ｔ", "ß", "İ", "\u0301"]
PIECE = st.characters() | st.characters(categories=["Cs"]) | st.sampled_from(NASTY)
ANY_TEXT = st.lists(PIECE, max_size=200).map("".join)
WORD = st.text(alphabet=st.characters(categories=["L", "N"]), min_size=1, max_size=12) | st.sampled_from(NASTY)
# Words that cannot form markup: for properties about what must never be shown.
SAFE_WORD = st.text(alphabet=st.sampled_from("abcdefghij klmnop"), min_size=1, max_size=10)
FORMATS = st.sampled_from(["html", "markdown", "text", None])

# --- HTML: element trees with every visibility rule of SPEC §3.2 -------------------------------------

TAGS = ["div", "p", "span", "a", "b", "strong", "em", "h1", "h2", "h3", "ul", "ol", "li", "table", "tr", "td", "th",
        "blockquote", "pre", "code", "nav", "aside", "footer", "header", "main", "article", "section", "details",
        "summary", "select", "option", "optgroup", "dialog", "figure", "figcaption", "caption", "label", "button",
        "script", "style", "template", "noscript", "textarea", "iframe", "title", "dl", "dt", "dd"]
VOID = ["br", "img", "input", "hr", "wbr", "meta", "link"]
ATTRS = ["", " hidden", ' style="display:none"', ' style="visibility:hidden"', ' style="visibility:visible"',
         ' style="content-visibility:hidden"', " open", " selected", ' href="/x"', ' href="https://people.example/a"',
         ' type="hidden" value="v"', ' alt="ALT"', ' class="comment"', ' class="comment-author"',
         ' class="comment-content"', ' class="post"', ' class="post-author"', ' class="post-body"',
         ' class="permalink" href="/t/sella-tides/4471/p/3"', ' size="3"', " multiple", ' id="c-101"',
         ' style="DISPLAY : None !important"', ' title="T"']


def _element(children: st.SearchStrategy[str], tags: list[str] = TAGS) -> st.SearchStrategy[str]:
    def render(tag: str, attrs: list[str], inner: list[str], closed: bool) -> str:
        return f"<{tag}{''.join(attrs)}>{''.join(inner)}" + (f"</{tag}>" if closed else "")

    return st.builds(render, st.sampled_from(tags), st.lists(st.sampled_from(ATTRS), max_size=2),
                     st.lists(children, max_size=4), st.booleans()) | st.builds(
        lambda tag, attrs: f"<{tag}{attrs}>", st.sampled_from(VOID), st.sampled_from(ATTRS))


HTML = st.recursive(st.lists(WORD, max_size=4).map(" ".join), _element, max_leaves=25)
HTML_DOCUMENT = st.builds(lambda head, body: f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>",
                          HTML, HTML) | HTML

# --- Markdown: blocks with inline markup -----------------------------------------------------------

INLINE = st.lists(
    WORD | st.builds(lambda w: f"**{w}**", WORD) | st.builds(lambda w: f"*{w}*", WORD)
    | st.builds(lambda w, u: f"[{w}]({u})", WORD, st.sampled_from(["/x", "https://a.example/p/1", "<u v>", ""]))
    | st.builds(lambda w: f"![{w}](i.png)", WORD) | st.builds(lambda w: f"`{w}`", WORD)
    | st.sampled_from(["<span hidden>h</span>", "<br>", "\\*", "&amp;", "<https://x.example>", "~~s~~", "[^1]"]),
    max_size=8,
).map(" ".join)
MD_BLOCK = (
    INLINE
    | st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 7), INLINE)
    | st.builds(lambda n, t: "  " * n + "- " + t, st.integers(0, 6), INLINE)
    | st.builds(lambda n, t: "> " * n + t, st.integers(1, 12), INLINE)
    | st.builds(lambda t: f"```\n{t}\n```", INLINE)
    | st.builds(lambda a, b: f"| {a} | {b} |\n|---|---|\n| {b} | {a} |", WORD, WORD)
    | st.builds(lambda t: f"<details>\n\n{t}\n\n</details>", INLINE)
    | st.builds(lambda t: f"{t}\n===", INLINE)
    | st.sampled_from(["---", "[x]: /u", "<div hidden>", "</div>", "    indented code", "1. one"])
)
MARKDOWN = st.lists(MD_BLOCK, max_size=10).flatmap(
    lambda blocks: st.lists(st.sampled_from(["\n", "\n\n"]), min_size=len(blocks), max_size=len(blocks)).map(
        lambda seps: "".join(b + s for b, s in zip(blocks, seps, strict=True))))

# --- answers around the synthetic cases' own text, so the contracts have something to find --------

AUTHOR_FORMS = [
    "### {a}\n\n{t}", "**{a}**\n\n{t}", "[{a}](https://people.example/x) says:\n\n{t}", "{a}: {t}",
    "- **{a}** · March 3, 2026\n\n  {t}", "[{a}](https://forum.harbour.example/u/x) · [3 days ago]({link})\n\n{t}",
]


@st.composite
def scored_answers(draw: st.DrawFn) -> tuple[str, str | None]:
    """An answer built from the case texts, record-like lines and noise, in a random format."""
    pieces = draw(st.lists(
        st.sampled_from(PARAGRAPHS) | st.just(f"# {TITLE}") | st.just("## 6 Comments")
        | st.builds(lambda form, rec, n: form.format(a=rec[1], t=rec[2], link=f"{FORUM_URL}/p/{n}"),
                    st.sampled_from(AUTHOR_FORMS), st.sampled_from(COMMENTS), st.integers(1, 8))
        | st.builds(lambda p: f"[{p[1]}](https://forum.harbour.example/u/x) · [3 days ago]({FORUM_URL}/p/{p[0]})\n\n{p[2]}",
                    st.sampled_from(POSTS))
        | MD_BLOCK | HTML | ANY_TEXT,
        max_size=10))
    return "\n\n".join(pieces), draw(FORMATS)


def answer(content: str, content_format: str | None) -> ProviderResult:
    return ProviderResult(success=True, content=content, content_format=content_format,
                          metadata=ResultMetadata(api_http_status=200, upstream_status=200))


CASES = [make_case(), make_comment_case(), make_post_case()]


# --- properties --------------------------------------------------------------------------------------


@given(ANY_TEXT, FORMATS)
def test_any_text_projects_in_any_format(content: str, content_format: str | None) -> None:
    count_example()
    projection = project(content, content_format)
    assert projection.format in ("html", "markdown", "text")
    assert all(block.text for block in projection.blocks)
    assert project(content, content_format) == projection
    assert sniff_format(content) in ("html", "markdown", "text")


@given(HTML_DOCUMENT)
def test_html_projection_agrees_with_the_visible_tree(document: str) -> None:
    """The walk over the raw parse and the walk over the pruned tree the record selectors use must
    show a reader the same text."""
    count_example()
    projection = project(document, "html")
    assert all(block.text for block in projection.blocks)
    view = AnswerView.of(document, "html")
    assert view.projection.text == projection.text
    view.chrome_free_units  # noqa: B018 (the structured parser's input: built, never raising)


HIDERS = ["<div hidden>{}</div>", '<section style="display:none">{}</section>', "<template>{}</template>",
          "<script>{}</script>", "<noscript>{}</noscript>", "<textarea>{}</textarea>", "<div><dialog>{}</dialog></div>",
          '<div style="display: none !important">{}</div>', "<details><summary>s</summary>{}</details>"]
SAFE_HTML = st.recursive(st.lists(SAFE_WORD, max_size=3).map(" ".join), _element, max_leaves=12)
# Around the hidden part: no element that would swallow what follows as raw text (an unclosed script)
# or drop its tags (an unclosed select), which a browser does too.
SURROUNDING_TAGS = [t for t in TAGS if t not in ("script", "style", "textarea", "title", "iframe", "noscript",
                                                   "template", "select", "option", "optgroup")]
SURROUNDING_HTML = st.recursive(st.lists(SAFE_WORD, max_size=3).map(" ".join),
                                lambda children: _element(children, SURROUNDING_TAGS), max_leaves=12)


@given(st.lists(SURROUNDING_HTML, min_size=1, max_size=4), st.sampled_from(HIDERS), SAFE_HTML)
def test_hidden_html_never_reaches_the_reader(visible: list[str], hider: str, inner: str) -> None:
    """Whatever visible markup surrounds it, and whatever a hidden subtree holds (even
    ``visibility:visible`` descendants), text inside ``hidden``, ``display:none``, scripts, templates,
    closed dialogs or closed details never reaches the projection (SPEC §3.2)."""
    count_example()
    for raw_text in ("script", "textarea"):  # raw text ends at its first closing tag, as in a browser
        assume(not (hider.startswith(f"<{raw_text}>") and f"</{raw_text}" in inner))
    secret = hider.format(f"<div>{inner} <p style='visibility:visible'>ZQXMARKER</p> {inner}</div>")
    document = "".join(visible[:1]) + f"<div>{secret}</div>" + "".join(visible[1:])
    assert "ZQXMARKER" not in project(document, "html").text
    assert "ZQXMARKER" not in AnswerView.of(document, "html").projection.text


@given(MARKDOWN)
def test_markdown_projection_never_raises_and_drops_image_text(content: str) -> None:
    count_example()
    projection = project(content, "markdown")
    assert all(block.text for block in projection.blocks)
    assert project(content, "markdown") == projection
    marked = content + "\n\nSee ![ZQXALT](img.png) here.\n"
    # An open fence or HTML block before it makes the line code, which is kept as written.
    assert all("ZQXALT" not in block.text for block in project(marked, "markdown").blocks if block.kind != "code")


@given(ANY_TEXT)
def test_normal_forms_never_raise_and_keep_their_promises(text: str) -> None:
    count_example()
    norm = normalise(text)
    assert all(ch.isalnum() for ch in norm) and normalise(norm) == norm
    assert "".join(fragments(text)) == norm[: len(norm) - len(norm) % 6]
    label = label_normalise(text)
    assert label == label.strip() and "  " not in label


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(scored_answers(), st.sampled_from(range(len(CASES))))
@example(("<span hidden>h</span>\n\n\x08", "html"), 0)  # lxml refused to move a tail holding a control character
@example(("## 6 Comments\n\n**Ilse \ud800Marten**\n\nMy grandfather sailed past Cape Orra every winter.", None), 1)
def test_scoring_is_deterministic_and_always_writable(generated: tuple[str, str | None], index: int) -> None:
    """Every case kind (plain article, comments, posts) gives any answer a verdict — the same one
    twice — whose record serialises to JSON: the record parsers included."""
    count_example()
    content, content_format = generated
    case = CASES[index]
    first = evaluate_response(case, answer(content, content_format))
    second = evaluate_response(case, answer(content, content_format))
    assert first.outcome in (Outcome.PASS, Outcome.FAIL)
    assert first.explanation
    assert first.model_dump() == second.model_dump()
    json.loads(first.model_dump_json())


@given(st.lists(st.lists(SAFE_WORD, max_size=3).map(" ".join), min_size=2, max_size=4))
def test_concatenated_documents_keep_every_part(parts: list[str]) -> None:
    """A provider that joins pages returns several HTML documents in one answer; a browser shows them
    all (content after ``</html>`` stays in the body), and so must the projection — libxml2 alone
    dropped everything after the first ``</html>``."""
    count_example()
    documents = [f"<!DOCTYPE html><html><head><title>t</title></head><body><p>ZQXPART{i} {part}</p></body></html>"
                 for i, part in enumerate(parts)]
    content = "\n".join(documents)
    for text in (project(content, "html").text, AnswerView.of(content, "html").projection.text):
        assert all(f"ZQXPART{i}" in text for i in range(len(parts)))
