"""Providers: the registry of provider types and the one call path every item uses (SPEC §5)."""

from __future__ import annotations

import time
import traceback

from lexbench.dataset.case import Case
from lexbench.errors import ConfigError
from lexbench.providers.base import Provider
from lexbench.providers.local import HttpMarkdownify, Readability, ReferenceEcho, Trafilatura
from lexbench.providers.result import Attempt, ErrorType, ProviderResult

PROVIDER_TYPES: dict[str, type[Provider]] = {
    cls.type_name: cls for cls in (HttpMarkdownify, Trafilatura, Readability, ReferenceEcho)
}
"""Every provider type by its name."""

DEFAULT_PROVIDERS: tuple[str, ...] = ("http-markdownify", "trafilatura", "readability", "reference-echo")
"""What ``make bench`` and a bare ``pytest`` run: the local providers plus the control."""

__all__ = ["DEFAULT_PROVIDERS", "PROVIDER_TYPES", "Provider", "ProviderResult", "build_provider", "call_provider"]


def build_provider(name: str) -> Provider:
    """Build a provider by type name; raises :class:`ConfigError` listing the known names."""
    try:
        cls = PROVIDER_TYPES[name]
    except KeyError:
        raise ConfigError(f"unknown provider {name!r}; known: {', '.join(sorted(PROVIDER_TYPES))}") from None
    return cls(name)


def call_provider(provider: Provider, case: Case, timeout: float, url: str) -> ProviderResult:
    """Call ``provider.fetch`` and turn an escaping exception into a ``crashed`` result.

    The traceback's last line goes into the message so the report says what broke.
    """
    start = time.perf_counter()
    try:
        return provider.fetch(case, timeout, url)
    except Exception as exc:  # a provider bug must not stop the run
        elapsed = time.perf_counter() - start
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = f"{provider.name} raised {type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"
        return ProviderResult(
            success=False,
            error_type=ErrorType.CRASHED,
            error_message=message,
            latency_s=elapsed,
            attempts=[Attempt(latency_s=elapsed, error_type=ErrorType.CRASHED, error_message=message)],
        )
