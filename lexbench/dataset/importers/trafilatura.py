"""``trafilatura-eval``: the Trafilatura evaluation set, staged pages only (SPEC §3.3, §4).

Layout: ``_index.tsv`` (one row per staged page; ``case_id`` = the original file name), ``html/<file>.gz``
and ``evaldata.json`` = ``{"<url>": {"file": str, "with": [str], "without": [str], "comments"?: [str],
"title"?: str, ...}}``, matched to a page by its ``file`` field.

The references are hand-picked snippets, not a full body, so how a case is represented:

- **no body contract.** The ``with`` snippets are excerpts chosen for a precision/recall probe, not the
  article: as regions they would claim a ``complete`` body (false) or a ``displayed_excerpt`` of a
  folded article (also false), and a handful of short snippets cannot carry the ≥ 10-fragment ending
  of body contract v4. A case without a body cannot be a ``fixed_article`` in the schema, so it is a
  ``site_labels`` case whose only scored contract is the **title**, flagged ``title_only_no_body_reference``.
- **title** = the source's ``title``, an annotation made by people independently of the page's
  ``<title>``: ``title_basis`` ``observed``. Pages without a ``title`` would have no scored contract at
  all and are skipped with that reason. The title must be a standalone line of the capture's own
  visible text (as the scorer looks for it); where it is not (the annotator shortened or reworded it),
  the case is flagged ``title_not_standalone_in_capture`` — a later review must correct it.
- **probes** — ``probes.json`` in the suite directory, ``{"<case id>": {"with": [str], "without":
  [str], "comments": [str]}}``: the source's snippets as given (empty lists kept), for diagnostics
  such as how many ``without`` snippets (boilerplate that must not appear) an answer contains.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from lexbench.answer import ProviderResult
from lexbench.dataset.case import Capture, Case, CaseKind, CaseRule, TitleBasis
from lexbench.dataset.compile import describe_validation_error, sha256_bytes
from lexbench.dataset.importers.common import (
    TASK_PROMPT,
    IndexRow,
    Page,
    PageError,
    SkipPage,
    case_id,
    case_lang,
    case_name,
    corpus_file,
    coverage_flags,
    detect_charset,
    key_slug,
    read_gzip,
    read_index,
    read_json_file,
)
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component

EVALDATA = "evaldata.json"
CATEGORY = "article"
TRACK = "title"
PROBE_FIELDS = ("with", "without", "comments")


class TrafilaturaFormat:
    """Importer for a ``trafilatura-eval`` corpus folder (title contract; snippets as probes)."""

    name = "trafilatura-eval"
    suite_id = "trafilatura-eval"
    suite_name = "Trafilatura evaluation set, staged pages (imported, title only)"
    description = (
        "Imported from the Trafilatura evaluation set, https://github.com/adbar/trafilatura at commit "
        "e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5 (tests/evaldata.json, staged HTML from tests/eval and "
        "tests/cache), Apache-2.0 licence; annotations from the BBAW collection and Polish news; page HTML is "
        "copyright of the original sites. The references are snippets, not full bodies: each case scores only "
        "the annotated title; the with/without/comments snippets are kept in probes.json for diagnostics. "
        "Imported as-is and not reviewed."
    )
    notes = [
        "no body contract: the references are hand-picked snippets (with/without/comments), not a full body; "
        "cases are site_labels cases scoring only the title (flag title_only_no_body_reference).",
        "title = evaldata.json's title, a human annotation independent of <title> (title_basis observed); pages "
        "without one are skipped. Titles that are not a standalone line of the capture's visible text are "
        "flagged title_not_standalone_in_capture.",
        "probes.json keeps each case's with/without/comments snippets (e.g. for counting leaked 'without' "
        "boilerplate); annotations were made by the trafilatura author's team.",
    ]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row (each is one staged page), in order."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """Read ``evaldata.json`` once and index it by ``file``; the loader builds one page per row."""
        path = source / EVALDATA
        data, _ = read_json_file(path)
        if not isinstance(data, dict):
            raise PageError(f"{path}: expected an object keyed by URL")
        by_file: dict[str, list[tuple[str, dict]]] = {}
        for url, entry in data.items():
            if isinstance(entry, dict) and isinstance(entry.get("file"), str):
                by_file.setdefault(entry["file"], []).append((url, entry))

        def load(row: IndexRow) -> Page:
            capture_file = corpus_file(source, row.html_file, what="html_file")
            name = Path(row.html_file).name.removesuffix(".gz")
            entries = by_file.get(name, [])
            if len(entries) != 1:
                found = "no entry" if not entries else f"{len(entries)} entries"
                raise PageError(f"{path}: {found} with file {name!r} (index line {row.line})")
            key_url, entry = entries[0]
            where = f"{path} [{key_url!r}]"
            probe = {field: _snippets(entry.get(field, []), where=f"{where} {field!r}") for field in PROBE_FIELDS}
            title = entry.get("title")
            if not isinstance(title, str) or not title.strip():
                raise SkipPage("no annotated title and no full body reference: no contract can be scored "
                               "(its snippets alone are probes, not a contract)")
            capture = read_gzip(capture_file)
            flags = [*coverage_flags(row), "title_only_no_body_reference"]
            return Page(
                row=row,
                url=row.url or key_url,
                capture=capture,
                capture_file=capture_file,
                reference=[],
                reference_file=path,
                key_tag=key_slug(name.removesuffix(".html"), 12),
                flags=flags,
                extra={"title": " ".join(title.split()), "probe": probe},
            )

        return load

    def build_rule(self, page: Page, position: int) -> tuple[CaseRule, None]:
        """The title-only case of one page (no body reference). Raises :class:`PageError`."""
        row = page.row
        lang = case_lang(row)
        cid = case_id(position, lang, page.url, page.key_tag, category=CATEGORY)
        charset = detect_charset(page.capture)
        flags = list(dict.fromkeys([*page.flags, *([charset.flag] if charset.flag else [])]))
        title = page.extra["title"]
        try:
            rule = CaseRule(
                id=cid,
                name=case_name(row, cid.split("-", 3)[3]),
                url=page.url,
                category=CATEGORY,
                track=TRACK,
                task_prompt=TASK_PROMPT,
                kind=CaseKind.SITE_LABELS,
                lang=lang,
                capture=Capture(path=f"captures/{cid}.html", sha256=sha256_bytes(page.capture),
                                content_type=f"text/html; charset={charset.served}"),
                title=title,
                title_basis=TitleBasis.OBSERVED,
                flags=flags,
            )
        except ValidationError as exc:
            raise PageError(f"{page.reference_file}: {describe_validation_error(exc, case_id=cid)}") from None
        if not _capture_shows_title(rule, page.capture, charset.served):
            rule = rule.model_copy(update={"flags": [*rule.flags, "title_not_standalone_in_capture"]})
        return rule, None


def _snippets(value: object, *, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PageError(f"{where}: expected a list of text snippets")
    return list(value)


def _capture_shows_title(rule: CaseRule, capture: bytes, charset: str) -> bool:
    """Whether the scorer's title component passes on the page's own capture (read as HTML)."""
    try:
        html = capture.decode(charset, errors="replace")
    except LookupError:  # an unknown declared charset is flagged by detect_charset; read the bytes as UTF-8
        html = capture.decode("utf-8", errors="replace")
    answer = ProviderResult(success=True, content=html, content_format="html")
    verdict = evaluate_response(Case(**rule.model_dump()), answer)
    return any(c.name is Component.TITLE and c.passed for c in verdict.components)


FORMAT = TrafilaturaFormat()
