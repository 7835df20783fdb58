"""Building the reader-judged set of ``articles`` answers (issue 30; REVIEW.md, "Judging a provider's answer").

    python reviews/tools/judged.py packets --run RUN --into DIR [--cases FILE]
    python reviews/tools/judged.py disagreements --packets DIR --judges DIR_A DIR_B --into SETTLE
    python reviews/tools/judged.py collect --packets DIR --judges DIR_A DIR_B [--settled DIR] --run RUN --out cases/articles-judged

``packets`` writes, per case, what a judge decides from and nothing of the verdict: ``contract.md`` (the case's
title, its regions with their reference text, the reviewed ending, the stable groups' phrases, the identity
patterns, the comment or post floor and what counts as a record) and the run's answers to it as
``answer-NN.md``, numbered in an order drawn from the answers' sha256, so neither the provider nor the verdict
shows. ``DIR/key.json`` (which answer is which provider's) is for ``collect`` only: judges never open it.

``collect`` joins each judge's ``<case>/answer-NN.json`` with the key and the run's rows into one committed
file per answer, ``<out>/answers/<case>[<provider>].json``: case, provider and its version, the answer's sha256
(the replay port masked: ``answer_digest``) and format, and every judge's decision with its evidence (and the settling, where the judges differed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lexbench.dataset.case import minimum_records  # noqa: E402
from lexbench.evals.judged import COMPONENTS, answer_digest, provider_version  # noqa: E402

EVIDENCE = ROOT / ".evidence" / "articles"

JUDGMENT_TEMPLATE: dict[str, Any] = {
    "title": {"present": "true | false | null (null: the contract has no title)", "evidence": "where it is, or why not"},
    "regions": {"present": "true when EVERY region has about 80 % or more of its sentences", "evidence": "per region: present, or what is missing (quote it)"},
    "ending": {"present": "true | false", "evidence": "..."},
    "stable_groups": {"present": "true when every phrase of every group is there as text a reader sees", "evidence": "missing phrases, quoted"},
    "page_identity": {"present": "true when every pattern matches the answer's text", "evidence": "..."},
    "comments": {"records": "count of records whose author and own text a reader can tell apart (null if the contract has none)",
                 "present": "true when records >= the floor", "evidence": "how you counted: authors found, what you refused"},
    "posts": {"records": "as comments, for a forum thread's posts (null if the contract has none)", "present": "...", "evidence": "..."},
}


def _rows(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def contract_text(case: dict[str, Any]) -> str:
    """The contract of one compiled ``dataset.json`` case as a judge reads it (Markdown)."""
    out = [f"# Contract of {case['id']}", "", f"URL: {case['url']}", ""]
    out += ["## Title", "", f"    {case['title']}" if case.get("title") else "(none: not judged)", ""]
    body = case.get("body")
    if body:
        lines = case["reference_text"].split("\n")
        out += ["## Regions (each must have about 80 % or more of its sentences in the answer)", ""]
        for number, region in enumerate(body["regions"], 1):
            out += [f"### Region {number}: {region['label']}", ""]
            out += [f"> {line}" for line in lines[region["first_line"] - 1:region["last_line"]]] + [""]
        out += ["## Ending (the reviewed last passage; about 80 % or more must be in the answer)", ""]
        out += [f"> {line}" for line in body["reference_scope"]["end"].split("\n")] + [""]
    else:
        out += ["## Regions and ending", "", "(none: a post collection has no body contract)", ""]
    out += ["## Stable groups (every phrase of every group must be there as text a reader sees)", ""]
    for group in case.get("stable_groups") or []:
        out += [f"- {group['id']} ({group['region']}): " + " | ".join(f"`{p}`" for p in group["phrases"])]
    out += ["", "## Page identity (regular expressions; each must match the answer's text)", ""]
    out += [f"- `{pattern}`" for pattern in case.get("page_identity") or []] + [""]
    for kind in ("comments", "posts"):
        contract = case.get(kind)
        if not contract:
            out += [f"## {kind.capitalize()}", "", "(none: not judged)", ""]
            continue
        floor = minimum_records(contract["baseline"])
        record = ("an author a reader can tell apart plus that author's own non-empty text"
                  if kind == "comments" else
                  "a distinct link to that post on this site (its permalink, SPEC §3.6) together with the post's "
                  "attributed author and its visible text; a post with no such link in the answer is not counted, "
                  "quoted posts are not separate posts, and a link counts once")
        out += [f"## {kind.capitalize()}", "",
                f"The page displayed {contract['baseline']} {kind} with their own author and own text; the answer passes "
                f"with at least **{floor}** such records. A record is {record}. Not records: placeholders (deleted, "
                "hidden, spam), pingbacks without text, reply buttons, a comment form, subject lines or scores standing "
                "where an author would, related-post lists, a 'recent comments' sidebar. Identical author + text pairs "
                "count once."]
        for label_kind in ("ignored_labels", "unavailable_notices", "non_author_labels"):
            if contract.get(label_kind):
                out += ["", f"{label_kind.replace('_', ' ')} (never a record or an author): " + ", ".join(f"`{x}`" for x in contract[label_kind])]
        out += [""]
    return "\n".join(out) + "\n"


def packets(run: Path, into: Path, cases: list[str] | None) -> int:
    dataset = {c["id"]: c for c in json.loads((EVIDENCE / "dataset.json").read_text(encoding="utf-8"))["cases"]}
    rows = [r for r in _rows(run) if r.get("response_sha256") and (cases is None or r["case"] in cases)]
    into.mkdir(parents=True, exist_ok=False)
    key: dict[str, dict[str, str]] = {}
    by_case: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_case.setdefault(row["case"], []).append(row)
    for case_id, case_rows in sorted(by_case.items()):
        folder = into / case_id
        folder.mkdir()
        (folder / "contract.md").write_text(contract_text(dataset[case_id]), encoding="utf-8")
        # an order no judge can read a provider from: by the sha256 of case id and answer sha256
        ordered = sorted(case_rows, key=lambda r: hashlib.sha256(f"{case_id}\n{r['response_sha256']}".encode()).hexdigest())
        key[case_id] = {}
        for number, row in enumerate(ordered, 1):
            name = f"answer-{number:02d}"
            text = (run / "responses" / f"{row['response_sha256']}.txt").read_text(encoding="utf-8")
            (folder / f"{name}.md").write_text(text, encoding="utf-8")
            key[case_id][name] = row["provider"]
        (folder / "judgment-template.json").write_text(json.dumps(JUDGMENT_TEMPLATE, ensure_ascii=False, indent=2), encoding="utf-8")
    (into.parent / f"{into.name}-key.json").write_text(json.dumps(key, ensure_ascii=False, indent=2), encoding="utf-8")
    print(f"{sum(len(v) for v in key.values())} answers of {len(key)} cases in {into}; the key is {into.parent / (into.name + '-key.json')}")
    return 0


def collect(packets_dir: Path, judges: list[Path], settled: Path | None, run: Path, out: Path) -> int:
    key = json.loads((packets_dir.parent / f"{packets_dir.name}-key.json").read_text(encoding="utf-8"))
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    rows = {(r["case"], r["provider"]): r for r in _rows(run)}
    (out / "answers").mkdir(parents=True, exist_ok=True)
    written = 0
    for case_id, names in sorted(key.items()):
        for name, provider in sorted(names.items()):
            row = rows[(case_id, provider)]
            entry: dict[str, Any] = {
                "case": case_id, "provider": provider, "provider_version": provider_version(manifest, provider),
                "answer_sha256": answer_digest((run / "responses" / f"{row['response_sha256']}.txt").read_text(encoding="utf-8")),
                "content_format": row["content_format"], "judges": {},
            }
            for judge in (j for j in judges if (j / case_id).is_dir()):
                decision = json.loads((judge / case_id / f"{name}.json").read_text(encoding="utf-8"))
                entry["judges"][judge.name] = {c: decision[c] for c in COMPONENTS if c in decision}
            if settled is not None and (settled / case_id / f"{name}.json").is_file():
                entry["settled"] = json.loads((settled / case_id / f"{name}.json").read_text(encoding="utf-8"))
            path = out / "answers" / f"{case_id}[{provider}].json"
            path.write_text(json.dumps(entry, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
            written += 1
    print(f"wrote {written} judged answers to {out / 'answers'}")
    return 0


def disagreements(packets_dir: Path, judges: list[Path], into: Path) -> int:
    """Write, per answer the judges decided differently, ``<into>/<case>/<answer>.md``: the components at issue
    with each judge's decision and evidence, for a settler who reads the contract and the answer (never the
    verdict) and writes ``settled/<case>/<answer>.json``. Prints the readers' disagreement per component."""
    into.mkdir(parents=True, exist_ok=True)
    differed: dict[str, list[int]] = {c: [0, 0] for c in COMPONENTS}
    listed = 0
    for case_dir in sorted(p for p in packets_dir.iterdir() if p.is_dir()):
        for answer in sorted(case_dir.glob("answer-*.md")):
            decisions = {j.name: json.loads((j / case_dir.name / f"{answer.stem}.json").read_text(encoding="utf-8"))
                         for j in judges if (j / case_dir.name).is_dir()}
            if len(decisions) < 2:
                raise SystemExit(f"{case_dir.name}/{answer.stem}: judged by {sorted(decisions)}; two judges are needed")
            issues = []
            for component in COMPONENTS:
                said = {name: (d.get(component) or {}).get("present") for name, d in decisions.items()}
                if all(v is None for v in said.values()):
                    continue
                differed[component][1] += 1
                if len(set(said.values())) > 1:
                    differed[component][0] += 1
                    issues.append((component, said))
            if not issues:
                continue
            listed += 1
            lines = [f"# {case_dir.name} / {answer.stem}", "",
                     f"Contract: build/judge/packets/{case_dir.name}/contract.md; answer: build/judge/packets/{case_dir.name}/{answer.name}", ""]
            for component, said in issues:
                lines += [f"## {component}", ""]
                for name, d in decisions.items():
                    entry = d.get(component) or {}
                    extra = f", records {entry['records']}" if entry.get("records") is not None else ""
                    lines += [f"- {name}: present {entry.get('present')}{extra}: {entry.get('evidence', '')}"]
                lines += [""]
            (into / case_dir.name).mkdir(exist_ok=True)
            (into / case_dir.name / f"{answer.stem}.md").write_text("\n".join(lines), encoding="utf-8")
    for component, (d, n) in differed.items():
        print(f"{component}: the judges differed on {d} of {n}")
    print(f"{listed} answers to settle in {into}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("packets")
    p.add_argument("--run", type=Path, required=True)
    p.add_argument("--into", type=Path, required=True)
    p.add_argument("--cases", type=Path, default=None, help="a file of case ids, one a line")
    c = sub.add_parser("collect")
    c.add_argument("--packets", type=Path, required=True)
    c.add_argument("--judges", type=Path, nargs="+", required=True, help="every judge's folder; each case is in two")
    c.add_argument("--settled", type=Path, default=None)
    c.add_argument("--run", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    d = sub.add_parser("disagreements")
    d.add_argument("--packets", type=Path, required=True)
    d.add_argument("--judges", type=Path, nargs="+", required=True, help="every judge's folder; each case is in two")
    d.add_argument("--into", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "disagreements":
        return disagreements(args.packets, args.judges, args.into)
    if args.command == "packets":
        cases = args.cases.read_text(encoding="utf-8").split() if args.cases else None
        return packets(args.run, args.into, cases)
    return collect(args.packets, args.judges, args.settled, args.run, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
