"""Pages that need a browser in the reports (issue 28): the "needs JavaScript" breakdown and each provider's
unrecorded requests, in report.json, report.md and report.html — and nothing of them for other runs."""

from __future__ import annotations

import lxml.html

from lexbench.report.html import render_html
from lexbench.report.model import build_report
from lexbench.report.render import render_markdown
from lexbench.verdict import Outcome
from tests.test_report import MANIFEST, row

P, F = Outcome.PASS, Outcome.FAIL
ROWS = [
    row("a", "c1", P, needs_javascript=True, unrecorded_requests=["favicon.ico"]),
    row("a", "c2", F, needs_javascript=True, unrecorded_requests=["favicon.ico", "print.css"]),
    row("a", "c3", P, needs_javascript=False, unrecorded_requests=[]),
    row("b", "c1", F, needs_javascript=True, unrecorded_requests=[]),
    row("b", "c2", F, needs_javascript=True, unrecorded_requests=[]),
    row("b", "c3", P, needs_javascript=False, unrecorded_requests=[]),
]


def test_report_json_breaks_the_pass_rate_down_by_needs_javascript_and_counts_unrecorded_requests():
    browser = build_report(ROWS, MANIFEST)["browser"]
    a, b = browser["needs_javascript"]
    assert (a["provider"], a["cases"], a["needs_javascript"], a["rest"]) == (
        "a", 2, {"pass": 1, "scored": 2, "pass_rate": 0.5}, {"pass": 1, "scored": 1, "pass_rate": 1.0})
    assert b["needs_javascript"]["pass_rate"] == 0.0
    assert browser["unrecorded_requests"] == [
        {"provider": "a", "items": 3, "requests": 3, "items_with_requests": 2,
         "top": [["favicon.ico", 2], ["print.css", 1]]},
        {"provider": "b", "items": 3, "requests": 0, "items_with_requests": 0, "top": []}]


def test_markdown_and_html_show_both_tables():
    markdown = render_markdown(ROWS, MANIFEST)
    assert "## Needs JavaScript" in markdown and "| a | 50.0 % (1/2) | 100.0 % (1/1) |" in markdown
    assert "| a | 3 | 3 | 2 | favicon.ico × 2, print.css × 1 |" in markdown
    page = lxml.html.document_fromstring(render_html(ROWS, MANIFEST))
    cells = [td.text_content() for td in page.xpath('//h2[@id="unrecorded-requests"]/following::table[1]//td')]
    assert cells[:5] == ["a", "3", "3", "2", "favicon.ico × 2, print.css × 1"]


def test_a_run_without_dynamic_cases_has_none_of_it():
    plain = [row("a", "c1", P), row("b", "c1", F)]
    assert "browser" not in build_report(plain, MANIFEST)
    assert "Needs JavaScript" not in render_markdown(plain, MANIFEST)
    assert "unrecorded-requests" not in render_html(plain, MANIFEST)


def test_the_deliveries_table_counts_file_and_resources_cases_and_unsupported_ones():
    rows = [row("a", "f1", P, delivery="file"), row("a", "r1", F, delivery="resources"),
            row("a", "r2", P, delivery="resources"), row("a", "t1", P),
            row("b", "f1", Outcome.UNRESOLVABLE, delivery="file").model_copy(update={"failure_class": "unsupported_delivery"}),
            row("b", "r1", P, delivery="resources")]
    deliveries = build_report(rows, MANIFEST)["browser"]["deliveries"]
    assert sorted(deliveries, key=lambda e: e["provider"]) == [  # in leaderboard order: b ranks first
        {"provider": "a", "file": {"pass": 1, "scored": 1, "pass_rate": 1.0},
         "resources": {"pass": 1, "scored": 2, "pass_rate": 0.5}, "unsupported": 0},
        {"provider": "b", "file": {"pass": 0, "scored": 0, "pass_rate": None},
         "resources": {"pass": 1, "scored": 1, "pass_rate": 1.0}, "unsupported": 1}]
    markdown = render_markdown(rows, MANIFEST)
    assert "## Deliveries" in markdown and "| a | 100.0 % (1/1) | 50.0 % (1/2) | 0 |" in markdown
    assert "| b | – | 100.0 % (1/1) | 1 |" in markdown
    page = lxml.html.document_fromstring(render_html(rows, MANIFEST))
    cells = [td.text_content() for td in page.xpath('//h2[@id="deliveries"]/following::table[1]//td')]
    assert ["a", "100.0 % (1/1)", "50.0 % (1/2)", "0"] in [cells[i:i + 4] for i in range(0, len(cells), 4)]
    assert "deliveries" not in build_report([row("a", "t1", P, needs_javascript=True)], MANIFEST)["browser"]
