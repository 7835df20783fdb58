"""``lexbench fetch-evidence``: a reviewed suite's external evidence rebuilt from a mirror or upstream (SPEC §4).

Every test builds a small synthetic corpus of the four source shapes the articles suite uses (a dragnet
page and its text reference, a JSON ground truth keyed by page, a harvest document holding its HTML in a
field, a trafilatura page whose reference is a line range of its own visible text), a suite that binds
them in ``sources.json``, and serves the same files in the upstream layout from a loopback HTTP server.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.cli import main
from lexbench.dataset.checks import validate_without_dataset, verify_inputs
from lexbench.dataset.compile import dump_json, sha256_bytes
from lexbench.dataset.endings import choose_ending
from lexbench.dataset.evidence import UPSTREAM, bind_source_file, fetch_evidence, upstream_path
from lexbench.dataset.importers.html_text import html_lines
from lexbench.dataset.importers.reviewed import cut_reference
from lexbench.dataset.suite import load_suite, publish_suite
from lexbench.errors import EvidenceError
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome

COMMIT = "0123456789abcdef0123456789abcdef01234567"
PROSE = ("The harbour board met on Tuesday to settle the dredging schedule for the coming winter, and after a long "
         "debate the members agreed that the channel would be cleared in two stages before the first storms arrive.")


def page(title: str, paragraphs: list[str], comments: str = "") -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f"<html><head><title>{title} | Harbour Notes</title></head><body><nav><a href='/'>Harbour Notes</a> "
            f"<a href='/tides'>Tide tables</a></nav><h1>{title}</h1>{body}{comments}"
            "<footer>About Harbour Notes · Contact the editors</footer></body></html>")


def sources_case(source: str, key: str, files: dict[str, tuple[bytes, str]], capture: dict, reference: dict | None):
    return {"source": source, "key": key,
            "files": {path: {"sha256": sha256_bytes(data), "bytes": len(data), "upstream": upstream}
                      for path, (data, upstream) in files.items()},
            "capture": capture, "reference": reference}


class Corpus:
    """A synthetic corpus: ``mirror/`` in the corpus layout (gzipped pages) and ``upstream/`` in the raw
    layout ``<owner>/<repo>/<commit>/<path>``, both holding the same decompressed bytes."""

    def __init__(self, root: Path) -> None:
        self.mirror = root / "mirror"
        self.upstream = root / "upstream"

    def add(self, corpus_path: str, data: bytes, repo: str, upstream_path: str) -> None:
        mirror = self.mirror / corpus_path
        mirror.parent.mkdir(parents=True, exist_ok=True)
        mirror.write_bytes(gzip.compress(data) if corpus_path.endswith(".gz") else data)
        raw = self.upstream / repo / COMMIT / upstream_path
        raw.parent.mkdir(parents=True, exist_ok=True)
        raw.write_bytes(gzip.compress(data) if upstream_path.endswith(".gz") else data)


def rule(case_id: str, title: str, capture: bytes, lines: list[str]) -> dict:
    text = "\n".join(lines)
    return {
        "id": case_id, "name": title, "url": f"https://harbour.example/{case_id}", "category": "article",
        "track": "articles", "task_prompt": "Return the readable content of this page.", "kind": "fixed_article",
        "lang": "en", "capture": {"path": f"captures/{case_id}.html", "sha256": sha256_bytes(capture)},
        "title": title, "title_basis": "observed",
        "body": {"contract_version": 4, "reference": {
            "path": f"references/{case_id}.txt", "sha256": sha256_bytes(text.encode()), "chars": len(text),
            "opening": text[:40], "ending": text[-40:]},
            "reference_scope": {"kind": "complete", "end": choose_ending(lines).text},
            "regions": [{"label": "the article", "first_line": 1, "last_line": len(lines)}]},
        "stable_text_review_defaults": {"basis": "site template", "observed": "2026-12-01"},
        "stable_groups": [{"id": "nav", "region": "navigation", "phrases": ["Tide tables"], "location": "header"},
                          {"id": "footer", "region": "footer", "phrases": ["Contact the editors"], "location": "footer"}],
        "page_identity": [title.split()[0]],
    }


def build_suite(tmp_path: Path) -> tuple[Path, Corpus]:
    """A four-case reviewed suite over a synthetic corpus; returns the suite directory and the corpus."""
    corpus = Corpus(tmp_path)
    suite = tmp_path / "suite" / "articles"
    suite.mkdir(parents=True)
    rules, sources, upstream = [], {}, {}

    def repo(source: str, name: str) -> str:
        upstream[source] = {"repository": f"https://github.com/example/{name}", "commit": COMMIT}
        return f"example/{name}"

    # dragnet: gzipped page, text reference cut before its comments.
    dragnet = repo("dragnet", "dragnet-data")
    html = page("Dredging the channel", [PROSE, PROSE.replace("Tuesday", "Friday")]).encode()
    reference = f"Dredging the channel\n{PROSE}\n\n{PROSE.replace('Tuesday', 'Friday')}\n!@#$%^&*()  COMMENTS\nAna\nGood.\n"
    corpus.add("dragnet/HTML/X1.html.gz", html, dragnet, "input/X1.html")
    corpus.add("dragnet/Corrected/X1.html.corrected.txt", reference.encode(), dragnet, "GoldStandard/X1.txt")
    lines = cut_reference(reference, "before_comments", None)
    rules.append(rule("article-001-en-harbour-dredging", "Dredging the channel", html, lines))
    sources[rules[-1]["id"]] = sources_case("dragnet", "X1", {
        "dragnet/HTML/X1.html.gz": (html, "input/X1.html"),
        "dragnet/Corrected/X1.html.corrected.txt": (reference.encode(), "GoldStandard/X1.txt")},
        {"file": "dragnet/HTML/X1.html.gz", "field": None},
        {"file": "dragnet/Corrected/X1.html.corrected.txt", "part": "before_comments", "key": None, "field": None,
         "lines": None})

    # A JSON ground truth shared by pages, keyed by page id; the upstream file itself is gzipped.
    aeb = repo("aeb", "aeb")
    html = page("Winter moorings", [PROSE.replace("dredging", "mooring")]).encode()
    truth = json.dumps({"p2": {"articleBody": f"Winter moorings\n\n{PROSE.replace('dredging', 'mooring')}",
                               "url": "https://harbour.example/p2"}}).encode()
    corpus.add("aeb/html/p2.html.gz", html, aeb, "html/p2.html.gz")
    corpus.add("aeb/ground-truth.json", truth, aeb, "ground-truth.json")
    lines = cut_reference(json.loads(truth)["p2"]["articleBody"], "whole", None)
    rules.append(rule("article-002-en-harbour-moorings", "Winter moorings", html, lines))
    sources[rules[-1]["id"]] = sources_case("aeb", "p2", {
        "aeb/html/p2.html.gz": (html, "html/p2.html.gz"), "aeb/ground-truth.json": (truth, "ground-truth.json")},
        {"file": "aeb/html/p2.html.gz", "field": None},
        {"file": "aeb/ground-truth.json", "part": "whole", "key": "p2", "field": "articleBody", "lines": None})

    # A harvest document: the page's HTML in the "html" field of a gzipped JSON file.
    harvest = repo("harvest", "harvest")
    html_text = page("Pilot boat rota", [PROSE.replace("harbour board", "pilots' association")])
    document = json.dumps({"id": "h3", "url": "https://harbour.example/h3", "html": html_text}).encode()
    corpus.add("harvest/goldDocuments/h3.json.gz", document, harvest, "corpus/goldDocuments/h3.json")
    reference = f"Pilot boat rota\n{PROSE.replace('harbour board', 'pilots association')}"
    corpus.add("harvest/h3.txt", reference.encode(), harvest, "corpus/h3.txt")
    lines = cut_reference(reference, "whole", None)
    rules.append(rule("article-003-en-harbour-pilots", "Pilot boat rota", html_text.encode(), lines))
    sources[rules[-1]["id"]] = sources_case("harvest", "h3", {
        "harvest/goldDocuments/h3.json.gz": (document, "corpus/goldDocuments/h3.json"),
        "harvest/h3.txt": (reference.encode(), "corpus/h3.txt")},
        {"file": "harvest/goldDocuments/h3.json.gz", "field": "html"},
        {"file": "harvest/h3.txt", "part": "whole", "key": None, "field": None, "lines": None})

    # trafilatura: the reference is a reviewed line range of the capture's visible text; evaldata is bound too.
    trafilatura = repo("trafilatura-eval", "trafilatura")
    html = page("Lighthouse keepers", [PROSE.replace("harbour board", "lighthouse trust"), PROSE]).encode()
    evaldata = json.dumps({"https://harbour.example/t4": {"file": "t4.html", "with": ["lighthouse trust"],
                                                          "without": ["Contact the editors"]}}).encode()
    corpus.add("trafilatura-eval/html/t4.html.gz", html, trafilatura, "tests/cache/t4.html")
    corpus.add("trafilatura-eval/evaldata.json", evaldata, trafilatura, "tests/evaldata.json")
    visible = html_lines(html.decode())
    first = visible.index("Lighthouse keepers") + 1
    lines = visible[first - 1 : first + 2]
    rules.append(rule("article-004-en-harbour-lighthouse", "Lighthouse keepers", html, lines))
    sources[rules[-1]["id"]] = sources_case("trafilatura-eval", "t4", {
        "trafilatura-eval/html/t4.html.gz": (html, "tests/cache/t4.html"),
        "trafilatura-eval/evaldata.json": (evaldata, "tests/evaldata.json")},
        {"file": "trafilatura-eval/html/t4.html.gz", "field": None},
        {"from": "capture", "lines": [first, first + 2]})

    (suite / "rules.json").write_bytes(dump_json({"suite": {"id": "articles", "revision": 1, "name": "harbour pages"},
                                                  "cases": rules}))
    (suite / "sources.json").write_bytes(dump_json({"schema_version": 1, "evidence_home": "../../mirror",
                                                    "upstream": upstream, "cases": sources}))
    (suite / "cohort.json").write_bytes(dump_json({
        "schema_version": 1, "suite": "articles", "revision": 1,
        "candidates": [{"id": r["id"], "name": r["name"], "url": r["url"], "status": "approved", "added_in": 1}
                       for r in rules],
        "history": [{"revision": 1, "date": "2026-12-01", "summary": "first", "inventory": len(rules)}]}))
    return suite, corpus


@pytest.fixture
def suite(tmp_path: Path) -> tuple[Path, Corpus]:
    return build_suite(tmp_path)


@pytest.fixture
def upstream_server(suite) -> Iterator[str]:
    """A loopback HTTP server serving the upstream layout, like raw.githubusercontent.com."""
    _, corpus = suite

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep the test output clean
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(corpus.upstream)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def answer(text: str) -> ProviderResult:
    return ProviderResult(success=True, content=text, content_format="html", metadata=ResultMetadata(upstream_status=200))


# --- fetched and compiled ---------------------------------------------------------------------------


def test_fetching_from_the_mirror_writes_a_verified_runnable_input_directory(suite, tmp_path):
    root, corpus = suite
    into = tmp_path / "inputs" / "articles"
    fetched = fetch_evidence(root, into=into, mirror=corpus.mirror)
    assert (fetched.cases, fetched.files) == (4, 8)
    assert sorted(p.name for p in (into / "evidence" / "captures").iterdir()) == sorted(
        f"{r['id']}.html" for r in json.loads((root / "rules.json").read_text())["cases"])
    assert leftovers(into.parent) == []
    loaded = load_suite(str(into))
    assert [case.id for case in loaded.cases] == [
        "article-001-en-harbour-dredging", "article-002-en-harbour-moorings", "article-003-en-harbour-pilots",
        "article-004-en-harbour-lighthouse"]
    # Each page satisfies its own contract: the derived capture and reference are the reviewed ones.
    for case in loaded.cases:
        verdict = evaluate_response(case, answer(loaded.captures[case.id].decode()))
        assert verdict.outcome is Outcome.PASS, (case.id, verdict.explanation)


@pytest.mark.slow
def test_upstream_fetch_over_http_gives_the_same_bytes_as_the_mirror(suite, tmp_path, upstream_server):
    root, corpus = suite
    from_mirror = fetch_evidence(root, into=tmp_path / "a", mirror=corpus.mirror)
    from_upstream = fetch_evidence(root, into=tmp_path / "b", upstream_base=upstream_server)
    assert from_upstream.origin == f"upstream {upstream_server}"
    assert from_upstream.dataset_sha256 == from_mirror.dataset_sha256
    assert (tmp_path / "a" / "dataset.json").read_bytes() == (tmp_path / "b" / "dataset.json").read_bytes()


def test_published_bindings_verify_the_fetched_inputs(suite, tmp_path, capsys):
    root, corpus = suite
    into = tmp_path / "inputs"
    fetch_evidence(root, into=into, mirror=corpus.mirror)
    publish_suite(root, dataset=into / "dataset.json", registry=tmp_path / "registry.json")
    assert not (root / "dataset.json").exists()  # the dataset stays external
    assert verify_inputs(root, into, registry=tmp_path / "registry.json") == []
    # A second fetch reproduces the pinned dataset and replaces the directory in place.
    again = fetch_evidence(root, into=into, mirror=corpus.mirror)
    assert again.dataset_sha256 == json.loads((root / "source-inputs.json").read_text())["files"]["dataset.json"]
    (into / "evidence" / "references" / "article-002-en-harbour-moorings.txt").write_text("edited", encoding="utf-8")
    problems = verify_inputs(root, into, registry=tmp_path / "registry.json")
    assert problems == [f"evidence/references/article-002-en-harbour-moorings.txt (case article-002-en-harbour-moorings): "
                        f"sha256 {sha256_bytes(b'edited')}, but the pinned case binds "
                        f"{json.loads((into / 'dataset.json').read_text())['cases'][1]['body']['reference']['sha256']}"]


def test_the_cli_fetches_and_names_its_output(suite, tmp_path, capsys):
    root, corpus = suite
    into = tmp_path / "cli"
    assert main(["fetch-evidence", f"--suite={root}", f"--mirror={corpus.mirror}", f"--into={into}"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"fetch-evidence articles: 4 cases from 8 source files (mirror {corpus.mirror})")
    assert f"wrote {into.resolve()}/dataset.json" in out


# --- refused: nothing partial is published -----------------------------------------------------------


def tamper(path: Path) -> None:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    data = data.replace(b"channel", b"canal")
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


def test_a_tampered_mirror_file_is_refused_naming_file_and_case(suite, tmp_path):
    root, corpus = suite
    tamper(corpus.mirror / "dragnet/Corrected/X1.html.corrected.txt")
    into = tmp_path / "inputs" / "articles"
    with pytest.raises(EvidenceError, match=r"case article-001-en-harbour-dredging: source file "
                       r"dragnet/Corrected/X1\.html\.corrected\.txt from the mirror .* has sha256 .* but sources\.json "
                       r"binds .*refused"):
        fetch_evidence(root, into=into, mirror=corpus.mirror)
    assert not into.exists() and leftovers(into.parent) == []


@pytest.mark.slow
def test_a_tampered_upstream_file_is_refused(suite, tmp_path, upstream_server):
    root, corpus = suite
    tamper(corpus.upstream / "example/dragnet-data" / COMMIT / "input/X1.html")
    with pytest.raises(EvidenceError, match=r"case article-001-en-harbour-dredging: source file dragnet/HTML/X1\.html\.gz "
                       r"from the upstream http://127\.0\.0\.1:\d+ has sha256"):
        fetch_evidence(root, into=tmp_path / "inputs", upstream_base=upstream_server)
    assert not (tmp_path / "inputs").exists()


@pytest.mark.slow
def test_a_missing_file_is_refused_naming_file_and_case(suite, tmp_path, upstream_server):
    root, corpus = suite
    (corpus.mirror / "aeb/ground-truth.json").unlink()
    (corpus.upstream / "example/aeb" / COMMIT / "ground-truth.json").unlink()
    with pytest.raises(EvidenceError, match=r"case article-002-en-harbour-moorings: source file aeb/ground-truth\.json "
                       r"is missing from the mirror"):
        fetch_evidence(root, into=tmp_path / "a", mirror=corpus.mirror)
    with pytest.raises(EvidenceError, match=r"case article-002-en-harbour-moorings: source file aeb/ground-truth\.json "
                       r"is missing from the upstream .* \(looked for ground-truth\.json\)"):
        fetch_evidence(root, into=tmp_path / "b", upstream_base=upstream_server)
    assert leftovers(tmp_path) == [] and not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_failed_refetch_leaves_the_previous_inputs_untouched(suite, tmp_path):
    root, corpus = suite
    into = tmp_path / "inputs"
    fetch_evidence(root, into=into, mirror=corpus.mirror)
    before = {p.relative_to(into): p.read_bytes() for p in into.rglob("*") if p.is_file()}
    (corpus.mirror / "trafilatura-eval/evaldata.json").write_bytes(b"{}")
    with pytest.raises(EvidenceError, match="case article-004-en-harbour-lighthouse: source file "
                       "trafilatura-eval/evaldata.json"):
        fetch_evidence(root, into=into, mirror=corpus.mirror)
    assert {p.relative_to(into): p.read_bytes() for p in into.rglob("*") if p.is_file()} == before
    assert leftovers(tmp_path) == []


def test_a_source_that_no_longer_derives_the_reviewed_reference_is_refused(suite, tmp_path):
    root, corpus = suite
    sources = json.loads((root / "sources.json").read_text())
    sources["cases"]["article-001-en-harbour-dredging"]["reference"]["part"] = "whole"  # comments now included
    (root / "sources.json").write_bytes(dump_json(sources))
    with pytest.raises(EvidenceError, match=r"case article-001-en-harbour-dredging: the reference lines derived from "
                       r"sources\.json do not hash to rules\.json's body\.reference\.sha256"):
        fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)
    assert leftovers(tmp_path) == []


def test_a_dataset_other_than_the_published_one_is_refused(suite, tmp_path):
    root, corpus = suite
    fetch_evidence(root, into=tmp_path / "first", mirror=corpus.mirror)
    publish_suite(root, dataset=tmp_path / "first" / "dataset.json", registry=None)
    rules = json.loads((root / "rules.json").read_text())
    rules["cases"][0]["page_identity"] = ["channel"]
    (root / "rules.json").write_bytes(dump_json(rules))
    with pytest.raises(EvidenceError, match=r"compiles to a dataset\.json with sha256 .* while .*source-inputs\.json "
                       r"pins .*rules\.json changed after publication"):
        fetch_evidence(root, into=tmp_path / "second", mirror=corpus.mirror)
    assert not (tmp_path / "second").exists()


# --- validating the committed files without the dataset ---------------------------------------------------


def test_without_its_dataset_a_published_suite_validates_from_its_committed_files(suite, tmp_path):
    root, corpus = suite
    fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)
    registry = tmp_path / "registry.json"
    publish_suite(root, dataset=tmp_path / "inputs" / "dataset.json", registry=registry)
    assert validate_without_dataset(root, registry=registry, committed=True) == []

    rules = json.loads((root / "rules.json").read_text())
    rules["cases"][1]["title"] = "Winter moorings, revised"
    (root / "rules.json").write_bytes(dump_json(rules))
    problems = validate_without_dataset(root, registry=registry, committed=True)
    assert "tasks.json: case article-002-en-harbour-moorings: title differ(s) from the public projection of dataset.json" \
        in problems

    rules["cases"][1]["title"] = "Winter moorings"
    (root / "rules.json").write_bytes(dump_json(rules))
    catalog = json.loads((root / "dataset-catalog.json").read_text())
    catalog["cases"][2]["reference_sha256"] = catalog["cases"][3]["reference_sha256"]
    (root / "dataset-catalog.json").write_bytes(dump_json(catalog))
    problems = validate_without_dataset(root, registry=registry, committed=True)
    assert any(p.startswith("dataset-catalog.json: case article-003-en-harbour-pilots: reference_sha256 is case "
                            "article-004-en-harbour-lighthouse's hash") for p in problems), problems
    assert any("source-inputs.json: catalog_sha256" in p for p in problems)
    assert any(p.startswith("registry.json entry 'articles': files['dataset-catalog.json']") for p in problems)


# --- where each corpus file lives upstream (corpus README) ---------------------------------------------------


@pytest.mark.parametrize(("corpus_path", "folder", "upstream"), [
    ("dragnet/HTML/R1000.html.gz", None, "dragnet_data/input/R1000.html"),
    ("dragnet/Corrected/R1000.html.corrected.txt", None, "dragnet_data/GoldStandard/R1000.txt"),
    ("scrapinghub-aeb/html/04a6.html.gz", None, "html/04a6.html.gz"),  # gzipped upstream as well
    ("scrapinghub-aeb/ground-truth.json", None, "ground-truth.json"),
    ("mozilla-readability/test-pages/qq/source.html.gz", None, "test/test-pages/qq/source.html"),
    ("mozilla-readability/test-pages/qq/expected-metadata.json", None, "test/test-pages/qq/expected-metadata.json"),
    ("magic-html-bench/forum/htmls/0f5b.html.gz", None, "benchmark/data/forum/htmls/0f5b.html"),
    ("magic-html-bench/article/base.json", None, "benchmark/data/article/base.json"),
    ("harvest-forums/goldDocuments/shift.ms.topic.json.gz", None, "corpus/goldDocuments/shift.ms.topic.json"),
    ("trafilatura-eval/evaldata.json", None, "tests/evaldata.json"),
    ("trafilatura-eval/html/kulinariaathome.com.mandelplätzchen.html.gz", "cache",
     "tests/cache/kulinariaathome.com.mandelplätzchen.html"),
    ("webmainbench-sample/sample_dataset.jsonl.gz", None, "data/sample_dataset.jsonl"),
])
def test_upstream_paths_follow_the_corpus_readme(corpus_path, folder, upstream):
    assert upstream_path(corpus_path, folder=folder) == upstream
    assert corpus_path.split("/", 1)[0] in UPSTREAM


def test_an_unknown_layout_or_a_trafilatura_page_without_its_folder_is_refused(tmp_path):
    with pytest.raises(EvidenceError, match="tests/eval or tests/cache"):
        upstream_path("trafilatura-eval/html/x.html.gz")
    with pytest.raises(EvidenceError, match="no known upstream layout"):
        upstream_path("dragnet/notes.txt")
    (tmp_path / "dragnet" / "HTML").mkdir(parents=True)
    (tmp_path / "dragnet" / "HTML" / "R1.html.gz").write_bytes(gzip.compress(b"<p>page</p>"))
    assert bind_source_file(tmp_path, "dragnet/HTML/R1.html.gz") == {
        "sha256": sha256_bytes(b"<p>page</p>"), "bytes": 11, "upstream": "dragnet_data/input/R1.html"}


# --- bad input, each kind named --------------------------------------------------------------------------


def edit_sources(root: Path, change) -> None:
    sources = json.loads((root / "sources.json").read_text())
    change(sources)
    (root / "sources.json").write_bytes(dump_json(sources))


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.update(schema_version=2), r"sources\.json: not a sources\.json of schema_version 1"),
    (lambda s: s["cases"].pop("article-003-en-harbour-pilots"),
     r"sources\.json: no source entry for case\(s\) article-003-en-harbour-pilots"),
    (lambda s: s["cases"]["article-002-en-harbour-moorings"]["files"].pop("aeb/ground-truth.json"),
     r"case article-002-en-harbour-moorings: aeb/ground-truth\.json is used but not bound \(no sha256 in files\)"),
    (lambda s: s["cases"]["article-002-en-harbour-moorings"]["reference"].update(key="p9"),
     r"case article-002-en-harbour-moorings: aeb/ground-truth\.json: has no 'p9' \(named by sources\.json\)"),
    (lambda s: s["cases"]["article-004-en-harbour-lighthouse"]["reference"].update(lines=[1, 400]),
     r"case article-004-en-harbour-lighthouse: reference line range 1-400 is outside the \d+ lines of the "
     r"capture's visible text"),
])
def test_a_bad_sources_entry_is_refused_naming_it(suite, tmp_path, change, message):
    root, corpus = suite
    edit_sources(root, change)
    with pytest.raises(EvidenceError, match=message):
        fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)
    assert leftovers(tmp_path) == [] and not (tmp_path / "inputs").exists()


def test_a_missing_sources_file_and_broken_gzip_are_named(suite, tmp_path):
    root, corpus = suite
    (corpus.mirror / "aeb/html/p2.html.gz").write_bytes(b"not gzip")
    with pytest.raises(EvidenceError, match=r"case article-002-en-harbour-moorings: source file aeb/html/p2\.html\.gz: "
                       r".*p2\.html\.gz: broken gzip data"):
        fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)
    (root / "sources.json").unlink()
    with pytest.raises(EvidenceError, match=r"sources\.json: missing; a reviewed suite binds its source files"):
        fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)


def test_an_unreachable_upstream_or_a_repository_off_github_is_named(suite, tmp_path):
    root, _ = suite
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with pytest.raises(EvidenceError, match=rf"case article-001-en-harbour-dredging: source file dragnet/HTML/X1\.html\.gz: "
                       rf"http://127\.0\.0\.1:{closed}/example/dragnet-data/{COMMIT}/input/X1\.html: cannot be fetched"):
        fetch_evidence(root, into=tmp_path / "inputs", upstream_base=f"http://127.0.0.1:{closed}")
    edit_sources(root, lambda s: s["upstream"]["dragnet"].update(repository="https://gitlab.com/example/dragnet-data"))
    with pytest.raises(EvidenceError, match=r"upstream repository 'https://gitlab\.com/example/dragnet-data' is not "
                       r"https://github\.com/<owner>/<repo>"):
        fetch_evidence(root, into=tmp_path / "inputs", upstream_base=f"http://127.0.0.1:{closed}")


def test_the_reviewed_suite_importer_derives_the_same_dataset(suite, tmp_path):
    from lexbench.dataset.importers import import_corpus

    root, corpus = suite
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # the repository root evidence_home is under
    edit_sources(root, lambda s: s.update(evidence_home="mirror"))
    fetched = fetch_evidence(root, into=tmp_path / "fetched", mirror=corpus.mirror)
    import_corpus("reviewed-suite", root, tmp_path / "imported")
    assert sha256_bytes((tmp_path / "imported" / "dataset.json").read_bytes()) == fetched.dataset_sha256


@pytest.mark.slow
def test_an_upstream_that_gzips_every_transfer_gives_the_same_bytes(suite, tmp_path):
    """fetch-evidence asks for the file as stored (Accept-Encoding: identity), so a file's bound is exact;
    a server that compresses the transfer anyway is inflated within the same bound."""
    from tests.providers.servers import LoopbackServer, send

    root, corpus = suite
    asked: list[str | None] = []

    def gzipping(h, server):  # type: ignore[no-untyped-def]
        asked.append(h.headers.get("Accept-Encoding"))
        file = corpus.upstream / h.path.lstrip("/")
        if file.is_file():
            send(h, 200, gzip.compress(file.read_bytes()), content_type="text/plain", headers={"Content-Encoding": "gzip"})
        else:
            send(h, 404, b"not found")

    from_mirror = fetch_evidence(root, into=tmp_path / "a", mirror=corpus.mirror)
    with LoopbackServer(gzipping) as upstream:
        from_upstream = fetch_evidence(root, into=tmp_path / "b", upstream_base=upstream.url(""))
    assert from_upstream.dataset_sha256 == from_mirror.dataset_sha256
    assert set(asked) == {"identity"}
