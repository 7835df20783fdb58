"""Import a real-page corpus folder (``../shared/corpus/<folder>``) as an unreviewed suite (SPEC §2, §4).

``import_corpus(format, source, output)`` reads the folder's ``_index.tsv`` and references, and
writes a new suite directory::

    output/
      rules.json                      Rules: suite <id>, revision 1, review_status imported_unreviewed
      cohort.json                     imported pages as approved candidates, skipped positions as gaps
      evidence/captures/<case>.html   the page's decompressed original bytes, unchanged
      evidence/references/<case>.txt  the reference body: one paragraph per line, no trailing newline
                                      (post collections have none: their contract is the posts floor)
      dataset.json                    compiled by lexbench.dataset.suite.build_suite, which also writes
      dataset-catalog.json, tasks.json, source-inputs.json   the public bindings (no registry entry)
      import-report.json              imported ids, skipped pages with reasons, flags, format notes
      probes.json                     only for formats with probes: {"<case id>": {...}}, the source's
                                      snippets that no contract scores yet (dragnet comment text,
                                      trafilatura-eval with/without/comments), for diagnostics and review

The corpus itself is never copied anywhere else (it must not enter git). Formats are registered in
:data:`FORMATS`; each lives in its own module.
"""

from __future__ import annotations

import os
import re
import time
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from lexbench.dataset.case import (
    BodyRule,
    Capture,
    CaseKind,
    CaseRule,
    ReferenceScope,
    ReviewStatus,
    Rules,
    SuiteInfo,
    TitleBasis,
)
from lexbench.dataset.bindings import BINDING_FILES, DATASET_NAME
from lexbench.dataset.cohort import COHORT_NAME, Gap, initial_cohort
from lexbench.dataset.compile import bind_reference, describe_validation_error, dump_json, sha256_bytes, write_new
from lexbench.dataset.importers import (
    aeb,
    dragnet,
    gne,
    harvest,
    magic_html,
    magic_html_forum,
    readability,
    reviewed,
    trafilatura,
    webmainbench,
)
from lexbench.dataset.importers.common import (
    TASK_PROMPT,
    CorpusFormat,
    IndexRow,
    Page,
    PageError,
    SkipPage,
    case_id,
    case_lang,
    case_name,
    detect_charset,
    iter_unique,
    read_corpus_file,
)
from lexbench.dataset.endings import choose_ending
from lexbench.dataset.importers.report import PROBES_NAME, REPORT_NAME, ImportReport, SkippedPage
from lexbench.dataset.segment import auto_regions
from lexbench.dataset.suite import CASES_ROOT, build_suite
from lexbench.errors import CorpusImportError
from lexbench.resources import in_checkout

__all__ = ["FORMATS", "IMPORTED_SUITES", "ImportReport", "SkippedPage", "import_corpus", "imported_suite_hint",
           "known_formats"]

FORMATS: dict[str, CorpusFormat] = {
    fmt.name: fmt
    for fmt in (
        aeb.FORMAT, readability.FORMAT, magic_html.FORMAT, magic_html_forum.FORMAT, harvest.FORMAT, reviewed.FORMAT,
        dragnet.FORMAT, trafilatura.FORMAT, gne.FORMAT, webmainbench.FORMAT,
    )
}
"""Registered corpus formats by ``--format`` name."""

CATEGORY = "article"
TRACK = "body"


IMPORTED_SUITES = CASES_ROOT.parent / "build" / "suites"
"""In a checkout, where ``make corpus-suites`` writes imported suites (its ``SUITES``): one directory per format."""
CORPUS = CASES_ROOT.parent.parent / "shared" / "corpus"
"""The real corpus beside the repository (``make corpus-suites``' ``CORPUS``): one folder per format."""


def imported_suite_hint(name: str, suites: Path | None = None, corpus: Path | None = None, *,
                        checkout: bool | None = None) -> str | None:
    """What to do when ``--suite name`` names no suite but is the id (or the format) of a suite the
    importer makes, e.g. ``aeb``: pass the directory it was imported to (``suites/<format>``, when it
    holds a ``dataset.json``), or the exact ``lexbench import-corpus`` command that writes it there.
    ``None`` for any other name. Paths are shown relative to the working directory where that is short.

    ``checkout`` (default :func:`lexbench.resources.in_checkout`) picks the layout: a checkout imports
    into :data:`IMPORTED_SUITES` from :data:`CORPUS` and names ``make corpus-suites``; an installed
    package imports into ``build/suites`` under the working directory, from the user's own copy of the
    corpus (the corpus's public source is named), and names no make target (there is no Makefile)."""
    fmt = next((f for f in FORMATS.values() if name in (f.suite_id, f.name)), None)
    if fmt is None:
        return None
    if checkout is None:
        checkout = in_checkout()
    if suites is None:
        suites = IMPORTED_SUITES if checkout else Path("build") / "suites"
    target = _shown(suites / fmt.name)
    if (suites / fmt.name / DATASET_NAME).is_file():
        return f"suite {fmt.suite_id!r} is imported in {target}: pass --suite={target}"
    command = f"{name!r} names the suite `lexbench import-corpus --format {fmt.name}` makes (id {fmt.suite_id!r}); "
    if checkout:
        source = _shown((CORPUS if corpus is None else corpus) / fmt.name)
        return (f"{command}import it first: lexbench import-corpus --format {fmt.name} --source {source} "
                f"--output {target} (make corpus-suites writes its suites to {_shown(suites)} too), then pass "
                f"--suite={target}")
    source = f"<your copy of the corpus>/{fmt.name}" if corpus is None else _shown(corpus / fmt.name)
    upstream = re.search(r"https://[^\s,;)]+", fmt.description)
    origin = f" (a corpus folder with its _index.tsv; the pages come from {upstream.group(0)})" if upstream else ""
    return (f"{command}import it first: lexbench import-corpus --format {fmt.name} --source {source} "
            f"--output {target}{origin}, then pass --suite={target}")


