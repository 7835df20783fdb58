"""``--shard=K/N`` deals every item to exactly one shard, evenly, with providers mixed; ``--shard=auto``
reads the shard from the engine's environment, refusing what it cannot read (SPEC §6)."""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from lexbench.cli import main as lexbench
from lexbench.run.shard import ENGINES, Shard, shard_of


@pytest.mark.parametrize(("cases", "providers", "count"), [(13, 4, 2), (13, 4, 4), (181, 4, 3), (5, 3, 7), (1, 1, 1)])
def test_every_item_once_and_balanced(cases, providers, count):
    shards = [Shard(k, count) for k in range(1, count + 1)]
    sizes = Counter()
    for c in range(cases):
        for p in range(providers):
            owners = [s for s in shards if s.holds(c, p, providers)]
            assert len(owners) == 1
            sizes[owners[0].index] += 1
    assert sum(sizes.values()) == cases * providers
    assert max(sizes.values(), default=0) - min((sizes[k] for k in range(1, count + 1)), default=0) <= 1


def test_providers_are_mixed_when_the_shard_count_divides_them():
    # A plain round-robin would give shard k only provider k here.
    for k in range(1, 5):
        mix = {p for c in range(8) for p in range(4) if shard_of(c, p, 4, 4) == k}
        assert mix == {0, 1, 2, 3}


def test_docstring_example():
    first = [(c, p) for c in range(3) for p in range(2) if shard_of(c, p, 2, 2) == 1]
    assert first == [(0, 0), (1, 1), (2, 0)]


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "a/b", "2", ""])
def test_bad_specs_say_the_accepted_form(text):
    with pytest.raises(ValueError, match="expected K/N|between 1 and N"):
        Shard.parse(text)


def test_parse_round_trips():
    assert str(Shard.parse(" 2 / 5 ")) == "2/5"


# --shard=auto: each engine's documented variables, and each way they can be wrong.

