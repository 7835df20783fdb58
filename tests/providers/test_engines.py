"""The ENGINES table, DOM completion rules, route selection and preflight, without running a browser
(SPEC §5; provider contract "Native browsers", "Task delivery and DOM completion")."""

from __future__ import annotations

import stat

import pytest

from lexbench.dataset.case import Delivery
from lexbench.errors import ConfigError
from lexbench.providers.config import parse_provider_config
from lexbench.providers.engines import (
    ENGINES, FILE_ROUTE, RESOURCES_ROUTE, ROUTE_CONTRACTS, Completion, check_completion, command_line, select_route,
    version_matches,
)
from lexbench.providers.headless import HeadlessHtml, HeadlessMarkdown, PreflightError, probe_version
from lexbench.providers.local import Trafilatura
from lexbench.providers.thirdparty import Crawl4ai, LangChain, ReadabilityJs

REGISTRY = {cls.type_name: cls for cls in (HeadlessMarkdown, HeadlessHtml, ReadabilityJs, Crawl4ai, LangChain, Trafilatura)}
CHROMIUM = {"binary": "/usr/bin/chromium", "expected_version": "156"}


def argv(engine: str, completion: Completion = Completion(), *, replay: bool = True) -> list[str]:
    return command_line(ENGINES[engine], route="headless_markdown", completion=completion, binary="/usr/bin/chromium",
                        url="http://127.0.0.1:1234/replay/x", proxy="127.0.0.1:3128", profile="/tmp/lexbench-profile-1",
                        replay_host="127.0.0.1" if replay else None, worker="worker.mjs")


def load(*providers: dict) -> object:
    return parse_provider_config({"schema_version": 1, "default_providers": [providers[0]["name"]],
                                  "providers": list(providers)}, REGISTRY)


def test_every_engine_offers_both_routes_with_their_contracts():
    assert set(ROUTE_CONTRACTS) == {"headless_markdown", "headless_html"}
    assert ROUTE_CONTRACTS["headless_html"] == "rendered_html" and HeadlessHtml.output_contracts == ("rendered_html",)
    assert HeadlessMarkdown.output_contracts == ("cleaned",)
    for engine in ENGINES.values():
        assert set(engine.routes) <= set(ROUTE_CONTRACTS) and "load" in engine.waits


