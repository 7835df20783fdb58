"""Temporary pytest projects for the harness benchmarks: a synthetic suite of any size, the lexbench
plugin with the benchmark provider types, and a plain parametrized project to compare with."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

from lexbench.dataset.cohort import initial_cohort
from lexbench.dataset.compile import bind_reference, dump_json, load_rules, sha256_bytes
from lexbench.dataset.suite import build_suite

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><nav><a href="/">Home</a> <a href="/world">World news</a></nav>
<main><article><h1>{title}</h1>
{paragraphs}
</article></main><footer>About the Bench Times</footer></body></html>
"""
_WORDS = ("harbour council turbines tide engineers pier lights dusk winter demand orchard volunteers apple "
          "grafting season river bridge library archive station market festival weather coast ferry").split()


def _paragraph(case: int, index: int, words: int) -> str:
    # Deterministic, distinct text per case, so fragments differ between cases.
    picked = [_WORDS[(case * 7 + index * 13 + k * 5) % len(_WORDS)] for k in range(words)]
    return f"Case {case} paragraph {index}: " + " ".join(picked) + "."


def write_synthetic_suite(root: Path, cases: int, *, paragraphs: int = 12, words: int = 30,
                          suite_id: str = "bench") -> Path:
    """Write and compile a reviewed suite of ``cases`` synthetic article cases under ``root`` (any count:
    ids are ``article-b<k>-<nnn>-en-c<i>``). Each reference has ``paragraphs`` paragraphs of about
    ``words`` words; every case has a stable group and a page-identity pattern, like the demo suite."""
    if root.exists():
        shutil.rmtree(root)
    captures = root / "evidence" / "captures"
    references = root / "evidence" / "references"
    captures.mkdir(parents=True)
    references.mkdir(parents=True)
    rules_cases = []
    for number in range(cases):
        case_id = f"article-b{number // 1000}-{number % 1000:03d}-en-c{number}"
        title = f"Bench story {number} on the harbour"
        texts = [_paragraph(number, i, words) for i in range(paragraphs)]
        page = _PAGE.format(title=title, paragraphs="\n".join(f"<p>{t}</p>" for t in texts)).encode("utf-8")
        (captures / f"{case_id}.html").write_bytes(page)
        reference = "\n".join(texts)
        (references / f"{case_id}.txt").write_bytes(reference.encode("utf-8"))
        half = max(1, paragraphs // 2)
        rules_cases.append({
            "id": case_id, "name": title, "url": f"https://bench.example/{number}",
            "category": "article", "track": "body", "task_prompt": "Return the readable content of this page.",
            "kind": "fixed_article", "delivery": "text", "lang": "en",
            "capture": {"path": f"captures/{case_id}.html", "sha256": sha256_bytes(page),
                        "content_type": "text/html; charset=utf-8"},
            "title": title, "title_basis": "observed",
            "body": {"contract_version": 4, "segmentation_version": 3,
                     "reference": json.loads(bind_reference(reference, f"references/{case_id}.txt").model_dump_json()),
                     "reference_scope": {"kind": "complete", "end": texts[-1]},
                     "regions": [{"label": "opening", "first_line": 1, "last_line": half},
                                 {"label": "rest", "first_line": half + 1, "last_line": paragraphs}]},
            "stable_text_review_defaults": {"basis": "site chrome on every page", "observed": "2026-11-29"},
            "stable_groups": [{"id": "nav", "region": "navigation", "phrases": ["World news"],
                               "location": "site header"}],
            "page_identity": ["Bench story"],
        })
    rules = {"suite": {"id": suite_id, "revision": 1, "name": "synthetic benchmark suite"}, "cases": rules_cases}
    (root / "rules.json").write_bytes(dump_json(rules))
    cohort = initial_cohort(load_rules(root / "rules.json"), on=date(2026, 11, 29), summary="benchmark suite")
    (root / "cohort.json").write_bytes(dump_json(cohort.model_dump(mode="json", exclude_none=True)))
    build_suite(root)
    return root


def write_bench_project(root: Path, providers: dict[str, dict]) -> Path:
    """A project directory like a user's checkout: ``cases/``, the lexbench plugin, the benchmark provider
    types (``benchmarks.bench_providers``) and ``providers.json`` naming ``providers`` = {name: spec}
    (spec: ``type`` and optional ``options``), all selected by default. Returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    (root / "conftest.py").write_text(
        "import benchmarks.bench_providers  # registers the benchmark provider types in every process\n")
    config = {
        "schema_version": 1,
        "default_providers": list(providers),
        "providers": [{"name": name, **spec} for name, spec in providers.items()],
    }
    (root / "providers.json").write_text(json.dumps(config, indent=2))
    return root


def write_plain_project(root: Path, items: int) -> Path:
    """A project with one parametrized test that does nothing, ``items`` times."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (root / "test_plain.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('index', range({items}))\n"
        "def test_nothing(index):\n    pass\n")
    return root
