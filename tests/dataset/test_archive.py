"""Web-archive captures (SPEC §7, issue 28): what a WARC capture holds, read back as written, bound by
digests, byte-identical wherever it is written; and the case's retrieval fields (SPEC §2)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from datetime import date

import pytest
from pydantic import ValidationError
from warcio.archiveiterator import ArchiveIterator

from lexbench.dataset.archive import (
    ARCHIVE_ORIGIN, DELAY_HEADER, ArchiveError, ArchiveRecord, read_archive, write_archive,
)
from lexbench.dataset.case import Capture, CaseRule, Retrieval

HTML = ArchiveRecord("", 200, (("Content-Type", "text/html; charset=utf-8"),), b"<html><script src=app.js></script>")
SCRIPT = ArchiveRecord("app.js", 200, (("Content-Type", "text/javascript"),), b"fetch('api/a.json')", delay_ms=250)
DATA = ArchiveRecord("api/a.json?page=1", 200, (("Content-Type", "application/json"),), b'{"a": 1}')
MOVED = ArchiveRecord("old", 301, (("Location", "/new/"),), b"")
DAY = date(2026, 12, 3)


def test_an_archive_reads_back_every_record_with_status_headers_body_and_delay():
    archive = read_archive(write_archive([SCRIPT, HTML, DATA, MOVED], recorded=DAY,
                                         unreachable=["https://cdn.example/x.js"]), source="a.warc.gz")
    assert archive.records == {r.path: r for r in (HTML, SCRIPT, DATA, MOVED)}
    assert archive.page == HTML and archive.page.content_type == "text/html; charset=utf-8"
    assert archive.records["app.js"].delay_ms == 250
    assert archive.unreachable == ("https://cdn.example/x.js",)


def test_the_bytes_are_the_same_whatever_the_order_and_carry_no_clock():
    one = write_archive([HTML, SCRIPT, DATA], recorded=DAY)
    two = write_archive([DATA, SCRIPT, HTML], recorded=DAY)
    assert one == two
    assert write_archive([HTML], recorded=date(2026, 12, 4)) != write_archive([HTML], recorded=DAY)
    # gzip members without a timestamp: bytes 4..8 of each member's header are the mtime
    assert one[4:8] == b"\0\0\0\0"


def test_the_warc_is_iso_28500_as_warcio_reads_it():
    records = list(ArchiveIterator(io.BytesIO(write_archive([HTML, SCRIPT], recorded=DAY,
                                                            unreachable=["https://x.example/"]))))
    assert [r.rec_type for r in records] == ["response", "response", "metadata"]
    first = records[0].rec_headers
    assert first.get_header("WARC-Target-URI") == ARCHIVE_ORIGIN
    assert first.get_header("WARC-Date") == "2026-12-03T00:00:00Z"
    assert first.get_header("WARC-Record-ID").startswith("<urn:uuid:")
    assert records[1].rec_headers.get_header(DELAY_HEADER) == "250"


def test_a_changed_record_is_refused_naming_the_archive_and_the_record():
    data = gzip.decompress(write_archive([HTML, SCRIPT], recorded=DAY))
    tampered = data.replace(b"fetch('api/a.json')", b"fetch('api/b.json')")  # a plain WARC reads too
    with pytest.raises(ArchiveError, match=r"t\.warc: record 'app\.js' does not match its WARC-Payload-Digest"):
        read_archive(tampered, source="t.warc")


def test_an_archive_without_the_page_or_not_a_warc_is_refused():
    with pytest.raises(ArchiveError, match="no record of the page itself"):
        read_archive(_only(SCRIPT), source="s")
    with pytest.raises(ArchiveError, match="s: not a readable WARC"):
        read_archive(b"<html>not an archive</html>", source="s")
    with pytest.raises(ValueError, match="no record of the page"):
        write_archive([SCRIPT], recorded=DAY)


def _only(record: ArchiveRecord) -> bytes:
    # An archive whose only record is not the page: written by hand, as write_archive refuses it.
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from lexbench.dataset.archive import payload_digest

    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True)
    writer.write_record(writer.create_warc_record(
        ARCHIVE_ORIGIN + record.path, "response", payload=io.BytesIO(record.body), length=len(record.body),
        http_headers=StatusAndHeaders("200 OK", list(record.headers), protocol="HTTP/1.1"),
        warc_headers_dict={"WARC-Payload-Digest": payload_digest(record.body)}))
    return out.getvalue()


# --- the case's retrieval (SPEC §2) ---------------------------------------------------------------


def test_a_capture_is_an_archive_by_its_suffix_and_types_its_own_records():
    assert Capture(path="captures/a.warc.gz", sha256="0" * 64).is_archive
    assert not Capture(path="captures/a.html", sha256="0" * 64).is_archive
    with pytest.raises(ValidationError, match="each record carries its own content type"):
        Capture(path="captures/a.warc.gz", sha256="0" * 64, content_type="text/html; charset=latin-1")


def test_retrieval_takes_exactly_the_authoring_fields():
    retrieval = Retrieval.model_validate({"mode": "dynamic", "needs_javascript": True, "dom_completion": {
        "selector": "article p", "count": 3, "frame": "iframe#body", "delay_ms": 500, "timeout_ms": 8000}})
    assert retrieval.dom_completion is not None and retrieval.dom_completion.frame == "iframe#body"
    for wrong, message in (({"count": 0}, "greater than or equal to 1"), ({"timeout_ms": 0}, "greater than 0"),
                           ({"delay_ms": -1}, "greater than or equal to 0"), ({"selector": "p[["}, "does not parse"),
                           ({"frame": "iframe["}, "does not parse"), ({"wait": "load"}, "Extra inputs")):
        completion = {"selector": "p", "count": 1, "frame": None, "delay_ms": 0, "timeout_ms": 1000, **wrong}
        with pytest.raises(ValidationError, match=message):
            Retrieval.model_validate({"mode": "dynamic", "needs_javascript": False, "dom_completion": completion})
    with pytest.raises(ValidationError, match="a static case needs no JavaScript"):
        Retrieval.model_validate({"mode": "static", "needs_javascript": True, "dom_completion": None})
    with pytest.raises(ValidationError, match="Field required"):
        Retrieval.model_validate({"mode": "dynamic", "needs_javascript": True})  # dom_completion is explicit


def test_a_case_without_retrieval_keeps_its_exact_json(tmp_path):
    from tests.suite_factory import ARTICLES, write_suite

    root = write_suite(tmp_path / "s", ARTICLES[:1])
    rule = json.loads((root / "rules.json").read_text())["cases"][0]
    parsed = CaseRule.model_validate(rule)
    assert parsed.retrieval is None and parsed.dom_completion is None and not parsed.needs_javascript
    assert "retrieval" not in json.loads(parsed.model_dump_json())
    dynamic = CaseRule.model_validate({**rule, "retrieval": {"mode": "dynamic", "needs_javascript": True,
                                                             "dom_completion": None}})
    assert json.loads(dynamic.model_dump_json())["retrieval"] == {"mode": "dynamic", "needs_javascript": True,
                                                                  "dom_completion": None}
    assert dynamic.needs_javascript and hashlib.sha256(dynamic.model_dump_json().encode()).hexdigest()
