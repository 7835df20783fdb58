"""The fast Markdown projection gives exactly the blocks of markdown-it's (issue 10).

Differential tests: generated Markdown (block and inline constructs, edge cases, hostile runs), the
demo suite's pages and references converted to Markdown, and — when ``../shared/corpus`` is there —
real pages of the corpus through the local providers' Markdown converter.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexbench.dataset.suite import load_suite
from lexbench.providers.local import to_markdown
from lexbench.scoring.fastpath import project_markdown_fast
from lexbench.scoring.projection import project_markdown

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def same(markdown: str) -> None:
    assert project_markdown_fast(markdown) == project_markdown(markdown), markdown


# --- generated Markdown ------------------------------------------------------------------------------

_ATOMS = [
    "word", "Wörd", "x", "1", "12", " ", "  ", "\t", "*", "**", "***", "_", "__", "~", "~~", "`", "``", "[", "]",
    "(", ")", "![", "](", "](/u)", "](<a b>)", '](u "t")', "](u 't')", "](u (t))", "](u\\(v)", "\\", "\\*", "\\[",
    "&amp;", "&#65;", "&#x41;", "&nope;", "&", "<", ">", "<b>", "</b>", "<span hidden>", "<http://a.b/c>",
    "<a@b.co>", "<!-- c -->", "|", ":", "-", "#", "=", "+", "\u00a0", "\u2003", "—", "é", "e\u0301", "中文", "!",
    "?", ".", ",", "javascript:x", "[x](javascript:y)", "[a]", "[]", "[](u)", "[![i](s)](l)", "`code`", "a*b*c",
    "_a_", "snake_case", "~~s~~", "**b**", "*i*", "[a](b&amp;c)", "<account>",
]
_PREFIXES = [
    "", "", "", " ", "  ", "   ", "    ", "\t", "- ", "* ", "+ ", "1. ", "2) ", "10. ", "> ", ">", "> > ", "# ",
    "## ", "###### ", "####### ", "  - ", "    - ", "   * ", "> - ", "- > ", "-  ", "-     ", "1.  ", "```",
    "~~~", "    ```", "```py", "``` `x`", "---", "***", "___", "===", "- - -", "| ", "|---|---|", "--- | ---",
    ":-:|", "<div>", "[x]: /u", "-", "*", "1.", "<account> x", "<p>", "</p>", "<pre>", "<!-- c", "- <div>",
    "> <p>", "     ", "        ", "\t\t", " \t", ">     ", "> \t", "-\t", "1.     ", "    > ", "\t> ", "  > ",
    "--|", "-|-",
]


@st.composite
def _line(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(_PREFIXES)) + "".join(draw(st.lists(st.sampled_from(_ATOMS), max_size=8)))


_documents = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(st.one_of(_line(), st.just(""), st.just("a | b"), st.just("|a|b|"), st.just("| --- | --- |")),
             min_size=1, max_size=14),
    st.sampled_from(["", "\n", "\n\n", "  "]),
)
_inline_soup = st.lists(
    st.sampled_from(list("ab *_~`[]()!<>&\\\n\"':;#.-=+|1é ") + [
        "  ", "\n\n", "  \n", "http://x.y", "a@b.co", "&amp;", "&#35;", "<em>", "</em>", "\u00a0", "—", "**",
        "__", "~~", "``", "![", "](", "\t"]),
    min_size=1, max_size=40,
).map("".join)


@settings(suppress_health_check=list(HealthCheck))
@given(_documents)
def test_generated_documents_project_the_same(markdown: str) -> None:
    same(markdown)


@settings(suppress_health_check=list(HealthCheck))
@given(_inline_soup)
def test_generated_inline_markup_projects_the_same(markdown: str) -> None:
    same(markdown)


@pytest.mark.parametrize("markdown", [
    # Nested and multi-paragraph list items, lazy lines, empty items, marker changes.
    "* [Home](/)\n* [News](/news)\n  + [World](/w)\n  + [Science](/s)\n* [Sport](/sport)\n\n[Tail](/t)",
    "1. 1\n\n   Best deal\n\n   #### [A heading link](https://x.y/z?a=b)\n2. Two",
    "- a\nlazy continuation\n- b\n\n  indented paragraph of b\n\nafter",
    "-\n  content on the next line\n-\n\n- after an empty item",
    "- a\n* b\n+ c\n1. d\n2) e",
    "> quote line\nlazy quote line\n\n> two\n>\n> paragraphs",
    # Text-less links wait for the next block, across fallbacks (raw HTML) too.
    "[![logo](/l.png)](/home)\n\nFirst paragraph <sup>1</sup>\n\n[![x](/x.png)](/x)",
    "[![a](/a)](/a)\n\n```\ncode\n```\n\ntext",
    "word\n\n<b>[](u)",
    # Tables, setext headings, fences, thematic breaks, headings with closing hashes.
    "a | b\n--|--\n1 | 2 | 3\n4\n> quote ends it",
    "Title\n=====\n\nSub\n---\n\n***\n\n## Closed ##\n\n### ###\n\n~~~py\ncode\n~~~",
    "```\nunclosed fence\n\n- not a list",
    # Emphasis and strikethrough edge cases.
    "***a*** **b** *c* _d_ __e__ a*b*c snake_case_name ~~s~~ ~~~t~~~ **[l](u)**",
    "*a **b* c** _a __b_ c__ ~~a ~~b~~ c~~",
    # Autolinks, entities, escapes, code spans, raw inline HTML, reference-looking text.
    "<http://a.b/%41> <a@b.co> <notalink> a < b &amp; &#x41; &bogus; \\* \\\\ `a  b` `` ` `` <em>x</em>",
    "[1]: https://example.com/reference\n\n[text][1]",
    "<div>\nhtml block\n</div>\n\nafter",
    # Indented code: blank lines inside and after it, deeper indentation kept, tabs at the top level,
    # no lazy continuation of code in a quote, and no code interrupting a paragraph.
    "    code a\n\n      b\n  \n    c\n\n\ntext\n    not code",
    "\tx = 1\n  \tif x:\n\t\treturn\n\n   para",
    ">     quoted code\n    top-level code after it",
    "> para\n>     continuation, not code\n\n- item\n\n      code in the item",
    # An item after an empty one and a blank line still belongs to the list (no split before it).
    "- \n\n- |word\n| --- | --- |",
    # ">" continues a quote however deeply indented; a lazy line never becomes a table's delimiter row
    # nor joins a quote that holds a table.
    ">\n    > x", "> a\n    > x", "- > a\n  >\n      > b", ">\n\t> x", "> # Title\n>\n    > Body",
    "- |a|b|\n--|--", "> a | b\n> --|--\nlazy", "> a|b\n> -|-\n>     code\nlazy",
    # Ordered-list markers are text: empty items, nested items, code first, markers after a fallback.
    "1.\n\n2. x\n3) y", "1. - a\n   - b\n2. 1. inner", "1.\n   code?\n2.", "7. ```\n   fenced\n   ```",
    "> 1. q\n>\n> 2.", "1. [](/permalink)\n2. after", "1. a\nSetext\n===\n\n3. b",
    # Cells beyond the header's count are text too.
    "| Site | |\n| --- | --- |\n| nav | | article text |", "> a | b\n> --|--\n> 1 | 2 | 3 | [l](u)",
    "a | b\n--|--\n1 | 2 | | | 5 \\| six",
    # Lists started at 0 or with nine digits (ten is a paragraph), numbers inside quotes, surplus cells
    # of a table inside a list item or a quote.
    "0. zero\n1. one", "123456789. nine\n\n1234567890. ten", "> 0) a\n> 123456789) b", "1. ---", "- 1. a\n  2. b",
    "- | Site | |\n  | --- | --- |\n  | nav | | article text |", "> | Site |\n> | --- |\n> | nav | more | text |",
    # Item starts (Block.opens_item): image-only first paragraphs, nested and empty items, code first.
    "* ![](a.png)\n\n  Amy D.\n\n  Love this.\n  * ![](b.png)\n  * Reply\n* \n* ```\n  code\n  ```\n\nafter",
    "1. ![](x.png)\n2. ![](y.png)\n\n   Bob\n\n   text", "- - nested first\n  - second\n- > quoted item",
])
def test_constructs_project_the_same(markdown: str) -> None:
    same(markdown)


def test_indented_code_stays_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import lexbench.scoring.fastpath as fastpath

    def refuse(content: str, **_: object) -> None:
        raise AssertionError(f"fell back to markdown-it for {content!r}")

    markdown = "Intro\n\n    def f():\n        return 1\n\n\tTabbed = True\n\nOutro"
    expected = project_markdown(markdown)
    monkeypatch.setattr(fastpath, "project_markdown", refuse)
    assert project_markdown_fast(markdown) == expected
    assert [block.kind for block in expected] == ["paragraph", "code", "paragraph"]
    assert expected[1].text == "def f():\n    return 1\n\nTabbed = True"  # one block across the blank line


def test_hostile_runs_fall_back_to_markdown_it_with_its_budget() -> None:
    for hostile in ("[" * 3000, "![" * 2000 + "x", "[a](" * 2000, "*" * 5000 + "a" + "_" * 5000):
        same(hostile)


# --- demo suite and real corpus ------------------------------------------------------------------------


def _demo_markdown() -> list[str]:
    suite = load_suite("demo")
    texts = []
    for case in suite.cases:
        texts.append(to_markdown(suite.captures[case.id].decode("utf-8", errors="replace")))
        if case.reference_text:
            texts.append(case.reference_text)
    return texts


def test_demo_pages_and_references_project_the_same() -> None:
    for markdown in _demo_markdown():
        same(markdown)


def test_real_corpus_pages_project_the_same() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the real corpus is absent ({CORPUS}); this check needs ../shared/corpus")
    pages = sorted(CORPUS.glob("*/html/*.html.gz")) + sorted(CORPUS.glob("*/test-pages/*/source.html.gz"))
    sample = pages[:: max(1, len(pages) // 40)]
    assert sample, f"no pages found under {CORPUS}"
    for page in sample:
        html = gzip.decompress(page.read_bytes()).decode("utf-8", errors="replace")
        same(to_markdown(html))
