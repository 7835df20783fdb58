"""Credentials: ``${ENV_VAR}`` placeholders expanded at call time, and redaction (SPEC §5).

A provider configuration never holds a secret, only placeholders such as ``"Bearer ${JINA_API_KEY}"``.
Values are read from the environment when a call is made, never earlier and never stored. Everything
lexbench writes that could carry one — results, saved responses, debug logs, exception messages —
passes through a :class:`Redactor` built from the same variables, which replaces each value and its
common encodings (URL-quoted, base64, HTTP Basic ``base64(value:)``, JSON-escaped) with ``[REDACTED]``.
Header values whose names say they hold a credential are masked whole.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

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
    """Masks a fixed set of secret values, and their usual encodings, in text, bytes and models.

    Build it with :meth:`from_environment` at call time. An empty redactor changes nothing.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if secret and len(secret) >= MIN_SECRET_CHARS:
                forms.update(_encodings(secret))
        # Longest first, so a form containing another is masked whole.
        self._forms = sorted(forms, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(f) for f in self._forms)) if self._forms else None
        self._byte_forms = [f.encode("utf-8") for f in self._forms]

    @classmethod
    def from_environment(cls, names: Iterable[str], environ: Mapping[str, str] | None = None) -> Redactor:
        """A redactor for the current values of the variables ``names`` (unset ones are skipped)."""
        env = os.environ if environ is None else environ
        return cls(env[name] for name in names if env.get(name))

    def __bool__(self) -> bool:
        return bool(self._forms)

    def text(self, text: str) -> str:
        """``text`` with every secret form replaced by ``[REDACTED]``."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)

    def bytes(self, data: bytes) -> bytes:
        """``data`` with every secret form (UTF-8 encoded) replaced by ``[REDACTED]``."""
        for form in self._byte_forms:
            if form in data:
                data = data.replace(form, MASK.encode())
        return data

    def value(self, value: T) -> T:
        """Any JSON-like value with every string redacted."""
        return _map_strings(value, self.text) if self else value

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """Header pairs with credential-named headers masked whole and secrets masked elsewhere."""
        return [(name, MASK if is_sensitive_header(name) else self.text(value)) for name, value in headers]

    def result(self, model: M) -> M:
        """A copy of a pydantic model (e.g. ``ProviderResult``) with every string field redacted."""
        if not self:
            return model
        return type(model).model_validate(self.value(model.model_dump(mode="json")))


def _encodings(secret: str) -> set[str]:
    raw = secret.encode("utf-8")
    forms = {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]}
    for data in (raw, raw + b":"):
        for encoded in (base64.b64encode(data), base64.urlsafe_b64encode(data)):
            text = encoded.decode("ascii")
            forms.update({text, text.rstrip("=")})
    return {f for f in forms if len(f) >= MIN_SECRET_CHARS}


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
