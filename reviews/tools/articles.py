"""Authoring the ``articles`` suite: review packets, one review's checks, and assembly (REVIEW.md).

    python reviews/tools/articles.py packets --into DIR [--reserves N]
    python reviews/tools/articles.py check DIR/<case>/review.json
    python reviews/tools/articles.py assemble --packets DIR --out cases/articles

A packet is what a reviewer reads for one candidate: ``capture.html`` (decompressed), ``visible.txt``
(the capture rendered by headless Chromium with JavaScript off, as its source saved it, read as
innerText), ``projection.txt`` (the scorer's visible-text lines, where every phrase must be found),
``reference.txt`` (the source's reference, one numbered paragraph line each; for trafilatura-eval the
numbered visible-text lines, since its annotation has snippets, not bodies), ``probes.json`` (titles,
snippets, comment reference where the source has them), ``draft.json`` (the importer's unreviewed
rule, for its mechanics only) and ``review.json`` (what the reviewer fills in; see ``REVIEW_TEMPLATE``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lexbench.dataset.case import (  # noqa: E402
    BodyRule, Capture, CaseKind, CaseRule, CommentContract, PostContract, ReferenceScope, Region, Rules,
    StableGroup, StableTextDefaults, SuiteInfo, TitleBasis,
)
from lexbench.dataset.compile import bind_reference, sha256_bytes  # noqa: E402
from lexbench.dataset.importers import FORMATS, build_rule  # noqa: E402
from lexbench.dataset.importers.common import Page, detect_charset, read_index  # noqa: E402
from lexbench.dataset.importers.html_text import visible_text  # noqa: E402
from lexbench.dataset.importers.reviewed import COMMENTS_DELIMITER, capture_spec, derive_capture, derive_reference  # noqa: E402
from lexbench.dataset.evidence import UPSTREAM, upstream_path  # noqa: E402
from lexbench.dataset.selection import STRATA, select  # noqa: E402

CORPUS = Path(os.environ.get("LEXBENCH_CORPUS") or ROOT.parent / "shared" / "corpus").resolve()
"""The corpus the packets are derived from: ``$LEXBENCH_CORPUS``, else ``../shared/corpus`` beside the checkout."""
COHORT = ROOT / "cases" / "articles" / "cohort.json"
CARRIED_ORIGIN = "(carried from the reviewed comments-real suite, revision 2)"
FORMAT_OF = {"dragnet": "dragnet", "scrapinghub-aeb": "scrapinghub-aeb", "magic-html-bench": "magic-html-bench",
             "trafilatura-eval": "trafilatura-eval", "harvest-forums": "harvest-forums"}
OBSERVED = "2026-12-01"
TASK_PROMPT = "Fetch the page at its URL and return its readable content."
COMMENTS_PROMPT = ("Return the readable content of this page: its title, the complete article and the comments "
                   "displayed under it.")
POSTS_PROMPT = "Fetch the forum thread at its URL and return its readable content, every displayed post with its author."
REVIEW_TEMPLATE: dict[str, Any] = {
    "decision": "approve | reject (reject: say why in basis; a reserve replaces it)",
    "basis": "one or two sentences: what you checked, disagreements between reference and capture",
    "title": "the visible heading, copied as shown (null only for a titleless post collection)",
    "lines": None,
    "regions": [{"label": "lead", "first_line": 1, "last_line": 3}],
    "ending": "the last passage of the article's own prose, copied exactly from reference.txt (>= 10 fragments, ~60+ chars)",
    "stable_groups": [{"id": "site-name", "region": "footer", "phrases": ["..."], "location": "...", "basis": None}],
    "stable_basis": "why these phrases stay: site template text of the capture, not news of the day",
    "page_identity": ["escaped regex of a distinctive headline phrase"],
    "flags": [],
    "comments": None,
    "posts": None,
}


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _sha(path: Path) -> str:
    return hashlib.sha256(_read(path)).hexdigest()


def carried_keys() -> dict[str, set[str]]:
    """The dragnet pages folded in from the earlier comments-real review (cohort candidates 001-012), which
    the selection leaves out of its dragnet stratum."""
    cohort = json.loads(COHORT.read_text(encoding="utf-8"))
    return {"dragnet": {c["source"].split(":", 1)[1].split(" ", 1)[0] for c in cohort["candidates"]
                        if (c.get("source") or "").endswith(CARRIED_ORIGIN)}}


def picks(reserves: int) -> list[Any]:
    index = {stratum.source: read_index(CORPUS / stratum.source) for stratum in STRATA}
    return [pick for pick in select(index, exclude=carried_keys()) if pick.rank < _quota(pick.stratum) + reserves]


def _quota(name: str) -> int:
    return next(stratum.quota for stratum in STRATA if stratum.name == name)


def _render_visible(html_files: list[Path], *, screenshots: bool = False) -> dict[Path, str]:
    """innerText of each capture in headless Chromium, JavaScript off (the sources saved pages so); with
    ``screenshots``, also ``screenshot.png`` beside each capture (1280 px wide, at most 4,000 px tall)."""
    from playwright.sync_api import sync_playwright

    out: dict[Path, str] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False, offline=True)
        for path in html_files:
            page = context.new_page()
            try:
                page.goto(path.as_uri(), wait_until="domcontentloaded", timeout=30000)
                out[path] = page.inner_text("body", timeout=30000)
                if screenshots:
                    page.set_viewport_size({"width": 1280, "height": 900})
                    page.screenshot(path=str(path.parent / "screenshot.png"), full_page=True,
                                    clip={"x": 0, "y": 0, "width": 1280, "height": 4000}, timeout=30000)
            except Exception as exc:  # a packet without a rendering still gets reviewed from the projection
                out[path] = f"(rendering failed: {exc})"
            finally:
                page.close()
        browser.close()
    return out


def _page_and_draft(source: str, key: str, position: int) -> tuple[Any, CaseRule | None, str | None]:
    fmt_name = "magic-html-forum" if source == "magic-html-bench" and key.startswith("forum/") else FORMAT_OF[source]
    fmt = FORMATS[fmt_name]
    rows = [row for row in fmt.rows(CORPUS / source) if row.key == key]
    try:
        page = fmt.open(CORPUS / source)(rows[0])
    except Exception as exc:  # the importer refuses the page: the packet says why, the review decides
        if source != "trafilatura-eval":
            return None, None, f"the importer refuses the page: {exc}"
        # Its title-only importer needs an annotated title; here the title and body come from review.
        row = rows[0]
        capture_file = CORPUS / source / row.html_file
        page = Page(row=row, url=row.url, capture=_read(capture_file), capture_file=capture_file, reference=[],
                    reference_file=CORPUS / source / "evaldata.json", key_tag="")
        return page, None, f"no importer draft: {exc}"
    try:
        if hasattr(fmt, "build_rule"):
            rule, reference = fmt.build_rule(page, position)
        else:
            rule, reference = build_rule(page, position)
    except Exception as exc:  # the draft is a convenience; the review decides
        return page, None, f"no draft: {exc}"
    return page, rule, reference


def source_files(source: str, key: str, page: Any) -> dict[str, Any]:
    """The sources.json entry of one page (files with decompressed sha256, capture, reference spec)."""
    home = CORPUS
    capture_rel = str(page.capture_file.relative_to(home))
    files: dict[str, Any] = {capture_rel: {"sha256": _sha(page.capture_file), "upstream": None}}
    capture = {"file": capture_rel, "field": "html" if source == "harvest-forums" else None}
    reference: dict[str, Any] | None
    ref_rel = str(page.reference_file.relative_to(home)) if page.reference_file else None
    if source == "dragnet":
        reference = {"file": ref_rel, "part": "before_comments", "key": None, "field": None, "lines": None}
    elif source == "scrapinghub-aeb":
        reference = {"file": "scrapinghub-aeb/ground-truth.json", "part": None, "key": Path(key).name, "field": "articleBody", "lines": None}
        ref_rel = reference["file"]
    elif source == "magic-html-bench":
        part, _, page_key = key.partition("/")
        reference = {"file": f"magic-html-bench/{part}/base.json", "part": None, "key": page_key, "field": "content", "lines": None}
        ref_rel = reference["file"]
    elif source == "trafilatura-eval":
        reference = {"from": "capture", "lines": None}
        ref_rel = "trafilatura-eval/evaldata.json"
    else:
        reference = None
        ref_rel = None
    if ref_rel and ref_rel != capture_rel:
        files[ref_rel] = {"sha256": _sha(home / ref_rel), "upstream": None}
    return {"source": source, "key": key, "files": files, "capture": capture, "reference": reference}


def reference_lines_of(entry: dict[str, Any], capture: bytes) -> list[str]:
    """The reference paragraph lines a sources.json entry names, derived as fetch-evidence derives them
    (its ``lines`` cut applied when set)."""
    return derive_reference(entry["reference"], lambda path: _read(CORPUS / path), capture)


def packets(into: Path, reserves: int, *, more: list[str] | None = None, start: int | None = None) -> None:
    """Write the packets of every candidate and ``reserves`` reserves per stratum, numbered from 13 in
    stratum order (candidates first). ``more`` (``<stratum>:<first rank>-<last rank>``) writes further
    reserves only, numbered from ``start``, when the first reserves ran out."""
    into.mkdir(parents=True, exist_ok=True)
    if more:
        chosen = []
        everything = picks(10_000)
        for spec in more:
            name, _, ranks = spec.rpartition(":")
            first, _, last = ranks.partition("-")
            chosen += [p for p in everything if p.stratum == name and int(first) <= p.rank <= int(last or first)]
    else:
        chosen = picks(reserves)
        chosen = [p for p in chosen if p.rank < _quota(p.stratum)] + [p for p in chosen if p.rank >= _quota(p.stratum)]
    todo: list[tuple[Path, Path]] = []
    for number, pick in enumerate(chosen, start=start or 13):
        page, draft, reference = _page_and_draft(pick.source, pick.key, number)
        case_dir = into / f"{number:03d}"
        if page is None:
            case_dir.mkdir(exist_ok=True)
            (case_dir / "REFUSED.txt").write_text(f"{pick.stratum} rank {pick.rank} {pick.key}: {reference}\n", encoding="utf-8")
            print(f"{number:03d} {pick.stratum} rank {pick.rank} {pick.key}: REFUSED {reference}", flush=True)
            continue
        case_dir.mkdir(exist_ok=True)
        entry = source_files(pick.source, pick.key, page)
        (case_dir / "capture.html").write_bytes(page.capture)
        lines = reference_lines_of(entry, page.capture)
        (case_dir / "reference.txt").write_text("".join(f"{i:4d}| {line}\n" for i, line in enumerate(lines, 1)), encoding="utf-8")
        (case_dir / "projection.txt").write_text(visible_text(page.capture, detect_charset(page.capture).served), encoding="utf-8")
        probes: dict[str, Any] = {"index_title": page.row.html_title, "lang": pick.lang, "url": pick.url}
        if pick.source == "trafilatura-eval":
            evaldata = json.loads(_read(CORPUS / "trafilatura-eval/evaldata.json"))
            name = Path(page.row.html_file).name.removesuffix(".gz")
            probes["annotation"] = next((v for v in evaldata.values() if v.get("file") == name), None)
        if pick.source == "dragnet":
            text = _read(CORPUS / entry["reference"]["file"]).decode("utf-8", errors="replace")
            probes["comment_reference"] = COMMENTS_DELIMITER.split(text, maxsplit=1)[-1][:6000]
        (case_dir / "probes.json").write_text(json.dumps(probes, ensure_ascii=False, indent=2), encoding="utf-8")
        meta = {"number": number, "stratum": pick.stratum, "rank": pick.rank, "candidate": pick.rank < _quota(pick.stratum),
                "order_key": pick.order_key, "lang": pick.lang, "url": pick.url, "sources_entry": entry}
        (case_dir / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2), encoding="utf-8")
        if draft is not None:
            (case_dir / "draft.json").write_text(json.dumps(draft.model_dump(mode="json"), ensure_ascii=False, indent=2), encoding="utf-8")
        else:
            (case_dir / "draft.json").write_text(json.dumps({"error": reference}, indent=2), encoding="utf-8")
        todo.append((case_dir, case_dir / "capture.html"))
        print(f"{number:03d} {pick.stratum} rank {pick.rank} {pick.key}", flush=True)
    rendered = _render_visible([path for _, path in todo])
    for case_dir, path in todo:
        (case_dir / "visible.txt").write_text(rendered[path], encoding="utf-8")


BLIND_TEMPLATE: dict[str, Any] = {
    "case": "the case id",
    "title": "the visible heading, copied as shown (null for a titleless post collection)",
    "lines": "[first, last]: the reference.txt lines that are the displayed article/post body (one-based, inclusive)",
    "exclude": [{"line": 0, "reason": "not_displayed | not_in_capture | control_label | widget | attribution",
                 "text": "that reference.txt line, exactly"}],
    "ending": "the last passage of the article's own prose, copied exactly from reference.txt",
    "visible_chrome": ["every phrase of site chrome (site name, top-level navigation, footer, attribution "
                       "labels, controls) you judge visible on first load and stable across the site's pages"],
    "not_visible_chrome": ["chrome text present in the HTML that a reader does not see on first load (hidden, "
                           "clipped, collapsed, hover/click menu)"],
    "identity": ["a distinctive phrase of this page's headline or URL path (not the site name)"],
    "comments": "number of comments displayed on first load with their own author and text, or null",
    "posts": "number of distinct posts of a collection, or null",
    "basis": "one or two sentences per decision that was not obvious",
}


def blind_packets(into: Path, cases: list[str], runs: Path | None) -> None:
    """Write a blind packet per case id: what a second reviewer decides from, and nothing of the entry.

    ``capture.html``, ``visible.txt`` (Chromium innerText, JavaScript off), ``screenshot.png`` (1280 px
    wide, first 4,000 px), ``reference.txt`` (the source's whole reference part, numbered, before any
    review cut or exclusion; for trafilatura-eval the capture's numbered visible-text lines),
    ``probes.json`` (the source's annotations), ``runs.json`` (``prove-visibility --runs``: every text
    run's state and element path, when ``runs`` is given) and ``blind.json`` (:data:`BLIND_TEMPLATE`).
    The rules, review notes and sources.json cut of the case are not copied (REVIEW.md: blind)."""
    sources = json.loads((ROOT / "cases" / "articles" / "sources.json").read_text(encoding="utf-8"))["cases"]
    into = into.resolve()  # Chromium opens each capture by file URI, which must be absolute
    into.mkdir(parents=True, exist_ok=True)
    todo = []
    for case_id in cases:
        entry = sources[case_id]
        case_dir = into / case_id
        case_dir.mkdir(exist_ok=True)
        spec = dict(entry["reference"] or {})
        spec.pop("exclude", None)
        spec["lines"] = None
        capture = derive_capture(capture_spec(entry), lambda path: _read(CORPUS / path))
        (case_dir / "capture.html").write_bytes(capture)
        lines = derive_reference(spec, lambda path: _read(CORPUS / path), capture) if entry["reference"] else []
        (case_dir / "reference.txt").write_text("".join(f"{i:4d}| {line}\n" for i, line in enumerate(lines, 1)),
                                                encoding="utf-8")
        probes: dict[str, Any] = {"source": entry["source"], "key": entry["key"]}
        if entry["source"] == "trafilatura-eval":
            evaldata = json.loads(_read(CORPUS / "trafilatura-eval/evaldata.json"))
            name = Path(entry["capture"]["file"] if isinstance(entry["capture"], dict) else entry["capture"]).name.removesuffix(".gz")
            probes["annotation"] = next((v for v in evaldata.values() if v.get("file") == name), None)
        if entry["source"] == "dragnet":
            text = _read(CORPUS / entry["reference"]["file"]).decode("utf-8", errors="replace")
            probes["comment_reference"] = COMMENTS_DELIMITER.split(text, maxsplit=1)[-1][:6000]
        (case_dir / "probes.json").write_text(json.dumps(probes, ensure_ascii=False, indent=2), encoding="utf-8")
        if runs is not None and (runs / f"{case_id}.json").is_file():
            (case_dir / "runs.json").write_bytes((runs / f"{case_id}.json").read_bytes())
        (case_dir / "blind.json").write_text(json.dumps(BLIND_TEMPLATE, ensure_ascii=False, indent=2), encoding="utf-8")
        todo.append(case_dir / "capture.html")
        print(case_id, flush=True)
    rendered = _render_visible(todo, screenshots=True)
    for path in todo:
        (path.parent / "visible.txt").write_text(rendered[path], encoding="utf-8")


SUITE = ROOT / "cases" / "articles"
REVISE_DIR = ROOT / ".evidence" / "articles-revise"
"""The review's working input directory (git-ignored): rules, cohort and sources of the revision under review,
its compiled ``dataset.json`` and ``evidence/``; ``--suite`` of ``prove-visibility`` and ``validate`` read it."""


def _remap_regions(regions: list[dict[str, Any]], old: list[str], new: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Regions over ``old`` reference lines carried to ``new`` ones (a review excluded or added lines): each keeps
    the surviving lines it held, a region left with none is dropped, and the rest are made contiguous over
    every new line. Returns the regions and the warnings a reviewer must read."""
    import difflib

    mapping: dict[int, int] = {}
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                mapping[i1 + k + 1] = j1 + k + 1
    warnings: list[str] = []
    out: list[dict[str, Any]] = []
    for region in regions:
        kept = [mapping[n] for n in range(region["first_line"], region["last_line"] + 1) if n in mapping]
        if not kept:
            warnings.append(f"region {region['label']!r} lost every line and was dropped: re-cut the regions")
            continue
        out.append({**region, "first_line": min(kept), "last_line": max(kept)})
    for i, region in enumerate(out):
        region["first_line"] = 1 if i == 0 else out[i - 1]["last_line"] + 1
        if i == len(out) - 1:
            region["last_line"] = len(new)
    return out, warnings


def revise(cases: list[str]) -> int:
    """Rebind the named cases after their ``sources.json`` entry changed (an exclusion, a keep, a new cut):
    derive the reference, carry the regions over (:func:`_remap_regions`), rebind sha256/chars/opening/ending
    in ``rules.json``, check the reviewed ending is still in the reference; then rebuild :data:`REVISE_DIR`
    for the whole suite (compile-articles). Prints what the reviewer must check; exit 1 when a case needs
    hand work (a dropped region, a lost ending), 2 when the suite does not compile."""
    import shutil

    from lexbench.dataset.compile import compile_articles

    rules = json.loads((SUITE / "rules.json").read_text(encoding="utf-8"))
    sources = json.loads((SUITE / "sources.json").read_text(encoding="utf-8"))["cases"]
    cache = REVISE_DIR.parent / "articles-revise-lines"
    cache.mkdir(parents=True, exist_ok=True)
    read = lambda path: _read(CORPUS / path)  # noqa: E731
    status = 0
    by_id = {case["id"]: case for case in rules["cases"]}
    rebound: list[tuple[Path, str]] = []  # cached only once rules.json holds their bindings
    unknown = [c for c in cases if c not in by_id]
    if unknown:
        print(f"no such case: {', '.join(unknown)}")
        return 2
    for case in rules["cases"]:
        entry = sources[case["id"]]
        capture = derive_capture(capture_spec(entry), read)
        if case.get("body") is None:
            continue
        lines = derive_reference(entry.get("reference"), read, capture)
        text = "\n".join(lines)
        binding = case["body"]["reference"]
        if sha256_bytes(text.encode("utf-8")) == binding["sha256"]:
            (cache / f"{case['id']}.txt").write_text(text, encoding="utf-8")
            continue
        if case["id"] not in cases:
            print(f"{case['id']}: sources.json changed but the case was not named: revise it too")
            status = max(status, 1)
            continue
        old_path = cache / f"{case['id']}.txt"
        rev1 = ROOT / ".evidence" / "articles" / "evidence" / binding["path"]
        old = old_path.read_text(encoding="utf-8") if old_path.is_file() else rev1.read_text(encoding="utf-8")
        if sha256_bytes(old.encode("utf-8")) != binding["sha256"]:
            print(f"{case['id']}: the text rules.json binds is not at hand ({old_path} or {rev1}): fetch revision 1's "
                  "evidence (git stash; lexbench fetch-evidence --suite articles) and run again")
            return 2
        regions, warnings = _remap_regions(case["body"]["regions"], old.split("\n"), lines)
        case["body"]["regions"] = regions
        case["body"]["reference"] = bind_reference(text, binding["path"]).model_dump(mode="json")
        end = case["body"]["reference_scope"]["end"]
        from lexbench.text import normalise  # the compiler's own test (compile.py): spacing and line breaks aside

        if normalise(end) not in normalise(text):
            warnings.append(f"the reviewed ending is no longer in the reference: {end[:80]!r}")
        rebound.append((old_path, text))
        removed = len(old.split("\n")) - len(lines)
        print(f"{case['id']}: rebound ({len(lines)} lines, {removed:+d} removed); regions "
              + ", ".join(f"{r['label']} {r['first_line']}-{r['last_line']}" for r in regions))
        for warning in warnings:
            print(f"  CHECK: {warning}")
            status = max(status, 1)
    (SUITE / "rules.json").write_text(json.dumps(rules, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for path, text in rebound:
        path.write_text(text, encoding="utf-8")
    building = REVISE_DIR.with_name(REVISE_DIR.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    (building / "evidence").mkdir(parents=True)
    for case in rules["cases"]:
        entry = sources[case["id"]]
        capture = derive_capture(capture_spec(entry), read)
        target = building / "evidence" / case["capture"]["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(capture)
        if case.get("body") is not None:
            ref = building / "evidence" / case["body"]["reference"]["path"]
            ref.parent.mkdir(parents=True, exist_ok=True)
            ref.write_text("\n".join(derive_reference(entry.get("reference"), read, capture)), encoding="utf-8")
    for name in ("rules.json", "cohort.json", "sources.json"):
        shutil.copyfile(SUITE / name, building / name)
    try:
        compile_articles(building / "rules.json", building / "cohort.json", building / "evidence", building / "dataset.json")
    except Exception as exc:  # the reviewer reads why and fixes rules.json
        print(f"the suite does not compile: {exc}")
        return 2
    shutil.rmtree(REVISE_DIR, ignore_errors=True)
    building.rename(REVISE_DIR)
    print(f"rebuilt {REVISE_DIR}: lexbench prove-visibility --suite {REVISE_DIR} --case ... --review")
    return status


BLIND_KINDS = ("title", "ending", "reference scope", "stable groups", "identity", "record count")


def _entry_lines(entry: dict[str, Any]) -> set[int] | None:
    """The source reference lines (numbered as a blind packet's ``reference.txt``: before the cut) an entry keeps."""
    spec = entry.get("reference")
    if not spec:
        return None
    first, last = spec.get("lines") or (1, None)
    if last is None:
        return None  # the whole reference: resolved against the packet's line count by the caller
    cut = set(range(first, last + 1))
    return cut - {first - 1 + item["line"] for item in spec.get("exclude") or []}


def _blind_lines(decision: dict[str, Any]) -> set[int] | None:
    if not decision.get("lines"):
        return None
    first, last = decision["lines"]
    return set(range(first, last + 1)) - {item["line"] for item in decision.get("exclude") or []}


def compare_blind(decision: dict[str, Any], rule: dict[str, Any], entry: dict[str, Any], packet: Path) -> dict[str, tuple[bool, str]]:
    """One frozen blind decision against the entry, per kind of :data:`BLIND_KINDS`: ``{kind: (agree, why)}``.

    title: equal after the scorer's normal form. ending: the entry's reviewed ending and the blind one end in
    the same 40 normalised characters, or the blind line lies inside the entry's passage and the passage's last
    line is one the reviewer kept (the reviewer copies one line; a passage of >= 10 fragments may span several). reference scope: the same set of source lines kept (cut and
    exclusions; the differing line numbers are named). stable groups: every phrase of the entry is in (or
    inside a phrase of) the reviewer's ``visible_chrome`` (a phrase also in ``not_visible_chrome``, for a hidden
    copy elsewhere, still counts: one visible occurrence is what a stable phrase needs).
    identity: every pattern of the entry matches the reviewer's title or one of its identity phrases (as the
    scorer matches: typography folded, so a no-break space or a curly quote in the reviewer's copy still matches).
    record count: the same comment or post baseline (or none on both); a case flagged
    ``comments_displayed_not_contracted`` compares the count its flag gives."""
    import re

    out: dict[str, tuple[bool, str]] = {}
    out["title"] = (_norm(decision.get("title")) == _norm(rule.get("title")),
                    f"blind {decision.get('title')!r} vs entry {rule.get('title')!r}")
    body = rule.get("body")
    if body is not None:
        end = body["reference_scope"]["end"]
        numbered = [line.split("| ", 1)[-1] for line in (packet / "reference.txt").read_text(encoding="utf-8").splitlines()]
        total = len(numbered)
        blind_kept = {_norm(numbered[n - 1]) for n in (_blind_lines(decision) or set()) if 0 < n <= total}
        blind_end = _norm(decision.get("ending"))
        # The blind reviewer copied one whole line; the entry's ending is a passage of >= 10 fragments that
        # may span the last lines. Same decision: the same last 40 characters, or the blind line inside the
        # entry's passage whose last line the blind reviewer also kept in the article.
        same_end = _norm(end)[-40:] == blind_end[-40:] or (
            bool(blind_end) and blind_end in _norm(end) and _norm(end.split("\n")[-1]) in blind_kept)
        out["ending"] = (same_end, f"blind ends {str(decision.get('ending'))[-60:]!r} vs entry {end[-60:]!r}")
        mine = _entry_lines(entry)
        if mine is None:
            mine = set(range(1, total + 1)) - {item["line"] for item in (entry.get("reference") or {}).get("exclude") or []}
        theirs = _blind_lines(decision) or set()
        differ = sorted(mine ^ theirs)
        out["reference scope"] = (not differ, "same lines" if not differ else
                                  f"only entry keeps {sorted(mine - theirs)}, only blind keeps {sorted(theirs - mine)}")
    # A phrase the reviewer accepts once is accepted, though a hidden copy of the same text (a menu's, a
    # popup's) is also refused: a stable phrase needs one visible occurrence (the proof's own rule).
    seen = [_norm(p) for p in decision.get("visible_chrome") or []]
    missing = [p for g in rule.get("stable_groups") or [] for p in g["phrases"]
               if not any(_norm(p) == v or _norm(p) in v for v in seen)]
    out["stable groups"] = (not missing, "every phrase accepted" if not missing else f"not accepted: {missing}")
    texts = [decision.get("title") or ""] + list(decision.get("identity") or [])
    from lexbench.scoring.evaluate import identity_matches  # the scorer's own match: typography folded

    unmatched = [pattern for pattern in rule.get("page_identity") or []
                 if not any(identity_matches(pattern, t) or re.search(pattern, t, re.IGNORECASE) for t in texts)]
    out["identity"] = (not unmatched, "matches" if not unmatched else f"entry patterns {unmatched} vs blind {texts}")
    count = (rule.get("comments") or rule.get("posts") or {}).get("baseline")
    if count is None:  # displayed comments the review counted but left uncontracted (the flag says how many)
        flagged = [re.match(r"comments_displayed_not_contracted: (\d+) comments? (?:is|are) displayed", flag)
                   for flag in rule.get("flags") or []]
        count = next((int(m.group(1)) for m in flagged if m), None)
    blind = decision.get("comments") if rule.get("kind") != "post_collection" else decision.get("posts")
    out["record count"] = (count == blind, f"blind {blind} vs entry {count}")
    return out


def blind_agreement(packets_dir: Path, decision_dirs: list[Path]) -> int:
    """Agreement of the frozen blind decisions with the entries of ``cases/articles`` (REVIEW.md), per kind:
    prints a Markdown table and every disagreement with its reason (:func:`compare_blind`)."""
    rules = {c["id"]: c for c in json.loads((SUITE / "rules.json").read_text(encoding="utf-8"))["cases"]}
    sources = json.loads((SUITE / "sources.json").read_text(encoding="utf-8"))["cases"]
    agree = {k: 0 for k in BLIND_KINDS}
    total = {k: 0 for k in BLIND_KINDS}
    notes = []
    empty = [str(folder) for folder in decision_dirs if not folder.is_dir() or not any(folder.glob("*.json"))]
    if empty:  # a decisions folder from another checkout's history: say so rather than print 0/0
        print(f"blind-agreement: no decisions in {', '.join(empty)} (a folder of <case id>.json files is needed; "
              "to compare with an older revision, pass this checkout's decision folders from that revision's worktree)",
              file=sys.stderr)
        return 2
    missing = [str(packets_dir / path.stem) for folder in decision_dirs for path in folder.glob("*.json")
               if not (packets_dir / path.stem / "reference.txt").is_file()]
    if missing:
        print(f"blind-agreement: no packet for {len(missing)} decision(s), e.g. {missing[0]} (build them with blind-packets)",
              file=sys.stderr)
        return 2
    for folder in decision_dirs:
        for path in sorted(folder.glob("*.json")):
            decision = json.loads(path.read_text(encoding="utf-8"))
            case_id = path.stem
            result = compare_blind(decision, rules[case_id], sources[case_id], packets_dir / case_id)
            for kind, (same, why) in result.items():
                total[kind] += 1
                agree[kind] += same
                if not same:
                    notes.append(f"{case_id} {kind}: {why}")
    print("| decision | agree | rate |\n|---|---|---|")
    for kind in BLIND_KINDS:
        print(f"| {kind} | {agree[kind]}/{total[kind]} | {agree[kind] / total[kind]:.0%} |" if total[kind] else f"| {kind} | 0/0 | n/a |")
    for note in notes:
        print(note)
    return 0


def build(case_dir: Path, review: dict[str, Any]) -> tuple[CaseRule, dict[str, Any], str | None, bytes]:
    """The CaseRule, sources.json entry, reference text and capture bytes of one filled-in review."""
    meta = json.loads((case_dir / "meta.json").read_text(encoding="utf-8"))
    draft = json.loads((case_dir / "draft.json").read_text(encoding="utf-8"))
    entry = json.loads(json.dumps(meta["sources_entry"]))
    capture = (case_dir / "capture.html").read_bytes()
    case_id = review["id"]
    kind = CaseKind(review.get("kind") or draft.get("kind") or "fixed_article")
    body = None
    reference = None
    if entry["reference"] is not None and kind is CaseKind.FIXED_ARTICLE:
        entry["reference"]["lines"] = review.get("lines")
        reference = "\n".join(reference_lines_of(entry, capture))
        body = BodyRule(
            contract_version=4, segmentation_version=3,
            reference=bind_reference(reference, f"references/{case_id}.txt"),
            reference_scope=ReferenceScope(kind=review.get("scope", "complete"), end=review["ending"],
                                           cutoff_evidence=review.get("cutoff_evidence")),
            regions=[Region(**region) for region in review["regions"]],
        )
    charset = detect_charset(capture)
    rule = CaseRule(
        id=case_id,
        name=review.get("name") or review["title"] or draft.get("name"),
        url=meta["url"],
        category=case_id.split("-", 1)[0],
        track="comments" if review.get("comments") else ("posts" if kind is CaseKind.POST_COLLECTION else "body"),
        task_prompt=(COMMENTS_PROMPT if review.get("comments") else POSTS_PROMPT if review.get("posts") else TASK_PROMPT),
        kind=kind,
        lang=case_id.split("-")[2],
        capture=Capture(path=f"captures/{case_id}.html", sha256=sha256_bytes(capture),
                        content_type=f"text/html; charset={charset.served}"),
        title=review["title"],
        title_basis=TitleBasis.OBSERVED if review["title"] else TitleBasis(review.get("title_basis", "not_in_source")),
        body=body,
        stable_text_review_defaults=StableTextDefaults(basis=review["stable_basis"], observed=date.fromisoformat(OBSERVED)),
        stable_groups=[StableGroup(**group) for group in review["stable_groups"]],
        page_identity=review["page_identity"],
        flags=review.get("flags", []),
        comments=CommentContract(**review["comments"]) if review.get("comments") else None,
        posts=PostContract(**review["posts"]) if review.get("posts") else None,
        **_probes(case_dir),
    )
    return rule, entry, reference, capture


def _probes(case_dir: Path) -> dict[str, Any]:
    """trafilatura-eval's ``with``/``without`` snippets of the page, as the rule's diagnostic probes."""
    annotation = json.loads((case_dir / "probes.json").read_text(encoding="utf-8")).get("annotation")
    if not annotation or "probes" not in CaseRule.model_fields:
        return {}
    return {"probes": {"with": [s for s in annotation.get("with", []) if s.strip()],
                       "without": [s for s in annotation.get("without", []) if s.strip()]}}


def check(review_path: Path, packet: Path | None = None) -> int:
    """Build one review's rule and run the REVIEW.md checks on its evidence; print problems, return 1 if any.

    ``packet`` is the candidate's packet folder (default: the review's own folder)."""
    from lexbench.evals.articles import case_problems  # the same checks the suite's tests run

    case_dir = packet or review_path.parent
    review = json.loads(review_path.read_text(encoding="utf-8"))
    if review.get("decision") != "approve":
        print(f"{case_dir.name}: decision is {review.get('decision')!r}: nothing to check")
        return 0
    try:
        rule, _entry, reference, capture = build(case_dir, review)
    except Exception as exc:
        print(f"{case_dir.name}: the review does not build a valid rule: {exc}")
        return 1
    problems = case_problems(rule, capture, reference)
    for problem in problems:
        print(f"{case_dir.name}: {problem}")
    if not problems:
        print(f"{case_dir.name}: ok ({rule.id})")
    return 1 if problems else 0


def _fallback_id(meta: dict[str, Any]) -> str:
    from lexbench.dataset.importers.common import domain_slug

    return f"article-{meta['number']:03d}-{(meta['lang'] or 'en')[:3]}-{domain_slug(meta['url']) or 'page'}"


def assemble(packets_dir: Path, out: Path, evidence: Path, blind: Path | None = None, resolutions: Path | None = None) -> int:
    """Reviews → ``rules.json``, ``cohort.json``, ``sources.json`` of the suite and the evidence files.

    Approved reviews become cases in packet order; a rejected candidate stays in the cohort as
    ``replaced`` (or ``removed``) with its decision and basis; unused reserve numbers below the highest
    used one are recorded as gaps."""
    from lexbench.dataset.cohort import Candidate, CandidateStatus, Cohort, Decision, Gap, RevisionEntry
    from lexbench.dataset.compile import dump_json

    rules: list[CaseRule] = []
    sources: dict[str, Any] = {}
    notes: dict[str, Any] = {}
    resolved = json.loads(resolutions.read_text(encoding="utf-8")) if resolutions else {}
    candidates: list[Candidate] = []
    decisions: list[Decision] = []
    used: set[int] = set()
    reviews: dict[int, tuple[Path, dict[str, Any], dict[str, Any]]] = {}
    for case_dir in sorted(packets_dir.iterdir()):
        review_path = case_dir / "review.json"
        if not review_path.is_file():
            continue
        meta = json.loads((case_dir / "meta.json").read_text(encoding="utf-8")) if (case_dir / "meta.json").is_file() else {
            "number": int(case_dir.name), "url": "", "lang": "en"}
        reviews[int(case_dir.name)] = (case_dir, json.loads(review_path.read_text(encoding="utf-8")), meta)
    replacements = {}
    for number, (case_dir, review, meta) in sorted(reviews.items()):
        if review.get("decision") != "approve":
            target = review.get("replaced_by")
            replacements[number] = target
    for number, (case_dir, review, meta) in sorted(reviews.items()):
        used.add(number)
        entry_source = meta.get("sources_entry", {})
        origin = f"{entry_source.get('source', 'corpus')}:{entry_source.get('key', case_dir.name)}"
        if meta.get("rank") is not None:
            origin += f" (stratum {meta['stratum']}, rank {meta['rank']})"
        elif meta.get("stratum"):
            origin += " " + CARRIED_ORIGIN
        if review.get("decision") == "approve":
            rule, entry, reference, capture = build(case_dir, review)
            if rule.kind is not CaseKind.FIXED_ARTICLE:
                entry["reference"] = None
            for path in entry["files"]:
                # Every trafilatura-eval page of the suite is under tests/eval at the pinned commit (checked by path).
                folder = "eval" if entry["source"] == "trafilatura-eval" else None
                entry["files"][path]["upstream"] = upstream_path(path, folder=folder)
            rules.append(rule)
            sources[rule.id] = entry
            note: dict[str, Any] = {"packet": case_dir.name, "basis": review.get("basis")}
            second = blind / f"{case_dir.name}.json" if blind else None
            if second is not None and second.is_file():
                same = compare(review, json.loads(second.read_text(encoding="utf-8")),
                               (case_dir / "projection.txt").read_text(encoding="utf-8"))
                differs = [kind for kind, value in same.items() if not value]
                note["second_review"] = "agreed on every decision" if not differs else "differed on " + ", ".join(differs)
                if differs and case_dir.name in resolved:
                    note["resolution"] = resolved[case_dir.name]
            notes[rule.id] = note
            (evidence / "captures").mkdir(parents=True, exist_ok=True)
            (evidence / "captures" / f"{rule.id}.html").write_bytes(capture)
            if reference is not None and rule.body is not None:
                (evidence / "references").mkdir(parents=True, exist_ok=True)
                (evidence / "references" / f"{rule.id}.txt").write_bytes(reference.encode("utf-8"))
            candidates.append(Candidate(id=rule.id, name=rule.name, url=rule.url, status=CandidateStatus.APPROVED,
                                        added_in=1, source=origin))
        else:
            cid = review.get("id") or _fallback_id(meta)
            replacement = review.get("replaced_by")
            if "replaced_by" not in review:  # reviewers name the replacing reserve packet in the basis
                import re

                named = [int(n) for n in re.findall(r"\b(1[0-3]\d)\b", review.get("basis") or "")]
                replacement = next((n for n in named if n in reviews and reviews[n][1].get("decision") == "approve"), None)
            replacement_id = None
            if replacement is not None and int(replacement) in reviews:
                replacement_id = reviews[int(replacement)][1].get("id")
            status = CandidateStatus.REPLACED if replacement_id else CandidateStatus.REMOVED
            candidates.append(Candidate(id=cid, name=review.get("title") or meta.get("url") or cid, url=meta.get("url") or "about:blank",
                                        status=status, added_in=1, source=origin))
            decisions.append(Decision(action="replace" if replacement_id else "remove", case=cid, replacement=replacement_id,
                                      revision=1, reviewed=date.fromisoformat(OBSERVED), basis=review.get("basis") or "rejected in review",
                                      original={"id": cid, "url": meta.get("url"), "source": origin}))
    highest = max(used)
    gaps = [Gap(number=n, reason="a reserve of its stratum that no rejection called on (selection order kept)")
            for n in range(1, highest + 1) if n not in used]
    suite = SuiteInfo(id="articles", revision=1, name="articles: reviewed real pages from public extraction benchmarks",
                      description="100 reviewed cases over frozen real pages (see cases/articles/README.md)")
    rule_set = Rules(suite=suite, cases=rules)
    cohort = Cohort(schema_version=1, suite="articles", revision=1, candidates=candidates, gaps=gaps, decisions=decisions,
                    history=[RevisionEntry(revision=1, date=date.fromisoformat(OBSERVED), inventory=len(rules),
                                           summary="first revision: candidates drawn by lexbench.dataset.selection, each reviewed")])
    out.mkdir(parents=True, exist_ok=True)
    (out / "rules.json").write_bytes(dump_json(rule_set.model_dump(mode="json")))
    (out / "cohort.json").write_bytes(dump_json(cohort.model_dump(mode="json")))
    upstream = {name: UPSTREAM[name] for name in sorted({entry["source"] for entry in sources.values()})}
    (out / "sources.json").write_bytes(dump_json({"schema_version": 1, "evidence_home": "../shared/corpus",
                                                 "upstream": upstream, "cases": sources}))
    (out / "review-notes.json").write_bytes(dump_json({"schema_version": 1, "observed": OBSERVED, "cases": notes}))
    print(f"assembled {len(rules)} cases, {len(decisions)} decisions, {len(gaps)} gaps into {out}; evidence in {evidence}")
    return 0


def _norm(text: str | None) -> str:
    from lexbench.text import normalise

    return normalise(text or "").casefold()


def _absolute_starts(review: dict[str, Any]) -> list[int]:
    offset = (review.get("lines") or [1])[0] - 1
    return [region["first_line"] + offset for region in review.get("regions") or []][1:]


def _phrases(review: dict[str, Any]) -> set[str]:
    return {_norm(phrase) for group in review.get("stable_groups") or [] for phrase in group.get("phrases", [])}


def _matches(patterns: list[str], text: str | None) -> bool:
    import re

    return bool(text) and all(re.search(pattern, text or "", re.IGNORECASE) for pattern in patterns)


def compare(first: dict[str, Any], second: dict[str, Any], page: str) -> dict[str, bool]:
    """Whether two reviews of one packet reached the same decision, per decision kind (see :func:`agreement`)."""
    same: dict[str, bool] = {"decision": first.get("decision") == second.get("decision")}
    if first.get("decision") == second.get("decision") == "approve":
        same["title"] = _norm(first.get("title")) == _norm(second.get("title"))
        if first.get("ending") or second.get("ending"):
            same["ending"] = _norm(first.get("ending"))[-40:] == _norm(second.get("ending"))[-40:]
            a, b = first.get("lines"), second.get("lines")
            same["scope"] = (a is None and b is None) or (a is not None and b is not None and abs(a[0] - b[0]) <= 2 and abs(a[1] - b[1]) <= 2)
            sa, sb = _absolute_starts(first), _absolute_starts(second)
            within = lambda xs, ys: all(any(abs(x - y) <= 2 for y in ys) for x in xs)  # noqa: E731
            same["regions (same cuts)"] = within(sa, sb) and within(sb, sa)
            coarse, fine = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
            same["regions"] = within(coarse, fine)
        same["stable groups"] = len(_phrases(first) & _phrases(second)) >= 2
        same["identity"] = _matches(first.get("page_identity") or [], page) and _matches(second.get("page_identity") or [], page)
        count = lambda r: (r.get("comments") or r.get("posts") or {}).get("baseline")  # noqa: E731
        same["record count"] = count(first) == count(second)
    return same


def agreement(packets_dir: Path, blind_dir: Path) -> int:
    """Per decision kind, how often the blind second review reached the first review's decision.

    Kinds and what counts as the same decision: ``decision`` (approve/reject); ``title`` (equal after
    the scorer's normal form); ``ending`` (the same final passage: the normalised endings share their
    last 40 characters); ``scope`` (the reference cut starts and ends within 2 lines); ``regions`` (the reviews cut
    at the same chapter breaks: every boundary of the coarser lies within 2 lines of one of the finer's,
    so they differ at most in how many adjacent chapters were merged under the five-region cap);
    ``regions (same cuts)`` (the stricter: every boundary of each lies within 2 lines of the other's); ``stable groups`` (at
    least two phrases in common); ``identity`` (both reviews' patterns match the capture's text);
    ``record count`` (equal comment/post baseline, or both none). Only packets both approved are
    compared beyond ``decision``."""
    kinds = ["decision", "title", "ending", "scope", "regions", "regions (same cuts)", "stable groups", "identity",
             "record count"]
    agree = {kind: 0 for kind in kinds}
    total = {kind: 0 for kind in kinds}
    rows = []
    for blind_path in sorted(blind_dir.glob("*.json")):
        first_path = packets_dir / blind_path.stem / "review.json"
        if not first_path.is_file():
            continue
        first = json.loads(first_path.read_text(encoding="utf-8"))
        second = json.loads(blind_path.read_text(encoding="utf-8"))
        page = (packets_dir / blind_path.stem / "projection.txt").read_text(encoding="utf-8")
        same = compare(first, second, page)
        for kind, value in same.items():
            total[kind] += 1
            agree[kind] += value
        rows.append((blind_path.stem, [kind for kind, value in same.items() if not value]))
    print("| decision kind | agreed | compared | rate |\n|---|---|---|---|")
    for kind in kinds:
        rate = f"{agree[kind] / total[kind]:.0%}" if total[kind] else "n/a"
        print(f"| {kind} | {agree[kind]} | {total[kind]} | {rate} |")
    for packet, differs in rows:
        print(f"{packet}: {'agree on all' if not differs else 'differ on ' + ', '.join(differs)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("packets")
    p.add_argument("--into", type=Path, required=True)
    p.add_argument("--reserves", type=int, default=3)
    p.add_argument("--more", action="append", default=None, help="<stratum>:<first>-<last> reserve ranks only")
    p.add_argument("--start", type=int, default=None, help="the first packet number of --more")
    c = sub.add_parser("check")
    c.add_argument("review", type=Path, nargs="+")
    c.add_argument("--packet", type=Path, default=None, help="the packet folder when the review lives elsewhere")
    a = sub.add_parser("assemble")
    a.add_argument("--packets", type=Path, required=True)
    a.add_argument("--out", type=Path, required=True)
    a.add_argument("--evidence", type=Path, required=True)
    a.add_argument("--blind", type=Path, default=None, help="the blind second reviews (NNN.json)")
    a.add_argument("--resolutions", type=Path, default=None, help="how each disagreement was resolved ({packet: text})")
    b = sub.add_parser("blind-packets")
    b.add_argument("--into", type=Path, required=True)
    b.add_argument("--runs", type=Path, default=None, help="prove-visibility --runs DIR")
    b.add_argument("cases", nargs="+")
    r = sub.add_parser("revise", help="rebind cases after their sources.json entry changed; rebuild .evidence/articles-revise")
    r.add_argument("cases", nargs="*")
    ba = sub.add_parser("blind-agreement", help="frozen blind decisions against the entries, per decision kind")
    ba.add_argument("--packets", type=Path, required=True)
    ba.add_argument("decisions", type=Path, nargs="+", help="folders of <case id>.json decisions")
    g = sub.add_parser("agreement")
    g.add_argument("--packets", type=Path, required=True)
    g.add_argument("--blind", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "agreement":
        return agreement(args.packets, args.blind)
    if args.command == "blind-agreement":
        return blind_agreement(args.packets, args.decisions)
    if args.command == "revise":
        return revise(args.cases)
    if args.command == "blind-packets":
        blind_packets(args.into, args.cases, args.runs)
        return 0
    if args.command == "assemble":
        return assemble(args.packets, args.out, args.evidence, args.blind, args.resolutions)
    if args.command == "packets":
        packets(args.into, args.reserves, more=args.more, start=args.start)
        return 0
    return max(check(path, args.packet) for path in args.review)


if __name__ == "__main__":
    raise SystemExit(main())
