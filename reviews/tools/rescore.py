"""Re-score a run's saved answers against the suite as now published, into a new run directory, so that
``lexbench compare`` shows what a dataset revision (or a scorer version) alone moves, the providers' own
variation left out (issue 29: "report every leaderboard change with lexbench compare").

    python reviews/tools/rescore.py RUN_DIR NEW_RUN_DIR [--suite articles]
    lexbench report NEW_RUN_DIR
    lexbench compare RUN_DIR NEW_RUN_DIR

Only suites of one-file captures answered as text (``articles``): a row records neither the URL an
archive-replayed page was served at nor a file or resources delivery, so those suites are refused (exit 2).
Every row with a saved answer (``responses/<sha256>.txt``) is scored again by this checkout's scorer against
the suite loaded as a benchmark run loads it (for ``articles``: ``.evidence/articles``, checked against the
committed bindings); rows without one (errors, unresolvable items) are copied as they are. The new run's
manifest and rows carry the loaded dataset's revision and sha256, and its ``argv`` names this re-scoring, so it
is never mistaken for a provider run. Runs are git-ignored: keep the original run directory to repeat it.
Exit 2, naming the problem, when RUN_DIR is not a run directory or NEW_RUN_DIR exists.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lexbench.answer import ProviderResult  # noqa: E402
from lexbench.dataset.suite import load_suite  # noqa: E402
from lexbench.evals.judged import served_url_of  # noqa: E402
from lexbench.scoring import evaluate_response  # noqa: E402
from lexbench.scoring.evaluate import SCORER_VERSION  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("new_run", type=Path)
    parser.add_argument("--suite", default="articles")
    args = parser.parse_args()
    if not (args.run / "results.jsonl").is_file() or not (args.run / "manifest.json").is_file():
        print(f"rescore: {args.run} is not a run directory (no results.jsonl and manifest.json)", file=sys.stderr)
        return 2
    if args.new_run.exists():
        print(f"rescore: {args.new_run} exists; choose a new directory", file=sys.stderr)
        return 2
    suite = load_suite(args.suite)
    cases = {case.id: case for case in suite.dataset.cases}
    other = sorted(case.id for case in cases.values() if case.delivery != "text")
    if suite.archives or other:
        # Rows record neither the URL a provider was handed (archive replay serves each case under its own
        # path, and replay-absolute links are read against it) nor a delivery's bytes or resource list.
        print(f"rescore: {args.suite} has web-archive captures or file/resources deliveries ({', '.join(other[:3]) or 'archives'}…);"
              " this tool re-scores only suites of one-file captures answered as text (articles): re-run the benchmark instead",
              file=sys.stderr)
        return 2
    meta = suite.dataset.suite
    manifest = json.loads((args.run / "manifest.json").read_text(encoding="utf-8"))
    if manifest["suite"]["id"] != meta.id:
        print(f"rescore: {args.run} is a run of {manifest['suite']['id']!r}, not {meta.id!r}", file=sys.stderr)
        return 2
    args.new_run.mkdir(parents=True)
    shutil.copytree(args.run / "responses", args.new_run / "responses")
    manifest["argv"] = ["reviews/tools/rescore.py", str(args.run), str(args.new_run), "--suite", args.suite]
    manifest["versions"]["scorer"] = SCORER_VERSION
    manifest["suite"]["revision"] = meta.revision
    manifest["suite"]["dataset_sha256"] = suite.dataset_sha256
    (args.new_run / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rows = []
    for line in (args.run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row["dataset_sha256"] = suite.dataset_sha256
        if row.get("response_sha256") and row["outcome"] != "unresolvable" and not row.get("error_type"):
            content = (args.run / "responses" / f"{row['response_sha256']}.txt").read_text(encoding="utf-8")
            verdict = evaluate_response(cases[row["case"]],
                                        ProviderResult(success=True, content=content, content_format=row["content_format"]),
                                        served_url=served_url_of(content, row["case"]))
            row["outcome"] = verdict.outcome.value
            row["failure_class"] = verdict.failure_class
            row["components"] = [component.model_dump(mode="json") for component in verdict.components]
            row["explanation"] = verdict.explanation
        rows.append(json.dumps(row, ensure_ascii=False))
    (args.new_run / "results.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"rescore: {len(rows)} rows of {args.run} scored by scorer {SCORER_VERSION} against {meta.id} revision "
          f"{meta.revision} ({suite.dataset_sha256[:12]}) into {args.new_run}; next: lexbench report {args.new_run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
