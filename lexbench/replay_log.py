"""Who may be logged on the public replay server, and its bounded served-fetch log (SPEC §7, issue 27).

``lexbench serve-replay`` and the run that uses it (``--replay-public-url``) share one **replay key**
(:data:`REPLAY_KEY_VARIABLE`; the server prints a new one when started without it). From it and the run
prefix the run derives, per hosted provider, a **provider token** in the path that provider is handed::

    URL/<run prefix>/<provider>/<provider token>/replay/<case-id>

and one **log token** only the run knows, with which it fetches its log at the end::

    URL/<run prefix>/served-fetches/<log token>

Both are HMAC-SHA256 of the key (:func:`provider_token`, :func:`log_token`), so the server checks them
without any state, a service that holds its own URL cannot fetch as another provider (its token is not
the other's) nor read the log, and a stranger holding nothing gets 404 and no log line.

:class:`ServedLog` is the server's log: each entry's text fields are cleaned (:func:`clean_text`: no
control characters, ANSI escape sequences or NULs; cut at :data:`MAX_FIELD_CHARS`), each provider of a
run keeps at most :data:`MAX_ENTRIES_PER_PROVIDER` entries and the whole log at most
:data:`MAX_LOG_BYTES`, dropping the oldest run first; what was not kept is counted and said in the log
itself (a ``dropped`` line). :data:`ENTRY_FIELDS` is the one list of an entry's fields and types: the
server writes them and the run reads them back with :func:`checked_entry`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REPLAY_KEY_VARIABLE = "LEXBENCH_REPLAY_KEY"
"""The environment variable holding the replay key, for ``lexbench serve-replay`` and for pytest."""
MIN_KEY_CHARS = 32
"""Shortest replay key accepted (URL-safe characters): 192 bits as :func:`new_replay_key` makes them."""
TOKEN_CHARS = 32
"""Length of a provider or log token (URL-safe base64 of HMAC-SHA256: 192 bits)."""
MAX_FIELD_CHARS = 256
"""Longest text field kept in an entry (a user agent, a case id from the path), after cleaning."""
MAX_ENTRIES_PER_PROVIDER = 20_000
"""Entries kept per run and provider (a run of 60 cases with 100 recorded resources each stays well under)."""
MAX_LOG_BYTES = 128_000_000
"""Bytes of entries the server keeps in all (its memory bound); the oldest runs' logs go first."""

ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "time": str, "prefix": str, "provider": str, "case": str, "method": str, "user_agent": (str, type(None)),
    "status": int, "path": (str, type(None)),
}
"""Every field of a served-fetch entry and its JSON type: what the server writes and the run accepts."""
METHODS = ("GET", "HEAD")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""ANSI escape sequences: CSI (``ESC [ … final``), OSC (``ESC ] … BEL``) and two-character escapes."""
_KEY = re.compile(r"[A-Za-z0-9_-]+")


def new_replay_key() -> str:
    """A new replay key: 43 URL-safe characters (256 bits)."""
    return secrets.token_urlsafe(32)


def check_replay_key(value: str) -> str:
    """``value`` if it can serve as the replay key, else ``ValueError`` saying why (never repeating it):
    at least :data:`MIN_KEY_CHARS` URL-safe characters (``A-Z a-z 0-9 _ -``)."""
    if not _KEY.fullmatch(value) or len(value) < MIN_KEY_CHARS:
        raise ValueError(f"{REPLAY_KEY_VARIABLE} must be at least {MIN_KEY_CHARS} URL-safe characters (A-Z a-z 0-9 _ -), "
                         f"as `lexbench serve-replay` prints it; the value given has {len(value)} characters")
    return value


def _token(key: str, *parts: str) -> str:
    digest = hmac.new(key.encode("utf-8"), "\0".join(parts).encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:TOKEN_CHARS]


def provider_token(key: str, prefix: str, provider: str) -> str:
    """The path secret of ``provider`` under run ``prefix``: only it is handed this token."""
    return _token(key, "provider", prefix, provider)


def log_token(key: str, prefix: str) -> str:
    """The path secret that reads run ``prefix``'s served-fetch log: only the run knows it."""
    return _token(key, "served-fetches", prefix)


