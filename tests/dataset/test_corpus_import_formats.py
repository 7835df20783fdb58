"""The dragnet, trafilatura-eval, magic-html forum, WebMainBench and GNE importers on tiny folders
written here in the layouts the corpus README describes (never ../shared/corpus) (SPEC §2, §4)."""

import gzip
import json
from pathlib import Path

import pytest

from lexbench.dataset.case import CaseKind, TitleBasis
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.importers.dragnet import split_comments
from lexbench.dataset.importers.webmainbench import markdown_text
from lexbench.dataset.suite import load_suite
from lexbench.errors import CorpusImportError

COLUMNS = ["case_id", "html_file", "url", "url_origin", "lang", "lang_guess", "script", "ref_title", "html_title",
           "ref_body_chars", "ref_comment_chars", "coverage", "kind"]
ARTICLE = ["The council voted on Tuesday to rebuild the old bridge over the river.",
           "Work starts in spring and the crossing stays open for walkers throughout.",
           "Residents asked for a second footpath, which the plans now include as well."]


def gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data))


def write_index(folder: Path, rows: list[dict[str, str]]) -> None:
    lines = ["\t".join(COLUMNS)]
    for row in rows:
        full = {"lang": "en", "lang_guess": "en", "html_title": "A title", "coverage": "1.00", "kind": "article", **row}
        lines.append("\t".join(full.get(col, "") for col in COLUMNS))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "_index.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def page(*blocks: str, title: str = "") -> bytes:
    heading = f"<h1>{title}</h1>" if title else ""
    body = "".join(f"<p>{b}</p>" for b in blocks)
    return f'<!doctype html><html><head><meta charset="utf-8"><title>x</title></head><body>{heading}{body}</body></html>'.encode()


def report(out: Path) -> dict:
    return json.loads((out / "import-report.json").read_text(encoding="utf-8"))


# --- dragnet ---------------------------------------------------------------------------------------


def make_dragnet(folder: Path) -> Path:
    comments = "Great piece, thanks.\nI walk over that bridge every day and it shakes."
    files = {
        "101": ("\n".join(ARTICLE) + "\n!@#$%^&*()  COMMENTS\n" + comments + "\n").encode(),
        # cp1252 bytes (a curly apostrophe) and a delimiter with \r\n line ends, as some 2012 files have.
        "R7": ("\r\n".join(ARTICLE).replace("asked", "asked’").encode("cp1252")
               + b"\r\n!@#$%^&*() COMMENTS\r\nOne comment here.\r\n"),
    }
    rows = []
    for stem, data in files.items():
        gz(folder / "HTML" / f"{stem}.html.gz", page(*ARTICLE))
        (folder / "Corrected").mkdir(parents=True, exist_ok=True)
        (folder / "Corrected" / f"{stem}.html.corrected.txt").write_bytes(data)
        rows.append({"case_id": stem, "html_file": f"HTML/{stem}.html.gz", "kind": "article+comments",
                     "url": "http://blog.example.com/bridge" if stem == "101" else ""})
    write_index(folder, rows)
    return folder


def test_dragnet_body_is_the_part_before_the_delimiter_and_comments_are_probes(tmp_path):
    out = tmp_path / "suite"
    result = import_corpus("dragnet", make_dragnet(tmp_path / "dragnet"), out)
    suite = load_suite(str(out))
    first, second = suite.cases
    assert first.reference_text == "\n".join(ARTICLE)
    assert "COMMENTS" not in second.reference_text and "asked’" in second.reference_text
    assert first.comments is None and first.title_basis is TitleBasis.NOT_IN_SOURCE
    assert first.url == "http://blog.example.com/bridge"
    assert second.url == "https://dragnet.invalid/R7" and "url_unknown" in second.flags
    assert "reference_cp1252" in second.flags and "reference_cp1252" not in first.flags
    probes = json.loads((out / "probes.json").read_text(encoding="utf-8"))
    assert probes[first.id]["comments"]["text"] == "Great piece, thanks.\nI walk over that bridge every day and it shakes."
    assert probes[second.id]["comments"] == {"chars": len("One comment here."), "text": "One comment here."}
    assert report(out)["counts"]["flags"]["reference_has_comments"] == 2
    assert report(out)["probes"][second.id] == {"comments_chars": len("One comment here.")}
    assert result.probes.keys() == {first.id, second.id}


