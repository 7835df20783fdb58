"""Shared pieces of the corpus importers: the index, gzip and JSON reading, charsets, case ids (SPEC §2, §4).

Every corpus folder has ``_index.tsv`` (one row per page; see ``../shared/corpus/README.md``). A format
module turns each row into a :class:`Page`; the driver in :mod:`lexbench.dataset.importers` turns pages
into case rules and evidence files. Problems with one page raise :class:`PageError` (skippable with
``keep_going``); a deliberate skip (e.g. a list page) raises :class:`SkipPage`; problems with the
whole folder raise :class:`~lexbench.errors.CorpusImportError`.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from lexbench.charsets import text_codec
from lexbench.dataset.segment import split_paragraphs
from lexbench.errors import CorpusImportError
from lexbench.jsonfile import read_regular_file
from lexbench.providers.call import FetchError
from lexbench.providers.http import BoundedDecoder

MAX_CORPUS_FILE_BYTES = 256_000_000
"""Largest corpus file read, stored or decompressed (the largest in the shared corpus is under 2 MB):
a larger one, a special file (FIFO, device, socket) or a gzip bomb is refused naming it."""
INDEX_NAME = "_index.tsv"
INDEX_COLUMNS = ("case_id", "html_file", "url", "lang", "lang_guess", "html_title", "coverage", "kind")
"""Columns the importers need; the index may have more (see the corpus README)."""

COVERAGE_FLAG_BELOW = 0.8
"""Below this share of reference tokens in the static visible text, the reference is flagged."""

TASK_PROMPT = "Fetch the page at its URL and return its readable content."


class PageError(CorpusImportError):
    """One page cannot be imported; ``keep_going`` skips it and records the message."""


class SkipPage(Exception):
    """A page that is deliberately not imported (e.g. a list page); the message is the reason."""


@dataclass(frozen=True)
class IndexRow:
    """One row of ``_index.tsv``: ``line`` is its line number in the file (header = 1)."""

    line: int
    key: str
    html_file: str
    url: str
    lang: str
    lang_guess: str
    html_title: str
    coverage: str
    kind: str
    extra: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass
class Page:
    """What a format module extracts from one index row.

    ``reference`` is the reference body as paragraph lines (empty for post collections);
    ``capture`` the decompressed page bytes; ``key_tag`` the short corpus-key part of the slug;
    ``flags`` importer notes for the case; ``extra`` format-specific data for the format's own
    ``build_rule`` (e.g. the annotated posts of a forum thread).
    """

    row: IndexRow
    url: str
    capture: bytes
    capture_file: Path
    reference: list[str]
    reference_file: Path
    key_tag: str
    flags: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


class CorpusFormat(Protocol):
    """A corpus folder layout the importer understands (one small module per format)."""

    name: str
    suite_id: str
    suite_name: str
    description: str
    notes: list[str]

    def open(self, source: Path) -> Callable[[IndexRow], Page]:
        """Read the folder's shared files once; return a function that loads one page."""
        ...

    def rows(self, source: Path) -> list[IndexRow]:
        """The index rows this format imports, in index order."""
        ...


def read_index(source: Path, *, keep: Callable[[IndexRow], bool] = lambda row: True) -> list[IndexRow]:
    """Read ``source/_index.tsv`` (UTF-8, tab-separated, header row) into rows kept by ``keep``.

    Raises :class:`CorpusImportError` naming the file when it is missing, not UTF-8, or lacks a column.
    """
    path = source / INDEX_NAME
    if not source.is_dir():
        raise CorpusImportError(f"{source}: corpus folder not found")
    try:
        text = read_corpus_file(path).decode("utf-8")
    except FileNotFoundError:
        raise CorpusImportError(f"{path}: missing; every corpus folder needs {INDEX_NAME}") from None
    except OSError as exc:
        raise CorpusImportError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CorpusImportError(f"{path}: not valid UTF-8 ({exc})") from None
    reader = csv.DictReader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE)
    missing = [col for col in INDEX_COLUMNS if col not in (reader.fieldnames or [])]
    if missing:
        raise CorpusImportError(f"{path}: missing column(s) {', '.join(missing)} in the header")
    rows = []
    for number, raw in enumerate(reader, start=2):
        values = {k: (v or "").strip() for k, v in raw.items() if k is not None}
        row = IndexRow(
            line=number,
            key=values["case_id"],
            html_file=values["html_file"],
            url=values["url"],
            lang=values["lang"],
            lang_guess=values["lang_guess"],
            html_title=values["html_title"],
            coverage=values["coverage"],
            kind=values["kind"],
            extra={k: v for k, v in values.items() if k not in INDEX_COLUMNS},
        )
        if not row.key:
            raise CorpusImportError(f"{path}: line {number} has an empty case_id")
        if keep(row):
            rows.append(row)
    return rows


