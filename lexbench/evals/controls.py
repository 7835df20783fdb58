"""Corpus controls: answers derived from real references, with the verdict a correct scorer must give (SPEC §8).

``lexbench run-evals --corpus ../shared/corpus`` imports every corpus folder a registered format reads
(as ``lexbench import-corpus`` does, into a temporary directory), and from each imported case with a
body contract makes one answer per :data:`KINDS` entry — four that a correct scorer must pass (the
reference laid out differently) and four it must fail (the reference cut or replaced). Every answer goes
through :func:`lexbench.scoring.evaluate_response`; accuracy is reported per kind and per source, and the
gate asks :data:`CONTROLS_FLOOR` of every kind.

Imported cases are ``imported_unreviewed``: no scored title, no stable groups, no page identity. Their
verdict is the body contract v4 alone (SPEC §2): every region and the ending ≥ 80 % fragment coverage.
Each generator builds its answer from lines of reader text and knows, by construction, the text a reader
of that answer sees (SPEC §3.2: markup is not text; ordered-list numbers, table cells and visible page
chrome are). :func:`spec_outcome` applies the body contract to that reader text with the SPEC's own
definitions — the dataset layer's normal form, consecutive 6-character fragments, found anywhere — and
never with the scorer's projection. An answer whose SPEC verdict is not its kind's fixed verdict (say,
an ending removed whose fragments all occur earlier in the article) is no control of that kind for that
case: it is counted as *not applicable*, named in the report, and never scored.
"""

from __future__ import annotations

import html
import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lexbench.answer import ContentFormat, ProviderResult, ResultMetadata
from lexbench.dataset.case import Case, ReviewStatus
from lexbench.dataset.compile import load_dataset
from lexbench.dataset.importers import FORMATS, import_corpus
from lexbench.errors import CorpusImportError, LexbenchError
from lexbench.scoring import evaluate_response
from lexbench.text import FRAGMENT_CHARS, normalise
from lexbench.verdict import Outcome

CONTROLS_FLOOR = 0.98
"""The gate: every kind's accuracy ≥ 0.98 over its applicable items (issue 16). A reviewed change."""


class ControlsError(LexbenchError):
    """The corpus folder cannot be read as a corpus (absent, or no folder a format imports)."""


@dataclass(frozen=True)
class Variant:
    """One generated answer: its ``content`` in ``content_format``, and ``reader_lines``, the text a
    reader of it sees (SPEC §3.2), in order, one block per entry."""

    content: str
    content_format: ContentFormat
    reader_lines: tuple[str, ...]


@dataclass(frozen=True)
class Source:
    """The imported cases of one corpus folder (``name`` = its format) that have a body contract."""

    name: str
    cases: tuple[Case, ...]


# --- Markdown and HTML writing -----------------------------------------------------------------------

_MD_ESCAPE = re.compile(r"([\\`*_\[\]<>&!|~#])")
_MD_LINE_START = re.compile(r"^(\d+)([.)])|^([+\-=])")


def escape_markdown(line: str) -> str:
    """``line`` as Markdown inline text that renders to itself: every character that could open markup
    (emphasis, code, links, images, HTML and entities, tables, strikethrough, headings) and a leading
    list marker or setext underline is backslash-escaped (CommonMark §2.4)."""
    escaped = _MD_ESCAPE.sub(r"\\\1", line)
    return _MD_LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", escaped)


def _lines(case: Case) -> list[str]:
    assert case.reference_text is not None
    return case.reference_text.split("\n")


def _text_answer(lines: Sequence[str]) -> Variant:
    return Variant("\n\n".join(lines) + "\n", "text", tuple(lines))


_NAV = ("Home", "World", "Business", "Science", "Opinion", "Subscribe")
_FOOTER = "Contact us · Privacy policy · Terms of use"
_SUMMARY = "Read the full article"