def _shown(path: Path) -> str:
    relative = os.path.relpath(path)
    return str(path) if relative.startswith(os.path.join(os.pardir, os.pardir)) else relative


def known_formats() -> list[str]:
    """The ``--format`` names :func:`import_corpus` accepts, sorted."""
    return sorted(FORMATS)


def import_corpus(
    format: str,
    source: Path,
    output: Path,
    *,
    limit: int | None = None,
    keep_going: bool = False,
) -> ImportReport:
    """Import the corpus folder ``source`` of the given ``format`` into the new suite directory ``output``.

    ``limit`` keeps only the first N index rows of the format (skipped rows count; case numbers keep
    their index positions). Without ``keep_going`` the first bad page stops the import with a
    :class:`~lexbench.errors.CorpusImportError` naming the file, and everything written so far is
    removed; with it, bad pages are skipped and their reasons recorded in ``import-report.json``.
    Deliberately excluded pages (list pages, non-article index rows) are always skipped with a reason.

    Raises :class:`CorpusImportError` for an unknown format, an ``output`` that exists and is not an
    empty directory ("refusing to overwrite"), an unreadable folder, or when no page could be imported.
    Returns the :class:`ImportReport` (also written as ``output/import-report.json``).
    """
    started = time.perf_counter()
    fmt = FORMATS.get(format)
    if fmt is None:
        raise CorpusImportError(f"unknown corpus format {format!r}; known formats: {', '.join(known_formats())}")
    if limit is not None and limit < 1:
        raise CorpusImportError(f"--limit must be at least 1, got {limit}")
    source = Path(source)
    output = Path(output)
    _check_output(output)

    rows = fmt.rows(source)
    loader = fmt.open(source)
    report = ImportReport(format=fmt.name, source=source, output=output, suite_id=fmt.suite_id, notes=list(fmt.notes))
    writer = _Writer(output)
    try:
        rules: list[CaseRule] = []
        seen_ids: set[str] = set()
        for position, row, duplicate in iter_unique(rows, source / "_index.tsv"):
            if limit is not None and position > limit:
                break
            try:
                if duplicate:
                    raise PageError(duplicate)
                page = loader(row)
                # A format may build its own rules (e.g. post collections without a body).
                if hasattr(fmt, "build_rule"):
                    rule, reference = fmt.build_rule(page, position)
                else:
                    rule, reference = build_rule(page, position, category=getattr(fmt, "category", CATEGORY))
                claim_case_id(rule.id, seen_ids, where=f"{source / '_index.tsv'}: line {row.line}")
            except SkipPage as skip:
                report.skipped.append(SkippedPage(position, row.key, row.html_file, str(skip)))
                continue
            except CorpusImportError as exc:
                if not keep_going:
                    raise
                report.skipped.append(SkippedPage(position, row.key, row.html_file, str(exc)))
                continue
            writer.write(Path("evidence") / rule.capture.path, page.capture)
            if rule.body is not None and reference is not None:
                writer.write(Path("evidence") / rule.body.reference.path, reference.encode("utf-8"))
            rules.append(rule)
            report.imported.append(rule.id)
            report.imported_keys.append(row.key)
            if rule.flags:
                report.flagged[rule.id] = list(rule.flags)
            if page.extra.get("probe"):
                report.probes[rule.id] = page.extra["probe"]

        if not rules:
            counted: dict[str, int] = {}
            for skip in report.skipped:
                counted[skip.reason] = counted.get(skip.reason, 0) + 1
            reasons = "; ".join(f"{n} skipped: {reason}" for reason, n in list(counted.items())[:3])
            reasons = reasons or "the index lists no pages"
            raise CorpusImportError(f"{source}: no page could be imported ({reasons})")
        # A reviewed suite brings its own identity and cohort; a corpus import is unreviewed, revision 1.
        suite = fmt.suite_info() if hasattr(fmt, "suite_info") else SuiteInfo(
            id=fmt.suite_id,
            revision=1,
            name=fmt.suite_name,
            review_status=ReviewStatus.IMPORTED_UNREVIEWED,
            description=fmt.description,
        )
        suite_rules = Rules(suite=suite, cases=rules)
        writer.write(Path("rules.json"), dump_json(suite_rules.model_dump(mode="json")))
        reviewed_cohort = source / COHORT_NAME if hasattr(fmt, "suite_info") else None
        if reviewed_cohort is not None and reviewed_cohort.is_file():
            try:
                cohort_bytes = read_corpus_file(reviewed_cohort)
            except OSError as exc:
                raise CorpusImportError(f"{reviewed_cohort}: {exc.strerror or exc}") from None
            writer.write(Path(COHORT_NAME), cohort_bytes)
        else:
            writer.write(Path(COHORT_NAME), dump_json(import_cohort(suite_rules, report, fmt.name, source)))
        if report.probes:
            writer.write(Path(PROBES_NAME), dump_json(report.probes))
        writer.created += [output / name for name in (DATASET_NAME, *BINDING_FILES)]
        build_suite(output)
        report.seconds = time.perf_counter() - started
        writer.write(Path(REPORT_NAME), dump_json(report.to_json()))
    except BaseException:
        writer.undo()
        raise
    return report


