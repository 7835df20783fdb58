"""Comment verdicts a careful reader gives on real answers (SPEC §3.5; issue 30's audit of `articles`).

Each reproduction regenerates a real provider answer from the suite's evidence: the case's capture, decoded
as the extraction worker decodes it, run through the pinned local extractor (the function the provider's
worker calls, same library versions), so the answer is the one the run recorded. Its sha256 is pinned here:
a different answer is refused by name, since the expected verdict was read off that answer. Neither the
page nor the answer is committed; the assertions hold only record counts and the few author names a
reader finds.

- three false fails of ``http-markdownify`` (markdownify's list-item comments, a signature after the text,
  a "6 Responses" list of name, date and text) that the reader counts as passes;
- two more false fails of ``http-markdownify`` (articles 102 and 103): a signature broken over three lines
  after the text, and a linked name ending in "!" that "said:" follows;
- a false pass of ``trafilatura`` on Slashdot: subject headings ``## Re: (Score:3)`` and no author line,
  where a reader finds no record.

Skips with the reason when ``.evidence/articles`` is not on this machine (``lexbench fetch-evidence
--suite articles``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pytest

from lexbench.answer import ProviderResult
from lexbench.dataset.compile import sha256_bytes
from lexbench.dataset.evidence import default_into
from lexbench.dataset.suite import CASES_ROOT, load_suite
from lexbench.providers.http import decode_text
from lexbench.providers.local import extract
from lexbench.scoring import evaluate_response
from lexbench.verdict import Component
from tests.dataset.articles_evidence import pinned_dataset_sha256

EVIDENCE = default_into("articles")


@dataclass(frozen=True)
class Reproduction:
    """One audited answer: the case, the provider, the answer's sha256, and what a reader finds:
    ``passes`` the comment contract, ``found`` records (``None``: at least the floor) and among them
    the ``authors`` named."""

    case_id: str
    provider: str
    sha256: str
    passes: bool
    found: int | None = None
    authors: tuple[str, ...] = ()
    why: str = ""


REPRODUCTIONS = [
    Reproduction("article-007-en-shankman-vote", "http-markdownify",
                 "2bfda9ef8fc7705eeae3a45f13a08d4a02e4f9b2e116c4d2005691ea6a2f0209", True, 8,
                 ("Amy D.", "Jonathan L. Yarmis", "Jeremiah"),
                 "eight commenters as list items (`* Amy D.` then the text); `[NEXT POST]` names nobody"),
    Reproduction("article-013-en-reuters-archery-curling", "http-markdownify",
                 "49fda4934372d1a694b62bc87f7b10497964b50f39a14897e194dc5c6d99a484", True, 1, ("TexARC",),
                 "one comment signed `Posted by TexARC` after its text"),
    Reproduction("article-010-en-librarianbyday-ios6-privacy", "http-markdownify",
                 "337314bd189553c340de0eba8f22cceda573e435e2fb2e968245c5ef8916da89", True, 6,
                 ("Jim Peterson", "David D", "John", "Corinne"),
                 "a `6 Responses` list: name, date and text for each of six comments"),
    Reproduction("article-102-en-onstartups-awareness-is-awesome", "http-markdownify",
                 "98e4607e0e403e62d1ad6d324a676e8a8127d786046d711cf04d932f09a186f5", True, 9,
                 ("Darren", "Neil Stein", "Mary Juetten"),
                 "each comment signed over three lines of one paragraph, `posted on <date>` / `by` / the name, "
                 "after its text; a reader finds 11: hispekshop24's two texts differ only in punctuation (counted "
                 "once) and `valerie cheers-brown`, unmarked and lower-case, is not read as a name"),
    Reproduction("article-103-en-sassyradish-fresh-cranberry-relish", "http-markdownify",
                 "68499a7ec9b64cef6807b233cf1fd41f48ef70adbb5d392629afe654bf5dcc49", True, 3,
                 ("Arthur in the Garden!", "Sally", "Tina"),
                 "a commenter named by the blog's title, `[Arthur in the Garden!](…) said:`"),
    Reproduction("article-016-en-slashdot-nation-losing-toolbox", "trafilatura",
                 "21eb0636bc8bdb41a24198e0beeaccadf6942881c17329fe2caec9f5776aeac1", False, 0, (),
                 "subject headings `## Re: (Score:3)` kept, every author line dropped"),
]


@pytest.fixture(scope="module")
def articles():
    """The ``articles`` suite with its evidence, or skip saying why."""
    dataset = EVIDENCE / "dataset.json"
    if not dataset.is_file():
        pytest.skip(f"the articles evidence is not on this machine: {EVIDENCE} is absent "
                    "(lexbench fetch-evidence --suite articles)")
    if sha256_bytes(dataset.read_bytes()) != pinned_dataset_sha256():
        pytest.skip(f"{dataset} is not the dataset {CASES_ROOT / 'articles'} pins "
                    "(lexbench fetch-evidence --suite articles)")
    return load_suite("articles")


def regenerate(suite, case_id: str, provider: str) -> ProviderResult:
    """The provider's answer on the case's capture: decoded as the extraction worker decodes the served
    page, extracted by the local provider's extractor with its default options."""
    body, content_type = suite.page_html(case_id)
    case = next(c for c in suite.cases if c.id == case_id)
    content, title = extract(provider, decode_text(body, content_type), case.url, {})
    return ProviderResult(success=True, content=content, content_format="markdown", title=title)


@pytest.mark.parametrize("reproduction", REPRODUCTIONS, ids=lambda r: f"{r.case_id}[{r.provider}]")
def test_the_comment_verdict_is_the_one_a_reader_gives(articles, reproduction: Reproduction) -> None:
    answer = regenerate(articles, reproduction.case_id, reproduction.provider)
    digest = hashlib.sha256(answer.content.encode("utf-8")).hexdigest()
    assert digest == reproduction.sha256, (
        f"{reproduction.provider} no longer returns the audited answer on {reproduction.case_id} (sha256 {digest}, "
        f"audited {reproduction.sha256}): re-read the new answer before changing the expected verdict")
    case = next(c for c in articles.cases if c.id == reproduction.case_id)
    comments = evaluate_response(case, answer).component(Component.COMMENTS)
    assert comments is not None
    context = f"{reproduction.why}: {comments.evidence}"
    assert comments.passed is reproduction.passes, context
    if reproduction.found is not None:
        assert comments.measured == reproduction.found, context
    authors = [detail["author"] for detail in comments.details[1:]]
    assert set(reproduction.authors) <= set(authors), (context, authors)
