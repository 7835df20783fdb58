"""Page charsets: only text encodings a browser knows (WHATWG Encoding Standard), decoded in linear time.

A page names its own charset, and Python's codec registry holds far more than text encodings:
``punycode`` and ``idna`` decode super-linearly (320 KB of punycode took 6.4 s), ``undefined`` raises
on every input, ``unicode_escape`` interprets backslashes. A label is accepted only when the WHATWG
Encoding Standard defines it (looked up with ``webencodings``, which maps every label to the Python
codec browsers' decoders match); any other label is decoded as UTF-8, the standard's default, and the
caller records the fallback. The standard's ``replacement`` encoding (labels of ISO-2022-KR, HZ and
ISO-2022-CN, refused for security) is not decoded either: it falls back the same way.
"""

from __future__ import annotations

import codecs

import webencodings

DEFAULT_CHARSET = "utf-8"


def text_codec(label: str | None) -> codecs.CodecInfo | None:
    """The Python codec for a WHATWG charset ``label`` (case and surrounding ASCII whitespace
    ignored, ``"latin1"`` → windows-1252 as browsers do); ``None`` for any other label."""
    if not label:
        return None
    encoding = webencodings.lookup(label)
    if encoding is None or encoding.name == "replacement":
        return None
    return encoding.codec_info


def decode_page(body: bytes, label: str | None) -> tuple[str, bool]:
    """``body`` decoded with the charset ``label`` (undecodable bytes become U+FFFD, as in browsers),
    and whether the label was honoured: ``False`` when it is absent or not a WHATWG text encoding and
    UTF-8 was used instead. Linear in ``len(body)``; never raises."""
    codec = text_codec(label)
    if codec is None:
        return body.decode(DEFAULT_CHARSET, errors="replace"), False
    return codec.decode(body, "replace")[0], True
