"""Provider configuration and the runtime policy as a user meets them: ``--provider-config``,
``--providers configured``, ``--retries``, skipped items with their reason, the manifest, and a run with
secret credentials that leaves no trace of them (SPEC §5, §6)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from lexbench.providers import PROVIDER_TYPES
from lexbench.providers.credentials import placeholder_names
from tests.providers.hosted_fakes import FAKES, serve
from tests.providers.servers import LoopbackServer, fake_fetch_api
from tests.suite_factory import ARTICLES, PUBLIC_BASE, write_suite

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "providers" / "providers.example.json"
CONFTEST = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from lexbench.providers import register_provider_type
from tests.providers.fake_api import FakeFetchApi
register_provider_type(FakeFetchApi)
"""


@pytest.fixture
def bench(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    return pytester, write_suite(pytester.path / "suite", ARTICLES, url_base=PUBLIC_BASE)  # --live hands them on


def hosted_entries(base_url: Callable[[dict], str]) -> list[dict]:
    """Every hosted entry of the example configuration as written, its ``base_url`` replaced."""
    entries = json.loads(EXAMPLE.read_text())["providers"]
    return [{**e, "options": {**e["options"], "base_url": base_url(e)}}
            for e in entries if PROVIDER_TYPES[e["type"]].family == "hosted"]


HOSTED_CREDENTIALS = sorted({name for e in hosted_entries(lambda e: "") for name in placeholder_names(e["options"])})
"""Every credential variable the example's hosted providers name (the canary test sets each one)."""


def write_config(path: Path, api_url: str, default: list[str], extra: list[dict] = (), **fake_options) -> Path:
    providers = [
        {"name": "echo", "type": "reference-echo"},
        {"name": "md", "type": "http-markdownify"},
        {"name": "hosted", "type": "fake-fetch-api", "log_level": "debug",
         "options": {"base_url": api_url, "api_key": "${LEXBENCH_FAKE_KEY}", **fake_options}},
        {"name": "hosted-rejected", "type": "fake-fetch-api",
         "options": {"base_url": api_url, "api_key": "${LEXBENCH_REJECTED_KEY}"}},
        {"name": "hosted-unset", "type": "fake-fetch-api",
         "options": {"base_url": api_url, "api_key": "${LEXBENCH_UNSET_KEY}"}},
        *extra,
    ]
    path.write_text(json.dumps({"schema_version": 1, "default_providers": default, "providers": providers}))
    return path


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_configured_selection_policy_and_manifest(bench):
    pytester, suite = bench
    config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", ["echo", "md"])
    run_dir = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--provider-config={config}", "--providers", "configured",
                                           "--fetch-timeout", "7", "--retries", "2", f"--run-dir={run_dir}")
    result.assert_outcomes(passed=4)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["providers"] == ["echo", "md"] and manifest["provider_selection"] == "configured"
    assert manifest["provider_config"]["path"] == str(config)
    assert len(manifest["provider_config"]["sha256_redacted"]) == 64
    assert manifest["provider_config"]["providers"]["md"] == {
        "type": "http-markdownify", "output_contract": "cleaned", "dns_mode": "system", "log_level": "info",
        "credential_variables": []}
    assert manifest["runtime_policy"] == {"timeout_s": 7.0, "retries": 2, "max_body_bytes": 20_000_000}
    recorded = {(r["case"], r["provider"]): r for r in rows(run_dir)}
    assert recorded[("article-001-en-tides", "md")]["metadata"]["dns_mode"] == "system"
    assert len(recorded[("article-001-en-tides", "md")]["attempts"]) == 1


