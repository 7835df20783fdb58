"""The ``harvest-forums`` importer: threads become post_collection cases (SPEC §3.6, §4)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from pathlib import Path

import pytest

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.dataset.case import CaseKind
from lexbench.dataset.importers import import_corpus
from lexbench.dataset.importers.harvest import identity_pattern, link_pattern
from lexbench.dataset.suite import load_suite
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component, Outcome

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT.parent / "shared" / "corpus" / "harvest-forums"
URL = "https://forum.example.org/viewtopic.php?t=7"
POSTS = [("ana", "The tide table in the harbour office is twenty minutes late.", 101),
         ("bo_r", "Use the gauge data from the port authority instead of the app.", 102),
         ("cy", "Thanks both, the gauge data matches what we saw on Sunday.", 103)]


def thread(posts=POSTS, *, link_form: str = "viewtopic.php?p={n}&sid=5aa65a92a8e07f2ebb1a19b78f144283#p{n}",
           anchors_only: bool = False) -> dict[str, object]:
    """A gold document: HTML, Harvest's text rendering with ``[text](href)`` links, and annotations."""
    html_parts, text, annotation = ["<html><body><h1>Tide tables</h1>"], "Tide tables ", []
    for user, body, n in posts:
        href = link_form.format(n=n)
        link_html = f"<a name='p{n}'></a>" if anchors_only else f"<a href='{href}'>#{n}</a>"
        html_parts.append(f"<div class='post'>{link_html} by <a href='/u/{user}'>{user}</a><p>{body}</p></div>")
        prefix = text + ("[#%d](" % n if not anchors_only else "#%d " % n)
        link_start = len(prefix)
        text = prefix + href + (") by " if not anchors_only else " by ")
        user_start = len(text)
        text += user + " "
        body_start = len(text)
        text += body + " "
        annotation.append({
            "post_link": {"surface_form": href, "start": link_start, "end": link_start + len(href)},
            "user": {"surface_form": user, "start": user_start, "end": user_start + len(user)},
            "post_text": {"surface_form": body, "start": body_start, "end": body_start + len(body)},
            "datetime": {"surface_form": "", "start": 0, "end": 0},
        })
    html_parts.append("<footer>Forum rules</footer></body></html>")
    return {"id": "x", "url": URL, "html": "".join(html_parts), "text": text, "gold_standard_annotation": annotation}


def make_corpus(folder: Path, documents: dict[str, dict[str, object]]) -> Path:
    (folder / "goldDocuments").mkdir(parents=True)
    rows = []
    for key, document in documents.items():
        name = f"goldDocuments/{key}.json.gz"
        with gzip.open(folder / name, "wb") as handle:
            handle.write(json.dumps(document).encode())
        rows.append({"case_id": key, "html_file": f'{name} (field "html")', "url": str(document["url"]),
                     "url_origin": "source", "lang": "en", "lang_guess": "en", "script": "latin", "ref_title": "",
                     "html_title": "Tide tables", "ref_body_chars": "1", "ref_comment_chars": str(len(documents)),
                     "coverage": "1.00", "kind": "forum-thread"})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)  # csv quotes the html_file cell, as the real index does
    (folder / "_index.tsv").write_text(buffer.getvalue(), encoding="utf-8")
    return folder


def markdown_answer(posts=POSTS) -> ProviderResult:
    parts = ["# Tide tables"] + [
        f"[#{n}](viewtopic.php?p={n}&sid=5aa65a92a8e07f2ebb1a19b78f144283#p{n}) by [{user}](/u/{user})\n\n{body}"
        for user, body, n in posts
    ]
    return ProviderResult(success=True, content="\n\n".join(parts), content_format="markdown",
                          metadata=ResultMetadata(upstream_status=200))


