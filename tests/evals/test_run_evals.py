"""``lexbench run-evals`` scores the gold set through evaluate_response and gates on 3-class accuracy (SPEC §8).

The gold set must pass its own gate, and a deliberately broken scorer must fail it.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import lexbench.scoring.evaluate as evaluate
from lexbench.cli import main
from lexbench.evals.accuracy import GATE_FLOORS, EvalsResult, TupleScore, summarise_scores
from lexbench.verdict import Outcome

P, F, U = Outcome.PASS, Outcome.FAIL, Outcome.UNRESOLVABLE


def test_gold_set_passes_its_own_gate(tmp_path, capsys):
    output = tmp_path / "evals.json"
    assert main(["run-evals", f"--output={output}"]) == 0
    out = capsys.readouterr().out
    assert "gate: PASS" in out
    assert "| **overall** |" in out and "Confusion matrix" in out and "Expert concordance" in out
    result = EvalsResult.model_validate_json(output.read_text(encoding="utf-8"))
    assert result.gate.passed and not result.gate.floors_changed
    assert result.accuracy >= GATE_FLOORS.overall
    assert all(figures.accuracy >= GATE_FLOORS.per_class for figures in result.classes.values())
    assert result.tuples == sum(figures.tuples for figures in result.classes.values()) >= 60


def test_a_scorer_with_a_50_percent_region_threshold_fails_the_gate(monkeypatch, capsys):
    # Deliberately broken: regions and the ending pass at half coverage instead of 80 %.
    monkeypatch.setattr(evaluate, "_THRESHOLD", Fraction(1, 2))
    assert main(["run-evals"]) == 1
    out = capsys.readouterr().out
    assert "gate: FAIL" in out
    assert "fail accuracy" in out.split("gate: FAIL", 1)[1]
    assert "expected fail, got pass" in out  # the misclassified tuples are listed with their explanation


def test_floors_change_only_with_an_explicit_flag(tmp_path, capsys):
    assert main(["run-evals", "--class-floor=0.5"]) == 2
    assert "--change-floors" in capsys.readouterr().err
    output = tmp_path / "evals.json"
    assert main(["run-evals", "--class-floor=0.5", "--change-floors", f"--output={output}"]) == 0
    assert "NOTE: floors changed" in capsys.readouterr().out
    gate = json.loads(output.read_text(encoding="utf-8"))["gate"]
    assert gate["floors_changed"] is True and gate["class_floor"] == 0.5


def _scores(pairs, expert=None):
    return [TupleScore(tuple_id=f"{i:03d}-k-x", kind="k", expected=e, predicted=p, expert=expert, explanation="")
            for i, (e, p) in enumerate(pairs, start=1)]


def test_unresolvable_is_its_own_class_never_merged_into_fail():
    # 10 of each class; two unresolvable tuples are called fail. Merging unresolvable into fail would
    # hide both errors; the symmetric measure counts them.
    pairs = [(P, P)] * 10 + [(F, F)] * 10 + [(U, U)] * 8 + [(U, F)] * 2
    result = summarise_scores("t", _scores(pairs))
    assert result.accuracy == pytest.approx(28 / 30)
    assert result.classes[U].accuracy == pytest.approx(0.8)
    assert result.confusion[U][F] == 2 and result.confusion[F][F] == 10
    assert result.gate.failures == ["unresolvable accuracy 0.800 < 0.85"]


def test_a_class_without_tuples_fails_the_gate():
    result = summarise_scores("t", _scores([(P, P)] * 5 + [(F, F)] * 5))
    assert not result.gate.passed
    assert result.gate.failures == ["unresolvable: no tuples, so its accuracy cannot be measured"]


def test_expert_concordance_is_reported_but_never_gates():
    pairs = [(P, P)] * 10 + [(F, F)] * 10 + [(U, U)] * 10
    result = summarise_scores("t", _scores(pairs, expert=F))  # the expert says fail to everything
    assert result.gate.passed
    assert result.concordance[F].rate == 1.0
    assert result.concordance[P].rate == 0.0 and result.concordance[P].labelled == 10
