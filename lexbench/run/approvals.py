"""Approved historical configurations: when rows made under an older configuration may be reported or
compared beside the current one (SPEC §6, §8; the provider contract's independently kept approvals).

A run's rows are bound to the configuration they were made under (``configuration_sha256``: providers,
their specifications, runtime policy, mode). A report or comparison normally refuses rows of another
configuration. An approvals registry — a small JSON file kept by the caller beside the evidence, never
in the run directory — lists the earlier configurations a reviewer accepted::

    {"schema_version": 1,
     "sources": [{"source_sha256": "<configuration sha256 of the earlier run>",
                  "version": 2,
                  "reason": "engine template 3 → 4 changed only the user agent; reviewed in #31"}]}

``version`` is the scorer version (``versions.scorer`` of the run's manifest) the approved rows were
scored with: an approval covers that configuration as scored by that scorer and nothing else. The JSON
Schema is ``schemas/approvals.schema.json`` (:class:`ApprovalRegistry`).

The caller binds the registry with ``--approvals FILE --approvals-sha256 HEX``. The rules:

- the bytes must have that sha256 (else the registry was changed since it was reviewed);
- the file may not lie inside a run directory of the report or comparison (a saved report cannot
  approve itself, not even with the copy in its own ``report.json``);
- "current" is the configuration of the newest run (latest start time) for ``report --merge``, the
  merged run's manifest for a rebuilt report, and the new run's for ``compare``; every other
  configuration must be approved for the scorer version its rows were scored with; an unknown one
  fails closed, and rows without a recorded configuration cannot be approved;
- a merged run records the binding, a copy of the registry and what it approved in its manifest
  (``approvals``), and its reports copy them; rebuilding its report needs the same registry again
  (same sha256), so removing or changing the file refuses the rebuild;
- a registry that approves nothing here is refused too, so a stale binding is never recorded.

The registry is read as JSON data only: nothing saved is executed. Everything here is pure except
:func:`read_approvals`, the one function that reads the file.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lexbench.errors import LexbenchError
from lexbench.jsonfile import InvalidJson, decode_json, read_regular_file, validation_problem
from lexbench.scoring.evaluate import SCORER_VERSION

MAX_REGISTRY_BYTES = 1 << 20
"""Largest registry read (1 MiB): a registry lists a handful of reviewed configurations."""

_SHA256 = r"^[0-9a-f]{64}$"


class ApprovalError(LexbenchError):
    """An approvals registry is missing, changed, invalid or misplaced, or rows of a configuration that is
    neither current nor approved were given; the message names the run, provider and sha256."""


class ApprovedSource(BaseModel):
    """One approved configuration: its ``source_sha256`` (the ``configuration_sha256`` of the runs it
    covers), the scorer ``version`` their rows were scored with, and the reviewer's ``reason``."""

    model_config = ConfigDict(extra="forbid")

    source_sha256: Annotated[str, Field(pattern=_SHA256, description=(
        "the configuration_sha256 (manifest.json) of the earlier runs this entry approves"))]
    version: Annotated[int, Field(strict=True, ge=1, le=SCORER_VERSION, description=(
        "the scorer version (manifest.json → versions.scorer) their rows were scored with"))]
    reason: Annotated[str, Field(min_length=1, pattern=r"\S", description=(
        "why the reviewer accepts these rows beside the current configuration's"))]


