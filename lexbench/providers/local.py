"""Local providers: fetch the page through the shared HTTP boundary, extract on this machine (SPEC §5).

- ``http-markdownify``: the whole page body converted to Markdown (a naive baseline: it keeps
  navigation, footers and text hidden by CSS, because it does not render).
- ``trafilatura``: trafilatura's main-content extraction to Markdown, comments and links included.
- ``readability``: readability-lxml's article, its title as a heading, converted with markdownify.
- ``reference-echo``: the control. It returns the case's own title, reference body and stable-group
  phrases, and must pass every case; a miss means the scorer or the case is wrong, not a provider.

Fetching obeys the runtime policy at :class:`~lexbench.providers.http.HttpBoundary` (deadline, ceiling,
guard); extraction runs in the killable :class:`~lexbench.providers.extraction.ExtractionWorker` within
what is left of the same deadline. :func:`extract` is the pure part, run inside that worker.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import lxml.html

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.case import Case
from lexbench.providers.base import OutputContract, Provider
from lexbench.providers.call import Deadline
from lexbench.providers.extraction import ExtractionWorker
from lexbench.providers.http import HttpResponse, decode_text

_DROP_TAGS = ("head", "script", "style", "noscript", "template")
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Served without a useful type: look at the bytes, as browsers do.
_SNIFFED_TYPES = frozenset({"text/plain", "application/octet-stream", "binary/octet-stream"})


def is_html_document(response: HttpResponse) -> bool:
    """True when ``response`` is an HTML page: an HTML media type, or no/generic type and bytes that
    open like HTML (after whitespace, a BOM and an XML declaration)."""
    media = response.content_type
    if media in _HTML_TYPES:
        return True
    if media is not None and media not in _SNIFFED_TYPES:
        return False
    head = response.body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<?xml"):  # XHTML: look past the XML declaration
        head = head.partition(b"?>")[2].lstrip(b" \t\r\n")
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<!--"))


class HttpExtractor(Provider):
    """Base for local providers: one GET through the boundary, then extraction in the worker."""

    family = "local"

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(name, options, **kwargs)
        self._worker = ExtractionWorker.shared()

    def prepare(self) -> None:
        self._worker.ensure_started()

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        deadline = Deadline.after(timeout)
        page = self.http.fetch_target(url, deadline)
        ok = 200 <= page.status < 300
        metadata = ResultMetadata(upstream_status=page.status, engine=self.type_name,
                                  content_type=page.headers.get("content-type"), redirects=list(page.redirects))
        failed = None if ok else f"the page answered HTTP {page.status}"
        if not is_html_document(page):
            if ok:
                return ProviderResult.failure(
                    ErrorType.UNSUPPORTED_CONTENT,
                    f"the page is {page.content_type or 'untyped'} ({len(page.body):,} bytes), not HTML; "
                    f"{self.type_name} extracts HTML pages only",
                    final_url=page.url, metadata=metadata)
            # An error page that is not HTML: keep its text as the content, as the contract asks.
            text = page.text() if (page.content_type or "text/").startswith("text/") else ""
            return ProviderResult.failure(ErrorType.UPSTREAM_STATUS, failed, content=text, content_format="text",
                                          final_url=page.url, metadata=metadata)
        # The worker decodes the page: a charset is decoded under the deadline, in a process it can kill.
        content, title = ("", None) if not page.body.strip() else self._worker.extract(
            self.type_name, page.body, case.url, self.options, deadline, content_type=page.headers.get("content-type"))
        return ProviderResult(
            success=ok,
            content=content,
            content_format="markdown",
            final_url=page.url,
            title=title,
            error_type=None if ok else ErrorType.UPSTREAM_STATUS,
            error_message=failed,
            metadata=metadata,
        )

    def close(self) -> None:
        ExtractionWorker.release()


class HttpMarkdownify(HttpExtractor):
    """Whole page → Markdown: no main-content detection at all (a baseline). Its plain GET is also an honest
    ``file`` route (SPEC §2): a file task's answer is the response body's bytes as received, unconverted. No
    ``resources`` route: a GET runs no script and claims no DOM completion."""

    type_name = "http-markdownify"
    deliveries = frozenset({"text", "file"})

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        if case.delivery.value != "file":
            return super().fetch(case, timeout, url)
        page = self.http.fetch_target(url, Deadline.after(timeout))
        ok = 200 <= page.status < 300
        return ProviderResult(
            success=ok, file=page.body, final_url=page.url,
            error_type=None if ok else ErrorType.UPSTREAM_STATUS,
            error_message=None if ok else f"the document answered HTTP {page.status}",
            metadata=ResultMetadata(upstream_status=page.status, engine=self.type_name,
                                    content_type=page.headers.get("content-type"), redirects=list(page.redirects)))


class Trafilatura(HttpExtractor):
    """trafilatura's extraction to Markdown; comments, links and tables included by default (its
    natural output). Options: ``include_comments``, ``include_links``, ``include_tables``,
    ``favor_precision``, ``favor_recall`` (booleans)."""

    type_name = "trafilatura"
    option_names = frozenset({"include_comments", "include_links", "include_tables", "favor_precision", "favor_recall"})

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        super().validate_options(options)
        wrong = [k for k, v in options.items() if not isinstance(v, bool)]
        if wrong:
            raise ValueError(f"option(s) {', '.join(wrong)} must be true or false")


class Readability(HttpExtractor):
    """readability-lxml's article with its title as a heading, converted with markdownify."""

    type_name = "readability"


