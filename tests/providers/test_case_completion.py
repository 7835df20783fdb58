"""A case's DOM completion reaches each engine as native retrieval parameters (SPEC §2, issue 28): the
command line or the CDP steps an engine runs for a dynamic case, never a grading requirement."""

from __future__ import annotations

from lexbench.dataset.case import DomCompletion
from lexbench.providers.engines import ENGINES, Completion, case_completion, cdp_steps, command_line

CASE = DomCompletion(selector="li.note", count=2, frame="iframe#notes", delay_ms=400, timeout_ms=9000)


def test_chromium_cdp_waits_for_the_selector_in_the_iframe_then_the_delay():
    completion = case_completion(Completion(), CASE, ENGINES["chromium-cdp"])
    assert (completion.selector, completion.min_count, completion.frame_selector, completion.delay_ms,
            completion.timeout_ms) == ("li.note", 2, "iframe#notes", 400, 9000)
    assert cdp_steps(ENGINES["chromium-cdp"], completion, route="headless_html") == [
        "connect_over_cdp(ws_url)", "goto(url, wait_until='load', timeout={deadline})",
        "wait until count('li.note') >= 2 in iframe 'iframe#notes', timeout=9000", "wait 400 ms",
        "take page.content()"]


def test_jsdom_gets_the_constraints_it_applies_and_none_for_a_frame_it_cannot_enter():
    page_level = DomCompletion(selector="li.note", count=2, delay_ms=400, timeout_ms=9000)
    completion = case_completion(Completion(), page_level, ENGINES["jsdom"])
    argv = command_line(ENGINES["jsdom"], route="headless_html", completion=completion, binary="node",
                        url="http://127.0.0.1:1/replay/c/", proxy="127.0.0.1:3128", worker="w.js")
    assert ["--selector=li.note", "--min-count=2", "--delay-ms=400", "--timeout-ms=9000"] == [
        a for a in argv if a.startswith(("--selector", "--min-count", "--delay-ms", "--timeout-ms"))]
    # inside an iframe the page itself never matches the selector: jsdom waits for nothing of it
    assert case_completion(Completion(), CASE, ENGINES["jsdom"]) == Completion()


def test_an_engine_without_selector_waits_runs_as_configured():
    dump_dom = ENGINES["chromium-dump-dom"]
    configured = Completion(wait="virtual_time", virtual_time_budget_ms=5000)
    assert case_completion(configured, CASE, dump_dom) is configured
    argv = command_line(dump_dom, route="headless_markdown", completion=configured, binary="chromium", url="u",
                        proxy="127.0.0.1:3128")
    assert "--virtual-time-budget=5000" in argv and not any(a.startswith("--timeout") for a in argv)


def test_a_static_case_leaves_the_configured_completion_alone():
    configured = Completion(wait="network_idle", selector="main", timeout_ms=3000)
    assert case_completion(configured, None, ENGINES["chromium-cdp"]) is configured
    # the case's own completion replaces the configured DOM constraints, not the wait
    merged = case_completion(configured, CASE, ENGINES["chromium-cdp"])
    assert merged.wait == "network_idle" and merged.selector == "li.note"