def _html_page(case: Case, body: str, visible: Sequence[str]) -> Variant:
    """A whole page around ``body``: head (title, meta, style, script), a navigation bar, a footer and a
    trailing script. ``visible`` is the reader text of ``body``; the page adds the navigation links and
    the footer to it (head, style and script are never reader text, SPEC §3.2)."""
    nav = "".join(f'<li><a href="/section/{i}">{label}</a></li>' for i, label in enumerate(_NAV))
    page = (
        "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
        "<title>{title}</title><meta name=\"description\" content=\"Site description for search engines\">"
        "<style>body {{ font-family: serif }} .nav li {{ display: inline }}</style>"
        "<script>window.dataLayer = [{{page: 'article', section: 'news'}}];</script></head>\n"
        "<body><header><nav class=\"nav\"><ul>{nav}</ul></nav></header>\n<main>{body}</main>\n"
        "<footer><p>{footer}</p></footer>"
        "<script>document.querySelectorAll('a').forEach(a => a.dataset.tracked = 'yes');</script>"
        "</body></html>\n"
    ).format(lang=html.escape(case.lang), title=html.escape(case.name), nav=nav, body=body, footer=_FOOTER)
    return Variant(page, "html", (*_NAV, *visible, _FOOTER))


def _paragraphs(lines: Sequence[str]) -> str:
    return "\n".join(f"<p>{html.escape(line, quote=False)}</p>" for line in lines)


# --- the variants ---------------------------------------------------------------------------------------


def reformatted_markdown(case: Case, others: Sequence[Case]) -> Variant:
    """The reference as Markdown, text intact: line *i* (0-based) is, by ``i mod 6``, a paragraph, a
    ``##`` heading, a paragraph in ``**strong**`` emphasis, a paragraph whose first word is a link, a
    ``-`` list item or a ``>`` quote. Reader text = the reference lines (markers and link targets are
    markup, SPEC §3.2). Must pass: every fragment is present."""
    blocks = []
    for index, line in enumerate(_lines(case)):
        text = escape_markdown(line)
        style = index % 6
        if style == 1:
            blocks.append(f"## {text}")
        elif style == 2:
            blocks.append(f"**{text}**")
        elif style == 3:
            first, _, rest = text.partition(" ")
            link = f"[{first}](https://example.org/related/{index}?ref=body)"
            blocks.append(f"{link} {rest}" if rest else link)
        elif style == 4:
            blocks.append(f"- {text}")
        elif style == 5:
            blocks.append(f"> {text}")
        else:
            blocks.append(text)
    return Variant("\n\n".join(blocks) + "\n", "markdown", tuple(_lines(case)))


def complete_html(case: Case, others: Sequence[Case]) -> Variant:
    """A full HTML page with every reference line in a ``<p>`` inside ``<article>``, plus head, style,
    script, navigation and footer. Reader text = navigation labels, the lines, the footer. Must pass."""
    lines = _lines(case)
    return _html_page(case, f"<article>\n{_paragraphs(lines)}\n</article>", lines)


_OWN_NUMBER = re.compile(r"^(\d{1,9})([.)]) (\S.*)$")


def _numbered_runs(lines: Sequence[str]) -> list[tuple[bool, list[str]]]:
    """``lines`` cut into runs: ``(True, run)`` for consecutive lines that carry their own list numbers
    *n*, *n* + 1, … with one delimiter (``1. Finland``, ``2. Norway``), ``(False, run)`` for the rest."""
    runs: list[tuple[bool, list[str]]] = []
    previous: re.Match[str] | None = None
    for line in lines:
        match = _OWN_NUMBER.match(line)
        follows = (match is not None and previous is not None and runs and runs[-1][0]
                   and match[2] == previous[2] and int(match[1]) == int(previous[1]) + 1)
        if follows or (runs and match is None and not runs[-1][0]):
            runs[-1][1].append(line)
        else:
            runs.append((match is not None, [line]))
        previous = match
    return runs


def numbered_list(case: Case, others: Sequence[Case]) -> Variant:
    """The reference as Markdown ordered lists. A run of reference lines that carry their own list
    numbers (``1. Finland``, ``2. Norway``; a list in the reference) is written as a list with those
    numbers; every other run of lines as a list numbered ``1.``/``1)`` onwards. Neighbouring lists use
    different delimiters (or, failing that, an HTML comment between them), so a renderer restarts the
    count and shows the numbers written. Numbers are reader text (SPEC §3.2): a reference's own numbers
    must be found, and added numbers cut the one fragment straddling each line break — where that
    leaves a region or the ending below 80 %, the SPEC says fail and the case is not applicable. Must
    pass otherwise."""
    blocks: list[str] = []
    reader: list[str] = []
    last = ""
    runs = _numbered_runs(_lines(case))
    for index, (own, run) in enumerate(runs):
        if own:
            matches = [_OWN_NUMBER.match(line) for line in run]
            delimiter = matches[0][2]
            items = [f"{m[1]}{m[2]} {escape_markdown(m[3])}" for m in matches if m]
            reader += run
        else:
            following = _OWN_NUMBER.match(runs[index + 1][1][0])[2] if index + 1 < len(runs) else ""
            delimiter = next((d for d in ".)" if d not in (last, following)), ".")
            items = [f"{number}{delimiter} {escape_markdown(line)}" for number, line in enumerate(run, start=1)]
            reader += [f"{number}{delimiter} {line}" for number, line in enumerate(run, start=1)]
        if delimiter == last:
            blocks.append("<!-- -->")
        blocks.append("\n".join(items))
        last = delimiter
    return Variant("\n\n".join(blocks) + "\n", "markdown", tuple(reader))


