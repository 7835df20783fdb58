"""Boilerplate probes: the ``without`` snippets of a trafilatura-eval case counted in an answer's reader
text (issue 17), carried from rules.json into the compiled case."""

from __future__ import annotations

from lexbench.dataset.case import Case, CaseRule
from lexbench.scoring.probes import boilerplate_found

RULE = {
    "id": "article-001-de-harbour-probes", "name": "Hafen", "url": "https://hafen.example/a", "category": "article",
    "track": "articles", "task_prompt": "Return the page's readable content.", "kind": "site_labels", "lang": "de",
    "capture": {"path": "captures/a.html", "sha256": "0" * 64}, "title": "Neue Liegeplätze", "title_basis": "observed",
    "probes": {"with": ["Der Hafen erhält zwölf neue Liegeplätze"],
               "without": ["Alle Rechte vorbehalten", "Newsletter abonnieren", "Impressum · Datenschutz"]},
}


def case(**update) -> Case:
    return Case.model_validate({**RULE, **update})


def test_probes_are_carried_from_the_rule_into_the_compiled_case_under_their_source_names():
    rule = CaseRule.model_validate(RULE)
    assert rule.probes.with_ == ["Der Hafen erhält zwölf neue Liegeplätze"]
    assert rule.model_dump(mode="json")["probes"] == RULE["probes"]
    assert Case(**rule.model_dump(), reference_text=None).probes == rule.probes
    assert "probes" not in CaseRule.model_validate({**RULE, "probes": None}).model_dump()


def test_boilerplate_snippets_are_counted_in_the_reader_text_only():
    html = ("<html><body><h1>Neue Liegeplätze</h1><p>Der Hafen erhält zwölf neue Liegeplätze.</p>"
            "<footer>Impressum &middot; <b>Datenschutz</b></footer>"
            "<div hidden>Newsletter abonnieren</div><script>var s = 'Alle Rechte vorbehalten';</script></body></html>")
    assert boilerplate_found(case(), html, "html") == 1  # the footer; hidden and script text are not read
    assert boilerplate_found(case(), "# Neue Liegeplätze\n\nNEWSLETTER abonnieren! Alle Rechte vorbehalten.", "markdown") == 2
    assert boilerplate_found(case(), "Der Hafen erhält zwölf neue Liegeplätze.", "text") == 0
    assert boilerplate_found(case(probes=None), html, "html") is None
    assert boilerplate_found(case(probes={"with": ["x y z"], "without": []}), html, "html") is None
