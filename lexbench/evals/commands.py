"""The ``check-gold``, ``run-evals`` and ``compare`` verbs of the ``lexbench`` command (SPEC §8).

Exit codes follow :func:`lexbench.cli.main`: 0 ok, 1 the check or gate failed, 2 bad input.
Heavy modules are imported inside the handlers, so ``lexbench --help`` stays fast.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path


def _check_gold(args: argparse.Namespace) -> int:
    from lexbench.evals.gold import GOLD_ROOT, check_gold  # per verb (module docstring)

    root = Path(args.directory) if args.directory else GOLD_ROOT
    problems = check_gold(root)
    for problem in problems:
        print(f"check-gold: {problem}")
    if problems:
        print(f"check-gold: {root}: {len(problems)} problem(s)")
        return 1
    tuples = len(list(root.glob("[0-9][0-9][0-9]-*.json")))
    print(f"check-gold: {root}: {tuples} tuples match their manifest")
    return 0


def _run_controls(args: argparse.Namespace) -> int:
    from lexbench.evals.controls import controls_json, render_controls, run_controls  # per verb (module docstring)

    if args.gold or args.overall_floor is not None or args.class_floor is not None or args.change_floors:
        print("lexbench run-evals: error: --corpus scores the corpus controls against their own floor; "
              "--gold and the floor options belong to the gold set run (without --corpus)", file=sys.stderr)
        return 2
    result = run_controls(Path(args.corpus))
    for line in render_controls(result):
        print(line)
    if args.output:
        output = Path(args.output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(controls_json(result), encoding="utf-8")
        print(f"run-evals: wrote {output}")
    return 0 if result.passed else 1


def _run_judged(args: argparse.Namespace) -> int:
    from lexbench.dataset.suite import load_suite
    from lexbench.evals.judged import JUDGED_ROOT, JudgedSetError, agreement, compare_run, gate, load_judged, render

    if not args.run:
        print("lexbench run-evals: error: --judged needs --run RUN: a run directory of the judged cases × providers "
              "(pytest --suite=articles --providers=... --run-dir=RUN), whose answers are compared with the judged ones",
              file=sys.stderr)
        return 2
    try:
        judged = load_judged(Path(args.judged) if args.judged else JUDGED_ROOT)
        suite = load_suite(args.suite)
        result = compare_run(judged, Path(args.run), {case.id: case for case in suite.cases})
    except (JudgedSetError, OSError) as exc:
        print(f"lexbench run-evals: error: {exc}", file=sys.stderr)
        return 2
    counted = agreement(result.compared)
    print(render(counted, result.refused), end="")
    if args.output:
        from lexbench.evals.judged import judged_json

        output = Path(args.output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(judged_json(counted, result.compared, result.refused), encoding="utf-8")
        print(f"run-evals: wrote {output}")
    problems = gate(counted, result.refused)
    print(f"judged gate: {'passed' if not problems else 'FAILED'} ({len(result.compared)} answers scored, "
          f"{len(result.refused)} refused)")
    for problem in problems:
        print(f"  {problem}")
    return 0 if not problems else 1


def _run_evals(args: argparse.Namespace) -> int:
    # per verb (module docstring)
    from lexbench.evals.accuracy import GATE_FLOORS, Floors, evals_json, render_evals, run_evals
    from lexbench.evals.gold import GOLD_ROOT, load_gold

    if args.corpus:
        return _run_controls(args)
    if args.judged is not None:
        return _run_judged(args)

    if (args.overall_floor is not None or args.class_floor is not None) and not args.change_floors:
        print("lexbench run-evals: error: --overall-floor/--class-floor change the committed gate "
              f"(overall {GATE_FLOORS.overall:.2f}, class {GATE_FLOORS.per_class:.2f}); "
              "add --change-floors to do that on purpose", file=sys.stderr)
        return 2
    floors = Floors(
        overall=GATE_FLOORS.overall if args.overall_floor is None else args.overall_floor,
        per_class=GATE_FLOORS.per_class if args.class_floor is None else args.class_floor,
    )
    result = run_evals(load_gold(Path(args.gold) if args.gold else GOLD_ROOT), floors)
    for line in render_evals(result):
        print(line)
    if args.output:
        output = Path(args.output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(evals_json(result), encoding="utf-8")
        print(f"run-evals: wrote {output}")
    return 0 if result.gate.passed else 1


def _compare(args: argparse.Namespace) -> int:
    # per verb (module docstring)
    from lexbench.evals.lift import (
        ACK_TOKEN, Status, apply_ack, approve_configurations, compare_metrics, load_metrics, read_ack, render_lift,
    )
    from lexbench.run.approvals import approvals_from_options

    sides = [Path(args.base), Path(args.new)]
    approvals = approvals_from_options(args.approvals, args.approvals_sha256, run_dirs=[p for p in sides if p.is_dir()])
    base, new = load_metrics(sides[0]), load_metrics(sides[1])
    ack = read_ack(Path(args.ack)) if args.ack else None
    approved = approve_configurations(base, new, approvals)
    rows = compare_metrics(base, new)
    if approvals is not None:
        configurations = ", ".join(f"{a['configuration_sha256']} ({', '.join(a['runs'])})" for a in approved)
        print(f"compare: historical configuration(s) {configurations} approved by {approvals.path} "
              f"(sha256 {approvals.sha256})")
    problems = apply_ack(rows, ack)
    for line in render_lift(rows, base, new, show_all=args.all):
        print(line)
    if problems:
        print("compare: BLOCKED")
        for problem in problems:
            print(f"  {problem}")
        blocked = [r.metric for r in rows if r.status is Status.BLOCKED]
        print(f"  To accept the change on purpose, pass --ack FILE holding:\n    {ACK_TOKEN}\n"
              "    Follow-up: #<open issue>\n" + "".join(f"    Affected metric: {m}\n" for m in blocked), end="")
        return 1
    print("compare: ok")
    return 0


def _sha256_option(text: str) -> str:
    """``--approvals-sha256``: 64 hex digits (as ``sha256sum`` prints them), for argparse."""
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a sha256 (64 hex digits, as sha256sum prints them)")
    return text.lower()


def add_approval_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--approvals FILE`` and ``--approvals-sha256 HEX`` to ``compare`` and ``report``
    (:mod:`lexbench.run.approvals`)."""
    parser.add_argument("--approvals", default=None, metavar="FILE", help=(
        "a reviewed registry of historical configurations whose rows may be reported or compared beside the current "
        "one (schemas/approvals.schema.json); kept outside every run directory"))
    parser.add_argument("--approvals-sha256", default=None, metavar="HEX", type=_sha256_option,
                        help="the sha256 of the reviewed registry (sha256sum FILE); a registry with other bytes is refused")


