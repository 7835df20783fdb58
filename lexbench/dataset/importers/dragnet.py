"""``dragnet``: the Moz Dragnet content+comments gold standard, pages with reader comments (SPEC §4).

Layout: ``_index.tsv``, ``HTML/<stem>.html.gz``, ``Corrected/<stem>.html.corrected.txt``. A reference
file holds the article text, then a line with the literal delimiter ``!@#$%^&*()  COMMENTS``, then the
comment text (plain text, no per-comment author or boundary). The body reference is the part before
the delimiter. The comment part is kept only as a probe: the case is flagged ``reference_has_comments``
and the suite's ``probes.json`` holds ``{"<case id>": {"comments": {"chars": N, "text": str}}}`` (N =
characters with whitespace collapsed), so that a later review can write a comments v2 contract from the
capture; no comment contract is invented from text that has no per-comment records.

The source stores no URL: the index's recovered canonical/og:url is used, else
``https://dragnet.invalid/<stem>`` with the flag ``url_unknown``. A few references are cp1252, not
UTF-8; they are decoded as cp1252 and flagged ``reference_cp1252``.
"""

from __future__ import annotations

import re
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
    reference_lines,
)

COMMENTS_DELIMITER = re.compile(r"^!+@#\$%\^&\*\(\)[ \t]+COMMENTS[ \t\r]*$", re.MULTILINE)
"""The delimiter line; a few files double its ``!`` or end it with ``\\r``."""
FAKE_HOST = "https://dragnet.invalid/"
KIND = "article+comments"


class DragnetFormat:
    """Importer for a ``dragnet`` corpus folder (article body; comments kept as a flagged probe)."""

    name = "dragnet"
    suite_id = "dragnet"
    suite_name = "Moz Dragnet content+comments gold standard (imported)"
    description = (
        "Imported from the Moz Dragnet gold standard, references from https://github.com/seomoz/dragnet_data at "
        "commit 95559bee8812387d8e2cca2e8090004319ab9602 (Corrected/), HTML from the mirror "
        "https://github.com/j-szulc/html-cleaning-dataset-merged at commit 46e01a04b47051838a228bf23631430b2c9de375; "
        "data licence AGPL-3.0; page HTML is copyright of the original sites. References were copied by humans "
        "from each page with JavaScript disabled (2012 crawl). The body reference is the article part before the "
        "comments delimiter. Imported as-is and not reviewed: no stable groups, no page identity, no title "
        "contract, no comment contract (the comment text has no per-comment author or boundary)."
    )
    notes = [
        "body reference = the text before the '!@#$%^&*()  COMMENTS' delimiter line.",
        "comments not scored: the comment part is plain text without per-comment authors or boundaries, so no "
        "comments v2 contract is invented; each case is flagged reference_has_comments and its comment text "
        "and size are kept in probes.json for a later review.",
        "title not scored: the source has no title field (title_basis not_in_source).",
        "the source stores no URLs: the index's canonical/og:url where recovered, otherwise "
        "https://dragnet.invalid/<stem> with the flag url_unknown.",
        "references that are not UTF-8 are decoded as cp1252 and flagged reference_cp1252.",
    ]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row, in order."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """Nothing is shared between pages; the loader reads each page's HTML and corrected text."""

        def load(row: IndexRow) -> Page:
            capture_file = corpus_file(source, row.html_file, what="html_file")
            reference_file = source / "Corrected" / f"{row.key}.html.corrected.txt"
            flags = coverage_flags(row)
            text, cp1252 = _read_text(reference_file)
            if cp1252:
                flags.append("reference_cp1252")
            body, comments = split_comments(text)
            lines = reference_lines(body, where=f"{reference_file} (before the comments delimiter)")
            comment_text = "\n".join(line.strip() for line in comments.strip().splitlines() if line.strip())
            comment_chars = len(" ".join(comment_text.split()))
            probe = {}
            if comment_chars:
                flags.append("reference_has_comments")
                probe = {"comments": {"chars": comment_chars, "text": comment_text}}
            url = row.url
            if not url:
                url = FAKE_HOST + row.key
                flags.append("url_unknown")
            return Page(
                row=row,
                url=url,
                capture=read_gzip(capture_file),
                capture_file=capture_file,
                reference=lines,
                reference_file=reference_file,
                key_tag=key_slug(row.key, 12),
                flags=flags,
                extra={"probe": probe},
            )

        return load


def split_comments(text: str) -> tuple[str, str]:
    """``(article, comments)``: the text before and after the first delimiter line; comments ``""`` if none."""
    match = COMMENTS_DELIMITER.search(text)
    if match is None:
        return text, ""
    return text[: match.start()], text[match.end() :]


def _read_text(path: Path) -> tuple[str, bool]:
    """The file's text and whether it had to be decoded as cp1252 (a few 2012 files are not UTF-8)."""
    try:
        data = read_corpus_file(path)
    except FileNotFoundError:
        raise PageError(f"{path}: reference file not found (expected beside the index's HTML)") from None
    except OSError as exc:
        raise PageError(f"{path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), True
    except UnicodeDecodeError as exc:
        raise PageError(f"{path}: the reference is neither UTF-8 nor cp1252 text ({exc})") from None


FORMAT = DragnetFormat()
