"""The articles cohort is drawn by a rule fixed before any provider runs (SPEC §4, lexbench.dataset.selection)."""

from __future__ import annotations

import hashlib

import pytest

from lexbench.dataset import selection
from lexbench.dataset.importers.common import IndexRow
from lexbench.dataset.selection import ANY_OTHER, Stratum, order_key, select


def row(key: str, lang: str, *, kind: str = "article", chars: int = 2000, coverage: str = "1.00", url: str = "https://x/") -> IndexRow:
    return IndexRow(line=1, key=key, html_file=f"{key}.html.gz", url=url, lang=lang, lang_guess=lang, html_title="",
                    coverage=coverage, kind=kind, extra={"ref_body_chars": str(chars)})


@pytest.fixture
def strata(monkeypatch: pytest.MonkeyPatch) -> tuple[Stratum, ...]:
    table = (
        Stratum("src", "article", ("en",), 2, 500, 5000),
        Stratum("src", "article", (ANY_OTHER,), 1, 500, 5000),
    )
    monkeypatch.setattr(selection, "STRATA", table)
    monkeypatch.setattr(selection, "_QUOTAS", {s.name: s.quota for s in table})
    return table


def test_the_order_is_the_sha256_of_source_and_key() -> None:
    assert order_key("dragnet", "R1000") == hashlib.sha256(b"dragnet\nR1000").hexdigest()


def test_candidates_are_the_first_by_order_and_the_rest_are_reserves_in_order(strata: tuple[Stratum, ...]) -> None:
    rows = [row(f"p{i}", "en") for i in range(6)] + [row("q1", "de"), row("q2", "pt")]
    picks = select({"src": rows})
    english = [p for p in picks if p.stratum == "src/article/en"]
    assert [p.key for p in english] == sorted((r.key for r in rows[:6]), key=lambda k: order_key("src", k))
    assert [p.candidate for p in english] == [True, True, False, False, False, False]
    other = [p for p in picks if p.stratum == "src/article/other"]
    assert {p.key for p in other} == {"q1", "q2"} and sum(p.candidate for p in other) == 1


def test_the_selection_does_not_depend_on_row_order(strata: tuple[Stratum, ...]) -> None:
    rows = [row(f"p{i}", "en") for i in range(6)] + [row("q1", "de")]
    assert select({"src": rows}) == select({"src": list(reversed(rows))})


def test_ineligible_pages_are_never_drawn(strata: tuple[Stratum, ...]) -> None:
    rows = [row("ok1", "en"), row("ok2", "en"), row("ok3", "de"),
            row("short", "en", chars=100), row("long", "en", chars=90000), row("js-only", "en", coverage="0.40"),
            row("no-url", "en", url=""), row("unclear", "?"), row("list", "en", kind="list")]
    assert {p.key for p in select({"src": rows})} == {"ok1", "ok2", "ok3"}


def test_excluded_pages_and_pages_of_an_earlier_stratum_are_not_drawn_again(strata: tuple[Stratum, ...]) -> None:
    rows = [row(f"p{i}", "en") for i in range(4)] + [row("q1", "de")]
    picks = select({"src": rows}, exclude={"src": {"p0"}})
    assert "p0" not in {p.key for p in picks}
    assert len({(p.source, p.key) for p in picks}) == len(picks)


def test_a_stratum_short_of_its_quota_is_an_error_naming_it(strata: tuple[Stratum, ...]) -> None:
    with pytest.raises(ValueError, match=r"stratum src/article/en: 1 eligible pages for a quota of 2"):
        select({"src": [row("p0", "en"), row("q1", "de")]})


def test_the_real_quotas_make_the_issue_composition() -> None:
    quotas = {s.name: s.quota for s in selection.STRATA}
    carried = 12  # the reviewed dragnet comment pages folded in from reviews/comments-real
    assert sum(quotas.values()) + carried == 100
    posts = sum(q for name, q in quotas.items() if "/forum" in name)
    assert posts >= 5 and sum(quotas.values()) + carried - posts >= 90
    assert len({s.source for s in selection.STRATA}) >= 4
