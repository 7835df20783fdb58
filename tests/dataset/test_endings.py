"""The ending of an imported reference is the last passage of the article's own prose, at least ten
fragments long (SPEC §2); a reviewed suite with a shorter ending is refused at compile time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.dataset.case import MIN_ENDING_FRAGMENTS
from lexbench.dataset.endings import NO_PROSE_FLAG, SHORT_REFERENCE_FLAG, TRAILER_RULES, choose_ending, trailer_rule
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.segment import normalised_length
from lexbench.dataset.suite import build_suite, load_suite
from lexbench.errors import CorpusImportError, RulesError
from lexbench.text import FRAGMENT_CHARS
from tests.dataset.test_corpus_import import make_aeb
from tests.suite_factory import ARTICLES, write_suite

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
ARTICLE_FORMATS = ("scrapinghub-aeb", "mozilla-readability", "magic-html-bench")

PROSE = [
    "The harbour council switched on four tidal turbines on Tuesday morning after two years of work.",
    "Engineers said the machines turn with both the rising and the falling tide, day and night.",
    "The council expects the turbines to cover most of the town's winter demand from next year.",
]
LAST_PROSE = PROSE[-1]


def fragments_of(text: str) -> int:
    return normalised_length(text) // FRAGMENT_CHARS


# --- each kind of trailing line, as it appears at the end of real references ----------------------------

TRAILERS = {
    "credit": [
        "(Image credit: All About Space)", "Photo: Reuters/Denis Balibouse", "Provided by European Space Agency",
        "Source: Bloomberg", "(Reporting by Chayut Setboonsarng; Editing by Martin Petty)", "Main image credit: Getty",
        "Top photo by Joan Bardeletti", "Heba Habib contributed to this report.",
        "Stella Kim reported from Seoul, and Jennifer Jett from Hong Kong.", "Contributing: Kristine Phillips",
        "— The Nigerian Senate (@NGRSenate) October 9, 2018", "[사진=JTBC, 이매진아시아]", "(责编：胡永秋、杨光宇)",
        "【责任编辑：刘峻凌】", "新华社发（刘满仓摄）", "《光明日报》（2024年05月20日 03版）", "Фото: t.me/shot_shot",
        "Quelle: dpa",
    ],
    "copyright": [
        "© 2019 Associated Press. All Rights Reserved. This material may not be published, broadcast or rewritten.",
        "Copyright © 데일리안. 무단전재 및 재배포 금지.", "Disclaimer", "Alle Rechte vorbehalten.",
        "Todos los derechos reservados.", "This article has been adapted from its original source.",
        "Originally published on Live Science.", "This article originally appeared on The Atlantic.",
        "Correction, Nov. 15, 2019: This article misidentified a publisher.",
        "A version of this article appears in print on Page A22 of the New York edition.",
    ],
    "notice": [
        "FTC: We use income earning auto affiliate links. More.",
        "Sign up for our newsletter to get the best stories every morning.",
        "Subscribe to our free newsletter", "Receba em seu email nosso ebook gratuito",
    ],
    "share": [
        "Share this article", "Follow us on Twitter and Facebook", "Folgen Sie uns auf Instagram",
        "Deixe suas dúvidas e opiniões aqui embaixo!", "Continue reading the main story",
        "Follow NBC Latino on Facebook, Twitter and Instagram.", "Follow Backchannel: Twitter | Facebook",
        "See more photos:",         "As always, let us know what you think on our forum.", "X (formerly Twitter)",
    ],
    "related": ["Read more: Tunisia's Islamists get a sobering lesson", "Related: The ten best harbours",
                "Lesen Sie auch: Die Fähre bleibt", "Story Timeline", "Read more about ad blocking here.",
                "About the Author", "Leia também: o porto", "Читайте также: новости", "Baca juga:"],
    "poll": ["Total votes: 1,204", "Yes 62%", "Which harbour is best? (1,204 votes)"],
    "url": ["www.autoracing.com.br", "https://www.npmjs.com/package/inspector-api", "AS - www.autoracing.com.br",
            "칼럼니스트 박생강 pillgoo9@gmail.com"],
    "lead-in": ["Twitter seemed a bit confused by the campaign:", "The minister's full statement reads:"],
    "bio": ["Evan Bush is a science reporter for NBC News. He can be reached at Evan.Bush@nbcuni.com.",
            "Jennifer Jett is the Asia Digital Editor for NBC News, based in Hong Kong.",
            "Steven Mufson covers the White House.", "Ben Silverman is on Twitter at ben_silverman."],
    "byline": ["Jennifer Jett", "-Peter Shankman", "Scott Cunningham"],
    "short": ["Buy now", "Inquiry", "Conclusion", "___", "张璐", ".", "[25]"],
}


@pytest.mark.parametrize(("kind", "line"), [(kind, line) for kind, lines in TRAILERS.items() for line in lines])
def test_each_kind_of_trailing_line_is_skipped_and_named(kind, line):
    assert trailer_rule(line) == kind
    ending = choose_ending([*PROSE, line])
    assert ending.text.endswith(LAST_PROSE)
    assert ending.skipped == ((len(PROSE) + 1, kind),)


def test_every_rule_in_the_table_is_exercised():
    assert {rule.name for rule in TRAILER_RULES} <= set(TRAILERS)


@pytest.mark.parametrize("line", [
    LAST_PROSE,
    "Colombia had lost to Belgium on Monday.",
    "Happy Monday!",
    "这种拼搏精神，何其令人敬佩!",
    "Sources said the deal would close in March, and shares of the company rose.",
    "Following the storm, crews will follow up on every report of damage.",
    "Related costs rose sharply, the report said, and more on that will follow next week.",
    "He won 52,000 votes in the election.",
    "Correction officers said the prison would reopen.",
    "This isn’t supposed to be a manifesto™© we just think it’s worth sharing.",
    "北京商报讯（记者 岳品瑜 董晗萱）5月20日，中国人民银行授权全国银行间同业拆借中心公布贷款市场报价利率。",
])
def test_prose_lines_are_not_taken_for_trailers(line):
    assert trailer_rule(line) is None


def test_several_trailing_lines_are_skipped_in_order():
    lines = [*PROSE, "(Image credit: All About Space)", "© 2019 Future US, Inc.", "Share this", "www.space.com"]
    ending = choose_ending(lines)
    assert ending.text.endswith(LAST_PROSE) and ending.last_line == 3
    assert [name for _, name in ending.skipped] == ["credit", "copyright", "share", "url"]


def test_a_block_of_titles_under_a_related_heading_is_skipped():
    lines = [*PROSE, "Story Timeline", "2020 VW ID.3 official as Volkswagen bets on electric",
             "As VW ID.3 production begins, Volkswagen bets it all on an electric future"]
    ending = choose_ending(lines)
    assert ending.last_line == 3
    assert [name for _, name in ending.skipped] == ["related"] * 3


def test_a_related_heading_above_sentences_is_not_a_related_block():
    lines = [*PROSE[:2], "Related reading", "Engineers will publish the full output figures in the spring."]
    assert choose_ending(lines).last_line == 4


# --- at least ten fragments, whole lines, an exact passage ------------------------------------------------


def test_a_short_last_line_grows_backwards_over_whole_lines_to_ten_fragments():
    lines = ["An opening paragraph that sets out the whole story at length.",
             "Crews worked through the night to clear the harbour mouth.", "They finished at dawn.", "Thanks, all!"]
    ending = choose_ending(lines)
    assert fragments_of("\n".join(lines[-2:])) < MIN_ENDING_FRAGMENTS
    assert ending.first_line == 2 and ending.last_line == 4
    assert ending.text == "\n".join(lines[1:])
    assert ending.fragments == fragments_of(ending.text) >= MIN_ENDING_FRAGMENTS
    assert ending.text in "\n".join(lines) and ending.flag is None


def test_a_long_last_line_is_the_whole_ending():
    ending = choose_ending(PROSE)
    assert fragments_of(LAST_PROSE) >= MIN_ENDING_FRAGMENTS
    assert (ending.text, ending.first_line, ending.last_line, ending.skipped) == (LAST_PROSE, 3, 3, ())


def test_a_reference_too_short_for_ten_fragments_is_its_own_ending_and_flagged():
    lines = ["Short note.", "Back on Monday."]
    ending = choose_ending(lines)
    assert ending.text == "Short note.\nBack on Monday." and ending.fragments == 3
    assert ending.flag == SHORT_REFERENCE_FLAG


def test_a_reference_of_trailers_only_keeps_its_last_lines_and_is_flagged():
    lines = ["(Image credit: All About Space and the European Southern Observatory)",
             "© 2019 Future US, Inc. All rights reserved worldwide."]
    ending = choose_ending(lines)
    assert ending.flag == NO_PROSE_FLAG and ending.skipped == ()
    assert ending.fragments >= MIN_ENDING_FRAGMENTS and ending.text.endswith("worldwide.")


def test_trailing_lines_are_taken_back_when_the_prose_before_them_is_too_short():
    lines = ["Harbour reopens.", "Photo: Harbour trust archive, gathered by the volunteers over twenty long years"]
    ending = choose_ending(lines)
    assert ending.text == "\n".join(lines) and ending.fragments >= MIN_ENDING_FRAGMENTS and ending.skipped == ()


def test_a_reference_without_a_fragment_is_an_error():
    with pytest.raises(CorpusImportError, match="only 4 normalised characters"):
        choose_ending(["ab", "—", "cd"])


# --- importers -------------------------------------------------------------------------------------------


def test_the_importer_writes_the_new_ending_and_flags_a_short_reference(tmp_path):
    story = "\n".join([*PROSE, "(Image credit: All About Space)", "FTC: We use income earning auto affiliate links."])
    source = make_aeb(tmp_path / "aeb", 2, bodies={1: story, 2: "Short note.\nBack on Monday."})
    report = import_corpus("scrapinghub-aeb", source, tmp_path / "out")
    suite = load_suite(str(tmp_path / "out"))
    first, second = suite.cases
    assert first.body.reference_scope.end == LAST_PROSE
    assert first.reference_text.endswith("affiliate links.")  # the reference itself keeps every line
    assert second.body.reference_scope.end == second.reference_text == "Short note.\nBack on Monday."
    assert report.flagged == {second.id: [SHORT_REFERENCE_FLAG]}
    written = json.loads((tmp_path / "out" / "import-report.json").read_text(encoding="utf-8"))
    assert written["counts"]["flags"] == {SHORT_REFERENCE_FLAG: 1}


# --- compile-time refusal of a reviewed suite ------------------------------------------------------------


def test_a_reviewed_suite_with_a_short_ending_is_refused_naming_the_case_and_count(tmp_path):
    root = write_suite(tmp_path / "tiny", ARTICLES)
    rules = json.loads((root / "rules.json").read_text(encoding="utf-8"))
    rules["cases"][1]["body"]["reference_scope"]["end"] = "Grafting workshops will run every Saturday"
    (root / "rules.json").write_text(json.dumps(rules, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        build_suite(root, overwrite=True)
    message = str(caught.value)
    assert message.startswith("case article-002-en-orchard: reference_scope.end yields 6 fragments")
    assert "at least 10" in message


def test_an_unreviewed_suite_keeps_a_short_ending(tmp_path):
    root = write_suite(tmp_path / "tiny", ARTICLES)
    rules = json.loads((root / "rules.json").read_text(encoding="utf-8"))
    rules["suite"]["review_status"] = "imported_unreviewed"
    rules["cases"][1]["body"]["reference_scope"]["end"] = "Grafting workshops will run every Saturday"
    (root / "rules.json").write_text(json.dumps(rules, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    build_suite(root, overwrite=True)
    assert load_suite(str(root)).cases[1].body.reference_scope.end == "Grafting workshops will run every Saturday"


def test_every_committed_reviewed_ending_has_ten_fragments():
    for rules_path in [REPO_ROOT / "cases" / "demo" / "rules.json", *(REPO_ROOT / "reviews").glob("*/rules.json")]:
        rules = json.loads(rules_path.read_text(encoding="utf-8"))
        for case in rules["cases"]:
            if case.get("body"):
                assert fragments_of(case["body"]["reference_scope"]["end"]) >= MIN_ENDING_FRAGMENTS, case["id"]


# --- the real corpus --------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus_format", ARTICLE_FORMATS)
def test_no_imported_ending_of_the_real_corpus_is_short_unless_its_reference_is(tmp_path, corpus_format):
    folder = CORPUS / corpus_format
    if not (folder / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {folder} is absent (it lives outside git, in ../shared/corpus)")
    out = tmp_path / "suite"
    import_corpus(corpus_format, folder, out, keep_going=True)
    rules = json.loads((out / "rules.json").read_text(encoding="utf-8"))
    assert rules["cases"]
    for case in rules["cases"]:
        reference = (out / "evidence" / case["body"]["reference"]["path"]).read_text(encoding="utf-8")
        end = case["body"]["reference_scope"]["end"]
        assert f"\n{end}\n" in f"\n{reference}\n", f"{case['id']}: the ending is not whole lines of the reference"
        if fragments_of(end) < MIN_ENDING_FRAGMENTS:
            assert end == reference and SHORT_REFERENCE_FLAG in case["flags"], case["id"]
