"""Credentials: ``${ENV_VAR}`` placeholders expanded at call time, and redaction (SPEC §5).

A provider configuration never holds a secret, only placeholders such as ``"Bearer ${JINA_API_KEY}"``.
Values are read from the environment when a call is made, never earlier and never stored. Everything
lexbench writes or prints that could carry one — results, saved responses, debug logs, verdict
explanations, exception messages — passes through a :class:`Redactor` built from the same variables,
which masks each value in any letter case and every encoded run that decodes to it (URL escapes, base64
of any wrapping, hex, JSON and HTML escapes) with ``[REDACTED]``. Header values whose names say they
hold a credential are masked whole. Scoring sees the answer unredacted: redaction applies to what is
written, so a secret that happens to be a word of the page never changes a verdict.
"""

from __future__ import annotations

import binascii
import bisect
import html
import os
import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar
from urllib.parse import unquote

from pydantic import BaseModel

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${NAME}``: an environment variable name in braces."""
MASK = "[REDACTED]"
MIN_SECRET_CHARS = 3
"""Shorter values are not treated as secrets: masking every "ab" would destroy content for nothing."""

_SENSITIVE_HEADER = re.compile(r"authorization|cookie|api[-_]?key|token|secret|password|signature", re.IGNORECASE)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def is_sensitive_header(name: str) -> bool:
    """True for header names that carry credentials (Authorization, Cookie, X-API-Key, *-Token, ...)."""
    return bool(_SENSITIVE_HEADER.search(name))


class MissingCredentials(Exception):
    """Raised by :func:`expand` when placeholder variables are unset or empty; ``names`` lists them."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"unset or empty credential variable(s): {', '.join(names)}")
        self.names = names


def placeholder_names(value: Any) -> list[str]:
    """Every ``${NAME}`` in ``value`` (strings inside nested dicts and lists), first-seen order, no repeats."""
    found: list[str] = []
    for text in _strings(value):
        for name in PLACEHOLDER.findall(text):
            if name not in found:
                found.append(name)
    return found


def malformed_placeholders(value: Any) -> list[str]:
    """Strings in ``value`` that contain ``${`` not forming a valid ``${NAME}`` placeholder."""
    return [text for text in _strings(value) if "${" in PLACEHOLDER.sub("", text)]


def has_placeholder(value: Any) -> bool:
    """True when ``value`` is a string that contains at least one placeholder (secrets must be)."""
    return isinstance(value, str) and bool(PLACEHOLDER.search(value))


