"""Provider configuration: named providers, their type, fixed options and output contract (SPEC §5).

``providers/providers.example.json`` shows the format::

    {
      "schema_version": 1,
      "default_providers": ["trafilatura", "reference-echo"],
      "defaults": {"dns_mode": "public_doh", "doh_url": "https://1.1.1.1/dns-query"},
      "providers": [
        {"name": "trafilatura", "type": "trafilatura", "output_contract": "cleaned",
         "options": {"include_comments": true}},
        {"name": "reader", "type": "jina-reader", "log_level": "debug",
         "options": {"api_key": "${JINA_API_KEY}"}},
        {"name": "unlocker", "type": "brightdata-unlocker", "not_secret": ["BRIGHTDATA_ZONE"],
         "options": {"api_key": "${BRIGHTDATA_API_TOKEN}", "zone": "${BRIGHTDATA_ZONE}"}}
      ]
    }

Names are what ``--providers a,b`` selects and what item ids and run records carry; ``--providers
configured`` selects ``default_providers``. Credentials appear only as ``${ENV_VAR}`` placeholders
(options a type declares secret must be placeholders) and are expanded at call time, never here.
Every placeholder's value is redacted from what a run writes, except the variables a provider lists in
``not_secret``: identifiers such as a zone or account name, which pages may well contain as words.
``dns_mode``/``doh_url`` (per provider, or in ``defaults``) apply to hosted API providers;
``log_level: debug`` saves redacted HTTP exchanges in the run directory. Everything wrong with a file
raises :class:`~lexbench.errors.ConfigError` naming the file and the provider.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexbench.answer import DnsMode
from lexbench.errors import ConfigError
from lexbench.jsonfile import InvalidJson, decode_json, read_regular_file, validation_problem
from lexbench.providers import TYPE_SOURCES
from lexbench.providers.base import OutputContract, Provider
from lexbench.providers.credentials import Redactor, has_placeholder, malformed_placeholders, placeholder_names
from lexbench.resources import in_checkout, shipped_dir

CONFIGURED = "configured"
"""The ``--providers`` value that selects the configuration's ``default_providers``."""
LogLevel = Literal["info", "debug"]
PROVIDER_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
"""What a provider name may be: what item ids, run records and ``-k`` carry."""


def example_config() -> Path:
    """The example configuration, every provider the README lists, hosted ones included: the checkout's
    ``providers/providers.example.json``, or installed, the copy under ``lexbench/_shipped/providers/``."""
    return shipped_dir("providers") / "providers.example.json"


class ConfigDefaults(BaseModel):
    """Settings every provider inherits unless it sets its own."""

    model_config = ConfigDict(extra="forbid")

    dns_mode: DnsMode = "system"
    doh_url: str | None = None
    log_level: LogLevel = "info"


class ProviderSpec(BaseModel):
    """One named provider. After loading, ``output_contract``, ``dns_mode`` and ``log_level`` are always
    set (from the entry, ``defaults`` or the type's default contract)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=PROVIDER_NAME)
    type: str
    output_contract: OutputContract | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    dns_mode: DnsMode | None = None
    doh_url: str | None = None
    log_level: LogLevel | None = None
    not_secret: list[str] = Field(default_factory=list)
    description: str | None = None

    def credential_variables(self) -> list[str]:
        """Environment variables named by this provider's placeholders."""
        return placeholder_names(self.options)

    def secret_variables(self) -> list[str]:
        """The credential variables whose values are redacted: all but those declared ``not_secret``."""
        return [name for name in self.credential_variables() if name not in self.not_secret]


