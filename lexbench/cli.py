"""The ``lexbench`` command (SPEC §1): one verb per pipeline step; the benchmark itself runs under pytest.

Each handler imports the modules its verb uses, so ``lexbench --help`` and ``lexbench report`` start without
the dataset tooling, the corpus importers and the scorer (seconds on a loaded machine).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from lexbench.errors import LexbenchError, RulesError, RunError
from lexbench.evals.commands import add_approval_options
from lexbench.dataset.archive_commands import add_verbs as add_archive_verbs
from lexbench.dataset.visibility_commands import add_verbs as add_visibility_verbs
from lexbench.evals.commands import add_verbs as add_evals_verbs
from lexbench.jsonfile import read_json
from lexbench.text import counted

Handler = Callable[[argparse.Namespace], int]


def _import_corpus(args: argparse.Namespace) -> int:
    from lexbench.dataset.importers import import_corpus  # per verb (module docstring)

    report = import_corpus(args.format, Path(args.source), Path(args.output), limit=args.limit, keep_going=args.keep_going)
    print(report.summary())
    return 0


def _suite_pins(root: Path | None, cohort_path: Path) -> dict[str, str]:
    # Datasets that compile-articles must never write next to: the suite's published one and every prior input.

    from lexbench.dataset.bindings import DATASET_NAME, SOURCE_INPUTS_NAME  # per verb (module docstring)
    from lexbench.dataset.cohort import load_cohort
    from lexbench.dataset.compile import sha256_bytes

    pins: dict[str, str] = {}
    if cohort_path.is_file():
        for entry in load_cohort(cohort_path).history:
            if entry.prior_input is not None:
                pins[entry.prior_input.dataset_sha256] = entry.prior_input.source_inputs_id
    if root is not None and (root / DATASET_NAME).is_file():
        pins[sha256_bytes((root / DATASET_NAME).read_bytes())] = f"suite {root.name}"
    if root is not None and (root / SOURCE_INPUTS_NAME).is_file():
        inputs = read_json(root / SOURCE_INPUTS_NAME)
        pins[inputs["files"][DATASET_NAME]] = inputs["id"]
    return pins


def _serve_replay(args: argparse.Namespace) -> int:
    from lexbench.dataset.suite import load_suite  # per verb (module docstring)
    from lexbench.replay import ReplayServer

    from lexbench.replay_log import REPLAY_KEY_VARIABLE, check_replay_key, new_replay_key

    given = os.environ.get(REPLAY_KEY_VARIABLE)
    try:
        key = check_replay_key(given) if given else new_replay_key()
    except ValueError as exc:
        print(f"lexbench serve-replay: error: {exc}", file=sys.stderr)
        return 2
    suite = load_suite(args.suite)
    captures = suite.replay_pages()
    try:
        server = ReplayServer(captures, host=args.host, port=args.port, key=key).start()
    except OSError as exc:
        print(f"lexbench serve-replay: error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    print(f"serving {len(captures)} frozen pages of suite {suite.id} at {server.base_url} (Ctrl-C stops); "
          "expose it publicly, then run pytest with --replay-public-url=<its public URL>", flush=True)
    if given:
        print(f"run logs are kept for the holders of the replay key in {REPLAY_KEY_VARIABLE}", flush=True)
    else:  # the operator's console only: the run needs it, no service ever sees it
        print(f"the run needs this replay key (keep it secret; set {REPLAY_KEY_VARIABLE} to reuse one):\n"
              f"  export {REPLAY_KEY_VARIABLE}={key}", flush=True)
    try:
        while server.running:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _suite_arg(root: Path) -> str:
    from lexbench.dataset.suite import is_committed  # per verb (module docstring)

    return root.name if is_committed(root) else str(root)


def _compile_articles(args: argparse.Namespace) -> int:
    from lexbench.dataset.bindings import dataset_id  # per verb (module docstring)
    from lexbench.dataset.compile import compile_articles, sha256_bytes
    from lexbench.dataset.suite import suite_root

    started = time.perf_counter()
    root = suite_root(args.suite or "demo") if args.suite or not args.rules else None
    rules = Path(args.rules) if args.rules else root / "rules.json"
    cohort = Path(args.cohort) if args.cohort else rules.parent / "cohort.json"
    output = Path(args.output)
    dataset = compile_articles(rules, cohort, Path(args.evidence_home), output, pinned_datasets=_suite_pins(root, cohort))
    seconds = time.perf_counter() - started
    suite = dataset.suite
    print(f"compile-articles: {len(dataset.cases)} cases of {dataset_id(suite.model_dump())} (suite {suite.id}, revision "
          f"{suite.revision}) verified against {args.evidence_home} in {seconds:.2f} s")
    print(f"wrote {output} (sha256 {sha256_bytes(output.read_bytes())})")
    where = f"--suite={_suite_arg(root)}" if root is not None else "--suite=DIR"
    print(f"nothing is published yet: lexbench publish {where} --dataset={output}")
    return 0


def _publish(args: argparse.Namespace) -> int:
    from lexbench.dataset.bindings import BINDING_FILES  # per verb (module docstring)
    from lexbench.dataset.compile import sha256_bytes
    from lexbench.dataset.suite import input_dir, publish_suite, registry_for, suite_root

    root = suite_root(args.suite)
    registry = Path(args.registry) if args.registry else registry_for(root)
    published = publish_suite(root, dataset=Path(args.dataset) if args.dataset else None, registry=registry)
    bindings = published.bindings
    if published.adopted:
        print(f"publish: {args.dataset} is now {root / 'dataset.json'}")
    bound = Path(args.dataset) if args.dataset and not published.adopted else input_dir(root) / "dataset.json"
    print(f"publish: bindings of {bound} (sha256 {bindings.dataset_sha256}), in order:")
    for name in BINDING_FILES:
        print(f"  {name:<22} {sha256_bytes(bindings.files()[name])}")
    if registry is not None:
        entry = bindings.registry_entry
        print(f"  {registry.name:<22} entry {root.name!r}: dataset_id {entry['dataset_id']}, {entry['case_count']} cases "
              f"({registry})")
    else:
        print("  (no registry entry: the suite is not under cases/; pass --registry FILE to record one)")
    print(f"done in {published.seconds:.2f} s; next: lexbench validate --suite={_suite_arg(root)}, then "
          "pytest golden --snapshot-update and review the diff")
    return 0


def _print_problems(label: str, problems: list[str]) -> int:
    print(f"{label}: {len(problems)} problem(s)", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    return 1


def _validate(args: argparse.Namespace) -> int:
    from lexbench.dataset.checks import validate_suite, validate_without_dataset  # per verb (module docstring)
    from lexbench.dataset.suite import (
        input_dir, is_committed, is_external, read_suite_dataset, registry_for, resolve_suite_dir, suite_root,
    )

    started = time.perf_counter()
    try:
        root = resolve_suite_dir(args.suite)
    except RulesError as missing:
        # A suite whose dataset is external and not fetched here: check what its committed files can show.
        try:
            root = suite_root(args.suite)
        except RulesError:
            raise missing from None
        if not is_external(root):
            raise missing from None
        registry = Path(args.registry) if args.registry else registry_for(root)
        problems = validate_without_dataset(root, registry=registry, committed=is_committed(root))
        if problems:
            return _print_problems(f"validate {root.name}", problems)
        print(f"validate {root.name}: ok without its dataset (rules.json, cohort.json, tasks.json, the catalog's cases "
              f"and reference hashes, source-inputs.json{' and the registry entry' if registry else ''} agree); "
              f"the definition hashes need the dataset: lexbench fetch-evidence --suite {root.name}")
        return 0
    registry = Path(args.registry) if args.registry else registry_for(root)
    dataset, dataset_json = read_suite_dataset(root)
    problems = validate_suite(root, registry=registry, committed=is_committed(root), dataset=dataset,
                              dataset_json=dataset_json)
    if args.visibility and not problems:
        from lexbench.dataset.rendering import prove_suite
        from lexbench.dataset.suite import load_suite

        problems = [f"{proof.case_id}: {problem}" for proof, _ in prove_suite(load_suite(str(root)))
                    for problem in proof.problems]
    seconds = time.perf_counter() - started
    if problems:
        return _print_problems(f"validate {root.name}", problems)
    checked = "dataset.json, rules.json, cohort.json, dataset-catalog.json, tasks.json, source-inputs.json"
    if args.visibility:
        checked += "; every stable phrase and reference line visible in its rendered capture"
    where = f"; the dataset is the fetched one in {input_dir(root)}" if is_external(root) else ""
    print(f"validate {root.name}: ok ({checked}{' and the registry entry' if registry else ''} agree; {seconds:.2f} s"
          f"{where})")
    return 0


def _verify_inputs(args: argparse.Namespace) -> int:
    from lexbench.dataset.checks import verify_inputs  # per verb (module docstring)
    from lexbench.dataset.suite import is_committed, registry_for, resolve_suite_dir

    started = time.perf_counter()
    root = resolve_suite_dir(args.suite)
    source = Path(args.source)
    if not source.is_dir():
        print(f"lexbench verify-inputs: error: --source {source}: no such directory", file=sys.stderr)
        return 2
    evidence = Path(args.evidence_home) if args.evidence_home else None
    problems = verify_inputs(root, source, evidence_home=evidence, registry=registry_for(root), committed=is_committed(root))
    seconds = time.perf_counter() - started
    if problems:
        print(f"verify-inputs {root.name}: {source} does not match the bindings ({len(problems)} problem(s)):",
              file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"verify-inputs {root.name}: {source} matches: dataset.json and every bound evidence file ({seconds:.2f} s)")
    return 0


def _fetch_evidence(args: argparse.Namespace) -> int:
    # per verb, to keep start-up light (module docstring)
    from lexbench.dataset.evidence import UPSTREAM_BASE, default_into, fetch_evidence, repository_root
    from lexbench.dataset.suite import suite_root

    root = suite_root(args.suite)
    into = Path(args.into) if args.into else default_into(root.name)
    from lexbench.dataset.built_site import BUILT_SITE, fetch_built_evidence, sources_kind

    if sources_kind(root / "sources.json") == BUILT_SITE:
        if args.mirror or args.upstream_base:
            print("lexbench fetch-evidence: error: --mirror/--upstream-base do not apply: suite "
                  f"{root.name} builds its pages from its own site and records them", file=sys.stderr)
            return 2
        fetched = fetch_built_evidence(root, into=into)
        print(f"fetch-evidence {root.name}: {fetched.cases} pages built, recorded as web archives and checked against "
              f"their sha256 in {fetched.seconds:.1f} s")
        print(f"wrote {fetched.into}/dataset.json (sha256 {fetched.dataset_sha256}) and its evidence/")
        return 0
    mirror = Path(args.mirror) if args.mirror else None
    if mirror is None and args.upstream_base is None:
        local = (repository_root() / "../shared/corpus").resolve()
        mirror = local if local.is_dir() else None
    if mirror is not None and not mirror.is_dir():
        print(f"lexbench fetch-evidence: error: --mirror {mirror}: no such directory", file=sys.stderr)
        return 2
    fetched = fetch_evidence(root, into=into, mirror=mirror, upstream_base=args.upstream_base or UPSTREAM_BASE)
    print(f"fetch-evidence {root.name}: {fetched.cases} cases from {fetched.files} source files ({fetched.origin}), "
          f"every sha256 verified, in {fetched.seconds:.1f} s")
    print(f"wrote {fetched.into}/dataset.json (sha256 {fetched.dataset_sha256}) and its evidence/")
    if fetched.kept is not None:
        print(f"note: files lexbench did not write appeared in {fetched.into} during the fetch; they are kept in "
              f"{fetched.kept}", file=sys.stderr)
    run = root.name if fetched.into == default_into(root.name).resolve() else str(fetched.into)
    print(f"next: lexbench verify-inputs --suite {root.name} --source {fetched.into}; pytest --suite={run}")
    return 0


def _export_schemas(args: argparse.Namespace) -> int:
    from lexbench.dataset.schemas import SCHEMA_DIR, SCHEMAS, stale_schemas, write_schemas  # per verb (module docstring)
    from lexbench.run.approvals import ApprovalRegistry

    directory = Path(args.output_dir) if args.output_dir else SCHEMA_DIR
    models = {**SCHEMAS, "approvals.schema.json": ApprovalRegistry}
    if args.check:
        stale = stale_schemas(directory, models)
        if stale:
            print(f"export-schemas: stale in {directory}: {', '.join(stale)}; run lexbench export-schemas", file=sys.stderr)
            return 1
        print(f"export-schemas: {directory} is up to date")
        return 0
    for path in write_schemas(directory, models):
        print(f"wrote {path}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from lexbench.run.record import checked_rows, merge_runs, read_manifest, scorer_version  # per verb (module docstring)
    from lexbench.history.trend import report_panel
    from lexbench.report.render import write_reports
    from lexbench.run import approvals as approval
    from lexbench.run.rundir import RunLock, check_run_dir

    dirs = [Path(d) for d in args.run_dirs]
    if args.merge:
        if not args.output:
            raise RunError("report --merge: name the new run directory with --output DIR")
        run_dir = Path(args.output)
        approvals = approval.approvals_from_options(args.approvals, args.approvals_sha256, run_dirs=[*dirs, run_dir])
        merge_runs(dirs, run_dir, approvals=approvals)
        print(f"report: merged {len(dirs)} shard(s) into {run_dir}")
    else:
        if len(dirs) != 1 or args.output:
            raise RunError("report: name one run directory (to combine shards: report --merge RUN_DIR... --output DIR)")
        run_dir = dirs[0]
        approvals = approval.approvals_from_options(args.approvals, args.approvals_sha256, run_dirs=dirs)
    check_run_dir(run_dir, manifest_required=True)
    with RunLock(run_dir):  # not while a session is still writing rows
        # A merged run with approved historical rows is reported again only under the approvals it was bound to.
        bound = read_manifest(run_dir)
        approval.check_binding(str(run_dir), bound, approvals)
        manifest, rows = checked_rows(run_dir, approved=approval.approved_configurations(bound))
        approval.check_record(str(run_dir), manifest, approval.sources_of(str(run_dir), rows, scorer_version(manifest)),
                              approvals)
        paths = write_reports(run_dir, rows, manifest, trend_panel=report_panel(run_dir))
    for path in paths:
        print(f"wrote {path} (sha256 {hashlib.sha256(path.read_bytes()).hexdigest()[:16]})")
    if approvals is not None:
        print(f"report: rows of historical configurations approved by {approvals.path} (sha256 {approvals.sha256})")
    print(f"report: {counted(len(rows), 'item')} of suite {manifest.get('suite', {}).get('id', '?')}")
    return 0


def _count(text: str) -> int:
    """A whole number ≥ 0, for argparse."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number ≥ 0")
    return int(text)


