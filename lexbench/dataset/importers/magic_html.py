"""``magic-html-bench``: the OpenDataLab magic-html benchmark, article part (SPEC §4).

Layout: ``_index.tsv`` (keys ``article/<sha256>`` and ``forum/<sha256>``), ``article/base.json`` =
``{"<sha256>": {"url": str, "content": str, "remark"?: str}}``, ``article/htmls/<sha256>.html.gz``.
Only article rows are imported here; the reference is ``content`` (plain text, usually headline,
date/byline, then body). Forum rows are the format ``magic-html-forum``
(:mod:`lexbench.dataset.importers.magic_html_forum`). A ``remark`` of ``列表页`` (list page) is skipped with a reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lexbench.dataset.importers.common import (
    IndexRow,
    Page,
    PageError,
    SkipPage,
    corpus_file,
    coverage_flags,
    key_slug,
    read_gzip,
    read_index,
    read_json_file,
    reference_lines,
    require_article,
)

PART = "article"
LIST_PAGE_REMARK = "列表页"


class MagicHtmlArticlesFormat:
    """Importer for the article part of a ``magic-html-bench`` corpus folder."""

    name = "magic-html-bench"
    suite_id = "magic-html-articles"
    suite_name = "magic-html benchmark, article pages (imported)"
    description = (
        "Imported from the article part of the OpenDataLab magic-html benchmark, "
        "https://github.com/opendatalab/magic-html at commit 47d4a7fed12030e906a093b074637f178cb46ef2 "
        "(benchmark/data/article), Apache-2.0 licence; page HTML is copyright of the original sites. "
        "References are OpenDataLab's manual annotations (base.json content). Imported as-is and not reviewed: "
        "no stable groups, no page identity, no title contract."
    )
    notes = [
        "title not scored: base.json has no title field (content usually starts with the headline, which "
        "stays part of the body reference); title_basis not_in_source.",
        "forum pages are not part of this format: import them with --format magic-html-forum.",
        "list pages (remark 列表页) are skipped: they have no single article body.",
    ]

    part = PART
    flags: list[str] = []
    """Flags every case of this part carries."""

    def rows(self, source: Path) -> list[IndexRow]:
        """The index rows of this part, in order (positions count this part's rows only)."""
        return read_index(source, keep=lambda row: row.key.startswith(self.part + "/"))

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """Read ``<part>/base.json`` once; the returned loader builds one page per row of the part."""
        path = source / self.part / "base.json"
        base, duplicates = read_json_file(path)
        if not isinstance(base, dict):
            raise PageError(f"{path}: expected an object keyed by page id")

        def load(row: IndexRow) -> Page:
            key = row.key.split("/", 1)[1]
            where = f"{path} [{key!r}]"
            if key in duplicates:
                raise PageError(f"{where}: the key appears more than once")
            entry = base.get(key)
            if not isinstance(entry, dict):
                raise PageError(f"{path}: no entry for {key!r} (index line {row.line})")
            if entry.get("remark") == LIST_PAGE_REMARK:
                raise SkipPage(f"list page (remark {LIST_PAGE_REMARK!r} in base.json): no single article body")
            if self.part == PART:
                require_article(row)
            lines = reference_lines(entry.get("content"), where=where)
            capture_file = corpus_file(source, row.html_file, what="html_file")
            capture = read_gzip(capture_file)
            url = row.url or str(entry.get("url") or "")
            if not url:
                raise PageError(f"{where}: no URL in the index or base.json")
            return Page(
                row=row,
                url=url,
                capture=capture,
                capture_file=capture_file,
                reference=lines,
                reference_file=path,
                key_tag=key_slug(key, 6),
                flags=[*coverage_flags(row), *self.flags],
            )

        return load


FORMAT = MagicHtmlArticlesFormat()
