"""A hostile-answer corpus, generated in code (issue 11): answers a broken or malicious provider might
return, each built around the synthetic cases' own text (``tests/scoring/factories.py``) so the
contracts still have something to find.

:func:`measure` scores one answer in a child process and reports its wall and CPU time and the peak
memory the scoring added (Linux ``VmHWM`` after resetting it); the parent kills the child past a
deadline, so a hang is a test failure rather than a stuck test session.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.scoring.factories import (
    COMMENTS,
    PARAGRAPHS,
    TITLE,
    article_markdown_with,
    comments_html,
    comments_markdown,
    html_page,
    make_case,
    make_comment_case,
    make_post_case,
    markdown_page,
    posts_html,
    posts_markdown,
    text_page,
)

MB = 1_000_000


@dataclass(frozen=True)
class Hostile:
    """One hostile answer: ``build()`` makes its content, ``content_format`` is what the provider
    declared (``None``: sniffed). ``cases`` names the synthetic cases it is scored against;
    ``page_identity`` replaces the cases' identity patterns (for pathological patterns)."""

    name: str
    what: str
    build: Callable[[], str]
    content_format: str | None
    cases: tuple[str, ...] = ("article", "comments", "posts")
    page_identity: tuple[str, ...] | None = None
    repeat_check: bool = True
    """Score twice and compare (skipped for the largest inputs to keep the suite fast)."""


def _sprinkle(text: str, insert: str, every: int) -> str:
    """``insert`` after every ``every``-th character of ``text`` (inside words, on purpose)."""
    return insert.join(text[i:i + every] for i in range(0, len(text), every))


