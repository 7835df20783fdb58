"""The run record: one directory per benchmark session (SPEC §6).

::

    runs/<suite>-<UTC time>/
      manifest.json     what ran: argv, suite id + dataset sha256, provider selection, redacted
                        configuration and its sha256, runtime policy, versions, host, code, sessions, times
      results.jsonl     one row per finished item, appended, flushed and fsynced as items finish
      responses/        every answer's content, named by its sha256 (written by the worker that got it)
      report.md         the reports, rebuilt from manifest.json + results.jsonl by ``lexbench report RUN``
      report.html
      report.json
      session.lock      held by the session's controller (:class:`lexbench.run.rundir.RunLock`)

Rows are written only by the controller process; workers only write content-addressed responses
(and debug logs), so parallel workers never write the same file twice. A directory is read and
written only as lexbench left it (:func:`lexbench.run.rundir.check_run_dir`), and rows and manifest are
validated by their models on every read (:class:`RunRow`, :class:`RunManifest`). Every row carries the run's identity (suite id,
dataset sha256, configuration sha256): resuming (:func:`resume_plan`), merging (:func:`merge_runs`)
and reporting (:func:`checked_rows`) refuse a row that does not match its manifest instead of mixing
results of different suites or settings.

Why one module of this size: it is the run record's on-disk format — rows, saved answers, manifest reading and writing, resume and merge checks — one file format with one set of invariants.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from lexbench.answer import Attempt, ResultMetadata
from lexbench.run.checkout import loadable_tree
from lexbench.errors import RunError
from lexbench.jsonfile import InvalidJson, canonical_sha256, decode_json, read_json, validation_problem
from lexbench.run.approvals import Approvals, ApprovalError, Source, approvals_record, approve
from lexbench.run.attestation import certification_record, record_problems, shared_code_problems
from lexbench.run.rundir import check_run_dir, open_nofollow, write_file
from lexbench.scoring.evaluate import SCORER_VERSION
from lexbench.verdict import ComponentResult, Outcome

MANIFEST_NAME = "manifest.json"
RESULTS_NAME = "results.jsonl"
RESPONSES_DIR = "responses"
MANIFEST_SCHEMA = 1
KEY_PACKAGES = ("lexbench", "pytest", "pytest-xdist", "pytest-timeout", "httpx", "lxml", "markdownify",
                "markdown-it-py", "pydantic", "trafilatura", "readability-lxml", "pyahocorasick")

# Latin words, digit runs, single CJK/kana/hangul characters, single punctuation marks.
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W\u3040-\u30ff"
                    r"\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+|[^\w\s]")
# ASCII answers are counted with a byte table instead (word → "a", space → " ", any other → "."; tokens
# are the runs of "a" plus each "."), many times faster than findall, which builds one string per token, and
# a chunk at a time, so no copy of the whole answer is made. Other answers keep findall: mapping their
# characters through a table is slower on some scripts, and finditer takes twice findall's time.
_ASCII_CLASSES = bytes(
    ord("a") if re.fullmatch(r"\w", chr(code)) else ord(" ") if re.fullmatch(r"\s", chr(code)) else ord(".")
    for code in range(256))  # bytes.translate wants 256 entries; only the first 128 occur
_TOKEN_CHUNK = 1 << 20


MAX_LATENCY_S = 1_000_000.0
"""Largest ``latency_s`` a row may hold (about 11.6 days): far beyond any call's deadline (the fetch
timeout is at most a day) and pytest-timeout's backstop; a larger or negative one is forged."""


Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""A sha256 as 64 lower-case hex digits: the only form a field that becomes a path may take."""


def non_finite_field(value: Any, path: str = "") -> str | None:
    """The dotted path of the first ``inf`` or ``NaN`` float in ``value`` (dicts, lists, scalars), or
    ``None``. JSON has no such numbers; ``1e999`` parses to ``inf`` and breaks every figure after it."""
    if isinstance(value, float):
        return path or "(value)" if not math.isfinite(value) else None
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found = non_finite_field(child, f"{path}.{key}" if path else str(key))
        if found:
            return found
    return None


class RunRow(BaseModel):
    """One item's result in ``results.jsonl``.

    Units: ``latency_s`` seconds of the final attempt; ``content_chars`` and ``reference_chars``
    Unicode characters; ``content_tokens`` the answer's tokens by :func:`count_tokens`.
    ``response_sha256`` names the saved answer under ``responses/``. ``dataset_sha256`` and
    ``configuration_sha256`` tie the row to its run's suite and configuration (``None`` in rows
    written before they were recorded).
    """

    model_config = ConfigDict(extra="forbid")

    suite: str
    case: str
    provider: str
    output_contract: str
    category: str
    track: str
    lang: str
    outcome: Outcome
    failure_class: str | None = None
    explanation: str
    components: list[ComponentResult] = Field(default_factory=list)
    # Bounded, so that a forged figure is refused by name (issue 27 item 9): no call or user's test lasts
    # MAX_LATENCY_S, and no size is negative.
    latency_s: float | None = Field(default=None, ge=0, le=MAX_LATENCY_S)
    attempts: list[Attempt] = Field(default_factory=list)
    metadata: ResultMetadata = Field(default_factory=ResultMetadata)
    error_type: str | None = None
    error_message: str | None = None
    content_format: str | None = None
    content_chars: int = Field(default=0, ge=0)
    content_tokens: int | None = Field(default=None, ge=0)
    reference_chars: int | None = Field(default=None, ge=0)
    response_sha256: Sha256 | None = None
    flags: list[str] = Field(default_factory=list)
    dataset_sha256: Sha256 | None = None
    configuration_sha256: Sha256 | None = None
    # Only for cases with boilerplate probes (trafilatura-eval); absent otherwise, so other rows keep their bytes.
    boilerplate_probes: int | None = Field(default=None, ge=0, exclude_if=lambda value: value is None)
    """How many ``without`` snippets the case lists (:mod:`lexbench.scoring.probes`)."""
    boilerplate_found: int | None = Field(default=None, ge=0, exclude_if=lambda value: value is None)
    """How many of them the answer contains: a diagnostic beside the noise figure, not a verdict."""
    # Only for cases that declare a retrieval (SPEC §2); absent otherwise, so other rows keep their bytes.
    needs_javascript: bool | None = Field(default=None, exclude_if=lambda value: value is None)
    """Whether the case's static shell fails its contracts (the report's "needs JavaScript" breakdown)."""
    # Only for file and resources cases (SPEC §2); absent for text, so other rows keep their bytes.
    delivery: Literal["file", "resources"] | None = Field(default=None, exclude_if=lambda value: value is None)
    """The case's delivery when it is not ``text``: the report's "Deliveries" table counts these rows."""
    # Only for cases replayed from a web archive (SPEC §7); absent otherwise, so other rows keep their bytes.
    unrecorded_requests: list[str] | None = Field(default=None, exclude_if=lambda value: value is None)
    """What the provider asked the replay server for under the case that its archive does not hold (paths
    relative to the page, in arrival order; each got 404): what the page's own first load never needed."""

    # Only in rows of benchmark items recorded since issue 28; absent otherwise, so earlier rows keep their bytes.
    started_at: float | None = Field(default=None, ge=0, exclude_if=lambda value: value is None)
    """When the item started (UTC, seconds since the epoch): with ``finished_at``, the report's pages per
    minute and how many items ran at once (:mod:`lexbench.report.cost`)."""
    finished_at: float | None = Field(default=None, ge=0, exclude_if=lambda value: value is None)
    """When the item's answer was scored and its row built (UTC, seconds since the epoch)."""

    @property
    def item_id(self) -> str:
        """The pytest item name: ``<case-id>[<provider>]``."""
        return item_id(self.case, self.provider)