def test_threads_become_post_collections_with_a_link_pattern_and_baseline(tmp_path: Path) -> None:
    source = make_corpus(tmp_path / "harvest", {"forum.example.org.viewtopic.php": thread()})
    report = import_corpus("harvest-forums", source, tmp_path / "suite")
    assert len(report.imported) == 1
    suite = load_suite(str(tmp_path / "suite"))
    case = suite.cases[0]
    assert case.kind is CaseKind.POST_COLLECTION and case.body is None and case.reference_text is None
    assert case.id.startswith("forum-001-en-forum-example-org")
    posts = case.posts
    assert posts is not None and posts.baseline == 3 and posts.minimum == 3
    assert posts.ignored_labels == posts.unavailable_notices == posts.non_author_labels == posts.metadata_labels == []
    assert posts.html is None
    assert re.fullmatch(posts.post_link_pattern, "https://forum.example.org/viewtopic.php?p=999&sid=5aa65a92a8e07f2ebb1a19b78f144283#p999")
    assert not re.fullmatch(posts.post_link_pattern, "https://forum.example.org/viewtopic.php?p=999&sid=0000#p999")
    assert case.page_identity and re.search(case.page_identity[0], "The tide table in the harbour office is twenty minutes late")
    assert not (tmp_path / "suite" / "evidence" / "references").exists()  # no body reference for a collection


def test_an_imported_thread_scores_its_posts(tmp_path: Path) -> None:
    source = make_corpus(tmp_path / "harvest", {"forum.example.org.viewtopic.php": thread()})
    import_corpus("harvest-forums", source, tmp_path / "suite")
    case = load_suite(str(tmp_path / "suite")).cases[0]
    verdict = evaluate_response(case, markdown_answer())
    assert verdict.outcome is Outcome.PASS, verdict.explanation
    verdict = evaluate_response(case, markdown_answer(POSTS[:2]))
    assert verdict.component(Component.POSTS).passed is False


def test_threads_without_real_post_links_are_skipped_with_the_reason(tmp_path: Path) -> None:
    source = make_corpus(tmp_path / "harvest", {
        "a.example.org.t": thread(),
        "b.example.org.t": thread(anchors_only=True),
    })
    report = import_corpus("harvest-forums", source, tmp_path / "suite")
    assert len(report.imported) == 1
    assert "no posts v2 contract can be built" in report.skipped[0].reason


def test_link_pattern_generalises_ids_but_keeps_session_hex() -> None:
    pattern = link_pattern(["https://f.example/t/slug.416785/", "https://f.example/t/slug.416785/#post-8903429"])
    assert re.fullmatch(pattern, "https://f.example/t/slug.416785/#post-1")
    assert re.fullmatch(pattern, "https://f.example/t/slug.416785/")
    assert not re.fullmatch(pattern, "https://f.example/t/other.416785/#post-1")


def test_identity_pattern_skips_markup_and_numbers() -> None:
    pattern = identity_pattern("<p>Hi</p><p>This message pops up every time I start the laptop, why?</p>")
    assert pattern is not None and re.search(pattern, "Hi! This message pops up every time I start the laptop")
    assert identity_pattern("1 2 3 ok") is None


