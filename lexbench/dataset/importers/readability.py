"""``mozilla-readability``: Mozilla Readability.js test pages, real pages only (SPEC §4).

Layout: ``_index.tsv``, ``test-pages/<name>/{source.html.gz, expected.html.gz, expected-metadata.json}``.
The reference is ``expected.html`` (an HTML fragment) turned into text, one line per block element.
That reference is **Readability.js's own output**, not an independent gold standard, and the same
holds for its ``title``; the suite description and the import report say so. Pages without a URL in
the index get ``https://fakehost.invalid/<name>`` and the flag ``url_unknown``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lexbench.dataset.importers.common import (
    IndexRow,
    Page,
    PageError,
    corpus_file,
    coverage_flags,
    key_slug,
    read_corpus_file,
    read_gzip,
    read_index,
    require_article,
)
from lexbench.dataset.importers.html_text import html_lines

FAKE_HOST = "https://fakehost.invalid/"


class ReadabilityFormat:
    """Importer for a ``mozilla-readability`` corpus folder."""

    name = "mozilla-readability"
    suite_id = "readability"
    suite_name = "Mozilla Readability.js test pages (imported)"
    description = (
        "Imported from the Mozilla Readability.js test pages (real pages only), "
        "https://github.com/mozilla/readability at commit ab4027a8b37669745016869a37a504727992b2ba, "
        "Apache-2.0 licence; page HTML is copyright of the original sites. References are Readability.js's "
        "own output (expected.html), NOT an independent gold standard: they favour Readability-derived "
        "providers. Imported as-is and not reviewed: no stable groups, no page identity, no title contract."
    )
    notes = [
        "references are Readability.js's own output (expected.html), not an independent gold standard; "
        "they favour Readability-derived providers.",
        "title not scored: expected-metadata.json's title is also Readability's own output, so it is not an "
        "independently observed title (title_basis not_in_source).",
        "the source stores no original URLs: URLs come from canonical/og:url where the index has them, "
        "otherwise https://fakehost.invalid/<name> with the flag url_unknown.",
    ]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row, in order."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """Nothing is shared between pages; the loader reads each page's own folder."""

        def load(row: IndexRow) -> Page:
            require_article(row)
            capture_file = corpus_file(source, row.html_file, what="html_file")
            page_dir = capture_file.parent
            expected = page_dir / "expected.html.gz"
            data = read_gzip(expected)
            try:
                html = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise PageError(f"{expected}: the reference is not valid UTF-8 text ({exc})") from None
            lines = html_lines(html)
            if not lines:
                raise PageError(f"{expected}: the reference body is empty")
            capture = read_gzip(capture_file)
            flags = coverage_flags(row)
            url = row.url
            if not url:
                url = FAKE_HOST + row.key
                flags.append("url_unknown")
            if _metadata(page_dir / "expected-metadata.json").get("readerable") is False:
                flags.append("readability_not_readerable")
            return Page(
                row=row,
                url=url,
                capture=capture,
                capture_file=capture_file,
                reference=lines,
                reference_file=expected,
                key_tag=key_slug(row.key, 24),
                flags=flags,
            )

        return load


def _metadata(path: Path) -> dict[str, object]:
    # Optional: only the readerable flag is read from it; a missing or broken file is not fatal.
    try:
        value = json.loads(read_corpus_file(path).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


FORMAT = ReadabilityFormat()