def _port(text: str) -> int:
    """A TCP port number, 0 (any free port) to 65535, for argparse."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return int(text)


def _audit_projection(args: argparse.Namespace) -> int:
    from lexbench.dataset.bindings import DATASET_NAME  # per verb (module docstring)
    from lexbench.dataset.compile import load_dataset, sha256_bytes
    from lexbench.dataset.suite import input_dir
    from lexbench.run.record import RESPONSES_DIR, checked_rows
    from lexbench.scoring.audit import UNEXPLAINED, ItemAudit, audit_answer, render_table, to_json
    from lexbench.scoring.budget import DEFAULT_BUDGET, BudgetSpent, within_budget

    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        raise RunError(f"{run_dir}: no such run directory")
    manifest, rows = checked_rows(run_dir)
    suite = manifest["suite"]
    dataset_path = input_dir(Path(suite["path"])) / DATASET_NAME  # a suite with external evidence: its fetched one
    if not dataset_path.is_file():
        raise RunError(f"{run_dir}: the run's suite {suite['id']!r} is not at {suite['path']} (no {DATASET_NAME}); "
                       "the audit needs the suite the run was made with")
    if sha256_bytes(dataset_path.read_bytes()) != suite["dataset_sha256"]:
        raise RunError(f"{run_dir}: {dataset_path} is not the dataset the run was made with (its sha256 differs "
                       f"from the manifest's {suite['dataset_sha256']})")
    cases = {case.id: case for case in load_dataset(dataset_path).cases}
    items = []
    for row in sorted(rows, key=lambda r: (r.case, r.provider)):
        if row.response_sha256 is None or row.case not in cases:
            continue  # no answer was saved (a failed call), or a control row of a case no longer in the suite
        answer_path = run_dir / RESPONSES_DIR / f"{row.response_sha256}.txt"
        try:
            answer = answer_path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RunError(f"{run_dir}: the answer of {row.item_id} cannot be read ({exc}); the run record is damaged") from None
        items.append((cases[row.case], row.provider, answer, row.content_format))
    audited, stopped = [], []
    for case, provider, answer, content_format in items:
        # Each answer under the scorer's own budget (a planted 19.5 MB answer took 92 s, then 5.9 GB).
        try:
            audited.append(ItemAudit(case.id, provider, within_budget(
                lambda: audit_answer(case, answer, content_format), len(answer), DEFAULT_BUDGET)))  # noqa: B023
        except BudgetSpent as spent:
            stopped.append({"case": case.id, "provider": provider, "content_chars": len(answer), "reason": spent.reason})
        del answer
    if args.json:
        print(json.dumps({**to_json(audited), "not_audited": stopped}, ensure_ascii=False, indent=2))
    else:
        print(render_table(audited, examples=args.examples))
    for item in stopped:
        print(f"audit-projection: {item['case']}[{item['provider']}] not audited: the scorer's budget was spent "
              f"({item['reason']}) on its answer of {item['content_chars']:,} chars; the other items are audited",
              file=sys.stderr)
    unexplained = any(loss.rule == UNEXPLAINED for item in audited for loss in item.audit.losses)
    return 1 if unexplained or stopped else 0


def installed_version() -> str:
    """The version of the installed ``lexbench`` distribution (its metadata, as pip and ``pytest
    --version`` see it), or ``"unknown (not installed)"`` when the package runs from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lexbench")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a significance level between 0 and 1, got {text!r}")
    return value


