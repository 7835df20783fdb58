"""Local providers: fetch the page over HTTP, extract on this machine (SPEC §5 "local" family).

- ``http-markdownify``: the whole page body converted to Markdown (a naive baseline: it keeps
  navigation, footers and text hidden by CSS, because it does not render).
- ``trafilatura``: trafilatura's main-content extraction to Markdown, comments and links included.
- ``readability``: readability-lxml's article, its title as a heading, converted with markdownify.
- ``reference-echo``: the control. It returns the case's own title, reference body and stable-group
  phrases, and must pass every case; a miss means the scorer or the case is wrong, not a provider.
"""

from __future__ import annotations

import time

import httpx
import lxml.html
import markdownify

from lexbench.dataset.case import Case
from lexbench.providers.base import Provider
from lexbench.providers.result import Attempt, ErrorType, ProviderResult, ResultMetadata

MAX_BODY_BYTES = 20_000_000
"""Response ceiling (SPEC §5): a larger body fails ``too_large``."""

_DROP_TAGS = ("head", "script", "style", "noscript", "template")


class _Page:
    """A fetched page: status, final URL, decoded HTML."""

    def __init__(self, status: int, final_url: str, html: str) -> None:
        self.status, self.final_url, self.html = status, final_url, html


class HttpExtractor(Provider):
    """Base for local providers: one HTTP GET, then :meth:`extract` on this machine."""

    def __init__(self, name: str | None = None, **options: object) -> None:
        super().__init__(name, **options)
        self._client = httpx.Client(follow_redirects=True, headers={"User-Agent": "lexbench/0.1"})

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        start = time.perf_counter()
        try:
            page = self._get(url, timeout)
        except _FetchError as exc:
            elapsed = time.perf_counter() - start
            attempt = Attempt(latency_s=elapsed, error_type=exc.error_type, error_message=str(exc))
            return ProviderResult(
                success=False, error_type=exc.error_type, error_message=str(exc), latency_s=elapsed, attempts=[attempt]
            )
        content, title = self.extract(page.html, case.url)
        elapsed = time.perf_counter() - start
        ok_status = 200 <= page.status < 300
        error_type = None if ok_status else ErrorType.UPSTREAM_STATUS
        message = None if ok_status else f"the page answered HTTP {page.status}"
        return ProviderResult(
            success=ok_status,
            content=content,
            content_format="markdown",
            final_url=page.final_url,
            title=title,
            error_type=error_type,
            error_message=message,
            metadata=ResultMetadata(upstream_status=page.status, engine=self.type_name),
            latency_s=elapsed,
            attempts=[Attempt(latency_s=elapsed, upstream_status=page.status, error_type=error_type)],
        )

    def extract(self, html: str, url: str) -> tuple[str, str | None]:
        """Return (Markdown content, title or None) for a page's HTML."""
        raise NotImplementedError

    def _get(self, url: str, timeout: float) -> _Page:
        try:
            with self._client.stream("GET", url, timeout=timeout) as response:
                chunks, size = [], 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > MAX_BODY_BYTES:
                        raise _FetchError(ErrorType.TOO_LARGE, f"body exceeds {MAX_BODY_BYTES:,} bytes")
                    chunks.append(chunk)
                body = b"".join(chunks)
                encoding = response.charset_encoding or _sniff_charset(body) or "utf-8"
                try:
                    html = body.decode(encoding, errors="replace")
                except LookupError:
                    html = body.decode("utf-8", errors="replace")
                return _Page(response.status_code, str(response.url), html)
        except httpx.TimeoutException as exc:
            raise _FetchError(ErrorType.TIMEOUT, f"no complete answer within {timeout:g} s ({type(exc).__name__})") from None
        except httpx.ConnectError as exc:
            raise _FetchError(ErrorType.CONNECT, f"cannot connect to {url}: {exc}") from None
        except httpx.HTTPError as exc:
            raise _FetchError(ErrorType.CONNECT, f"HTTP error fetching {url}: {exc}") from None

    def close(self) -> None:
        self._client.close()


class _FetchError(Exception):
    def __init__(self, error_type: ErrorType, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def _sniff_charset(body: bytes) -> str | None:
    head = body[:4096].decode("ascii", errors="replace").lower()
    for marker in ('charset="', "charset='", "charset="):
        index = head.find(marker)
        if index >= 0:
            value = head[index + len(marker) :].split('"')[0].split("'")[0].split(";")[0].split(">")[0].strip()
            if value:
                return value
    return None


def _parse(html: str) -> lxml.html.HtmlElement | None:
    try:
        return lxml.html.document_fromstring(html)
    except Exception:  # lxml raises on empty or pathological documents
        return None


def to_markdown(html: str) -> str:
    """Convert an HTML fragment or page to ATX-heading Markdown with markdownify."""
    return markdownify.markdownify(html, heading_style="ATX").strip()


class HttpMarkdownify(HttpExtractor):
    """Whole page → Markdown: no main-content detection at all (a baseline)."""

    type_name = "http-markdownify"

    def extract(self, html: str, url: str) -> tuple[str, str | None]:
        root = _parse(html)
        if root is None:
            return "", None
        title = root.findtext(".//title")
        for element in root.xpath("|".join(f"//{tag}" for tag in _DROP_TAGS)):
            element.drop_tree()
        return to_markdown(lxml.html.tostring(root, encoding="unicode")), title


class Trafilatura(HttpExtractor):
    """trafilatura's extraction to Markdown, comments and links included (its natural output)."""

    type_name = "trafilatura"

    def extract(self, html: str, url: str) -> tuple[str, str | None]:
        import trafilatura

        content = trafilatura.extract(
            html, url=url, output_format="markdown", include_comments=True, include_links=True, include_tables=True
        )
        return content or "", None


class Readability(HttpExtractor):
    """readability-lxml's article with its title as a heading, converted with markdownify."""

    type_name = "readability"

    def extract(self, html: str, url: str) -> tuple[str, str | None]:
        from readability import Document

        if not html.strip():
            return "", None
        try:
            document = Document(html, url=url)
            title = document.short_title()
            summary = document.summary(html_partial=True)
        except Exception as exc:  # readability raises its own Unparseable on odd pages
            raise RuntimeError(f"readability could not parse the page: {exc}") from exc
        body = to_markdown(summary)
        return (f"# {title}\n\n{body}" if title else body), title


class ReferenceEcho(Provider):
    """Control: answers with the case's own title and reference body, without any network call."""

    type_name = "reference-echo"
    output_contract = "control"
    needs_network = False

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        start = time.perf_counter()
        # Plain text, so reference lines that look like Markdown syntax stay literal text.
        lines = [case.title] if case.title else []
        if case.reference_text:
            lines.append(case.reference_text)
        lines += [phrase for group in case.stable_groups for phrase in group.phrases]
        elapsed = time.perf_counter() - start
        return ProviderResult(
            success=True,
            content="\n".join(lines),
            content_format="text",
            final_url=case.url,
            title=case.title,
            metadata=ResultMetadata(engine="reference-echo"),
            latency_s=elapsed,
            attempts=[Attempt(latency_s=elapsed)],
        )
