"""``reviewed-suite``: materialise a reviewed suite whose evidence stays in an external corpus (SPEC §4).

A reviewed suite over real pages commits only what its reviewer decided — ``rules.json`` (titles,
regions, endings, stable phrases, selectors, record counts, label lists, hashes), ``cohort.json``
and ``sources.json`` — never a capture or a reference body. ``sources.json`` names the evidence
home, relative to the repository root (``../shared/corpus``), and for every case where its capture
and reference come from::

    {"evidence_home": "../shared/corpus",
     "cases": {"<case id>": {"capture": "dragnet/HTML/R1000.html.gz",
                             "reference": {"file": "dragnet/Corrected/R1000.html.corrected.txt",
                                           "part": "before_comments", "lines": [1, 21]}}}}

``lexbench import-corpus --format reviewed-suite --source reviews/<suite> --output DIR`` reads those
files, decompresses each capture, cuts each reference (the part, split into paragraph lines, then the
reviewed one-based inclusive line range), checks both against the sha256 the rules bind and writes a
runnable suite directory to ``DIR`` (outside git). A changed corpus file is an error naming it; an
absent evidence home is an error saying so (tests skip on it).

The schema-1 ``sources.json`` of a committed suite (``cases/articles``; see
:mod:`lexbench.dataset.evidence`) also binds every source file's sha256 and upstream path, names the
capture as ``{"file", "field"}`` (``field``: the JSON field holding the HTML) and the reference as a file
with ``part``/``key``/``field``/``lines`` or ``{"from": "capture", "lines"}``. :func:`derive_capture` and
:func:`derive_reference` are the one derivation both this importer and ``lexbench fetch-evidence`` use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lexbench.charsets import decode_page
from lexbench.dataset.case import CaseRule, Rules, SuiteInfo
from lexbench.dataset.compile import describe_validation_error, sha256_bytes
from lexbench.dataset.importers.common import IndexRow, Page, PageError, detect_charset, read_corpus_file, read_gzip
from lexbench.dataset.importers.html_text import html_lines
from lexbench.dataset.segment import split_paragraphs
from lexbench.errors import CorpusImportError

SOURCES_NAME = "sources.json"
COMMENTS_DELIMITER = re.compile(r"!@#\$%\^&\*\(\)\s+COMMENTS")
"""The line separating a dragnet reference's article from its comments."""
PARTS = ("whole", "before_comments")


def repository_root(start: Path) -> Path:
    """The nearest ancestor of ``start`` holding ``pyproject.toml`` (the repository root)."""
    for directory in (start, *start.parents):
        if (directory / "pyproject.toml").is_file():
            return directory
    raise CorpusImportError(f"{start}: not inside a lexbench repository (no pyproject.toml above it)")


def evidence_home(review: Path, sources: dict[str, Any]) -> Path:
    """The external evidence home a review's ``sources.json`` names, resolved against the repository root.

    Raises :class:`CorpusImportError` when it is absent (it lives outside git, e.g. ``../shared/corpus``)."""
    relative = str(sources.get("evidence_home") or "")
    if not relative:
        raise CorpusImportError(f"{review / SOURCES_NAME}: no evidence_home")
    home = (repository_root(review.resolve()) / relative).resolve()
    if not home.is_dir():
        raise CorpusImportError(
            f"evidence home {relative} (relative to the repository root) is absent: {home}; the reviewed suite "
            "cannot be materialised without the external corpus"
        )
    return home


def cut_reference(text: str, part: str, lines: list[int] | None) -> list[str]:
    """The reviewed reference lines of a corpus reference ``text``: the ``part`` (``whole`` or the
    article ``before_comments`` of a dragnet file), one paragraph per line, then the one-based
    inclusive ``lines`` range. Raises :class:`PageError` for an unknown part or a range outside it."""
    if part not in PARTS:
        raise PageError(f"reference part {part!r} is unknown; use one of {', '.join(PARTS)}")
    if part == "before_comments":
        text = COMMENTS_DELIMITER.split(text, maxsplit=1)[0]
    return _line_range(split_paragraphs(text), lines, "the part")


