"""A configured provider from its type: the built-in configuration, loading a configuration file, and
building one provider on the shared HTTP boundary (SPEC §5)."""

from __future__ import annotations

from pathlib import Path

from lexbench.errors import ConfigError
from lexbench.providers import DEFAULT_PROVIDERS, PROVIDER_TYPES, TYPE_SOURCES
from lexbench.providers.base import Provider
from lexbench.providers.config import ProviderConfig, ProviderSpec, builtin_provider_config, load_provider_config
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.http import HttpBoundary
from lexbench.providers.policy import RuntimePolicy


def default_config() -> ProviderConfig:
    """The built-in configuration: each built-in local type and the control under its type name (an
    installed or registered type is named in a configuration file)."""
    return builtin_provider_config({name: PROVIDER_TYPES[name] for name in PROVIDER_TYPES.builtin},
                                   list(DEFAULT_PROVIDERS))


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
            raise ConfigError(f"unknown provider {spec!r}; known: {', '.join(sorted(PROVIDER_TYPES))} ({TYPE_SOURCES})")
        builtin = default_config()
        spec = builtin.spec(spec) if spec in builtin.names else ProviderSpec(name=spec, type=spec)
    if spec.type not in PROVIDER_TYPES:
        raise ConfigError(f"unknown provider type {spec.type!r}; known: {', '.join(sorted(PROVIDER_TYPES))} "
                          f"({TYPE_SOURCES})")
    cls = PROVIDER_TYPES[spec.type]
    http = HttpBoundary(
        guard=guard,
        dns_mode=spec.dns_mode or "system",
        doh_url=spec.doh_url,
        max_body_bytes=(policy or RuntimePolicy()).max_body_bytes,
        debug_dir=debug_dir if spec.log_level == "debug" else None,
    )
    return cls(spec.name, spec.options, http=http, output_contract=spec.output_contract, not_secret=spec.not_secret)
