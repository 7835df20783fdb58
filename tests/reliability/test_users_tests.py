"""A user's own test on the plugin's fixtures, attacked (issue 27 items 3 and 6): the credentials of a
configured provider it calls through ``lexbench_provider`` reach nothing lexbench or pytest writes, and
the excuses a test gives for its own misses do not pass for a hosted service's.

The user's project is a pytester directory; the provider is a loopback fake of a hosted API that echoes
the key in every answer, as a careless service might (:mod:`tests.providers.hosted_fakes`)."""

from __future__ import annotations

import json
import secrets
import textwrap

import pytest

from tests.providers import hosted_fakes
from tests.reliability.leaks import leaks, written_files
from tests.reliability.test_secrets import CONFTEST
from tests.suite_factory import ARTICLES, PUBLIC_BASE, write_suite

KEY_VARIABLE = "LEXBENCH_USERS_TEST_KEY"

USERS_TEST = '''
    import lexbench


    def test_my_hosted(lexbench_case, lexbench_provider, fetch_timeout):
        answer = lexbench_provider("hosted-echo").fetch(lexbench_case.case, fetch_timeout, lexbench_case.url)
        lexbench.assert_passes(lexbench_case, answer)
'''


@pytest.mark.slow  # a pytest session in a subprocess, and a loopback fake of the service
@pytest.mark.attack(item=3, issue=27)
def test_a_key_a_users_test_fetches_with_reaches_nothing_written_or_shown(pytester, monkeypatch):
    key = f"sk-users-test/Canary+{secrets.token_hex(6)}=="
    monkeypatch.setenv(KEY_VARIABLE, key)
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    pytester.makepyfile(test_users=textwrap.dedent(USERS_TEST))
    articles = [dict(ARTICLES[i % 2], slug=scenario) for i, scenario in enumerate(("success", "auth", "service-error"))]
    suite = write_suite(pytester.path / "suite", articles, url_base=PUBLIC_BASE)
    fake = hosted_fakes.FAKES["firecrawl"]
    with hosted_fakes.serve("firecrawl", echo_key=True) as server:
        config = pytester.path / "providers.json"
        config.write_text(json.dumps({"schema_version": 1, "default_providers": ["reference-echo"],
                                      "defaults": {"log_level": "debug"}, "providers": [
            {"name": "reference-echo", "type": "reference-echo", "output_contract": "control"},
            {"name": "hosted-echo", "type": "firecrawl", "log_level": "debug",
             "options": {"base_url": fake.base_url(server), "path": "/v2/scrape", "api_key": f"${{{KEY_VARIABLE}}}"}}]}))
        run = pytester.path / "run"
        result = pytester.runpytest_subprocess(
            f"--suite={suite}", f"--provider-config={config}", "--providers=reference-echo", "--live", f"--run-dir={run}",
            f"--junitxml={pytester.path / 'junit.xml'}", "-o", "junit_logging=all", "--log-level=DEBUG", "-rA")
        sent = [json.dumps(request, default=str) for request in server.requests]
    assert any(key in request for request in sent), "the key must really have gone to the service"
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert {row["provider"] for row in rows} == {"reference-echo", "my_hosted"} and len(rows) == 6, result.stdout.str()[-3000:]

    haystacks = written_files(pytester.path, skip=("providers.json", "conftest.py"))
    haystacks["pytest stdout"], haystacks["pytest stderr"] = result.stdout.str().encode(), result.stderr.str().encode()
    assert any(b"[REDACTED]" in data for data in haystacks.values()), "the echoes must have been masked somewhere"
    found = leaks(haystacks, {"key": key})
    assert found == [], f"the key leaked into {len(found)} place(s): {[where for where, _ in found]}"


EXCUSING_TESTS = '''
    import pytest

    import lexbench
    from lexbench.answer import ErrorType

    GOOD = "article-001-en-tides"


    def answer(case):
        return "\\n".join([case.title, case.reference_text, *[p for g in case.stable_groups for p in g.phrases]])


    def test_honest(lexbench_case):
        lexbench.assert_passes(lexbench_case, answer(lexbench_case) if lexbench_case.id == GOOD else "Nothing here.")


    def test_rate_limited(lexbench_case):
        if lexbench_case.id != GOOD:
            lexbench.assert_passes(lexbench_case, lexbench.ProviderResult.failure(ErrorType.RATE_LIMITED, "slow down"))
        lexbench.assert_passes(lexbench_case, answer(lexbench_case), format="text")


    def test_auth(lexbench_case):
        if lexbench_case.id != GOOD:
            lexbench.assert_passes(lexbench_case, lexbench.ProviderResult.failure(ErrorType.AUTH, "key refused"))
        lexbench.assert_passes(lexbench_case, answer(lexbench_case), format="text")


    def test_skipper(lexbench_case):
        if lexbench_case.id != GOOD:
            pytest.skip("not today")
        lexbench.assert_passes(lexbench_case, answer(lexbench_case), format="text")
'''
THREE = [dict(ARTICLES[0], slug="tides"), dict(ARTICLES[1], slug="market"), dict(ARTICLES[0], slug="tides-again")]


