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
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lexbench.dataset.case import CaseRule, Rules, SuiteInfo
from lexbench.dataset.compile import describe_validation_error, sha256_bytes
from lexbench.dataset.importers.common import IndexRow, Page, PageError, read_gzip
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
    paragraphs = split_paragraphs(text)
    if lines is None:
        return paragraphs
    first, last = lines
    if not 1 <= first <= last <= len(paragraphs):
        raise PageError(f"reference line range {first}-{last} is outside the {len(paragraphs)} lines of the part")
    return paragraphs[first - 1 : last]


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
            rules = Rules.model_validate(json.loads(rules_path.read_text(encoding="utf-8")))
            sources = json.loads(sources_path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise CorpusImportError(f"{source}: not a reviewed suite ({exc.filename} is missing)") from None
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
            IndexRow(line=position, key=rule.id, html_file=sources["cases"][rule.id]["capture"], url=rule.url,
                     lang=rule.lang, lang_guess=rule.lang, html_title=rule.name, coverage="", kind="article")
            for position, rule in enumerate(rules.cases, start=1)
        ]

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """The loader of one reviewed case: its decompressed capture and its cut reference lines."""
        home = evidence_home(source, self._sources)

        def load(row: IndexRow) -> Page:
            entry = self._sources["cases"][row.key]
            capture_file = home / entry["capture"]
            capture = read_gzip(capture_file) if capture_file.suffix == ".gz" else _read(capture_file)
            reference: list[str] = []
            reference_file = capture_file
            spec = entry.get("reference")
            if spec:
                reference_file = home / spec["file"]
                text = _read(reference_file).decode("utf-8")
                try:
                    reference = cut_reference(text, spec.get("part", "whole"), spec.get("lines"))
                except PageError as exc:
                    raise PageError(f"{reference_file}: {exc}") from None
            return Page(row=row, url=row.url, capture=capture, capture_file=capture_file, reference=reference,
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


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise PageError(f"{path}: file not found (named by the review's sources.json)") from None


FORMAT = ReviewedSuiteFormat()