class ReferenceEcho(Provider):
    """Control: answers with the case's own reviewed reference, without any network call.

    For a fixed article that is its title, reference body and stable-group phrases, as plain text. For a
    ``resources`` case it is the contract's URLs resolved against the case URL; for a ``file`` case the
    document its file contract was bound to at compile time (the capture's page record).
    Comment, post and anchor contracts are floors reviewed on the saved capture (compiled cases keep
    counts, not records), so for a case carrying one the reference *is* the capture: the control then
    answers with the capture's HTML, which :meth:`bind_captures` supplies (for a web-archive capture, the
    rendered first load its recording kept: dynamic cases are reviewed on it). A miss therefore always means
    the case or the scorer is wrong, never a provider.
    """

    type_name = "reference-echo"
    family = "control"
    output_contracts: ClassVar[tuple[OutputContract, ...]] = ("control",)
    needs_network = False
    deliveries = frozenset({"text", "file", "resources"})

    def bind_captures(self, captures: Mapping[str, tuple[bytes, str]]) -> None:
        """Give the control the suite's verified captures: ``{case id: (bytes, content type)}``."""
        self._captures = dict(captures)

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        capture = getattr(self, "_captures", {}).get(case.id)
        if case.resources is not None:  # the reviewed URLs themselves, resolved against the page
            urls = [urljoin(case.url, u) for u in case.resources.urls]
            return ProviderResult(success=True, content="\n".join(urls), content_format="text", final_url=case.url,
                                  resources=urls, metadata=ResultMetadata(engine="reference-echo"))
        if case.file is not None:  # the document the contract was bound to at compile time (its page record)
            data, content_type = capture if capture is not None else (b"", None)
            return ProviderResult(success=True, file=data, final_url=case.url,
                                  metadata=ResultMetadata(engine="reference-echo", content_type=content_type))
        if capture is not None and (case.comments or case.posts or case.anchors):
            data, content_type = capture
            html = decode_text(data, content_type)
            return ProviderResult(success=True, content=html, content_format="html", final_url=case.url,
                                  title=case.title, metadata=ResultMetadata(engine="reference-echo"))
        # Plain text, so reference lines that look like Markdown syntax stay literal text.
        lines = [case.title] if case.title else []
        if case.reference_text:
            lines.append(case.reference_text)
        lines += [phrase for group in case.stable_groups for phrase in group.phrases]
        return ProviderResult(
            success=True,
            content="\n".join(lines),
            content_format="text",
            final_url=case.url,
            title=case.title,
            metadata=ResultMetadata(engine="reference-echo"),
        )


# --- extraction (runs in the extraction worker) ------------------------------------------------------


def _parse(html: str) -> lxml.html.HtmlElement | None:
    try:
        return lxml.html.document_fromstring(html)
    except Exception:  # lxml raises on empty or pathological documents
        return None


def to_markdown(html: str) -> str:
    """Convert an HTML fragment or page to ATX-heading Markdown with markdownify."""
    import markdownify  # here, not at import: with bs4 it is ~70 ms of every process's start-up

    return markdownify.markdownify(html, heading_style="ATX").strip()


def _markdownify_page(html: str, url: str, options: Mapping[str, Any]) -> tuple[str, str | None]:
    root = _parse(html)
    if root is None:
        return "", None
    title = root.findtext(".//title")
    for element in root.xpath("|".join(f"//{tag}" for tag in _DROP_TAGS)):
        element.drop_tree()
    return to_markdown(lxml.html.tostring(root, encoding="unicode")), title


def _trafilatura(html: str, url: str, options: Mapping[str, Any]) -> tuple[str, str | None]:
    import trafilatura  # heavy; loaded in the extraction worker by the first call or warm_up(), not at import

    settings = {"include_comments": True, "include_links": True, "include_tables": True, **options}
    content = trafilatura.extract(html, url=url, output_format="markdown", **settings)
    return content or "", None


def _readability(html: str, url: str, options: Mapping[str, Any]) -> tuple[str, str | None]:
    from readability import Document  # loaded in the extraction worker only, like trafilatura

    try:
        document = Document(html, url=url)
        title = document.short_title()
        summary = document.summary(html_partial=True)
    except Exception as exc:  # readability raises its own Unparseable on odd pages
        raise RuntimeError(f"readability could not parse the page: {exc}") from exc
    body = to_markdown(summary)
    return (f"# {title}\n\n{body}" if title else body), title


EXTRACTORS: dict[str, Callable[[str, str, Mapping[str, Any]], tuple[str, str | None]]] = {
    "http-markdownify": _markdownify_page,
    "trafilatura": _trafilatura,
    "readability": _readability,
}
"""Local provider type → extraction function ``(html, url, options) -> (Markdown, title or None)``."""


def extract(extractor: str, html: str, url: str, options: Mapping[str, Any]) -> tuple[str, str | None]:
    """Run one extractor on the decoded page ``html``; raises ``KeyError`` for an unknown extractor name.

    A leading XML declaration (an XHTML page's ``<?xml version="1.0" encoding="UTF-8"?>``) is removed
    first: lxml refuses a ``str`` that declares an encoding, and the page is already decoded (by
    :func:`~lexbench.providers.http.decode_text`, which honours that declaration), so it says nothing
    more. Every extractor gets the same page."""
    return EXTRACTORS[extractor](_XML_DECLARATION.sub("", html, count=1), url, options)


_XML_DECLARATION = re.compile(r"\A\ufeff?\s*<\?xml\s[^>]*\?>")


def warm_up() -> None:
    """Import the extractors' libraries and run each once, so no call pays for imports."""
    page = "<html><head><title>t</title></head><body><article><h1>t</h1><p>warm up text.</p></article></body></html>"
    for name in EXTRACTORS:
        try:
            extract(name, page, "http://warm.up/", {})
        except Exception:  # a broken extractor is reported on its first real call
            pass
