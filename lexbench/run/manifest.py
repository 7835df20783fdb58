"""``manifest.json`` as a session writes it (SPEC §6): a model per part, dumped in field order, so the
file keeps the bytes the dict-built manifest had.

:class:`lexbench.run.record.RunManifest` is the reading side: the parts lexbench relies on when it resumes,
merges or reports a run, whatever wrote it. This is the writing side: every field a session records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from lexbench.providers import ProviderConfig, ProviderSpec, RuntimePolicy
from lexbench.providers.credentials import Redactor, placeholder_names


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuiteFacts(_Part):
    """``suite``: which suite ran, at which revision and review status, from where, with how many cases."""

    id: str
    revision: Any
    review_status: str
    path: str
    dataset_sha256: str | None
    cases: int


class ProviderFacts(_Part):
    """``provider_config.providers.<name>``: how one selected provider was configured (no values of
    credentials, only the names of the variables holding them)."""

    type: str
    output_contract: Any
    dns_mode: Any
    log_level: Any
    credential_variables: list[str]


class ProviderConfigFacts(_Part):
    """``provider_config``: the configuration file (``"built-in"`` when none was given) and its redacted sha256."""

    path: str
    sha256_redacted: str
    providers: dict[str, ProviderFacts]


class Rerun(_Part):
    """``run.rerun``: this run holds only a rerun of earlier failures, not the suite's every item. ``of``:
    ``last-failed`` (pytest ``--lf``: the fail verdicts and crashed items of the last sessions); ``items``:
    how many items the rerun selected."""

    of: str
    items: int


class RunOptions(_Part):
    """``run``: the options that change what the run records (see :class:`lexbench.run.record.ManifestRun`);
    ``shard_source`` says where ``shard`` came from (``--shard=K/N``, or the variables ``--shard=auto``
    read, :func:`lexbench.run.shard.shard_from_environment`)."""

    measure_only: bool
    certified_requested: bool
    shard: str | None
    shard_source: str | None = Field(default=None, exclude_if=lambda value: value is None)  # absent without a shard
    rerun: Rerun | None = Field(default=None, exclude_if=lambda value: value is None)


class Certification(_Part):
    """``certification`` of a run started with ``--certified`` (``null`` otherwise): the checks passed at
    the start, what keeps it from being certified at the end, and the tree that was certified."""

    requested: bool = True
    checks: list[Any]
    problems: list[str] = Field(default_factory=list)
    certified: bool = False
    tree: dict[str, Any]


class SessionRecord(_Part):
    """One entry of ``sessions``: a pytest session that added rows to the run. ``resumed_with``: items
    already recorded when it started; ``workers``: xdist workers (0 without); ``worker_cpus``: the CPU
    of each, or ``null`` when unpinned. Times are UTC ISO 8601, seconds precision."""

    started: str
    finished: str | None = None
    argv: list[str]
    resumed_with: int
    workers: int
    worker_cpus: list[int] | None


class Completion(_Part):
    """``completion``: of the items this run selected over its sessions (a deselected item is not
    this run's: not expected, not missing), how many have a row."""

    expected: int
    recorded: int
    missing: int


# A resumed run keeps its earlier sessions exactly as they were written (any lexbench version).
_Session = Annotated[dict[str, Any] | SessionRecord, Field(union_mode="left_to_right")]


class Manifest(_Part):
    """The whole ``manifest.json`` of a session's run. ``versions``, ``host`` and ``code`` are
    :func:`lexbench.run.record.environment`'s record; ``completion`` is absent until the session finishes."""

    argv: list[str]
    suite: SuiteFacts
    providers: list[str]
    # name -> node id of the user's test recording as that provider; absent when there is none
    test_providers: dict[str, str] = Field(default_factory=dict, exclude_if=lambda value: not value)
    provider_selection: str
    provider_config: ProviderConfigFacts
    runtime_policy: dict[str, Any]
    fetch_timeout_s: float | int
    mode: str
    configuration: dict[str, Any]
    configuration_sha256: str
    run: RunOptions
    certification: Certification | None
    versions: dict[str, Any]
    host: dict[str, Any]
    code: dict[str, Any]
    sessions: list[_Session]
    started: str
    finished: str | None = None
    completion: Completion | None = Field(default=None, exclude_if=lambda value: value is None)

    def record(self) -> dict[str, Any]:
        """The manifest as JSON values, in the order ``manifest.json`` lists them."""
        return self.model_dump(mode="json")


def configuration_record(specs: Mapping[str, ProviderSpec], provider_config: ProviderConfig, policy: RuntimePolicy,
                         *, live: bool) -> dict[str, Any]:
    """What the configuration sha256 covers: everything that changes how an item is fetched or scored,
    redacted (no credential values, no machine-specific paths), so shards on other machines agree."""
    described = {name: spec.model_dump(mode="json", exclude={"name", "description"}) for name, spec in specs.items()}
    return Redactor.from_environment(placeholder_names(described)).value({
        "providers": list(specs),
        "provider_config_sha256_redacted": provider_config.redacted_sha256(),
        "provider_specs": described,
        "runtime_policy": policy.as_record(),
        "mode": "live" if live else "replay",
    })


def provider_config_facts(specs: Mapping[str, ProviderSpec], provider_config: ProviderConfig,
                          path: str) -> ProviderConfigFacts:
    """The manifest's ``provider_config`` part for the selected ``specs``; ``path`` as recorded."""
    return ProviderConfigFacts(
        path=path, sha256_redacted=provider_config.redacted_sha256(),
        providers={name: ProviderFacts(type=spec.type, output_contract=spec.output_contract, dns_mode=spec.dns_mode,
                                       log_level=spec.log_level, credential_variables=spec.credential_variables())
                   for name, spec in specs.items()})
