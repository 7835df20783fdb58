"""Providers: the registry of provider types, building configured providers, and the one call path
every item uses (SPEC §5).

The pieces, in the order a call meets them: :mod:`~lexbench.providers.config` (named providers),
:mod:`~lexbench.providers.base` (the interface), :mod:`~lexbench.providers.policy` (deadline, retries,
late answers, redaction: :func:`call_provider`), :mod:`~lexbench.providers.http` (the shared HTTP
boundary) with :mod:`~lexbench.providers.guard` and :mod:`~lexbench.providers.resolve`,
:mod:`~lexbench.providers.hosted` (one adapter per hosted fetch API),
:mod:`~lexbench.providers.extraction` (the killable extraction worker), :mod:`~lexbench.providers.result` (what
comes back).
"""

from __future__ import annotations

from pathlib import Path

from lexbench.errors import ConfigError
from lexbench.providers.base import Provider
from lexbench.providers.config import ProviderConfig, ProviderSpec, builtin_provider_config, load_provider_config
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.headless import ENGINE_PROVIDER_TYPES
from lexbench.providers.hosted import HOSTED_PROVIDER_TYPES
from lexbench.providers.http import HttpBoundary
from lexbench.providers.local import HttpMarkdownify, Readability, ReferenceEcho, Trafilatura
from lexbench.providers.policy import FetchError, RuntimePolicy, call_provider
from lexbench.providers.result import ErrorType, ProviderResult
from lexbench.providers.thirdparty import WORKER_PROVIDER_TYPES

PROVIDER_TYPES: dict[str, type[Provider]] = {
    cls.type_name: cls
    for cls in (HttpMarkdownify, Trafilatura, Readability, ReferenceEcho, *ENGINE_PROVIDER_TYPES, *WORKER_PROVIDER_TYPES,
                *HOSTED_PROVIDER_TYPES)
}
"""Every provider type by its type name. Add a type with :func:`register_provider_type`."""

DEFAULT_PROVIDERS: tuple[str, ...] = ("http-markdownify", "trafilatura", "readability", "reference-echo")
"""What ``make bench`` and a bare ``pytest`` run: the local providers plus the control."""

__all__ = [
    "DEFAULT_PROVIDERS", "PROVIDER_TYPES", "ErrorType", "FetchError", "Provider", "ProviderConfig", "ProviderResult",
    "ProviderSpec", "RuntimePolicy", "build_provider", "call_provider", "default_config", "load_config",
    "register_provider_type",
]


def register_provider_type(cls: type[Provider]) -> type[Provider]:
    """Add ``cls`` to :data:`PROVIDER_TYPES` under ``cls.type_name`` (usable as a class decorator).

    Raises :class:`ConfigError` when another class already holds that name.
    """
    existing = PROVIDER_TYPES.get(cls.type_name)
    if existing is not None and existing is not cls:
        raise ConfigError(f"provider type {cls.type_name!r} is already registered ({existing.__qualname__})")
    PROVIDER_TYPES[cls.type_name] = cls
    return cls


def default_config() -> ProviderConfig:
    """The built-in configuration: each local type and the control under its type name."""
    return builtin_provider_config(PROVIDER_TYPES, list(DEFAULT_PROVIDERS))


def load_config(path: Path) -> ProviderConfig:
    """Load a configuration file against the registry; raises :class:`ConfigError`."""
    return load_provider_config(path, PROVIDER_TYPES)


def build_provider(spec: ProviderSpec | str, *, guard: NetworkGuard | None = None,
                   policy: RuntimePolicy | None = None, debug_dir: Path | None = None) -> Provider:
    """Build one provider from its configuration (or, for a bare type name, with default options).

    ``guard`` is the private-network guard for target fetches (default: no exemption); ``policy``
    supplies the body ceiling; ``debug_dir`` receives redacted exchanges when the spec's ``log_level``
    is ``debug``. Raises :class:`ConfigError` for an unknown type.
    """
    if isinstance(spec, str):
        if spec not in PROVIDER_TYPES:
            raise ConfigError(f"unknown provider {spec!r}; known: {', '.join(sorted(PROVIDER_TYPES))}")
        builtin = default_config()
        spec = builtin.spec(spec) if spec in builtin.names else ProviderSpec(name=spec, type=spec)
    cls = PROVIDER_TYPES.get(spec.type)
    if cls is None:
        raise ConfigError(f"unknown provider type {spec.type!r}; known: {', '.join(sorted(PROVIDER_TYPES))}")
    http = HttpBoundary(
        guard=guard,
        dns_mode=spec.dns_mode or "system",
        doh_url=spec.doh_url,
        max_body_bytes=(policy or RuntimePolicy()).max_body_bytes,
        debug_dir=debug_dir if spec.log_level == "debug" else None,
    )
    return cls(spec.name, spec.options, http=http, output_contract=spec.output_contract, not_secret=spec.not_secret)

