"""The before/after lift gate: did a change silently move the figures? (SPEC §8)

``lexbench compare BASE NEW`` reads two run directories (``results.jsonl``) or two ``run-evals``
outputs, names every figure ``suite.provider.metric`` and computes its polarity-corrected signed
lift: ``polarity × (new − base)``, in absolute share units (0.05 = five percentage points).

Polarity says which direction is better:

- ``+`` higher is better — the scorer's gold-set accuracy, and the control provider's figures (the
  control must pass everything; a drop means the scorer or a case broke);
- ``-`` lower is better — the scorer's false-pass rate on the gold set;
- ``±`` no better direction — a real provider's pass rates under a scoring change: a scorer that
  passes more is not better, it may only be looser. The lift is ``−|new − base|``, so a move either
  way counts against the change.

Two run directories are compared only when every row of both was made under the new run's
configuration, or under one a reviewed registry approves (``--approvals``, :mod:`lexbench.run.approvals`).

A metric blocks when its lift is below :data:`LIFT_FLOOR` or when it moves off a zero baseline. A
block is lifted only by an acknowledgement file (``--ack FILE``) holding :data:`ACK_TOKEN`, a
``Follow-up: #N`` line naming the open follow-up issue, and one ``Affected metric: suite.provider.metric``
line for each blocked metric.
"""

from __future__ import annotations

import json

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lexbench.errors import LexbenchError
from lexbench.jsonfile import read_regular_file
from lexbench.evals.accuracy import CLASSES, EvalsResult
from lexbench.run.record import load_rows, read_manifest, scorer_version
from lexbench.report.model import summarise
from lexbench.run.approvals import Approvals, Source, approve, check_binding, sources_of
from lexbench.verdict import Component, Outcome

LIFT_FLOOR = -0.05
"""A polarity-corrected lift below this (five percentage points worse) blocks (SPEC §8)."""
ACK_TOKEN = "[scoring-regression-acknowledged]"
"""The token an acknowledgement file must hold before any of its metrics count."""
_EPS = 1e-9  # shares are ratios of small counts; compare with a margin, not float equality

_FOLLOW_UP = re.compile(r"^\s*follow-up:\s*(?P<ref>#\d+|https?://\S+/issues/\d+)\b", re.I | re.M)
_AFFECTED = re.compile(r"^\s*affected metric:\s*(?P<metric>\S+)\s*$", re.I | re.M)


class CompareError(LexbenchError):
    """``compare`` was given inputs it cannot read or cannot compare with each other."""


class Polarity(StrEnum):
    """Which direction of a metric is better (see the module docstring)."""

    HIGHER = "+"
    LOWER = "-"
    TWO_SIDED = "±"

    def lift(self, delta: float) -> float:
        """The signed lift of a change ``delta`` = new − base: positive is better, negative worse."""
        if self is Polarity.HIGHER:
            return delta
        if self is Polarity.LOWER:
            return -delta
        return -abs(delta)


@dataclass(frozen=True)
class MetricSet:
    """The figures of one side of a comparison: ``values`` by ``suite.provider.metric`` (shares 0–1,
    ``None`` when nothing was scored), their polarity, and a ``fingerprint`` of the data they were
    measured on (suite dataset sha256s, or the gold set's tuple ids). A run's side also keeps its
    ``manifest`` and the configurations its rows were made under (``sources``)."""

    source: Path
    kind: str
    values: dict[str, float | None]
    polarity: dict[str, Polarity]
    fingerprint: dict[str, str] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    sources: tuple[Source, ...] = ()


