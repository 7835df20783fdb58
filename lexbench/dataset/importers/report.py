"""The import report: what an ``import-corpus`` run imported, skipped and flagged (SPEC §4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

REPORT_NAME = "import-report.json"
PROBES_NAME = "probes.json"
"""Per-case source snippets no contract scores yet (see :mod:`lexbench.dataset.importers`)."""


@dataclass(frozen=True)
class SkippedPage:
    """A page that was not imported: its 1-based index position, corpus key, file and reason."""

    position: int
    key: str
    file: str
    reason: str


@dataclass
class ImportReport:
    """Outcome of one :func:`lexbench.dataset.importers.import_corpus` call.

    ``imported`` lists case ids in suite order; ``flagged`` maps case ids to their flags;
    ``notes`` are format-level caveats (why titles are not scored, where references come from).
    ``seconds`` is the wall-clock import time including compilation.
    """

    format: str
    source: Path
    output: Path
    suite_id: str
    imported: list[str] = field(default_factory=list)
    imported_keys: list[str] = field(default_factory=list)
    """The corpus key of each imported case, parallel to ``imported``."""
    skipped: list[SkippedPage] = field(default_factory=list)
    flagged: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    probes: dict[str, dict[str, object]] = field(default_factory=dict)
    """Per case id, the source's snippets kept for diagnostics (written as ``probes.json``)."""
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        """The ``import-report.json`` value (per format: imported, skipped with reasons, flagged)."""
        flag_counts: dict[str, int] = {}
        for flags in self.flagged.values():
            for flag in flags:
                flag_counts[flag] = flag_counts.get(flag, 0) + 1
        return {
            "format": self.format,
            "source": str(self.source),
            "suite": self.suite_id,
            "counts": {
                "imported": len(self.imported),
                "skipped": len(self.skipped),
                "flagged": len(self.flagged),
                "flags": dict(sorted(flag_counts.items())),
                # Only formats that keep probes report them, so other reports keep their shape.
                **({"with_probes": len(self.probes)} if self.probes else {}),
            },
            "notes": self.notes,
            "imported": self.imported,
            "skipped": [
                {"position": s.position, "key": s.key, "file": s.file, "reason": s.reason} for s in self.skipped
            ],
            "flagged": self.flagged,
            # Sizes only (the snippets themselves are in probes.json): characters of a text, count of a list.
            **({"probes": {cid: _probe_sizes(probe) for cid, probe in self.probes.items()}} if self.probes else {}),
        }

    def summary(self, max_reasons: int = 3) -> str:
        """A short human summary: counts, the first skip reasons, the output and the command to run it."""
        lines = [
            f"import-corpus {self.format}: imported {len(self.imported)}, skipped {len(self.skipped)}, "
            f"flagged {len(self.flagged)} ({self.seconds:.1f} s)",
        ]
        for skip in self.skipped[:max_reasons]:
            lines.append(f"  skipped #{skip.position} {skip.key}: {skip.reason}")
        if len(self.skipped) > max_reasons:
            lines.append(f"  … and {len(self.skipped) - max_reasons} more (see {REPORT_NAME})")
        lines.append(f"suite {self.suite_id} written to {self.output} (details in {self.output / REPORT_NAME})")
        lines.append(f"run it: pytest -n auto --suite={self.output}")
        return "\n".join(lines)


def _probe_sizes(probe: dict[str, object]) -> dict[str, int]:
    """``{"comments": {"chars": 812, ...}}`` → ``{"comments_chars": 812}``; ``{"without": [a, b]}`` → ``{"without": 2}``."""
    sizes: dict[str, int] = {}
    for name, value in probe.items():
        if isinstance(value, dict) and isinstance(value.get("chars"), int):
            sizes[f"{name}_chars"] = value["chars"]
        elif isinstance(value, list):
            sizes[name] = len(value)
    return sizes
