"""Corpus importers on tiny fake corpus folders built in tmp_path (SPEC §2, §4).

These never read ../shared/corpus: every folder is written (and gzipped) by the helpers below, in the
layouts described by the corpus README.
"""

import gzip
import json
from pathlib import Path

import pytest

from lexbench.cli import main as cli_main
from lexbench.dataset.case import ReviewStatus, TitleBasis
from lexbench.dataset.compile import load_rules
from lexbench.dataset.endings import SHORT_REFERENCE_FLAG
from lexbench.dataset.importers import claim_case_id, import_corpus, known_formats
from lexbench.dataset.importers.common import (
    IndexRow,
    PageError,
    case_id,
    case_lang,
    detect_charset,
    domain_slug,
)
from lexbench.dataset.importers.html_text import html_lines
from lexbench.dataset.suite import load_suite
from lexbench.errors import CorpusImportError

COLUMNS = ["case_id", "html_file", "url", "url_origin", "lang", "lang_guess", "script", "ref_title", "html_title",
           "ref_body_chars", "ref_comment_chars", "coverage", "kind"]

BODY = "First paragraph of the article with enough words.\n\nSecond paragraph continues the story.\nThe end of it all."


def page_html(text: str = "Hello", charset: str | None = "utf-8") -> bytes:
    meta = f'<meta charset="{charset}">' if charset else ""
    body = "".join(f"<p>{line}</p>" for line in text.split("\n") if line)
    return f"<!doctype html><html><head>{meta}<title>T</title></head><body>{body}</body></html>".encode()


def gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data))