def import_cohort(rules: Rules, report: ImportReport, format_name: str, source: Path) -> dict[str, object]:
    """The ``cohort.json`` value of an import: every imported page an approved candidate (its source the
    corpus key), every skipped index position a gap with the skip reason and the page's key and file."""
    keys = dict(zip(report.imported, report.imported_keys))
    gaps = [Gap(number=skip.position, reason=skip.reason, source={"key": skip.key, "file": skip.file})
            for skip in report.skipped]
    cohort = initial_cohort(
        rules, on=date.today(), gaps=gaps,
        summary=f"Imported from the {format_name} corpus folder {source.name} (unreviewed)",
        sources={case_id: f"{format_name}:{key}" for case_id, key in keys.items()},
    )
    return cohort.model_dump(mode="json", exclude_none=True)


def build_rule(page: Page, position: int, *, category: str = CATEGORY) -> tuple[CaseRule, str]:
    """The case rule for one page and its reference text (paragraph lines joined with ``\\n``).

    ``position`` is the page's 1-based index position (the case number); ``category`` the case id's
    first part. Raises :class:`PageError`
    naming the reference file when the reference has no fragment or the rule does not validate.
    """
    row: IndexRow = page.row
    lang = case_lang(row)
    cid = case_id(position, lang, page.url, page.key_tag, category=category)
    reference = "\n".join(page.reference)
    try:
        ending = choose_ending(page.reference)
        regions = auto_regions(page.reference)
    except CorpusImportError as exc:
        raise PageError(f"{page.reference_file} ({row.key}): {exc}") from None
    charset = detect_charset(page.capture)
    flags = list(dict.fromkeys([*page.flags, *(flag for flag in (charset.flag, ending.flag) if flag)]))
    slug = cid.split("-", 3)[3]
    try:
        rule = CaseRule(
            id=cid,
            name=case_name(row, slug),
            url=page.url,
            category=category,
            track=TRACK,
            task_prompt=TASK_PROMPT,
            kind=CaseKind.FIXED_ARTICLE,
            lang=lang,
            capture=Capture(
                path=f"captures/{cid}.html",
                sha256=sha256_bytes(page.capture),
                content_type=f"text/html; charset={charset.served}",
            ),
            title=None,
            title_basis=TitleBasis.NOT_IN_SOURCE,
            body=BodyRule(
                contract_version=4,
                segmentation_version=3,
                reference=bind_reference(reference, f"references/{cid}.txt"),
                reference_scope=ReferenceScope(kind="complete", end=ending.text),
                regions=regions,
            ),
            flags=flags,
        )
    except ValidationError as exc:
        raise PageError(f"{page.reference_file} ({row.key}): {describe_validation_error(exc, case_id=cid)}") from None
    return rule, reference


def claim_case_id(cid: str, seen: set[str], *, where: str) -> None:
    """Record ``cid`` as used; raises :class:`PageError` naming ``where`` when it was already taken."""
    if cid in seen:
        raise PageError(f"{where}: duplicate case id {cid!r}")
    seen.add(cid)


def _check_output(output: Path) -> None:
    if output.exists():
        if not output.is_dir():
            raise CorpusImportError(f"{output}: exists and is not a directory; refusing to overwrite")
        if any(output.iterdir()):
            raise CorpusImportError(f"{output}: directory is not empty; refusing to overwrite an existing suite")


class _Writer:
    """Writes new files under the output directory and can remove exactly what it wrote."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.made_root = not root.exists()
        self.created: list[Path] = []

    def write(self, relative: Path, data: bytes) -> None:
        path = self.root / relative
        write_new(path, data)
        self.created.append(path)

    def undo(self) -> None:
        # The output was empty or absent when we started, so everything here is ours.
        for path in reversed(self.created):
            path.unlink(missing_ok=True)
        for directory in sorted({p.parent for p in self.created}, key=lambda p: len(p.parts), reverse=True):
            while directory != self.root and directory.is_relative_to(self.root):
                try:
                    directory.rmdir()
                except OSError:
                    break
                directory = directory.parent
        if self.made_root:
            try:
                self.root.rmdir()
            except OSError:
                pass