def _to_size(fragment: str, size: int) -> str:
    return fragment * (size // len(fragment) + 1)


def _mixed_encodings() -> str:
    # One page, three decodings: UTF-8 bytes read as cp1252 (mojibake), Latin-1 bytes read as UTF-8
    # with surrogateescape (lone surrogates), and a UTF-16 BOM and a lying <meta charset>.
    utf8_as_cp1252 = "Gr\u00fc\u00dfe aus K\u00f6ln \u2014 caf\u00e9".encode().decode("cp1252", errors="replace")
    latin1_as_utf8 = "na\u00efve d\u00e9j\u00e0 vu".encode("latin-1").decode("utf-8", errors="surrogateescape")
    return ("\ufeff<meta charset='shift_jis'>\n" + markdown_page() + f"\n\n{utf8_as_cp1252}\n\n{latin1_as_utf8}\n"
            + "\u00ef\u00bb\u00bf" + PARAGRAPHS[0].encode("utf-16-le").decode("latin-1"))


def _deep_quotes() -> str:
    lines = [">" * depth + " " + PARAGRAPHS[depth % len(PARAGRAPHS)] for depth in range(1, 3001)]
    return markdown_page() + "\n\n" + "\n".join(lines) + "\n\n" + ">" * 20_000 + " deepest\n"


def _many_selects() -> str:
    # Nested deeper than libxml2 accepts (the flat scanner takes over) with 100,000 unclosed drop-downs.
    return "<div>" * 3000 + html_page(extra_body="<select><option>x" * 100_000)


CORPUS: list[Hostile] = [
    Hostile("deep-html-100k", "100,000 nested <div> around the article (past libxml2's depth limit)",
            lambda: "<div>" * 100_000 + html_page() + "</div>" * 100_000, "html", cases=("article", "comments")),
    Hostile("deep-html-2000", "2,000 nested <section> (just inside libxml2's limit) around the article",
            lambda: "<section>" * 2000 + html_page() + "</section>" * 2000, "html"),
    Hostile("million-tiny-elements", "the article followed by 1,000,000 <b>x</b> elements (8 MB)",
            lambda: html_page(extra_body="<b>x</b>" * 1_000_000), "html", cases=("article",), repeat_check=False),
    Hostile("unclosed-tags", "20,000 repetitions of <p><div><span><a href=x><table><tr><td> never closed",
            lambda: html_page(extra_body="<p><div><span><a href=x><table><tr><td>" * 20_000), "html",
            cases=("article",)),
    Hostile("unterminated-tags-in-markdown", "a Markdown raw HTML block of 200,000 '<a ' that never end",
            lambda: markdown_page() + "\n\n<div\n" + "<a " * 200_000, "markdown"),
    Hostile("unclosed-quotes", "one tag whose attribute list is 1,000,000 unclosed x=\"a quotes",
            lambda: html_page(extra_body='<div title="' + 'x="a ' * 1_000_000 + '">tail</div>'), "html"),
    Hostile("many-unclosed-selects", "past the depth limit, then 100,000 unclosed <select><option>",
            _many_selects, "html", cases=("article",)),
    Hostile("nul-bytes-html", "NUL between every eight characters of an HTML page",
            lambda: _sprinkle(html_page(extra_body=comments_html()), "\x00", 8), "html"),
    Hostile("nul-bytes-markdown", "NUL between every eight characters of a Markdown page",
            lambda: _sprinkle(article_markdown_with(comments_markdown()), "\x00", 8), "markdown"),
    Hostile("control-characters", "every C0 control character inside the HTML text",
            lambda: html_page([p + "".join(map(chr, range(32))) for p in PARAGRAPHS]), "html"),
    Hostile("lone-surrogates", "lone surrogates inside words, titles, authors and links",
            lambda: _sprinkle(article_markdown_with(comments_markdown()) + posts_markdown(), "\ud800", 11)
            + "\udfff", None),
    Hostile("mixed-encodings", "mojibake, surrogate-escaped Latin-1, a UTF-16 BOM and a lying meta charset",
            _mixed_encodings, None),
    Hostile("bidi-controls", "RLO/LRO/isolates around and inside the title, words and authors",
            lambda: _sprinkle(article_markdown_with(comments_markdown()), "\u202e", 5).replace(
                TITLE, "\u2066" + TITLE + "\u2069"), "markdown"),
    Hostile("zero-width-joiners", "ZWJ, ZWSP and BOM inside every word of an HTML page with posts",
            lambda: re.sub(r"(\w)(\w)", "\\1\u200d\\2\u200b", posts_html() + html_page()), "html"),
    Hostile("repeated-fragment-10mb", "one Markdown paragraph with a link and emphasis repeated to 10 MB",
            lambda: markdown_page() + _to_size(
                "The **keeper** wrote in [green ink](https://gazette.example/ink) every night. ", 10 * MB),
            "markdown", cases=("comments",), repeat_check=False),
    Hostile("repeated-html-fragment-10mb", "one HTML paragraph repeated to 10 MB",
            lambda: html_page(extra_body=_to_size("<p>The keeper wrote in <a href='/ink'>green ink</a>.</p>", 10 * MB)),
            "html", cases=("article",), repeat_check=False),
    Hostile("regex-pathological", "page-identity patterns with catastrophic backtracking on 50,000 'a'",
            lambda: markdown_page() + "\n\n" + "a" * 50_000 + "!", "markdown", cases=("article",),
            page_identity=(r"(\w+\s?)+$",)),
    Hostile("nested-quotes", "3,000 quote levels line by line, then 20,000 '>' on one line",
            _deep_quotes, "markdown"),
    Hostile("bracket-run", "2,000,000 '[' (markdown-it re-scans each one up to its nesting limit)",
            lambda: markdown_page() + "\n\n" + "[" * 2_000_000, "markdown", cases=("article",), repeat_check=False),
    Hostile("link-openers", "100,000 '[a](' + 'b'*96 without a closing parenthesis, format sniffed",
            lambda: ("[a](" + "b" * 96) * 100_000 + "\n\n" + markdown_page(), None, cases=("article",)),
    Hostile("emphasis-run", "500,000 alternating '*a' and '_a' runs",
            lambda: markdown_page() + "\n\n" + "*a_a" * 250_000, "markdown", cases=("article",)),
    Hostile("emphasis-delimiters-20mb", "20 MB of '*a_': every character but one in three an emphasis delimiter",
            lambda: markdown_page() + "\n\n" + _to_size("*a_", 20 * MB), "markdown", repeat_check=False),
    Hostile("unclosed-comment", "'<!--' then 2 MB of the article with no end",
            lambda: html_page(extra_body="<!--" + _to_size(" ".join(PARAGRAPHS), 2 * MB)), "html"),
    Hostile("one-huge-line", "5 MB of words on one line, no newline, as plain text",
            lambda: text_page() + _to_size("tidal keeper ledger harbour ", 5 * MB), "text", repeat_check=False),
    Hostile("carriage-returns-only", "the page with every newline a bare carriage return",
            lambda: article_markdown_with(comments_markdown()).replace("\n", "\r"), None),
    Hostile("many-comment-authors", "50,000 bold author lines with no comment text",
            lambda: article_markdown_with("## 6 Comments\n\n" + "**Reader**\n\n" * 50_000), "markdown",
            cases=("comments",)),
    Hostile("many-post-links", "200,000 post permalinks on one line, with no author or text",
            lambda: posts_markdown() + "".join(
                f"[#{n}](https://forum.harbour.example/t/sella-tides/4471/p/{n}) " for n in range(200_000)),
            "markdown", cases=("posts",), repeat_check=False),
    Hostile("html-in-markdown-deep", "a Markdown raw HTML block nested 5,000 <div> deep",
            lambda: markdown_page() + "\n\n" + "<div>\n" * 5000 + COMMENTS[0][2], "markdown"),
]
"""Every hostile answer, in the issue's order first."""

CASE_BUILDERS = {"article": make_case, "comments": make_comment_case, "posts": make_post_case}


@dataclass
class Measurement:
    """One hostile answer scored against each of its cases."""

    name: str
    chars: int
    outcomes: dict[str, str] = field(default_factory=dict)
    failure_classes: dict[str, str | None] = field(default_factory=dict)
    explanations: dict[str, str] = field(default_factory=dict)
    timed_out_patterns: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_mb: float = 0.0
    deterministic: bool | None = None
    writable: bool = True


def _status_kb(field_name: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return 0


def _score(name: str, budgeted: bool = False) -> Measurement:
    """Score one corpus entry in this process (the child); ``budgeted``: as a run does, under the
    scoring budget (lexbench.scoring.budget)."""
    from lexbench.answer import ProviderResult, ResultMetadata
    from lexbench.scoring import evaluate_response
    from lexbench.scoring.budget import score_within_budget

    score = score_within_budget if budgeted else evaluate_response

    entry = next(h for h in CORPUS if h.name == name)
    content = entry.build()
    result = ProviderResult(success=True, content=content, content_format=entry.content_format,
                            metadata=ResultMetadata(api_http_status=200, upstream_status=200))
    cases = {}
    for case_name in entry.cases:
        overrides = {"page_identity": list(entry.page_identity)} if entry.page_identity else {}
        cases[case_name] = CASE_BUILDERS[case_name](**overrides)
    measured = Measurement(name=name, chars=len(content))
    try:  # Linux: restart the high-water mark here, so the input's own size is not counted
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        pass
    baseline = _status_kb("VmRSS")
    for case_name, case in cases.items():
        wall, cpu = time.perf_counter(), time.process_time()
        verdict = score(case, result)
        measured.wall_s += time.perf_counter() - wall
        measured.cpu_s += time.process_time() - cpu
        measured.outcomes[case_name] = verdict.outcome.value
        measured.failure_classes[case_name] = verdict.failure_class
        measured.explanations[case_name] = verdict.explanation[:300]
        identity = next((c for c in verdict.components if c.name.value == "page_identity"), None)
        if identity is not None:
            measured.timed_out_patterns += sum(1 for d in identity.details if d.get("timed_out"))
        try:
            verdict.model_dump_json()
        except ValueError:
            measured.writable = False
        if entry.repeat_check:
            again = evaluate_response(case, result)
            same = again.model_dump() == verdict.model_dump()
            measured.deterministic = same if measured.deterministic is None else measured.deterministic and same
    measured.peak_mb = max(0, _status_kb("VmHWM") - baseline) / 1024
    return measured


_CONTEXT: Any = None


def measure(name: str, deadline_s: float, budgeted: bool = False) -> Measurement:
    """Score corpus entry ``name`` in a fresh child process (``budgeted``: under the scoring budget);
    raises ``TimeoutError`` when it has not finished within ``deadline_s`` seconds (the child is
    killed) and ``RuntimeError`` with the child's traceback when scoring raised."""
    return in_child(_score, (name, budgeted), deadline_s, what=name)


def _call_child(function: Callable[..., Any], args: tuple[Any, ...], connection: Any) -> None:
    try:
        connection.send(("ok", function(*args)))
    except BaseException as exc:  # the parent reports it; a child must not die silently
        import traceback

        connection.send(("error", "".join(traceback.format_exception(exc))))
    finally:
        connection.close()


def in_child(function: Callable[..., Any], args: tuple[Any, ...], deadline_s: float, what: str = "") -> Any:
    """``function(*args)`` (a module-level function; picklable arguments and result) in a fresh child
    process. Raises ``TimeoutError`` past ``deadline_s`` (the child is killed) and ``RuntimeError``
    with the child's traceback when it raised."""
    global _CONTEXT
    name = what or getattr(function, "__name__", "call")
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload(["tests.reliability.hostile", "lexbench.scoring"])
    receive, send = _CONTEXT.Pipe(duplex=False)
    process = _CONTEXT.Process(target=_call_child, args=(function, args, send), daemon=True)
    process.start()
    send.close()
    try:
        if not receive.poll(deadline_s):
            raise TimeoutError(f"{name}: did not finish within {deadline_s:g} s")
        try:
            status, payload = receive.recv()
        except EOFError:
            process.join()
            raise RuntimeError(f"{name}: the child process died (exit code {process.exitcode})") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
    if status != "ok":
        raise RuntimeError(f"{name}: raised\n{payload}")
    return payload