def item_id(case: str, provider: str) -> str:
    """The name of the item for ``case`` × ``provider``: ``<case-id>[<provider>]``."""
    return f"{case}[{provider}]"


def count_tokens(text: str) -> int:
    """A tokenizer-free size of an answer: words and digit runs, each CJK/kana/hangul character, and
    each punctuation mark count one. Reported beside the noise figure (SPEC §6)."""
    if not text.isascii():
        return len(_TOKEN.findall(text))
    return _ascii_tokens(text)


def _ascii_tokens(data: str | bytes) -> int:
    """:func:`count_tokens` of ASCII text, given as text or as its bytes, a 1 MiB chunk at a time."""
    tokens, last = 0, b" "
    for start in range(0, len(data), _TOKEN_CHUNK):
        piece = data[start:start + _TOKEN_CHUNK]
        classes = (piece.encode("ascii") if isinstance(piece, str) else piece).translate(_ASCII_CLASSES)
        # Each "." is a token, and so is each run of "a": count where a run starts (one may span chunks).
        tokens += (classes.count(b".") + classes.count(b" a") + classes.count(b".a")
                   + (classes[:1] == b"a" and last != b"a"))
        last = classes[-1:]
    return tokens


def save_response(run_dir: Path, content: str) -> str | None:
    """Store ``content`` as ``responses/<sha256>.txt`` (atomic, idempotent); return the sha256.

    Empty content is not stored and returns ``None``. Raises ``OSError`` when it cannot be written.
    """
    return _store(run_dir, content.encode("utf-8", errors="surrogatepass")) if content else None


def save_counted(run_dir: Path | None, content: str) -> tuple[str | None, int]:
    """``(sha256, tokens)``: ``content`` saved as :func:`save_response` does (``None`` when empty, or
    without ``run_dir``: nothing is saved) and its :func:`count_tokens`, both taken from the one UTF-8
    encoding that is written — the answer is encoded once and never copied whole again. Raises
    ``OSError`` when it cannot be written."""
    if not content or run_dir is None:
        return None, count_tokens(content)
    data = content.encode("utf-8", errors="surrogatepass")
    # UTF-8 spends one byte on each character only when every one is ASCII.
    tokens = _ascii_tokens(data) if len(data) == len(content) else count_tokens(content)
    return _store(run_dir, data), tokens


