"""The run record: one directory per benchmark session (SPEC §6).

::

    runs/<suite>-<UTC time>/
      manifest.json     what ran: argv, suite id + dataset sha256, providers, versions, host, times
      results.jsonl     one row per finished item, appended and flushed as items finish
      responses/        every answer's content, named by its sha256 (written by the worker that got it)
      report.md         the leaderboard (rebuilt from results.jsonl by ``lexbench report RUN``)

Rows are written only by the controller process; workers only write content-addressed responses,
so parallel workers never write the same file twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from datetime import UTC, datetime
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lexbench.providers.result import Attempt, ResultMetadata
from lexbench.verdict import ComponentResult, Outcome

KEY_PACKAGES = ("lexbench", "pytest", "pytest-xdist", "httpx", "lxml", "markdownify", "markdown-it-py",
                "pydantic", "trafilatura", "readability-lxml", "pyahocorasick")


class RunRow(BaseModel):
    """One item's result in ``results.jsonl``.

    Units: ``latency_s`` seconds of the final attempt; ``content_chars`` and ``reference_chars``
    Unicode characters. ``response_sha256`` names the saved answer under ``responses/``.
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
    latency_s: float | None = None
    attempts: list[Attempt] = Field(default_factory=list)
    metadata: ResultMetadata = Field(default_factory=ResultMetadata)
    error_type: str | None = None
    error_message: str | None = None
    content_format: str | None = None
    content_chars: int = 0
    reference_chars: int | None = None
    response_sha256: str | None = None
    flags: list[str] = Field(default_factory=list)

    @property
    def item_id(self) -> str:
        return f"{self.case}[{self.provider}]"


def save_response(run_dir: Path, content: str) -> str | None:
    """Store ``content`` as ``responses/<sha256>.txt`` (atomic, idempotent); return the sha256.

    Empty content is not stored and returns ``None``.
    """
    if not content:
        return None
    data = content.encode("utf-8", errors="surrogatepass")
    digest = hashlib.sha256(data).hexdigest()
    target = run_dir / "responses" / f"{digest}.txt"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    return digest


class RunRecorder:
    """Appends rows to ``results.jsonl`` and keeps them for the end-of-session report."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        self.rows: list[RunRow] = []
        self._handle = open(run_dir / "results.jsonl", "a", encoding="utf-8")

    def append(self, row: RunRow) -> None:
        """Write one row and flush it to disk before returning (nothing lost on interruption)."""
        self.rows.append(row)
        self._handle.write(row.model_dump_json() + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def load_rows(run_dir: Path) -> list[RunRow]:
    """Read every row of ``results.jsonl``; a torn last line (killed mid-write) is ignored."""
    rows = []
    path = run_dir / "results.jsonl"
    if not path.exists():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            rows.append(RunRow.model_validate_json(line))
        except ValueError:
            continue
    return rows


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that shape results."""
    versions = {}
    for name in KEY_PACKAGES:
        try:
            versions[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def write_manifest(run_dir: Path, fields: dict[str, Any]) -> None:
    """Write ``manifest.json`` with ``fields`` plus versions and host facts."""
    manifest = {
        **fields,
        "python": sys.version.split()[0],
        "packages": package_versions(),
        "host": {"platform": platform.platform(), "machine": platform.machine(), "cpus": os.cpu_count()},
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's manifest, or an empty dict when it has none."""
    path = run_dir / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def utc_now() -> str:
    """Current UTC time in ISO 8601, seconds precision."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()
