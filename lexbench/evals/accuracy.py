"""Score the gold set through the benchmark's own scorer and gate on 3-class accuracy (SPEC §8).

Every tuple goes through :func:`lexbench.scoring.evaluate_response`, the function the benchmark
uses — there is no second implementation to drift. Accuracy is symmetric over the three verdict
classes: a tuple is right only when the predicted class equals the expected one, so an
``unresolvable`` predicted as ``fail`` (or the reverse) is an error like any other. Per-class
accuracy is the share of a class's tuples predicted as that class.

The gate's floors live in :data:`GATE_FLOORS` and nowhere else; a run with other floors must say so
(``floors_changed``), and the command line only accepts them with an explicit flag.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lexbench.evals.gold import GoldSet
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome

CLASSES = (Outcome.PASS, Outcome.FAIL, Outcome.UNRESOLVABLE)


@dataclass(frozen=True)
class Floors:
    """Accuracy floors of the gate, as shares 0–1: ``overall`` over all tuples, ``per_class`` for
    each of pass, fail and unresolvable."""

    overall: float
    per_class: float


GATE_FLOORS = Floors(overall=0.90, per_class=0.85)
"""The gate (SPEC §8): overall ≥ 0.90 and every class ≥ 0.85. Changing it is a reviewed change."""


class TupleScore(BaseModel):
    """One tuple's outcome: what was expected, what ``evaluate_response`` said, and why."""

    model_config = ConfigDict(extra="forbid")

    tuple_id: str
    kind: str
    expected: Outcome
    predicted: Outcome
    expert: Outcome | None = None
    failure_class: str | None = None
    explanation: str

    @property
    def correct(self) -> bool:
        return self.predicted is self.expected


class ClassFigures(BaseModel):
    """One expected class: ``tuples`` of it, ``correct`` predictions, ``accuracy`` = correct ÷ tuples
    (``None`` when the class has no tuples)."""

    model_config = ConfigDict(extra="forbid")

    tuples: int
    correct: int
    accuracy: float | None


class Concordance(BaseModel):
    """Advisory agreement of ``human_expert_verdict`` with ``expected_verdict`` for one expected class:
    ``labelled`` tuples, ``agree`` of them, ``rate`` = agree ÷ labelled (``None`` when none labelled)."""

    model_config = ConfigDict(extra="forbid")

    labelled: int
    agree: int
    rate: float | None


class Gate(BaseModel):
    """The gate's result: the floors used, whether they differ from :data:`GATE_FLOORS`, and one
    message per floor that was missed (empty when ``passed``)."""

    model_config = ConfigDict(extra="forbid")

    overall_floor: float
    class_floor: float
    floors_changed: bool
    passed: bool
    failures: list[str] = Field(default_factory=list)


