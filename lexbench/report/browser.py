"""Pages that need a browser in the reports (issue 28): per provider, the pass rate on the cases marked
``needs_javascript`` beside the rest, and the requests it made that the replayed archives did not hold
(``unrecorded_requests`` of each row, :mod:`lexbench.replay`), and how each answered the ``file`` and
``resources`` deliveries (SPEC §2: passed / scored, and the items it had no route for). Pure: rows in, plain
data and text out.

``report.json`` has a ``browser`` object only when some row comes from a case that declares a retrieval or
is replayed from a web archive; ``report.md`` and ``report.html`` show the tables only then, so the
reports of other runs keep their bytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from lexbench.run.record import RunRow
from lexbench.verdict import Outcome

TOP_UNRECORDED = 3
"""How many of a provider's most requested unrecorded paths the reports name."""


def _cell(rows: list[RunRow]) -> dict[str, Any]:
    scored = [r for r in rows if r.outcome is not Outcome.UNRESOLVABLE]
    passed = sum(r.outcome is Outcome.PASS for r in scored)
    return {"pass": passed, "scored": len(scored), "pass_rate": round(passed / len(scored), 4) if scored else None}


def browser_figures(rows: Iterable[RunRow], providers: Sequence[str]) -> dict[str, Any] | None:
    """``report.json``'s ``browser``, or ``None`` when no row is of a dynamic or archive-replayed case::

        {"needs_javascript": [{"provider": "trafilatura", "cases": 18, "needs_javascript": {"pass": 2,
             "scored": 18, "pass_rate": 0.1111}, "rest": {"pass": 5, "scored": 6, "pass_rate": 0.8333}}],
         "unrecorded_requests": [{"provider": "jsdom", "items": 24, "requests": 7, "items_with_requests": 3,
             "top": [["favicon.ico", 5], ...]}]}

    Either list is ``None`` when no row carries its figure (no case declares a retrieval; no case is
    replayed from an archive). ``items`` counts a provider's rows of archive-replayed cases (providers that fetch nothing have none);
    ``requests`` the unrecorded requests over them; ``top`` the most frequent paths (at most
    :data:`TOP_UNRECORDED`, ties by path).
    A third list, ``deliveries``, is there only when some row is of a ``file`` or ``resources`` case:
    ``[{"provider": "jsdom", "file": {"pass": 0, "scored": 0, "pass_rate": None}, "resources": {...},
    "unsupported": 3}]`` (``unsupported``: items refused as ``unsupported_delivery``, unresolvable).
    """
    rows = list(rows)
    if not any(r.needs_javascript is not None or r.unrecorded_requests is not None or r.delivery for r in rows):
        return None
    by_provider: dict[str, list[RunRow]] = {p: [r for r in rows if r.provider == p] for p in providers}
    needs = []
    for provider, own in by_provider.items():
        needing = [r for r in own if r.needs_javascript]
        needs.append({"provider": provider, "cases": len({r.case for r in needing}),
                      "needs_javascript": _cell(needing), "rest": _cell([r for r in own if not r.needs_javascript])})
    unrecorded = []
    for provider, own in by_provider.items():
        replayed = [r for r in own if r.unrecorded_requests is not None]
        paths = Counter(p for r in replayed for p in r.unrecorded_requests or [])
        unrecorded.append({"provider": provider, "items": len(replayed), "requests": sum(paths.values()),
                           "items_with_requests": sum(bool(r.unrecorded_requests) for r in replayed),
                           "top": [[p, n] for p, n in sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_UNRECORDED]]})
    figures = {"needs_javascript": needs if any(r.needs_javascript is not None for r in rows) else None,
               "unrecorded_requests": unrecorded if any(r.unrecorded_requests is not None for r in rows) else None}
    if any(r.delivery for r in rows):
        figures["deliveries"] = [
            {"provider": provider, **{d: _cell([r for r in own if r.delivery == d]) for d in ("file", "resources")},
             "unsupported": sum(r.failure_class == "unsupported_delivery" for r in own)}
            for provider, own in by_provider.items()]
    return figures


NEEDS_JAVASCRIPT_INTRO = ("Pass rate on the cases whose static shell fails their contracts (needs_javascript: a "
                          "page only a browser can build) beside the other cases.")
DELIVERIES_INTRO = ("Cases answered by a document's bytes (file: the sha256 must match) or by the page's owned "
                    "resource URLs after DOM completion (resources: recall against the floor). A provider with no "
                    "route for a delivery is unresolvable on it (unsupported delivery), never failed.")
UNRECORDED_INTRO = ("Requests under a replayed case that its web archive does not hold (each answered 404): what a "
                    "provider asked for that the page's own first load never needed. Counted over the items of "
                    "archive-replayed cases; providers that fetch nothing have none.")


def share_text(cell: dict[str, Any]) -> str:
    """``50.0 % (3/6)``, or ``–`` when nothing was scored."""
    if not cell["scored"]:
        return "–"
    return f"{cell['pass_rate'] * 100:.1f} % ({cell['pass']}/{cell['scored']})"


def top_text(top: list[list[Any]]) -> str:
    """The most requested unrecorded paths, ``favicon.ico × 5, print.css × 1`` (``–`` for none)."""
    return ", ".join(f"{path or '(the page)'} × {count}" for path, count in top) or "–"


Table = tuple[str, str, list[str], list[bool], list[list[str]]]
"""``(heading, intro, column heads, which columns are figures, rows of cell text)``."""


def browser_tables(report: dict[str, Any]) -> list[Table]:
    """The tables of the report's ``browser`` object (:data:`Table`; none without one), for the Markdown
    and HTML renderers to format."""
    figures = report.get("browser") or {}
    tables: list[Table] = []
    if figures.get("needs_javascript"):
        tables.append(("Needs JavaScript", NEEDS_JAVASCRIPT_INTRO, ["provider", "needs JavaScript", "the rest"],
                       [False, True, True],
                       [[e["provider"], share_text(e["needs_javascript"]), share_text(e["rest"])]
                        for e in figures["needs_javascript"]]))
    if figures.get("unrecorded_requests"):
        tables.append(("Unrecorded requests", UNRECORDED_INTRO,
                       ["provider", "items", "unrecorded requests", "items with any", "most requested"],
                       [False, True, True, True, False],
                       [[e["provider"], str(e["items"]), str(e["requests"]), str(e["items_with_requests"]),
                         top_text(e["top"])] for e in figures["unrecorded_requests"]]))
    if figures.get("deliveries"):
        tables.append(("Deliveries", DELIVERIES_INTRO, ["provider", "file", "resources", "unsupported delivery"],
                       [False, True, True, True],
                       [[e["provider"], share_text(e["file"]), share_text(e["resources"]), str(e["unsupported"])]
                        for e in figures["deliveries"]]))
    return tables
