"""Smaller holes in the run record, attacked (issue 27 item 9): rows forged with figures no run can
produce or for a case the suite does not hold; (more below as they are closed)."""

from __future__ import annotations

import hashlib
import json
import os
import textwrap

import pytest

from tests.reliability.test_run_directory import HEX, append_line, lexbench, make_run, row

ATTACK = pytest.mark.attack(item=9, issue=27)


def suite_on_disk(tmp_path, case_ids):  # type: ignore[no-untyped-def]
    """A suite folder whose dataset.json lists ``case_ids``: the manifest's ``suite`` facts for it."""
    folder = tmp_path / "suite"
    folder.mkdir()
    data = json.dumps({"suite": {"id": "tiny"}, "cases": [{"id": case} for case in case_ids]}).encode()
    (folder / "dataset.json").write_bytes(data)
    return {"id": "tiny", "path": str(folder), "dataset_sha256": hashlib.sha256(data).hexdigest(), "cases": len(case_ids)}


@ATTACK
@pytest.mark.parametrize(("tamper", "field"), [
    ({"latency_s": -1e9}, "line 2: field latency_s"),
    ({"latency_s": 1e308}, "line 2: field latency_s"),
    ({"content_chars": -5}, "line 2: field content_chars"),
    ({"reference_chars": -1}, "line 2: field reference_chars"),
    ({"content_tokens": -3}, "line 2: field content_tokens"),
    ({"case": "c9-not-in-the-suite"}, "line 2: field case: 'c9-not-in-the-suite' is not a case of suite tiny"),
])
def test_a_forged_figure_or_a_case_outside_the_suite_is_refused_by_name(tmp_path, capsys, tamper, field):
    suite = suite_on_disk(tmp_path, ["c1", "c2", "c3"])
    digest = suite["dataset_sha256"]
    run = make_run(tmp_path / "run", [row("c1", dataset_sha256=digest)], suite=suite)
    append_line(run, json.dumps(row("c2", dataset_sha256=digest).model_dump(mode="json") | tamper))
    append_line(run, row("c3", dataset_sha256=digest).model_dump_json())
    assert lexbench(["report", str(run)]) == 2
    error = capsys.readouterr().err
    assert f"{run / 'results.jsonl'}: 1 line(s)" in error and field in error, error
    assert not (run / "report.md").exists()


@ATTACK
def test_rows_for_more_cases_than_a_moved_suite_had_are_refused(tmp_path, capsys):
    """When the suite is no longer where the run recorded it, the rows may still not name more cases than it had."""
    run = make_run(tmp_path / "run", [row("c1"), row("c2")], suite={"id": "tiny", "path": str(tmp_path / "gone"),
                                                                   "dataset_sha256": HEX, "cases": 1})
    assert lexbench(["report", str(run)]) == 2
    assert "the rows name 2 cases, suite tiny has 1" in capsys.readouterr().err


def test_an_honest_run_of_the_suite_is_reported(tmp_path):
    suite = suite_on_disk(tmp_path, ["c1", "c2"])
    run = make_run(tmp_path / "run", [row(case, dataset_sha256=suite["dataset_sha256"]) for case in ("c1", "c2")],
                   suite=suite)
    assert lexbench(["report", str(run)]) == 0 and (run / "report.md").exists()


@pytest.mark.slow  # a pytest session in a subprocess: the installed distributions are read once per process
@ATTACK
def test_an_installed_entry_point_named_like_a_built_in_type_is_refused_naming_its_package(pytester):
    from tests.test_provider_types import ECHOES, dist_info

    site = pytester.path / "site"
    site.mkdir()
    (site / "acme_echoes.py").write_text(textwrap.dedent(ECHOES))
    dist_info(site, {"trafilatura": "acme_echoes:Echoes"}, name="acme_shadow")
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        bench = pytester.runpytest_subprocess("--lexbench", "--providers=reference-echo", "--collect-only", "-q")
        plain = pytester.runpytest_subprocess("test_plain.py", "-q")
    output = bench.stdout.str() + bench.stderr.str()
    assert bench.ret == pytest.ExitCode.USAGE_ERROR, output  # refused, not an internal error (exit 3)
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert "acme_shadow" in output and "'trafilatura' is a built-in provider type" in output
    assert plain.ret == pytest.ExitCode.OK, plain.stdout.str() + plain.stderr.str()  # a session without lexbench runs