def capture_spec(entry: dict[str, Any]) -> dict[str, Any]:
    """A case's capture source in the ``sources.json`` schema: ``{"file": <corpus path>, "field": <JSON field
    holding the HTML, or null>}``. The first reviews wrote the corpus path alone; it means the same."""
    capture = entry.get("capture")
    if isinstance(capture, str):
        return {"file": capture, "field": None}
    if not isinstance(capture, dict) or not isinstance(capture.get("file"), str):
        raise PageError(f"sources.json: the capture must name a corpus file, got {capture!r}")
    return capture


def derive_capture(spec: dict[str, Any], read: Callable[[str], bytes]) -> bytes:
    """The capture bytes a ``capture_spec`` names: the decompressed file, or the UTF-8 encoding of the HTML in
    its JSON ``field`` (harvest documents). ``read`` maps a corpus path to its decompressed bytes.
    Raises :class:`PageError` naming the file when the field is absent or not text."""
    data = read(spec["file"])
    if spec.get("field") is None:
        return data
    value = _pick(data, spec.get("key"), spec["field"], where=spec["file"])
    return value.encode("utf-8")


def derive_reference(spec: dict[str, Any] | None, read: Callable[[str], bytes], capture: bytes) -> list[str]:
    """The reviewed reference lines a ``sources.json`` reference entry names (SPEC §4); ``[]`` for none.

    ``{"file", "part", "key", "field", "lines"}``: the file's text, or the text at ``[key][field]`` of its
    JSON; then :func:`cut_reference` (the part, paragraph lines, the one-based inclusive range).
    ``{"from": "capture", "lines": [a, b]}``: that range of the capture's visible-text lines
    (:func:`~lexbench.dataset.importers.html_text.html_lines` of the decoded capture), for sources whose
    annotations are snippets, not a body. Either may carry ``exclude`` (:func:`exclude_lines`): the lines
    the review leaves out, each with its reason; and ``keep`` (:func:`kept_lines`): the listed lines it keeps. Raises :class:`PageError` naming the file."""
    if not spec:
        return []
    lines = exclude_lines(_derive_lines(spec, read, capture), spec.get("exclude"))
    kept_lines(lines, spec.get("keep"))  # refused here, with the derivation, not later by the proof
    return lines


EXCLUSION_REASONS: dict[str, str] = {
    "not_displayed": "in the capture, but hidden, clipped, collapsed or menu-nested (the visibility proof)",
    "not_in_capture": "the source annotated text the capture does not hold (a widget loaded later, another page)",
    "control_label": "a control's label: share or print buttons, 'Buy now', 'Lihat Foto', 'Skip'",
    "widget": "a widget's text: related or trending links, product-card chrome, video or gallery chrome",
    "attribution": "a byline, category label or credit line (attribution belongs to stable groups)",
}
"""Why a review leaves a source line out of the reference (SPEC §4): the reference is the displayed article."""


KEEP_REASONS: dict[str, str] = {
    "caption": "a photo or figure caption of the article: in scope, as the seed says",
    "body_link": "a link inside the article's own prose: in scope, as the seed says",
    "article_text": "the article's own prose in an element whose class or id reads like a widget, byline or credit",
}
"""Why a review keeps a line the visibility proof listed for review (SPEC §4, ``keep`` in ``sources.json``)."""


def kept_lines(lines: list[str], keeps: Any) -> dict[str, str]:
    """The review's decisions to keep listed lines: ``{line text: reason}`` (SPEC §4).

    ``keeps`` is ``None`` or a list of ``{"text": t, "reason": r}``: ``t`` a line of the reviewed reference
    ``lines`` (after exclusions), ``r`` a key of :data:`KEEP_REASONS`. Raises :class:`PageError` naming the
    entry for an unknown reason, a text that is not a reference line, or a line kept twice."""
    if keeps is None:
        return {}
    if not isinstance(keeps, list):
        raise PageError(f"sources.json: keep must be a list of {{text, reason}}, got {keeps!r}")
    present = set(lines)
    out: dict[str, str] = {}
    for item in keeps:
        if not isinstance(item, dict) or set(item) != {"text", "reason"}:
            raise PageError(f"sources.json: a keep decision has exactly text and reason, got {item!r}")
        text, reason = item["text"], item["reason"]
        if reason not in KEEP_REASONS:
            raise PageError(f"sources.json: keep of {text!r} has reason {reason!r}; use one of {', '.join(KEEP_REASONS)}")
        if text not in present:
            raise PageError(f"sources.json: kept line {text!r} is not a line of the reviewed reference (excluded, "
                            "or the source changed)")
        if text in out:
            raise PageError(f"sources.json: line {text!r} is kept twice")
        out[text] = reason
    return out


