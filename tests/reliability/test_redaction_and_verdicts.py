"""Redaction never changes a verdict (issue 19, SPEC §5): the scorer sees what the provider answered,
redaction applies to what is written, and identifiers declared ``not_secret`` are never masked.

A whole ``pytest --live`` run of Bright Data's loopback fake: its zone is named ``harbour`` (declared
not secret), a word of one case's title; its API key is ``Heritage``, the other case's
page identity and the first word of its title (scored after redaction, that case fails; a word of its
ending would not do, the ending's fragments tolerate one lost word). Each answer is the page's text, and the fake echoes the key into it (raw, base64, URL-encoded).
Both cases must pass, the saved answer must still say harbour, and the key must be in no file the run
wrote nor in pytest's output, in any encoding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.providers.hosted_fakes import FAKES, serve
from tests.reliability.leaks import leaks, written_files
from tests.suite_factory import ARTICLES, PUBLIC_BASE, write_suite


pytestmark = [pytest.mark.attack(item=2), pytest.mark.slow]


ZONE, KEY = "harbour", "Heritage"
CONFTEST = ''


def answer(article: dict) -> str:
    """A good answer to the tiny suite's case: site navigation, the title as a heading, every paragraph."""
    return "World news | Science desk\n\n# " + article["title"] + "\n\n" + "\n\n".join(article["paragraphs"])


def run_bench(pytester, monkeypatch, not_secret: list[str]) -> tuple[list[dict], Path, object, dict]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LEXBENCH_BRD_KEY", KEY)
    monkeypatch.setenv("LEXBENCH_BRD_ZONE", ZONE)
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES, url_base=PUBLIC_BASE)
    pages = {f"{PUBLIC_BASE}/{a['slug']}": answer(a) for a in ARTICLES}
    with serve("brightdata-unlocker", pages, echo_key=True) as server:
        config = pytester.path / "providers.json"
        config.write_text(json.dumps({"schema_version": 1, "default_providers": ["brightdata"], "providers": [{
            "name": "brightdata", "type": "brightdata-unlocker", "log_level": "debug", "not_secret": not_secret,
            "options": {"base_url": FAKES["brightdata-unlocker"].base_url(server), "api_key": "${LEXBENCH_BRD_KEY}",
                        "zone": "${LEXBENCH_BRD_ZONE}"}}]}))
        run = pytester.path / "run"
        result = pytester.runpytest_subprocess(
            f"--suite={suite}", f"--provider-config={config}", "--providers=configured", "--live", f"--run-dir={run}",
            f"--junitxml={run.parent / 'junit.xml'}", "-o", "junit_logging=all", "-rA", "-n", "0")
        received = list(server.requests)
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    haystacks = {**written_files(run), "junit.xml": (run.parent / "junit.xml").read_bytes(),
                 "pytest stdout": result.stdout.str().encode(), "pytest stderr": result.stderr.str().encode()}
    return rows, run, received, haystacks


def test_a_zone_named_like_a_word_of_the_page_and_a_key_the_page_needs_change_no_verdict(pytester, monkeypatch):
    rows, run, received, haystacks = run_bench(pytester, monkeypatch, ["LEXBENCH_BRD_ZONE"])
    assert [r["key"] for r in received] == [KEY, KEY] and {r["json"]["zone"] for r in received} == {ZONE}
    outcomes = {r["case"]: r["outcome"] for r in rows}
    assert outcomes == {"article-001-en-tides": "pass", "article-002-en-orchard": "pass"}, [
        r["explanation"] for r in rows]
    tides = next(r for r in rows if r["case"] == "article-001-en-tides")
    saved = (run / "responses" / f"{tides['response_sha256']}.txt").read_text()
    assert "Tidal turbines light a harbour town" in saved and f"key {KEY}" not in saved
    orchard = next(r for r in rows if r["case"] == "article-002-en-orchard")
    assert "# [REDACTED] orchard" in (run / "responses" / f"{orchard['response_sha256']}.txt").read_text()
    assert leaks(haystacks, {"LEXBENCH_BRD_KEY": KEY}) == []
