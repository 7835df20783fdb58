"""Web-archive captures: every resource a page's first load requested, as one WARC file (SPEC §7).

A capture whose path ends ``.warc`` or ``.warc.gz`` is a WARC (ISO 28500) read and written with
`warcio <https://github.com/webrecorder/warcio>`_. Its records are addressed *relative to the page*, so
the same archive replays under any prefix (the loopback replay server, ``lexbench serve-replay`` behind
``--replay-public-url``):

- one ``response`` record per distinct URL of the page's origin that the first load requested;
  ``WARC-Target-URI`` is :data:`ARCHIVE_ORIGIN` + the path relative to the page (``""`` is the page
  itself, ``"app.js"``, ``"api/posts.json?page=1"``); its HTTP block holds the recorded status line,
  headers (``Content-Type``, and ``Location`` for a redirect) and body (identity encoding);
  ``WARC-Payload-Digest`` is ``sha256:<base32>`` of that body;
- optionally ``Lexbench-Delay-Ms`` (a WARC extension header of ours, non-negative integer milliseconds):
  the recorded delay before the answer, which the replay server reproduces;
- at most one ``metadata`` record (``WARC-Target-URI`` :data:`UNREACHABLE_URI`, ``application/json``)
  ``{"unreachable": [absolute URL, ...]}``: requests to another origin, listed but never fetched.

:func:`write_archive` is deterministic: records sorted by path (the page first), ``WARC-Date`` the review
date, each ``WARC-Record-ID`` a UUID derived from the record's URI and payload digest, gzip members with no
mtime (zlib's) — the same records give the same bytes, hence the same sha256, on every machine.
:func:`read_archive` checks every record's payload digest and raises :class:`ArchiveError` naming the
archive and the record.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from lexbench.errors import EvidenceError

ARCHIVE_ORIGIN = "http://page.lexbench.invalid/"
"""The origin every record's ``WARC-Target-URI`` is written under: only the path after it counts, the
page's location relative to the replay prefix (``.invalid`` never resolves, RFC 6761)."""
UNREACHABLE_URI = "urn:lexbench:unreachable"
"""The ``WARC-Target-URI`` of the metadata record listing requests to other origins."""
DELAY_HEADER = "Lexbench-Delay-Ms"
"""WARC extension header: the recorded delay of a response record, in milliseconds."""
KEPT_HEADERS = ("Content-Type", "Location")
"""The HTTP headers a recording keeps: the ones that change what a client does with the answer. Dates,
servers and lengths differ from machine to machine and would break the archive's sha256."""
_UUID_NAMESPACE = uuid.UUID("6f1c8a52-6d0b-4c64-9d1e-1f5f0a2c8e11")


class ArchiveError(EvidenceError):
    """A web-archive capture cannot be read, or a record does not match its digest."""


@dataclass(frozen=True)
class ArchiveRecord:
    """One recorded answer. ``path``: relative to the page (``""`` = the page), query included;
    ``status``: HTTP status; ``headers``: the recorded ``(name, value)`` pairs; ``body``: the payload
    bytes; ``delay_ms``: the recorded delay before answering (0 = none)."""

    path: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes = field(repr=False)
    delay_ms: int = 0

    @property
    def content_type(self) -> str:
        """The recorded ``Content-Type`` (``application/octet-stream`` when none was recorded)."""
        return next((v for k, v in self.headers if k.lower() == "content-type"), "application/octet-stream")


@dataclass(frozen=True)
class Archive:
    """A read archive: ``records`` by relative path, and the other-origin URLs the load asked for
    (``unreachable``, sorted, never fetched)."""

    records: Mapping[str, ArchiveRecord]
    unreachable: tuple[str, ...] = ()

    @property
    def page(self) -> ArchiveRecord:
        """The page's own record (path ``""``)."""
        return self.records[""]


def payload_digest(body: bytes) -> str:
    """``sha256:<base32>`` of ``body``: the form of ``WARC-Payload-Digest`` this archive writes."""
    return "sha256:" + base64.b32encode(hashlib.sha256(body).digest()).decode("ascii")


def _check_digest(declared: str | None, body: bytes) -> bool:
    if not declared or ":" not in declared:
        return False
    algorithm, _, value = declared.partition(":")
    try:
        digest = hashlib.new(algorithm.lower(), body).digest()
    except ValueError:
        return False
    return value.upper() in (base64.b32encode(digest).decode("ascii"), digest.hex().upper())


