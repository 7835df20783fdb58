"""``lexbench run-evals --corpus``: controls derived from real references, each with the verdict the SPEC
gives it, and the gate of 0.98 per kind (issue 16, SPEC §8).

The corpus tests read ``../shared/corpus`` (never committed) and skip with the reason when it is absent;
the rest build imported cases the way the importer does, from small synthetic references.
"""

from __future__ import annotations

import html
import re
from fractions import Fraction
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import lexbench.scoring.evaluate as evaluate
from lexbench.cli import main
from lexbench.dataset.case import Case
from lexbench.dataset.compile import load_dataset
from lexbench.dataset.importers import build_rule, import_corpus
from lexbench.dataset.importers.common import IndexRow, Page
from lexbench.evals.controls import (
    CONTROLS_FLOOR,
    KINDS,
    ControlsResult,
    Source,
    ending_lines,
    ending_removed,
    escape_markdown,
    first_half,
    import_sources,
    numbered_list,
    score_controls,
    spec_outcome,
    summarise_controls,
)
from lexbench.verdict import Outcome

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent: the real corpus is not on this machine")


def imported_case(lines: list[str], position: int = 1) -> Case:
    """A case built from reference ``lines`` by the importer's own ``build_rule`` (unreviewed, no title)."""
    row = IndexRow(line=position + 1, key=f"k{position}", html_file="x.html", url=f"https://example.org/{position}",
                   lang="en", lang_guess="en", html_title=f"Page {position}", coverage="1.0", kind="article")
    page = Page(row=row, url=row.url, capture=b"<html><body>page</body></html>", capture_file=Path("x.html"),
                reference=lines, reference_file=Path("x.txt"), key_tag=f"k{position}")
    rule, reference = build_rule(page, position)
    return Case.model_validate(rule.model_dump() | {"reference_text": reference})


LINES = [
    "The harbour council voted on Tuesday to rebuild the old sea wall before the winter storms.",
    "Engineers said the work would take eleven weeks and close the promenade to walkers.",
    "Fishing crews asked for a temporary landing stage at the northern slipway during the works.",
    "The council agreed and will publish the final timetable at its next meeting in March.",
]


@pytest.mark.parametrize("line", [
    "1984. The year the pier burned", "# not a heading", "*stars* and _underscores_ stay", "AT&T &amp; co",
    "<head>", "a <b>bold</b> claim", "[1] a reference mark", "- a dash first", "+ plus first", "=== equals",
    "a | b | c", "![an image](x.png) text", "`code` spans", "back\\slash \\* star", "~~strike~~ through",
    "2) second", "price: $5 (about 4 €)",
])
def test_escaped_markdown_renders_to_the_line_itself(line):
    # An independent CommonMark + GFM-table parser is the oracle: the escaped line renders to its own text.
    rendered = MarkdownIt("commonmark").enable("table").render(escape_markdown(line))
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()
    assert text == line


def test_the_spec_verdict_of_a_first_half_and_of_a_whole_answer():
    case = imported_case(LINES)
    assert spec_outcome(case, LINES) == (Outcome.PASS, "")
    outcome, why = spec_outcome(case, first_half(case, [case]).reader_lines)
    assert outcome is Outcome.FAIL and why.startswith("region ")


def test_an_ending_that_recurs_earlier_is_vacuous_so_removing_it_is_no_control():
    closing = "The harbour master said the new ferry timetable will be published early next spring."
    lines = [closing, *LINES, closing]
    case = imported_case(lines)
    assert case.body is not None and case.body.reference_scope.end == lines[-1]
    assert ending_lines(lines, lines[-1]) == {len(lines)}  # its last occurrence
    variant = ending_removed(case, [case])
    assert variant.reader_lines == tuple(lines[:-1])
    assert spec_outcome(case, variant.reader_lines)[0] is Outcome.PASS  # so score_controls leaves it out
    scores, skipped = score_controls([Source("tiny", (case,))])
    assert [(s.kind, s.reason.split(":")[0]) for s in skipped if s.kind == "ending-removed"] == [
        ("ending-removed", "the SPEC says pass")]
    assert "ending-removed" not in {s.kind for s in scores}


def test_ending_lines_cover_an_ending_that_spans_lines():
    lines = ["First paragraph of the story here.", "The closing words", "of the story are split."]
    assert ending_lines(lines, "The closing words\nof the story are split.") == {2, 3}
    assert ending_lines(lines, "never in the reference") == set()


def test_list_numbers_are_reader_text_so_short_numbered_lines_can_fail_by_the_spec():
    # Ten short lines: the number before each line cuts the one fragment that straddles each break.
    lines = ["Apples fall.", "Birds sing.", "Cows graze.", "Dogs bark.", "Eels swim.", "Foxes hunt.",
             "Geese fly.", "Hares run.", "Ibis wade.", "Jays call."]
    case = imported_case(lines)
    variant = numbered_list(case, [case])
    assert variant.reader_lines[:2] == ("1. Apples fall.", "2. Birds sing.")
    assert spec_outcome(case, variant.reader_lines)[0] is Outcome.FAIL
    assert spec_outcome(case, lines)[0] is Outcome.PASS


