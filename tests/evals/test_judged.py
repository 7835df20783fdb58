"""The reader-judged set's machinery (lexbench/evals/judged.py, issue 30): reading a judged set, refusing what
is not the judged answer by name, agreement per component and provider, and the gate.

Synthetic: demo cases, answers built from their references, and judgments written here, so each test can
make the verdict and the readers agree or differ on purpose. The real set's gate is tests/evals/
test_judged_gate.py."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from lexbench.cli import main
from lexbench.dataset.suite import load_suite
from lexbench.evals.judged import (
    COMPONENTS, JudgedSetError, agreement, answer_digest, compare_run, gate, load_judged, render, served_url_of,
)

DEMO = load_suite("demo")
CASE = next(c for c in DEMO.cases if c.comments is None and c.body is not None)


def whole(case) -> str:  # type: ignore[no-untyped-def]
    """An answer holding everything the case asks for: title, body, every stable phrase."""
    phrases = [p for g in case.stable_groups for p in g.phrases]
    return f"# {case.title}\n\n{case.reference_text}\n\n" + "\n\n".join(phrases) + "\n"


def headless(case) -> str:  # type: ignore[no-untyped-def]
    """The same answer without its body: regions, ending and the identity phrase (a body phrase) fail."""
    return whole(case).replace(case.reference_text, "A short note.")


def judgment(**absent: str) -> dict:
    out = {c: {"present": True, "evidence": "there"} for c in COMPONENTS}
    out["comments"] = {"present": None, "records": None, "evidence": "no contract"}
    out["posts"] = {"present": None, "records": None, "evidence": "no contract"}
    for component, why in absent.items():
        out[component] = {"present": False, "evidence": why}
    return out


def write_set(root: Path, entries: list[tuple[str, str, dict, dict, dict | None]]) -> Path:
    """A judged set: (provider, content, judge A, judge B, settled) per answer to CASE."""
    folder = root / "judged" / "answers"
    folder.mkdir(parents=True)
    for provider, content, a, b, settled in entries:
        data = {"case": CASE.id, "provider": provider, "provider_version": "test 1.0",
                "answer_sha256": answer_digest(content), "content_format": "markdown",
                "judges": {"judge-A": a, "judge-B": b}}
        if settled:
            data["settled"] = settled
        (folder / f"{CASE.id}[{provider}].json").write_text(json.dumps(data), encoding="utf-8")
    return root / "judged"


def write_run(root: Path, answers: dict[str, str]) -> Path:
    run = root / "run"
    (run / "responses").mkdir(parents=True)
    rows = []
    for provider, content in answers.items():
        sha = hashlib.sha256(content.encode()).hexdigest()
        (run / "responses" / f"{sha}.txt").write_text(content, encoding="utf-8")
        rows.append(json.dumps({"case": CASE.id, "provider": provider, "response_sha256": sha, "content_format": "markdown"}))
    (run / "results.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return run


def test_verdicts_and_readers_agree_per_component_and_provider(tmp_path: Path) -> None:
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), None),
                                  ("cut", headless(CASE), judgment(regions="gone", ending="gone", page_identity="gone"),
                                   judgment(regions="gone", ending="gone", page_identity="gone"), None)])
    run = write_run(tmp_path, {"full": whole(CASE), "cut": headless(CASE)})
    result = compare_run(load_judged(judged), run, {CASE.id: CASE})
    counted = agreement(result.compared)
    assert result.refused == []
    assert counted.per_component["regions"] == (2, 2)
    assert counted.per_component["overall"] == (2, 2)
    assert counted.per_provider[("overall", "cut")] == (1, 1)
    assert gate(counted, result.refused) == []
    assert "| regions | 2/2 | 1.000 |" in render(counted, result.refused)


def test_a_reader_disagreement_is_listed_with_both_explanations_and_fails_the_gate(tmp_path: Path) -> None:
    # the readers say the body is there; the verdict says it is not
    judged = write_set(tmp_path, [("cut", headless(CASE), judgment(), judgment(), None)])
    run = write_run(tmp_path, {"cut": headless(CASE)})
    result = compare_run(load_judged(judged), run, {CASE.id: CASE})
    counted = agreement(result.compared)
    assert counted.per_component["regions"] == (0, 1)
    text = render(counted, result.refused)
    assert f"{CASE.id}[cut] regions: verdict fail, readers present" in text
    assert "judge-A: there" in text and "verdict: fail:" in text
    assert any(p.startswith("regions: agreement 0/1") for p in gate(counted, result.refused))


def test_an_answer_whose_bytes_differ_is_refused_by_name_and_not_scored(tmp_path: Path) -> None:
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), None),
                                  ("gone", whole(CASE), judgment(), judgment(), None)])
    run = write_run(tmp_path, {"full": whole(CASE) + "one more line\n"})
    result = compare_run(load_judged(judged), run, {CASE.id: CASE})
    assert result.compared == []
    assert result.refused == [f"{CASE.id}[full]: the run's answer (sha256 "
                              f"{answer_digest(whole(CASE) + 'one more line' + chr(10))[:12]}…) "
                              f"is not the judged one ({answer_digest(whole(CASE))[:12]}…)",
                              f"{CASE.id}[gone]: the run has no answer"]
    assert gate(agreement(result.compared), result.refused) == [f"refused: {line}" for line in result.refused]


def test_judges_who_differ_need_a_settling_and_the_settling_decides(tmp_path: Path) -> None:
    unsettled = write_set(tmp_path / "a", [("full", whole(CASE), judgment(), judgment(title="site name added"), None)])
    run = write_run(tmp_path / "a", {"full": whole(CASE)})
    with pytest.raises(JudgedSetError, match="the judges differ on title"):
        compare_run(load_judged(unsettled), run, {CASE.id: CASE})
    settled = write_set(tmp_path / "b", [("full", whole(CASE), judgment(), judgment(title="site name added"),
                                          {"title": {"present": True, "reason": "the heading is the title alone"}})])
    run = write_run(tmp_path / "b", {"full": whole(CASE)})
    counted = agreement(compare_run(load_judged(settled), run, {CASE.id: CASE}).compared)
    assert counted.per_component["title"] == (1, 1)
    assert counted.judges_differed["title"] == (1, 1)


def test_comment_false_passes_are_never_accepted_and_false_fails_only_up_to_three_percent() -> None:
    from lexbench.evals.judged import Agreement

    base = {"comments": (97, 100), "overall": (100, 100)}
    assert gate(Agreement(base, {}, [], 0, 3, {}), []) == []
    assert gate(Agreement(base, {}, [], 1, 2, {}), []) == ["comments: 1 false pass(es); none is accepted"]
    assert gate(Agreement({"comments": (96, 100)}, {}, [], 0, 4, {}), []) == [
        "comments: agreement 96/100 = 0.960 < 0.97", "comments: 4/100 false fails > 3%"]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.pop("answer_sha256"), "missing answer_sha256"),
    (lambda d: d["judges"].update({"judge-A": {"regions": "yes"}}), "judge-A's regions must be an object whose 'present'"),
    (lambda d: d["judges"]["judge-B"]["title"].update(present="maybe"), "judge-B's title must be an object whose 'present'"),
    (lambda d: d["judges"].update({"judge-A": [1]}), "judge-A's decisions are not an object of components"),
    (lambda d: d["judges"]["judge-A"].update(summary={"present": True}), "unknown component 'summary'"),
    (lambda d: d.update(answer_sha256="XYZ"), "not 64 lower-case hex digits"),
    (lambda d: d.update(judges={"judge-A": {}}), "1 judge\\(s\\); every answer is judged by two readers"),
    (lambda d: d.update(provider="other"), "named for another answer"),
])
def test_a_malformed_judged_answer_is_refused_naming_its_file(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), None)])
    path = next((judged / "answers").glob("*.json"))
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(JudgedSetError, match=message) as caught:
        load_judged(judged)
    assert str(path) in str(caught.value)


def test_the_served_replay_url_is_read_from_the_answer() -> None:
    text = "see [more](http://127.0.0.1:40973/replay/article-001-en-x/next.html)"
    assert served_url_of(text, "article-001-en-x") == "http://127.0.0.1:40973/replay/article-001-en-x"
    assert served_url_of(text, "article-002-en-y") is None


def test_run_evals_judged_reports_and_exits_by_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), None)])
    run = write_run(tmp_path, {"full": whole(CASE)})
    assert main(["run-evals", "--judged", str(judged), "--run", str(run), "--suite", "demo"]) == 0
    out = capsys.readouterr().out
    assert "judged gate: passed (1 answers scored, 0 refused)" in out
    assert main(["run-evals", "--judged", str(judged), "--suite", "demo"]) == 2
    assert "--judged needs --run RUN" in capsys.readouterr().err


def test_the_lift_gate_blocks_a_scorer_change_that_loses_agreement_with_the_readers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: the readers and the verdict agree on both answers; after: the readers changed their mind on
    # the cut answer's regions (standing in for a scorer change that now disagrees with them)
    run = write_run(tmp_path, {"full": whole(CASE), "cut": headless(CASE)})
    absent = {"regions": "gone", "ending": "gone", "page_identity": "gone"}
    before = write_set(tmp_path / "before", [("full", whole(CASE), judgment(), judgment(), None),
                                             ("cut", headless(CASE), judgment(**absent), judgment(**absent), None)])
    after = write_set(tmp_path / "after", [("full", whole(CASE), judgment(), judgment(), None),
                                           ("cut", headless(CASE), judgment(ending="gone", page_identity="gone"),
                                            judgment(ending="gone", page_identity="gone"), None)])
    main(["run-evals", "--judged", str(before), "--run", str(run), "--suite", "demo", "--output", str(tmp_path / "before.json")])
    main(["run-evals", "--judged", str(after), "--run", str(run), "--suite", "demo", "--output", str(tmp_path / "after.json")])
    capsys.readouterr()
    assert json.loads((tmp_path / "after.json").read_text())["per_component"]["regions"] == [1, 2]
    assert main(["compare", str(tmp_path / "before.json"), str(tmp_path / "after.json")]) == 1
    out = capsys.readouterr().out
    assert "articles-judged.readers.regions_agreement" in out
    assert main(["compare", str(tmp_path / "before.json"), str(tmp_path / "before.json")]) == 0


def test_only_the_replay_port_may_differ_from_the_judged_answer(tmp_path: Path) -> None:
    linked = whole(CASE) + "\n[next](http://127.0.0.1:40973/replay/article-001-en-x/next.html)\n"
    judged = write_set(tmp_path, [("full", linked, judgment(), judgment(), None)])
    same = write_run(tmp_path / "same", {"full": linked.replace(":40973/", ":38271/")})
    assert compare_run(load_judged(judged), same, {CASE.id: CASE}).refused == []
    other = write_run(tmp_path / "other", {"full": linked.replace("next.html", "other.html")})
    [refused] = compare_run(load_judged(judged), other, {CASE.id: CASE}).refused
    assert refused.startswith(f"{CASE.id}[full]: the run's answer")


def test_a_judge_called_in_for_one_component_counts_for_that_component_only(tmp_path: Path) -> None:
    # two more judges re-decided the title only; they differ from the first two, so a settling decides it
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), {"title": {"present": True, "reason": "r"}})])
    path = next((judged / "answers").glob("*.json"))
    data = json.loads(path.read_text())
    data["judges"]["judge-C"] = {"title": {"present": False, "evidence": "site name added"}}
    path.write_text(json.dumps(data))
    [answer] = load_judged(judged)
    assert answer.judges_differ("title") and not answer.judges_differ("regions")
    assert answer.decision("regions") is True and answer.decision("title") is True
    assert answer.reasons("regions") == ["judge-A: there", "judge-B: there"]


def test_a_run_or_a_judged_set_that_cannot_be_read_is_an_error_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), None)])
    run = write_run(tmp_path, {"full": whole(CASE)})
    results = run / "results.jsonl"
    results.write_text(results.read_text() + "garbage{\n")
    with pytest.raises(JudgedSetError, match=r"results.jsonl:2: not a result row"):
        compare_run(load_judged(judged), run, {CASE.id: CASE})
    results.write_text('{"foo": 1}\n')
    with pytest.raises(JudgedSetError, match=r"results.jsonl:1: not a result row \(KeyError"):
        compare_run(load_judged(judged), run, {CASE.id: CASE})
    gone = write_run(tmp_path / "gone", {"full": whole(CASE)})
    for response in (gone / "responses").iterdir():
        response.unlink()
    with pytest.raises(JudgedSetError, match=r"is missing from its responses/"):
        compare_run(load_judged(judged), gone, {CASE.id: CASE})
    (next((judged / "answers").glob("*.json"))).write_text("5")
    assert main(["run-evals", "--judged", str(judged), "--run", str(run), "--suite", "demo"]) == 2
    assert "not a JSON object" in capsys.readouterr().err
    assert main(["run-evals", "--judged", str(tmp_path / "nowhere"), "--run", str(run), "--suite", "demo"]) == 2
    assert "no such judged set directory" in capsys.readouterr().err


def test_compare_refuses_a_judged_output_against_a_gold_set_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judged = write_set(tmp_path, [("full", whole(CASE), judgment(), judgment(), None)])
    run = write_run(tmp_path, {"full": whole(CASE)})
    main(["run-evals", "--judged", str(judged), "--run", str(run), "--suite", "demo", "--output", str(tmp_path / "judged.json")])
    main(["run-evals", "--output", str(tmp_path / "gold.json")])
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "gold.json"), str(tmp_path / "judged.json")]) == 2
    assert "cannot compare" in capsys.readouterr().err
