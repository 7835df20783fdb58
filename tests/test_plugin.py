"""The benchmark as a user runs it: items, outcomes, JUnit XML, run record, -n 0 vs -n 2 (SPEC §1, §6)."""

import json
import xml.etree.ElementTree as ET

import pytest

from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture
def bench(pytester):
    """A project directory with the benchmark switched on (ini) and a two-case suite."""
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES)
    return pytester, suite


def rows(run_dir):
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_items_are_case_by_provider_and_verdicts_are_outcomes(bench):
    pytester, suite = bench
    run_dir = pytester.path / "run"
    result = pytester.runpytest_subprocess(
        f"--suite={suite}", "--providers", "reference-echo,http-markdownify,trafilatura",
        f"--run-dir={run_dir}", "--collect-only", "-q")
    ids = [line for line in result.outlines if "[" in line and "::" in line]
    assert len(ids) == 6
    assert any(line.endswith("::article-001-en-tides[trafilatura]") for line in ids)

    result = pytester.runpytest_subprocess(
        f"--suite={suite}", "--providers", "reference-echo,http-markdownify,trafilatura",
        f"--run-dir={run_dir}", "-rA", "--junitxml", str(pytester.path / "out.xml"))
    # reference-echo and the whole-page dump pass; trafilatura drops the site navigation (a stable group).
    result.assert_outcomes(passed=4, failed=2)
    output = result.stdout.str()
    assert "stable groups 0/1 (missing 'nav')" in output and "Traceback" not in output
    assert "lexbench leaderboard" in output and "reference-echo" in output

    recorded = rows(run_dir)
    assert len(recorded) == 6
    by_item = {(r["case"], r["provider"]): r for r in recorded}
    assert by_item[("article-001-en-tides", "reference-echo")]["outcome"] == "pass"
    assert by_item[("article-001-en-tides", "trafilatura")]["failure_class"] == "content"
    assert by_item[("article-001-en-tides", "http-markdownify")]["outcome"] == "pass"
    sha = by_item[("article-001-en-tides", "trafilatura")]["response_sha256"]
    assert "four tidal turbines" in (run_dir / "responses" / f"{sha}.txt").read_text()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["suite"]["id"] == "tiny" and manifest["finished"]
    assert manifest["providers"] == ["reference-echo", "http-markdownify", "trafilatura"]
    report = (run_dir / "report.md").read_text()
    assert "| reference-echo |" in report and "Controls" in report

    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "out.xml").getroot().iter("property")}
    assert props["lexbench/article-002-en-orchard[reference-echo]/regions_lowest_share"] == "1.0000"
    assert "lexbench/article-002-en-orchard[trafilatura]/latency_s" in props


@pytest.mark.slow
def test_k_selects_one_provider(bench):
    pytester, suite = bench
    result = pytester.runpytest_subprocess(f"--suite={suite}", "-k", "reference-echo",
                                           f"--run-dir={pytester.path / 'r'}")
    result.assert_outcomes(passed=2, deselected=6)


@pytest.mark.slow
def test_parallel_run_records_the_same_rows(bench, tmp_path_factory):
    pytester, suite = bench
    # Run directories outside the project: pytest must not mistake them for test paths in workers.
    outside = tmp_path_factory.mktemp("runs")
    serial, parallel = outside / "serial", outside / "parallel"
    pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={serial}", "-n", "0")
    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={parallel}", "-n", "2")
    assert "lexbench leaderboard" in result.stdout.str()

    def key(run):
        return sorted((r["case"], r["provider"], r["outcome"], r["failure_class"]) for r in rows(run))

    assert key(serial) == key(parallel)
    assert len(key(parallel)) == 8
    # Each item's own wall clock (issue 28): in one process the items ran one after another, which the
    # report's engine cost says; with two workers at most two ran at once.
    for run, most in ((serial, {1}), (parallel, {1, 2})):
        assert all(r["started_at"] <= r["finished_at"] for r in rows(run))
        cost = json.loads((run / "report.json").read_text())["engine_cost"]
        assert {e["at_once"] for e in cost} <= most and {e["wall_items"] for e in cost} == {2}
        assert "## Engine cost" in (run / "report.md").read_text()
    serial_rows = sorted(rows(serial), key=lambda r: r["started_at"])
    assert all(a["finished_at"] <= b["started_at"] for a, b in zip(serial_rows, serial_rows[1:]))


_AFFINITY = '''
import json, os
from lexbench.providers.extraction import ExtractionWorker
def pytest_runtest_teardown(item):
    extractor = ExtractionWorker._shared.pid if ExtractionWorker._shared is not None else None
    seen = {"worker": sorted(os.sched_getaffinity(0)),
            "extractor": sorted(os.sched_getaffinity(extractor)) if extractor else None}
    path = os.path.join(os.environ["LEXBENCH_TEST_SEEN"], os.environ.get("PYTEST_XDIST_WORKER", "main") + ".json")
    with open(path, "w") as handle:
        json.dump(seen, handle)
'''
_CPUS = sorted(__import__("os").sched_getaffinity(0)) if hasattr(__import__("os"), "sched_getaffinity") else []


