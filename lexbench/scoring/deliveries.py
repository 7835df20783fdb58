"""The two non-text deliveries' components (SPEC §2): ``file`` and ``resources``.

- ``file``: the answer's bytes (``ProviderResult.file``) pass when their sha256 equals the case's
  :class:`~lexbench.dataset.case.FileContract`; size and media type are reported beside it.
- ``resources``: the answer's URLs (``ProviderResult.resources``) are each resolved against the page URL
  (the answer's ``final_url``, else the case's URL), normalised (:func:`normalise_url`) and, when *owned* —
  on the page's origin and under the page's directory — written relative to the page
  (:func:`page_relative`). The component passes when the share of the contract's URLs found that way
  reaches its recall floor. Relative addressing is what makes replay work: behind the replay server the
  page is ``http://127.0.0.1:PORT/replay/<case>/`` and its resources sit under that prefix, exactly as
  they sit under the case's own URL live.

Pure; raises nothing for a valid case and answer.
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote, unquote, urljoin, urlsplit

from lexbench.answer import ProviderResult
from lexbench.dataset.case import Case
from lexbench.verdict import Component, ComponentResult

MAX_LISTED = 5
"""How many missing contract URLs the evidence line names (every one is in the details)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}
_PATH_SAFE = "/:@!$&'()*+,;=-._~"


def normalise_url(url: str, base: str) -> str | None:
    """``url`` resolved against ``base``, fragment dropped, scheme and host lowercased, the default port
    removed and the path's percent-encoding made canonical (``%7E`` and ``~`` are one URL); ``None`` for
    anything that is not an ``http``/``https`` URL (``mailto:``, ``javascript:``, ``data:``) or does not
    parse."""
    try:
        parts = urlsplit(urljoin(base, url.strip()))
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = quote(unquote(parts.path or "/"), safe=_PATH_SAFE)
    return f"{scheme}://{netloc}{path}" + (f"?{parts.query}" if parts.query else "")


def page_relative(url: str, page_url: str) -> str | None:
    """``url`` written relative to the page at ``page_url`` when it is owned (same scheme, host and port,
    and under the page's directory: everything up to the last ``/`` of its path), else ``None``.
    ``page_relative("https://x.example/lib/papers/a.pdf", "https://x.example/lib/")`` is ``"papers/a.pdf"``;
    the page itself gives ``""``."""
    page = normalise_url(page_url, page_url)
    resolved = normalise_url(url, page_url)
    if page is None or resolved is None:
        return None
    page_dir = page.split("?", 1)[0]
    page_dir = page_dir[: page_dir.rindex("/") + 1]
    return resolved[len(page_dir):] if resolved.startswith(page_dir) else None


def file_component(case: Case, answer: ProviderResult) -> ComponentResult:
    """The ``file`` component: sha256 of ``answer.file`` against ``case.file`` (measured 1/0)."""
    assert case.file is not None
    contract = case.file
    wanted = {"sha256": contract.sha256, "size": contract.size, "media_type": contract.media_type}
    if answer.file is None:
        return ComponentResult(name=Component.FILE, passed=False, measured=0.0, threshold=1.0,
                               evidence=f"file: no bytes answered (expected {contract.size:,} bytes of "
                                        f"{contract.media_type}, sha256 {contract.sha256[:12]}…)",
                               details=[{"expected": wanted, "answered": None}])
    digest = hashlib.sha256(answer.file).hexdigest()
    media = (answer.metadata.content_type or "").split(";", 1)[0].strip().lower() or None
    passed = digest == contract.sha256
    served = f"{len(answer.file):,} bytes" + (f" of {media}" if media else "")
    if passed:
        evidence = f"file sha256 matches ({served})"
        if media not in (None, contract.media_type):
            evidence += f"; served as {media}, reviewed as {contract.media_type} (not scored)"
    else:
        evidence = (f"file sha256 {digest[:12]}… ≠ {contract.sha256[:12]}… ({served}; expected {contract.size:,} "
                    f"bytes of {contract.media_type})")
    return ComponentResult(name=Component.FILE, passed=passed, measured=1.0 if passed else 0.0, threshold=1.0,
                           evidence=evidence,
                           details=[{"expected": wanted,
                                     "answered": {"sha256": digest, "size": len(answer.file), "media_type": media}}])


def resources_component(case: Case, answer: ProviderResult) -> ComponentResult:
    """The ``resources`` component: recall of ``case.resources.urls`` among the answer's owned URLs
    against the floor (measured and threshold as shares 0–1; details list every contract URL)."""
    assert case.resources is not None
    contract = case.resources
    page = answer.final_url or case.url
    answered = answer.resources or []
    owned: set[str] = set()
    not_owned = 0
    for url in answered:
        relative = page_relative(url, page)
        if relative is None:
            not_owned += 1
        else:
            owned.add(relative)
    wanted = {url: page_relative(url, case.url) for url in contract.urls}  # normalised the same way
    found = [url for url, relative in wanted.items() if relative in owned]
    missing = [url for url in contract.urls if url not in found]
    recall = len(found) / len(contract.urls)
    passed = len(found) >= contract.minimum
    relation = "≥" if passed else "<"
    evidence = (f"resources {len(found)}/{len(contract.urls)} owned URLs found ({len(found) * 100 // len(contract.urls)}%) "
                f"{relation} floor {contract.recall_floor:.0%} ({contract.minimum} needed)")
    if missing:
        evidence += "; missing " + ", ".join(repr(u) for u in missing[:MAX_LISTED])
        if len(missing) > MAX_LISTED:
            evidence += f" and {len(missing) - MAX_LISTED} more"
    extra = len(owned - set(wanted.values()))
    evidence += f"; {len(answered)} URLs answered ({extra} other owned, {not_owned} not owned)"
    details: list[dict[str, object]] = [{"answered": len(answered), "owned": len(owned), "not_owned": not_owned,
                                         "found": len(found), "minimum": contract.minimum,
                                         "recall_floor": contract.recall_floor, "page_url": page}]
    details += [{"url": url, "found": url in found} for url in contract.urls]
    return ComponentResult(name=Component.RESOURCES, passed=passed, measured=round(recall, 4),
                           threshold=contract.recall_floor, evidence=evidence, details=details)
