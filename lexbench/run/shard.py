"""Splitting one run across machines: ``--shard=K/N`` and ``--shard=auto`` (SPEC §6).

Shard ``K`` of ``N`` runs the items whose :func:`shard_of` is ``K``. The assignment depends only on
the item's case position in the suite and its provider's position in the selection, never on which
items were collected or deselected, so every process (controller, xdist workers, other machines)
agrees on it without talking to the others.

Balance: items are dealt round-robin in case order, with each case's providers rotated by one place
per case. Every shard gets the same number of items (±1) *and* a mix of providers — a plain
round-robin would give shard ``k`` every item of provider ``k`` whenever ``N`` divides the number of
providers, putting the slowest provider on one machine.

Example, 3 cases × 2 providers (``a``, ``b``), ``N = 2``::

    deal order   c1[a] c1[b] c2[b] c2[a] c3[a] c3[b]
    shard        1     2     1     2     1     2      → shard 1: c1[a], c2[b], c3[a]

``--shard=auto`` reads ``K`` and ``N`` from the environment the machine's engine sets
(:data:`ENGINES`, :func:`shard_from_environment`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
_WHOLE = re.compile(r"^\s*[0-9]+\s*$")

AUTO = "auto"
"""The ``--shard`` value that reads the shard from the environment."""


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``. ``source`` says where it came from, for the manifest:
    ``"--shard=K/N"`` or the environment variables ``--shard=auto`` read; it takes no part in equality."""

    index: int
    count: int
    source: str | None = field(default=None, compare=False)

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Parse ``"K/N"`` with ``1 ≤ K ≤ N``; raises ``ValueError`` with the accepted form."""
        match = _SPEC.match(text)
        if not match:
            raise ValueError(f"{text!r}: expected K/N or auto, e.g. 2/4")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise ValueError(f"{text!r}: K must be between 1 and N (N ≥ 1)")
        return cls(index=index, count=count, source=f"--shard={index}/{count}")

    @classmethod
    def from_option(cls, text: str, environ: Mapping[str, str]) -> Shard:
        """The shard ``--shard=text`` names: ``"auto"`` reads ``environ``
        (:func:`shard_from_environment`), anything else is ``K/N`` (:meth:`parse`). Raises
        ``ValueError`` with what to change."""
        if text.strip().lower() == AUTO:
            return shard_from_environment(environ)
        return cls.parse(text)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_position: int, provider_position: int, providers: int) -> bool:
        """Whether this shard runs the item of the case at ``case_position`` (0-based, suite order)
        and the provider at ``provider_position`` (0-based, selection order) of ``providers``."""
        return shard_of(case_position, provider_position, providers, self.count) == self.index


def shard_of(case_position: int, provider_position: int, providers: int, count: int) -> int:
    """The 1-based shard of ``count`` that runs one item (positions are 0-based; see the module docstring)."""
    if not 0 <= provider_position < providers:
        raise ValueError(f"provider position {provider_position} outside 0..{providers - 1}")
    dealt = case_position * providers + (provider_position - case_position) % providers
    return dealt % count + 1


@dataclass(frozen=True)
class Engine:
    """Where one engine puts a job's position among its parallel copies: ``index_variable`` counts
    from ``first`` (0 or 1), ``count_variable`` holds how many copies run."""

    name: str
    index_variable: str
    count_variable: str
    first: int
    hint: str  # how to set the pair, for the error that finds neither


COUNT_VARIABLE = "LEXBENCH_SHARD_COUNT"
"""How many shards run, set by the Kubernetes Job's manifest (``spec.completions``) or a matrix."""

INDEX_VARIABLE = "LEXBENCH_SHARD_INDEX"
"""This job's shard, 1-based like ``K`` in ``--shard=K/N``: the pair lexbench reads where the engine
gives jobs no index of its own, such as a GitHub Actions matrix (``${{ matrix.shard }}``)."""

