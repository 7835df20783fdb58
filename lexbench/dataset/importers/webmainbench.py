"""``webmainbench-sample``: the WebMainBench GitHub samples (SPEC §4).

Layout: ``_index.tsv`` whose ``html_file`` names ``<file>.jsonl.gz line <n> field "html"`` (0-based JSONL
line), and the two gzipped JSONL files. Per row: ``html`` (the page), ``url``, and ``groundtruth_content``,
OpenDataLab's human-annotated main content as Markdown; the ``llm_*`` fields are model outputs and are
never read. The reference is ``groundtruth_content`` turned into plain lines: code fences dropped,
heading, list, quote and escape markers and inline backticks removed (the text is kept).

Skipped with the reason: a row whose URL an earlier row already imported (the same page in both
sample files), and a list page — a reference of which at least :data:`LIST_SHARE` of the lines are
list items (the 15shuba.net chapter index), which has no single article body.
"""

from __future__ import annotations

import json
import re
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
    reference_lines,
)

LIST_SHARE = 0.8
_HTML_FILE = re.compile(r'^"?(?P<file>[^"\s]+\.jsonl\.gz) line (?P<line>\d+) field ""?html""?"?$')
_FENCE = re.compile(r"^\s*(```|~~~)")
_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|\\?[-*+]\s+|\d+[.)]\s+)")
_LIST_ITEM = re.compile(r"^\s*(?:\\?[-*+]\s+|\d+[.)]\s+)")


class WebMainBenchFormat:
    """Importer for a ``webmainbench-sample`` corpus folder."""

    name = "webmainbench-sample"
    suite_id = "webmainbench-sample"
    suite_name = "WebMainBench GitHub samples (imported)"
    description = (
        "Imported from the WebMainBench samples, https://github.com/opendatalab/WebMainBench at commit "
        "9d991bdc00c57b57521499494d96be85c31317ba (data/WebMainBench_dataset_sample2.jsonl, "
        "data/sample_dataset.jsonl), Apache-2.0 licence; page HTML is copyright of the original sites. "
        "References are the human-annotated groundtruth_content (Markdown, reduced to text). Imported as-is and "
        "not reviewed: no stable groups, no page identity, no title contract."
    )
    notes = [
        "reference = groundtruth_content with Markdown markers removed; llm_* fields are model outputs, never used.",
        "title not scored: the samples have no title field (title_basis not_in_source).",
        "a URL already imported from the other sample file is skipped; list pages (mostly list items) are skipped.",
    ]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row, in order."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """The loader of one JSONL row; files are read once each, URLs already imported are remembered."""
        files: dict[str, list[str]] = {}
        seen_urls: dict[str, str] = {}

        def load(row: IndexRow) -> Page:
            match = _HTML_FILE.match(row.html_file)
            if match is None:
                raise PageError(f"{source / '_index.tsv'}: line {row.line}: html_file {row.html_file!r} is not "
                                "'<file>.jsonl.gz line <n> field \"html\"'")
            path = corpus_file(source, match["file"], what="html_file")
            if match["file"] not in files:
                files[match["file"]] = read_gzip(path).decode("utf-8", errors="strict").splitlines()
            lines = files[match["file"]]
            number = int(match["line"])
            where = f"{path} line {number}"
            if number >= len(lines):
                raise PageError(f"{where}: the file has only {len(lines)} lines")
            record = _json(lines[number], where)
            html, url = record.get("html"), row.url or str(record.get("url") or "")
            if not isinstance(html, str) or not html.strip():
                raise PageError(f"{where}: no 'html' text")
            if not url:
                raise PageError(f"{where}: no URL in the index or the row")
            if url in seen_urls:
                raise SkipPage(f"same URL as the already imported row {seen_urls[url]!r}: one page, one case")
            text = markdown_text(record.get("groundtruth_content"), where=f"{where} groundtruth_content")
            body = reference_lines(text, where=f"{where} groundtruth_content")
            items = sum(1 for line in record["groundtruth_content"].splitlines() if _LIST_ITEM.match(line))
            if items >= LIST_SHARE * len(body):
                raise SkipPage(f"list page: {items} of {len(body)} reference lines are list items, no single article body")
            seen_urls[url] = row.key
            return Page(
                row=row,
                url=url,
                capture=html.encode("utf-8"),
                capture_file=path,
                reference=body,
                reference_file=path,
                key_tag=key_slug(row.key.split("track_id=", 1)[-1], 8),
                flags=coverage_flags(row),
            )

        return load


def markdown_text(markdown: object, *, where: str) -> str:
    """Markdown reduced to its text lines: fences dropped, line markers, escapes and backticks removed."""
    if not isinstance(markdown, str):
        raise PageError(f"{where}: the reference is {type(markdown).__name__}, not text")
    out = []
    for line in markdown.splitlines():
        if _FENCE.match(line):
            continue
        line = _MARKER.sub("", line).replace("`", "")
        out.append(re.sub(r"\\([\\`*_{}\[\]()#+\-.!|>])", r"\1", line))
    return "\n".join(out)


def _json(line: str, where: str) -> dict:
    try:
        value = json.loads(line)
    except ValueError as exc:
        raise PageError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise PageError(f"{where}: expected a JSON object")
    return value


FORMAT = WebMainBenchFormat()