def _store(run_dir: Path, data: bytes) -> str:
    """Write ``data`` as ``responses/<sha256>.txt`` under ``run_dir`` unless it is there; its sha256."""
    digest = hashlib.sha256(data).hexdigest()
    folder = os.path.join(run_dir, RESPONSES_DIR)
    target = os.path.join(folder, f"{digest}.txt")
    if not os.path.lexists(target):
        # os-level calls: pathlib and buffered files cost more than the write itself, once per item.
        # O_NOFOLLOW: a link planted in responses/ fails the write instead of redirecting it.
        tmp = f"{target[:-4]}.{os.getpid()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        try:
            fd = open_nofollow(tmp, flags)
        except FileNotFoundError:  # the first response of the run: create the folder then, not per item
            os.makedirs(folder, exist_ok=True)
            fd = open_nofollow(tmp, flags)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, target)
    return digest


def repair_torn_tail(path: Path) -> int:
    """Cut a torn last line (a row half-written when the process was killed) off ``path``.

    The cut row never reached a final result, so its item runs again on resume. Returns the number
    of bytes removed (0 when the file ends with a newline or does not exist).
    """
    if not path.exists():
        return 0
    size = path.stat().st_size
    if size == 0:
        return 0
    with open(open_nofollow(path, os.O_RDWR), "rb+") as handle:
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return 0
        # Scan back for the last newline; rows are small, so read the tail in chunks.
        position = size
        keep = 0
        while position > 0:
            step = min(65536, position)
            position -= step
            handle.seek(position)
            chunk = handle.read(step)
            index = chunk.rfind(b"\n")
            if index >= 0:
                keep = position + index + 1
                break
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
        return size - keep


SYNC_INTERVAL_S = 0.2
"""``results.jsonl`` is fsynced at most this often, and when the recorder closes. A row is written to
the file before :meth:`RunRecorder.append` returns, so a killed run keeps it; only a crash of the
machine itself can lose the rows of the last interval, and a resume runs those items again. An fsync
per row cost about 3 ms on a slow disk: more than everything else a zero-latency item costs."""