def test_a_reference_list_keeps_its_own_numbers_and_a_renderer_shows_the_numbers_written():
    lines = ["The ranking of the happiest countries this year.", "1. Finland", "2. Norway", "3. Denmark",
             "More prose follows the list here.", "1) Own numbers again", "7. A lone numbered line"]
    case = imported_case(lines)
    variant = numbered_list(case, [case])
    assert variant.reader_lines[1:4] == ("1. Finland", "2. Norway", "3. Denmark")
    # markdown-it is the oracle: the number each item renders with (list start + position) and its text.
    rendered, start, position = [], 1, 0
    tokens = MarkdownIt("commonmark").parse(variant.content)
    for token, following in zip(tokens, tokens[1:]):
        if token.type == "ordered_list_open":
            start, position = int(token.attrGet("start") or 1), 0
        elif token.type == "list_item_open":
            number, delimiter = start + position, token.markup
            position += 1
        elif token.type == "inline" and following.type == "paragraph_close":
            rendered.append(f"{number}{delimiter} {token.content.replace(chr(92), '')}")
    assert tuple(rendered) == variant.reader_lines


def test_every_fail_kind_fails_on_a_synthetic_article_and_the_report_names_wrong_items(monkeypatch):
    cases = tuple(imported_case([f"{line} Story {n}." for line in LINES] + [f"Story {n} ends with its own words."],
                                position=n) for n in range(1, 5))
    source = Source("tiny", cases)
    scores, skipped = score_controls([source])
    fails = [s for s in scores if s.expected is Outcome.FAIL]
    assert fails and all(s.correct for s in fails), [s for s in fails if not s.correct]
    # A scorer that checks no coverage at all: every cut answer passes, the gate fails and names each kind.
    monkeypatch.setattr(evaluate, "_THRESHOLD", Fraction(0))
    scores, skipped = score_controls([source])
    result = summarise_controls("tiny", [source], [], scores, skipped)
    assert not result.passed
    fail_kinds = {kind.slug for kind in KINDS if kind.expected is Outcome.FAIL}
    assert {f.split(" ")[0] for f in result.failures} == fail_kinds
    assert {s.kind for s in result.wrong} == fail_kinds and all(s.predicted is Outcome.PASS for s in result.wrong)


def test_corpus_option_errors_are_clear(tmp_path, capsys):
    assert main(["run-evals", f"--corpus={tmp_path / 'absent'}"]) == 2
    assert "no such directory" in capsys.readouterr().err
    (tmp_path / "corpus.txt").write_text("not a corpus", encoding="utf-8")
    assert main(["run-evals", f"--corpus={tmp_path / 'corpus.txt'}"]) == 2
    assert "corpus.txt: is a file, not a directory" in capsys.readouterr().err
    assert main(["run-evals", f"--corpus={tmp_path}"]) == 2
    assert "holds no folder a corpus format reads" in capsys.readouterr().err
    assert main(["run-evals", f"--corpus={tmp_path}", "--class-floor=0.5", "--change-floors"]) == 2
    assert "belong to the gold set run" in capsys.readouterr().err


@needs_corpus
@pytest.mark.slow  # scores every corpus page in process: minutes on two cores
def test_corpus_controls_reach_the_floor_on_every_kind(tmp_path, capsys):
    output = tmp_path / "controls.json"
    code = main(["run-evals", f"--corpus={CORPUS}", f"--output={output}"])
    out = capsys.readouterr().out
    result = ControlsResult.model_validate_json(output.read_text(encoding="utf-8"))
    assert set(result.kinds) == {kind.slug for kind in KINDS}
    assert {"scrapinghub-aeb", "mozilla-readability", "magic-html-bench"} <= set(result.sources)
    assert all(k.items >= 100 for k in result.kinds.values()), {s: k.items for s, k in result.kinds.items()}
    assert "Accuracy per source" in out
    for s in result.wrong:  # every wrong item is listed with its explanation, to trace the scorer bug
        assert f"{s.case} [{s.kind}]: expected {s.expected.value}, got {s.predicted.value} — " in out
    below = {slug: k.accuracy for slug, k in result.kinds.items() if k.accuracy is None or k.accuracy < CONTROLS_FLOOR}
    table = out.split("\n\n")[2]  # the accuracy-per-kind table; the wrong items are listed above
    assert not below, f"kinds below {CONTROLS_FLOOR}: {below}\n{table}\n" + "\n".join(
        line for line in out.splitlines() if line.startswith("- ") and "[" in line)
    assert code == 0 and result.passed and "gate: PASS" in out


@needs_corpus
def test_the_controls_are_imported_as_import_corpus_imports_them(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "mozilla-readability").symlink_to(CORPUS / "mozilla-readability", target_is_directory=True)
    sources, notes = import_sources(corpus)
    assert [s.name for s in sources] == ["mozilla-readability"]
    assert len(notes) == 1 and notes[0].startswith("mozilla-readability: ")
    import_corpus("mozilla-readability", CORPUS / "mozilla-readability", tmp_path / "suite", keep_going=True)
    imported = load_dataset(tmp_path / "suite" / "dataset.json")
    assert [case.id for case in sources[0].cases] == [case.id for case in imported.cases]
    assert [case.reference_text for case in sources[0].cases] == [case.reference_text for case in imported.cases]
