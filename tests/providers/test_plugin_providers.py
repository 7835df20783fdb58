"""Provider configuration and the runtime policy as a user meets them: ``--provider-config``,
``--providers configured``, ``--retries``, skipped items with their reason, the manifest, and a run with
secret credentials that leaves no trace of them (SPEC §5, §6)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from tests.providers.servers import LoopbackServer, fake_fetch_api
from tests.suite_factory import ARTICLES, write_suite

REPO = Path(__file__).resolve().parents[2]
CONFTEST = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
pytest_plugins = ["lexbench.plugin"]
from lexbench.providers import register_provider_type
from tests.providers.fake_api import FakeFetchApi
register_provider_type(FakeFetchApi)
"""


@pytest.fixture
def bench(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\ntestpaths = cases\naddopts = -p no:cacheprovider\n")
    (pytester.path / "cases").mkdir()
    return pytester, write_suite(pytester.path / "suite", ARTICLES)


def write_config(path: Path, api_url: str, default: list[str], **fake_options) -> Path:
    providers = [
        {"name": "echo", "type": "reference-echo"},
        {"name": "md", "type": "http-markdownify"},
        {"name": "hosted", "type": "fake-fetch-api", "log_level": "debug",
         "options": {"base_url": api_url, "api_key": "${LEXBENCH_FAKE_KEY}", **fake_options}},
        {"name": "hosted-rejected", "type": "fake-fetch-api",
         "options": {"base_url": api_url, "api_key": "${LEXBENCH_REJECTED_KEY}"}},
        {"name": "hosted-unset", "type": "fake-fetch-api",
         "options": {"base_url": api_url, "api_key": "${LEXBENCH_UNSET_KEY}"}},
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
    assert {(r["outcome"], r["failure_class"]) for r in rows(replay)} == {("unresolvable", "replay_unreachable")}


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


SECRETS = {"LEXBENCH_FAKE_KEY": "sk-live/CANARY+9f3e7b21==", "LEXBENCH_REJECTED_KEY": "rejected-canary/7c1d+55aa"}


def secret_forms(secret: str) -> set[str]:
    raw = secret.encode()
    return {secret, quote(secret, safe=""), quote_plus(secret), base64.b64encode(raw).decode(),
            base64.urlsafe_b64encode(raw).decode(), base64.b64encode(raw + b":").decode()}


def test_a_whole_run_with_secret_credentials_leaves_no_trace_of_them(bench, monkeypatch):
    """Issue 5's done-when: secrets set, the hosted fake echoing them back in content and error bodies,
    debug logging on, JUnit XML with captured output and DEBUG logs, two workers; then every file the
    run wrote and pytest's output are searched for each secret, raw, URL-encoded and base64."""
    pytester, suite = bench
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("LEXBENCH_UNSET_KEY", raising=False)
    with LoopbackServer(fake_fetch_api(echo_key=True)) as api:
        config = write_config(pytester.path / "providers.json", api.url(), ["echo", "hosted", "hosted-rejected",
                                                                              "hosted-unset"], key_in_query=True)
        run_dir = pytester.path / "run"
        result = pytester.runpytest_subprocess(
            f"--suite={suite}", f"--provider-config={config}", "--providers", "configured", "--live",
            f"--run-dir={run_dir}", f"--junitxml={pytester.path / 'junit.xml'}", "-o", "junit_logging=all",
            "--log-level=DEBUG", "-rA", "-n", "2")
        received = [r["authorization"] for r in api.requests]
    assert f"Bearer {SECRETS['LEXBENCH_FAKE_KEY']}" in received  # the secret did go out, where it belongs
    recorded = rows(run_dir)
    assert len(recorded) == 8
    outcomes = {r["provider"]: (r["outcome"], r["failure_class"]) for r in recorded}
    assert outcomes["hosted-rejected"] == ("unresolvable", "auth")
    assert outcomes["hosted-unset"] == ("unresolvable", "missing_credentials")
    assert list((run_dir / "debug" / "hosted").rglob("*.json"))  # debug logging really ran

    written = [p for p in pytester.path.rglob("*") if p.is_file() and p.name != "providers.json"]
    haystacks = {str(p): p.read_bytes().decode("utf-8", errors="replace") for p in written}
    haystacks["stdout"], haystacks["stderr"] = result.stdout.str(), result.stderr.str()
    assert any("[REDACTED]" in text for text in haystacks.values())
    leaks = [(where, form) for name, secret in SECRETS.items() for form in secret_forms(secret)
             for where, text in haystacks.items() if form in text]
    assert leaks == []
