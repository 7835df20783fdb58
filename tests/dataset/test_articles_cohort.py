"""The articles cohort is the selection rule's output, recomputed from the corpus (SPEC §4; issue 17 item 2).

Every candidate of ``cases/articles/cohort.json`` names its corpus page, its stratum and its rank in the
stratum's sha256 order. Recomputing :func:`lexbench.dataset.selection.select` over the corpus index must
give the same page at that rank, and within a stratum the candidates must be ranks 0, 1, 2, … without a
hole: a page the review could not use stays in the cohort with its decision, it is never skipped.
Needs ``../shared/corpus`` and skips with the reason without it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from lexbench.dataset.cohort import CandidateStatus, load_cohort
from lexbench.dataset.importers.common import read_index
from lexbench.dataset.selection import STRATA, select

ROOT = Path(__file__).resolve().parents[2]
COHORT = load_cohort(ROOT / "cases" / "articles" / "cohort.json")
CORPUS = ROOT.parent / "shared" / "corpus"
ORIGIN = re.compile(r"^(?P<source>[^:]+):(?P<key>.+?) \((?:stratum (?P<stratum>[^,]+), rank (?P<rank>\d+)|"
                    r"carried from the reviewed comments-real suite, revision 2)\)$")


def origins() -> dict[str, dict[str, str]]:
    out = {}
    for candidate in COHORT.candidates:
        match = ORIGIN.match(candidate.source or "")
        assert match, f"{candidate.id}: its source {candidate.source!r} does not name page, stratum and rank"
        out[candidate.id] = match.groupdict()
    return out


def test_every_candidate_names_its_page_stratum_and_rank() -> None:
    found = origins()
    assert len(found) == len(COHORT.candidates)
    carried = [cid for cid, origin in found.items() if origin["rank"] is None]
    assert all(found[cid]["source"] == "dragnet" for cid in carried)  # the reviewed comment pages folded in


def test_every_decision_concerns_a_candidate_that_is_not_approved() -> None:
    status = {candidate.id: candidate.status for candidate in COHORT.candidates}
    for decision in COHORT.decisions:
        assert status[decision.case] in (CandidateStatus.REPLACED, CandidateStatus.REMOVED), decision.case
        if decision.replacement is not None:
            assert decision.replacement in status


def test_the_cohort_is_the_selection_recomputed_from_the_corpus() -> None:
    if not all((CORPUS / stratum.source / "_index.tsv").is_file() for stratum in STRATA):
        pytest.skip(f"the corpus is not available: {CORPUS} is absent (it lives outside git, in ../shared/corpus)")
    found = origins()
    carried = {origin["key"] for origin in found.values() if origin["rank"] is None}
    index = {stratum.source: read_index(CORPUS / stratum.source) for stratum in STRATA}
    order = {(pick.stratum, pick.rank): pick for pick in select(index, exclude={"dragnet": carried})}
    ranks: dict[str, list[int]] = defaultdict(list)
    for cid, origin in found.items():
        if origin["rank"] is None:
            continue
        pick = order[(origin["stratum"], int(origin["rank"]))]
        assert (pick.source, pick.key) == (origin["source"], origin["key"]), cid
        ranks[origin["stratum"]].append(int(origin["rank"]))
    quotas = {stratum.name: stratum.quota for stratum in STRATA}
    for name, taken in ranks.items():
        assert sorted(taken) == list(range(len(taken))), f"{name}: ranks {sorted(taken)} skip a page"
        assert len(taken) >= quotas[name], f"{name}: {len(taken)} candidates for a quota of {quotas[name]}"
