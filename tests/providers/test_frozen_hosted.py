"""Hosted services on frozen pages (issue 21): with ``--replay-public-url`` each hosted provider is handed
the frozen page under an unguessable per-run prefix and its own path segment, fetches it itself, and the
replay server's served-fetch log, kept in the run directory, names every case each service fetched.

The hosted fakes here behave like the real services: they fetch the URL they are given from the replay
server (which stands in for ``lexbench serve-replay`` behind a tunnel) and convert it; one service's
fetcher cannot reach the host, so its items fail and its name is absent from the log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from contextlib import ExitStack

import pytest

from lexbench.dataset.suite import load_suite
from lexbench.replay import ReplayServer, new_run_prefix, served_fetches_url
from lexbench.replay_log import REPLAY_KEY_VARIABLE, log_token, new_replay_key, provider_token
from tests.providers.hosted_fakes import FAKES, serve
from tests.providers.test_plugin_providers import REPO, bench, hosted_entries, rows, write_config  # noqa: F401

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

FETCHING = {"firecrawl": "firecrawl", "exa": "exa-contents", "zyte": "zyte-api"}
"""Example providers whose fakes fetch and convert the page they are handed, by name → type."""
REFUSING = {"tavily": "tavily-extract"}
"""An example provider whose fake's fetcher cannot reach the host."""
DEMO = REPO / "cases" / "demo"
SETUP_CLASSES = {"auth", "quota", "rate_limited", "missing_credentials", "infrastructure", "replay_unreachable"}


def test_hosted_services_run_on_frozen_pages_and_the_served_fetch_log_names_each_case(bench, monkeypatch):
    pytester, _ = bench
    suite = load_suite(str(DEMO))
    cases = {case.id for case in suite.cases}
    services = {**FETCHING, **REFUSING}
    key = new_replay_key()
    monkeypatch.setenv(REPLAY_KEY_VARIABLE, key)
    with ExitStack() as stack:
        replay = stack.enter_context(ReplayServer({c.id: (suite.captures[c.id], c.capture.content_type)
                                                   for c in suite.cases}, key=key))
        fakes = {name: stack.enter_context(serve(kind, fetch="refuse" if name in REFUSING else "fetch"))
                 for name, kind in services.items()}
        entries = [e for e in hosted_entries(lambda e: FAKES[e["type"]].base_url(fakes[e["name"]]) if e["name"] in fakes else "")
                   if e["name"] in services]
        for entry in entries:
            for name in re.findall(r"\$\{(\w+)\}", json.dumps(entry["options"])):
                monkeypatch.setenv(name, f"sk-{name.lower()}")
        config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", ["md"], entries)
        run_dir = pytester.path / "run"
        result = pytester.runpytest_subprocess(
            f"--suite={DEMO}", f"--provider-config={config}", f"--providers=md,{','.join(services)}",
            f"--replay-public-url={replay.base_url}", f"--run-dir={run_dir}", "-n", "2")
        asked = {name: [r["target"] for r in fake.requests] for name, fake in fakes.items()}
        base = replay.base_url
    recorded = rows(run_dir)
    by_provider = {name: {r["case"]: r for r in recorded if r["provider"] == name} for name in ("md", *services)}
    assert all(set(by_provider[name]) == cases for name in by_provider), result.outlines[-5:]

    # each service was handed the frozen page under one unguessable run prefix, its own path segment and
    # its own path secret, derived from the replay key
    prefixes = {url.split("/")[3] for urls in asked.values() for url in urls}
    [prefix] = prefixes
    assert re.fullmatch(r"run-[A-Za-z0-9_-]{24}", prefix) and prefix != new_run_prefix()
    for name, urls in asked.items():
        token = provider_token(key, prefix, name)
        assert set(urls) == {f"{base}/{prefix}/{name}/{token}/replay/{case}" for case in cases}, name  # (a failure is retried)
    assert key not in (run_dir / "manifest.json").read_text() + "".join(result.outlines + result.errlines)

    # hosted items are scored on the frozen pages; the refusing service's items are its own failure
    for name in FETCHING:
        assert not {r["failure_class"] for r in by_provider[name].values()} & SETUP_CLASSES, name
        assert any(r["outcome"] == "pass" for r in by_provider[name].values()), name
    assert {(r["outcome"], r["failure_class"]) for r in by_provider["tavily"].values()} == {("fail", "service_error")}
    # Zyte's HTML is converted here as http-markdownify converts the capture: the same verdicts
    assert {c: by_provider["zyte"][c]["outcome"] for c in cases} == {c: by_provider["md"][c]["outcome"] for c in cases}

    # the served-fetch log, kept in the run directory, names every case each service fetched, and who asked
    log = [json.loads(line) for line in (run_dir / "served-fetches.jsonl").read_text().splitlines()]
    assert {entry["prefix"] for entry in log} == {prefix}
    for name, kind in FETCHING.items():
        served = [entry for entry in log if entry["provider"] == name]
        assert {entry["case"] for entry in served} == cases, name
        assert {(entry["user_agent"], entry["status"]) for entry in served} == {(f"{kind}-fetcher/1.0", 200)}
    assert not [entry for entry in log if entry["provider"] in REFUSING]
    assert sum(replay.requests.values()) == len(log) == len(FETCHING) * len(cases)  # md used its own loopback server