def exclude_lines(lines: list[str], exclusions: Any) -> list[str]:
    """``lines`` (the cut reference) without the review's exclusions (SPEC §4).

    ``exclusions`` is ``None`` or a list of ``{"line": n, "reason": r, "text": t}``: ``n`` the one-based
    number of a line of ``lines``, ``r`` a key of :data:`EXCLUSION_REASONS`, ``t`` that line's exact text
    (so an exclusion cannot silently drop another line when the source changes). Raises
    :class:`PageError` naming the exclusion for an unknown reason, a line out of range or listed twice, a
    text that differs from the line, or an exclusion that would leave no line."""
    if exclusions is None:
        return lines
    if not isinstance(exclusions, list):
        raise PageError(f"sources.json: exclude must be a list of {{line, reason, text}}, got {exclusions!r}")
    dropped: set[int] = set()
    for item in exclusions:
        if not isinstance(item, dict) or set(item) != {"line", "reason", "text"}:
            raise PageError(f"sources.json: an exclusion has exactly line, reason and text, got {item!r}")
        line, reason, text = item["line"], item["reason"], item["text"]
        if reason not in EXCLUSION_REASONS:
            raise PageError(f"sources.json: exclusion of line {line!r} has reason {reason!r}; use one of "
                            f"{', '.join(EXCLUSION_REASONS)}")
        if not isinstance(line, int) or isinstance(line, bool) or not 1 <= line <= len(lines):
            raise PageError(f"sources.json: excluded line {line!r} is outside the reference's {len(lines)} lines")
        if line in dropped:
            raise PageError(f"sources.json: line {line} is excluded twice")
        if lines[line - 1] != text:
            raise PageError(f"sources.json: excluded line {line} reads {lines[line - 1]!r}, not {text!r}: the source "
                            "changed or the exclusion names the wrong line")
        dropped.add(line)
    kept = [text for number, text in enumerate(lines, start=1) if number not in dropped]
    if not kept:
        raise PageError("sources.json: the exclusions leave no reference line")
    return kept


def _derive_lines(spec: dict[str, Any], read: Callable[[str], bytes], capture: bytes) -> list[str]:
    if spec.get("from") == "capture":
        lines = html_lines(decode_page(capture, detect_charset(capture).served)[0])
        return _line_range(lines, spec.get("lines"), "the capture's visible text")
    file = spec.get("file")
    if not isinstance(file, str):
        raise PageError(f"sources.json: a reference needs a corpus file or \"from\": \"capture\", got {spec!r}")
    data = read(file)
    if spec.get("key") is None and spec.get("field") is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PageError(f"{file}: the reference is not valid UTF-8 ({exc})") from None
    else:
        text = _pick(data, spec.get("key"), spec.get("field"), where=file)
    try:
        return cut_reference(text, spec.get("part") or "whole", spec.get("lines"))
    except PageError as exc:
        raise PageError(f"{file}: {exc}") from None


def _pick(data: bytes, key: str | None, field: str | None, *, where: str) -> str:
    try:
        value: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PageError(f"{where}: not UTF-8 JSON ({exc})") from None
    for step in (key, field):
        if step is None:
            continue
        if not isinstance(value, dict) or step not in value:
            raise PageError(f"{where}: has no {step!r} (named by sources.json)")
        value = value[step]
    if not isinstance(value, str):
        raise PageError(f"{where}: [{key!r}][{field!r}] is {type(value).__name__}, not text")
    return value


def _line_range(lines: list[str], bounds: list[int] | None, what: str) -> list[str]:
    if bounds is None:
        return lines
    first, last = bounds
    if not 1 <= first <= last <= len(lines):
        raise PageError(f"reference line range {first}-{last} is outside the {len(lines)} lines of {what}")
    return lines[first - 1 : last]


