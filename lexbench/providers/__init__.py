"""Providers: the registry of provider types, building configured providers, and the one call path
every item uses (SPEC §5).

The pieces, in the order a call meets them: :mod:`~lexbench.providers.config` (named providers),
:mod:`~lexbench.providers.build` (a configured provider from its type), :mod:`~lexbench.providers.base`
(the interface), :mod:`~lexbench.providers.policy` (deadline, retries, late answers, redaction:
:func:`call_provider`), :mod:`~lexbench.providers.call` (what one call carries: deadline, ``FetchError``),
:mod:`~lexbench.providers.http` (the shared HTTP boundary) with :mod:`~lexbench.providers.guard` and
:mod:`~lexbench.providers.resolve`, :mod:`~lexbench.providers.hosted` (one adapter per hosted fetch API),
:mod:`~lexbench.providers.extraction` (the killable extraction worker). What comes back is
:mod:`lexbench.answer`.

Importing this package is cheap: the registry names each type's class as ``"module:Class"`` and imports
an adapter only when it is looked up (to build it, or to read its family), and the public names below
load their module on first use. So the scorer and ``lexbench report``, which import leaves of this
package (credentials), never load httpx, the extractors, the engines or any adapter.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from lexbench.errors import ConfigError

if TYPE_CHECKING:  # only the annotations need it; the public names load through __getattr__ below
    from lexbench.providers.base import Provider


ENTRY_POINT_GROUP = "lexbench.providers"
"""The entry-point group in which an installed distribution declares its provider types
(``type name = "module:Class"``, a :class:`~lexbench.providers.base.Provider` subclass)."""

TYPE_SOURCES = (f"provider types are lexbench's built-in ones, those installed distributions declare in the "
                f"{ENTRY_POINT_GROUP!r} entry-point group, and those a conftest.py returns from the "
                "pytest_lexbench_provider_types hook")
"""Where provider types come from, for the error about an unknown type."""


class ProviderRegistry(Mapping[str, "type[Provider]"]):
    """Provider types by type name; each class is imported on its first lookup.

    Built from ``{type name: "package.module:Class"}`` (the built-in types), to which the entry points
    of ``group`` (:data:`ENTRY_POINT_GROUP`) are added on first use (reading the installed
    distributions' metadata, not importing them), and the classes :meth:`register` adds. Iterating, ``len`` and ``in`` read
    the names only; ``registry[name]`` imports the class (``KeyError`` for an unknown name; an
    ``ImportError`` of a broken built-in module propagates, naming it; an entry point that cannot be
    imported, or names no ``Provider`` subclass of that ``type_name``, raises :class:`ConfigError`
    naming its distribution).
    """

    def __init__(self, paths: Mapping[str, str], *, group: str | None = None) -> None:
        self._entries: dict[str, str | type[Provider]] = dict(paths)
        self.builtin: tuple[str, ...] = tuple(paths)
        self._group = group
        self._origins: dict[str, str] = {}  # type name -> the entry point that declared it

    def discover(self) -> None:
        """Read the installed distributions' entry points now (they are otherwise read on first use), so
        that a session refuses a bad one before it starts. Raises :class:`ConfigError` for one that takes
        a built-in type's name, naming its distribution."""
        self._discover()

    def _discover(self) -> None:
        """Add the entry points of the group, once. Raises :class:`ConfigError` for one that takes a
        built-in type's name."""
        if self._group is None:
            return
        group, self._group = self._group, None
        from importlib.metadata import entry_points

        for point in entry_points(group=group):
            dist = point.dist.name if point.dist is not None else "an unnamed distribution"
            origin = f"entry point {point.name} = {point.value!r} of {dist} (group {group})"
            if point.name in self.builtin:
                raise ConfigError(f"{origin}: {point.name!r} is a built-in provider type; rename the entry point "
                                  f"in {dist}, or uninstall it (pip uninstall {dist})")
            self._entries.setdefault(point.name, point.value)
            self._origins.setdefault(point.name, origin)

    def __getitem__(self, name: str) -> type[Provider]:
        self._discover()  # on the first lookup of any name, so an entry point taking a built-in name is refused
        entry = self._entries[name]
        if isinstance(entry, str):
            entry = self._entries[name] = self._load(name, entry)
        return entry

    def _load(self, name: str, path: str) -> type[Provider]:
        module, _, attr = path.partition(":")
        origin = self._origins.get(name)
        if origin is None:  # built-in: a failure is lexbench's own bug, shown as it is
            return getattr(importlib.import_module(module), attr)
        from lexbench.providers.base import Provider  # with the HTTP stack: only to check an entry point's type

        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"{origin}: cannot be imported: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Provider)):
            raise ConfigError(f"{origin}: names {cls!r}, not a subclass of lexbench.Provider")
        if getattr(cls, "type_name", None) != name:
            raise ConfigError(f"{origin}: the class's type_name is {getattr(cls, 'type_name', None)!r}; "
                              f"make it {name!r}, the entry point's name")
        return cls

    def __contains__(self, name: object) -> bool:
        self._discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._discover()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self._discover()
        return len(self._entries)

    def origin(self, name: str) -> str:
        """Where type ``name`` comes from: ``built-in``, its entry point, or ``registered``."""
        if name in self.builtin:
            return "built-in"
        return self._origins.get(name, "registered")

    def register(self, cls: type[Provider]) -> type[Provider]:
        """Add ``cls`` under ``cls.type_name``. Raises :class:`ConfigError` when another class holds the name."""
        existing = self._entries.get(cls.type_name)
        own_path = f"{cls.__module__}:{cls.__qualname__}"
        if existing is not None and existing is not cls and existing != own_path:
            held = existing if isinstance(existing, str) else existing.__qualname__
            raise ConfigError(f"provider type {cls.type_name!r} is already registered ({held})")
        self._entries[cls.type_name] = cls
        return cls

    def unregister(self, cls: type[Provider]) -> None:
        """Remove ``cls`` added by :meth:`register` (a registration that ends with its pytest session)."""
        if self._entries.get(cls.type_name) is cls and cls.type_name not in self.builtin:
            del self._entries[cls.type_name]


PROVIDER_TYPES = ProviderRegistry({
    "http-markdownify": "lexbench.providers.local:HttpMarkdownify",
    "trafilatura": "lexbench.providers.local:Trafilatura",
    "readability": "lexbench.providers.local:Readability",
    "reference-echo": "lexbench.providers.local:ReferenceEcho",
    "static-shell": "lexbench.providers.controls:StaticShell",
    "rendered-control": "lexbench.providers.controls:RenderedControl",
    "headless-markdown": "lexbench.providers.headless:HeadlessMarkdown",
    "headless-html": "lexbench.providers.headless:HeadlessHtml",
    "readability-js": "lexbench.providers.thirdparty:ReadabilityJs",
    "crawl4ai": "lexbench.providers.thirdparty:Crawl4ai",
    "langchain": "lexbench.providers.thirdparty:LangChain",
    "brightdata-unlocker": "lexbench.providers.hosted.brightdata:BrightDataUnlocker",
    "browser-use-fetch": "lexbench.providers.hosted.browser_use:BrowserUseFetch",
    "browserbase-fetch": "lexbench.providers.hosted.browserbase:BrowserbaseFetch",
    "deepseek-fetch": "lexbench.providers.hosted.deepseek:DeepSeekFetch",
    "crawl4ai-cloud": "lexbench.providers.hosted.crawl4ai_cloud:Crawl4aiCloud",
    "jina-reader": "lexbench.providers.hosted.jina:JinaReader",
    "firecrawl": "lexbench.providers.hosted.firecrawl:Firecrawl",
    "exa-contents": "lexbench.providers.hosted.exa:ExaContents",
    "tavily-extract": "lexbench.providers.hosted.tavily:TavilyExtract",
    "cloudflare-markdown": "lexbench.providers.hosted.cloudflare:CloudflareMarkdown",
    "spider": "lexbench.providers.hosted.spider:Spider",
    "scrapingbee": "lexbench.providers.hosted.scrapingbee:ScrapingBee",
    "zyte-api": "lexbench.providers.hosted.zyte:ZyteApi",
}, group=ENTRY_POINT_GROUP)
"""Every provider type by its type name: the built-in ones, an installed distribution's entry points
(:data:`ENTRY_POINT_GROUP`) and the classes :func:`register_provider_type` adds."""

DEFAULT_PROVIDERS: tuple[str, ...] = ("http-markdownify", "trafilatura", "readability", "reference-echo")
"""What ``make bench`` and a bare ``pytest`` run: the local providers plus the control."""

# The public names and the module that defines each, loaded on first use (PEP 562).
_EXPORTS = {
    "Provider": "lexbench.providers.base",
    "FetchError": "lexbench.providers.call",
    "ProviderConfig": "lexbench.providers.config",
    "ProviderSpec": "lexbench.providers.config",
    "RuntimePolicy": "lexbench.providers.policy",
    "call_provider": "lexbench.providers.policy",
    "build_provider": "lexbench.providers.build",
    "default_config": "lexbench.providers.build",
    "load_config": "lexbench.providers.build",
}

__all__ = ["DEFAULT_PROVIDERS", "ENTRY_POINT_GROUP", "PROVIDER_TYPES", "TYPE_SOURCES", "ProviderRegistry",
           "register_provider_type", *sorted(_EXPORTS)]


def register_provider_type(cls: type[Provider]) -> type[Provider]:
    """Add ``cls`` to :data:`PROVIDER_TYPES` under ``cls.type_name`` (usable as a class decorator).

    Raises :class:`ConfigError` when another class already holds that name.
    """
    return PROVIDER_TYPES.register(cls)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