class RunRecorder:
    """Appends rows to ``results.jsonl`` (after cutting a torn last line); ``rows`` keeps the rows this
    session appended as models, ``written`` counts every row appended.

    A row that cannot be written whole (disk full, I/O error) is cut off again, so the file holds only
    whole rows, and every later :meth:`append` fails the same way: the run must stop, not go on calling
    providers whose results cannot be kept."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        self.rows: list[RunRow] = []
        self.written = 0
        self.torn_bytes = repair_torn_tail(run_dir / RESULTS_NAME)
        self.failure: str | None = None
        self._fd = open_nofollow(run_dir / RESULTS_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self._synced = time.monotonic()
        self._unsynced = False

    def append(self, row: RunRow) -> None:
        """Write one row (see :meth:`append_json`)."""
        self.append_json(row.model_dump_json())
        self.rows.append(row)

    def append_json(self, row_json: str) -> None:
        """Write one row given as the JSON a worker made with ``RunRow.model_dump_json()`` (not parsed
        again), fsyncing at most every :data:`SYNC_INTERVAL_S`. Raises :class:`RunError` saying what
        failed and how to continue when the row cannot be written."""
        if self.failure is not None:
            raise RunError(self.failure)
        data = memoryview((row_json + "\n").encode("utf-8"))
        size = os.fstat(self._fd).st_size
        try:
            while data:
                data = data[os.write(self._fd, data):]
            self._unsynced = True
            if time.monotonic() - self._synced >= SYNC_INTERVAL_S:
                self._sync()
        except OSError as exc:
            try:
                os.ftruncate(self._fd, size)  # never leave half a row behind
            except OSError:
                pass  # a torn last line is also cut when the run is resumed
            self.failure = (f"cannot write {RESULTS_NAME} in {self.run_dir}: {exc.strerror or exc}; every row written "
                            f"before it is intact (this session: {self.written}); free space, then continue with "
                            f"--resume={self.run_dir}")
            raise RunError(self.failure) from None
        self.written += 1

    def _sync(self) -> None:
        os.fsync(self._fd)
        self._synced = time.monotonic()
        self._unsynced = False

    def close(self) -> None:
        try:
            if self._unsynced:
                self._sync()
        except OSError:
            pass  # the rows are in the file; only a machine crash before the OS writes them loses them
        try:
            os.close(self._fd)
        except OSError:
            pass


def load_rows(run_dir: Path) -> list[RunRow]:
    """Read every row of ``results.jsonl`` in file order, skipping lines that are not rows (a torn
    last line, killed mid-write); :func:`checked_rows` refuses those instead."""
    return [row for _, row in _read_rows(run_dir)[0]]


def _read_rows(run_dir: Path) -> tuple[list[tuple[int, RunRow]], list[str]]:
    """The valid rows with their (1-based) line numbers, and one line per line that is not a row
    (naming the line and the field), except a last line that is not JSON at all: a row torn by a kill.

    Raises :class:`RunError` when ``results.jsonl`` cannot be read (a directory, a link, unreadable)."""
    rows: list[tuple[int, RunRow]] = []
    damaged: list[str] = []
    path = run_dir / RESULTS_NAME
    try:
        fd = open_nofollow(path, os.O_RDONLY)
    except FileNotFoundError:
        return [], damaged
    except OSError as exc:
        raise RunError(f"{path}: cannot be read ({exc.strerror or exc}); the run record is damaged") from None
    with open(fd, "rb") as handle:
        try:
            data = handle.read()
        except OSError as exc:
            raise RunError(f"{path}: cannot be read ({exc.strerror or exc}); the run record is damaged") from None
    lines = data.decode("utf-8", errors="replace").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = decode_json(line)
        except InvalidJson as exc:
            if number < len(lines):
                damaged.append(f"line {number}: {_json_problem(line, exc)}")
            continue
        problem = non_finite_field(value)
        if problem:
            damaged.append(f"line {number}: field {problem} is not a finite number")
            continue
        try:
            rows.append((number, RunRow.model_validate(value)))
        except ValidationError as exc:
            first = exc.errors()[0]
            damaged.append(f"line {number}: {'field ' if first['loc'] else ''}{validation_problem(first, root='the row')}")
    return rows, damaged


def _json_problem(line: str, error: InvalidJson) -> str:
    # NaN and Infinity are refused by the parser; parse them once more only to name their field.
    try:
        field = non_finite_field(json.loads(line, parse_constant=float))
    except (ValueError, RecursionError):
        field = None
    return f"field {field} is not a finite number" if field else str(error)


@dataclass(frozen=True)
class RunIdentity:
    """What makes rows comparable: the suite (id and dataset sha256) and the configuration sha256."""

    suite: str
    dataset_sha256: str | None
    configuration_sha256: str | None

    @classmethod
    def of_manifest(cls, manifest: Mapping[str, Any]) -> RunIdentity:
        suite = manifest.get("suite", {})
        return cls(suite=suite.get("id", "?"), dataset_sha256=suite.get("dataset_sha256"),
                   configuration_sha256=manifest.get("configuration_sha256"))

    @classmethod
    def of_row(cls, row: RunRow) -> RunIdentity:
        return cls(suite=row.suite, dataset_sha256=row.dataset_sha256, configuration_sha256=row.configuration_sha256)

    def differences(self, other: RunIdentity) -> list[str]:
        """Human-readable lines naming each field where ``other`` differs from this identity."""
        out = []
        if other.suite != self.suite:
            out.append(f"suite {other.suite!r} instead of {self.suite!r}")
        if other.dataset_sha256 != self.dataset_sha256:
            out.append(f"dataset sha256 {_short(other.dataset_sha256)} instead of {_short(self.dataset_sha256)}")
        if other.configuration_sha256 != self.configuration_sha256:
            out.append(f"configuration sha256 {_short(other.configuration_sha256)} instead of "
                       f"{_short(self.configuration_sha256)}")
        return out


def _short(digest: str | None) -> str:
    return digest[:12] if digest else "(none)"


def foreign_rows(rows: Iterable[RunRow], identity: RunIdentity, approved: frozenset[str] = frozenset()) -> list[str]:
    """One line per distinct foreign identity among ``rows``: how many rows, which items, what differs.
    A row made under a configuration in ``approved`` (sha256s) counts as made under ``identity``'s."""
    groups: dict[RunIdentity, list[str]] = {}
    for row in rows:
        other = RunIdentity.of_row(row)
        if other.configuration_sha256 in approved:
            other = replace(other, configuration_sha256=identity.configuration_sha256)
        if other != identity:
            groups.setdefault(other, []).append(row.item_id)
    lines = []
    for other, items in groups.items():
        sample = ", ".join(items[:3]) + (", …" if len(items) > 3 else "")
        lines.append(f"{len(items)} row(s) ({sample}) from {'; '.join(identity.differences(other))}")
    return lines


def duplicate_items(rows: Iterable[RunRow]) -> list[str]:
    """Item ids that appear in more than one row, sorted."""
    counts = Counter(row.item_id for row in rows)
    return sorted(item for item, count in counts.items() if count > 1)