class ApprovalRegistry(BaseModel):
    """``schemas/approvals.schema.json``: ``schema_version`` 1 and the approved ``sources``, each
    (``source_sha256``, ``version``) at most once."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1]
    sources: list[ApprovedSource]

    @model_validator(mode="after")
    def _each_source_once(self) -> ApprovalRegistry:
        seen = set()
        for index, source in enumerate(self.sources):
            key = (source.source_sha256, source.version)
            if key in seen:
                raise ValueError(f"sources.{index}: {source.source_sha256} version {source.version} is listed twice; "
                                 "keep one entry with one reason")
            seen.add(key)
        return self

    def approval(self, configuration_sha256: str, version: int | None) -> ApprovedSource | None:
        """The entry approving ``configuration_sha256`` as scored by scorer ``version``, or ``None``."""
        return next((s for s in self.sources if s.source_sha256 == configuration_sha256 and s.version == version), None)


@dataclass(frozen=True)
class Approvals:
    """A registry bound by the caller: its ``path`` (absolute), ``sha256`` (of its bytes), the parsed
    ``registry`` and ``document``, the JSON exactly as read (copied into manifests and reports)."""

    path: str
    sha256: str
    registry: ApprovalRegistry
    document: dict[str, Any]


@dataclass(frozen=True)
class Source:
    """Rows of one ``run`` (a directory as named) made under one configuration: its sha256 (``None`` when
    not recorded), the scorer version they were scored with, and their providers."""

    run: str
    configuration_sha256: str | None
    scorer_version: int | None
    providers: tuple[str, ...]


def parse_approvals(data: bytes, *, path: str, sha256: str) -> Approvals:
    """The registry in ``data`` (the bytes of the file at ``path``), bound by the caller's ``sha256``.

    Raises :class:`ApprovalError` when the bytes' sha256 differs (the registry changed after review),
    they are not JSON, or they do not match :class:`ApprovalRegistry` (naming the field)."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ApprovalError(f"--approvals {path}: its sha256 is {actual}, not the {sha256} given with "
                            "--approvals-sha256; the registry was changed after it was reviewed: review it again "
                            "and pass its new sha256, or restore the reviewed file")
    try:
        document = decode_json(data)
    except InvalidJson as exc:
        raise ApprovalError(f"--approvals {path}: {exc}") from None
    try:
        registry = ApprovalRegistry.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        problem = validation_problem(first)
        field = ".".join(str(part) for part in first["loc"])
        if field.endswith(".reason"):
            problem = f"{field}: give the reviewer's reason (it is empty or blank)"
        elif field.endswith(".version"):
            problem = (f"{field}: must be a scorer version lexbench knows, a whole number 1 to {SCORER_VERSION} "
                       f"(got {first.get('input')!r})")
        raise ApprovalError(f"--approvals {path}: not an approvals registry ({'field ' if first['loc'] else ''}{problem}); "
                            "see schemas/approvals.schema.json") from None
    return Approvals(path=path, sha256=sha256, registry=registry, document=document)


def read_approvals(path: Path, sha256: str, *, run_dirs: Iterable[Path]) -> Approvals:
    """Read and :func:`parse_approvals` the registry at ``path``, refusing one that lies inside any of
    ``run_dirs`` (the runs it would approve, or the run being written): a saved report cannot approve
    itself. Raises :class:`ApprovalError` naming the path and the fix."""
    resolved = Path(os.path.realpath(path))
    for run_dir in run_dirs:
        if resolved.is_relative_to(os.path.realpath(run_dir)):
            raise ApprovalError(f"--approvals {path}: lies inside the run directory {run_dir}; a run or its report "
                                "cannot approve itself: keep the reviewed registry outside every run directory, "
                                "beside the evidence")
    try:
        data = read_regular_file(resolved, MAX_REGISTRY_BYTES)
    except OSError as exc:
        raise ApprovalError(f"--approvals {path}: cannot be read ({exc.strerror or exc}); give the reviewed "
                            "registry file") from None
    return parse_approvals(data, path=str(resolved), sha256=sha256)


def sources_of(run: str, rows: Iterable[Any], scorer_version: int | None) -> list[Source]:
    """The :class:`Source` of each configuration among ``rows`` (anything with ``configuration_sha256``
    and ``provider``, e.g. :class:`lexbench.run.record.RunRow`) of one ``run``, in order of first row."""
    providers: dict[str | None, set[str]] = {}
    for row in rows:
        providers.setdefault(row.configuration_sha256, set()).add(row.provider)
    return [Source(run, sha, scorer_version, tuple(sorted(names))) for sha, names in providers.items()]


def approve(sources: Sequence[Source], current: str | None, approvals: Approvals | None) -> list[dict[str, Any]]:
    """Check that every source is made under the ``current`` configuration or approved by ``approvals``;
    return what was approved, one entry per configuration::

        {"configuration_sha256": ..., "version": 2, "reason": "...", "runs": [...], "providers": [...]}

    Raises :class:`ApprovalError` listing every source that is neither (naming run, providers and
    sha256), or when ``approvals`` are given but approve nothing here."""
    problems = []
    approved: dict[str, dict[str, Any]] = {}
    for source in sources:
        if source.configuration_sha256 == current:
            continue
        where = f"{source.run}: provider(s) {', '.join(source.providers)}"
        if source.configuration_sha256 is None:
            problems.append(f"{where}: rows record no configuration sha256 (made before it was recorded), so no "
                            f"registry can approve them beside the current configuration {current}; rerun them")
            continue
        entry = approvals.registry.approval(source.configuration_sha256, source.scorer_version) if approvals else None
        if entry is None:
            others = [s.version for s in approvals.registry.sources
                      if s.source_sha256 == source.configuration_sha256] if approvals else []
            why = ("no approvals registry was given (--approvals FILE --approvals-sha256 HEX)" if approvals is None else
                   f"{approvals.path} approves it only for scorer version(s) {', '.join(map(str, others))}, and these "
                   f"rows were scored by version {source.scorer_version}" if others else
                   f"{approvals.path} does not list it (an unknown configuration fails closed)")
            problems.append(f"{where}: configuration sha256 {source.configuration_sha256} is neither the current "
                            f"configuration {current} nor approved: {why}")
            continue
        record = approved.setdefault(entry.source_sha256, {
            "configuration_sha256": entry.source_sha256, "version": entry.version, "reason": entry.reason,
            "runs": [], "providers": []})
        record["runs"] = sorted({*record["runs"], source.run})
        record["providers"] = sorted({*record["providers"], *source.providers})
    if problems:
        raise ApprovalError("refusing rows of configurations that are neither current nor approved:\n  "
                            + "\n  ".join(problems))
    if approvals is not None and not approved:
        raise ApprovalError(f"--approvals {approvals.path}: approves nothing here (every row was made under the "
                            f"current configuration {current}); drop --approvals")
    return sorted(approved.values(), key=lambda record: record["configuration_sha256"])