@pytest.mark.slow
@pytest.mark.skipif(not 2 <= len(_CPUS) <= 4, reason="needs Linux's sched_setaffinity and 2-4 usable CPUs "
                                                      "(one worker per CPU)")
def test_local_providers_keep_each_worker_and_its_extraction_process_on_a_cpu_of_its_own(
        bench, monkeypatch, tmp_path_factory):
    pytester, suite = bench
    pytester.makeconftest(_AFFINITY)
    seen = tmp_path_factory.mktemp("seen")
    monkeypatch.setenv("LEXBENCH_TEST_SEEN", str(seen))
    outside = tmp_path_factory.mktemp("runs")
    workers = str(len(_CPUS))

    def observed() -> list[dict]:
        files = sorted(seen.glob("gw*.json"))
        assert len(files) == len(_CPUS), files  # every worker ran items
        found = [json.loads(path.read_text()) for path in files]
        for path in files:
            path.unlink()
        return found

    # "--tx N*popen --dist load" is how -n N spells itself; both count N workers.
    pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={outside / 'pinned'}", "--tx", f"{workers}*popen",
                                  "--dist", "load").assert_outcomes(passed=4, failed=4)
    session = json.loads((outside / "pinned" / "manifest.json").read_text())["sessions"][-1]
    assert (session["workers"], session["worker_cpus"]) == (len(_CPUS), _CPUS)
    assert sorted(tuple(s["worker"]) for s in observed()) == [(cpu,) for cpu in _CPUS]

    pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={outside / 'pinned-n'}", "-n", workers,
                                  "--providers=http-markdownify").assert_outcomes(passed=2)
    assert all(s["extractor"] == s["worker"] and len(s["worker"]) == 1 for s in observed())

    pytester.runpytest_subprocess(f"--suite={suite}", f"--run-dir={outside / 'free'}", "-n", workers,
                                  "--no-cpu-pinning").assert_outcomes(passed=4, failed=4)
    assert json.loads((outside / "free" / "manifest.json").read_text())["sessions"][-1]["worker_cpus"] is None
    assert all(s["worker"] == _CPUS for s in observed())


def test_cpu_pinning_only_for_declared_local_work_with_one_worker_per_cpu():
    from lexbench.providers import PROVIDER_TYPES
    from lexbench.providers.base import Provider
    from lexbench.providers.policy import declared_family, worker_cpus

    assert worker_cpus(2, ["local", "control"], {3, 1}) == [1, 3]
    assert worker_cpus(3, ["local"], {0, 1}) is None  # more workers than CPUs: the scheduler shares them
    assert worker_cpus(2, ["local"], {0, 1, 2}) is None  # an idle CPU: pinning would pick which, blindly
    assert worker_cpus(1, ["local"], {0}) is None
    assert worker_cpus(2, ["local", "engine"], {0, 1}) is None  # a browser needs more than one core
    assert worker_cpus(2, ["hosted"], {0, 1}) is None
    assert worker_cpus(2, ["local", "undeclared"], {0, 1}) is None

    class Homemade(Provider):  # inherits the base class's default family: says nothing about its work
        type_name = "homemade"

        def fetch(self, case, timeout, url):  # type: ignore[no-untyped-def]
            raise NotImplementedError

    assert declared_family(Homemade) is None
    assert declared_family(PROVIDER_TYPES["trafilatura"]) == "local"
    assert declared_family(PROVIDER_TYPES["reference-echo"]) == "control"


@pytest.mark.slow
def test_unresolvable_is_a_skip_with_reason(bench, monkeypatch):
    pytester, suite = bench
    # A provider pointed at a dead replay server: infrastructure, not the method -> unresolvable.
    pytester.makeconftest(
        "import lexbench.plugin as p\n"
        "def _broken(self, case):\n"
        "    raise OSError('address already in use')\n"
        "p.BenchState.target_url = _broken\n")
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers", "trafilatura",
                                           f"--run-dir={pytester.path / 'r'}", "-rs")
    result.assert_outcomes(skipped=2)
    assert "unresolvable" in result.stdout.str() and "replay server" in result.stdout.str()
    assert {r["outcome"] for r in rows(pytester.path / "r")} == {"unresolvable"}


