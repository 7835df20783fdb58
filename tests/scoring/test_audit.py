"""The projection loss audit (SPEC §3.2): each rule names the text it removed, and a loss no rule
explains is reported ``unexplained`` (the audit can fail)."""

import re

import pytest

from lexbench.scoring import audit
from lexbench.scoring.audit import UNEXPLAINED, audit_answer, reference_fragments
from lexbench.scoring.projection import Projection
from lexbench.scoring.view import AnswerView
from tests.scoring.factories import ENDING, PARAGRAPHS, make_case

CASE = make_case()
BODY = "\n\n".join(PARAGRAPHS[:6])  # the page without its ending sentence
SLUG = re.sub(r"\W+", "-", ENDING).strip("-")  # the ending written as a URL path


def ending_fragments() -> set[str]:
    wanted = set(reference_fragments(CASE))
    return {part for part in audit.fragments(ENDING)} & wanted


# (format, answer holding the ending only inside text the projection removes, expected rule)
RULE_CASES = [
    ("markdown", f"{BODY}\n\nSee [the museum](https://example.org/{SLUG}).", "link_target"),
    ("html", f"<p>{BODY}</p><p><a href='https://example.org/{SLUG}'>museum</a></p>", "link_target"),
    ("markdown", f"{BODY}\n\n![{ENDING}](ledger.png)", "image_alt"),
    ("html", f"<p>{BODY}</p><img src='ledger.png' alt='{ENDING}'>", "image_alt"),
    ("html", f"<p>{BODY}</p><p title='{ENDING}'>ledger</p>", "html_attribute"),
    ("html", f"<p>{BODY}</p><form><input value='{ENDING}'></form>", "html_attribute"),
    ("markdown", f'{BODY}\n\n[museum](https://example.org/ "{ENDING}")', "html_attribute"),
    ("html", f"<html><head><title>{ENDING}</title></head><body><p>{BODY}</p></body></html>", "hidden_element"),
    ("html", f"<p>{BODY}</p><div hidden><p>{ENDING}</p></div>", "hidden_element"),
    ("html", f"<p>{BODY}</p><p style='display: none'>{ENDING}</p>", "hidden_element"),
    ("html", f"<p>{BODY}</p><div style='visibility:hidden'>{ENDING}</div>", "hidden_element"),
    ("html", f"<p>{BODY}</p><details><summary>More</summary><p>{ENDING}</p></details>", "hidden_element"),
    ("html", f"<p>{BODY}</p><select><option>Ledger</option><option>{ENDING}</option></select>", "hidden_element"),
    ("html", f"<p>{BODY}</p><script>var s = '{ENDING}';</script>", "hidden_element"),
    ("markdown", f"{BODY}\n\n<details>\n\n{ENDING}\n\n</details>", "hidden_element"),
    ("markdown", f"{BODY}\n\nA <span hidden>{ENDING}</span> note.", "hidden_element"),
    ("html", f"<p>{BODY}</p><!-- {ENDING} -->", "html_comment"),
    ("markdown", f"{BODY}\n\n<!-- {ENDING} -->", "html_comment"),
    ("html", f"<p>{BODY}</p><{SLUG.lower().replace(',', '')}>x</{SLUG.lower().replace(',', '')}>", "markup"),
    ("markdown", f"{BODY}\n\n```{ENDING}\nprint(1)\n```", "code_info_string"),
]


@pytest.mark.parametrize(("content_format", "content", "rule"), RULE_CASES,
                         ids=[f"{rule}-{fmt}-{i}" for i, (fmt, _, rule) in enumerate(RULE_CASES)])
def test_each_rule_explains_the_fragments_it_removed(content_format, content, rule):
    result = audit_answer(CASE, content, content_format)
    lost = {loss.fragment for loss in result.losses}
    assert ending_fragments() & lost, "the answer must lose the ending's fragments for this test to mean anything"
    assert {loss.rule for loss in result.losses} == {rule}, result.losses
    assert not result.unexplained


def test_an_answer_whose_projection_keeps_everything_has_no_losses():
    result = audit_answer(CASE, f"# Title\n\n{BODY}\n\n{ENDING}", "markdown")
    assert result.losses == ()
    assert result.in_answer == result.fragments == len(reference_fragments(CASE))


def test_a_block_the_projection_drops_is_unexplained(monkeypatch):
    content = f"{BODY}\n\n{ENDING}"
    real = AnswerView.of

    def dropping_the_last_block(text, content_format):
        view = real(text, content_format)
        return AnswerView(Projection(view.projection.blocks[:-1], format=view.projection.format))

    monkeypatch.setattr(AnswerView, "of", dropping_the_last_block)
    result = audit_answer(CASE, content, "markdown")
    assert result.losses and {loss.rule for loss in result.losses} == {UNEXPLAINED}
    assert ending_fragments() <= {loss.fragment for loss in result.losses}
    first = result.unexplained[0]
    assert "museum" in first.context or "ledger" in first.context or "died" in first.context
    assert first.note.startswith("reader text")


