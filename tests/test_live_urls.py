"""``--live`` fetches public pages only: a case whose URL cannot be one is never handed to a provider
(lexbench/run/live.py, SPEC §5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.answer import ProviderResult
from lexbench.providers import PROVIDER_TYPES, Provider
from lexbench.providers.guard import page_url_problem
from tests.suite_factory import ARTICLES, PUBLIC_BASE, write_suite

DEMO = Path(__file__).resolve().parents[1] / "cases" / "demo"


@pytest.mark.parametrize(("url", "reason"), [
    ("https://www.valleycourier.example/news/footbridge", "reserved name (.example, RFC 2606)"),
    ("https://example.com/", "reserved name (.example.com, RFC 2606)"),
    ("https://www.example.org/a", "reserved name (.example.org, RFC 2606)"),
    ("https://shop.test/", "reserved name (.test, RFC 2606)"),
    ("https://fakehost.invalid/readability-case", "reserved name (.invalid, RFC 2606)"),
    ("http://localhost:8080/", "reserved name (.localhost, RFC 6761)"),
    ("http://app.localhost/", "reserved name (.localhost, RFC 6761)"),
    ("http://printer.local/", "reserved name (.local"),
    ("http://router.home.arpa/", "reserved name (.home.arpa, RFC 8375)"),
    ("http://intranet/wiki", "single-label host name"),
    ("http://10.1.2.3/", "not a public address (private)"),
    ("http://192.168.0.10/", "not a public address (private)"),
    ("http://127.0.0.1:8765/", "not a public address (loopback)"),
    ("http://2130706433/", "not a public address (loopback)"),  # a browser reads it as 127.0.0.1
    ("http://[::1]/", "not a public address (loopback)"),
    ("http://[fe80::1]/", "not a public address (link-local)"),
    ("http://169.254.169.254/latest/meta-data/", "not a public address (link-local)"),
    ("ftp://files.kernel.org/", "only http and https"),
    ("https://user:secret@news.site.net/", "credentials"),
])
def test_urls_that_cannot_be_public_pages_are_named_with_the_reason(url: str, reason: str) -> None:
    problem = page_url_problem(url)
    assert problem is not None and reason in problem, problem


@pytest.mark.parametrize("url", [
    "https://en.wikipedia.org/wiki/Tide", "https://www.example-news.com/a", "https://notexample.com/",
    "https://examples.org/", "http://93.184.216.34/", "https://bücher.de/", "https://news.site.net./x",
])
def test_public_looking_urls_pass(url: str) -> None:
    assert page_url_problem(url) is None


class Counting(Provider):
    """A network provider that records every URL it is handed and answers the case's reference."""

    type_name = "counting-live"
    calls: list[str] = []

    def fetch(self, case, timeout, url):  # type: ignore[no-untyped-def]
        Counting.calls.append(url)
        return ProviderResult(success=True, content=f"World news | Science desk\n\n# {case.title}\n\n{case.reference_text}", content_format="markdown")


@pytest.fixture
def live_bench(pytester, monkeypatch):
    """A project with the plugin, a provider configuration holding only the counting provider, and the
    counting type registered in this process (the runs below are in-process)."""
    monkeypatch.setitem(PROVIDER_TYPES._entries, Counting.type_name, Counting)
    monkeypatch.setattr(Counting, "calls", [])
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    (pytester.path / "cases").mkdir()
    config = pytester.path / "providers.json"
    config.write_text(json.dumps({"schema_version": 1, "default_providers": ["counting"],
                                  "providers": [{"name": "counting", "type": Counting.type_name}]}))
    return pytester, config


@pytest.mark.slow  # the run records the git checkout (a git process)
def test_live_on_a_suite_without_any_public_url_is_refused_before_any_call(live_bench):
    pytester, config = live_bench
    run_dir = pytester.path / "run"
    result = pytester.runpytest(f"--suite={DEMO}", f"--provider-config={config}", "--live", f"--run-dir={run_dir}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert "--live: no case of suite demo has a public URL" in error
    assert "article-001" in error and "reserved name (.example, RFC 2606)" in error and "and 10 more" in error
    assert "drop --live" in error
    assert Counting.calls == []
    assert not run_dir.exists()


@pytest.mark.slow  # the run records the git checkout (a git process)
def test_live_items_whose_url_is_not_public_are_unresolvable_and_never_called(live_bench):
    pytester, config = live_bench
    articles = [dict(ARTICLES[0], url=f"{PUBLIC_BASE}/tides"), dict(ARTICLES[1], url="https://orchard.example/x")]
    suite = write_suite(pytester.path / "suite", articles)
    run_dir = pytester.path / "run"
    result = pytester.runpytest(f"--suite={suite}", f"--provider-config={config}", "--live", f"--run-dir={run_dir}",
                                "-rs", "-n", "0")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.OK
    assert Counting.calls == [f"{PUBLIC_BASE}/tides"]  # the public page only
    skipped = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert len(skipped) == 1 and "not_public_url" in skipped[0] and "orchard.example is a reserved name" in skipped[0]
    rows = {r["case"]: r for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())}
    refused = rows["article-002-en-orchard"]
    assert (refused["outcome"], refused["failure_class"], refused["error_type"]) == (
        "unresolvable", "not_public_url", "not_public_url")
    assert "counting was not called" in refused["error_message"]
    assert rows["article-001-en-tides"]["outcome"] == "pass"
