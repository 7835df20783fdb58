"""The file and resources deliveries (SPEC §2): their contracts, their scorer components, and the provider
policy that makes a provider without a route ``unresolvable`` before any call."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydantic import ValidationError

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.archive import ArchiveRecord, write_archive
from lexbench.dataset.case import Case, CaseRule, Delivery
from lexbench.dataset.compile import compile_case
from lexbench.errors import EvidenceError
from lexbench.providers.base import Provider
from lexbench.providers.controls import StaticShell
from lexbench.providers.headless import HeadlessHtml, HeadlessMarkdown, resource_urls
from lexbench.providers.local import HttpMarkdownify, ReferenceEcho, Trafilatura
from lexbench.providers.policy import RuntimePolicy, call_provider
from lexbench.scoring.deliveries import normalise_url, page_relative
from lexbench.run.row import junit_properties
from lexbench.scoring.evaluate import evaluate_response
from lexbench.verdict import Component, Outcome

DOCUMENT = b"%PDF-1.4\n% a tiny stand-in document\n%%EOF\n"
PAGE_URL = "https://www.harbour.example/tides/downloads/"
REPLAY_PAGE = "http://127.0.0.1:4567/replay/downloads-001-en-tides/"
OWNED = ["tables/q1.pdf", "tables/q1.csv", "tables/q2.pdf", "tables/q2.csv", "images/chart.svg"]
CHROMIUM = {"engine": "chromium-cdp", "binary": "/usr/bin/chromium", "expected_version": "any-not-probed"}


def rule(delivery: str, **fields: object) -> dict:
    base = {"id": f"{'report' if delivery == 'file' else 'downloads'}-001-en-tides", "name": "n", "url": PAGE_URL,
            "category": "report" if delivery == "file" else "downloads", "track": "t", "task_prompt": "p",
            "kind": "site_labels", "delivery": delivery, "lang": "en",
            "capture": {"path": "captures/x.warc.gz", "sha256": "0" * 64}, "title": None,
            "title_basis": "not_in_source"}
    if delivery == "file":
        base["file"] = {"sha256": hashlib.sha256(DOCUMENT).hexdigest(), "size": len(DOCUMENT),
                        "media_type": "application/pdf"}
    else:
        base["resources"] = {"urls": OWNED, "recall_floor": 0.8, "observed": "2026-12-03", "evidence": "reviewed"}
    return {**base, **fields}


def case(delivery: str, **fields: object) -> Case:
    return Case(**rule(delivery, **fields))


# --- contracts -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("change", "field", "message"), [
    ({"urls": ["/tables/q1.pdf"]}, "resources.urls", "must be written relative to the page"),
    ({"urls": ["https://www.harbour.example/tides/downloads/a.pdf"]}, "resources.urls", "no scheme or origin"),
    ({"urls": ["../other/a.pdf"]}, "resources.urls", "leaves the page's directory"),
    ({"urls": ["a.pdf#page=2"]}, "resources.urls", "no fragment"),
    ({"urls": ["a.pdf", "a.pdf"]}, "resources.urls", "must be unique; repeated: a.pdf"),
    ({"urls": []}, "resources.urls", "at least 1 item"),
    ({"recall_floor": 0}, "resources.recall_floor", "greater than 0"),
    ({"recall_floor": 1.2}, "resources.recall_floor", "less than or equal to 1"),
])
def test_a_bad_resources_contract_names_its_field(change, field, message):
    data = rule("resources")
    data["resources"] = {**data["resources"], **change}
    with pytest.raises(ValidationError) as excinfo:
        CaseRule(**data)
    text = str(excinfo.value)
    assert field in text and message in text


@pytest.mark.parametrize(("change", "field", "message"), [
    ({"sha256": "ABC"}, "file.sha256", "should match pattern"),
    ({"size": 0}, "file.size", "greater than or equal to 1"),
    ({"media_type": "text/csv; charset=utf-8"}, "file.media_type", "should match pattern"),
])
def test_a_bad_file_contract_names_its_field(change, field, message):
    data = rule("file")
    data["file"] = {**data["file"], **change}
    with pytest.raises(ValidationError) as excinfo:
        CaseRule(**data)
    assert field in str(excinfo.value) and message in str(excinfo.value)


def test_a_file_case_may_not_declare_dom_completion():
    completion = {"selector": "main", "count": 1, "frame": None, "delay_ms": 0, "timeout_ms": 1000}
    with pytest.raises(ValidationError, match="direct file delivery returns the response bytes and cannot claim"):
        CaseRule(**rule("file", retrieval={"mode": "dynamic", "needs_javascript": False, "dom_completion": completion}))


def test_the_recall_floor_gives_a_whole_minimum():
    assert case("resources").resources.minimum == 4  # ceil(0.8 × 5)
    data = rule("resources")
    data["resources"] = {**data["resources"], "recall_floor": 1}
    assert Case(**data).resources.minimum == 5


def write_evidence(home: Path, body: bytes, content_type: str) -> str:
    data = write_archive([ArchiveRecord(path="", status=200, headers=(("Content-Type", content_type),), body=body)],
                         recorded=__import__("datetime").date(2026, 12, 3))
    (home / "captures").mkdir(parents=True)
    (home / "captures" / "x.warc.gz").write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def test_compilation_binds_the_file_contract_to_the_capture(tmp_path):
    sha = write_evidence(tmp_path, DOCUMENT, "application/pdf")
    compiled = compile_case(CaseRule(**rule("file", capture={"path": "captures/x.warc.gz", "sha256": sha})), tmp_path)
    assert compiled.file.sha256 == hashlib.sha256(DOCUMENT).hexdigest()


@pytest.mark.parametrize(("body", "content_type", "field"), [
    (DOCUMENT + b" ", "application/pdf", "file.sha256"),
    (DOCUMENT, "text/plain; charset=utf-8", "file.media_type"),
])
def test_a_file_contract_that_does_not_match_its_capture_is_refused(tmp_path, body, content_type, field):
    sha = write_evidence(tmp_path, body, content_type)
    with pytest.raises(EvidenceError, match=f"case report-001-en-tides: {field} is .* but the page its capture serves"):
        compile_case(CaseRule(**rule("file", capture={"path": "captures/x.warc.gz", "sha256": sha})), tmp_path)


# --- URLs ------------------------------------------------------------------------------------------


def test_urls_are_normalised_and_written_relative_to_the_page():
    assert normalise_url("HTTPS://WWW.Harbour.example:443/a/%7Eb/c?x=1#frag", PAGE_URL) == \
        "https://www.harbour.example/a/~b/c?x=1"
    assert normalise_url("mailto:office@harbour.example", PAGE_URL) is None
    assert page_relative("tables/q1.pdf", PAGE_URL) == "tables/q1.pdf"
    assert page_relative("https://www.harbour.example/tides/downloads/tables/q1.pdf?v=2", PAGE_URL) == "tables/q1.pdf?v=2"
    assert page_relative("/tides/downloads/images/chart.svg", PAGE_URL) == "images/chart.svg"
    assert page_relative("https://www.harbour.example/about/", PAGE_URL) is None  # same origin, outside the page
    assert page_relative("https://www.hydrographic.example/tides/", PAGE_URL) is None  # another origin
    assert page_relative(REPLAY_PAGE + "tables/q1.pdf", REPLAY_PAGE) == "tables/q1.pdf"  # the same under replay


def test_resource_urls_of_a_dom():
    html = ('<html><head><base href="sub/"></head><body><a href="a.pdf#p2">A</a><a href="mailto:x@y">m</a>'
            '<img src="i.svg"><area href="/map.html"><a href="a.pdf">again</a><link rel="icon" href="f.ico"></body></html>')
    assert resource_urls(html, PAGE_URL) == [PAGE_URL + "sub/a.pdf", PAGE_URL + "sub/i.svg",
                                             "https://www.harbour.example/map.html"]
    assert resource_urls("", PAGE_URL) == []


# --- scoring ---------------------------------------------------------------------------------------


def test_the_file_component_compares_the_sha256_of_the_bytes():
    passed = evaluate_response(case("file"), ProviderResult(
        success=True, file=DOCUMENT, metadata=ResultMetadata(content_type="application/pdf")))
    assert passed.outcome is Outcome.PASS
    component = passed.component(Component.FILE)
    assert component.evidence == f"file sha256 matches ({len(DOCUMENT):,} bytes of application/pdf)"
    assert [c.name for c in passed.components] == [Component.CALL, Component.FILE]
    failed = evaluate_response(case("file"), ProviderResult(success=True, file=DOCUMENT[:-1]))
    assert failed.outcome is Outcome.FAIL and failed.failure_class == "content"
    assert "file sha256" in failed.explanation and f"expected {len(DOCUMENT):,} bytes of application/pdf" in failed.explanation
    text_only = evaluate_response(case("file"), ProviderResult(success=True, content="# The document", content_format="markdown"))
    assert text_only.outcome is Outcome.FAIL and "file: no bytes answered" in text_only.explanation
    empty = evaluate_response(case("file"), ProviderResult(success=True, file=b""))
    assert empty.outcome is Outcome.FAIL and empty.failure_class == "empty_content"
    assert ("file_matched", "1") in junit_properties(passed, 0.1, 0) and ("file_of", "1") in junit_properties(passed, 0.1, 0)
    assert ("file_matched", "0") in junit_properties(failed, 0.1, 0)


def test_the_resources_component_measures_recall_against_the_floor():
    def score(urls: list[str], final_url: str | None = PAGE_URL):
        return evaluate_response(case("resources"), ProviderResult(
            success=True, content="\n".join(urls), content_format="text", resources=urls, final_url=final_url))

    four = [PAGE_URL + u for u in OWNED[:4]] + ["https://www.hydrographic.example/tides/", PAGE_URL + "about/"]
    verdict = score(four)
    assert ("resources_recall", "0.8000") in junit_properties(verdict, 0.1, 0)
    component = verdict.component(Component.RESOURCES)
    assert verdict.outcome is Outcome.PASS and component.measured == 0.8 and component.threshold == 0.8
    assert component.evidence.startswith("resources 4/5 owned URLs found (80%) ≥ floor 80% (4 needed); "
                                          "missing 'images/chart.svg'; 6 URLs answered (1 other owned, 1 not owned)")
    three = score([PAGE_URL + u for u in OWNED[:3]])
    assert three.outcome is Outcome.FAIL and "resources 3/5 owned URLs found (60%) < floor 80%" in three.explanation
    # behind the replay server: the provider's URLs are under the replay page, as the case's are under its URL
    assert score([REPLAY_PAGE + u for u in OWNED], final_url=REPLAY_PAGE).outcome is Outcome.PASS
    # absolute replay URLs without the page they were found on are not the page's own
    assert score([REPLAY_PAGE + u for u in OWNED], final_url=None).outcome is Outcome.FAIL


# --- provider policy -------------------------------------------------------------------------------


class Counting(Provider):
    type_name = "counting"
    needs_network = False

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def fetch(self, case, timeout, url):  # pragma: no cover - must never run for a refused delivery
        self.calls += 1
        return ProviderResult(success=True, content="x")


@pytest.mark.parametrize("delivery", ["file", "resources"])
def test_a_provider_without_a_route_is_unresolvable_before_any_call(delivery):
    provider = Counting()
    result = call_provider(provider, case(delivery), PAGE_URL, RuntimePolicy(timeout_s=5))
    verdict = evaluate_response(case(delivery), result)
    assert provider.calls == 0 and result.attempts == []
    assert verdict.outcome is Outcome.UNRESOLVABLE and verdict.failure_class == "unsupported_delivery"
    assert verdict.explanation == (f"unresolvable: unsupported delivery: the provider has no route for this case's "
                                   f"delivery, so it was not called and is not scored on the case: counting (counting) "
                                   f"has no route for {delivery!r} delivery (it delivers text).")


def test_which_types_have_which_routes():
    assert Trafilatura.deliveries == {"text"}
    assert HttpMarkdownify.deliveries == {"text", "file"}
    assert ReferenceEcho.deliveries == StaticShell.deliveries == {"text", "file", "resources"}
    from lexbench.providers import PROVIDER_TYPES

    hosted = [t for t in PROVIDER_TYPES.values() if t.family == "hosted"]
    assert len(hosted) > 5 and all(t.deliveries == {"text"} for t in hosted)  # seed: hosted adapters deliver text only
    routes = {name: sorted(t.deliveries) for name, t in PROVIDER_TYPES.items() if t.deliveries != {"text"}}
    assert routes == {"headless-html": ["file", "resources", "text"], "headless-markdown": ["file", "resources", "text"],
                      "http-markdownify": ["file", "text"], "reference-echo": ["file", "resources", "text"],
                      "rendered-control": ["file", "resources", "text"], "static-shell": ["file", "resources", "text"]}


def test_an_engine_refuses_what_it_has_no_route_for_before_it_starts():
    jsdom = HeadlessMarkdown("jsdom", {"engine": "jsdom", "binary": "node", "expected_version": "x"})
    result = call_provider(jsdom, case("file"), REPLAY_PAGE, RuntimePolicy(timeout_s=5))
    assert result.error_type is ErrorType.UNSUPPORTED_DELIVERY and result.attempts == []
    assert "engine jsdom has no route for 'file' delivery; chromium-cdp can" in result.error_message
    assert jsdom.version is None  # never preflighted: no process ran


def test_direct_file_delivery_with_a_configured_dom_completion_is_refused_before_any_call():
    provider = HeadlessHtml("cdp", {**CHROMIUM, "completion": {"selector": "main", "timeout_ms": 5000}})
    result = call_provider(provider, case("file"), REPLAY_PAGE, RuntimePolicy(timeout_s=5))
    verdict = evaluate_response(case("file"), result)
    assert verdict.outcome is Outcome.UNRESOLVABLE and result.attempts == [] and provider.version is None
    assert "cannot claim a rendered-page condition (selector, timeout) was satisfied" in verdict.explanation
    # the same provider has a route for resources: the completion is a native parameter of discovery
    assert provider.delivery_refusal(case("resources")) is None


def test_reference_echo_answers_the_contract():
    echo = ReferenceEcho()
    echo.bind_captures({"report-001-en-tides": (DOCUMENT, "application/pdf")})
    assert evaluate_response(case("file"), echo.fetch(case("file"), 5, PAGE_URL)).outcome is Outcome.PASS
    assert evaluate_response(case("resources"), echo.fetch(case("resources"), 5, PAGE_URL)).outcome is Outcome.PASS


def test_the_static_shell_answers_the_links_the_html_holds_before_any_script():
    shell = StaticShell()
    links = "".join(f'<a href="{u}">x</a>' for u in OWNED)
    shell.bind_shells({"downloads-001-en-tides": (f"<html><body>{links}</body></html>".encode(), "text/html"),
                       "report-001-en-tides": (DOCUMENT, "application/pdf")})
    assert evaluate_response(case("resources"), shell.fetch(case("resources"), 5, PAGE_URL)).outcome is Outcome.PASS
    assert evaluate_response(case("file"), shell.fetch(case("file"), 5, PAGE_URL)).outcome is Outcome.PASS
    shell.bind_shells({"downloads-001-en-tides": (b'<div id="root"></div><script src="app.js"></script>', "text/html")})
    drawn_later = evaluate_response(case("resources"), shell.fetch(case("resources"), 5, PAGE_URL))
    assert drawn_later.outcome is Outcome.FAIL and "resources 0/5" in drawn_later.explanation