def test_blocks_the_projection_moves_apart_are_a_block_join(monkeypatch):
    half = ENDING.index(" and the ledger")
    content = f"{ENDING[:half]}\n\n{ENDING[half:]}"
    real = AnswerView.of

    def reversed_blocks(text, content_format):
        view = real(text, content_format)
        return AnswerView(Projection(tuple(reversed(view.projection.blocks)), format=view.projection.format))

    monkeypatch.setattr(AnswerView, "of", reversed_blocks)
    result = audit_answer(CASE, content, "markdown")
    assert result.losses and {loss.rule for loss in result.losses} == {"block_join"}


def _projection_without(monkeypatch, needle: str) -> None:
    """Make the projection drop every block holding ``needle``: the dialect quirks issue 16 fixed."""
    real = AnswerView.of

    def dropping(text, content_format):
        view = real(text, content_format)
        kept = tuple(b for b in view.projection.blocks if needle not in b.text)
        return AnswerView(Projection(kept, format=view.projection.format))

    monkeypatch.setattr(audit.AnswerView, "of", dropping)


# The three quirks of issue 16 "Why" 1-3: the projection keeps each (no loss at all), and a projection
# that dropped it again would be reported as an unexplained loss, never excused by a markup rule.
QUIRKS = [
    ("ordered-list-number", BODY.replace("Automation arrived in 1998, and", "Automation arrived in\n\n1998. and"),
     "1998."),
    ("surplus-table-cell", f"| Site | |\n| --- | --- |\n| menu | | {ENDING} |\n\n{BODY}", ENDING[:20]),
    ("after-a-head-line", f"{BODY}\n\n<head>\n\n{ENDING}", ENDING[:20]),
]


@pytest.mark.parametrize(("content", "needle"), [q[1:] for q in QUIRKS], ids=[q[0] for q in QUIRKS])
def test_a_dialect_quirk_is_reader_text(content, needle, monkeypatch):
    assert audit_answer(CASE, content, "markdown").losses == ()
    _projection_without(monkeypatch, needle)
    result = audit_answer(CASE, content, "markdown")
    assert result.unexplained and all(loss.rule == UNEXPLAINED for loss in result.losses)


def test_the_table_lists_every_item_examples_per_rule_and_a_summary():
    lossy = f"{BODY}\n\nSee [the museum](https://example.org/{SLUG})."
    items = audit.audit_items([(CASE, "links", lossy, "markdown"), (CASE, "whole", f"{BODY}\n\n{ENDING}", "markdown")])
    lost = len(items[0].audit.losses)
    assert lost > 2 and not items[1].audit.losses
    lines = audit.render_table(items, examples=2).splitlines()
    assert lines[0].split()[:3] == ["case", "provider", "format"]
    assert lines[1].split()[1:6] == ["links", "markdown", f"{items[0].audit.in_answer}/{items[0].audit.fragments}",
                                      str(lost), "link_target"]
    assert [line.split()[1] for line in lines[2:4]] == ["link_target", "link_target"]  # two examples, no more
    assert lines[4].split()[1] == "whole"
    assert lines[-1] == (f"audit-projection: 2 item(s), 1 with lost fragments; {lost} lost fragment(s) "
                         f"(link_target {lost}); 0 unexplained")
    data = audit.to_json(items)
    assert data["totals"] == {"link_target": lost} and data["unexplained"] == 0
    assert [item["lost"] for item in data["items"]] == [lost, 0]


@pytest.mark.parametrize("opening", ["<!-- a note never closed", "<?php echo 1", "<![CDATA[ x"])
def test_markdown_after_a_never_closed_comment_line_is_reader_text(monkeypatch, opening):
    # markdown-it runs the comment's HTML block to the end of the answer; a reader of the raw answer
    # still sees what follows its line, so a projection dropping it has lost reader text.
    content = f"{BODY}\n\n{opening}\n\n{ENDING}"
    real = AnswerView.of

    def dropping_the_last_block(text, content_format):
        view = real(text, content_format)
        return AnswerView(Projection(view.projection.blocks[:-1], format=view.projection.format))

    assert audit_answer(CASE, content, "markdown").losses == ()
    monkeypatch.setattr(AnswerView, "of", dropping_the_last_block)
    result = audit_answer(CASE, content, "markdown")
    assert ending_fragments() <= {loss.fragment for loss in result.unexplained}