def test_absent_credentials_and_replay_mode_skip_hosted_items_with_the_reason(bench, monkeypatch):
    pytester, suite = bench
    monkeypatch.delenv("LEXBENCH_UNSET_KEY", raising=False)
    monkeypatch.setenv("LEXBENCH_FAKE_KEY", "present")
    config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", ["echo"])
    live, replay = pytester.path / "live", pytester.path / "replay"
    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--provider-config={config}", "--providers",
                                           "hosted-unset", "--live", f"--run-dir={live}", "-rs")
    result.assert_outcomes(skipped=2)
    assert "missing_credentials" in result.stdout.str() and "LEXBENCH_UNSET_KEY" in result.stdout.str()
    assert {(r["outcome"], r["failure_class"]) for r in rows(live)} == {("unresolvable", "missing_credentials")}

    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--provider-config={config}", "--providers",
                                           "hosted", f"--run-dir={replay}", "-rs")
    result.assert_outcomes(skipped=2)
    assert "cannot fetch the loopback replay server" in result.stdout.str()
    assert "or on the frozen pages with --replay-public-url=URL" in " ".join(result.stdout.str().split())
    assert {(r["outcome"], r["failure_class"]) for r in rows(replay)} == {("unresolvable", "replay_unreachable")}


def test_configured_hosted_providers_without_credentials_skip_every_item_with_the_reason(bench, monkeypatch):
    """The example's hosted providers as the configured selection, no credential set: every item is
    skipped (unresolvable) naming its variables, and no request is attempted (their base URLs point at a
    closed loopback port, so even a bug could not reach a public host)."""
    pytester, suite = bench
    for name in HOSTED_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    hosted = hosted_entries(lambda e: "http://127.0.0.1:1")
    config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", [e["name"] for e in hosted], hosted)
    run_dir = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--provider-config={config}", "--providers", "configured",
                                           "--live", f"--run-dir={run_dir}", "-rs")
    result.assert_outcomes(skipped=2 * len(hosted))
    skips = [line for line in result.outlines if line.startswith("SKIPPED")]  # -rs groups a provider's two cases
    assert len(skips) == len(hosted) and all(line.startswith("SKIPPED [2]") and "missing_credentials" in line
                                             for line in skips)
    for entry in hosted:
        names = placeholder_names(entry["options"])
        assert any(f"{entry['name']}: credential variable(s) {', '.join(names)} unset" in line for line in skips), entry
    recorded = rows(run_dir)
    assert len(recorded) == 2 * len(hosted)
    assert {(r["outcome"], r["failure_class"]) for r in recorded} == {("unresolvable", "missing_credentials")}


def test_hosted_providers_are_skipped_in_replay_mode_without_a_call(bench, monkeypatch):
    pytester, suite = bench
    for name in HOSTED_CREDENTIALS:
        monkeypatch.setenv(name, "set-but-unused")
    with ExitStack() as stack:
        fakes = {t: stack.enter_context(serve(t)) for t in FAKES}
        hosted = hosted_entries(lambda e: FAKES[e["type"]].base_url(fakes[e["type"]]))
        config = write_config(pytester.path / "providers.json", "http://127.0.0.1:1", [e["name"] for e in hosted], hosted)
        run_dir = pytester.path / "run"
        result = pytester.runpytest_subprocess(f"--suite={suite}", f"--provider-config={config}", "--providers",
                                               "configured", f"--run-dir={run_dir}", "-rs")
        calls = sum(len(server.requests) for server in fakes.values())
    result.assert_outcomes(skipped=2 * len(hosted))
    reasons = [line for line in result.outlines if line.startswith("SKIPPED [2]")]
    assert len(reasons) == len(hosted) and all("cannot fetch the loopback replay server" in line for line in reasons)
    assert {(r["outcome"], r["failure_class"]) for r in rows(run_dir)} == {("unresolvable", "replay_unreachable")}
    assert calls == 0