@pytest.mark.slow  # opening a run reads the checkout's git state (a process)
@pytest.mark.attack(item=6, issue=27)
def test_a_users_test_excusing_its_own_misses_is_labelled_beside_its_pass_rate(pytester):
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    pytester.makepyfile(test_excuses=textwrap.dedent(EXCUSING_TESTS))
    suite = write_suite(pytester.path / "suite", THREE)
    run = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", f"--run-dir={run}", "test_excuses.py")
    rows = {(row["case"], row["provider"]): row for row in map(json.loads, (run / "results.jsonl").read_text().splitlines())}
    assert len(rows) == 15, result.stdout.str()[-3000:]  # 3 cases × (4 tests + the control): the skips recorded too
    excuses = [row for (case, provider), row in rows.items() if provider in ("rate_limited", "auth", "skipper")
               and not case.endswith("-tides")]
    assert len(excuses) == 6 and all(row["outcome"] == "unresolvable" and "self_reported" in row["flags"]
                                     and "self-reported" in row["explanation"] for row in excuses)
    assert not any("self_reported" in row["flags"] for (_, provider), row in rows.items() if provider == "honest")

    board = {p["provider"]: p for b in json.loads((run / "report.json").read_text())["leaderboards"] for p in b["providers"]}
    assert board["honest"]["pass_rate"] == pytest.approx(1 / 3, abs=1e-4) and board["honest"]["unresolvable_share"] == 0
    for gamer in ("rate_limited", "auth", "skipper"):  # 100 % of what was scored, beside 2 of 3 excused
        assert board[gamer]["pass_rate"] == 1 and board[gamer]["unresolvable_share"] == pytest.approx(2 / 3, abs=1e-4)
        assert board[gamer]["self_reported"] == 2
    markdown = (run / "report.md").read_text()
    html = (run / "report.html").read_text()
    for text in (markdown, html):
        assert "unresolvable share" in text and "66.7 % (2 self-reported)" in text
    terminal = result.stdout.str().split("lexbench leaderboard", 1)[1]
    assert "unres %" in terminal and "66.7 %*" in terminal and "* self-reported:" in terminal


@pytest.mark.slow  # a clone of this checkout and a certified pytest session in it
@pytest.mark.attack(item=6, issue=27)
def test_a_certified_run_refuses_self_reported_excuses(tmp_path):
    """A committed user's test in a clean clone of this repository, run with ``--certified``, that reports
    its misses as ``rate_limited``: the run is recorded but not certified, naming the excused items."""
    import os
    import subprocess
    import sys

    from tests.reliability.test_certification import REPO, git

    if git(REPO, "status", "--porcelain", "--untracked-files=no").strip():
        pytest.skip("this checkout has uncommitted changes: the clone (of HEAD) would not be the code under test")
    clone = tmp_path / "lexbench"
    git(tmp_path, "clone", "-q", "--no-hardlinks", str(REPO), str(clone))
    (clone / "test_excuses.py").write_text(textwrap.dedent('''
        import lexbench
        from lexbench.answer import ErrorType


        def test_excuser(lexbench_case):
            lexbench.assert_passes(lexbench_case, lexbench.ProviderResult.failure(ErrorType.RATE_LIMITED, "later"))
    '''))
    git(clone, "add", "test_excuses.py")
    git(clone, "commit", "-q", "-m", "a user's test")
    run = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--lexbench", "--suite=demo", "--providers=reference-echo", "--certified",
                           "-q", "-p", "no:randomly", f"--run-dir={run}", "test_excuses.py"],
                          cwd=clone, capture_output=True, text=True, timeout=600, env=env)
    assert (run / "manifest.json").exists(), done.stdout[-3000:] + done.stderr[-3000:]
    certification = json.loads((run / "manifest.json").read_text())["certification"]
    assert certification["certified"] is False, done.stdout[-3000:] + done.stderr[-3000:]
    (problem,) = certification["problems"]
    assert "15 item(s) of users' tests reported themselves unresolvable (self-reported" in problem
    assert "NOT certified" in done.stdout and "self-reported" in done.stdout