def write_index(folder: Path, rows: list[dict[str, str]]) -> None:
    lines = ["\t".join(COLUMNS)]
    for row in rows:
        full = {"url_origin": "source", "lang": "en", "lang_guess": "en", "script": "latin", "html_title": "A title",
                "coverage": "1.00", "kind": "article", **row}
        lines.append("\t".join(full.get(col, "") for col in COLUMNS))
    (folder / "_index.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def hexkey(n: int) -> str:
    return f"{n:02x}" * 32


def make_aeb(folder: Path, count: int = 3, *, bodies: dict[int, object] | None = None,
             rows: list[dict[str, str]] | None = None, truth_json: str | None = None) -> Path:
    """An AEB-shaped folder: html/<key>.html.gz, ground-truth.json, _index.tsv."""
    folder.mkdir(parents=True, exist_ok=True)
    truth = {}
    index = []
    for n in range(1, count + 1):
        key = hexkey(n)
        body = (bodies or {}).get(n, BODY)
        gz(folder / "html" / f"{key}.html.gz", page_html(body if isinstance(body, str) else "x"))
        url = f"https://www.site{n}.example.com/story/{n}"
        truth[key] = {"articleBody": body, "url": url}
        index.append({"case_id": key, "html_file": f"html/{key}.html.gz", "url": url,
                      "html_title": f"  Story   {n}  "})
    write_index(folder, rows if rows is not None else index)
    (folder / "ground-truth.json").write_text(truth_json or json.dumps(truth, ensure_ascii=False), encoding="utf-8")
    return folder


def make_readability(folder: Path, pages: dict[str, str], *, urls: dict[str, str] | None = None) -> Path:
    """A Readability-shaped folder: test-pages/<name>/{source.html.gz, expected.html.gz, expected-metadata.json}."""
    index = []
    for name, expected in pages.items():
        page = folder / "test-pages" / name
        gz(page / "source.html.gz", page_html(BODY))
        gz(page / "expected.html.gz", expected.encode())
        (page / "expected-metadata.json").write_text(json.dumps({"title": "T", "readerable": name != "mathjax"}))
        index.append({"case_id": name, "html_file": f"test-pages/{name}/source.html.gz",
                      "url": (urls or {}).get(name, ""), "html_title": ""})
    write_index(folder, index)
    return folder


def make_magic(folder: Path, entries: list[dict[str, object]]) -> Path:
    """A magic-html-shaped folder: article/base.json, article/htmls/<key>.html.gz, plus one forum row."""
    base = {}
    index = []
    for n, entry in enumerate(entries, start=1):
        key = hexkey(n)
        gz(folder / "article" / "htmls" / f"{key}.html.gz", page_html(str(entry.get("content", ""))))
        base[key] = {"url": f"https://news{n}.example.cn/a/{n}.html", **entry}
        index.append({"case_id": f"article/{key}", "html_file": f"article/htmls/{key}.html.gz",
                      "url": f"https://news{n}.example.cn/a/{n}.html", "lang": "", "lang_guess": "zh",
                      "kind": "list" if entry.get("remark") == "列表页" else "article"})
    index.append({"case_id": "forum/" + hexkey(99), "html_file": "forum/htmls/x.html.gz", "url": "https://f.example/",
                  "kind": "forum"})
    (folder / "article").mkdir(parents=True, exist_ok=True)
    (folder / "article" / "base.json").write_text(json.dumps(base, ensure_ascii=False), encoding="utf-8")
    write_index(folder, index)
    return folder


# --- happy paths ---------------------------------------------------------------------------------


def test_aeb_import_writes_a_loadable_unreviewed_suite(tmp_path):
    source = make_aeb(tmp_path / "aeb")
    out = tmp_path / "out"
    report = import_corpus("scrapinghub-aeb", source, out)

    assert sorted(p.name for p in out.iterdir()) == [
        "cohort.json", "dataset-catalog.json", "dataset.json", "evidence", "import-report.json", "rules.json",
        "source-inputs.json", "tasks.json",
    ]
    suite = load_suite(str(out))
    assert suite.id == "aeb"
    assert suite.dataset.suite.review_status is ReviewStatus.IMPORTED_UNREVIEWED
    assert "MIT" in suite.dataset.suite.description and "4a3bc979" in suite.dataset.suite.description
    assert [c.id for c in suite.cases] == report.imported == [
        f"article-00{n}-en-site{n}-example-com-{hexkey(n)[:6]}" for n in (1, 2, 3)
    ]
    case = suite.cases[0]
    assert case.name == "Story 1"
    assert case.url == "https://www.site1.example.com/story/1"
    assert (case.category, case.track, case.lang, case.kind.value) == ("article", "body", "en", "fixed_article")
    assert case.title is None and case.title_basis is TitleBasis.NOT_IN_SOURCE
    assert case.capture.content_type == "text/html; charset=utf-8"
    assert case.stable_groups == [] and case.page_identity == []
    assert case.body.contract_version == 4 and case.body.segmentation_version == 3
    assert case.body.reference_scope.kind == "complete"
    # The last line yields 2 fragments: the ending grows backwards over whole lines to reach 10.
    assert case.body.reference_scope.end == case.reference_text
    assert case.reference_text == (
        "First paragraph of the article with enough words.\nSecond paragraph continues the story.\nThe end of it all."
    )
    reference_file = out / "evidence" / "references" / f"{case.id}.txt"
    assert reference_file.read_bytes() == case.reference_text.encode()
    capture_file = out / "evidence" / "captures" / f"{case.id}.html"
    assert capture_file.read_bytes() == gzip.decompress((source / "html" / f"{hexkey(1)}.html.gz").read_bytes())


def test_rules_and_report_use_the_project_json_format(tmp_path):
    out = tmp_path / "out"
    import_corpus("scrapinghub-aeb", make_aeb(tmp_path / "aeb", 1, bodies={1: "Überschrift café\nZweite Zeile hier."}), out)
    raw = (out / "rules.json").read_bytes()
    assert raw.endswith(b"}\n") and not raw.endswith(b"\n\n")
    assert "Überschrift".encode() in raw and b'\n  "suite": {' in raw
    assert load_rules(out / "rules.json").suite.revision == 1
    report = json.loads((out / "import-report.json").read_text(encoding="utf-8"))
    assert report["format"] == "scrapinghub-aeb"
    # Seven fragments in all: the whole reference is the ending, and the report says so.
    assert report["counts"] == {"imported": 1, "skipped": 0, "flagged": 1, "flags": {SHORT_REFERENCE_FLAG: 1}}
    assert any("title not scored" in note for note in report["notes"])


def test_readability_reference_is_one_line_per_block_and_url_unknown_is_flagged(tmp_path):
    expected = (
        '<div id="readability-page-1" class="page"><h1>Big heading</h1>'
        '<p>Intro with <a href="#">a link</a> and <img alt="ALT TEXT" title="TITLE TEXT" src="x.png"> image.</p>'
        "<ul><li>One item</li><li>Two item</li></ul><script>var hidden = 1;</script><style>p{}</style>"
        "<p>Line one<br>Line two</p><table><tr><td>Cell A</td><td>Cell B</td></tr></table>"
        "<pre>code  line 1\ncode line 2</pre><figure><figcaption>A caption</figcaption></figure>"
        "<dl><dt>Term</dt><dd>Definition</dd></dl><blockquote>Quoted words</blockquote></div>"
    )
    source = make_readability(tmp_path / "ra", {"page-one": expected, "mathjax": expected},
                              urls={"mathjax": "https://www.mathjax.org/x"})
    out = tmp_path / "out"
    report = import_corpus("mozilla-readability", source, out)
    suite = load_suite(str(out))
    first, second = suite.cases
    assert first.reference_text.split("\n") == [
        "Big heading", "Intro with a link and image.", "One item", "Two item", "Line one", "Line two", "Cell A",
        "Cell B", "code line 1", "code line 2", "A caption", "Term", "Definition", "Quoted words",
    ]
    assert first.id == "article-001-en-page-one"
    assert first.url == "https://fakehost.invalid/page-one"
    assert first.flags == ["url_unknown"]
    assert first.name == "page-one"  # no html_title: the slug is the label
    assert second.id == "article-002-en-mathjax-org-mathjax"
    assert second.flags == ["readability_not_readerable"]
    assert "Readability.js's own output" in suite.dataset.suite.description
    assert any("not an independent gold standard" in note for note in report.notes)
    assert report.flagged == {first.id: ["url_unknown"], second.id: ["readability_not_readerable"]}


def test_magic_html_imports_articles_only_and_skips_list_pages_keeping_gaps(tmp_path):
    source = make_magic(tmp_path / "mh", [
        {"content": "标题在这里\n2023-12-01\n正文第一段内容很长很长。\n正文第二段也有内容。"},
        {"content": "列表 一 二 三 四 五 六", "remark": "列表页"},
        {"content": "Another article headline\nBody text of the article goes here.", "remark": "article"},
    ])
    out = tmp_path / "out"
    report = import_corpus("magic-html-bench", source, out)
    assert report.imported == [f"article-001-zh-news1-example-cn-{hexkey(1)[:6]}",
                               f"article-003-zh-news3-example-cn-{hexkey(3)[:6]}"]
    assert [(s.position, s.key) for s in report.skipped] == [(2, f"article/{hexkey(2)}")]
    assert "列表页" in report.skipped[0].reason
    suite = load_suite(str(out))
    assert suite.id == "magic-html-articles"
    assert suite.cases[0].reference_text.startswith("标题在这里\n2023-12-01\n")


def test_limit_takes_the_first_index_rows(tmp_path):
    report = import_corpus("scrapinghub-aeb", make_aeb(tmp_path / "aeb", 4), tmp_path / "out", limit=2)
    assert [i.split("-")[1] for i in report.imported] == ["001", "002"]
    with pytest.raises(CorpusImportError, match="at least 1"):
        import_corpus("scrapinghub-aeb", tmp_path / "aeb", tmp_path / "out2", limit=0)


def test_low_coverage_is_flagged(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1)
    text = (source / "_index.tsv").read_text().replace("\t1.00\t", "\t0.26\t")
    (source / "_index.tsv").write_text(text)
    report = import_corpus("scrapinghub-aeb", source, tmp_path / "out")
    assert list(report.flagged.values()) == [["reference_not_in_visible_text"]]


def test_summary_names_counts_reasons_output_and_next_command(tmp_path):
    source = make_aeb(tmp_path / "aeb", 2)
    (source / "html" / f"{hexkey(2)}.html.gz").unlink()
    out = tmp_path / "out"
    summary = import_corpus("scrapinghub-aeb", source, out, keep_going=True).summary()
    assert "scrapinghub-aeb" in summary and "imported 1" in summary and "skipped 1" in summary
    assert "flagged 0" in summary and "file not found" in summary
    assert f"pytest -n auto --suite={out}" in summary


def test_cli_import_corpus_prints_the_summary_and_exits_2_on_bad_input(tmp_path, capsys):
    source = make_aeb(tmp_path / "aeb", 1)
    assert cli_main(["import-corpus", "--format", "scrapinghub-aeb", "--source", str(source),
                     "--output", str(tmp_path / "out")]) == 0
    assert "imported 1" in capsys.readouterr().out
    assert cli_main(["import-corpus", "--format", "nope", "--source", str(source), "--output", str(tmp_path / "o")]) == 2
    assert "scrapinghub-aeb" in capsys.readouterr().err


# --- bad input ------------------------------------------------------------------------------------


def test_unknown_format_lists_the_known_ones(tmp_path):
    with pytest.raises(CorpusImportError) as err:
        import_corpus("dragnet-html", tmp_path, tmp_path / "out")
    assert "unknown corpus format 'dragnet-html'" in str(err.value)
    for name in ("scrapinghub-aeb", "mozilla-readability", "magic-html-bench", "dragnet"):
        assert name in str(err.value)
    assert known_formats() == ["dragnet", "gne-zh-lists", "harvest-forums", "magic-html-bench", "magic-html-forum",
                               "mozilla-readability", "reviewed-suite", "scrapinghub-aeb", "trafilatura-eval",
                               "webmainbench-sample"]


def test_refuses_to_overwrite_a_non_empty_output(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(CorpusImportError, match="refusing to overwrite"):
        import_corpus("scrapinghub-aeb", source, out)
    assert (out / "keep.txt").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert import_corpus("scrapinghub-aeb", source, empty).imported  # an empty directory is fine


def test_missing_corpus_folder_or_index_is_named(tmp_path):
    with pytest.raises(CorpusImportError, match="corpus folder not found"):
        import_corpus("scrapinghub-aeb", tmp_path / "nowhere", tmp_path / "out")
    (tmp_path / "bare").mkdir()
    with pytest.raises(CorpusImportError, match="_index.tsv"):
        import_corpus("scrapinghub-aeb", tmp_path / "bare", tmp_path / "out")


def test_missing_html_stops_naming_the_file_and_leaves_no_output(tmp_path):
    source = make_aeb(tmp_path / "aeb", 3)
    missing = source / "html" / f"{hexkey(2)}.html.gz"
    missing.unlink()
    out = tmp_path / "out"
    with pytest.raises(CorpusImportError, match="file not found") as err:
        import_corpus("scrapinghub-aeb", source, out)
    assert str(missing) in str(err.value)
    assert not out.exists()  # page 1 was written, then removed again


def test_keep_going_skips_the_bad_page_and_records_why(tmp_path):
    source = make_aeb(tmp_path / "aeb", 3)
    (source / "html" / f"{hexkey(2)}.html.gz").unlink()
    out = tmp_path / "out"
    report = import_corpus("scrapinghub-aeb", source, out, keep_going=True)
    assert [i.split("-")[1] for i in report.imported] == ["001", "003"]
    saved = json.loads((out / "import-report.json").read_text())
    assert saved["skipped"][0]["position"] == 2
    assert saved["skipped"][0]["file"] == f"html/{hexkey(2)}.html.gz"
    assert "file not found" in saved["skipped"][0]["reason"]


def test_broken_gzip_is_named(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1)
    broken = source / "html" / f"{hexkey(1)}.html.gz"
    broken.write_bytes(gzip.compress(b"<html>" * 100)[:30])
    with pytest.raises(CorpusImportError, match="broken gzip") as err:
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")
    assert str(broken) in str(err.value)
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(CorpusImportError, match="broken gzip"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")


def test_undecodable_capture_is_kept_as_bytes_and_flagged(tmp_path):
    source = make_aeb(tmp_path / "aeb", 2)
    bad = b'<html><head><meta charset="utf-8"></head><body><p>caf\xe9 \xff\xfe</p></body></html>'
    gz(source / "html" / f"{hexkey(1)}.html.gz", bad)
    stale = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=GB2312"></head><body>深入推进长三角一体化发展座谈会</body></html>'
    gz(source / "html" / f"{hexkey(2)}.html.gz", stale.encode("utf-8"))
    out = tmp_path / "out"
    report = import_corpus("scrapinghub-aeb", source, out)
    first, second = load_suite(str(out)).cases
    assert (out / "evidence" / first.capture.path).read_bytes() == bad
    assert first.capture.content_type == "text/html; charset=utf-8"
    assert first.flags == ["capture_not_decodable"]
    # Re-saved as UTF-8 with a stale GB2312 meta: serve what the bytes are, and say so.
    assert second.capture.content_type == "text/html; charset=utf-8"
    assert second.flags == ["capture_charset_mismatch"]
    assert set(report.flagged) == {first.id, second.id}


def test_reference_that_is_not_valid_text_is_an_error(tmp_path):
    source = make_readability(tmp_path / "ra", {"bad": "<p>fine</p>"})
    expected = source / "test-pages" / "bad" / "expected.html.gz"
    gz(expected, b"<p>caf\xe9 au lait, not UTF-8</p>")
    with pytest.raises(CorpusImportError, match="not valid UTF-8") as err:
        import_corpus("mozilla-readability", source, tmp_path / "out")
    assert str(expected) in str(err.value)

    # A JSON reference with a lone surrogate is not text either.
    aeb = make_aeb(tmp_path / "aeb", 1, truth_json=json.dumps({hexkey(1): {"articleBody": "bad \ud800 text", "url": "u"}}))
    with pytest.raises(CorpusImportError, match="not valid text") as err:
        import_corpus("scrapinghub-aeb", aeb, tmp_path / "out")
    assert "ground-truth.json" in str(err.value)


def test_reference_file_that_is_not_json_or_utf8_is_named(tmp_path):
    aeb = make_aeb(tmp_path / "aeb", 1)
    (aeb / "ground-truth.json").write_bytes(b'{"a": "\xff"}')
    with pytest.raises(CorpusImportError, match="ground-truth.json: not valid UTF-8"):
        import_corpus("scrapinghub-aeb", aeb, tmp_path / "out")
    (aeb / "ground-truth.json").write_text("{not json")
    with pytest.raises(CorpusImportError, match="ground-truth.json: not valid JSON"):
        import_corpus("scrapinghub-aeb", aeb, tmp_path / "out")


@pytest.mark.parametrize("body", ["", "   \n\t \n", None])
def test_empty_reference_is_an_error(tmp_path, body):
    source = make_aeb(tmp_path / "aeb", 2, bodies={2: body})
    with pytest.raises(CorpusImportError, match="ground-truth.json") as err:
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")
    assert "empty" in str(err.value) or "not text" in str(err.value)
    report = import_corpus("scrapinghub-aeb", source, tmp_path / "out", keep_going=True)
    assert len(report.imported) == 1 and len(report.skipped) == 1


def test_empty_magic_and_readability_references_are_errors(tmp_path):
    magic = make_magic(tmp_path / "mh", [{"content": ""}])
    with pytest.raises(CorpusImportError, match="base.json.*empty"):
        import_corpus("magic-html-bench", magic, tmp_path / "out")
    ra = make_readability(tmp_path / "ra", {"blank": '<div id="readability-page-1"><img alt="only alt"></div>'})
    with pytest.raises(CorpusImportError, match="expected.html.gz: the reference body is empty"):
        import_corpus("mozilla-readability", ra, tmp_path / "out")


def test_reference_without_a_fragment_is_an_error_naming_the_file(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1, bodies={1: "— ok —\n!"})
    with pytest.raises(CorpusImportError, match="ground-truth.json.*normalised characters"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")


def test_nothing_importable_is_an_error(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1, bodies={1: ""})
    with pytest.raises(CorpusImportError, match="no page could be imported"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out", keep_going=True)
    assert not (tmp_path / "out").exists()


def test_duplicate_index_keys_are_errors_naming_the_index(tmp_path):
    source = make_aeb(tmp_path / "aeb", 2)
    key = hexkey(1)
    write_index(source, [{"case_id": key, "html_file": f"html/{key}.html.gz", "url": "https://a.example/1"},
                         {"case_id": key, "html_file": f"html/{key}.html.gz", "url": "https://a.example/1"},
                         {"case_id": hexkey(2), "html_file": f"html/{key}.html.gz", "url": "https://a.example/2"}])
    with pytest.raises(CorpusImportError, match=r"_index.tsv: line 3: key .* duplicates line 2"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")
    report = import_corpus("scrapinghub-aeb", source, tmp_path / "out", keep_going=True)
    assert len(report.imported) == 1
    assert "duplicates line 2" in report.skipped[0].reason
    assert "already used by line 2" in report.skipped[1].reason


def test_duplicate_keys_in_the_reference_json_are_errors(tmp_path):
    key = hexkey(1)
    truth = '{"%s": {"articleBody": "Body one is long enough.", "url": "u"}, "%s": {"articleBody": "Other body.", "url": "u"}}'
    source = make_aeb(tmp_path / "aeb", 1, truth_json=truth % (key, key))
    with pytest.raises(CorpusImportError, match="ground-truth.json.*appears more than once"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")


def test_duplicate_case_ids_are_refused(tmp_path):
    seen: set[str] = set()
    claim_case_id("article-001-en-x", seen, where="index line 2")
    with pytest.raises(PageError, match="index line 3: duplicate case id 'article-001-en-x'"):
        claim_case_id("article-001-en-x", seen, where="index line 3")


def test_index_row_without_reference_entry_is_named(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1, truth_json="{}")
    with pytest.raises(CorpusImportError, match="ground-truth.json: no entry for"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")


def test_index_paths_must_stay_inside_the_corpus(tmp_path):
    source = make_aeb(tmp_path / "aeb", 1)
    write_index(source, [{"case_id": hexkey(1), "html_file": "../../etc/passwd", "url": "https://a.example/"}])
    with pytest.raises(CorpusImportError, match="must be relative"):
        import_corpus("scrapinghub-aeb", source, tmp_path / "out")


# --- helpers --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "served", "flag"),
    [
        (b"\xef\xbb\xbf<html>caf\xc3\xa9</html>", "utf-8", None),
        (b'<html><meta charset="ISO-8859-1">caf\xe9</html>', "iso-8859-1", None),
        (b"<meta http-equiv='Content-Type' content='text/html; charset=Shift_JIS'>\x83n", "shift_jis", None),
        (b"<html>no declaration</html>", "utf-8", None),
        (b'<meta charset="x-klingon">hello', "utf-8", "capture_charset_unknown"),  # WHATWG fallback
    ],
)
def test_detect_charset(data, served, flag):
    charset = detect_charset(data)
    assert (charset.served, charset.flag) == (served, flag)


def _row(**values):
    base = {"line": 2, "key": "k", "html_file": "f", "url": "", "lang": "", "lang_guess": "", "html_title": "",
            "coverage": "1.00", "kind": "article"}
    return IndexRow(**{**base, **values})


def test_case_lang_prefers_the_reference_guess_then_the_page_lang():
    assert case_lang(_row(lang="en", lang_guess="de")) == "de"
    assert case_lang(_row(lang="ru-RU", lang_guess="cyrillic")) == "ru"
    assert case_lang(_row(lang="zh-TW", lang_guess="?")) == "zh"
    assert case_lang(_row(lang="", lang_guess="arabic-script")) == "und"


def test_domain_slug_and_case_id():
    assert domain_slug("https://www.Example.co.uk/x?y") == "example-co-uk"
    assert domain_slug("https://fakehost.invalid/page") == ""
    assert domain_slug("not a url") == ""
    long = domain_slug("https://a-very-long-subdomain.of-an-even-longer-domain.example.com/")
    assert len(long) <= 30 and not long.endswith("-")
    assert case_id(7, "en", "https://www.wsj.com/a", "06e512") == "article-007-en-wsj-com-06e512"
    with pytest.raises(ValueError):
        case_id(1000, "en", "https://a.example/", "x")


def test_html_lines_ignores_comments_and_head():
    html = "<html><head><title>Not body</title></head><body><!-- c -->Loose <b>text</b><div>Block</div>tail</body></html>"
    assert html_lines(html) == ["Loose text", "Block", "tail"]
    assert html_lines("") == []
    assert html_lines('<?xml version="1.0" encoding="utf-8"?><p>x y</p>') == ["x y"]
