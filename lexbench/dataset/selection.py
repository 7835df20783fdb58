"""Choosing a reviewed suite's candidates before any provider runs (SPEC §4; seed: cohort history).

The ``articles`` suite draws its candidates from the corpus by a rule fixed in advance, never by how
providers score a page. Each :class:`Stratum` is one source, kind and language group with a quota;
its eligible pages (:func:`eligible`: a URL, static visible text covering the reference, a body of
reviewable length) are ordered by ``sha256("<source>\\n<page key>")`` and the first ``quota`` become
candidates. The rest of the order is the stratum's reserve list: a candidate the review cannot use is
replaced by the next reserve of its stratum through a decision recorded in ``cohort.json``.

:func:`select` is pure over the rows of the corpus's ``_index.tsv`` files, so anyone holding the corpus
can recompute the cohort (``tests/dataset/test_articles_cohort.py`` does).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lexbench.dataset.importers.common import IndexRow

ANY_OTHER = "other"
"""A stratum language that takes every language not named by a sibling stratum of its source and kind."""


@dataclass(frozen=True)
class Stratum:
    """One source × kind × language group and how many candidates it contributes.

    ``source`` is the corpus folder; ``kind`` the prefix of the index's ``kind`` column the pages must
    have; ``langs`` the ``lang_guess`` values taken (:data:`ANY_OTHER`: all not taken by a sibling);
    ``min_chars``/``max_chars`` bound ``ref_body_chars`` where the source has a full body reference."""

    source: str
    kind: str
    langs: tuple[str, ...]
    quota: int
    min_chars: int | None = None
    max_chars: int | None = None

    @property
    def name(self) -> str:
        """``<source>/<kind>/<langs>``, e.g. ``magic-html-bench/article/zh``."""
        return f"{self.source}/{self.kind}/{'+'.join(self.langs)}"


# Quotas add up to the suite's 100 cases with the 12 carried dragnet pages of reviews/comments-real
# (issue 17): ≥ 90 fixed articles, ≥ 5 post collections, ≥ 20 comment contracts, ≥ 25 not English
# (≥ 8 Chinese or Japanese), ≥ 4 sources. Body bounds keep pages readable in one review sitting.
STRATA: tuple[Stratum, ...] = (
    Stratum("dragnet", "article+comments", ("en",), 12, 800, 12000),
    Stratum("scrapinghub-aeb", "article", ("en",), 18, 800, 12000),
    Stratum("scrapinghub-aeb", "article", (ANY_OTHER,), 6, 400, 12000),
    Stratum("magic-html-bench", "article", ("zh",), 14, 300, 8000),
    Stratum("magic-html-bench", "article", ("ja",), 4, 300, 8000),
    Stratum("magic-html-bench", "article", ("en",), 8, 800, 12000),
    Stratum("magic-html-bench", "article", (ANY_OTHER,), 6, 400, 12000),
    Stratum("magic-html-bench", "forum", ("en", "zh"), 3),
    Stratum("harvest-forums", "forum-thread", ("en", "de"), 3),
    Stratum("trafilatura-eval", "article", ("de",), 5),
    Stratum("trafilatura-eval", "article", ("es",), 3),
    Stratum("trafilatura-eval", "article", ("fr",), 3),
    Stratum("trafilatura-eval", "article", ("pl",), 3),
)
UNCLEAR_LANGS = frozenset({"", "?"})
"""``lang_guess`` values that name no language: never selected, since the case id needs one."""
MIN_COVERAGE = 0.8
"""The corpus README's flag: below it the reference is largely absent from the static visible text."""


@dataclass(frozen=True)
class Pick:
    """One ordered page of a stratum: ``rank`` 0 … quota-1 are candidates, the rest reserves."""

    stratum: str
    source: str
    key: str
    url: str
    lang: str
    rank: int
    order_key: str

    @property
    def candidate(self) -> bool:
        """Whether the page is one of its stratum's candidates (else a reserve)."""
        return self.rank < _QUOTAS[self.stratum]


_QUOTAS = {stratum.name: stratum.quota for stratum in STRATA}


def order_key(source: str, key: str) -> str:
    """The page's place in its stratum: ``sha256("<source>\\n<key>")`` as hex (SPEC §4)."""
    return hashlib.sha256(f"{source}\n{key}".encode()).hexdigest()


def _chars(row: IndexRow) -> int | None:
    value = row.extra.get("ref_body_chars", "")
    return int(value) if value.isdigit() else None


def eligible(stratum: Stratum, row: IndexRow, taken_langs: frozenset[str]) -> bool:
    """Whether ``row`` may be drawn into ``stratum``: the kind, the language group, a URL, coverage
    ≥ :data:`MIN_COVERAGE` and, where bounded, a reference body length within bounds."""
    if not row.kind.startswith(stratum.kind) or not row.url or row.lang_guess in UNCLEAR_LANGS:
        return False
    if stratum.langs == (ANY_OTHER,):
        if row.lang_guess in taken_langs:
            return False
    elif row.lang_guess not in stratum.langs:
        return False
    try:
        if float(row.coverage) < MIN_COVERAGE:
            return False
    except ValueError:
        return False
    chars = _chars(row)
    if stratum.min_chars is not None and (chars is None or chars < stratum.min_chars):
        return False
    return not (stratum.max_chars is not None and (chars is None or chars > stratum.max_chars))


def select(index: Mapping[str, Sequence[IndexRow]], *, exclude: Mapping[str, set[str]] | None = None) -> list[Pick]:
    """Every stratum's ordered eligible pages (candidates first, then reserves), strata in :data:`STRATA` order.

    ``index`` maps a corpus folder to its ``_index.tsv`` rows; ``exclude`` maps a folder to page keys
    already in the suite by another route (the carried comment pages). A page is drawn into at most one
    stratum. Raises ``ValueError`` when a stratum has fewer eligible pages than its quota."""
    exclude = exclude or {}
    picks: list[Pick] = []
    used: set[tuple[str, str]] = set()
    for stratum in STRATA:
        siblings = frozenset(
            lang for other in STRATA if other.source == stratum.source and other.kind == stratum.kind
            for lang in other.langs if lang != ANY_OTHER
        )
        rows = [
            row for row in index.get(stratum.source, ())
            if (stratum.source, row.key) not in used and row.key not in exclude.get(stratum.source, set())
            and eligible(stratum, row, siblings)
        ]
        if len(rows) < stratum.quota:
            raise ValueError(f"stratum {stratum.name}: {len(rows)} eligible pages for a quota of {stratum.quota}")
        rows.sort(key=lambda row: order_key(stratum.source, row.key))
        for rank, row in enumerate(rows):
            used.add((stratum.source, row.key))
            picks.append(Pick(stratum=stratum.name, source=stratum.source, key=row.key, url=row.url,
                              lang=row.lang_guess, rank=rank, order_key=order_key(stratum.source, row.key)))
    return picks
