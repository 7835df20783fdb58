"""``lexbench compare BASE NEW``: polarity-corrected lift per suite.provider.metric, the block and its
acknowledgement (SPEC §8)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import lexbench.scoring.evaluate as evaluate
from lexbench.cli import main
from lexbench.evals.lift import ACK_TOKEN, Polarity
from lexbench.run.record import RunRow
from lexbench.verdict import Component, ComponentResult, Outcome


def _run(root: Path, name: str, outcomes: dict[str, list[str]], *, dataset: str = "ab" * 32) -> Path:
    """A run directory whose provider ``p`` has the given outcome letters (p/f/u) per case; a provider
    named ``echo`` is a control."""
    run = root / name
    run.mkdir()
    codes = {"p": Outcome.PASS, "f": Outcome.FAIL, "u": Outcome.UNRESOLVABLE}
    lines = []
    for provider, letters in outcomes.items():
        for index, letter in enumerate(letters):
            outcome = codes[letter]
            components = [] if outcome is Outcome.UNRESOLVABLE else [
                ComponentResult(name=Component.REGIONS, passed=outcome is Outcome.PASS)]
            row = RunRow(suite="s", case=f"article-{index:03d}-en-x", provider=provider,
                         output_contract="control" if provider == "echo" else "cleaned", category="article",
                         track="body", lang="en", outcome=outcome, explanation=outcome.value, components=components)
            lines.append(row.model_dump_json())
    (run / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = {"suite": {"id": "s", "dataset_sha256": dataset}, "providers": list(outcomes),
                "configuration_sha256": None, "run": {}}
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def _ack(tmp_path: Path, text: str) -> str:
    path = tmp_path / "ack.txt"
    path.write_text(text, encoding="utf-8")
    return f"--ack={path}"


def test_polarity_corrects_the_sign_of_a_change():
    assert Polarity.HIGHER.lift(-0.1) == -0.1
    assert Polarity.LOWER.lift(-0.1) == 0.1
    assert Polarity.TWO_SIDED.lift(0.1) == Polarity.TWO_SIDED.lift(-0.1) == -0.1


def test_a_provider_moving_either_way_blocks_and_is_named(tmp_path, capsys):
    base = _run(tmp_path, "base", {"p": list("pppppfffff"), "echo": list("pppppppppp")})
    new = _run(tmp_path, "new", {"p": list("ppppppppff"), "echo": list("pppppppppp")})
    assert main(["compare", str(base), str(new)]) == 1
    out = capsys.readouterr().out
    assert "| `s.p.pass_rate` | ± | 0.500 | 0.800 | +0.300 | -0.300 | BLOCKED (lift < -0.05) |" in out
    assert "| `s.p.regions_pass_rate` | ± |" in out
    assert "Affected metric: s.p.pass_rate" in out
    assert "s.echo.pass_rate" not in out  # unchanged rows are counted, not listed
    assert main(["compare", str(base), str(new), "--all"]) == 1
    assert "| `s.echo.pass_rate` | + | 1.000 | 1.000 | +0.000 | +0.000 | unchanged |" in capsys.readouterr().out


def test_a_drop_of_the_control_blocks_and_its_rise_would_not(tmp_path, capsys):
    base = _run(tmp_path, "base", {"echo": list("pppppppppp")})
    new = _run(tmp_path, "new", {"echo": list("pppppppfff")})
    assert main(["compare", str(base), str(new)]) == 1
    assert main(["compare", str(new), str(base)]) == 0
    assert "compare: ok" in capsys.readouterr().out


def test_small_moves_pass_and_exactly_five_points_is_not_below_the_floor(tmp_path):
    base = _run(tmp_path, "base", {"p": list("p" * 10 + "f" * 10)})
    new = _run(tmp_path, "new", {"p": list("p" * 11 + "f" * 9)})  # +0.05 → lift −0.05, not below
    assert main(["compare", str(base), str(new)]) == 0


def test_any_change_from_a_zero_baseline_blocks(tmp_path, capsys):
    base = _run(tmp_path, "base", {"p": list("p" * 40)})
    new = _run(tmp_path, "new", {"p": list("p" * 39 + "u")})  # unresolvable rate 0 → 0.025
    assert main(["compare", str(base), str(new)]) == 1
    assert "`s.p.unresolvable_rate` | ± | 0.000 | 0.025 | +0.025 | -0.025 | BLOCKED (change from a zero baseline)" in (
        capsys.readouterr().out)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("Follow-up: #12\nAffected metric: s.p.pass_rate\nAffected metric: s.p.regions_pass_rate\n", "lacks the token"),
        (f"{ACK_TOKEN}\nAffected metric: s.p.pass_rate\nAffected metric: s.p.regions_pass_rate\n", "names no follow-up"),
        (f"{ACK_TOKEN}\nFollow-up: #12\nAffected metric: s.p.pass_rate\n", "s.p.regions_pass_rate: not acknowledged"),
    ],
    ids=["no-token", "no-follow-up", "one-metric-missing"],
)
def test_an_incomplete_acknowledgement_keeps_the_block(tmp_path, capsys, text, missing):
    base = _run(tmp_path, "base", {"p": list("pppppfffff")})
    new = _run(tmp_path, "new", {"p": list("pppppppppp")})
    assert main(["compare", str(base), str(new), _ack(tmp_path, text)]) == 1
    assert missing in capsys.readouterr().out


def test_a_complete_acknowledgement_lets_the_change_through(tmp_path, capsys):
    base = _run(tmp_path, "base", {"p": list("pppppfffff")})
    new = _run(tmp_path, "new", {"p": list("pppppppppp")})
    text = (f"Scorer now reads captions.\n\n{ACK_TOKEN}\nFollow-up: #31\n"
            "Affected metric: s.p.pass_rate\nAffected metric: s.p.regions_pass_rate\n")
    assert main(["compare", str(base), str(new), _ack(tmp_path, text)]) == 0
    out = capsys.readouterr().out
    assert "acknowledged (lift < -0.05; acknowledged, follow-up #31)" in out
    assert "2 acknowledged" in out and "compare: ok" in out


def test_runs_on_different_data_are_flagged(tmp_path, capsys):
    base = _run(tmp_path, "base", {"p": list("pppp")})
    new = _run(tmp_path, "new", {"p": list("pppp")}, dataset="cd" * 32)
    assert main(["compare", str(base), str(new)]) == 0
    assert "measured on different data" in capsys.readouterr().out


def test_run_evals_outputs_compare_on_accuracy_per_class(tmp_path, monkeypatch, capsys):
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    assert main(["run-evals", f"--output={before}"]) == 0
    monkeypatch.setattr(evaluate, "_THRESHOLD", Fraction(1, 2))  # the deliberately broken scorer
    assert main(["run-evals", f"--output={after}"]) == 1
    capsys.readouterr()
    assert main(["compare", str(before), str(after)]) == 1
    out = capsys.readouterr().out
    assert "| `gold.scorer.accuracy_fail` | + | 1.000 |" in out
    assert "`gold.scorer.false_pass_rate` | - | 0.000 |" in out and "change from a zero baseline" in out
    blocked = [line for line in out.splitlines() if "BLOCKED (" in line]
    assert {line.split("`")[1] for line in blocked} >= {"gold.scorer.accuracy_fail", "gold.scorer.false_pass_rate"}


def test_a_run_and_an_evals_output_cannot_be_compared(tmp_path, capsys):
    run = _run(tmp_path, "base", {"p": list("pp")})
    evals = tmp_path / "evals.json"
    assert main(["run-evals", f"--output={evals}"]) == 0
    assert main(["compare", str(run), str(evals)]) == 2
    assert "cannot compare a run" in capsys.readouterr().err
    assert main(["compare", str(run), str(tmp_path / "missing")]) == 2