def checked_rows(run_dir: Path, *, approved: frozenset[str] = frozenset()) -> tuple[dict[str, Any], list[RunRow]]:
    """The manifest and rows of ``run_dir``, refusing a run a report must not be built from.

    ``approved``: configuration sha256s whose rows are accepted beside the manifest's (a merged run's
    approved historical configurations, :func:`lexbench.run.approvals.approved_configurations`; whether
    the caller's registry still approves them is checked by :func:`lexbench.run.approvals.approve`).

    Raises :class:`RunError` when ``run_dir`` is not a run directory lexbench left as it is
    (:func:`lexbench.run.rundir.check_run_dir`), its manifest is damaged, a line of ``results.jsonl`` is
    not a row (naming the line and field: a figure out of its bounds too), a row names a provider the
    manifest does not, a row belongs to another suite or configuration than the manifest's, names a case
    the suite does not hold (:func:`unknown_cases`), or an item has more than one row.
    """
    check_run_dir(run_dir, manifest_required=True)
    manifest = read_manifest(run_dir)
    if not manifest:
        raise RunError(f"{run_dir}: not a run directory (no {MANIFEST_NAME})")
    numbered, damaged = _read_rows(run_dir)
    providers = set(manifest.get("providers", []))
    damaged += [f"line {number}: field provider: {row.provider!r} is not a provider of this run "
                f"({', '.join(sorted(providers))})" for number, row in numbered if row.provider not in providers]
    if damaged:
        # Only the last line may be torn (a kill mid-write); a bad line before it is a lost or forged result.
        raise RunError(f"{run_dir / RESULTS_NAME}: {len(damaged)} line(s) are not result rows of this run; the run "
                       "record is damaged:\n  " + "\n  ".join(damaged[:5]))
    rows = [row for _, row in numbered]
    foreign = foreign_rows(rows, RunIdentity.of_manifest(manifest), approved)
    if foreign:
        raise RunError(f"{run_dir}: {RESULTS_NAME} holds rows of another run; refusing to mix them:\n  "
                       + "\n  ".join(foreign))
    unknown = unknown_cases(numbered, manifest.get("suite") or {})  # after the rows of another suite are named so
    if unknown:
        raise RunError(f"{run_dir / RESULTS_NAME}: {len(unknown)} line(s) are not result rows of this run; the run "
                       "record is damaged:\n  " + "\n  ".join(unknown[:5]))
    duplicates = duplicate_items(rows)
    if duplicates:
        raise RunError(f"{run_dir}: {len(duplicates)} item(s) recorded more than once "
                       f"({', '.join(duplicates[:5])}); the run record is inconsistent")
    return manifest, rows


def unknown_cases(numbered: Sequence[tuple[int, RunRow]], suite: Mapping[str, Any]) -> list[str]:
    """Why rows name cases their suite does not hold, one line each: ``line N: field case: …``.

    ``numbered``: (line number, row) pairs; ``suite``: the manifest's ``suite`` facts. The case ids come
    from the suite's ``dataset.json`` at the recorded path when its sha256 is the recorded one; when the
    suite is not there any more (a run copied to another machine), the rows may at least not name more
    cases than the suite had."""
    known = _recorded_case_ids(suite)
    name = suite.get("id", "?")
    if known is not None:
        return [f"line {number}: field case: {row.case!r} is not a case of suite {name} ({suite.get('path')})"
                for number, row in numbered if row.case not in known]
    cases = {row.case for _, row in numbered}
    count = suite.get("cases")
    if isinstance(count, int) and len(cases) > count:
        return [f"field case: the rows name {len(cases)} cases, suite {name} has {count}"]
    return []