class ProviderConfig(BaseModel):
    """A whole configuration file, validated against the registry of provider types."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1]
    default_providers: list[str] = Field(min_length=1)
    defaults: ConfigDefaults = Field(default_factory=ConfigDefaults)
    providers: list[ProviderSpec] = Field(min_length=1)

    def spec(self, name: str) -> ProviderSpec:
        """The provider called ``name``; raises ``KeyError``."""
        for spec in self.providers:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.providers]

    def select(self, selection: str | None, *, example: Path | None = None) -> list[ProviderSpec]:
        """The providers a ``--providers`` value selects: ``None`` or ``configured`` → ``default_providers``;
        else comma-separated names. Raises :class:`ConfigError` for unknown or repeated names; for an
        unknown name that the ``example`` configuration (default :func:`example_config`) defines, the error
        names that file, the credential variables to set and ``--provider-config`` (:func:`example_hint`)."""
        if selection is None or selection.strip() == CONFIGURED:
            names = list(self.default_providers)
        else:
            names = [n.strip() for n in selection.split(",") if n.strip()]
        if not names:
            raise ConfigError("no provider selected")
        unknown = [n for n in names if n not in self.names]
        if unknown:
            raise ConfigError(f"unknown provider(s) {', '.join(unknown)}; configured: {', '.join(self.names)}"
                              + example_hint(unknown, example or example_config()))
        if len(set(names)) != len(names):
            raise ConfigError(f"a provider is named twice in {selection!r}")
        return [self.spec(n) for n in names]

    def redacted_sha256(self) -> str:
        """sha256 of the canonical JSON of this configuration as loaded: placeholders unexpanded, and any
        current value of a referenced credential variable masked should one have been written literally."""
        dump = self.model_dump(mode="json")
        dump = Redactor.from_environment(placeholder_names(dump)).value(dump)
        canonical = json.dumps(dump, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def example_hint(names: list[str], example: Path, *, checkout: bool | None = None) -> str:
    """The hint for the unknown ``names`` that the ``example`` configuration defines, e.g. ``". firecrawl is
    defined in providers/providers.example.json, not in the active configuration: pass
    --provider-config=providers/providers.example.json (or your copy of it) and set FIRECRAWL_API_KEY"``.
    ``""`` when it defines none of them or cannot be read (a courtesy: the error stands without it). The
    path is shown relative to the working directory when under it.

    Installed (``checkout`` false; default :func:`lexbench.resources.in_checkout`) the example lives
    inside the installed package, so the hint gives its full path and says to copy it into the project
    and pass the copy."""
    try:
        data = json.loads(example.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    entries = data.get("providers") if isinstance(data, dict) else None
    defined = {e["name"]: e for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)} \
        if isinstance(entries, list) else {}
    found = [name for name in names if name in defined]
    if not found:
        return ""
    variables = list(dict.fromkeys(v for name in found for v in placeholder_names(defined[name].get("options") or {})))
    credentials = f" and set {', '.join(variables)}" if variables else ""
    defines = f". {', '.join(found)} {'is' if len(found) == 1 else 'are'} defined in"
    if not (in_checkout() if checkout is None else checkout):
        return (f"{defines} the example configuration installed with lexbench, {example}, not in the active "
                f"configuration: copy it into your project and pass --provider-config=FILE (your copy){credentials}")
    try:
        shown = example.relative_to(Path.cwd())
    except ValueError:
        shown = example
    return f"{defines} {shown}, not in the active configuration: pass --provider-config={shown} (or your copy of it){credentials}"


MAX_CONFIG_BYTES = 10_000_000
"""Largest provider configuration read; the shipped example is under 10 kB."""


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ConfigError(f"key(s) {', '.join(repeated)} appear twice in one object")
    return dict(pairs)


def load_provider_config(path: Path, registry: Mapping[str, type[Provider]]) -> ProviderConfig:
    """Read and validate a configuration file (a regular file of at most :data:`MAX_CONFIG_BYTES`; a
    device such as ``/dev/zero``, a FIFO or a socket is refused by kind, unopened). Raises
    :class:`ConfigError` naming the file."""
    try:
        text = read_regular_file(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(f"cannot read provider configuration {path}: {exc.strerror or exc}") from None
    try:
        data = decode_json(text, object_pairs_hook=_reject_duplicate_keys)
    except InvalidJson as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return parse_provider_config(data, registry, source=str(path))


def parse_provider_config(data: Any, registry: Mapping[str, type[Provider]], *, source: str = "configuration") -> ProviderConfig:
    """Validate already-parsed JSON; fills each spec's contract, DNS mode and log level. Raises
    :class:`ConfigError`: unknown type, duplicated name, literal secret, malformed placeholder, DNS mode on
    a non-hosted type, ``public_doh`` without a resolver URL, unknown option, unknown default provider."""
    try:
        config = ProviderConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {validation_problem(exc.errors()[0])}" + (f" ({exc.error_count()} problems)" if exc.error_count() > 1 else "")) from None
    seen: set[str] = set()
    resolved = []
    for spec in config.providers:
        if spec.name in seen:
            raise ConfigError(f"{source}: provider name {spec.name!r} is defined twice; names must be unique")
        if spec.name == CONFIGURED:
            raise ConfigError(f"{source}: {CONFIGURED!r} is reserved for --providers and cannot name a provider")
        seen.add(spec.name)
        resolved.append(_resolve(spec, config.defaults, registry, source))
    unknown = [n for n in config.default_providers if n not in seen]
    if unknown:
        raise ConfigError(f"{source}: default_providers names undefined provider(s) {', '.join(unknown)}")
    if len(set(config.default_providers)) != len(config.default_providers):
        raise ConfigError(f"{source}: default_providers names a provider twice")
    return config.model_copy(update={"providers": resolved})


def _resolve(spec: ProviderSpec, defaults: ConfigDefaults, registry: Mapping[str, type[Provider]], source: str) -> ProviderSpec:
    where = f"{source}: provider {spec.name!r}"
    cls = registry.get(spec.type)
    if cls is None:
        raise ConfigError(f"{where}: unknown type {spec.type!r}; known types: {', '.join(sorted(registry))} "
                          f"({TYPE_SOURCES})")
    contract = spec.output_contract or cls.default_contract()
    if contract not in cls.output_contracts:
        raise ConfigError(f"{where}: output_contract {contract!r} is not one {spec.type} produces "
                          f"({', '.join(cls.output_contracts)})")
    try:
        cls.validate_options(spec.options)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    bad = malformed_placeholders(spec.options)
    if bad:
        raise ConfigError(f"{where}: malformed placeholder in {bad[0]!r}; write ${{ENV_VAR}} (letters, digits, _)")
    for option in sorted(cls.secret_options & set(spec.options)):
        if not has_placeholder(spec.options[option]):
            raise ConfigError(f"{where}: option {option!r} is a credential and must be an ${{ENV_VAR}} placeholder, "
                              "never a literal value")
    _check_not_secret(spec, cls, where)
    hosted = cls.family == "hosted"
    if not hosted and (spec.dns_mode is not None or spec.doh_url is not None):
        raise ConfigError(f"{where}: dns_mode/doh_url apply to hosted API providers only ({spec.type} is {cls.family})")
    dns_mode = (spec.dns_mode or defaults.dns_mode) if hosted else "system"
    doh_url = (spec.doh_url or defaults.doh_url) if hosted else None
    if dns_mode == "public_doh" and not (doh_url or "").startswith(("https://", "http://")):
        raise ConfigError(f"{where}: dns_mode public_doh needs doh_url, the resolver's https URL")
    return spec.model_copy(update={"output_contract": contract, "dns_mode": dns_mode,
                                   "doh_url": doh_url if dns_mode == "public_doh" else None,
                                   "log_level": spec.log_level or defaults.log_level})


def _check_not_secret(spec: ProviderSpec, cls: type[Provider], where: str) -> None:
    """``not_secret`` may name only variables this provider's options use, and none that a credential
    option (``api_key``) uses: that value would then be written unredacted."""
    used = placeholder_names(spec.options)
    for name in spec.not_secret:
        if name not in used:
            raise ConfigError(f"{where}: not_secret names {name!r}, which no option uses "
                              f"(placeholders: {', '.join(used) or 'none'})")
        secret = sorted(o for o in cls.secret_options & set(spec.options) if name in placeholder_names(spec.options[o]))
        if secret:
            raise ConfigError(f"{where}: not_secret names {name!r}, but the credential option {secret[0]!r} uses it; "
                              "a credential is always redacted")


def builtin_provider_config(registry: Mapping[str, type[Provider]], default_providers: list[str]) -> ProviderConfig:
    """The configuration used without ``--provider-config``: every local and control type under its own
    name with default options; ``default_providers`` as given."""
    providers = [{"name": name, "type": name} for name, cls in registry.items() if cls.family in ("local", "control")]
    return parse_provider_config({"schema_version": 1, "default_providers": default_providers, "providers": providers},
                                 registry, source="built-in configuration")
