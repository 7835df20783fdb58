"""Engine providers in a benchmark run, as a user runs it: configured by name, scored beside the local
providers, rendered HTML on the diagnostics board, a missing engine skipped with its reason, and no
engine process left after the run (SPEC §1, §5)."""

from __future__ import annotations

import json

import pytest

from lexbench.providers.engine_process import PROFILE_PREFIX, engine_processes
from tests.providers.test_engines_real import installed
from tests.suite_factory import ARTICLES, write_suite


@pytest.mark.slow
def test_engines_run_beside_local_providers_and_leave_nothing_running(pytester, tmp_path_factory, monkeypatch):
    chromium, jsdom = installed("chromium-cdp"), installed("jsdom")
    installed("chromium-dump-dom")
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES)

    def engine(name, kind, engine_name, version, binary="/usr/bin/chromium", **extra):
        return {"name": name, "type": kind, "options": {"engine": engine_name, "binary": binary,
                                                        "expected_version": version, **extra}}

    config = {"schema_version": 1, "default_providers": ["trafilatura"], "providers": [
        {"name": "trafilatura", "type": "trafilatura"},
        engine("dump-dom", "headless-markdown", "chromium-dump-dom", chromium),
        engine("cdp", "headless-markdown", "chromium-cdp", chromium),
        engine("cdp-html", "headless-html", "chromium-cdp", chromium),
        engine("jsdom", "headless-markdown", "jsdom", jsdom, binary="node"),
        {"name": "readability-js", "type": "readability-js", "options": {"binary": "node", "expected_version": jsdom}},
        engine("absent", "headless-markdown", "chromium-dump-dom", "156", binary="/nowhere/chromium"),
    ]}
    config_path = pytester.path / "providers.json"
    config_path.write_text(json.dumps(config))
    profiles = tmp_path_factory.mktemp("engine-profiles")
    monkeypatch.setenv("TMPDIR", str(profiles))  # every per-call profile of the run lands here
    run_dir = tmp_path_factory.mktemp("runs") / "run"

    result = pytester.runpytest_subprocess(
        f"--suite={suite}", f"--provider-config={config_path}",
        "--providers=trafilatura,dump-dom,cdp,cdp-html,jsdom,readability-js,absent", f"--run-dir={run_dir}",
        "-n", "2", "-rs")

    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    by_provider = {}
    for row in rows:
        by_provider.setdefault(row["provider"], []).append(row)
    assert len(rows) == 14 and len(by_provider) == 7
    for name in ("dump-dom", "cdp", "jsdom", "readability-js"):
        assert all(row["failure_class"] in (None, "content") for row in by_provider[name]), by_provider[name]
        assert all(row["metadata"]["engine"] for row in by_provider[name])
    assert all(row["metadata"]["upstream_status"] == 200 for row in by_provider["cdp"])
    assert {row["output_contract"] for row in by_provider["cdp-html"]} == {"rendered_html"}
    absent = by_provider["absent"]
    assert {row["outcome"] for row in absent} == {"unresolvable"}
    assert "/nowhere/chromium is not installed (apt-get install chromium" in absent[0]["explanation"]
    output = result.stdout.str()
    assert "Rendered HTML (diagnostics)" in (run_dir / "report.md").read_text()
    assert "SKIPPED" in output and "not installed" in output
    assert engine_processes(str(profiles)) == []
    assert list(profiles.glob(f"{PROFILE_PREFIX}*")) == []  # every profile directory was removed


@pytest.mark.parametrize("name", ["chromium-dump-dom", "chromium-cdp", "chromium-cdp-html", "jsdom", "readability-js",
                                  "crawl4ai"])
def test_the_example_configuration_defines_every_engine_provider(name):
    from pathlib import Path

    from lexbench.providers import PROVIDER_TYPES, load_config

    example = load_config(Path(__file__).resolve().parents[2] / "providers" / "providers.example.json")
    spec = example.spec(name)
    assert PROVIDER_TYPES[spec.type].family in ("engine", "worker")
    assert spec.options["binary"] and spec.options["expected_version"]
    assert name not in example.default_providers  # make bench stays fast and works without Chromium
