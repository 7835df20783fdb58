"""The composition of the reviewed ``articles`` suite, counted over ``cases/articles/rules.json`` and
``sources.json`` (issue 17 items 3 and "done when"; seed ``articles-suite-authoring.txt``; REVIEW.md).

Everything here but the last test needs no corpus.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from lexbench.dataset.case import CaseKind, ReviewStatus
from lexbench.dataset.compile import load_rules
from lexbench.dataset.evidence import UPSTREAM, upstream_path
from lexbench.dataset.segment import MAX_REGIONS, auto_regions
from lexbench.dataset.suite import load_suite
from tests.dataset.articles_evidence import ARTICLES

RULES = load_rules(ARTICLES / "rules.json")
SOURCES = json.loads((ARTICLES / "sources.json").read_text(encoding="utf-8"))

MECHANICAL_LABEL = re.compile(r"^\s*part\s+\d+\s*\(\s*lines?\s+\d+(\s*-\s*\d+)?\s*\)\s*$", re.IGNORECASE)
"""The label ``auto_regions`` gives ("part 2 (lines 5-9)"): a cut by size, not a reviewed chapter."""
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def language(lang: str) -> str:
    """The primary language subtag, lowercased: ``zh-CN`` → ``zh``."""
    return lang.split("-")[0].split("_")[0].lower()


# --- the counts (issue 17, item 3) -------------------------------------------------------------------


def test_the_suite_has_the_composition_the_issue_sets():
    cases = RULES.cases
    languages = [language(rule.lang) for rule in cases]
    counts = {
        "cases": len(cases),
        "fixed articles": sum(rule.kind is CaseKind.FIXED_ARTICLE for rule in cases),
        "post collections": sum(rule.kind is CaseKind.POST_COLLECTION for rule in cases),
        "comment contracts": sum(rule.comments is not None for rule in cases),
        "not English": sum(lang != "en" for lang in languages),
        "Chinese or Japanese": sum(lang in ("zh", "ja") for lang in languages),
        "sources": len({SOURCES["cases"][rule.id]["source"] for rule in cases}),
    }
    wanted = {"cases": (100, 100), "fixed articles": (90, None), "post collections": (5, None),
              "comment contracts": (20, None), "not English": (25, None), "Chinese or Japanese": (8, None),
              "sources": (4, None)}
    short = [f"{name}: {counts[name]}, wanted {'exactly ' + str(low) if high else 'at least ' + str(low)}"
             for name, (low, high) in wanted.items()
             if counts[name] < low or (high is not None and counts[name] > high)]
    assert short == [], f"composition {counts} (languages {dict(Counter(languages))}) misses: " + "; ".join(short)


# --- every case, as reviewed (no corpus needed) --------------------------------------------------------


def test_the_suite_is_reviewed_revision_5():
    assert (RULES.suite.id, RULES.suite.revision, RULES.suite.review_status) == ("articles", 5, ReviewStatus.REVIEWED)


def test_every_left_out_or_kept_reference_line_has_a_reason_the_review_knows():
    """Revision 2 (issue 29): the reference is the source's text minus the review's exclusions, each with
    its reason; a listed line the review keeps says why."""
    from lexbench.dataset.importers.reviewed import EXCLUSION_REASONS, KEEP_REASONS

    sources = json.loads((ARTICLES / "sources.json").read_text(encoding="utf-8"))["cases"]
    reasons = [(case_id, item["reason"]) for case_id, entry in sources.items()
               for item in ((entry.get("reference") or {}).get("exclude") or [])]
    keeps = [(case_id, item["reason"]) for case_id, entry in sources.items()
             for item in ((entry.get("reference") or {}).get("keep") or [])]
    assert reasons and keeps
    assert [r for r in reasons if r[1] not in EXCLUSION_REASONS] == [] and [k for k in keeps if k[1] not in KEEP_REASONS] == []


def test_every_body_has_at_most_five_regions_with_readable_labels():
    problems = []
    for rule in RULES.cases:
        if rule.body is None:
            continue
        if len(rule.body.regions) > MAX_REGIONS:
            problems.append(f"{rule.id}: {len(rule.body.regions)} regions")
        for region in rule.body.regions:
            if MECHANICAL_LABEL.match(region.label) or sum(ch.isalpha() for ch in region.label) < 3:
                problems.append(f"{rule.id}: region label {region.label!r} is not a reader's name for a chapter")
    assert problems == []


def test_every_fixed_article_has_two_stable_groups_and_its_identity():
    problems = [f"{rule.id}: {len(rule.stable_groups)} stable group(s), {len(rule.page_identity)} identity pattern(s)"
                for rule in RULES.cases
                if rule.kind is CaseKind.FIXED_ARTICLE and (len(rule.stable_groups) < 2 or not rule.page_identity)]
    assert problems == []


def test_sources_bind_every_case_to_pinned_upstream_files():
    assert SOURCES["schema_version"] == 1 and SOURCES["evidence_home"] == "../shared/corpus"
    for name, upstream in SOURCES["upstream"].items():
        assert upstream == UPSTREAM[name], name  # the repository and commit the corpus README names
    assert list(SOURCES["cases"]) == [rule.id for rule in RULES.cases]
    for rule in RULES.cases:
        entry = SOURCES["cases"][rule.id]
        assert entry["source"] in SOURCES["upstream"], rule.id
        assert entry["key"], rule.id
        for path, binding in entry["files"].items():
            assert path.split("/", 1)[0] == entry["source"], (rule.id, path)
            assert SHA256.match(binding["sha256"]), (rule.id, path)
            folders = ("eval", "cache") if path.startswith("trafilatura-eval/html/") else (None,)
            assert binding["upstream"] in [upstream_path(path, folder=f) for f in folders], (rule.id, path)
        assert entry["capture"]["file"] in entry["files"], rule.id
        assert rule.capture.path == f"captures/{rule.id}.html", rule.id
        reference = entry["reference"]
        assert (reference is None) == (rule.body is None), rule.id
        if reference is not None:
            assert reference.get("from") == "capture" or reference["file"] in entry["files"], rule.id
            assert rule.body.reference.path == f"references/{rule.id}.txt", rule.id


# --- regions against the reference (needs the evidence) ----------------------------------------------------


def test_no_region_set_is_the_mechanical_equal_cut(articles_input_dir):
    """A reviewed region set is read, not computed: no case with two or more regions may have exactly the
    boundaries :func:`auto_regions` cuts from its reference (one region spanning the whole body is no cut)."""
    suite = load_suite(str(articles_input_dir))
    mechanical = []
    for case in suite.cases:
        if case.body is None or len(case.body.regions) < 2:
            continue
        cut = [(r.first_line, r.last_line) for r in auto_regions(case.reference_text.split("\n"))]
        if [(r.first_line, r.last_line) for r in case.body.regions] == cut:
            mechanical.append(f"{case.id}: {cut}")
    assert mechanical == []