def metrics_from_run(run_dir: Path) -> MetricSet:
    """Leaderboard figures of a run directory, per suite and provider (SPEC §6).

    ``pass_rate`` (pass ÷ (pass + fail)), ``unresolvable_rate`` (÷ items) and ``<component>_pass_rate``
    for every component scored at least once. Raises :class:`CompareError` when the directory has no
    readable rows.
    """
    rows = load_rows(run_dir)
    if not rows:
        raise CompareError(f"{run_dir}: no results.jsonl rows; is this a run directory?")
    values: dict[str, float | None] = {}
    polarity: dict[str, Polarity] = {}
    for suite in sorted({row.suite for row in rows}):
        for s in summarise(row for row in rows if row.suite == suite):
            # Only the control has a better direction; a provider's figures do not (module docstring).
            direction = Polarity.HIGHER if s.output_contract == "control" else Polarity.TWO_SIDED
            prefix = f"{suite}.{s.provider}"
            values[f"{prefix}.pass_rate"] = s.pass_rate
            polarity[f"{prefix}.pass_rate"] = direction
            values[f"{prefix}.unresolvable_rate"] = s.unresolvable / s.items
            polarity[f"{prefix}.unresolvable_rate"] = Polarity.TWO_SIDED
            for component in Component:
                rate = s.component_pass_rate(component)
                if rate is not None:
                    values[f"{prefix}.{component.value}_pass_rate"] = rate
                    polarity[f"{prefix}.{component.value}_pass_rate"] = direction
    manifest = read_manifest(run_dir)
    suite = manifest.get("suite", {})
    fingerprint = {suite["id"]: suite["dataset_sha256"]} if suite.get("id") and suite.get("dataset_sha256") else {}
    return MetricSet(source=run_dir, kind="run", values=values, polarity=polarity, fingerprint=fingerprint,
                     manifest=manifest, sources=tuple(sources_of(str(run_dir), rows, scorer_version(manifest))))


def metrics_from_evals(result: EvalsResult, source: Path) -> MetricSet:
    """Gold-set figures of a ``run-evals`` output: ``accuracy`` overall and per class (``+``) and
    ``false_pass_rate`` (``-``: the share of tuples that should not pass but did)."""
    prefix = f"{result.gold_set}.scorer"
    values: dict[str, float | None] = {f"{prefix}.accuracy": result.accuracy}
    polarity = {f"{prefix}.accuracy": Polarity.HIGHER}
    for outcome in CLASSES:
        values[f"{prefix}.accuracy_{outcome.value}"] = result.classes[outcome].accuracy
        polarity[f"{prefix}.accuracy_{outcome.value}"] = Polarity.HIGHER
    not_pass = [s for s in result.scores if s.expected is not Outcome.PASS]
    false_pass = sum(1 for s in not_pass if s.predicted is Outcome.PASS)
    values[f"{prefix}.false_pass_rate"] = false_pass / len(not_pass) if not_pass else None
    polarity[f"{prefix}.false_pass_rate"] = Polarity.LOWER
    fingerprint = {result.gold_set: ",".join(s.tuple_id for s in result.scores)}
    return MetricSet(source=source, kind="evals", values=values, polarity=polarity, fingerprint=fingerprint)


def metrics_from_judged(data: dict[str, Any], source: Path) -> MetricSet:
    """Reader-judged figures of a ``run-evals --judged --output`` file (:func:`lexbench.evals.judged.judged_json`):
    ``articles-judged.readers.<component>_agreement`` and ``articles-judged.<provider>.<component>_agreement``
    (``+``), and ``articles-judged.readers.comment_false_pass_rate`` (``-``: of the judged comment decisions)."""
    values: dict[str, float | None] = {}
    polarity: dict[str, Polarity] = {}
    for component, (agree, total) in data["per_component"].items():
        values[f"articles-judged.readers.{component}_agreement"] = agree / total if total else None
        polarity[f"articles-judged.readers.{component}_agreement"] = Polarity.HIGHER
    for key, (agree, total) in data["per_provider"].items():
        component, provider = key.split("|", 1)
        values[f"articles-judged.{provider}.{component}_agreement"] = agree / total if total else None
        polarity[f"articles-judged.{provider}.{component}_agreement"] = Polarity.HIGHER
    comments = data["per_component"].get("comments", [0, 0])[1]
    values["articles-judged.readers.comment_false_pass_rate"] = data["comment_false_pass"] / comments if comments else None
    polarity["articles-judged.readers.comment_false_pass_rate"] = Polarity.LOWER
    return MetricSet(source=source, kind="judged", values=values, polarity=polarity,
                     fingerprint={"articles-judged": ",".join(data["answers"])})