def test_serve_replay_serves_a_suite_and_answers_a_run_log_only_under_its_prefix(tmp_path):
    """``lexbench serve-replay`` as the operator starts it (on a free port here), fetched as a service would."""
    import socket

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "lexbench.cli", "serve-replay", "--suite", str(DEMO),
                                "--host", "127.0.0.1", "--port", str(port)], stdout=subprocess.PIPE, text=True,
                               env={k: v for k, v in os.environ.items() if k != REPLAY_KEY_VARIABLE})
    try:
        banner = process.stdout.readline()  # printed once the server listens
        assert f"serving 15 frozen pages of suite demo at http://127.0.0.1:{port}" in banner
        assert REPLAY_KEY_VARIABLE in process.stdout.readline()
        key = process.stdout.readline().strip().removeprefix(f"export {REPLAY_KEY_VARIABLE}=")  # a new key, printed
        suite = load_suite(str(DEMO))
        base, prefix, case = f"http://127.0.0.1:{port}", new_run_prefix(), suite.cases[0]
        token = provider_token(key, prefix, "some-service")
        page = httpx.get(f"{base}/{prefix}/some-service/{token}/replay/{case.id}", headers={"User-Agent": "svc/2"})
        assert page.status_code == 200 and page.content == suite.captures[case.id]
        assert httpx.get(f"{base}/run-short/some-service/{token}/replay/{case.id}").status_code == 404
        assert httpx.get(f"{base}/{prefix}/other-service/{token}/replay/{case.id}").status_code == 404  # not its token
        log = httpx.get(served_fetches_url(base, prefix, log_token(key, prefix))).text.splitlines()
        assert [(e["provider"], e["case"], e["user_agent"]) for e in map(json.loads, log)] == [
            ("some-service", case.id, "svc/2")]
        other = new_run_prefix()
        assert httpx.get(served_fetches_url(base, other, log_token(key, other))).text == ""  # another run's log is its own
        assert httpx.get(served_fetches_url(base, prefix, token)).status_code == 404  # a provider's token reads no log
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize(("value", "extra", "message"), [
    ("replay.example/frozen", (), "must be an http(s) URL where"),
    # every hosted service would be handed the credentials, and the run's argv would keep them
    ("https://operator:s3cret-pw@replay.example", (), "must not carry credentials"),
    ("https://replay.example/a/../frozen", (), "must not hold '.' or '..' path segments"),
    ("https://replay.example/frozen?token=1", (), "must not have a query or fragment"),
    ("https://replay.example/frozen#top", (), "must not have a query or fragment"),
    ("http://127.0.0.1:8765", ("--live",), "applies to replay mode only"),  # --live fetches the live pages
])
def test_a_bad_public_replay_url_is_refused_before_any_item(bench, value, extra, message):
    pytester, _ = bench
    config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", ["md"])
    result = pytester.runpytest_subprocess(f"--suite={DEMO}", f"--provider-config={config}",
                                           f"--replay-public-url={value}", *extra)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--replay-public-url: {message}" in result.stderr.str(), result.stderr.str()
    assert "s3cret-pw" not in result.stderr.str() + result.stdout.str()
    assert not (pytester.path / "runs").exists()  # refused before a run directory is opened


def test_serve_replay_on_a_port_in_use_says_so(capsys):
    import socket

    from lexbench.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve-replay", "--suite", str(DEMO), "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_replay_with_a_port_out_of_range_is_a_usage_error(capsys, port):
    from lexbench.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["serve-replay", "--suite", str(DEMO), "--port", port])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and f"--port: {port!r} is not a port number (0 to 65535)" in err, err
