"""A search for leaked secrets that shares nothing with the redactor (issue 19): it does not ask which
forms the redactor masks, it decodes whatever encoded text it finds and looks inside.

Every text is searched as it is and, two levels deep, after undoing each encoding it can find in it:
percent escapes (either case), HTML entities (named, decimal, hex), JSON ``\\uXXXX`` and ``\\/`` escapes
(whole-text unescapes), and every base64 run (both alphabets, from each of its four character offsets,
so a secret at any byte offset of the encoded data is seen; line breaks skipped, as a decoder does) and
hex run (both offsets). A secret counts as found in any letter case.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote_to_bytes

_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{6,}={0,2}")
_HEX_RUN = re.compile(rb"(?:[0-9a-fA-F]{2}){3,}[0-9a-fA-F]?")
_LINE_BREAK = re.compile(rb"\r|\n|\\r|\\n")
_JSON_UNICODE = re.compile(rb"\\u([0-9a-fA-F]{4})")
LEVELS = 2


def decodings(data: bytes, levels: int = LEVELS) -> Iterator[bytes]:
    """``data`` and everything it decodes to, ``levels`` encodings deep (duplicates possible)."""
    yield data
    if levels == 0:
        return
    unescaped = {
        unquote_to_bytes(data),
        html.unescape(data.decode("latin-1")).encode("utf-8", "surrogateescape"),
        _JSON_UNICODE.sub(lambda m: chr(int(m.group(1), 16)).encode("utf-8", "surrogatepass"), data).replace(b"\\/", b"/"),
    }
    for variant in unescaped - {data}:
        yield from decodings(variant, levels - 1)
    # A base64 decoder skips line breaks (RFC 2045 wraps at 76 characters, PEM at 64), so runs are
    # also sought with every break, raw or JSON-escaped, removed.
    for run in set(_BASE64_RUN.findall(data)) | set(_BASE64_RUN.findall(_LINE_BREAK.sub(b"", data))):
        stripped = run.rstrip(b"=")
        for offset in range(4):
            part = stripped[offset:]
            part = part[: len(part) // 4 * 4 + (len(part) % 4 if len(part) % 4 > 1 else 0)]
            padded = part + b"=" * (-len(part) % 4)
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    yield from decodings(decode(padded), levels - 1)
                except (binascii.Error, ValueError):
                    pass
    for run in _HEX_RUN.findall(data):
        for offset in (0, 1):
            part = run[offset:]
            yield from decodings(bytes.fromhex(part[: len(part) // 2 * 2].decode()), levels - 1)


def leaks(haystacks: dict[str, bytes], secrets: dict[str, str]) -> list[tuple[str, str]]:
    """(where, secret name) for every haystack in which a secret is found, in any encoding or case."""
    needles = {name: value.lower().encode("utf-8") for name, value in secrets.items()}
    found = set()
    for where, data in haystacks.items():
        for decoded in decodings(data):
            lowered = decoded.lower()
            found |= {(where, name) for name, needle in needles.items() if needle in lowered}
    return sorted(found)


def written_files(root: Path, skip: Iterable[str] = ()) -> dict[str, bytes]:
    """Every file under ``root`` (but those named in ``skip``), by relative path, as bytes."""
    skipped = set(skip)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name not in skipped}