def _recorded_case_ids(suite: Mapping[str, Any]) -> frozenset[str] | None:
    """The case ids of the suite a manifest recorded, read from its ``dataset.json`` when that file is
    still at the recorded path with the recorded sha256; else ``None``."""
    path, digest = suite.get("path"), suite.get("dataset_sha256")
    if not isinstance(path, str) or not isinstance(digest, str):
        return None
    from lexbench.dataset.suite import input_dir  # only when a report is built

    try:
        data = (input_dir(Path(path)) / "dataset.json").read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != digest:
        return None
    try:
        cases = json.loads(data)["cases"]
        return frozenset(case["id"] for case in cases)
    except (ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class ResumePlan:
    """What a resumed session does: the manifest it continues and the items already finished."""

    manifest: dict[str, Any]
    completed: frozenset[str]
    torn_bytes: int


def resume_plan(run_dir: Path, identity: RunIdentity, *, shard: str | None, certified: bool) -> ResumePlan:
    """Check that ``run_dir`` can be resumed by a session with ``identity``, ``shard`` (``"K/N"`` or
    ``None``) and ``certified``; cut a torn last row; return the finished items.

    Raises :class:`RunError` naming the run and the mismatch when the directory is not a run, was
    recorded for another suite or configuration, another shard or certification request, or its
    ``results.jsonl`` holds rows of another run or an item twice.
    """
    manifest = read_manifest(run_dir)
    if not manifest:
        raise RunError(f"--resume={run_dir}: not a run directory (no {MANIFEST_NAME}); start a new run with --run-dir")
    recorded = RunIdentity.of_manifest(manifest)
    differences = recorded.differences(identity)
    if differences:
        raise RunError(
            f"--resume={run_dir}: this session has {'; '.join(differences)} — the run was recorded for suite "
            f"{recorded.suite!r} at {manifest.get('suite', {}).get('path', '?')} with providers "
            f"{','.join(manifest.get('providers', []))} and the recorded configuration; resume with the same "
            "--suite, --providers and settings, or start a new run"
        )
    run = manifest.get("run", {})
    if run.get("shard") != shard:
        raise RunError(f"--resume={run_dir}: the run is shard {run.get('shard') or '(none)'}, this session "
                       f"{shard or '(none)'}; pass the same --shard")
    if bool(run.get("certified_requested")) != certified:
        raise RunError(f"--resume={run_dir}: the run was {'' if run.get('certified_requested') else 'not '}"
                       "started as a certified run; resume it with the same --certified setting")
    torn = repair_torn_tail(run_dir / RESULTS_NAME)
    _, rows = checked_rows(run_dir)
    return ResumePlan(manifest=manifest, completed=frozenset(row.item_id for row in rows), torn_bytes=torn)


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that shape results."""
    versions = {}
    for name in KEY_PACKAGES:
        try:
            versions[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def host_facts() -> dict[str, Any]:
    """The machine a session ran on: host name, OS, architecture, CPU count, Python build, and how engine
    and worker processes are contained there (``engine_containment``: ``{"kind": "cgroup"|"subreaper",
    "detail": ...}``, :func:`lexbench.providers.containment.containment_mode`; the fallback says why)."""
    from lexbench.providers.containment import containment_mode  # probes once per process

    return {"hostname": socket.gethostname(), "platform": platform.platform(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "python_implementation": platform.python_implementation(),
            "engine_containment": containment_mode().record()}


def code_state(package_dir: Path | None = None) -> dict[str, Any]:
    """The lexbench code a session ran: its checkout's git commit and tree hash, and every file there
    that pytest or Python could load (:func:`lexbench.run.checkout.loadable_tree`): their count, one sha256
    over them, the paths that differ from the commit (untracked, modified, ignored or deleted) plus any
    uncommitted change under ``lexbench/`` and ``providers/`` (the Node worker too), and the
    ``sys.path`` entries outside the checkout and the Python environment. ``{"git": None}`` when
    lexbench is not running from a git checkout (an installed wheel is identified by its version)."""
    package_dir = package_dir or Path(__file__).resolve().parents[1]  # lexbench/, above lexbench/run/
    root = package_dir.parent
    if not (root / ".git").exists():
        return {"git": None}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30,
                              check=True).stdout

    try:
        commit, tree = git("rev-parse", "HEAD", "HEAD^{tree}").split()
        status = git("status", "--porcelain", "--", "lexbench", "providers", "conftest.py", "pyproject.toml")
        loadable = loadable_tree(root, git("ls-tree", "-r", "-z", "--full-tree", "HEAD"))
    except (OSError, subprocess.SubprocessError, ValueError):
        return {"git": None}
    changed = {line[3:] for line in status.splitlines() if line.strip()}
    dirty = sorted({path for path in changed if "__pycache__" not in path.split("/")} | set(loadable.differing))
    return {"git": {"commit": commit, "tree": tree, "root": str(root), "uncommitted": dirty,
                    "loadable_files": loadable.files, "loadable_sha256": loadable.sha256,
                    "outside_sys_path": loadable.outside_sys_path}}


def environment(engines: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Versions (lexbench, Python, key packages, ``engines`` — per provider, its declared engine, binary
    and expected version, which preflight enforces), host facts and code state for the manifest."""
    packages = package_versions()
    return {
        "versions": {"lexbench": packages.get("lexbench"), "scorer": SCORER_VERSION, "python": sys.version.split()[0],
                     "packages": packages,
                     "engines": dict(sorted((engines or {}).items()))},
        "host": host_facts(),
        "code": code_state(),
    }


def scorer_version(manifest: Mapping[str, Any]) -> int | None:
    """The scorer version a run's rows were scored with (``versions.scorer``; for a merged run, its
    shards' common one), or ``None`` for a run recorded before scorer versions existed."""
    versions = manifest.get("versions")
    if isinstance(versions, Mapping) and "scorer" in versions:
        return versions["scorer"]
    found = {(m.get("versions") or {}).get("scorer") for m in manifest.get("merged_from") or [] if isinstance(m, Mapping)}
    return found.pop() if len(found) == 1 else None


def write_manifest(run_dir: Path, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest.json`` atomically (a kill mid-write leaves the previous manifest intact; a link
    planted at its name is replaced, never written through)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    write_file(run_dir / MANIFEST_NAME, (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ManifestSuite(_Open):
    """``manifest.json`` → ``suite``: the fields resuming, merging and reporting rely on."""

    id: str
    dataset_sha256: Sha256 | None = None
    path: str | None = None
    revision: int | str | None = None
    review_status: str | None = None
    cases: int | None = None


class ManifestRun(_Open):
    """``manifest.json`` → ``run``."""

    shard: Annotated[str, StringConstraints(pattern=r"^[1-9][0-9]*/[1-9][0-9]*$")] | None = None
    measure_only: bool = False
    certified_requested: bool = False
    rerun: dict[str, Any] | None = None
    """``{"of": "last-failed", "items": N}`` when the run is a partial rerun (:class:`lexbench.run.manifest.Rerun`)."""


class ManifestCertification(_Open):
    """``manifest.json`` → ``certification`` (``null`` when no certification was requested)."""

    certified: bool
    problems: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)


class RunManifest(_Open):
    """The parts of ``manifest.json`` lexbench reads back (SPEC §6). A JSON object without ``suite``,
    ``providers``, ``configuration_sha256`` and ``run`` is not a lexbench run manifest. Other fields are
    kept as written."""

    suite: ManifestSuite
    providers: list[str]
    configuration_sha256: Sha256 | None
    configuration: dict[str, Any] = Field(default_factory=dict)
    run: ManifestRun
    certification: ManifestCertification | None = None
    sessions: list[dict[str, Any]] = Field(default_factory=list)
    started: str | None = None
    finished: str | None = None


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's manifest as written, or an empty dict when it has none. Raises :class:`RunError`
    naming the file and field when it cannot be read, is not a lexbench run manifest
    (:class:`RunManifest`) or holds a non-finite number."""
    path = run_dir / MANIFEST_NAME
    if not os.path.lexists(path):
        return {}
    try:
        with open(open_nofollow(path, os.O_RDONLY), "rb") as handle:
            manifest = decode_json(handle.read())
    except (OSError, InvalidJson) as exc:
        raise RunError(f"{path}: cannot be read ({exc}); the run record is damaged") from None
    problem = non_finite_field(manifest)
    if problem:
        raise RunError(f"{path}: field {problem} is not a finite number; the run record is damaged")
    try:
        RunManifest.model_validate(manifest)
    except ValidationError as exc:
        raise RunError(f"{path}: not a lexbench run manifest, or a damaged one ({'field ' if exc.errors()[0]['loc'] else ''}{validation_problem(exc.errors()[0])}); "
                       "lexbench leaves it untouched") from None
    return manifest


def utc_now() -> str:
    """Current UTC time in ISO 8601, seconds precision."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# Manifest fields every shard of one run shares; merge refuses shards that differ in any of them. The
# configuration may differ only where an approvals registry approves the older one (lexbench.run.approvals).
_SHARED_FIELDS = ("suite", "providers")


def merge_runs(run_dirs: Sequence[Path], output: Path, *, approvals: Approvals | None = None) -> dict[str, Any]:
    """Combine the shards of one run into the new run directory ``output`` and return its manifest.

    Every input must be a finished shard (``--shard=K/N``) of the same suite, provider selection,
    configuration and shard count, each shard exactly once and all ``N`` present; rows are checked
    against their manifests and no item may appear in two shards. A shard made under another
    configuration than the newest shard's (latest start) is merged only when ``approvals`` approve it
    (:func:`lexbench.run.approvals.approve`); the merged manifest then records them (``approvals``).
    A shard whose manifest claims certification must hold a certification record that verifies
    against its manifest and rows, and every certified shard must name the same code
    (:mod:`lexbench.run.attestation`); the merged run is certified only when every shard is, and
    then writes its own record.
    ``output`` gets a manifest (the shared fields, the newest shard's configuration, ``merged_from``
    listing each shard and its configuration sha256, every session, first start and last end),
    ``results.jsonl`` sorted by item and the referenced ``responses/``. Reports are not written here.

    Raises :class:`RunError` naming the shard and the mismatch; ``output`` is left untouched then.
    """
    if not run_dirs:
        raise RunError("report --merge: name the shard run directories to merge")
    check_run_dir(output, manifest_required=False)
    if output.exists() and any(output.iterdir()):
        raise RunError(f"report --merge: {output} exists and is not empty; merge into a new directory")
    loaded = []
    for run_dir in run_dirs:
        manifest, rows = checked_rows(run_dir)
        loaded.append((run_dir, manifest, rows))
    first_dir, first, _ = loaded[0]
    newest_dir, newest, _ = max(loaded, key=lambda entry: (entry[1].get("started") or "", str(entry[0])))
    problems = []
    shards: dict[int, Path] = {}
    count = None
    for run_dir, manifest, _ in loaded:
        for name in _SHARED_FIELDS:
            if manifest.get(name) != first.get(name):
                problems.append(f"{run_dir}: {name} differs from {first_dir}'s")
        if (manifest.get("configuration_sha256") == newest.get("configuration_sha256")
                and manifest.get("configuration") != newest.get("configuration")):
            problems.append(f"{run_dir}: configuration differs from {newest_dir}'s under the same sha256")
        if scorer_version(manifest) != scorer_version(first):
            problems.append(f"{run_dir}: scored by scorer version {scorer_version(manifest)}, {first_dir} by "
                            f"{scorer_version(first)}; rescore or rerun one of them")
        if bool(manifest.get("run", {}).get("certified_requested")) != bool(first.get("run", {}).get("certified_requested")):
            problems.append(f"{run_dir}: certified run request differs from {first_dir}'s")
        shard = manifest.get("run", {}).get("shard")
        if not shard:
            problems.append(f"{run_dir}: not a shard (run without --shard); only shards of one run are merged")
            continue
        index, total = (int(part) for part in shard.split("/"))
        if count is None:
            count = total
        elif total != count:
            problems.append(f"{run_dir}: shard {shard} of a {total}-way split, not {count}-way")
        if index in shards:
            problems.append(f"{run_dir}: shard {shard} is also {shards[index]}")
        shards[index] = run_dir
        if not manifest.get("finished"):
            problems.append(f"{run_dir}: shard {shard} did not finish (no end time); resume it with --resume={run_dir}")
    if count is not None:
        missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in shards]
        if missing:
            problems.append(f"shard(s) {', '.join(missing)} missing")
    all_rows = [row for _, _, rows in loaded for row in rows]
    duplicates = duplicate_items(all_rows)
    if duplicates:
        problems.append(f"{len(duplicates)} item(s) recorded by more than one shard ({', '.join(duplicates[:5])})")
    # Certification survives the merge only when every shard's own record verifies (lexbench.run.attestation).
    claimed = [(run_dir, manifest) for run_dir, manifest, rows in loaded if (manifest.get("certification") or {}).get("certified")]
    problems += [f"{run_dir}: {problem}; its certification does not verify (rerun the shard with --certified)"
                 for run_dir, manifest, rows in loaded for problem in record_problems(manifest, rows)]
    problems += shared_code_problems([(str(d), m["certification"].get("record") or {}) for d, m in claimed])
    sources = [Source(str(d), m.get("configuration_sha256"), scorer_version(m),
                      tuple(sorted({r.provider for r in rows} or set(m.get("providers", []))))) for d, m, rows in loaded]
    try:
        approved = approve(sources, newest.get("configuration_sha256"), approvals)
    except ApprovalError as refused:
        problems.append(str(refused))
    if problems:
        raise RunError("report --merge: refusing to merge:\n  " + "\n  ".join(problems))

    output.mkdir(parents=True, exist_ok=True)
    for run_dir, _, rows in loaded:
        for row in rows:
            if row.response_sha256:  # 64 hex digits (RunRow): the name stays inside responses/
                name = f"{row.response_sha256}.txt"
                source, target = run_dir / RESPONSES_DIR / name, output / RESPONSES_DIR / name
                if os.path.lexists(source) and not os.path.lexists(target):
                    target.parent.mkdir(exist_ok=True)
                    _copy_nofollow(source, target)
    ordered = sorted(all_rows, key=lambda r: (r.case, r.provider))
    write_file(output / RESULTS_NAME, "".join(r.model_dump_json() + "\n" for r in ordered).encode("utf-8"))
    by_index = sorted(loaded, key=lambda entry: int(entry[1]["run"]["shard"].split("/")[0]))
    sessions = [s for _, manifest, _ in by_index for s in manifest.get("sessions", [])]
    starts = [m.get("started") for _, m, _ in by_index if m.get("started")]
    ends = [m.get("finished") for _, m, _ in by_index if m.get("finished")]
    certified = all((m.get("certification") or {}).get("certified") for _, m, _ in by_index)
    merged = {key: value for key, value in newest.items()
              if key not in ("argv", "sessions", "started", "finished", "run", "certification", "completion",
                             "host", "code", "versions")}
    merged.update({
        "argv": sys.argv,
        "run": {**{k: v for k, v in first.get("run", {}).items() if k != "shard_source"}, "shard": None},
        "merged_from": [{"path": str(d), "shard": m["run"]["shard"], "shard_source": m["run"].get("shard_source"),
                         "items": len(r), "started": m.get("started"),
                         "finished": m.get("finished"), "host": m.get("host"), "versions": m.get("versions"),
                         "code": m.get("code"), "configuration_sha256": m.get("configuration_sha256")}
                        for d, m, r in by_index],
        "certification": {**{k: v for k, v in (first.get("certification") or {}).items() if k not in ("record", "record_sha256")},
                          "certified": certified and not approved,
                          "problems": ([] if certified else ["not every shard is certified"])
                          + (["holds rows of approved historical configurations"] if approved else [])}
        if first.get("run", {}).get("certified_requested") else None,
        "completion": {"recorded": len(ordered)},
        "sessions": sessions,
        "started": min(starts) if starts else None,
        "finished": max(ends) if ends else None,
    })
    if approved:
        merged["approvals"] = approvals_record(approvals, approved)
    if merged["certification"] and merged["certification"]["certified"]:
        merged["certification"]["record"] = certification_record(
            merged, ordered, shards=[m["certification"]["record_sha256"] for _, m, _ in by_index])
        merged["certification"]["record_sha256"] = canonical_sha256(merged["certification"]["record"])
    write_manifest(output, merged)
    return merged


def _copy_nofollow(source: Path, target: Path) -> None:
    """Copy one saved answer; neither side may be a link (``OSError`` ``ELOOP`` then)."""
    with open(open_nofollow(source, os.O_RDONLY), "rb") as reader, \
            open(open_nofollow(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb") as writer:
        shutil.copyfileobj(reader, writer)