@pytest.mark.parametrize(("environ", "expected", "source"), [
    ({"JOB_COMPLETION_INDEX": "0", "LEXBENCH_SHARD_COUNT": "3"}, "1/3",
     "JOB_COMPLETION_INDEX=0, LEXBENCH_SHARD_COUNT=3 (Kubernetes Indexed Job)"),
    ({"JOB_COMPLETION_INDEX": "2", "LEXBENCH_SHARD_COUNT": "3"}, "3/3", None),
    ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"}, "1/4", "CI_NODE_INDEX=1, CI_NODE_TOTAL=4 (GitLab CI)"),
    ({"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "4"}, "4/4", None),
    ({"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "2"}, "1/2", None),
    ({"CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "2"}, "2/2",
     "CIRCLE_NODE_INDEX=1, CIRCLE_NODE_TOTAL=2 (CircleCI)"),
    ({"BUILDKITE_PARALLEL_JOB": "4", "BUILDKITE_PARALLEL_JOB_COUNT": "5"}, "5/5", None),
    ({"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "1"}, "1/1", None),
    ({"LEXBENCH_SHARD_INDEX": "2", "LEXBENCH_SHARD_COUNT": "3"}, "2/3",
     "LEXBENCH_SHARD_INDEX=2, LEXBENCH_SHARD_COUNT=3 (lexbench)"),
    # GitLab sets CI_NODE_TOTAL=1 on every job without parallel:; it does not hide another engine.
    ({"CI_NODE_TOTAL": "1", "CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "3"}, "3/3", None),
    ({"JOB_COMPLETION_INDEX": " 1 ", "LEXBENCH_SHARD_COUNT": "3"}, "2/3", None),
])
def test_auto_reads_each_engine_with_its_own_first_index(environ, expected, source):
    shard = Shard.from_option("auto", environ)
    assert str(shard) == expected
    if source:
        assert shard.source == source


def test_engines_that_agree_are_all_named():
    shard = Shard.from_option("auto", {"JOB_COMPLETION_INDEX": "1", "LEXBENCH_SHARD_INDEX": "2",
                                       "LEXBENCH_SHARD_COUNT": "3"})
    assert str(shard) == "2/3" and "JOB_COMPLETION_INDEX=1" in shard.source and "LEXBENCH_SHARD_INDEX=2" in shard.source


def test_an_explicit_shard_ignores_the_environment_and_says_so():
    shard = Shard.from_option("2/3", {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"})
    assert str(shard) == "2/3" and shard.source == "--shard=2/3"
    assert shard == Shard(2, 3)  # the source takes no part in equality


@pytest.mark.parametrize("environ", [{}, {"CI_NODE_TOTAL": "1"}, {"LEXBENCH_SHARD_COUNT": "3"}])
def test_auto_without_variables_names_every_variable_it_looked_for(environ):
    with pytest.raises(ValueError) as caught:
        Shard.from_option("auto", environ)
    message = str(caught.value)
    assert message.startswith("--shard=auto: no shard in the environment") and "--shard=K/N" in message
    for engine in ENGINES:
        assert engine.index_variable in message and engine.count_variable in message
    for name in environ:
        assert f"{name} set, but no index beside it" in message


@pytest.mark.parametrize(("environ", "problem"), [
    ({"JOB_COMPLETION_INDEX": "3", "LEXBENCH_SHARD_COUNT": "3"},
     "JOB_COMPLETION_INDEX=3 is outside 0..2 (LEXBENCH_SHARD_COUNT=3; Kubernetes Indexed Job counts from 0)"),
    ({"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"},
     "CI_NODE_INDEX=0 is outside 1..3 (CI_NODE_TOTAL=3; GitLab CI counts from 1)"),
    ({"LEXBENCH_SHARD_INDEX": "0", "LEXBENCH_SHARD_COUNT": "2"}, "LEXBENCH_SHARD_INDEX=0 is outside 1..2"),
    ({"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "0"},
     "BUILDKITE_PARALLEL_JOB_COUNT=0 (Buildkite): at least 1"),
])
def test_an_index_out_of_range_is_refused_with_the_range(environ, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        Shard.from_option("auto", environ)


@pytest.mark.parametrize(("environ", "problem"), [
    ({"CIRCLE_NODE_INDEX": "one", "CIRCLE_NODE_TOTAL": "2"}, "CIRCLE_NODE_INDEX='one' is not a whole number"),
    ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2.0"}, "CI_NODE_TOTAL='2.0' is not a whole number (GitLab CI)"),
    ({"LEXBENCH_SHARD_INDEX": "", "LEXBENCH_SHARD_COUNT": "2"}, "LEXBENCH_SHARD_INDEX='' is not a whole number"),
    ({"JOB_COMPLETION_INDEX": "-1", "LEXBENCH_SHARD_COUNT": "2"}, "JOB_COMPLETION_INDEX='-1' is not a whole number"),
    ({"BUILDKITE_PARALLEL_JOB": "²", "BUILDKITE_PARALLEL_JOB_COUNT": "3"}, "BUILDKITE_PARALLEL_JOB='²' is not"),
])
def test_a_value_that_is_not_a_whole_number_is_refused(environ, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        Shard.from_option("auto", environ)


def test_an_index_without_its_count_names_the_missing_variable():
    with pytest.raises(ValueError, match="JOB_COMPLETION_INDEX='1' is set .* but LEXBENCH_SHARD_COUNT is not"):
        Shard.from_option("auto", {"JOB_COMPLETION_INDEX": "1"})


def test_two_engines_that_disagree_are_refused_naming_both():
    with pytest.raises(ValueError) as caught:
        Shard.from_option("auto", {"JOB_COMPLETION_INDEX": "0", "LEXBENCH_SHARD_COUNT": "3",
                                   "CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "4"})
    message = str(caught.value)
    assert "names different shards" in message
    assert "(Kubernetes Indexed Job) says shard 1/3" in message and "(CircleCI) says shard 2/4" in message


REPO = Path(__file__).resolve().parents[1]
TIMING = ("latency_s", "latency_p50_s", "latency_p95_s", "latency_max_s", "started_at", "finished_at",
          "page_seconds_median", "page_seconds_p90", "wall_s", "pages_per_minute", "at_once", "others_in_span",
          "peak_memory_bytes", "peak_memory_median_bytes", "peak_memory_max_bytes")
"""Wall-clock and memory figures: the only row and report fields two runs over the same items may differ in."""


def without_timing(value):
    """``value`` (rows or report.json) with every wall-clock figure removed, at any depth."""
    if isinstance(value, dict):
        return {key: without_timing(item) for key, item in value.items() if key not in TIMING}
    if isinstance(value, list):
        return [without_timing(item) for item in value]
    return value


def rows_of(run_dir: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {f"{row['case']}[{row['provider']}]": row for row in rows}


def engine_free_environment() -> dict[str, str]:
    """This process's environment without any variable ``--shard=auto`` reads (a CI runner may set some)."""
    names = {name for engine in ENGINES for name in (engine.index_variable, engine.count_variable)}
    return {name: value for name, value in os.environ.items() if name not in names}


@pytest.mark.slow  # starts a pytest process
def test_auto_without_variables_stops_pytest_before_a_run_directory_exists(tmp_path):
    run_dir = tmp_path / "run"
    completed = subprocess.run([sys.executable, "-m", "pytest", "--suite=demo", "--shard=auto", f"--run-dir={run_dir}"],
                               cwd=REPO, env=engine_free_environment(), capture_output=True, text=True, timeout=600)
    assert completed.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--shard=auto: no shard in the environment" in completed.stderr
    assert all(e.index_variable in completed.stderr for e in ENGINES)
    assert not run_dir.exists()


@pytest.mark.slow  # starts four pytest processes
def test_three_auto_shards_merge_into_the_unsharded_demo_run(tmp_path):
    """Three processes, each told its shard only by one engine's variables, merge into the unsharded run.

    Legitimately different, and excluded: wall-clock figures (each row's ``latency_s`` and its attempts',
    the report's latency percentiles) and the manifests' own facts (times, argv, sessions, shard fields,
    ``merged_from``). Everything else — rows, saved answers, leaderboards, comparisons, breakdowns — must
    be equal, and the merged rows under the unsharded run's manifest must give the merged report's bytes."""
    engines = [{"JOB_COMPLETION_INDEX": "0", "LEXBENCH_SHARD_COUNT": "3"},  # Kubernetes counts from 0
               {"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"},                # GitLab from 1
               {"BUILDKITE_PARALLEL_JOB": "2", "BUILDKITE_PARALLEL_JOB_COUNT": "3"}]
    clean = engine_free_environment()
    whole, shards = tmp_path / "whole", [tmp_path / f"shard-{k}" for k in (1, 2, 3)]

    def pytest_run(run_dir: Path, *extra: str, environ=None) -> tuple[subprocess.Popen, Path]:
        log = tmp_path / f"{run_dir.name}.log"  # a file, not a pipe: a process never blocks on unread output
        with open(log, "w") as output:
            return subprocess.Popen([sys.executable, "-m", "pytest", "--suite=demo", f"--run-dir={run_dir}", "-q",
                                     "-n", "0", *extra], cwd=REPO, env={**clean, **(environ or {})}, stdout=output,
                                    stderr=subprocess.STDOUT), log

    processes = [pytest_run(whole)] + [pytest_run(d, "--shard=auto", environ=e) for d, e in zip(shards, engines)]
    for process, log in processes:  # all four run at once, as on four machines
        process.wait(timeout=900)
        assert process.returncode in (0, 1), log.read_text()[-2000:]  # 1: the demo's failing providers

    for k, (run_dir, name) in enumerate(zip(shards, ("Kubernetes Indexed Job", "GitLab CI", "Buildkite")), 1):
        run = json.loads((run_dir / "manifest.json").read_text())["run"]
        assert run["shard"] == f"{k}/3" and run["shard_source"].endswith(f"({name})")
    parts = [set(rows_of(d)) for d in shards]
    assert sum(map(len, parts)) == len(set().union(*parts)) == len(rows_of(whole)) > 0
    assert min(map(len, parts)) > 0

    merged = tmp_path / "merged"
    assert lexbench(["report", "--merge", *map(str, shards), "--output", str(merged)]) == 0
    assert {k: without_timing(r) for k, r in rows_of(merged).items()} == \
        {k: without_timing(r) for k, r in rows_of(whole).items()}
    answers = [sorted(p.name for p in (d / "responses").iterdir()) for d in (merged, whole)]
    assert answers[0] == answers[1]
    merged_report, whole_report = (json.loads((d / "report.json").read_text()) for d in (merged, whole))
    assert merged_report["leaderboards"] and without_timing(merged_report) == without_timing(whole_report)

    # The unsharded run's manifest over the merged rows reports the merged run's bytes.
    same = tmp_path / "same"
    shutil.copytree(whole, same)
    shutil.copy(merged / "results.jsonl", same / "results.jsonl")
    assert lexbench(["report", str(same)]) == 0
    for name in ("report.md", "report.html", "report.json"):
        assert (same / name).read_bytes() == (merged / name).read_bytes(), name