@ATTACK
def test_two_hundred_providers_are_all_compared_with_one_bootstrap_per_distinct_counts(monkeypatch):
    """The pairwise table drew one bootstrap per pair, so 200 providers took 142 s. Every pair is still
    compared (no cap), but a pair's interval depends on its counts alone, and each distinct counts' is
    drawn once: the work no longer grows with the square of the providers."""
    import random

    from lexbench.run import stats
    from lexbench.run.record import RunRow
    from lexbench.report.model import compare, summarise
    from lexbench.verdict import Outcome

    rng = random.Random(27)
    providers, cases = 200, 30
    rows = [RunRow(suite="tiny", case=f"c{c:02d}", provider=f"p{p:03d}", output_contract="cleaned", category="article",
                   track="body", lang="en", outcome=Outcome.PASS if rng.random() < 0.5 else Outcome.FAIL,
                   explanation="x", content_chars=100, reference_chars=120)
            for p in range(providers) for c in range(cases)]
    drawn = []
    real = stats.random.Random
    monkeypatch.setattr(stats.random, "Random", lambda stream: drawn.append(stream) or real(stream))
    stats._paired_cached.cache_clear()
    comparisons = compare(rows, summarise(rows))
    assert len(comparisons) == providers * (providers - 1) // 2  # every pair, none left out
    pairs = [stream for stream in drawn if ":paired:" in stream]
    distinct = {(c.shared_cases, round(c.first_rate * cases) - round(c.second_rate * cases)) for c in comparisons}
    assert len(pairs) == len(set(pairs)) <= (cases + 1) ** 2 < len(comparisons) // 10, (len(pairs), len(distinct))
    # The interval is the paired bootstrap of those counts: the same as drawing it for the pair alone.
    sample = comparisons[123]
    a = [row.outcome is Outcome.PASS for row in rows if row.provider == sample.first]
    b = [row.outcome is Outcome.PASS for row in rows if row.provider == sample.second]
    plus = sum(x and not y for x, y in zip(a, b))
    minus = sum(y and not x for x, y in zip(a, b))
    assert sample.difference == stats._paired(cases, plus, minus, f"{stats.SEED}:paired:{cases}:{plus}:{minus}",
                                              stats.RESAMPLES, stats.CONFIDENCE)


@pytest.mark.slow  # pytest sessions open runs (the checkout's git state is a process)
@ATTACK
def test_shards_beyond_the_items_leave_empty_run_records_and_the_merge_completes(pytester, tmp_path_factory):
    from tests.suite_factory import ARTICLES, write_suite

    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES[:1])  # one case × one provider: one item, three shards
    runs = tmp_path_factory.mktemp("runs")
    shards = [runs / f"shard-{k}" for k in (1, 2, 3)]
    for k, run_dir in enumerate(shards, 1):  # each in its own process: duckdb (report.html) loads once per process
        result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--shard={k}/3",
                                    f"--run-dir={run_dir}")
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
        manifest = json.loads((run_dir / "manifest.json").read_text())
        assert manifest["run"]["shard"] == f"{k}/3" and manifest["finished"]
    assert [len((d / "results.jsonl").read_text().splitlines()) for d in shards] == [1, 0, 0]
    merged = runs / "merged"
    assert lexbench(["report", "--merge", *map(str, shards), "--output", str(merged)]) == 0
    assert len((merged / "results.jsonl").read_text().splitlines()) == 1 and (merged / "report.md").exists()


@ATTACK
def test_audit_projection_of_a_planted_huge_answer_ends_under_the_scorers_budget(tmp_path, capsys, monkeypatch):
    """A 19.5 MB answer whose every word is a hidden element holds the reference in its raw text and
    loses all of it in the projection: auditing it took 92 s, then a MemoryError at 5.9 GB. Each answer
    is audited under the scorer's budget (here 0.5 s of CPU and 64 MB, so that the test does not spend the
    default's minute): the command ends with the item named as not audited, the others audited."""
    from lexbench.dataset.suite import load_suite
    from lexbench.run.record import save_response
    from lexbench.scoring import budget

    monkeypatch.setattr(budget, "DEFAULT_BUDGET", budget.ScoringBudget(cpu_s=0.5, wall_s=600.0, memory_floor_mb=64))
    demo = load_suite("demo")
    case, other = demo.cases[0], demo.cases[1]
    unit = "".join(f"<span hidden>{word} </span>" for word in case.reference_text.split())
    planted = "<html><body>" + (unit * (19_500_000 // len(unit) + 1))[:19_500_000] + "</body></html>"
    run = tmp_path / "run"
    suite = {"id": "demo", "path": str(demo.root), "dataset_sha256": demo.dataset_sha256, "cases": len(demo.cases)}
    facts = dict(suite="demo", dataset_sha256=demo.dataset_sha256, content_format="html")
    make_run(run, [row(case.id, "a", response_sha256=save_response(run, planted), content_chars=len(planted), **facts),
                   row(other.id, "a", response_sha256=save_response(run, other.reference_text), content_format="text", suite="demo",
                       dataset_sha256=demo.dataset_sha256)], suite=suite)
    assert lexbench(["audit-projection", str(run), "--json"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [item["case"] for item in report["items"]] == [other.id]  # the other answer is audited
    (stopped,) = report["not_audited"]
    assert stopped["case"] == case.id and ("CPU" in stopped["reason"] or "memory" in stopped["reason"])
    assert f"{case.id}[a] not audited: the scorer's budget was spent" in captured.err
    assert "19,500,0" in captured.err and "Traceback" not in captured.err