def test_real_harvest_threads_import(tmp_path: Path) -> None:
    if not (CORPUS / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {CORPUS} is absent (it lives outside git, in ../shared/corpus)")
    report = import_corpus("harvest-forums", CORPUS, tmp_path / "suite", limit=20, keep_going=True)
    assert len(report.imported) >= 8
    suite = load_suite(str(tmp_path / "suite"))
    assert all(case.posts is not None and case.posts.baseline >= 1 for case in suite.cases)


def anchor_named_thread(*, permalinks: bool, fragment_only: bool = False) -> dict[str, object]:
    """A thread whose annotation names each post's anchor (``p101``, as Harvest's rendering shows
    ``<a name>`` as ``[](p101)``) or only the ``#p101`` end of the permalink, instead of the link."""
    document = thread(link_form="p{n}")
    html = document["html"]
    for _user, _body, n in POSTS:
        permalink = f"<a href='viewtopic.php?p={n}#p{n}'>#{n}</a>" if permalinks else ""
        html = html.replace(f"<a href='p{n}'>#{n}</a>", f"<a name='p{n}'></a>{permalink}")
    document["html"] = html
    if fragment_only:
        for entry in document["gold_standard_annotation"]:
            entry["post_link"]["surface_form"] = "#" + entry["post_link"]["surface_form"]
    return document


@pytest.mark.parametrize("fragment_only", [False, True])
def test_posts_annotated_by_anchor_use_the_permalink_the_page_shows(tmp_path: Path, fragment_only: bool) -> None:
    source = make_corpus(tmp_path / "harvest", {
        "a.example.org.t": anchor_named_thread(permalinks=True, fragment_only=fragment_only),
        "b.example.org.t": anchor_named_thread(permalinks=False, fragment_only=fragment_only),
    })
    report = import_corpus("harvest-forums", source, tmp_path / "suite", keep_going=True)
    assert len(report.imported) == 1 and report.imported[0].startswith("forum-001-")
    assert "an anchor no visible link points to" in report.skipped[0].reason
    case = load_suite(str(tmp_path / "suite")).cases[0]
    assert case.posts.baseline == 3 and "post_links_found_by_anchor_fragment" in case.flags
    assert re.fullmatch(case.posts.post_link_pattern, "https://forum.example.org/viewtopic.php?p=555#p555")
    answer = "\n\n".join(f"[#{n}](viewtopic.php?p={n}#p{n}) by [{u}](/u/{u})\n\n{b}" for u, b, n in POSTS)
    verdict = evaluate_response(case, ProviderResult(success=True, content="# Tide tables\n\n" + answer,
                                                     content_format="markdown", metadata=ResultMetadata(upstream_status=200)))
    assert verdict.component(Component.POSTS).passed is True, verdict.explanation


def test_threads_with_no_annotated_post_link_say_so(tmp_path: Path) -> None:
    document = thread()
    for entry in document["gold_standard_annotation"]:
        del entry["post_link"]
    source = make_corpus(tmp_path / "harvest", {"a.example.org.t": thread(), "b.example.org.t": document})
    report = import_corpus("harvest-forums", source, tmp_path / "suite")
    assert report.skipped[0].reason.startswith("the annotation names no post link for any post")


def test_real_threads_annotated_by_anchor_are_imported(tmp_path: Path) -> None:
    if not (CORPUS / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {CORPUS} is absent (it lives outside git, in ../shared/corpus)")
    report = import_corpus("harvest-forums", CORPUS, tmp_path / "suite", keep_going=True)
    keys = dict(zip(report.imported_keys, report.imported))
    # Their annotation names <a name="msg-739"> / <a name="post8890704">; the pages link each post's permalink.
    for key in ("blog.angelman-asa.org.read.php", "skyscraperpage.com.forum.showthread.php.242327"):
        assert key in keys, [s.reason for s in report.skipped if s.key == key]
        assert "post_links_found_by_anchor_fragment" in report.flagged[keys[key]]
    assert len(report.imported) >= 48, f"{len(report.imported)} of 76 threads imported (41 before anchors were followed)"


def test_real_threads_whose_authors_head_posts_by_profile_link_are_imported(tmp_path: Path) -> None:
    if not (CORPUS / "_index.tsv").is_file():
        pytest.skip(f"real corpus not available: {CORPUS} is absent (it lives outside git, in ../shared/corpus)")
    report = import_corpus("harvest-forums", CORPUS, tmp_path / "suite", keep_going=True)
    # Vanilla forums head each post with "[tommyshelby](/profile/tommyshelby) 6 replies15 threads Junior Member".
    # Their captures once passed only on a "Share" button read as the author; a share button names nobody
    # (issue 30), and the profile-linked name is what names the author.
    for key in ("talk.collegeconfidential.com.ivy-league.2184314-application-to-ivy-leagues.html",
                "community.scope.org.uk.discussion.57774.copd",
                "forums.moneysavingexpert.com.discussion.5567669.unsure-whether-to-consolidate-please-advise"):
        assert key in report.imported_keys, [s.reason for s in report.skipped if s.key == key]
