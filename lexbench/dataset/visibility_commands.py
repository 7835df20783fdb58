"""The ``prove-visibility`` verb of the ``lexbench`` command (SPEC §4): render each capture of a suite with
scripts off and its own CSS, print what a reader does not see, and exit 1 when a stable phrase or a reference
line is refused (:mod:`lexbench.dataset.visibility`). Playwright loads inside the handler, so
``lexbench --help`` stays fast; exit codes follow :func:`lexbench.cli.main` (0 ok, 1 refused, 2 bad input).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def _write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _prove_visibility(args: argparse.Namespace) -> int:
    import dataclasses

    from lexbench.dataset.rendering import prove_suite  # per verb (module docstring): Playwright loads here
    from lexbench.dataset.suite import load_suite
    from lexbench.dataset.visibility import summary

    started = time.perf_counter()
    suite = load_suite(args.suite)
    runs_dir = Path(args.runs) if args.runs else None
    if runs_dir is not None:
        runs_dir.mkdir(parents=True, exist_ok=True)
    proofs = []
    for proof, rendering in prove_suite(suite, args.case or ()):
        proofs.append(proof)
        counts = proof.counts
        print(f"{proof.case_id}: {counts['visible']} visible, {counts['hidden']} hidden, {counts['unproven']} unproven "
              f"text runs; {len(proof.problems)} refused, {len(proof.review)} to review, {len(proof.decided)} decided",
              flush=True)
        for problem in proof.problems:
            print(f"  refused: {problem}")
        if args.review:
            for item in proof.review:
                print(f"  review: {item}")
            for item in proof.decided:
                print(f"  decided: {item}")
        if runs_dir is not None:
            _write_json(runs_dir / f"{proof.case_id}.json", [dataclasses.asdict(run) for run in rendering.runs])
    totals = summary(proofs)
    if args.json:
        _write_json(Path(args.json), {"suite": suite.id, "summary": totals, "cases": [p.as_json() for p in proofs]})
    refused = sum(totals["problems"].values())
    print(f"prove-visibility {suite.id}: {totals['cases']} case(s), {refused} refused "
          f"({', '.join(f'{n} {kind}' for kind, n in totals['problems'].items()) or 'none'}), "
          f"{sum(totals['review'].values())} to review "
          f"({', '.join(f'{n} {kind}' for kind, n in totals['review'].items()) or 'none'}), "
          f"{sum(totals['decided'].values())} decided by the review; "
          f"{time.perf_counter() - started:.1f} s")
    return 1 if refused else 0


def add_verbs(verbs: Any) -> None:
    """Add ``prove-visibility`` to the ``lexbench`` command's sub-parsers ``verbs``."""
    p = verbs.add_parser("prove-visibility", help="render each capture in Chromium (scripts off, its own CSS) and "
                                                  "refuse stable phrases and reference lines a reader does not see (SPEC §4)")
    p.add_argument("--suite", required=True, help="suite name under cases/ or suite directory (its evidence fetched)")
    p.add_argument("--case", action="append", default=None, help="only this case id (repeatable)")
    p.add_argument("--review", action="store_true", help="also print the lines to review (bylines, widgets, captions, ...)")
    p.add_argument("--json", default=None, help="write the findings and totals to this JSON file")
    p.add_argument("--runs", default=None, help="write each case's text runs (text, state, reason, path) to DIR/<case>.json")
    p.set_defaults(handler=_prove_visibility)
