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
