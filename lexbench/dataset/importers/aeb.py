"""``scrapinghub-aeb``: the Zyte (Scrapinghub) Article Extraction Benchmark (SPEC §4).

Layout: ``_index.tsv``, ``html/<sha256-id>.html.gz``, ``ground-truth.json`` =
``{"<sha256-id>": {"articleBody": str, "url": str}}`` keyed by the HTML file stem. The reference is
``articleBody`` (human annotation by Zyte, independent of open-source extractors). No title field.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lexbench.dataset.importers.common import (
    IndexRow,
    Page,
    PageError,
    coverage_flags,
    corpus_file,
    key_slug,
    read_gzip,
    read_index,
    read_json_file,
    reference_lines,
    require_article,
)

GROUND_TRUTH = "ground-truth.json"


class AebFormat:
    """Importer for a ``scrapinghub-aeb`` corpus folder."""

    name = "scrapinghub-aeb"
    suite_id = "aeb"
    suite_name = "Zyte Article Extraction Benchmark (imported)"
    description = (
        "Imported from the Zyte (Scrapinghub) Article Extraction Benchmark, "
        "https://github.com/scrapinghub/article-extraction-benchmark at commit "
        "4a3bc979f76c0df73cb95fe272e2fc1b96f9f010 (ground-truth.json unchanged since v1.0.0), MIT licence "
        "(Copyright (c) 2020 Scrapinghub); page HTML is copyright of the original sites. References are Zyte's "
        "human-annotated articleBody. Imported as-is and not reviewed: no stable groups, no page identity, "
        "no title contract."
    )
    notes = [
        "title not scored: ground-truth.json has no title/headline field (title_basis not_in_source); "
        "the index's html_title is only the case name.",
        "HTML was saved by Splash with JavaScript disabled; some paywalled references are truncated.",
    ]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row, in order."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """Read ``ground-truth.json`` once; the returned loader builds one page per index row."""
        path = source / GROUND_TRUTH
        truth, duplicates = read_json_file(path)
        if not isinstance(truth, dict):
            raise PageError(f"{path}: expected an object keyed by page id")

        def load(row: IndexRow) -> Page:
            require_article(row)
            capture_file = corpus_file(source, row.html_file, what="html_file")
            stem = row.key  # the index's case_id is the HTML file stem, the ground-truth key
            where = f"{path} [{stem!r}]"
            if stem in duplicates:
                raise PageError(f"{where}: the key appears more than once")
            entry = truth.get(stem)
            if not isinstance(entry, dict):
                raise PageError(f"{path}: no entry for {stem!r} (index line {row.line})")
            lines = reference_lines(entry.get("articleBody"), where=where)
            capture = read_gzip(capture_file)
            url = row.url or str(entry.get("url") or "")
            if not url:
                raise PageError(f"{where}: no URL in the index or the ground truth")
            return Page(
                row=row,
                url=url,
                capture=capture,
                capture_file=capture_file,
                reference=lines,
                reference_file=path,
                key_tag=key_slug(stem, 6),
                flags=coverage_flags(row),
            )

        return load


FORMAT = AebFormat()