class ReviewedSuiteFormat:
    """Materialises a reviewed suite directory (``rules.json``, ``cohort.json``, ``sources.json``)."""

    name = "reviewed-suite"
    suite_id = "reviewed"
    suite_name = "reviewed suite"
    description = ""
    notes = ["materialised from a reviewed suite: rules as reviewed, evidence from the external corpus"]

    def __init__(self) -> None:
        self._rules: dict[str, CaseRule] = {}
        self._suite: SuiteInfo | None = None
        self._sources: dict[str, Any] = {}

    def suite_info(self) -> SuiteInfo:
        """The reviewed suite's own identity (id, revision, review status) from its ``rules.json``."""
        assert self._suite is not None, "rows() reads the review first"
        return self._suite

    def rows(self, source: Path) -> list[IndexRow]:
        """One row per reviewed case, in ``rules.json`` order. Reads and validates the review."""
        rules_path, sources_path = source / "rules.json", source / SOURCES_NAME
        try:
            rules = Rules.model_validate(json.loads(read_corpus_file(rules_path).decode("utf-8")))
            sources = json.loads(read_corpus_file(sources_path).decode("utf-8"))
        except FileNotFoundError as exc:
            raise CorpusImportError(f"{source}: not a reviewed suite ({exc.filename} is missing)") from None
        except OSError as exc:
            raise CorpusImportError(f"{exc.filename}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusImportError(f"{source}: unreadable review file ({exc})") from None
        except ValidationError as exc:
            raise CorpusImportError(describe_validation_error(exc, source=str(rules_path))) from None
        self._rules = {rule.id: rule for rule in rules.cases}
        self._suite = rules.suite
        self._sources = sources
        self.suite_id, self.suite_name, self.description = rules.suite.id, rules.suite.name, rules.suite.description
        missing = [rule.id for rule in rules.cases if rule.id not in sources.get("cases", {})]
        if missing:
            raise CorpusImportError(f"{sources_path}: no source for case(s) {', '.join(missing)}")
        return [
            IndexRow(line=position, key=rule.id, html_file=capture_spec(sources["cases"][rule.id])["file"], url=rule.url,
                     lang=rule.lang, lang_guess=rule.lang, html_title=rule.name, coverage="", kind="article")
            for position, rule in enumerate(rules.cases, start=1)
        ]

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """The loader of one reviewed case: its decompressed capture and its cut reference lines."""
        home = evidence_home(source, self._sources)

        def read(relative: str) -> bytes:
            # Confined to the evidence home: a sources.json path out of it ('..', absolute, a symlink) is refused.
            path = home / relative
            return read_gzip(path, within=home) if path.suffix == ".gz" else _read(path, home)

        def load(row: IndexRow) -> Page:
            entry = self._sources["cases"][row.key]
            spec = capture_spec(entry)
            capture = derive_capture(spec, read)
            reference = derive_reference(entry.get("reference"), read, capture)
            reference_file = home / ((entry.get("reference") or {}).get("file") or spec["file"])
            return Page(row=row, url=row.url, capture=capture, capture_file=home / spec["file"], reference=reference,
                        reference_file=reference_file, key_tag=row.key, extra={"rule": self._rules[row.key]})

        return load

    def build_rule(self, page: Page, position: int) -> tuple[CaseRule, str | None]:
        """The reviewed rule, after checking the corpus files still hash to what the review bound."""
        rule: CaseRule = page.extra["rule"]
        if sha256_bytes(page.capture) != rule.capture.sha256:
            raise PageError(f"{page.capture_file}: its bytes no longer hash to the reviewed capture sha256; "
                            "the corpus changed since the review")
        if rule.body is None:
            return rule, None
        reference = "\n".join(page.reference)
        if sha256_bytes(reference.encode("utf-8")) != rule.body.reference.sha256:
            raise PageError(f"{page.reference_file}: the reviewed reference lines no longer hash to the bound sha256; "
                            "the corpus changed since the review")
        return rule, reference


def _read(path: Path, home: Path) -> bytes:
    try:
        return read_corpus_file(path, within=home)
    except FileNotFoundError:
        raise PageError(f"{path}: file not found (named by the review's sources.json)") from None
    except OSError as exc:
        raise PageError(f"{path}: {exc.strerror or exc}") from None


FORMAT = ReviewedSuiteFormat()