def corpus_file(source: Path, relative: str, *, what: str) -> Path:
    """Resolve a path named by the corpus inside ``source``; raises :class:`PageError` if it escapes."""
    if not relative or relative.startswith("/") or ".." in relative.split("/"):
        raise PageError(f"{source / INDEX_NAME}: {what} path {relative!r} must be relative to the corpus folder")
    return source / relative


def read_corpus_file(path: Path, *, within: Path | None = None) -> bytes:
    """The bytes of a corpus file through the bounded, kind-checked reader
    (:func:`~lexbench.jsonfile.read_regular_file`, at most :data:`MAX_CORPUS_FILE_BYTES`, inside
    ``within`` when given). Raises ``FileNotFoundError``, or ``OSError`` with a one-line reason."""
    return read_regular_file(path, MAX_CORPUS_FILE_BYTES, within=within)


def read_gzip(path: Path, *, within: Path | None = None) -> bytes:
    """The decompressed bytes of a ``.gz`` corpus file, inflated in bounded steps (at most
    :data:`MAX_CORPUS_FILE_BYTES`); raises :class:`PageError` naming it."""
    try:
        data = read_corpus_file(path, within=within)
    except FileNotFoundError:
        raise PageError(f"{path}: file not found (named by the corpus index)") from None
    except OSError as exc:
        raise PageError(f"{path}: {exc.strerror or exc}") from None
    try:
        decoder = BoundedDecoder("gzip", MAX_CORPUS_FILE_BYTES)
        decoder.feed(data)
        return decoder.finish()
    except FetchError as exc:
        raise PageError(f"{path}: broken gzip data ({exc})") from None


def read_json_file(path: Path) -> tuple[Any, set[str]]:
    """Parse a UTF-8 JSON file; returns the value and the object keys that occur twice anywhere.

    Duplicate keys are returned instead of raised so that only the pages using them fail.
    Raises :class:`CorpusImportError` naming the file when it is missing or not valid JSON.
    """
    duplicates: set[str] = set()

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result:
                duplicates.add(key)
            result[key] = value
        return result

    if path.suffix == ".gz":
        data = read_gzip(path)
    else:
        try:
            data = read_corpus_file(path)
        except FileNotFoundError:
            raise CorpusImportError(f"{path}: file not found") from None
        except OSError as exc:
            raise CorpusImportError(f"{path}: {exc.strerror or exc}") from None
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=pairs), duplicates
    except UnicodeDecodeError as exc:
        raise CorpusImportError(f"{path}: not valid UTF-8 ({exc})") from None
    except json.JSONDecodeError as exc:
        raise CorpusImportError(f"{path}: not valid JSON ({exc})") from None