def load_metrics(path: Path) -> MetricSet:
    """A run directory or a ``run-evals --output`` JSON file (the gold set's, or the judged set's with
    ``--judged``). Raises :class:`CompareError` otherwise."""
    if path.is_dir():
        return metrics_from_run(path)
    if not path.is_file():
        raise CompareError(f"{path}: no such run directory or run-evals output")
    try:
        raw = json.loads(read_regular_file(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raw = None
    if isinstance(raw, dict) and raw.get("kind") == "judged":
        try:
            return metrics_from_judged(raw, path)
        except (KeyError, TypeError, ValueError) as exc:
            raise CompareError(f"{path}: not a complete run-evals --judged output ({exc!r})") from None
    try:
        result = EvalsResult.model_validate_json(read_regular_file(path).decode("utf-8"))
    except OSError as exc:
        raise CompareError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (ValidationError, UnicodeDecodeError) as exc:
        raise CompareError(f"{path}: not a lexbench run-evals output ({str(exc).splitlines()[0]})") from None
    return metrics_from_evals(result, path)


def approve_configurations(base: MetricSet, new: MetricSet, approvals: Approvals | None) -> list[dict[str, Any]]:
    """Check that two runs may be compared: every row of either is made under the new run's configuration
    (the current one) or one ``approvals`` approve (:func:`lexbench.run.approvals.approve`), and a run
    merged under approvals is compared only under the same ones. Returns what was approved.

    Raises :class:`lexbench.run.approvals.ApprovalError` naming run, provider and sha256, and
    :class:`CompareError` when ``approvals`` are given for run-evals outputs (they have no configuration)."""
    if base.kind != "run" or new.kind != "run":
        if approvals is not None:
            raise CompareError("--approvals binds the configurations of run directories; run-evals outputs have none")
        return []
    for side in (base, new):
        check_binding(str(side.source), side.manifest, approvals)
    return approve([*base.sources, *new.sources], new.manifest.get("configuration_sha256"), approvals)


class Status(StrEnum):
    """What the gate says about one metric."""

    BLOCKED = "blocked"
    ACKNOWLEDGED = "acknowledged"
    OK = "ok"
    UNCHANGED = "unchanged"
    ONLY_BASE = "only in base"
    ONLY_NEW = "only in new"


@dataclass
class LiftRow:
    """One metric's comparison. ``lift`` = polarity-corrected new − base (``None`` when a side has no
    value); ``reason`` says why it blocks."""

    metric: str
    polarity: Polarity
    base: float | None
    new: float | None
    lift: float | None
    status: Status
    reason: str = ""

    @property
    def delta(self) -> float | None:
        return None if self.base is None or self.new is None else self.new - self.base


def compare_metrics(base: MetricSet, new: MetricSet) -> list[LiftRow]:
    """One :class:`LiftRow` per metric in either side, blocked ones first, then by name.

    Blocks on ``lift < LIFT_FLOOR`` or on any change from a zero baseline (``base == 0``,
    ``new != 0``), whatever the polarity. Raises :class:`CompareError` when the two sides are of
    different kinds (a run directory against a run-evals output).
    """
    if base.kind != new.kind:
        raise CompareError(f"cannot compare a {base.kind} ({base.source}) with a {new.kind} ({new.source})")
    rows = []
    for metric in sorted(set(base.values) | set(new.values)):
        polarity = new.polarity.get(metric) or base.polarity[metric]
        before, after = base.values.get(metric), new.values.get(metric)
        if before is None or after is None:
            status = Status.ONLY_NEW if before is None and after is not None else (
                Status.ONLY_BASE if after is None and before is not None else Status.UNCHANGED)
            rows.append(LiftRow(metric, polarity, before, after, None, status))
            continue
        delta = after - before
        lift = polarity.lift(delta)
        if abs(before) < _EPS and abs(delta) >= _EPS:
            status, reason = Status.BLOCKED, "change from a zero baseline"
        elif lift < LIFT_FLOOR - _EPS:
            status, reason = Status.BLOCKED, f"lift < {LIFT_FLOOR:+.2f}"
        elif abs(delta) < _EPS:
            status, reason = Status.UNCHANGED, ""
        else:
            status, reason = Status.OK, ""
        rows.append(LiftRow(metric, polarity, before, after, lift, status, reason))
    rows.sort(key=lambda r: (r.status is not Status.BLOCKED, r.metric))
    return rows


@dataclass(frozen=True)
class Acknowledgement:
    """What an acknowledgement file declares: the token, the follow-up reference, affected metrics."""

    token: bool
    follow_up: str | None
    metrics: frozenset[str]


def parse_ack(text: str) -> Acknowledgement:
    """Read an acknowledgement (a PR body or a file)::

        [scoring-regression-acknowledged]
        Follow-up: #12
        Affected metric: aeb.trafilatura.pass_rate

    ``Follow-up`` takes ``#N`` or an issue URL; whether that issue is open is for the reviewer to check.
    """
    follow = _FOLLOW_UP.search(text)
    return Acknowledgement(
        token=ACK_TOKEN in text,
        follow_up=follow["ref"] if follow else None,
        metrics=frozenset(m["metric"] for m in _AFFECTED.finditer(text)),
    )


def apply_ack(rows: list[LiftRow], ack: Acknowledgement | None) -> list[str]:
    """Mark blocked rows that ``ack`` covers as acknowledged; return what is still missing, one
    message per problem (empty when nothing stays blocked)."""
    blocked = [r for r in rows if r.status is Status.BLOCKED]
    if not blocked:
        return []
    if ack is None:
        return [f"{len(blocked)} metric(s) blocked; acknowledge them with --ack FILE"]
    problems = []
    if not ack.token:
        problems.append(f"the acknowledgement lacks the token {ACK_TOKEN}")
    if ack.follow_up is None:
        problems.append("the acknowledgement names no follow-up: add a line 'Follow-up: #N' (an open issue)")
    for row in blocked:
        if row.metric not in ack.metrics:
            problems.append(f"{row.metric}: not acknowledged (add 'Affected metric: {row.metric}')")
    if ack.token and ack.follow_up is not None:
        for row in blocked:
            if row.metric in ack.metrics:
                row.status = Status.ACKNOWLEDGED
                row.reason += f"; acknowledged, follow-up {ack.follow_up}"
    return problems


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"


def render_lift(rows: list[LiftRow], base: MetricSet, new: MetricSet, *, show_all: bool = False) -> list[str]:
    """A Markdown table a reviewer can read: metric, polarity, base, new, Δ, lift, status.

    Unchanged metrics are counted but listed only with ``show_all``. A note says when the two sides
    were measured on different data (their fingerprints differ).
    """
    lines = [f"compare: base {base.source} → new {new.source}", "",
             f"lift = polarity × (new − base); blocks when lift < {LIFT_FLOOR:+.2f} or a metric moves off zero. "
             "Polarity: + higher is better, - lower is better, ± either move counts against (a provider's "
             "figures under a scoring change).", ""]
    if base.fingerprint != new.fingerprint:
        lines += ["NOTE: the two sides were measured on different data (dataset or gold-set fingerprint differs); "
                  "their lifts mix that change with the one under review.", ""]
    shown = [r for r in rows if show_all or r.status is not Status.UNCHANGED]
    lines += ["| metric | pol. | base | new | Δ | lift | status |", "|---|:---:|---:|---:|---:|---:|---|"]
    for r in shown:
        status = r.status.value.upper() if r.status is Status.BLOCKED else r.status.value
        if r.reason:
            status += f" ({r.reason.lstrip('; ')})"
        lines.append(f"| `{r.metric}` | {r.polarity.value} | {_fmt(r.base)} | {_fmt(r.new)} | {_signed(r.delta)} "
                     f"| {_signed(r.lift)} | {status} |")
    unchanged = sum(1 for r in rows if r.status is Status.UNCHANGED)
    blocked = sum(1 for r in rows if r.status is Status.BLOCKED)
    acknowledged = sum(1 for r in rows if r.status is Status.ACKNOWLEDGED)
    lines += ["", f"{len(rows)} metrics: {blocked} blocked, {acknowledged} acknowledged, "
                  f"{unchanged} unchanged{'' if show_all else ' (not listed; --all lists them)'}"]
    return lines


def read_ack(path: Path) -> Acknowledgement:
    """Parse an acknowledgement file; raises :class:`CompareError` when it cannot be read."""
    try:
        return parse_ack(read_regular_file(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CompareError(f"--ack {path}: cannot read it: {exc}") from None