def add_verbs(verbs: argparse._SubParsersAction) -> None:
    """Add ``check-gold``, ``run-evals`` and ``compare`` to the ``lexbench`` sub-parsers."""
    p = verbs.add_parser("check-gold", help="validate a gold set directory against its manifest (names, ranges, counts, schema)")
    p.add_argument("directory", nargs="?", default=None, help="the gold set directory (default: the repository's cases/gold)")
    p.set_defaults(handler=_check_gold)

    p = verbs.add_parser("run-evals", help="score the gold set with evaluate_response; 3-class accuracy and its gate")
    p.add_argument("--gold", default=None, help="the gold set directory (default: the repository's cases/gold)")
    p.add_argument("--output", default=None, help="write the result as JSON (the gold set's is input for lexbench compare)")
    p.add_argument("--corpus", default=None, help="instead of the gold set: controls derived from every importable "
                   "reference of this corpus (e.g. ../shared/corpus), accuracy per variant kind, floor 0.98")
    p.add_argument("--overall-floor", type=float, default=None, help="another overall accuracy floor (needs --change-floors)")
    p.add_argument("--class-floor", type=float, default=None, help="another per-class accuracy floor (needs --change-floors)")
    p.add_argument("--change-floors", action="store_true", help="accept floors other than the committed gate (0.90 / 0.85)")
    p.add_argument("--judged", nargs="?", const="", default=None, metavar="DIR", help=(
        "instead of the gold set: the reader-judged set of real answers (default: cases/articles-judged): agreement "
        "of the verdicts with the readers per component and provider, and its gate (>= 0.97 each; no comment false pass)"))
    p.add_argument("--run", default=None, metavar="RUN", help="with --judged: the run directory holding the regenerated answers")
    p.add_argument("--suite", default="articles", help="with --judged: the suite the judged answers answer (default: articles)")
    p.set_defaults(handler=_run_evals)

    p = verbs.add_parser("compare", help="polarity-corrected lift per suite.provider.metric between two runs or run-evals outputs")
    p.add_argument("base", help="the run directory (or run-evals output) before the change")
    p.add_argument("new", help="the run directory (or run-evals output) after the change")
    p.add_argument("--ack", default=None, help="acknowledgement file: token, 'Follow-up: #N', 'Affected metric: ...' lines")
    p.add_argument("--all", action="store_true", help="list unchanged metrics too")
    add_approval_options(p)
    p.set_defaults(handler=_compare)