ENGINES: tuple[Engine, ...] = (
    Engine("Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", COUNT_VARIABLE, 0,
           f"a Job with completionMode: Indexed and env {COUNT_VARIABLE} equal to its spec.completions"),
    Engine("GitLab CI", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1, "a job with parallel: N"),
    Engine("CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0, "a job with parallelism: N"),
    Engine("Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0, "a step with parallelism: N"),
    Engine("lexbench", INDEX_VARIABLE, COUNT_VARIABLE, 1,
           f"any engine, e.g. a GitHub Actions matrix job with env {INDEX_VARIABLE}: ${{{{ matrix.shard }}}} "
           f"and {COUNT_VARIABLE}: ${{{{ strategy.job-total }}}}"),
)
"""The engines ``--shard=auto`` knows, in the order their variables are looked up, as each documents them:

- Kubernetes Indexed Job (kubernetes.io/docs/tasks/job/indexed-parallel-processing-static): the Job
  controller gives each pod ``JOB_COMPLETION_INDEX``, ``0 .. spec.completions - 1``. The count is not in
  the pod's environment, so the Job's manifest sets :data:`COUNT_VARIABLE` to ``spec.completions``.
- GitLab CI, ``parallel: N`` (docs.gitlab.com/ci/variables/predefined_variables): ``CI_NODE_INDEX``
  ``1 .. N`` and ``CI_NODE_TOTAL`` ``N``; a job without ``parallel:`` has ``CI_NODE_TOTAL=1`` and no index.
- CircleCI, ``parallelism: N`` (circleci.com/docs/variables): ``CIRCLE_NODE_INDEX`` ``0 .. N - 1`` and
  ``CIRCLE_NODE_TOTAL`` ``N``.
- Buildkite, ``parallelism: N`` (buildkite.com/docs/pipelines/environment-variables,
  buildkite.com/docs/tutorials/parallel-builds): ``BUILDKITE_PARALLEL_JOB`` ``0 .. N - 1`` and
  ``BUILDKITE_PARALLEL_JOB_COUNT`` ``N``.
- GitHub Actions sets no such variable: a matrix job's ``strategy.job-index`` and ``strategy.job-total``
  are expression contexts only (docs.github.com/actions/reference/workflows-and-actions/contexts). The
  job sets lexbench's own pair, :data:`INDEX_VARIABLE` (``1 .. N``) and :data:`COUNT_VARIABLE`; so can
  any other engine (``examples/github-actions-shards.yml``).
"""


def shard_from_environment(environ: Mapping[str, str], engines: tuple[Engine, ...] = ENGINES) -> Shard:
    """The shard this process runs, from the variables of the engines in ``environ`` (``os.environ``).

    An engine counts as present when its index variable is set. Every present engine must give a
    whole-number index within its range and a count ≥ 1, and all of them the same ``K/N``; the
    returned shard's ``source`` names the variables it was read from, e.g.
    ``"JOB_COMPLETION_INDEX=0, LEXBENCH_SHARD_COUNT=3 (Kubernetes Indexed Job)"``.

    Raises ``ValueError`` when no engine is present (naming every variable looked for), when a count
    is missing, a value is not a whole number, an index is out of range, or two engines disagree.
    """
    found: list[Shard] = []
    problems = []
    for engine in engines:
        raw_index = environ.get(engine.index_variable)
        if raw_index is None:
            continue
        raw_count = environ.get(engine.count_variable)
        if raw_count is None:
            problems.append(f"{engine.index_variable}={raw_index!r} is set ({engine.name}) but "
                            f"{engine.count_variable} is not; set it to the number of shards")
            continue
        bad = [f"{name}={value!r} is not a whole number" for name, value in
               ((engine.index_variable, raw_index), (engine.count_variable, raw_count)) if not _WHOLE.match(value)]
        if bad:
            problems.append(f"{'; '.join(bad)} ({engine.name})")
            continue
        index, count = int(raw_index), int(raw_count)
        last = count - 1 + engine.first
        if count < 1:
            problems.append(f"{engine.count_variable}={count} ({engine.name}): at least 1 shard must run")
        elif not engine.first <= index <= last:
            problems.append(f"{engine.index_variable}={index} is outside {engine.first}..{last} "
                            f"({engine.count_variable}={count}; {engine.name} counts from {engine.first})")
        else:
            source = f"{engine.index_variable}={index}, {engine.count_variable}={count} ({engine.name})"
            found.append(Shard(index - engine.first + 1, count, source))
    if problems:
        raise ValueError("--shard=auto: " + "; ".join(problems))
    if not found:
        looked = "; ".join(f"{e.index_variable} with {e.count_variable} ({e.name}: {e.hint})" for e in engines)
        lone = sorted({e.count_variable for e in engines if e.count_variable in environ})
        alone = f" ({', '.join(lone)} set, but no index beside it)" if lone else ""
        raise ValueError(f"--shard=auto: no shard in the environment{alone}; looked for {looked}. "
                         "Set one pair, or give --shard=K/N")
    shards = {(shard.index, shard.count) for shard in found}
    if len(shards) > 1:
        named = "; ".join(f"{shard.source} says shard {shard}" for shard in found)
        raise ValueError(f"--shard=auto: the environment names different shards: {named}. Unset the "
                         "variables of the engine that is not running this job, or give --shard=K/N")
    return Shard(found[0].index, found[0].count, " and ".join(shard.source for shard in found))
