"""A page's charset cannot stall or crash anything (issue 19, item 5): only WHATWG text encodings are
honoured; any other codec name Python knows (``punycode`` decodes super-linearly, ``undefined`` raises
on every input, ``unicode_escape`` rewrites backslashes) reads as UTF-8, in the providers' decoding
and in the corpus importer, which records the fallback as ``capture_charset_unknown``."""

from __future__ import annotations

import pytest

from lexbench.charsets import decode_page, text_codec
from lexbench.dataset.importers.common import detect_charset
from lexbench.dataset.importers.html_text import visible_text
from lexbench.providers.http import HttpResponse, decode_text

NOT_TEXT = ["punycode", "idna", "undefined", "unicode_escape", "raw_unicode_escape", "utf-7", "rot13", "base64",
            "zlib", "hex", "uu", "bz2", "mbcs", "charmap", "replacement", "iso-2022-kr", "no-such-charset"]
BODY = ("<html><body><p>caf\u00e9 \\u0041 " + "a-b-" * 500 + "</p></body></html>").encode("utf-8")


@pytest.mark.parametrize("label", NOT_TEXT)
def test_a_page_naming_a_codec_that_is_not_a_text_encoding_reads_as_utf8(label: str) -> None:
    expected = BODY.decode("utf-8")
    response = HttpResponse(status=200, headers={"content-type": f"text/html; charset={label}"}, body=BODY, url="https://x.example/")
    assert response.text() == expected
    meta = f'<meta charset="{label}">'.encode() + BODY
    assert decode_text(meta, "text/html") == meta.decode("utf-8")
    assert decode_page(BODY, label) == (expected, False)


def test_punycode_is_not_decoded_at_all_so_a_large_page_costs_linear_time() -> None:
    # 320 KB of punycode took 6.4 s of CPU (x4-6 per doubling); as UTF-8 it is one pass. The assertion
    # is on the result, not on time: a punycode decode would give different text.
    body = b"abc-" + b"9" * 320_000
    assert decode_text(body, "text/html; charset=punycode") == body.decode("ascii")


@pytest.mark.parametrize(("label", "data", "text"), [
    ("latin1", b"\x80 caf\xe9", "\u20ac caf\u00e9"),  # browsers read Latin-1 as windows-1252
    (" Shift_JIS ", "日本".encode("cp932"), "日本"),
    ("gb2312", "长三角".encode("gb18030"), "长三角"),
    ("koi8-r", "привет".encode("koi8-r"), "привет"),
    ("utf-16le", "hé".encode("utf-16-le"), "hé"),
])
def test_web_text_encodings_are_honoured(label: str, data: bytes, text: str) -> None:
    assert text_codec(label) is not None
    assert decode_page(data, label) == (text, True)


def test_a_byte_order_mark_decides_and_is_stripped() -> None:
    assert decode_text(b"\xef\xbb\xbfcaf\xc3\xa9", "text/html; charset=punycode") == "caf\u00e9"
    assert decode_text(b"\xff\xfeh\x00i\x00", None) == "hi"


@pytest.mark.parametrize("label", ["undefined", "punycode", "unicode_escape"])
def test_the_importer_records_an_unknown_charset_and_serves_utf8(label: str) -> None:
    # charset=undefined crashed import-corpus even with --keep-going (UnicodeError from the codec).
    page = f'<html><head><meta charset="{label}"></head><body><p>caf\u00e9</p></body></html>'.encode()
    charset = detect_charset(page)
    assert (charset.declared, charset.served, charset.flag) == (label, "utf-8", "capture_charset_unknown")
    assert "caf\u00e9" in visible_text(page, label)


pytestmark = pytest.mark.attack(item=5)  # counted in the terminal summary's reliability figures