def read_archive(data: bytes, *, source: str) -> Archive:
    """Read a WARC capture's bytes (gzip or plain) into an :class:`Archive`.

    ``source`` names the file in errors. Raises :class:`ArchiveError` when the bytes are not a WARC,
    a response record lies outside :data:`ARCHIVE_ORIGIN`, has no or a wrong ``WARC-Payload-Digest``, a
    bad delay, two records share a path, or the page's own record (path ``""``) is missing.
    """
    records: dict[str, ArchiveRecord] = {}
    unreachable: list[str] = []
    try:
        for record in ArchiveIterator(io.BytesIO(data), arc2warc=False):
            uri = record.rec_headers.get_header("WARC-Target-URI") or ""
            body = record.content_stream().read()
            if record.rec_type == "metadata" and uri == UNREACHABLE_URI:
                unreachable += _unreachable(body, source)
                continue
            if record.rec_type != "response":
                continue
            if not uri.startswith(ARCHIVE_ORIGIN):
                raise ArchiveError(f"{source}: record {uri!r} is not under {ARCHIVE_ORIGIN}: resources are "
                                   "addressed relative to the page")
            path = uri[len(ARCHIVE_ORIGIN):]
            declared = record.rec_headers.get_header("WARC-Payload-Digest")
            if not _check_digest(declared, body):
                raise ArchiveError(f"{source}: record {path or '(the page)'!r} does not match its WARC-Payload-Digest "
                                   f"{declared!r}: the archive was changed after recording")
            if path in records:
                raise ArchiveError(f"{source}: two records for {path or '(the page)'!r}")
            http = record.http_headers
            records[path] = ArchiveRecord(path=path, status=int(http.get_statuscode()),
                                          headers=tuple((k, v) for k, v in http.headers if k in KEPT_HEADERS),
                                          body=body, delay_ms=_delay(record.rec_headers.get_header(DELAY_HEADER),
                                                                     source, path))
    except (ArchiveLoadFailed, ValueError, EOFError, OSError) as exc:
        raise ArchiveError(f"{source}: not a readable WARC archive ({exc})") from None
    if "" not in records:
        raise ArchiveError(f"{source}: no record of the page itself ({ARCHIVE_ORIGIN})")
    return Archive(records=records, unreachable=tuple(sorted(set(unreachable))))


def _delay(value: str | None, source: str, path: str) -> int:
    if value is None:
        return 0
    if not value.isdigit():
        raise ArchiveError(f"{source}: record {path!r}: {DELAY_HEADER} {value!r} is not a whole number of milliseconds")
    return int(value)


def _unreachable(body: bytes, source: str) -> list[str]:
    try:
        urls = json.loads(body)["unreachable"]
    except (ValueError, KeyError, TypeError):
        raise ArchiveError(f"{source}: the unreachable-requests record is not {{\"unreachable\": [...]}}") from None
    if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        raise ArchiveError(f"{source}: the unreachable-requests record must list URLs as strings")
    return urls


def write_archive(records: Iterable[ArchiveRecord], *, recorded: date, unreachable: Iterable[str] = ()) -> bytes:
    """The deterministic gzip WARC of ``records`` (see the module docstring); ``recorded`` is the
    ``WARC-Date`` of every record (midnight UTC). Raises ``ValueError`` for two records of one path or
    no record of the page (path ``""``)."""
    ordered = sorted(records, key=lambda r: r.path)
    paths = [r.path for r in ordered]
    if len(paths) != len(set(paths)):
        raise ValueError("two records share a path")
    if "" not in paths:
        raise ValueError("no record of the page itself (path '')")
    stamp = f"{recorded.isoformat()}T00:00:00Z"
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version="1.1")
    for record in ordered:
        uri = ARCHIVE_ORIGIN + record.path
        digest = payload_digest(record.body)
        reason = _REASONS.get(record.status, "Status")
        http = StatusAndHeaders(f"{record.status} {reason}", list(record.headers), protocol="HTTP/1.1")
        headers = {"WARC-Record-ID": _record_id(uri, digest), "WARC-Date": stamp, "WARC-Payload-Digest": digest}
        if record.delay_ms:
            headers[DELAY_HEADER] = str(record.delay_ms)
        writer.write_record(writer.create_warc_record(uri, "response", payload=io.BytesIO(record.body),
                                                      length=len(record.body), http_headers=http,
                                                      warc_headers_dict=headers))
    listed = sorted(set(unreachable))
    if listed:
        body = json.dumps({"unreachable": listed}, indent=1).encode("utf-8")
        digest = payload_digest(body)
        writer.write_record(writer.create_warc_record(
            UNREACHABLE_URI, "metadata", payload=io.BytesIO(body), length=len(body),
            warc_content_type="application/json",
            warc_headers_dict={"WARC-Record-ID": _record_id(UNREACHABLE_URI, digest), "WARC-Date": stamp}))
    return out.getvalue()


def _record_id(uri: str, digest: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(_UUID_NAMESPACE, uri + ' ' + digest)}>"


_REASONS = {200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently", 302: "Found",
            303: "See Other", 304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
            400: "Bad Request", 403: "Forbidden", 404: "Not Found", 410: "Gone", 500: "Internal Server Error"}