def _history(args: argparse.Namespace) -> int:
    from lexbench.history import summary  # per verb (module docstring)
    from lexbench.history.store import History, default_cache, scan

    history = History(scan([Path(d) for d in args.runs_dirs or ["runs"]]), cache=None if args.no_cache else default_cache())
    if args.html:
        from lexbench.history.trend import write_page

        path = write_page(history, Path(args.html))
        print(f"wrote {path}")
    if args.sql is not None:
        names, rows = history.sql(args.sql)
        if args.json:
            print(json.dumps([dict(zip(names, row, strict=True)) for row in rows], ensure_ascii=False, indent=2, default=str))
        else:
            print("\n".join(summary.table_lines(names, rows)))
        return 0
    if args.check:
        from lexbench.history import check

        results = check.check(history, alpha=args.alpha, max_new_failures=args.max_new_failures)
        if args.json:
            from dataclasses import asdict

            print(json.dumps({"alpha": args.alpha, "max_new_failures": args.max_new_failures,
                              "providers": [asdict(r) for r in results], **summary.entries_json(history)},
                             ensure_ascii=False, indent=2))
        else:
            print("\n".join(check.check_lines(results, alpha=args.alpha, max_new_failures=args.max_new_failures)))
        return 1 if any(r.regression for r in results) else 0
    if args.json:
        print(json.dumps(summary.summary_json(history), ensure_ascii=False, indent=2))
    elif not args.html:
        print("\n".join(summary.summary_lines(history, last=args.last)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every verb; each sub-parser's ``handler`` runs it."""
    parser = argparse.ArgumentParser(prog="lexbench", description="lexbench: a benchmark for Web Fetch providers")
    parser.add_argument("--version", action="version", version=f"lexbench {installed_version()}")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    p = verbs.add_parser("import-corpus", help="turn a folder of ../shared/corpus into a suite directory")
    p.add_argument("--format", required=True, help=(
        "corpus format: scrapinghub-aeb, mozilla-readability, magic-html-bench (articles), magic-html-forum, "
        "harvest-forums, dragnet, trafilatura-eval, webmainbench-sample, gne-zh-lists, reviewed-suite"))
    p.add_argument("--source", required=True, help="the corpus folder, e.g. ../shared/corpus/scrapinghub-aeb")
    p.add_argument("--output", required=True, help="a new directory for the suite (outside git)")
    p.add_argument("--limit", type=int, default=None, help="import only the first N pages (in the corpus index order)")
    p.add_argument("--keep-going", action="store_true", help="skip bad pages (listed in import-report.json) instead of stopping")
    p.set_defaults(handler=_import_corpus)

    p = verbs.add_parser("report", help="regenerate report.md/.html/.json from a run directory, or merge shards (SPEC §6)")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="the run directory (with --merge: every shard's)")
    p.add_argument("--merge", action="store_true", help="combine the shards of one run (--shard=K/N) into --output")
    p.add_argument("--output", default=None, help="with --merge: a new directory for the merged run")
    add_approval_options(p)
    p.set_defaults(handler=_report)

    p = verbs.add_parser("history", help="every run directory under RUNS_DIR read in place: trends per provider, SQL "
                         "views, a paired regression check of the last two comparable runs (SPEC §6)")
    p.add_argument("runs_dirs", nargs="*", metavar="RUNS_DIR", help="folders of run directories, or run directories "
                   "(default: runs)")
    p.add_argument("--sql", default=None, metavar="QUERY", help="run a query over the views runs, items, components, "
                   "attempts (README \"Run history\") and print its rows")
    p.add_argument("--json", action="store_true", help="machine output: the summary, the check or the query as JSON")
    p.add_argument("--check", action="store_true", help="pair each provider's latest run with its previous comparable "
                   "one case by case; exit 1 on a significant regression")
    p.add_argument("--alpha", type=_alpha, default=0.05, help="--check: significance level of the exact McNemar test "
                   "(default 0.05)")
    p.add_argument("--max-new-failures", type=_count, default=None, metavar="N", help="--check: exit 1 as well when a "
                   "provider has more than N new pass → fail cases")
    p.add_argument("--html", default=None, metavar="OUT.html", help="write the trend page (pass rate and p50 latency "
                   "per provider over the runs)")
    p.add_argument("--last", type=_count, default=10, metavar="N", help="runs shown per provider in the summary "
                   "(default 10; 0: every run)")
    p.add_argument("--no-cache", action="store_true", help="read every run's rows again instead of the figures kept "
                   "for unchanged runs ($LEXBENCH_HISTORY_CACHE, default ~/.cache/lexbench/history.duckdb)")
    p.set_defaults(handler=_history)

    p = verbs.add_parser("audit-projection", help="per item, the reference fragments an answer holds but its projection "
                         "lost, each with the rule that removed it (SPEC §3.2); exit 1 when any loss is unexplained")
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory (its manifest names the suite)")
    p.add_argument("--json", action="store_true", help="print the audit as JSON instead of the table")
    p.add_argument("--examples", type=_count, default=3, help="explained fragments shown per item in the table (default 3)")
    p.set_defaults(handler=_audit_projection)

    p = verbs.add_parser("compile-articles", help="compile rules.json + cohort.json against an evidence home into a new dataset.json")
    p.add_argument("--suite", default=None, help="suite name under cases/ or suite directory (default: demo, unless --rules is given)")
    p.add_argument("--rules", default=None, help="the rules.json to compile (default: the suite's)")
    p.add_argument("--cohort", default=None, help="the cohort.json with the approved inventory (default: beside the rules)")
    p.add_argument("--evidence-home", required=True, help="directory holding the hash-bound captures and references")
    p.add_argument("--output", required=True, help="new file for the compiled dataset, in a new external directory (never overwritten)")
    p.set_defaults(handler=_compile_articles)

    p = verbs.add_parser("fetch-evidence", help="get a reviewed suite's source files (mirror or upstream), check each "
                         "sha256 and compile its external dataset.json (default into .evidence/<suite>)")
    p.add_argument("--suite", required=True, help="suite name under cases/ (with sources.json) or suite directory")
    origin = p.add_mutually_exclusive_group()
    origin.add_argument("--mirror", default=None, help="a local copy in the corpus layout (default: ../shared/corpus when "
                        "present, else the upstream repositories)")
    origin.add_argument("--upstream-base", default=None, help="fetch from the upstream repositories at their pinned "
                        "commits under this URL (default https://raw.githubusercontent.com)")
    p.add_argument("--into", default=None, help="the input directory to (re)build (default: .evidence/<suite>)")
    p.set_defaults(handler=_fetch_evidence)

    add_archive_verbs(verbs)  # record-archive (issue 28)

    p = verbs.add_parser("publish", help="(re)generate a suite's public bindings: catalog, tasks, source inputs, registry entry")
    p.add_argument("--suite", required=True, help="suite name under cases/ or suite directory")
    p.add_argument("--dataset", default=None, help="a dataset.json from compile-articles to adopt as the suite's new revision "
                   "(a suite with external evidence: the dataset to bind, default its fetched one; never copied)")
    p.add_argument("--registry", default=None, help="registry file to update (default: cases/registry.json for suites under cases/)")
    p.set_defaults(handler=_publish)

    p = verbs.add_parser("validate", help="check a suite's bindings against each other and its dataset.json, rules and cohort")
    p.add_argument("--suite", required=True, help="suite name under cases/ or suite directory")
    p.add_argument("--registry", default=None, help="registry file to check (default: cases/registry.json for suites under cases/)")
    p.add_argument("--visibility", action="store_true", help="also render every capture in Chromium and refuse what "
                   "a reader does not see (lexbench prove-visibility's refusals)")
    p.set_defaults(handler=_validate)


    p = verbs.add_parser("verify-inputs", help="check an external input directory (dataset.json + evidence) against a suite's bindings")
    p.add_argument("--suite", required=True, help="suite name under cases/ or suite directory")
    p.add_argument("--source", required=True, help="the input directory: dataset.json and (by default) evidence/")
    p.add_argument("--evidence-home", default=None, help="where the evidence files are (default: SOURCE/evidence)")
    p.set_defaults(handler=_verify_inputs)

    p = verbs.add_parser("serve-replay", help="serve a suite's frozen pages where hosted services can fetch them "
                                              "(with pytest --replay-public-url)")
    p.add_argument("--suite", default="demo", help="suite name under cases/ or suite directory (default: demo)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; a tunnel exposes it)")
    p.add_argument("--port", type=_port, default=8765, help="port to listen on (default: 8765; 0: any free port)")
    p.set_defaults(handler=_serve_replay)

    p = verbs.add_parser("export-schemas", help="write the JSON Schemas of rules.json, cohort.json and the approvals registry (schemas/)")
    p.add_argument("--output-dir", default=None, help="directory for the schema files (default: the repository's schemas/)")
    p.add_argument("--check", action="store_true", help="only check that the files are up to date (exit 1 if not)")
    p.set_defaults(handler=_export_schemas)

    add_visibility_verbs(verbs)  # prove-visibility (SPEC §4)
    add_evals_verbs(verbs)  # check-gold, run-evals, compare (SPEC §8)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (0 ok, 1 check failed, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except LexbenchError as exc:
        print(f"lexbench {args.verb}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