class EvalsResult(BaseModel):
    """The output of ``lexbench run-evals`` (written by ``--output`` as JSON; read by ``compare``).

    ``confusion[expected][predicted]`` counts tuples. ``accuracy`` is overall correct ÷ tuples.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["lexbench_evals"] = "lexbench_evals"
    schema_version: Literal[1] = 1
    gold_set: str
    tuples: int
    correct: int
    accuracy: float
    classes: dict[Outcome, ClassFigures]
    confusion: dict[Outcome, dict[Outcome, int]]
    concordance: dict[Outcome, Concordance]
    gate: Gate
    scores: list[TupleScore]

    @property
    def misclassified(self) -> list[TupleScore]:
        return [s for s in self.scores if not s.correct]


def score_gold(gold: GoldSet) -> list[TupleScore]:
    """Score every tuple with :func:`evaluate_response` (SPEC §3) in tuple-id order. Pure."""
    scores = []
    for item in gold.tuples:
        verdict = evaluate_response(gold.cases[item.tuple_id], item.answer.to_result())
        scores.append(
            TupleScore(
                tuple_id=item.tuple_id,
                kind=item.kind,
                expected=item.expected_verdict,
                predicted=verdict.outcome,
                expert=item.human_expert_verdict.verdict if item.human_expert_verdict else None,
                failure_class=verdict.failure_class,
                explanation=verdict.explanation,
            )
        )
    return scores


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def summarise_scores(gold_set: str, scores: list[TupleScore], floors: Floors = GATE_FLOORS) -> EvalsResult:
    """Accuracy overall and per class, the confusion matrix, expert concordance and the gate.

    The gate fails when overall accuracy is below ``floors.overall`` or any class's accuracy is below
    ``floors.per_class``; a class with no tuples cannot show its accuracy and fails too. Concordance
    never affects the gate.
    """
    confusion = {expected: {predicted: 0 for predicted in CLASSES} for expected in CLASSES}
    for s in scores:
        confusion[s.expected][s.predicted] += 1
    classes = {}
    for outcome in CLASSES:
        total = sum(confusion[outcome].values())
        classes[outcome] = ClassFigures(tuples=total, correct=confusion[outcome][outcome],
                                        accuracy=_share(confusion[outcome][outcome], total))
    labelled = Counter(s.expected for s in scores if s.expert is not None)
    agree = Counter(s.expected for s in scores if s.expert is not None and s.expert is s.expected)
    concordance = {o: Concordance(labelled=labelled[o], agree=agree[o], rate=_share(agree[o], labelled[o]))
                   for o in CLASSES}
    correct = sum(1 for s in scores if s.correct)
    accuracy = _share(correct, len(scores)) or 0.0

    failures = []
    if accuracy < floors.overall:
        failures.append(f"overall accuracy {accuracy:.3f} < {floors.overall:.2f}")
    for outcome, figures in classes.items():
        if figures.accuracy is None:
            failures.append(f"{outcome.value}: no tuples, so its accuracy cannot be measured")
        elif figures.accuracy < floors.per_class:
            failures.append(f"{outcome.value} accuracy {figures.accuracy:.3f} < {floors.per_class:.2f}")
    gate = Gate(overall_floor=floors.overall, class_floor=floors.per_class, floors_changed=floors != GATE_FLOORS,
                passed=not failures, failures=failures)
    return EvalsResult(gold_set=gold_set, tuples=len(scores), correct=correct, accuracy=accuracy, classes=classes,
                       confusion=confusion, concordance=concordance, gate=gate, scores=scores)


def run_evals(gold: GoldSet, floors: Floors = GATE_FLOORS) -> EvalsResult:
    """Score the gold set and summarise it (:func:`score_gold` then :func:`summarise_scores`)."""
    return summarise_scores(gold.manifest.id, score_gold(gold), floors)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def render_evals(result: EvalsResult) -> list[str]:
    """The readable report: accuracy table, confusion matrix, concordance, misclassified tuples, gate."""
    floor = result.gate.class_floor
    lines = [f"Scorer accuracy on gold set {result.gold_set!r} ({result.tuples} tuples, evaluate_response)", "",
             "| class | tuples | correct | accuracy | floor |", "|---|---:|---:|---:|---:|"]
    for outcome, figures in result.classes.items():
        lines.append(f"| {outcome.value} | {figures.tuples} | {figures.correct} | {_fmt(figures.accuracy)} | {floor:.2f} |")
    lines.append(f"| **overall** | {result.tuples} | {result.correct} | {_fmt(result.accuracy)} | "
                 f"{result.gate.overall_floor:.2f} |")
    lines += ["", "Confusion matrix (rows: expected, columns: predicted)", "",
              "| expected \\ predicted | " + " | ".join(o.value for o in CLASSES) + " |",
              "|---|" + "---:|" * len(CLASSES)]
    for expected in CLASSES:
        lines.append(f"| {expected.value} | " + " | ".join(str(result.confusion[expected][p]) for p in CLASSES) + " |")
    lines += ["", "Expert concordance (advisory, never gates): human_expert_verdict vs expected_verdict", "",
              "| class | labelled | agree | rate |", "|---|---:|---:|---:|"]
    for outcome, c in result.concordance.items():
        lines.append(f"| {outcome.value} | {c.labelled} | {c.agree} | {_fmt(c.rate)} |")
    disagreements = [s for s in result.scores if s.expert is not None and s.expert is not s.expected]
    for s in disagreements:
        lines.append(f"- expert says {s.expert.value}, expected {s.expected.value}: {s.tuple_id}")
    wrong = result.misclassified
    if wrong:
        lines += ["", f"Misclassified tuples ({len(wrong)})", ""]
        for s in wrong:
            lines.append(f"- {s.tuple_id}: expected {s.expected.value}, got {s.predicted.value} — {s.explanation}")
    lines.append("")
    if result.gate.floors_changed:
        lines.append(f"NOTE: floors changed from the committed gate (overall {result.gate.overall_floor:.2f}, "
                     f"class {result.gate.class_floor:.2f}).")
    if result.gate.passed:
        lines.append(f"gate: PASS (overall ≥ {result.gate.overall_floor:.2f}, every class ≥ {floor:.2f})")
    else:
        lines.append("gate: FAIL — " + "; ".join(result.gate.failures))
    return lines


def evals_json(result: EvalsResult) -> str:
    """``run-evals --output`` content: the result as indented UTF-8 JSON with one trailing newline."""
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