def test_dragnet_split_without_delimiter_keeps_all_text_as_body():
    assert split_comments("Only the article.\n") == ("Only the article.\n", "")
    assert split_comments("A\n!!@#$%^&*()  COMMENTS\nB") == ("A\n", "\nB")


def test_dragnet_missing_reference_names_the_file(tmp_path):
    folder = make_dragnet(tmp_path / "dragnet")
    (folder / "Corrected" / "R7.html.corrected.txt").unlink()
    with pytest.raises(CorpusImportError, match=r"R7\.html\.corrected\.txt: reference file not found"):
        import_corpus("dragnet", folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --- trafilatura-eval ------------------------------------------------------------------------------


def make_trafilatura(folder: Path) -> Path:
    evaldata = {
        "https://news.example.de/a": {"file": "a.html", "title": "Die Brücke wird neu gebaut",
                                      "with": ["Work starts in spring"], "without": ["Newsletter abonnieren"],
                                      "comments": ["Great piece"]},
        "https://news.example.de/b": {"file": "b b.html", "title": "A headline the page rewords",
                                      "with": ["council voted"], "without": []},
        "https://news.example.de/c": {"file": "c.html", "with": ["council"], "without": ["Menu"]},
    }
    gz(folder / "html" / "a.html.gz", page(*ARTICLE, "Newsletter abonnieren", title="Die Brücke wird neu gebaut"))
    gz(folder / "html" / "b b.html.gz", page(*ARTICLE, title="The page's own headline"))
    gz(folder / "html" / "c.html.gz", page(*ARTICLE))
    write_index(folder, [{"case_id": f, "html_file": f"html/{f}.gz", "url": url, "lang": "de", "lang_guess": "de"}
                         for url, f in ((u, e["file"]) for u, e in evaldata.items())])
    (folder / "evaldata.json").write_text(json.dumps(evaldata), encoding="utf-8")
    return folder


def test_trafilatura_cases_score_the_annotated_title_and_keep_snippets_as_probes(tmp_path):
    out = tmp_path / "suite"
    import_corpus("trafilatura-eval", make_trafilatura(tmp_path / "traf"), out, keep_going=True)
    suite = load_suite(str(out))
    a, b = suite.cases
    assert a.kind is CaseKind.SITE_LABELS and a.body is None
    assert (a.title, a.title_basis) == ("Die Brücke wird neu gebaut", TitleBasis.OBSERVED)
    assert "title_only_no_body_reference" in a.flags and "title_not_standalone_in_capture" not in a.flags
    assert "title_not_standalone_in_capture" in b.flags
    probes = json.loads((out / "probes.json").read_text(encoding="utf-8"))
    assert probes[a.id] == {"with": ["Work starts in spring"], "without": ["Newsletter abonnieren"],
                            "comments": ["Great piece"]}
    assert probes[b.id]["comments"] == []
    assert report(out)["probes"][a.id] == {"with": 1, "without": 1, "comments": 1}
    skipped = report(out)["skipped"]
    assert [s["key"] for s in skipped] == ["c.html"] and "no annotated title" in skipped[0]["reason"]


def test_trafilatura_page_without_evaldata_entry_is_an_error_naming_the_file(tmp_path):
    folder = make_trafilatura(tmp_path / "traf")
    data = json.loads((folder / "evaldata.json").read_text(encoding="utf-8"))
    del data["https://news.example.de/a"]
    (folder / "evaldata.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CorpusImportError, match=r"evaldata\.json: no entry with file 'a\.html'"):
        import_corpus("trafilatura-eval", folder, tmp_path / "out")


# --- magic-html forum ------------------------------------------------------------------------------


def test_magic_html_forum_threads_are_flagged_bodies_not_post_collections(tmp_path):
    folder = tmp_path / "mh"
    key = "ab" * 32
    thread = "\n".join(ARTICLE)
    gz(folder / "forum" / "htmls" / f"{key}.html.gz", page(*ARTICLE))
    (folder / "forum").mkdir(parents=True, exist_ok=True)
    (folder / "forum" / "base.json").write_text(json.dumps({key: {"url": "https://forum.example.org/t/1",
                                                                 "content": thread, "remark": "forum"}}))
    (folder / "article").mkdir()
    (folder / "article" / "base.json").write_text("{}")
    write_index(folder, [{"case_id": f"forum/{key}", "html_file": f"forum/htmls/{key}.html.gz",
                          "url": "https://forum.example.org/t/1", "kind": "forum"}])
    out = tmp_path / "suite"
    import_corpus("magic-html-forum", folder, out)
    (case,) = load_suite(str(out)).cases
    assert case.id.startswith("forum-001-en-forum-example-org")
    assert case.kind is CaseKind.FIXED_ARTICLE and case.posts is None
    assert case.reference_text == thread and "thread_text_as_body_no_posts_contract" in case.flags
    with pytest.raises(CorpusImportError, match="no page could be imported"):
        import_corpus("magic-html-bench", folder, tmp_path / "articles")  # the forum row is not an article row


# --- WebMainBench ----------------------------------------------------------------------------------


def test_webmainbench_imports_markdown_references_and_skips_duplicates_and_list_pages(tmp_path):
    folder = tmp_path / "wmb"
    rows = [
        {"url": "https://a.example.com/p", "html": page(*ARTICLE).decode(),
         "groundtruth_content": "## Bridge\n\n" + "\n\n".join(ARTICLE) + "\n\n```\nNot code, a box\n```"},
        {"url": "https://b.example.cn/list", "html": page("x").decode(),
         "groundtruth_content": "\n".join(f"- {n}. chapter {n}" for n in range(1, 30))},
    ]
    gz(folder / "one.jsonl.gz", "\n".join(json.dumps(r) for r in rows).encode())
    gz(folder / "two.jsonl.gz", json.dumps(rows[0]).encode())
    write_index(folder, [
        {"case_id": "one.jsonl.gz#0 track_id=aaa", "html_file": '"one.jsonl.gz line 0 field ""html"""', "url": rows[0]["url"]},
        {"case_id": "one.jsonl.gz#1 track_id=bbb", "html_file": '"one.jsonl.gz line 1 field ""html"""', "url": rows[1]["url"]},
        {"case_id": "two.jsonl.gz#0 track_id=aaa", "html_file": '"two.jsonl.gz line 0 field ""html"""', "url": rows[0]["url"]},
    ])
    out = tmp_path / "suite"
    import_corpus("webmainbench-sample", folder, out)
    (case,) = load_suite(str(out)).cases
    assert case.reference_text == "\n".join(["Bridge", *ARTICLE, "Not code, a box"])
    reasons = [s["reason"] for s in report(out)["skipped"]]
    assert reasons[0].startswith("list page: 29 of 29 reference lines are list items")
    assert reasons[1].startswith("same URL as the already imported row 'one.jsonl.gz#0 track_id=aaa'")


def test_markdown_text_drops_markers_but_keeps_text():
    assert markdown_text("# T\n> quoted `code`\n\\- escaped item\n1. first", where="x") == "T\nquoted code\nescaped item\nfirst"


# --- GNE lists -------------------------------------------------------------------------------------


def test_gne_list_pages_are_all_skipped_with_the_reason(tmp_path):
    folder = tmp_path / "gne"
    for name in ("163/1.html", "tieba/1.html"):
        gz(folder / "test_list_page" / f"{name}.gz", page("新闻列表"))
    write_index(folder, [{"case_id": f"test_list_page/{n}.gz", "html_file": f"test_list_page/{n}.gz", "lang": "",
                          "lang_guess": "zh", "kind": "list/forum (no reference)"} for n in ("163/1.html", "tieba/1.html")])
    with pytest.raises(CorpusImportError) as err:
        import_corpus("gne-zh-lists", folder, tmp_path / "out")
    assert "no page could be imported (2 skipped: list page without reference or URL" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_import_corpus_help_names_every_format(capsys, monkeypatch):
    from lexbench.cli import main as cli_main
    from lexbench.dataset.importers import known_formats

    monkeypatch.setenv("COLUMNS", "400")  # argparse would wrap inside hyphenated names

    with pytest.raises(SystemExit):
        cli_main(["import-corpus", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert all(name in shown for name in known_formats()), shown