def reference_lines(text: object, *, where: str) -> list[str]:
    """Check a reference body is valid, non-empty text and split it into paragraph lines.

    ``where`` names the file (and key) for messages. Raises :class:`PageError`.
    """
    if not isinstance(text, str):
        raise PageError(f"{where}: the reference is {type(text).__name__}, not text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PageError(f"{where}: the reference is not valid text ({exc.reason} at {exc.start})") from None
    if "\x00" in text:
        raise PageError(f"{where}: the reference contains NUL characters; it is not valid text")
    lines = split_paragraphs(text)
    if not lines:
        raise PageError(f"{where}: the reference body is empty")
    return lines


# --- charset -------------------------------------------------------------------------------------

_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16le"), (codecs.BOM_UTF16_BE, "utf-16be"))


@dataclass(frozen=True)
class Charset:
    """A capture's charset: what the page declares, what its bytes are served as, and any flag."""

    declared: str | None
    served: str
    flag: str | None = None


def detect_charset(data: bytes) -> Charset:
    """Find the charset of page bytes: BOM first, then the first ``<meta charset>``/``http-equiv``.

    ``served`` is the declared name lowercased (``utf-8`` when nothing is declared). When the bytes do
    not decode as declared but are valid UTF-8 (pages re-saved as UTF-8 with a stale meta tag),
    ``served`` is ``utf-8`` and ``flag`` is ``capture_charset_mismatch``, so a replay does not turn the
    page into mojibake. Bytes that decode under neither get ``capture_not_decodable``. A name that is
    not a WHATWG text encoding (``punycode``, ``undefined``, a typo; lexbench.charsets) is served as
    ``utf-8``, the standard's fallback, with ``capture_charset_unknown``. Labels are decoded as browsers
    do (``latin1`` as windows-1252). The bytes themselves are never changed.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return Charset(declared=name, served=name)
    match = _META_CHARSET.search(data)
    declared = match.group(1).decode("ascii").lower() if match else None
    name = declared or "utf-8"
    codec = text_codec(name)
    if codec is None:  # not a WHATWG text encoding (punycode, undefined, a typo): pages read as UTF-8
        return Charset(declared=declared, served="utf-8", flag="capture_charset_unknown")
    if codec.name == "gbk":
        codec = codecs.lookup("gb18030")  # browsers decode GBK with the GB18030 decoder
    if _decodes(data, codec):
        return Charset(declared=declared, served=name)
    if codec.name != "utf-8" and _decodes(data, codecs.lookup("utf-8")):
        return Charset(declared=declared, served="utf-8", flag="capture_charset_mismatch")
    return Charset(declared=declared, served=name, flag="capture_not_decodable")


def _decodes(data: bytes, codec: codecs.CodecInfo) -> bool:
    try:
        codec.decode(data, "strict")
    except UnicodeError:
        return False
    return True


# --- ids, languages, names -----------------------------------------------------------------------

_LANG_CODE = re.compile(r"^[a-z]{2,3}$")


def case_lang(row: IndexRow) -> str:
    """The case's language code: 2–3 lowercase letters, else ``und``.

    ``lang_guess`` (from the reference text) wins when it is a language code, because the page's
    ``<html lang>`` is often a template default (German and Chinese pages declaring ``en``);
    otherwise the primary subtag of ``lang``; otherwise ``und``.
    """
    guess = row.lang_guess.lower()
    if _LANG_CODE.match(guess):
        return guess
    primary = row.lang.split("-")[0].split("_")[0].lower()
    if _LANG_CODE.match(primary):
        return primary
    return "und"


def domain_slug(url: str, max_chars: int = 30) -> str:
    """``https://www.Example.co.uk/x`` → ``example-co-uk``: lowercase host, no ``www.``, a-z0-9 and hyphens.

    Cut at a hyphen to at most ``max_chars`` characters; ``""`` when the URL has no usable host.
    """
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        host = ""
    host = re.sub(r"^www\d*\.", "", host)
    if host == "invalid" or host.endswith(".invalid"):  # a stand-in URL names no real site
        return ""
    slug = re.sub(r"[^a-z0-9]+", "-", host).strip("-")
    return _cut(slug, max_chars)


def key_slug(key: str, max_chars: int) -> str:
    """A corpus key reduced to a-z0-9 and hyphens, at most ``max_chars`` characters."""
    return _cut(re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-"), max_chars)


def _cut(slug: str, max_chars: int) -> str:
    if len(slug) <= max_chars:
        return slug
    cut = slug[:max_chars]
    if "-" in cut[max_chars // 2 :]:
        cut = cut[: cut.rindex("-")]
    return cut.strip("-")


def case_id(position: int, lang: str, url: str, key_tag: str, *, category: str = "article") -> str:
    """``<category>-<NNN>-<lang>-<slug>`` (SPEC §2): NNN = 1-based index position, zero-padded to 3.

    The slug is the domain slug plus ``key_tag`` (a short piece of the corpus key, for uniqueness).
    Raises ``ValueError`` for a position outside 1..999.
    """
    if not 1 <= position <= 999:
        raise ValueError(f"index position {position} does not fit the three-digit case number")
    parts = [p for p in (domain_slug(url), key_tag) if p]
    return f"{category}-{position:03d}-{lang}-{'-'.join(parts) or 'page'}"


def case_name(row: IndexRow, fallback: str, max_chars: int = 160) -> str:
    """A label for the case: the index's ``html_title`` with whitespace collapsed, else ``fallback``."""
    name = " ".join(row.html_title.split())
    if len(name) > max_chars:
        name = name[: max_chars - 1].rstrip() + "…"
    return name or fallback


def coverage_flags(row: IndexRow) -> list[str]:
    """``reference_not_in_visible_text`` when the index's coverage is below 0.8; ``coverage_unknown`` if unparsable."""
    try:
        coverage = float(row.coverage)
    except ValueError:
        return ["coverage_unknown"]
    return ["reference_not_in_visible_text"] if coverage < COVERAGE_FLAG_BELOW else []


def require_article(row: IndexRow) -> None:
    """Raise :class:`SkipPage` for an index row whose ``kind`` is not ``article`` (list or front pages)."""
    if row.kind and row.kind != "article":
        raise SkipPage(f"index kind {row.kind!r}: not a single article, so there is no complete body reference")


def iter_unique(rows: list[IndexRow], index_path: Path) -> Iterator[tuple[int, IndexRow, str | None]]:
    """Yield ``(position, row, duplicate_problem)``; the problem names the earlier line with the same key or file."""
    seen_keys: dict[str, int] = {}
    seen_files: dict[str, int] = {}
    for position, row in enumerate(rows, start=1):
        problem = None
        if row.key in seen_keys:
            problem = f"{index_path}: line {row.line}: key {row.key!r} duplicates line {seen_keys[row.key]}"
        elif row.html_file in seen_files:
            problem = (
                f"{index_path}: line {row.line}: html_file {row.html_file!r} is already used by line "
                f"{seen_files[row.html_file]}"
            )
        seen_keys.setdefault(row.key, row.line)
        seen_files.setdefault(row.html_file, row.line)
        yield position, row, problem
