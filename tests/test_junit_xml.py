"""The benchmark's JUnit XML validates for the family it declares (xunit2, pytest's default) and carries
each item's figures, in one stated unit each, where the schema allows them: the <testsuite>'s
<properties> (README "JUnit XML")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from junitparser import JUnitXml
from lxml import etree

from lexbench.run.row import junit_properties
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict
from tests.suite_factory import ARTICLES, write_suite

SCHEMA = Path(__file__).resolve().parent / "fixtures" / "junit" / "junit-10.xsd"
UNIT = re.compile(r"(outcome|call_ok|latency_s|content_chars|[a-z_]+_share|region_share\..+|[a-z_]+_(found|of|minimum))")
"""Every figure's name says its unit: seconds, characters, a 0–1 share, a whole count, 1/0 or the outcome."""


@pytest.mark.slow  # runs the benchmark in a pytest subprocess
def test_junit_xml_validates_against_the_xunit2_schema_and_junitparser_reads_every_figure(pytester):
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")  # junit_family unset: xunit2
    (pytester.path / "cases").mkdir()
    suite = write_suite(pytester.path / "suite", ARTICLES)
    xml_path = pytester.path / "out.xml"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers", "reference-echo,http-markdownify",
                                           f"--run-dir={pytester.path / 'run'}", f"--junitxml={xml_path}", "-n", "0")
    result.assert_outcomes(passed=4)

    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    assert schema.validate(etree.parse(str(xml_path))), schema.error_log  # pytest's own xunit2 schema

    suites = JUnitXml.fromfile(str(xml_path))  # junitparser's default reader
    (testsuite,) = list(suites)
    figures = {p.name: p.value for p in testsuite.properties()}
    echo = "lexbench/article-001-en-tides[reference-echo]/"
    assert {name.removeprefix(echo): figures[name] for name in figures if name.startswith(echo)
            and not name.endswith(("latency_s", "content_chars"))} == {
        "outcome": "pass", "call_ok": "1", "title_found": "1", "title_of": "1", "regions_lowest_share": "1.0000",
        "region_share.opening": "1.0000", "region_share.rest": "1.0000", "ending_share": "1.0000",
        "stable_groups_found": "1", "stable_groups_of": "1", "page_identity_found": "1", "page_identity_of": "1"}
    assert float(figures[echo + "latency_s"]) >= 0 and int(figures[echo + "content_chars"]) > 0
    items = {name.split("/")[1] for name in figures}
    assert items == {f"{case}[{provider}]" for case in ("article-001-en-tides", "article-002-en-orchard")
                     for provider in ("reference-echo", "http-markdownify")}
    assert all(UNIT.fullmatch(name.split("/")[2]) for name in figures), sorted(figures)
    assert not etree.parse(str(xml_path)).xpath("//testcase/properties")  # none where xunit2 has no place for them


def test_each_component_gives_figures_named_by_their_unit():
    verdict = Verdict(outcome=Outcome.FAIL, explanation="fail: ...", failure_class="content", components=[
        ComponentResult(name=Component.CALL, passed=True, measured=1.0, threshold=1.0),
        ComponentResult(name=Component.TITLE, passed=None),  # not scored: no figure
        ComponentResult(name=Component.ENDING, passed=False, measured=0.61234, threshold=0.8),
        ComponentResult(name=Component.COMMENTS, passed=True, measured=3.0, threshold=2.0),
        ComponentResult(name=Component.POSTS, passed=False, measured=0.0, threshold=5.0),
        ComponentResult(name=Component.ANCHORS, passed=False, measured=2.0, threshold=3.0),
        ComponentResult(name=Component.SCORER, passed=None),
    ])
    assert junit_properties(verdict, 1.23456, 812) == [
        ("outcome", "fail"), ("latency_s", "1.2346"), ("content_chars", "812"), ("call_ok", "1"),
        ("ending_share", "0.6123"), ("comments_found", "3"), ("comments_minimum", "2"), ("posts_found", "0"),
        ("posts_minimum", "5"), ("anchors_found", "2"), ("anchors_of", "3")]