def gfm_table(case: Case, others: Sequence[Case]) -> Variant:
    """The reference as a one-column GFM table, the way a page-to-Markdown converter writes a layout
    table: the first line is the header cell, then each body row holds the next line, and every other
    row the next two lines — a cell beyond the header's column count. Every cell is reader text (a
    model reads them raw; SPEC §3.2: surplus cells never drop text). Must pass."""
    cells = [escape_markdown(line) for line in _lines(case)]
    rows = [f"| {cells[0]} |", "| --- |"]
    index, wide = 1, False
    while index < len(cells):
        take = 2 if wide else 1
        rows.append("| " + " | ".join(cells[index : index + take]) + " |")
        index += take
        wide = not wide
    return Variant("\n".join(rows) + "\n", "markdown", tuple(_lines(case)))


def repeated_opening(case: Case, others: Sequence[Case]) -> Variant:
    """Plain text: the first region's lines twice, then the whole reference. Reader text = all of it.
    Must pass: repeats add text and lose none."""
    assert case.body is not None
    opening = _lines(case)[: case.body.regions[0].last_line]
    return _text_answer([*opening, *opening, *_lines(case)])


def first_half(case: Case, others: Sequence[Case]) -> Variant:
    """Plain text: the first ⌊N/2⌋ of the N reference lines (at least one). Must fail when, by the SPEC,
    the kept half covers some region or the ending below 80 % — always so when a region or the ending
    lies wholly in the dropped half and its fragments do not recur earlier; else not applicable."""
    lines = _lines(case)
    return _text_answer(lines[: max(1, len(lines) // 2)])


def ending_removed(case: Case, others: Sequence[Case]) -> Variant:
    """Plain text: the reference without every line that holds part of the reviewed ending passage
    (``reference_scope.end``, located at its last occurrence in the normalised reference). Must fail
    when the remaining lines cover the ending below 80 % (SPEC §2 body contract v4); an ending whose
    fragments recur earlier in the article is vacuous, so the case is not applicable."""
    lines = _lines(case)
    dropped = ending_lines(lines, case.body.reference_scope.end if case.body else "")
    kept = [line for number, line in enumerate(lines, start=1) if number not in dropped]
    return _text_answer(kept or [""])


def another_article(case: Case, others: Sequence[Case]) -> Variant:
    """Plain text: the reference of another case of the same source (the one half the source further
    on, cyclically). Must fail when that text covers some region or the ending below 80 %."""
    position = next(index for index, candidate in enumerate(others) if candidate is case)
    other = others[(position + len(others) // 2) % len(others)]
    return _text_answer(_lines(other) if other is not case else [""])


def closed_details(case: Case, others: Sequence[Case]) -> Variant:
    """A full HTML page whose article sits inside a closed ``<details>``: a reader sees its summary
    only (SPEC §3.2), plus navigation and footer. Must fail unless that visible chrome covers the body."""
    body = f"<details><summary>{_SUMMARY}</summary>\n{_paragraphs(_lines(case))}\n</details>"
    return _html_page(case, body, [_SUMMARY])


@dataclass(frozen=True)
class ControlKind:
    """One kind of control: its slug, the verdict a correct scorer must give, and its generator."""

    slug: str
    expected: Outcome
    make: Callable[[Case, Sequence[Case]], Variant]


KINDS: tuple[ControlKind, ...] = (
    ControlKind("reformatted-markdown", Outcome.PASS, reformatted_markdown),
    ControlKind("complete-html", Outcome.PASS, complete_html),
    ControlKind("numbered-list", Outcome.PASS, numbered_list),
    ControlKind("gfm-table", Outcome.PASS, gfm_table),
    ControlKind("repeated-opening", Outcome.PASS, repeated_opening),
    ControlKind("first-half", Outcome.FAIL, first_half),
    ControlKind("ending-removed", Outcome.FAIL, ending_removed),
    ControlKind("another-article", Outcome.FAIL, another_article),
    ControlKind("closed-details", Outcome.FAIL, closed_details),
)
"""Every control kind, each with a fixed expected verdict; the docstring of its generator gives its rule."""


def ending_lines(lines: Sequence[str], end: str) -> set[int]:
    """One-based numbers of the reference ``lines`` that hold part of the ending passage ``end``, found
    at its last occurrence in the concatenated normalised lines (empty when it does not occur)."""
    wanted = normalise(end)
    starts, joined, position = [], [], 0
    for line in lines:
        starts.append(position)
        text = normalise(line)
        joined.append(text)
        position += len(text)
    at = "".join(joined).rfind(wanted) if wanted else -1
    if at < 0:
        return set()
    stop = at + len(wanted)
    return {number for number, (start, text) in enumerate(zip(starts, joined), start=1)
            if text and start < stop and start + len(text) > at}


# --- the SPEC's verdict from reader text ------------------------------------------------------------------


def _fragments(text: str) -> list[str]:
    """SPEC §3.4: consecutive, non-overlapping 6-character cuts of the normalised text (a shorter tail
    dropped); a text with no whole fragment is one needle, itself."""
    norm = normalise(text)
    cuts = [norm[i : i + FRAGMENT_CHARS] for i in range(0, len(norm) - FRAGMENT_CHARS + 1, FRAGMENT_CHARS)]
    return cuts or ([norm] if norm else [])


def spec_outcome(case: Case, reader_lines: Sequence[str]) -> tuple[Outcome, str]:
    """The body contract v4 verdict (SPEC §2, §3.4) of an answer whose reader text is ``reader_lines``:
    pass when every region and the ending has ≥ 80 % of its fragments somewhere in the normalised reader
    text. Returns the outcome and the first part below 80 % (or ``""``). Needs a body v4 case."""
    assert case.body is not None and case.body.contract_version >= 4
    text = "".join(normalise(line) for line in reader_lines)
    present = {text[i : i + FRAGMENT_CHARS] for i in range(max(0, len(text) - FRAGMENT_CHARS + 1))}
    parts = [(f"region {n} {r.label!r}", t) for n, (r, t) in enumerate(zip(case.body.regions, case.region_texts()), start=1)]
    parts.append(("the ending", case.body.reference_scope.end))
    for name, part in parts:
        needles = _fragments(part)
        found = sum(1 for n in needles if n in present or (len(n) < FRAGMENT_CHARS and n in text))
        if found * 5 < len(needles) * 4:
            return Outcome.FAIL, f"{name}: {found} of {len(needles)} fragments in the reader text"
    return Outcome.PASS, ""


def controllable(case: Case) -> str | None:
    """Why ``case`` cannot carry controls (``None`` when it can): the controls' expectations rest on the
    body contract v4 alone, so the case needs one and no other scored contract (title, stable groups,
    page identity, comments, posts, anchors)."""
    if case.body is None:
        return "no body contract"
    if case.body.contract_version < 4:
        return f"body contract v{case.body.contract_version}, not v4"
    if case.title or case.stable_groups or case.page_identity or case.comments or case.posts or case.anchors:
        return "scored contracts beyond the body"
    return None


# --- scoring and the report ---------------------------------------------------------------------------------


class ControlScore(BaseModel):
    """One control: the case, its source and kind, the verdict expected and given, and the explanation."""

    model_config = ConfigDict(extra="forbid")

    source: str
    case: str
    kind: str
    expected: Outcome
    predicted: Outcome
    explanation: str

    @property
    def correct(self) -> bool:
        return self.predicted is self.expected


class NotApplicable(BaseModel):
    """A variant whose SPEC verdict is not its kind's: no control of that kind for that case."""

    model_config = ConfigDict(extra="forbid")

    source: str
    case: str
    kind: str
    reason: str


class KindFigures(BaseModel):
    """One kind: applicable ``items``, ``correct`` verdicts, ``accuracy`` (``None`` with no item), and
    the same per source."""

    model_config = ConfigDict(extra="forbid")

    expected: Outcome
    items: int
    correct: int
    accuracy: float | None
    not_applicable: int
    by_source: dict[str, tuple[int, int]] = Field(description="source → (correct, items)")


class ControlsResult(BaseModel):
    """The output of ``lexbench run-evals --corpus`` (``--output`` writes it as JSON)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["lexbench_corpus_controls"] = "lexbench_corpus_controls"
    schema_version: Literal[1] = 1
    corpus: str
    sources: dict[str, int] = Field(description="source → cases that carry controls")
    notes: list[str]
    floor: float
    kinds: dict[str, KindFigures]
    passed: bool
    failures: list[str]
    scores: list[ControlScore]
    not_applicable: list[NotApplicable]

    @property
    def wrong(self) -> list[ControlScore]:
        return [s for s in self.scores if not s.correct]


def score_controls(sources: Sequence[Source]) -> tuple[list[ControlScore], list[NotApplicable]]:
    """Make every kind's answer for every case and score the applicable ones with
    :func:`~lexbench.scoring.evaluate_response`. Pure; deterministic order (source, case, kind)."""
    scores: list[ControlScore] = []
    skipped: list[NotApplicable] = []
    for source in sources:
        for case in source.cases:
            for kind in KINDS:
                variant = kind.make(case, source.cases)
                spec, why = spec_outcome(case, variant.reader_lines)
                if spec is not kind.expected:
                    reason = why or "every region and the ending reach 80 % in the reader text"
                    skipped.append(NotApplicable(source=source.name, case=case.id, kind=kind.slug,
                                                 reason=f"the SPEC says {spec.value}: {reason}"))
                    continue
                answer = ProviderResult(success=True, content=variant.content, content_format=variant.content_format,
                                        metadata=ResultMetadata(api_http_status=200, upstream_status=200))
                verdict = evaluate_response(case, answer)
                scores.append(ControlScore(source=source.name, case=case.id, kind=kind.slug, expected=kind.expected,
                                           predicted=verdict.outcome, explanation=verdict.explanation))
    return scores, skipped


def summarise_controls(corpus: str, sources: Sequence[Source], notes: list[str], scores: list[ControlScore],
                       skipped: list[NotApplicable], floor: float = CONTROLS_FLOOR) -> ControlsResult:
    """Accuracy per kind and per source, and the gate: every kind ≥ ``floor`` (a kind without an
    applicable item cannot show its accuracy and fails too)."""
    kinds: dict[str, KindFigures] = {}
    failures = []
    missing = Counter(s.kind for s in skipped)
    for kind in KINDS:
        mine = [s for s in scores if s.kind == kind.slug]
        correct = sum(1 for s in mine if s.correct)
        by_source = {src.name: (sum(1 for s in mine if s.source == src.name and s.correct),
                                sum(1 for s in mine if s.source == src.name)) for src in sources}
        accuracy = correct / len(mine) if mine else None
        kinds[kind.slug] = KindFigures(expected=kind.expected, items=len(mine), correct=correct, accuracy=accuracy,
                                       not_applicable=missing[kind.slug], by_source=by_source)
        if accuracy is None:
            failures.append(f"{kind.slug}: no applicable item, so its accuracy cannot be measured")
        elif accuracy < floor:
            failures.append(f"{kind.slug} accuracy {accuracy:.3f} < {floor:.2f}")
    return ControlsResult(corpus=corpus, sources={s.name: len(s.cases) for s in sources}, notes=notes, floor=floor,
                          kinds=kinds, passed=not failures, failures=failures, scores=scores, not_applicable=skipped)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def render_controls(result: ControlsResult, *, shown_not_applicable: int = 3) -> list[str]:
    """The readable report: sources, accuracy per kind and per source, not-applicable counts with
    examples, every wrong item with the verdict's explanation, and the gate."""
    names = list(result.sources)
    lines = [f"Corpus controls over {result.corpus} (evaluate_response; "
             f"{sum(result.sources.values())} cases from {len(names)} sources, every case, no sampling)", ""]
    lines += [f"- {note}" for note in result.notes]
    lines += ["", "| kind | expected | items | correct | accuracy | floor | not applicable |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for slug, k in result.kinds.items():
        lines.append(f"| {slug} | {k.expected.value} | {k.items} | {k.correct} | {_fmt(k.accuracy)} | "
                     f"{result.floor:.2f} | {k.not_applicable} |")
    lines += ["", "Accuracy per source (correct/items)", "", "| kind | " + " | ".join(names) + " |",
              "|---|" + "---:|" * len(names)]
    for slug, k in result.kinds.items():
        cells = [f"{c}/{n} {_fmt(c / n if n else None)}" for c, n in (k.by_source[name] for name in names)]
        lines.append(f"| {slug} | " + " | ".join(cells) + " |")
    if result.not_applicable:
        lines += ["", f"Not applicable ({len(result.not_applicable)}): the SPEC gives the variant another verdict "
                  "for that case, so it is no control of its kind (first examples per kind)", ""]
        for kind in KINDS:
            mine = [s for s in result.not_applicable if s.kind == kind.slug]
            for s in mine[:shown_not_applicable]:
                lines.append(f"- {s.kind}: {s.source} {s.case}: {s.reason}")
            if len(mine) > shown_not_applicable:
                lines.append(f"- {kind.slug}: … {len(mine) - shown_not_applicable} more")
    wrong = result.wrong
    if wrong:
        lines += ["", f"Wrong verdicts ({len(wrong)})", ""]
        for s in wrong:
            lines.append(f"- {s.source} {s.case} [{s.kind}]: expected {s.expected.value}, got {s.predicted.value} — "
                         f"{s.explanation}")
    lines.append("")
    if result.passed:
        lines.append(f"gate: PASS (every kind ≥ {result.floor:.2f})")
    else:
        lines.append("gate: FAIL — " + "; ".join(result.failures))
    return lines


def controls_json(result: ControlsResult) -> str:
    """``run-evals --corpus --output`` content: indented UTF-8 JSON with one trailing newline."""
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"


# --- the corpus edge -------------------------------------------------------------------------------------------


def import_sources(corpus: Path) -> tuple[list[Source], list[str]]:
    """Import every folder of ``corpus`` that a registered format reads (``corpus/<format name>``), as
    ``lexbench import-corpus --keep-going`` does, into a temporary directory that is removed afterwards.
    Returns the sources with controllable cases and one note per folder (cases, skips, why none).

    Raises :class:`ControlsError` when ``corpus`` is not a directory or holds no such folder.
    """
    if not corpus.is_dir():
        what = "is a file, not a directory" if corpus.exists() else "no such directory"
        raise ControlsError(f"--corpus {corpus}: {what} (expected a corpus such as ../shared/corpus)")
    present = [name for name in FORMATS if (corpus / name).is_dir()]
    if not present:
        raise ControlsError(f"--corpus {corpus}: holds no folder a corpus format reads "
                            f"(expected one of {', '.join(sorted(FORMATS))})")
    sources, notes = [], []
    with tempfile.TemporaryDirectory(prefix="lexbench-controls-") as scratch:
        for name in present:
            try:
                report = import_corpus(name, corpus / name, Path(scratch) / name, keep_going=True)
                dataset = load_dataset(Path(scratch) / name / "dataset.json")
            except CorpusImportError as exc:
                notes.append(f"{name}: not importable ({str(exc).splitlines()[0]})")
                continue
            if dataset.suite.review_status is not ReviewStatus.IMPORTED_UNREVIEWED:
                notes.append(f"{name}: a reviewed suite; controls cover imported, unreviewed cases only")
                continue
            reasons = Counter(why for case in dataset.cases if (why := controllable(case)))
            cases = tuple(case for case in dataset.cases if controllable(case) is None)
            note = f"{name}: {len(dataset.cases)} cases imported ({len(report.skipped)} page{'' if len(report.skipped) == 1 else 's'} skipped), {len(cases)} with controls"
            if reasons:
                note += " (" + ", ".join(f"{n} left out: {why}" for why, n in sorted(reasons.items())) + ")"
            notes.append(note)
            if cases:
                sources.append(Source(name=name, cases=cases))
    return sources, notes


def run_controls(corpus: Path, floor: float = CONTROLS_FLOOR) -> ControlsResult:
    """Import ``corpus``, score every control and summarise (:func:`import_sources`,
    :func:`score_controls`, :func:`summarise_controls`)."""
    sources, notes = import_sources(corpus)
    scores, skipped = score_controls(sources)
    return summarise_controls(str(corpus), sources, notes, scores, skipped, floor)