@pytest.mark.slow
def test_bad_suite_and_provider_are_usage_errors(bench):
    pytester, _ = bench
    result = pytester.runpytest_subprocess("--suite", "no-such-suite")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "no dataset.json" in result.stderr.str()
    result = pytester.runpytest_subprocess("--providers", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown provider(s) nope" in result.stderr.str()


@pytest.mark.slow
def test_tampered_capture_stops_before_any_provider_call(bench):
    pytester, suite = bench
    capture = next((suite / "evidence" / "captures").iterdir())
    capture.write_bytes(capture.read_bytes() + b" ")
    result = pytester.runpytest_subprocess(f"--suite={suite}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert capture.name in result.stderr.str() and "sha256" in result.stderr.str()


_OBSERVER = '''
import gc, json, os
from lexbench.plugin import STATE
SEEN = {}
def pytest_runtest_setup(item):
    state = item.config.stash[STATE]
    SEEN.setdefault("first_item", {"providers": sorted(state.providers), "replay": state.replay is not None,
                                   "frozen": gc.get_freeze_count() > 0})
def pytest_unconfigure(config):
    state = config.stash.get(STATE, None)
    SEEN["end"] = {"providers": sorted(state.providers), "replay": state.replay is not None,
                   "frozen": gc.get_freeze_count() > 0}
    with open(os.environ["LEXBENCH_TEST_SEEN"], "w") as handle:
        json.dump(SEEN, handle)
'''


@pytest.mark.slow
def test_providers_are_built_before_the_first_item_and_never_for_collect_only(bench, monkeypatch):
    """One-off costs (imports, TLS context, the replay server) are paid before the first item, not
    inside it, and the collected suite is frozen out of the garbage collector's walks; --collect-only
    builds nothing, starts no server and freezes nothing."""
    pytester, suite = bench
    pytester.makeconftest(_OBSERVER)
    seen = pytester.path / "seen.json"
    monkeypatch.setenv("LEXBENCH_TEST_SEEN", str(seen))
    args = (f"--suite={suite}", "--providers", "http-markdownify,reference-echo", f"--run-dir={pytester.path / 'r'}")
    pytester.runpytest_subprocess(*args, "--collect-only").assert_outcomes()
    assert json.loads(seen.read_text())["end"] == {"providers": [], "replay": False, "frozen": False}
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=4)
    assert json.loads(seen.read_text())["first_item"] == {"providers": ["http-markdownify", "reference-echo"],
                                                          "replay": True, "frozen": True}


@pytest.mark.slow
def test_the_replay_server_is_probed_only_after_a_failed_call_until_it_answers_again():
    """A probe per item cost ~15 % of an I/O-bound item: the server is asked only after a call failed,
    and then before every call until it answers again."""
    from types import SimpleNamespace

    from lexbench.plugin import BenchState
    from lexbench.plugin.options import _RESOLVED
    from lexbench.providers.policy import RuntimePolicy

    class Replay:
        running, answers, probes = True, True, 0

        def answering(self) -> bool:
            self.probes += 1
            return self.answers

    state = BenchState(config=SimpleNamespace(stash={_RESOLVED: {"live": False}}), provider_config=None,
                       provider_config_path=None, specs={}, policy=RuntimePolicy())
    state.replay = replay = Replay()
    assert state.replay_down(probe=False) is None and replay.probes == 0
    assert state.replay_down(probe=True) is None and replay.probes == 1
    replay.answers = False
    assert "no longer answers" in state.replay_down(probe=True) and replay.probes == 2
    assert "no longer answers" in state.replay_down(probe=False) and replay.probes == 3  # still suspect
    replay.answers = True
    assert state.replay_down(probe=False) is None and replay.probes == 4
    assert state.replay_down(probe=False) is None and replay.probes == 4  # healthy again: no probe
    replay.running = False
    assert "stopped" in state.replay_down(probe=False)


@pytest.mark.slow
def test_boilerplate_probes_are_counted_per_answer_and_reported(pytester):
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    probed = {**ARTICLES[0], "probes": {"with": ["four tidal turbines"],
                                        "without": ["Privacy policy", "Another story entirely", "Subscribe today"]}}
    suite = write_suite(pytester.path / "suite", [probed, ARTICLES[1]])
    run_dir = pytester.path / "run"
    pytester.runpytest_subprocess(f"--suite={suite}", "--providers", "reference-echo,http-markdownify",
                                  f"--run-dir={run_dir}")
    by_item = {(r["case"], r["provider"]): r for r in rows(run_dir)}
    # The whole-page dump keeps the footer and the related link; the control answers with the reference.
    assert by_item[("article-001-en-tides", "http-markdownify")]["boilerplate_found"] == 2
    assert by_item[("article-001-en-tides", "reference-echo")]["boilerplate_found"] == 0
    assert by_item[("article-001-en-tides", "reference-echo")]["boilerplate_probes"] == 3
    assert "boilerplate_found" not in by_item[("article-002-en-orchard", "http-markdownify")]
    report = (run_dir / "report.md").read_text()
    assert "http-markdownify 2 of 3 snippets on 1 page" in report
