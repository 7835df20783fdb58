"""The public replay server's tokens and bounded served-fetch log (lexbench.replay_log; SPEC §7, issue 27)."""

from __future__ import annotations

import json

import pytest

from lexbench.replay_log import (
    ServedLog,
    check_replay_key,
    checked_entry,
    clean_text,
    log_token,
    new_replay_key,
    provider_token,
)

KEY = new_replay_key()


def _add(log: ServedLog, prefix: str, provider: str, agent: str | None = "svc/1") -> bool:
    return log.add(time="2026-12-03T10:00:00Z", prefix=prefix, provider=provider, case="article-001",
                   method="GET", user_agent=agent, status=200)


def test_tokens_differ_per_provider_prefix_and_key_and_from_the_log_token():
    tokens = {provider_token(KEY, "run-a" * 5, "firecrawl"), provider_token(KEY, "run-a" * 5, "zyte"),
              provider_token(KEY, "run-b" * 5, "firecrawl"), provider_token(new_replay_key(), "run-a" * 5, "firecrawl"),
              log_token(KEY, "run-a" * 5)}
    assert len(tokens) == 5 and all(len(t) == 32 for t in tokens)
    assert provider_token(KEY, "run-a" * 5, "zyte") == provider_token(KEY, "run-a" * 5, "zyte")  # stateless


@pytest.mark.parametrize("value", ["short", "x" * 31, "k" * 40 + "/", "k" * 40 + " "])
def test_a_weak_or_malformed_replay_key_is_refused_without_repeating_it(value):
    with pytest.raises(ValueError, match="at least 32 URL-safe characters") as refused:
        check_replay_key(value)
    assert value not in str(refused.value)


def test_clean_text_removes_ansi_control_and_format_characters_and_cuts():
    assert clean_text("\x1b[2J\x1b[31mred\x1b[0m\x1b]0;title\x07 ok\x00\r\n\u202eevil\x7f\x9b") == "red okevil"
    cut = clean_text("a" * 1000)
    assert len(cut) == 256 and cut.endswith("…")


def test_each_provider_keeps_at_most_its_bound_and_the_drops_are_said():
    log = ServedLog(max_per_provider=3)
    kept = [_add(log, "run-1", "firecrawl") for _ in range(5)]
    assert kept == [True, True, True, False, False] and _add(log, "run-1", "zyte")  # another provider is not starved
    lines = [json.loads(line) for line in log.lines("run-1").splitlines()]
    assert [line["provider"] for line in lines if "dropped" not in line] == ["firecrawl"] * 3 + ["zyte"]
    assert [line for line in lines if "dropped" in line] == [{"prefix": "run-1", "provider": "firecrawl", "dropped": 2}]
    assert log.lines("run-other") == b""


def test_the_whole_log_is_bounded_in_bytes_and_the_oldest_run_goes_first():
    log = ServedLog(max_bytes=2_000)
    for _ in range(5):
        _add(log, "run-old", "firecrawl")
    for _ in range(20):
        _add(log, "run-new", "firecrawl", agent="a" * 300)
    assert log.size <= 2_000
    assert log.lines("run-old") == b""  # evicted for the newer run
    entries = [json.loads(line) for line in log.lines("run-new").splitlines()]
    assert entries[-1]["dropped"] > 0 and all(len(e.get("user_agent", "")) <= 256 for e in entries)


def test_the_run_refuses_entries_of_other_runs_providers_and_cases_and_cleans_the_rest():
    entry = {"time": "2026-12-03T10:00:00Z", "prefix": "run-1", "provider": "firecrawl", "case": "article-001",
             "method": "GET", "user_agent": "\x1b[1msvc\x00/1", "status": 200}
    check = {"prefix": "run-1", "providers": frozenset({"firecrawl"}), "cases": frozenset({"article-001"})}
    assert checked_entry(entry, **check)["user_agent"] == "svc/1"
    for forged, reason in [({"prefix": "run-2"}, "another run"), ({"provider": "zyte"}, "did not hand"),
                           ({"case": "article-999"}, "not in the suite"), ({"status": 10**400}, "status"),
                           ({"status": True}, "wrong type"), ({"method": "POST"}, "method"),
                           ({"time": "yesterday"}, "time"), ({"extra": 1}, "not an entry")]:
        with pytest.raises(ValueError, match=reason):
            checked_entry({**entry, **forged}, **check)
