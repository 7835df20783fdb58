"""Build small, valid suite directories on disk for tests (rules.json, cohort.json, evidence/, dataset.json
and its public bindings)."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

from lexbench.dataset.cohort import initial_cohort
from lexbench.dataset.compile import bind_reference, dump_json, load_rules, sha256_bytes
from lexbench.dataset.endings import choose_ending
from lexbench.dataset.suite import build_suite

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{site} | {title_short}</title>
<style>.x{{color:red}}</style><script>var tracking = "do not count me";</script></head>
<body>
<header><nav><a href="/">Home</a> <a href="/world">World news</a> <a href="/science">Science desk</a></nav></header>
<main><article>
<h1>{title}</h1>
<p class="byline">By Ada Example</p>
{paragraphs}
</article></main>
<aside><h2>Related</h2><a href="/other">Another story entirely</a></aside>
<div style="display:none">Hidden promotional text that must never count</div>
<footer><a href="/about">About {site}</a> <a href="/privacy">Privacy policy</a></footer>
</body></html>
"""


PUBLIC_BASE = "https://tiny-times.lexbench-tests.net"
"""A host that may be a public site (not a reserved name), for ``--live`` runs whose providers are loopback
fakes of hosted services: they are handed the URL and never fetch it."""


def write_suite(root: Path, articles: list[dict], *, suite_id: str = "tiny", registry: Path | None = None,
                url_base: str = "https://tiny.example") -> Path:
    """Write a reviewed suite of fixed articles under ``root`` (rules, cohort, evidence), compile it and
    publish its bindings (and ``registry``'s entry, when given).

    Each article dict has ``slug``, ``title`` and ``paragraphs`` (list of str), and optionally ``probes``
    (``{"with": [...], "without": [...]}``) and ``url`` (default ``<url_base>/<slug>``). Returns ``root``.
    """
    captures = root / "evidence" / "captures"
    references = root / "evidence" / "references"
    captures.mkdir(parents=True)
    references.mkdir(parents=True)
    cases = []
    for index, article in enumerate(articles, start=1):
        case_id = f"article-{index:03d}-en-{article['slug']}"
        paragraphs = article["paragraphs"]
        html = PAGE.format(site="Tiny Times", title=article["title"], title_short=article["title"][:12],
                           paragraphs="\n".join(f"<p>{p}</p>" for p in paragraphs))
        capture_path = f"captures/{case_id}.html"
        (root / "evidence" / capture_path).write_bytes(html.encode("utf-8"))
        reference = "\n".join(paragraphs)
        reference_path = f"references/{case_id}.txt"
        (root / "evidence" / reference_path).write_bytes(reference.encode("utf-8"))
        half = max(1, len(paragraphs) // 2)
        regions = [{"label": "opening", "first_line": 1, "last_line": half}]
        if len(paragraphs) > half:
            regions.append({"label": "rest", "first_line": half + 1, "last_line": len(paragraphs)})
        cases.append({
            "id": case_id, "name": article["title"], "url": article.get("url", f"{url_base}/{article['slug']}"),
            "category": "article", "track": "body", "task_prompt": "Return the readable content of this page.",
            "kind": "fixed_article", "delivery": "text", "lang": "en",
            "capture": {"path": capture_path, "sha256": sha256_bytes(html.encode("utf-8")),
                        "content_type": "text/html; charset=utf-8"},
            "title": article["title"], "title_basis": "observed",
            "body": {"contract_version": 4, "segmentation_version": 3,
                     "reference": json.loads(bind_reference(reference, reference_path).model_dump_json()),
                     "reference_scope": {"kind": "complete", "end": choose_ending(paragraphs).text},
                     "regions": regions},
            "stable_text_review_defaults": {"basis": "site chrome on every page", "observed": "2026-11-29"},
            "stable_groups": [{"id": "nav", "region": "navigation", "phrases": ["World news", "Science desk"],
                               "location": "site header"}],
            "page_identity": [article["title"].split()[0]],
            **({"probes": article["probes"]} if "probes" in article else {}),
        })
    rules = {"suite": {"id": suite_id, "revision": 1, "name": "tiny test suite"}, "cases": cases}
    (root / "rules.json").write_bytes(dump_json(rules))
    cohort = initial_cohort(load_rules(root / "rules.json"), on=date(2026, 11, 29), summary="tiny test suite")
    (root / "cohort.json").write_bytes(dump_json(cohort.model_dump(mode="json", exclude_none=True)))
    build_suite(root, registry=registry)
    return root


ARTICLES = [
    {"slug": "tides", "title": "Tidal turbines light a harbour town",
     "paragraphs": ["The harbour council switched on four tidal turbines on Tuesday morning.",
                    "Engineers said the machines turn with both the rising and the falling tide.",
                    "Residents gathered on the pier to watch the first lights come on at dusk.",
                    "The council expects the turbines to cover most of the town's winter demand."]},
    {"slug": "orchard", "title": "Heritage orchard saved by volunteers",
     "paragraphs": ["A group of volunteers has replanted forty rare apple varieties this spring.",
                    "The orchard had been abandoned for nearly two decades before the project began.",
                    "Grafting workshops will run every Saturday until the end of the season."]},
]


# --- suites of web-archive captures (issue 28) -------------------------------------------------------

PAGES = Path(__file__).parent / "fixtures" / "pages"
"""Hand-written page directories (index.html and relative resources): test fixtures, not suite cases."""

DYNAMIC_PAGES = [
    {"page": "shell-article", "slug": "lanterns", "title": "Lanterns over the harbour", "needs_javascript": True,
     "paragraphs": ["The harbour lights were rewired in the spring, one lantern at a time, by volunteers.",
                    "By midsummer every lantern burned again, and the ferry crews stopped carrying torches."],
     "dom_completion": {"selector": "p.para", "count": 2, "frame": None, "delay_ms": 0, "timeout_ms": 20000}},
    {"page": "framed", "slug": "framed-notes", "title": "Framed notes", "needs_javascript": True,
     "paragraphs": ["Tide tables arrive on Mondays, printed on blue paper, and are pinned beside the harbour office door.",
                    "The lighthouse keeper answers every letter in ink, and she signs each reply with a small drawing "
                    "of a gull."],
     "dom_completion": {"selector": "li.note", "count": 2, "frame": "iframe#notes", "delay_ms": 0,
                        "timeout_ms": 20000}},
    {"page": "static", "slug": "plain-page", "title": "Plain page", "needs_javascript": False,
     "paragraphs": ["Nothing on this page needs a script to appear: the text is in the HTML the server sends, and "
                    "every reader sees it at once."], "dom_completion": None},
]
"""The fixture pages as cases: reference paragraphs are the text each page shows once rendered."""

COPY_BUILD = ["python3", "-c", "import shutil, sys; shutil.copytree('.', sys.argv[1])", "{out}"]
"""A built-site build that copies the page directories as they are (no npm project)."""


def archive_case(case_id: str, page: dict, archive: bytes) -> dict:
    """The rule of one fixture page recorded as ``archive`` (a ``fixed_article`` with one region per
    paragraph, capped at five, and a dynamic retrieval unless the page needs no JavaScript)."""
    paragraphs = page["paragraphs"]
    reference = "\n".join(paragraphs)
    reference_path = f"references/{case_id}.txt"
    retrieval = ({"mode": "dynamic", "needs_javascript": page["needs_javascript"],
                  "dom_completion": page["dom_completion"]} if page["needs_javascript"] else None)
    return {
        "id": case_id, "name": page["title"], "url": f"https://pages.example/{page['slug']}",
        "category": "article", "track": "dynamic", "task_prompt": "Return the readable content of this page.",
        "kind": "fixed_article", "delivery": "text", "lang": "en",
        "capture": {"path": f"captures/{case_id}.warc.gz", "sha256": sha256_bytes(archive)},
        "title": page["title"], "title_basis": "observed",
        "body": {"contract_version": 4, "segmentation_version": 3,
                 "reference": json.loads(bind_reference(reference, reference_path).model_dump_json()),
                 "reference_scope": {"kind": "complete", "end": paragraphs[-1]},
                 "regions": [{"label": f"p{i}", "first_line": i, "last_line": i}
                             for i in range(1, len(paragraphs) + 1)]},
        "stable_text_review_defaults": {"basis": "the page's heading", "observed": "2026-12-03"},
        "stable_groups": [{"id": "heading", "region": "title", "phrases": [page["title"]], "location": "h1"}],
        "page_identity": [re.escape(page["title"].split()[0])],
        **({"retrieval": retrieval} if retrieval else {}),
    }


def write_built_suite(root: Path, pages: list[dict] = DYNAMIC_PAGES, *, suite_id: str = "tiny-dynamic") -> Path:
    """A built-site suite under ``root`` (``sources.json`` of kind ``built_site`` copying :data:`PAGES`),
    its rules binding each page's archive as recorded here (Chromium: slow tests only), its cohort and
    reference bodies. ``lexbench fetch-evidence`` must then record the same bytes. Returns ``root``."""
    from lexbench.dataset.case import DomCompletion
    from lexbench.dataset.recorder import record_page

    shutil.copytree(PAGES, root / "site")
    sources = {"schema_version": 1, "kind": "built_site", "site": "site", "build": COPY_BUILD,
               "recorded": "2026-12-03", "cases": {}}
    cases = []
    for index, page in enumerate(pages, start=1):
        case_id = f"article-{index:03d}-en-{page['slug']}"
        sources["cases"][case_id] = {"page": page["page"]}
        completion = DomCompletion(**page["dom_completion"]) if page["dom_completion"] else None
        archive = record_page(PAGES / page["page"], recorded=date(2026, 12, 3), completion=completion).archive
        cases.append(archive_case(case_id, page, archive))
        (root / "references").mkdir(parents=True, exist_ok=True)
        (root / "references" / f"{case_id}.txt").write_text("\n".join(page["paragraphs"]), encoding="utf-8")
    (root / "sources.json").write_bytes(dump_json(sources))
    rules = {"suite": {"id": suite_id, "revision": 1, "name": "tiny dynamic test suite"}, "cases": cases}
    (root / "rules.json").write_bytes(dump_json(rules))
    cohort = initial_cohort(load_rules(root / "rules.json"), on=date(2026, 12, 3), summary="tiny dynamic test suite")
    (root / "cohort.json").write_bytes(dump_json(cohort.model_dump(mode="json", exclude_none=True)))
    return root