def approvals_record(approvals: Approvals, approved: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``approvals`` part of a merged run's manifest and of its reports: the binding (``path``,
    ``sha256``), a copy of the ``registry`` and the ``configurations`` it approved (:func:`approve`)."""
    return {"path": approvals.path, "sha256": approvals.sha256, "registry": approvals.document,
            "configurations": approved}


def check_binding(run: str, manifest: Mapping[str, Any], approvals: Approvals | None) -> None:
    """Check ``approvals`` against the binding ``run``'s manifest recorded when it was merged.

    Raises :class:`ApprovalError` when the run is bound but no registry is given, or another one (its
    sha256 differs from the recorded one): the rebuild needs the approval it was made with."""
    bound = manifest.get("approvals")
    if not isinstance(bound, Mapping):
        return
    again = f"--approvals {bound.get('path')} --approvals-sha256 {bound.get('sha256')}"
    if approvals is None:
        raise ApprovalError(f"{run}: holds rows of historical configurations approved by {bound.get('path')} "
                            f"(sha256 {bound.get('sha256')}); give the same approvals again: {again}")
    if approvals.sha256 != bound.get("sha256"):
        raise ApprovalError(f"{run}: was merged under the approvals {bound.get('path')} (sha256 {bound.get('sha256')}), "
                            f"not {approvals.path} (sha256 {approvals.sha256}); give the same approvals again "
                            f"({again}), or merge its shards again under the new registry")


def check_record(run: str, manifest: Mapping[str, Any], sources: Sequence[Source], approvals: Approvals | None) -> None:
    """:func:`approve` the ``sources`` of a run being reported against its manifest's configuration, and
    check that what its manifest records as approved (``approvals``, apart from the registry's path) is
    what ``approvals`` approve now, so its report copies the registry that was given.

    Raises :class:`ApprovalError` as :func:`approve` does, or naming ``run`` when its record differs
    (the manifest was changed after the merge)."""
    approved = approve(sources, manifest.get("configuration_sha256"), approvals)
    if approvals is None:
        return
    def essence(record: Mapping[str, Any]) -> Any:  # the registry's path and the shards' paths may differ
        return (record.get("sha256"), record.get("registry"),
                [{k: v for k, v in c.items() if k != "runs"} for c in record.get("configurations") or []
                 if isinstance(c, Mapping)])

    if essence(manifest.get("approvals") or {}) != essence(approvals_record(approvals, approved)):
        raise ApprovalError(f"{run}: manifest.json → approvals is not what {approvals.path} approves for its rows "
                            "(the run record was changed after the merge); merge its shards again")


def approved_configurations(manifest: Mapping[str, Any]) -> frozenset[str]:
    """The configuration sha256s a merged run's manifest records as approved (empty for other runs)."""
    bound = manifest.get("approvals")
    if not isinstance(bound, Mapping):
        return frozenset()
    return frozenset(c.get("configuration_sha256") for c in bound.get("configurations") or []
                     if isinstance(c, Mapping) and isinstance(c.get("configuration_sha256"), str))


def approvals_from_options(path: str | None, sha256: str | None, *, run_dirs: Iterable[Path]) -> Approvals | None:
    """The registry named by ``--approvals`` and bound by ``--approvals-sha256`` (:func:`read_approvals`),
    or ``None`` when neither is given. Raises :class:`ApprovalError` when only one of them is."""
    if path is None and sha256 is None:
        return None
    if path is None or sha256 is None:
        raise ApprovalError("--approvals FILE and --approvals-sha256 HEX go together: the sha256 binds the registry "
                            "that was reviewed (sha256sum FILE)")
    return read_approvals(Path(path), sha256, run_dirs=run_dirs)