@pytest.mark.parametrize(("entry", "message"), [
    ({"name": "x", "type": "no-such-type"}, "unknown type 'no-such-type'"),
    ({"name": "echo", "type": "trafilatura"}, "provider name 'echo' is defined twice"),
])
def test_a_bad_configuration_stops_the_run_before_any_item(bench, entry, message):
    pytester, suite = bench
    path = pytester.path / "bad.json"
    path.write_text(json.dumps({"schema_version": 1, "default_providers": ["echo"],
                                "providers": [{"name": "echo", "type": "reference-echo"}, entry]}))
    result = pytester.runpytest_subprocess(f"--suite={suite}", f"--provider-config={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


SECRETS = {"LEXBENCH_FAKE_KEY": "sk-live/CANARY+9f3e7b21==", "LEXBENCH_REJECTED_KEY": "rejected-canary/7c1d+55aa",
           **{name: f"canary-{name.lower().replace('_', '-')}/4b2e+a1==" for name in HOSTED_CREDENTIALS}}


def secret_forms(secret: str) -> set[str]:
    raw = secret.encode()
    return {secret, quote(secret, safe=""), quote_plus(secret), base64.b64encode(raw).decode(),
            base64.urlsafe_b64encode(raw).decode(), base64.b64encode(raw + b":").decode()}


def test_a_whole_run_with_secret_credentials_leaves_no_trace_of_them(bench, monkeypatch):
    """Issue 5's done-when, with every hosted provider of the example configuration (issue 6): secrets
    set for every credential variable they name, each service's fake echoing its key back in content and
    error bodies, debug logging on, JUnit XML with captured output and DEBUG logs, two workers; then every
    file the run wrote and pytest's output are searched for each secret, raw, URL-encoded and base64."""
    pytester, suite = bench
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("LEXBENCH_UNSET_KEY", raising=False)
    with ExitStack() as stack:
        api = stack.enter_context(LoopbackServer(fake_fetch_api(echo_key=True)))
        fakes = {t: stack.enter_context(serve(t, echo_key=True)) for t in FAKES}
        hosted = [{**e, "log_level": "debug"}
                  for e in hosted_entries(lambda e: FAKES[e["type"]].base_url(fakes[e["type"]]))]
        config = write_config(pytester.path / "providers.json", api.url(),
                              ["echo", "hosted", "hosted-rejected", "hosted-unset", *(e["name"] for e in hosted)],
                              hosted, key_in_query=True)
        run_dir = pytester.path / "run"
        result = pytester.runpytest_subprocess(
            f"--suite={suite}", f"--provider-config={config}", "--providers", "configured", "--live",
            f"--run-dir={run_dir}", f"--junitxml={pytester.path / 'junit.xml'}", "-o", "junit_logging=all",
            "--log-level=DEBUG", "-rA", "-n", "2")
        received = [r["authorization"] for r in api.requests]
        keys_received = {t: {r["key"] for r in server.requests} for t, server in fakes.items()}
    assert f"Bearer {SECRETS['LEXBENCH_FAKE_KEY']}" in received  # the secret did go out, where it belongs
    for entry in hosted:  # and so did every hosted provider's key, to its own service
        assert SECRETS[placeholder_names(entry["options"]["api_key"])[0]] in keys_received[entry["type"]], entry["name"]
    recorded = rows(run_dir)
    assert len(recorded) == 2 * (4 + len(hosted))
    outcomes = {r["provider"]: (r["outcome"], r["failure_class"]) for r in recorded}
    assert outcomes["hosted-rejected"] == ("unresolvable", "auth")
    assert outcomes["hosted-unset"] == ("unresolvable", "missing_credentials")
    assert all(outcomes[e["name"]][0] != "unresolvable" for e in hosted), outcomes
    for name in ("hosted", *(e["name"] for e in hosted)):
        assert list((run_dir / "debug" / name).rglob("*.json")), name  # debug logging really ran

    written = [p for p in pytester.path.rglob("*") if p.is_file() and p.name != "providers.json"]
    haystacks = {str(p): p.read_bytes().decode("utf-8", errors="replace") for p in written}
    haystacks["stdout"], haystacks["stderr"] = result.stdout.str(), result.stderr.str()
    assert any("[REDACTED]" in text for text in haystacks.values())
    identifiers = {name for e in hosted for name in e.get("not_secret", [])}  # a zone, an account id: not secret
    leaks = [(where, form) for name, secret in SECRETS.items() if name not in identifiers
             for form in secret_forms(secret) for where, text in haystacks.items() if form in text]
    assert leaks == []
