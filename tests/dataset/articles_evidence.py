"""The ``articles`` suite's external inputs for the tests that need them: the fetched ``.evidence/articles``
when it holds the pinned dataset, else a fresh fetch from ``../shared/corpus`` into a temporary directory;
without either the test is skipped with the reason (SPEC §4; the corpus lives outside git)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.dataset.compile import sha256_bytes
from lexbench.dataset.evidence import default_into, fetch_evidence
from lexbench.dataset.suite import CASES_ROOT

ARTICLES = CASES_ROOT / "articles"
CORPUS = CASES_ROOT.parent.parent / "shared" / "corpus"


def pinned_dataset_sha256() -> str:
    """The sha256 of the dataset ``cases/articles/source-inputs.json`` pins."""
    return json.loads((ARTICLES / "source-inputs.json").read_text(encoding="utf-8"))["files"]["dataset.json"]


def articles_inputs(scratch: Path) -> Path:
    """A verified input directory of ``articles`` (``dataset.json`` + ``evidence/``), or skip."""
    fetched = default_into("articles")
    if (fetched / "dataset.json").is_file() and sha256_bytes((fetched / "dataset.json").read_bytes()) == pinned_dataset_sha256():
        return fetched
    if not CORPUS.is_dir():
        pytest.skip(f"the articles evidence is not on this machine: neither {fetched} (lexbench fetch-evidence "
                    f"--suite articles) nor the corpus mirror {CORPUS} is present")
    into = scratch / "articles"
    fetch_evidence(ARTICLES, into=into, mirror=CORPUS)
    return into
