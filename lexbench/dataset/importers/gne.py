"""``gne-zh-lists``: GeneralNewsExtractor's Chinese list and forum-list pages, HTML only (SPEC §4).

Layout: ``_index.tsv`` and ``test_list_page/<site>/<n>.html.gz``. The source gives **no reference and
no URL**: the pages are list/feed-shaped inputs. No contract can be scored honestly on them: a body
needs a reference, a title needs an independent observation, a posts or site-labels contract needs
reviewed records or labels, and ``<title>`` is never a reference. So every page is skipped with that
reason and the import reports it (and, importing nothing, stops with the reasons). A reviewer who
reads the captures may later author ``site_labels`` cases from them by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lexbench.dataset.importers.common import IndexRow, Page, SkipPage, corpus_file, read_gzip, read_index

NO_CONTRACT = (
    "list page without reference or URL (source gives HTML only): no title, body, posts or labels contract "
    "can be scored honestly; author it by review if needed"
)


class GneListsFormat:
    """Importer for a ``gne-zh-lists`` corpus folder: every page skipped with the reason."""

    name = "gne-zh-lists"
    suite_id = "gne-zh-lists"
    suite_name = "GeneralNewsExtractor Chinese list pages (not importable without review)"
    description = (
        "GeneralNewsExtractor test_list_page, https://github.com/GeneralNewsExtractor/GeneralNewsExtractor at "
        "commit 3d5a67c65f4d6c8e13c3047754a4c18fc0b0754a, GPL-3.0; HTML only, no reference and no URL."
    )
    notes = ["every page is skipped: " + NO_CONTRACT + "."]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row, in order."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """The loader checks the capture is readable, then skips the page with the reason."""

        def load(row: IndexRow) -> Page:
            read_gzip(corpus_file(source, row.html_file, what="html_file"))  # a broken file is still an error
            raise SkipPage(NO_CONTRACT)

        return load


FORMAT = GneListsFormat()