def same_token(given: str, expected: str) -> bool:
    """Constant-time comparison of a token from a path with the one derived."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


def clean_text(value: str, limit: int = MAX_FIELD_CHARS) -> str:
    """``value`` without ANSI escape sequences, control characters (C0, C1, DEL, NUL) and format characters
    (bidirectional overrides), cut at ``limit`` characters (``…`` marks a cut)."""
    text = _ANSI.sub("", value[: limit * 4])
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def entry_line(entry: Mapping[str, Any]) -> bytes:
    """One entry as its log line (compact JSON, UTF-8, a newline)."""
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def checked_entry(value: Any, *, prefix: str, providers: frozenset[str], cases: frozenset[str] | None) -> dict[str, Any]:
    """``value`` (one parsed log line) as an entry of run ``prefix``, its text fields cleaned again
    (:func:`clean_text`), else ``ValueError`` saying why it is refused: not an object of exactly
    :data:`ENTRY_FIELDS`, another run's prefix, a provider the run did not hand a URL to, a case not in
    ``cases`` (``None``: any), a method other than GET/HEAD, a status outside 100–599, a time not
    ``YYYY-MM-DDTHH:MM:SSZ``."""
    if isinstance(value, dict) and "path" not in value:
        value = {**value, "path": None}  # an entry for a page, not an archive's resource, may leave it out
    if not isinstance(value, dict) or set(value) != set(ENTRY_FIELDS):
        raise ValueError("not an entry (an object of exactly " + ", ".join(ENTRY_FIELDS) + ")")
    for name, kind in ENTRY_FIELDS.items():
        if not isinstance(value[name], kind) or isinstance(value[name], bool):
            raise ValueError(f"its {name} has the wrong type")
    if value["prefix"] != prefix:
        raise ValueError("another run's prefix")
    if value["provider"] not in providers:
        raise ValueError("a provider this run did not hand a URL to")
    if cases is not None and value["case"] not in cases:
        raise ValueError("a case not in the suite")
    if value["method"] not in METHODS or not 100 <= value["status"] <= 599 or not _TIME.fullmatch(value["time"]):
        raise ValueError("a method, status or time no replay server writes")
    agent, path = value["user_agent"], value["path"]
    return {**value, "user_agent": clean_text(agent) if agent is not None else None,
            "path": clean_text(path) if path is not None else None}


@dataclass
class _RunLog:
    lines: dict[str, list[bytes]] = field(default_factory=dict)  # provider → entry lines, oldest first
    dropped: dict[str, int] = field(default_factory=dict)  # provider → entries not kept
    size: int = 0


class ServedLog:
    """The public replay server's log of served fetches, bounded (see the module docstring); thread-safe."""

    def __init__(self, *, max_bytes: int = MAX_LOG_BYTES, max_per_provider: int = MAX_ENTRIES_PER_PROVIDER) -> None:
        self.max_bytes = max_bytes
        self.max_per_provider = max_per_provider
        self._runs: OrderedDict[str, _RunLog] = OrderedDict()  # oldest run first
        self._size = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """Bytes of entry lines held now (at most ``max_bytes``)."""
        return self._size

    def add(self, *, time: str, prefix: str, provider: str, case: str, method: str, user_agent: str | None,
            status: int, path: str | None = None) -> bool:
        """Log one fetch served under ``prefix`` to ``provider`` (its token already checked); text fields
        are cleaned here. Returns whether it was kept (else it is counted as dropped)."""
        line = entry_line({"time": time, "prefix": prefix, "provider": provider, "case": clean_text(case),
                           "method": method, "user_agent": clean_text(user_agent) if user_agent is not None else None,
                           "status": status, "path": clean_text(path) if path is not None else None})
        with self._lock:
            run = self._runs.get(prefix)
            if run is None:
                run = self._runs[prefix] = _RunLog()
            kept = run.lines.setdefault(provider, [])
            while self._size + len(line) > self.max_bytes and next(iter(self._runs)) != prefix:
                self._size -= self._runs.popitem(last=False)[1].size  # the oldest other run goes first
            if len(kept) >= self.max_per_provider or self._size + len(line) > self.max_bytes:
                run.dropped[provider] = run.dropped.get(provider, 0) + 1
                return False
            kept.append(line)
            run.size += len(line)
            self._size += len(line)
            return True

    def lines(self, prefix: str) -> bytes:
        """Run ``prefix``'s log: its entries, one JSON object a line, then one ``{"prefix", "provider",
        "dropped"}`` line per provider whose entries were not all kept (empty when none)."""
        with self._lock:
            run = self._runs.get(prefix)
            if run is None:
                return b""
            dropped = [entry_line({"prefix": prefix, "provider": name, "dropped": count})
                       for name, count in run.dropped.items()]
            return b"".join(line for lines in run.lines.values() for line in lines) + b"".join(dropped)
