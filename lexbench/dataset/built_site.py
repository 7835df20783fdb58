"""Evidence of a suite whose pages are built from source, then recorded as web archives (issue 28).

A suite such as ``cases/dynamic`` commits an npm project (its ``package-lock.json`` pins every framework),
its rules, cohort and reference bodies, and a ``sources.json`` of this shape::

    {"schema_version": 1, "kind": "built_site", "site": "site",
     "build": ["npm", "run", "build", "--", "{out}"], "recorded": "2026-12-03",
     "cases": {"<case id>": {"page": "<directory under {out}>"}}}

``site`` is the project directory (relative to the suite); ``build`` the argv run in it, ``{out}`` standing
for the directory it must write one self-contained page directory per case into; ``recorded`` the review
date every archive carries (``WARC-Date``); ``cases`` may name a case's page directory (default: its id).

:func:`fetch_built_evidence` runs ``npm ci`` from the lockfile when the project has a ``package.json``
(skipped when ``node_modules`` was installed from the same lockfile), the build, then records each case's
page (:func:`lexbench.dataset.recorder.record_page`, honouring its DOM completion) into the capture path its
rule names, checks the archive's sha256 against the rule's binding, copies the committed reference bodies,
compiles the dataset and publishes the input directory by one rename, as ``fetch-evidence`` does for the
articles suite (the same marker: ``into`` must be absent, empty or a previous fetch of the suite). ``evidence/rendered/<case id>.html`` keeps each rendered DOM for review (not bound).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from lexbench.dataset.case import Delivery
from lexbench.dataset.bindings import DATASET_NAME, SOURCE_INPUTS_NAME
from lexbench.dataset.compile import compile_articles, dump_json, load_rules, sha256_bytes, write_new
from lexbench.dataset.evidence import Fetched, _publish_dir, _write_marker, previous_evidence
from lexbench.dataset.recorder import Recording, RecorderError, record_document, record_page
from lexbench.errors import EvidenceError
from lexbench.jsonfile import InvalidJson, read_json

BUILT_SITE = "built_site"
"""The ``kind`` of a ``sources.json`` whose pages are built and recorded."""
BUILD_TIMEOUT_S = 900.0
"""How long ``npm ci`` or the build may take (seconds) before it is killed."""
CI_STAMP = ".lexbench-ci-lock.sha256"
"""In ``node_modules``: the sha256 of the lockfile it was installed from (so a second fetch skips npm ci)."""


def sources_kind(path: Path) -> str | None:
    """The ``kind`` of a ``sources.json`` (``None`` when it has none, or cannot be read: the articles
    loader reports that)."""
    try:
        sources = read_json(path)
    except (OSError, InvalidJson):
        return None
    return sources.get("kind") if isinstance(sources, dict) else None


def load_built_sources(path: Path) -> dict[str, Any]:
    """Read and check a built-site ``sources.json``; raises :class:`EvidenceError` naming the field."""
    try:
        sources = read_json(path)
    except (OSError, InvalidJson) as exc:
        raise EvidenceError(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(sources, dict) or sources.get("schema_version") != 1 or sources.get("kind") != BUILT_SITE:
        raise EvidenceError(f"{path}: not a sources.json of schema_version 1 and kind {BUILT_SITE!r}")
    build = sources.get("build")
    if not (isinstance(build, list) and build and all(isinstance(a, str) for a in build) and "{out}" in build):
        raise EvidenceError(f"{path}: build must be a non-empty argv list of strings holding \"{{out}}\"")
    if not isinstance(sources.get("site"), str) or not sources["site"]:
        raise EvidenceError(f"{path}: site must name the project directory, relative to the suite")
    try:
        date.fromisoformat(str(sources.get("recorded")))
    except ValueError:
        raise EvidenceError(f"{path}: recorded must be the review date, YYYY-MM-DD") from None
    if not isinstance(sources.get("cases", {}), dict):
        raise EvidenceError(f"{path}: cases must be an object")
    return sources


def build_site(site: Path, build: list[str], out: Path) -> None:
    """``npm ci`` in ``site`` when it has a ``package.json`` (unless ``node_modules`` came from the same
    lockfile), then ``build`` with ``{out}`` replaced by ``out``. Raises :class:`EvidenceError` with the
    command and the end of its output."""
    if (site / "package.json").is_file():
        lock = site / "package-lock.json"
        if not lock.is_file():
            raise EvidenceError(f"{site}: package.json without package-lock.json; the frameworks must be pinned")
        digest = hashlib.sha256(lock.read_bytes()).hexdigest()
        stamp = site / "node_modules" / CI_STAMP
        if not (stamp.is_file() and stamp.read_text().strip() == digest):
            _run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], site)
            stamp.write_text(digest + "\n")
    _run([out.as_posix() if arg == "{out}" else arg for arg in build], site)


def _run(argv: list[str], cwd: Path) -> None:
    try:
        run = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
                             env={**os.environ, "CI": "1"})
    except FileNotFoundError:
        raise EvidenceError(f"{cwd}: cannot run {argv[0]}: not installed (the dynamic suite needs Node.js and npm)") from None
    except subprocess.TimeoutExpired:
        raise EvidenceError(f"{cwd}: `{' '.join(argv)}` did not finish within {BUILD_TIMEOUT_S:.0f} s") from None
    if run.returncode != 0:
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-15:])
        raise EvidenceError(f"{cwd}: `{' '.join(argv)}` exited with {run.returncode}:\n{tail}")


def committed_evidence(suite_root: Path, rel_path: str) -> Path | None:
    """Where the suite commits the evidence file ``rel_path`` (a reference body): under its ``evidence/``,
    else beside its rules; ``None`` when neither has it."""
    for candidate in (suite_root / "evidence" / rel_path, suite_root / rel_path):
        if candidate.is_file():
            return candidate
    return None


def bind_captures(rules_path: Path, recordings: dict[str, Recording]) -> list[str]:
    """Rewrite each recorded case's ``capture.sha256`` in ``rules_path`` (for authors: after a page
    changed, ``lexbench record-archive --suite S --bind``), every other byte of the file as
    :func:`~lexbench.dataset.compile.dump_json` writes it. Returns the ids whose binding changed."""
    rules = read_json(rules_path)
    changed = []
    for case in rules["cases"]:
        recording = recordings.get(case["id"])
        if recording is not None and case["capture"]["sha256"] != sha256_bytes(recording.archive):
            case["capture"]["sha256"] = sha256_bytes(recording.archive)
            changed.append(case["id"])
    rules_path.write_bytes(dump_json(rules))
    return changed


def record_suite(suite_root: Path, work: Path) -> dict[str, Recording]:
    """Build the suite's site into ``work/site`` and record every case's page (its DOM completion
    honoured): ``{case id: Recording}`` in rules order. For authors (``lexbench record-archive --suite``) and
    :func:`fetch_built_evidence`. Raises :class:`EvidenceError` or
    :class:`~lexbench.dataset.recorder.RecorderError` naming the case."""
    rules = load_rules(suite_root / "rules.json")
    sources = load_built_sources(suite_root / "sources.json")
    recorded = date.fromisoformat(sources["recorded"])
    out = work / "site"
    build_site((suite_root / sources["site"]).resolve(), list(sources["build"]), out)
    recordings: dict[str, Recording] = {}
    for rule in rules.cases:
        page = (sources.get("cases", {}).get(rule.id) or {}).get("page", rule.id)
        if not rule.capture.is_archive:
            raise EvidenceError(f"case {rule.id}: a built-site case's capture must be a web archive "
                                f"(.warc.gz), not {rule.capture.path}")
        try:
            if rule.delivery is Delivery.FILE:  # the document itself is the page: no browser, no completion
                recordings[rule.id] = record_document(out / page, recorded=recorded)
                continue
            if not (out / page / "index.html").is_file():
                raise EvidenceError(f"case {rule.id}: the build wrote no {page}/index.html")
            recordings[rule.id] = record_page(out / page, recorded=recorded, completion=rule.dom_completion)
        except RecorderError as exc:
            raise EvidenceError(f"case {rule.id}: {exc}") from None
    return recordings


def fetch_built_evidence(suite_root: Path, *, into: Path) -> Fetched:
    """Build, record, verify and compile a built-site suite into the input directory ``into`` (see the
    module docstring). Raises :class:`EvidenceError` naming the case and the file (a build that fails, an
    archive whose sha256 differs from the rule's binding, a missing reference body), or
    :class:`~lexbench.errors.RulesError` for rules that do not compile."""
    started = time.perf_counter()
    rules = load_rules(suite_root / "rules.json")
    suite = suite_root.resolve().name
    into = into.resolve()
    previous = previous_evidence(into, suite)  # refused before anything is built
    into.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=into.parent, prefix=f".{into.name}.building-"))
    try:
        recordings = record_suite(suite_root, building)
        evidence = building / "evidence"
        for rule in rules.cases:
            recording = recordings[rule.id]
            actual = sha256_bytes(recording.archive)
            if actual != rule.capture.sha256:
                raise EvidenceError(
                    f"case {rule.id}: the archive recorded from its page has sha256 {actual}, but rules.json binds "
                    f"{rule.capture.sha256} for {rule.capture.path}: the page or its first load changed; refused "
                    f"(records: {', '.join(r.path or '(page)' for r in recording.records)})")
            write_new(evidence / rule.capture.path, recording.archive)
            if rule.delivery is not Delivery.FILE:  # a document has no rendered first load
                write_new(evidence / "rendered" / f"{rule.id}.html", recording.rendered_html.encode("utf-8"))
            if rule.body is not None:
                committed = committed_evidence(suite_root, rule.body.reference.path)
                if committed is None:
                    raise EvidenceError(f"case {rule.id}: reference body {rule.body.reference.path} is missing from "
                                        f"the suite ({suite_root / 'evidence'} or {suite_root})")
                write_new(evidence / rule.body.reference.path, committed.read_bytes())
        shutil.rmtree(building / "site")
        output = building / DATASET_NAME
        compile_articles(suite_root / "rules.json", suite_root / "cohort.json", evidence, output)
        dataset_sha256 = sha256_bytes(output.read_bytes())
        if (suite_root / SOURCE_INPUTS_NAME).is_file():
            pinned = read_json(suite_root / SOURCE_INPUTS_NAME)["files"][DATASET_NAME]
            if dataset_sha256 != pinned:
                raise EvidenceError(f"the evidence verifies but compiles to a dataset.json with sha256 {dataset_sha256}, "
                                    f"while {suite_root / SOURCE_INPUTS_NAME} pins {pinned}: rules.json changed after "
                                    "publication; publish the new revision (lexbench publish)")
        _write_marker(building, suite)
        kept = _publish_dir(building, into, previous)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)  # the temporary directory made above: lexbench's alone
        raise
    return Fetched(into=into, cases=len(rules.cases), dataset_sha256=dataset_sha256, files=len(rules.cases),
                   origin="built from the suite's site and recorded", seconds=time.perf_counter() - started, kept=kept)