def missing_variables(names: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """The names among ``names`` whose environment value is unset or empty."""
    env = os.environ if environ is None else environ
    return [name for name in names if not env.get(name)]


def expand(value: T, environ: Mapping[str, str] | None = None) -> T:
    """``value`` with every placeholder replaced by its environment value (nested dicts/lists too).

    Raises :class:`MissingCredentials` naming every unset or empty variable.
    """
    env = os.environ if environ is None else environ
    missing = missing_variables(placeholder_names(value), env)
    if missing:
        raise MissingCredentials(missing)
    return _map_strings(value, lambda text: PLACEHOLDER.sub(lambda m: env[m.group(1)], text))


class Redactor:
    """Masks a fixed set of secret values, in any encoding, in text, bytes and models (SPEC §5).

    A secret is found raw in any letter case, and inside encoded runs: a base64 run (standard or
    URL-safe alphabet, any alignment of the secret inside the decoded bytes, so ``base64("Bearer KEY")``
    and the base64 of a whole request count; a body wrapped into lines is decoded joined), a hex run
    (either case), and a token carrying escapes (``%xx`` in either case, JSON ``\\uXXXX`` and ``\\/``,
    HTML entities named, decimal or hex, numeric ones with or without ``;``). A
    decoded run is searched again, up to :data:`DECODE_DEPTH` levels (base64 of a URL-encoded key).
    The whole encoded run is replaced by ``[REDACTED]`` (in a URL or query string, only the value that
    holds the secret, when no other part of it does).

    Linear in the text's length: one pass per kind of run, each run decoded at most four times per
    level. Build it with :meth:`from_environment` at call time. An empty redactor changes nothing.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        # Bytes decoded from base64 or hex are read as Latin-1: one character per byte, so a secret is
        # also sought as its UTF-8 bytes read that way.
        needles = {form.lower() for s in values for form in (s, s.encode("utf-8").decode("latin-1"))}
        self._needles = sorted(needles, key=len, reverse=True)
        self._needle = (re.compile("|".join(re.escape(n) for n in self._needles), re.IGNORECASE)
                        if needles else None)
        shortest = min((len(s.encode("utf-8")) for s in values), default=0)
        # A run shorter than the secret's own encoding cannot hold it.
        self._base64_run = re.compile(r"[A-Za-z0-9+/_-]{%d,}={0,2}" % max(4, -(-4 * shortest // 3)))
        self._hex_run = re.compile(r"[0-9A-Fa-f]{%d,}" % max(2, 2 * shortest))
        # A base64 body wrapped into lines (MIME at 76 characters, PEM at 64; raw or JSON-escaped breaks):
        # full lines of a multiple of 4 characters, at least 16, then the last. Decoded joined, it yields
        # every byte its lines would one by one, so they are not decoded again. Matched only where a run
        # starts, so linear.
        self._wrapped_base64_run = re.compile(
            rf"(?<![A-Za-z0-9+/_-])(?:(?:[A-Za-z0-9+/_-]{{4}}){{4,}}{_LINE_BREAK.pattern})+[A-Za-z0-9+/_-]+={{0,2}}")
        self._escaped_token = re.compile(
            rf"(?<!{_TOKEN_CHARS})(?={_TOKEN_CHARS}{{{max(1, min(map(len, values), default=1))}}})"
            rf"(?={_TOKEN_CHARS}*?(?:{_ESCAPE})){_TOKEN_CHARS}+")

    @classmethod
    def from_environment(cls, names: Iterable[str], environ: Mapping[str, str] | None = None) -> Redactor:
        """A redactor for the current values of the variables ``names`` (unset ones are skipped)."""
        env = os.environ if environ is None else environ
        return cls(env[name] for name in names if env.get(name))

    def __bool__(self) -> bool:
        return self._needle is not None

    def text(self, text: str) -> str:
        """``text`` with every secret, and every encoded run holding one, replaced by ``[REDACTED]``."""
        if self._needle is None or not text:
            return text
        spans = self._raw_spans(text)
        wrapped: list[tuple[int, int]] = []
        if "\n" in text or "\\n" in text:
            wrapped = [match.span() for match in self._wrapped_base64_run.finditer(text)]
            spans += [(a, b) for a, b in wrapped if self._holds_secret_encoded(text[a:b], self._wrapped_base64_run)]
        starts = [a for a, _ in wrapped]
        patterns = [self._base64_run, self._hex_run]
        if "%" in text or "\\" in text or "&" in text:
            patterns.append(self._escaped_token)
        for pattern in patterns:
            for match in pattern.finditer(text):
                if pattern is self._base64_run and wrapped and _within(match.span(), wrapped, starts):
                    continue  # one line of a wrapped run, decoded with it
                if self._holds_secret_encoded(match.group(), pattern):
                    spans += self._narrowed(match) if pattern is self._escaped_token else [match.span()]
        if not spans:
            return text
        return _mask(text, spans)

    def holds_secret(self, text: str) -> bool:
        """True when ``text`` holds a secret, raw or encoded (what :meth:`text` would mask)."""
        return self._needle is not None and self.text(text) != text

    def bytes(self, data: bytes) -> bytes:
        """``data`` with every secret form masked; bytes are read as UTF-8 (undecodable bytes kept)."""
        if self._needle is None or not data:
            return data
        text = data.decode("utf-8", "surrogateescape")
        masked = self.text(text)
        return data if masked == text else masked.encode("utf-8", "surrogateescape")

    def value(self, value: T) -> T:
        """Any JSON-like value with every string redacted."""
        return _map_strings(value, self.text) if self else value

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """Header pairs with credential-named headers masked whole and secrets masked elsewhere."""
        return [(name, MASK if is_sensitive_header(name) else self.text(value)) for name, value in headers]

    def result(self, model: M) -> M:
        """A pydantic model (e.g. ``ProviderResult``, ``Verdict``) with every string it holds redacted:
        its fields, nested models, and the items, keys and values of its lists and dicts. Enum members
        are a fixed vocabulary and hold no secret.

        Each string is read once and nothing is dumped or copied whole: ``model`` itself is returned
        when nothing held a secret, else a shallow copy whose changed fields are validated again
        (pydantic's ``ValidationError`` when a masked value is one a field cannot take)."""
        return self._redacted(model) if self else model

    def _redacted(self, value: Any) -> Any:
        """``value`` with every string in it redacted; the same object when none changed."""
        if isinstance(value, Enum):
            return value
        if isinstance(value, str):
            return self.text(value)  # the same object when it holds no secret
        if isinstance(value, BaseModel):
            changed = {}
            for name in type(value).model_fields:
                field = getattr(value, name)
                redacted = self._redacted(field)
                if redacted is not field:
                    changed[name] = redacted
            if not changed:
                return value
            copy = value.model_copy()
            for name, redacted in changed.items():
                type(value).__pydantic_validator__.validate_assignment(copy, name, redacted)
            return copy
        if isinstance(value, Mapping):
            pairs = [(key, item, self._redacted(key), self._redacted(item)) for key, item in value.items()]
            if all(new_key is key and new_item is item for key, item, new_key, new_item in pairs):
                return value
            return {new_key: new_item for _, _, new_key, new_item in pairs}
        if isinstance(value, (list, tuple)):
            items = [self._redacted(item) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return items if isinstance(value, list) else tuple(items)
        return value

    # --- decoding ------------------------------------------------------------------------------------

    def _raw_spans(self, text: str) -> list[tuple[int, int]]:
        """Where the secrets stand raw, in any letter case: ``str.find`` on the lower-cased text, one pass
        per secret (a fixed handful), unless lower-casing changed the length (then one regex pass)."""
        lowered = text.lower()
        if len(lowered) != len(text):
            assert self._needle is not None
            return [m.span() for m in self._needle.finditer(text)]
        spans = []
        for needle in self._needles:
            start = lowered.find(needle)
            while start >= 0:
                spans.append((start, start + len(needle)))
                start = lowered.find(needle, start + len(needle))
        return spans

    def _narrowed(self, token: re.Match[str]) -> list[tuple[int, int]]:
        """The parts of an escaped token that hold a secret, when the token is a URL or a query string
        (``key=sk%2F...&url=...``), each part between ``?&=;,`` that holds one, and the rest holds none;
        else the whole token."""
        text, start = token.group(), token.start()
        held = [m.span() for m in _QUERY_PART.finditer(text) if self._holds_secret_encoded(m.group(), self._escaped_token)]
        if not held or self._holds_secret_encoded(_mask(text, held), self._escaped_token):
            return [token.span()]  # the secret also stands across parts (HTML entities end in ";")
        return [(start + a, start + b) for a, b in held]

    def _holds_secret_encoded(self, run: str, pattern: re.Pattern[str]) -> bool:
        if pattern is self._escaped_token:
            decoded = [_unescape(run)]
            if "+" in run:  # a form-encoded space (quote_plus)
                decoded.append(_unescape(run.replace("+", " ")))
        elif pattern is self._hex_run:
            decoded = _hex_decodings(run)
        elif pattern is self._wrapped_base64_run:
            decoded = _base64_decodings(_LINE_BREAK.sub("", run))
        else:
            decoded = _base64_decodings(run)
        return any(self._holds(text, DECODE_DEPTH - 1) for text in decoded)

    def _holds(self, text: str, depth: int) -> bool:
        """Whether decoded ``text`` holds a secret, raw or in ``depth`` more levels of encoding."""
        lowered = text.lower()
        if any(needle in lowered for needle in self._needles):
            return True
        if depth <= 0:
            return False
        unescaped = _unescape(text)
        if unescaped != text and self._holds(unescaped, depth - 1):
            return True
        for pattern, decodings in ((self._base64_run, _base64_decodings), (self._hex_run, _hex_decodings)):
            for match in pattern.finditer(text):
                if any(self._holds(decoded, depth - 1) for decoded in decodings(match.group())):
                    return True
        return False


DECODE_DEPTH = 2
"""Levels of encoding looked through: base64 of a URL-encoded key, or of a request carrying
``base64(key:)``, is two."""

# A token (no whitespace, quotes or angle brackets) that carries at least one escape is matched only
# where a token starts (the look-behind), so each token is scanned once: linear, whatever the input.
_TOKEN_CHARS = r"[^\s\"'<>]"
# HTML numeric references need no ";" (a browser and html.unescape read "&#x73&#107" as "sk").
_ESCAPE = r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\[/\\\"bfnrt]|&#?[A-Za-z0-9]+;|&#[0-9]+|&#[xX][0-9A-Fa-f]+"
_LINE_BREAK = re.compile(r"(?:\r?\n|\\r\\n|\\n)")
_QUERY_PART = re.compile(r"[^?&=;,]+")
_JSON_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\([/\\\"bfnrt])")
_JSON_SIMPLE = {"/": "/", "\\": "\\", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_URLSAFE = str.maketrans("-_", "+/")


def _unescape(text: str) -> str:
    """``text`` with percent escapes, JSON escapes and HTML entities undone (one level of each)."""
    if "%" in text:
        text = unquote(text, errors="surrogateescape")
    if "\\" in text:
        text = _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else _JSON_SIMPLE[m.group(2)], text)
    if "&" in text:
        text = html.unescape(text)
    return text


def _base64_decodings(run: str) -> list[str]:
    """The bytes a base64 run decodes to, read as Latin-1, from each of its four character offsets (the
    run may begin mid-group when glued to other letters)."""
    body = run.rstrip("=").translate(_URLSAFE)
    decoded = []
    for offset in range(4):
        part = body[offset:]
        part = part[: len(part) - 1] if len(part) % 4 == 1 else part
        if part:
            decoded.append(binascii.a2b_base64(part + "=" * (-len(part) % 4)).decode("latin-1"))
    return decoded


def _hex_decodings(run: str) -> list[str]:
    """The bytes a hex run decodes to, read as Latin-1, from each of its two character offsets."""
    return [bytes.fromhex(run[offset: offset + (len(run) - offset) // 2 * 2]).decode("latin-1") for offset in (0, 1)]


def _within(span: tuple[int, int], sorted_spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether ``span`` lies inside one of ``sorted_spans`` (disjoint, sorted; ``starts`` their starts)."""
    index = bisect.bisect_right(starts, span[0]) - 1
    return index >= 0 and sorted_spans[index][1] >= span[1]


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of the (possibly overlapping) ``spans`` replaced by one mask."""
    out, end = [], 0
    for start, stop in sorted(spans):
        if start >= end:
            out += (text[end:start], MASK)
            end = stop
        elif stop > end:
            end = stop
    out.append(text[end:])
    return "".join(out)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _map_strings(value: Any, function: Any) -> Any:
    if isinstance(value, str):
        return function(value)
    if isinstance(value, Mapping):
        return {_map_strings(k, function): _map_strings(v, function) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, function) for item in value]
    if isinstance(value, tuple):
        return tuple(_map_strings(item, function) for item in value)
    return value
