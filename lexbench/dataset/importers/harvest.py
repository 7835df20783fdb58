"""``harvest-forums``: Harvest's forum-post gold documents as post collections (SPEC §3.6, §4).

Layout: ``_index.tsv`` (``html_file`` names ``goldDocuments/<name>.json.gz (field "html")``) and
``goldDocuments/<name>.json.gz`` = ``{"id", "url", "html", "text", "gold_standard_annotation": [{"post_text",
"user", "datetime", "post_link"?}]}``, each annotation field ``{"surface_form", "start", "end"}`` with
offsets into ``text`` (a plain rendering), not into the HTML.

What the annotations allow, and what this importer makes of them:

- **baseline** — the annotated posts with a non-empty user and post text whose annotated post link
  is a real link target of the page (distinct links; the first post's link is often the thread URL).
  Where the annotation names the post's anchor instead (``<a name="msg-739">``, ``post8890704``) or
  only the ``#post…`` end of a longer link, the post's permalink is the page's first visible link
  whose fragment is that anchor (flag ``post_links_found_by_anchor_fragment``).
- **post_link_pattern** — the annotated links, made absolute against the thread URL, escaped, with
  numeric ids generalised to ``\\d+`` (session ids and other hex runs stay literal).
- **no HTML selectors** — the offsets point into a text rendering, not the DOM, so HTML answers use
  the structured text parser.
- **page identity** — the first words of the first annotated post; no title (none is annotated).
- **label lists** — explicit and empty: nothing was reviewed beyond the annotation.

Pages without real post links (no link is annotated, or the annotated anchor is no visible link's
fragment), or whose posts exist only in ``<noscript>``, are skipped with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.html
from pydantic import ValidationError

from lexbench.answer import ProviderResult
from lexbench.dataset.case import Capture, Case, CaseKind, CaseRule, PostContract, TitleBasis
from lexbench.dataset.compile import describe_validation_error, sha256_bytes
from lexbench.dataset.importers.common import (
    IndexRow,
    Page,
    PageError,
    SkipPage,
    case_id,
    case_lang,
    case_name,
    corpus_file,
    coverage_flags,
    key_slug,
    read_index,
    read_json_file,
)
from lexbench.scoring import evaluate_response
from lexbench.verdict import Outcome

CATEGORY = "forum"
TRACK = "posts"
TASK_PROMPT = "Fetch the forum thread at its URL and return its readable content, every displayed post with its author."
OBSERVED = date(2021, 2, 5)
"""Date of the Harvest corpus commit the gold documents come from (the annotation has no finer date)."""
IDENTITY_WORDS = 8

_FIELD_SUFFIX = re.compile(r'\s*\(field\s+"?html"?\)\s*$')
# A run of digits that is not part of a hex token (session ids stay literal, post ids generalise).
_ID_DIGITS = re.compile(r"(?<![0-9A-Fa-f])\d+(?![0-9A-Fa-f])")
_WORD = re.compile(r"\w+")
# An anchor name, not a link: no path, query or scheme characters (``msg-739``, ``post8890704``, ``832771``).
_ANCHOR_NAME = re.compile(r"[A-Za-z0-9_.:-]+")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TAG_NAMES = frozenset({"p", "br", "div", "span", "em", "strong", "li", "ul", "ol"})  # kept as text by some annotations


class HarvestFormat:
    """Importer for a ``harvest-forums`` corpus folder (post collections)."""

    name = "harvest-forums"
    suite_id = "harvest-forums"
    suite_name = "Harvest forum threads, post collections (imported)"
    description = (
        "Imported from the Harvest forum-post gold documents, https://github.com/fhgr/harvest at commit "
        "f778b0a4112259ad246c8ac57e9d51eb149ab9ef (corpus/goldDocuments), Apache-2.0 licence; page HTML is "
        "copyright of the original sites. Each thread is a post_collection case whose posts v2 contract counts "
        "owned post-detail links with an author and post text; the baseline is Harvest's manually corrected "
        "annotation (Weichselbraun et al., WI-IAT 2020). Imported as-is and not reviewed: no stable groups, "
        "no title, no HTML selectors, empty label lists."
    )
    notes = [
        "baseline = annotated posts with a user, post text and a post link that is a real link target of the page "
        "(distinct links); the minimum follows SPEC §3.5 (baseline up to 5, else 80 % rounded up).",
        "post_link_pattern = the annotated links made absolute against the thread URL, numeric ids generalised.",
        "no HTML selectors: the annotation offsets point into a text rendering, not into the DOM.",
        "page identity = the first words of the first annotated post; title not scored (none is annotated).",
        "label lists are explicit and empty: nothing beyond the annotation was reviewed.",
    ]

    def rows(self, source: Path) -> list[IndexRow]:
        """Every index row (each is one thread)."""
        return read_index(source)

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """The loader of one thread: its gold document, inline HTML and annotated posts."""

        def load(row: IndexRow) -> Page:
            relative = _document_path(row.html_file)
            path = corpus_file(source, relative, what="html_file")
            document, duplicates = read_json_file(path)
            if duplicates:
                raise PageError(f"{path}: duplicate keys {sorted(duplicates)}")
            if not isinstance(document, dict) or not isinstance(document.get("html"), str):
                raise PageError(f"{path}: expected an object with an 'html' string")
            url = row.url or str(document.get("url") or "")
            if not url:
                raise PageError(f"{path}: no thread URL in the index or the document")
            annotation = document.get("gold_standard_annotation")
            if not isinstance(annotation, list):
                raise PageError(f"{path}: 'gold_standard_annotation' is not a list")
            posts = qualifying_posts(document["html"], annotation, url, str(document.get("text") or ""))
            if not posts:
                if not any(_surface(entry, "post_link") for entry in annotation):
                    raise SkipPage("the annotation names no post link for any post, so no posts v2 contract can be "
                                   "built (a reviewer could add one from the capture's permalinks)")
                raise SkipPage(
                    "no annotated post has a user, post text and a post link that is a link target of the page "
                    "(posts only in <noscript>, or an anchor no visible link points to): no posts v2 contract can be "
                    "built"
                )
            return Page(
                row=row,
                url=url,
                capture=document["html"].encode("utf-8"),
                capture_file=path,
                reference=[],
                reference_file=path,
                key_tag=key_slug(row.key.split(".", 1)[-1], 12),
                flags=coverage_flags(row),
                extra={"posts": posts, "annotated": len(annotation)},
            )

        return load

    def build_rule(self, page: Page, position: int) -> tuple[CaseRule, None]:
        """The post_collection rule of one thread (no body reference). Raises :class:`PageError`."""
        row = page.row
        posts: list[dict[str, Any]] = page.extra["posts"]
        lang = case_lang(row)
        cid = case_id(position, lang, page.url, page.key_tag, category=CATEGORY)
        links = [post["link"] for post in posts] + [post["base_link"] for post in posts]
        flags = list(page.flags)
        if len(posts) < page.extra["annotated"]:
            flags.append("posts_without_link_or_text_not_counted")
        if any(post["via_fragment"] for post in posts):
            flags.append("post_links_found_by_anchor_fragment")
        try:
            rule = CaseRule(
                id=cid,
                name=case_name(row, cid.split("-", 3)[3]),
                url=page.url,
                category=CATEGORY,
                track=TRACK,
                task_prompt=TASK_PROMPT,
                kind=CaseKind.POST_COLLECTION,
                lang=lang,
                capture=Capture(path=f"captures/{cid}.html", sha256=sha256_bytes(page.capture),
                                content_type="text/html; charset=utf-8"),
                title=None,
                title_basis=TitleBasis.NOT_IN_SOURCE,
                page_identity=[pattern for pattern in (identity_pattern(posts[0]["text"]),) if pattern],
                posts=PostContract(
                    contract_version=2,
                    baseline=len(posts),
                    post_link_pattern=link_pattern(links),
                    ignored_labels=[],
                    unavailable_notices=[],
                    non_author_labels=[],
                    metadata_labels=[],
                    observed=OBSERVED,
                    evidence=(
                        f"Harvest gold annotation: {len(posts)} of {page.extra['annotated']} annotated posts have a "
                        "user, post text and a post link that is a link target of the page"
                    ),
                ),
                flags=flags,
            )
        except ValidationError as exc:
            raise PageError(f"{page.reference_file}: {describe_validation_error(exc, case_id=cid)}") from None
        _require_capture_satisfies(rule, page.capture)
        return rule, None


def _require_capture_satisfies(rule: CaseRule, capture: bytes) -> None:
    """Skip a thread whose own saved page fails the contract built from its annotations.

    A posts contract is a floor observed on the capture, so the capture is its reference: when the
    annotations cannot be expressed as a contract the page itself meets (authors outside any owned
    post link, links the HTML does not carry as such), the case would fail every provider, the
    reference-echo control included. Raises :class:`SkipPage` with the scorer's explanation.
    """
    answer = ProviderResult(success=True, content=capture.decode("utf-8", errors="replace"), content_format="html")
    verdict = evaluate_response(Case(**rule.model_dump(), reference_text=None), answer)
    if verdict.outcome is not Outcome.PASS:
        raise SkipPage(f"the page's own capture does not satisfy the contract built from its annotations ({verdict.explanation})")


def _document_path(html_file: str) -> str:
    """``goldDocuments/x.json.gz`` from the index cell, which is CSV-quoted and names the JSON field."""
    value = html_file.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1].replace('""', '"')
    return _FIELD_SUFFIX.sub("", value).strip()


def _surface(entry: object, field: str) -> str:
    value = entry.get(field) if isinstance(entry, dict) else None
    form = value.get("surface_form") if isinstance(value, dict) else None
    return form.strip() if isinstance(form, str) else ""


def qualifying_posts(html: str, annotation: list[object], url: str, rendering: str = "") -> list[dict[str, Any]]:
    """The annotated posts that count towards the baseline, one per distinct absolute post link:
    ``{"link", "base_link", "user", "text", "via_fragment"}`` in annotation order.

    A post counts when its user and text are non-empty and its post link is one of the page's visible
    link targets, found in one of two ways:

    - the annotated link is rendered as a link target in Harvest's text ``rendering`` (``[…](link)``)
      and, resolved against ``url``, is a visible link of the page; or
    - the annotation names the post's anchor rather than its link — an ``<a name>``/``id`` such as
      ``msg-739``, ``post8890704`` or ``#832771``, or only the ``#post…`` end of a longer link — and the
      page has a visible link whose fragment is that anchor (the post's permalink); the first such link
      in document order is taken (``via_fragment`` is then True).
    """
    base, targets = _link_targets(html, url)
    posts: dict[str, dict[str, Any]] = {}
    for entry in annotation:
        user, text, link = _surface(entry, "user"), _surface(entry, "post_text"), _surface(entry, "post_link")
        if not (user and text and link):
            continue
        absolute, href, via_fragment = urljoin(url, link), link, False
        rendered = not rendering or _rendered_as_link(rendering, entry)
        if not (rendered and absolute in targets):
            permalink = _permalink_by_fragment(link, targets)
            if permalink is None:
                continue
            absolute, href, via_fragment = permalink, targets[permalink], True
        if absolute not in posts:
            # A page's <base href> changes where a relative link points; an answer may keep the link
            # relative (resolved against the thread URL by the scorer) or make it absolute via <base>.
            posts[absolute] = {"link": absolute, "base_link": urljoin(base, href), "user": user, "text": text,
                               "via_fragment": via_fragment}
    return list(posts.values())


def _permalink_by_fragment(link: str, targets: dict[str, str]) -> str | None:
    """The first link target whose fragment is the anchor ``link`` names (``msg-739``, ``#p12``, or the
    fragment of a longer link), or ``None`` when ``link`` is no anchor name or no target ends in it."""
    fragment = link.rsplit("#", 1)[1] if "#" in link else link
    if not _ANCHOR_NAME.fullmatch(fragment):
        return None
    return next((target for target in targets if urlsplit(target).fragment == fragment), None)


def _rendered_as_link(rendering: str, entry: object) -> bool:
    span = entry.get("post_link") if isinstance(entry, dict) else None
    start = span.get("start") if isinstance(span, dict) else None
    return isinstance(start, int) and start >= 2 and rendering[start - 2 : start] == "]("


def _link_targets(html: str, url: str) -> tuple[str, dict[str, str]]:
    """The page's base URL (``<base href>`` or ``url``) and its visible link targets, resolved against
    ``url``, in document order, each mapped to its first raw ``href``."""
    try:
        root = lxml.html.document_fromstring(html.encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8"))
    except (lxml.etree.ParserError, ValueError):
        return url, {}
    base_element = root.find(".//base[@href]")
    base = urljoin(url, base_element.get("href").strip()) if base_element is not None else url
    targets: dict[str, str] = {}
    for anchor in root.iter("a"):
        href = (anchor.get("href") or "").strip()
        if href and not _inside_noscript(anchor):
            targets.setdefault(urljoin(url, href), href)
    return base, targets


def _inside_noscript(element: lxml.html.HtmlElement) -> bool:
    return any(ancestor.tag == "noscript" for ancestor in element.iterancestors())


def link_pattern(links: list[str]) -> str:
    """A regular expression fully matching every absolute post link given: each escaped, numeric ids
    generalised to ``\\d+``, distinct shapes joined as alternatives."""
    shapes = sorted({_ID_DIGITS.sub(r"\\d+", re.escape(link)) for link in links})
    return shapes[0] if len(shapes) == 1 else "|".join(f"(?:{shape})" for shape in shapes)


def identity_pattern(text: str) -> str | None:
    """A page-identity pattern from a post's opening: the first run of :data:`IDENTITY_WORDS`
    consecutive words made of letters (markup the annotation kept, numbers and list markers break a
    run), escaped and separated by any non-word run so reflowed punctuation and spacing still match.
    ``None`` when the post has no such run."""
    words = _WORD.findall(_TAG.sub(" ", text))
    run: list[str] = []
    for word in words:
        run = run + [word] if word.isalpha() and word.lower() not in _TAG_NAMES else []
        if len(run) == IDENTITY_WORDS:
            return r"\W+".join(re.escape(w) for w in run)
    return None


FORMAT = HarvestFormat()