@pytest.mark.parametrize("engine", ["chromium-dump-dom", "chromium-cdp"])
def test_chromium_runs_quietly_in_a_fresh_profile_behind_the_guarding_proxy_live_or_replay(engine):
    replay = argv(engine)
    for flag in ("--headless", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--user-data-dir=/tmp/lexbench-profile-1"):
        assert flag in replay
    guard = ["--proxy-server=http://127.0.0.1:3128", "--proxy-bypass-list=<-loopback>",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"]
    for mode in (replay, argv(engine, replay=False)):
        assert all(flag in mode for flag in guard) and "--disable-quic" in mode
        assert sum(a.startswith("--host-resolver-rules") for a in mode) == 1


def test_cdp_server_arguments_only_where_the_engine_has_a_cdp_server():
    assert "--remote-debugging-port=0" in argv("chromium-cdp") and argv("chromium-cdp")[-1] == "--no-startup-window"
    assert not any("remote-debugging" in a for a in argv("chromium-dump-dom"))
    assert argv("chromium-dump-dom")[-2:] == ["--dump-dom", "http://127.0.0.1:1234/replay/x"]


def test_completion_reaches_the_command_line_of_one_shot_and_worker_engines():
    budget = argv("chromium-dump-dom", Completion(wait="virtual_time", virtual_time_budget_ms=4000, timeout_ms=9000))
    assert "--virtual-time-budget=4000" in budget and "--timeout=9000" in budget
    worker = argv("jsdom", Completion(selector="article p", min_count=3, delay_ms=200))
    assert ["--selector=article p", "--min-count=3", "--delay-ms=200"] == worker[3:6]
    assert "--allow-host=127.0.0.1" in worker and "--proxy=http://127.0.0.1:3128" in worker


@pytest.mark.parametrize(("engine", "completion", "refusal"), [
    ("chromium-dump-dom", Completion(selector="main", min_count=2), r"cannot apply selector, count; chromium-cdp, jsdom can"),
    ("chromium-dump-dom", Completion(delay_ms=500), "cannot apply delay"),
    ("jsdom", Completion(wait="network_idle"), "cannot apply wait 'network_idle'; chromium-cdp can"),
    ("jsdom", Completion(selector="main", frame="ad"), "cannot apply frame; chromium-cdp can"),
    ("chromium-cdp", Completion(wait="virtual_time", virtual_time_budget_ms=100), "chromium-dump-dom can"),
])
def test_an_engine_refuses_completion_it_cannot_apply(engine, completion, refusal):
    with pytest.raises(ConfigError, match=refusal):
        check_completion(ENGINES[engine], "headless_markdown", completion)


@pytest.mark.parametrize(("fields", "problem"), [
    ({"wait": "virtual_time"}, "virtual_time_budget_ms goes with wait"),
    ({"virtual_time_budget_ms": 10}, "virtual_time_budget_ms goes with wait"),
    ({"min_count": 2}, "give selector too"),
    ({"frame": "x"}, "give selector too"),
    ({"delay_ms": -1}, "greater than or equal to 0"),
])
def test_inconsistent_completion_is_invalid(fields, problem):
    with pytest.raises(ValueError, match=problem):
        Completion(**fields)


def test_text_tasks_take_the_configured_route():
    assert select_route("headless_html", Completion(selector="p"), Delivery.TEXT) == "headless_html"


def test_dom_completion_with_direct_file_delivery_is_refused_before_any_call():
    with pytest.raises(ConfigError, match="cannot claim a rendered-page condition .*selector.* was satisfied"):
        select_route("headless_markdown", Completion(selector="article"), Delivery.FILE)
    # without completion: the file route, on an engine that has one; refused on one that has not
    assert select_route("headless_markdown", Completion(), Delivery.FILE, eng=ENGINES["chromium-cdp"]) == FILE_ROUTE
    with pytest.raises(ConfigError, match="engine jsdom has no route for 'file' delivery; chromium-cdp can"):
        select_route("headless_markdown", Completion(), Delivery.FILE, eng=ENGINES["jsdom"])
    for wait in ({"wait": "network_idle"}, {"delay_ms": 500}, {"timeout_ms": 8000}):
        with pytest.raises(ConfigError, match="cannot claim a rendered-page condition"):
            select_route("headless_html", Completion(**wait), Delivery.FILE, eng=ENGINES["chromium-cdp"])


def test_resources_tasks_take_the_resources_route_with_dom_completion():
    for name in ("chromium-cdp", "chromium-dump-dom", "jsdom"):
        assert select_route("headless_html", Completion(selector="a"), Delivery.RESOURCES,
                            eng=ENGINES[name]) == RESOURCES_ROUTE
    assert [e for e in sorted(ENGINES) if "file" in ENGINES[e].deliveries] == ["chromium-cdp"]


def test_text_scope_2_with_resource_discovery_is_refused_before_any_call():
    with pytest.raises(ConfigError, match="text_scope 2 .* cannot be combined with resource discovery"):
        select_route("headless_markdown", Completion(selector="article"), Delivery.RESOURCES, text_scope=2)
    with pytest.raises(ConfigError, match="give completion.selector"):
        check_completion(ENGINES["chromium-cdp"], "headless_markdown", Completion(), text_scope=2)


def test_configuration_names_engine_binary_and_expected_version():
    config = load({"name": "cdp", "type": "headless-markdown", "options": {"engine": "chromium-cdp", **CHROMIUM}},
                  {"name": "cdp-html", "type": "headless-html", "options": {"engine": "chromium-cdp", **CHROMIUM}})
    assert [s.output_contract for s in config.providers] == ["cleaned", "rendered_html"]
    with pytest.raises(ConfigError, match="'cdp'.*expected_version: Field required"):
        load({"name": "cdp", "type": "headless-markdown", "options": {"engine": "chromium-cdp", "binary": "chromium"}})
    with pytest.raises(ConfigError, match="unknown engine 'firefox'; known: chromium-cdp, chromium-dump-dom, jsdom"):
        load({"name": "ff", "type": "headless-markdown", "options": {"engine": "firefox", **CHROMIUM}})
    with pytest.raises(ConfigError, match="output_contract 'cleaned' is not one headless-html produces"):
        load({"name": "h", "type": "headless-html", "output_contract": "cleaned",
              "options": {"engine": "jsdom", "binary": "node", "expected_version": "26"}})


def test_configuration_refuses_completion_the_engine_or_worker_cannot_apply():
    with pytest.raises(ConfigError, match="'dom'.*chromium-dump-dom cannot apply selector"):
        load({"name": "dom", "type": "headless-markdown",
              "options": {"engine": "chromium-dump-dom", **CHROMIUM, "completion": {"selector": "main"}}})
    with pytest.raises(ConfigError, match="'r': engine jsdom cannot apply wait 'network_idle'"):
        load({"name": "r", "type": "readability-js",
              "options": {"binary": "node", "expected_version": "26", "completion": {"wait": "network_idle"}}})
    with pytest.raises(ConfigError, match="crawl4ai cannot apply frame"):
        load({"name": "c", "type": "crawl4ai", "options": {**CHROMIUM, "completion": {"selector": "a", "frame": "x"}}})


def test_langchain_configuration_refuses_bad_options_and_a_missing_interpreter():
    with pytest.raises(ConfigError, match="'lc'.*unknown option.*loader"):
        load({"name": "lc", "type": "langchain", "options": {"loader": "recursive"}})
    with pytest.raises(ConfigError, match="'lc'.*separator: Input should be a valid string"):
        load({"name": "lc", "type": "langchain", "options": {"separator": 1}})
    with pytest.raises(ConfigError, match="'lc'.*python: String should have at least 1 character"):
        load({"name": "lc", "type": "langchain", "options": {"python": ""}})
    provider = LangChain("lc", {"python": "/nowhere/python3"})
    for _ in range(2):  # the reason again on every attempt, without probing again
        with pytest.raises(PreflightError, match="langchain: interpreter /nowhere/python3 not found"):
            provider.prepare()


def test_version_pins_match_exactly_or_as_a_dotted_prefix():
    assert version_matches("156", "156.0.8078.108") and version_matches("156.0.8078.108", "156.0.8078.108")
    assert not version_matches("15", "156.0.1") and not version_matches("156.1", "156.0.8078.108")


def _fake_binary(path, output: str):
    path.write_text(f"#!/bin/sh\necho '{output}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.mark.slow
def test_preflight_rejects_a_missing_binary_or_another_version(tmp_path):
    engine = ENGINES["chromium-cdp"]
    with pytest.raises(PreflightError, match="/nowhere/chromium is not installed \\(apt-get install chromium"):
        probe_version(engine, "/nowhere/chromium", "156")
    fake = _fake_binary(tmp_path / "chromium", "Chromium 155.0.7000.1 built on Debian")
    with pytest.raises(PreflightError, match="is version 155.0.7000.1 but the configuration expects 156"):
        probe_version(engine, fake, "156")
    assert probe_version(engine, fake, "155.0") == "155.0.7000.1"
    silent = _fake_binary(tmp_path / "other", "Firefox 120")
    with pytest.raises(PreflightError, match="did not report a version"):
        probe_version(engine, silent, "156")
