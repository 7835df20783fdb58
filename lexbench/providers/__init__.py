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


class ProviderRegistry(Mapping[str, "type[Provider]"]):
    """Provider types by type name; each class is imported on its first lookup.

    Built from ``{type name: "package.module:Class"}``. Iterating, ``len`` and ``in`` read the names only;
    ``registry[name]`` imports the class (``KeyError`` for an unknown name; an ``ImportError`` of a
    broken module propagates, naming it).
    """

    def __init__(self, paths: Mapping[str, str]) -> None:
        self._entries: dict[str, str | type[Provider]] = dict(paths)

    def __getitem__(self, name: str) -> type[Provider]:
        entry = self._entries[name]
        if isinstance(entry, str):
            module, _, attr = entry.partition(":")
            entry = self._entries[name] = getattr(importlib.import_module(module), attr)
        return entry

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def register(self, cls: type[Provider]) -> type[Provider]:
        """Add ``cls`` under ``cls.type_name``. Raises :class:`ConfigError` when another class holds the name."""
        existing = self._entries.get(cls.type_name)
        own_path = f"{cls.__module__}:{cls.__qualname__}"
        if existing is not None and existing is not cls and existing != own_path:
            held = existing if isinstance(existing, str) else existing.__qualname__
            raise ConfigError(f"provider type {cls.type_name!r} is already registered ({held})")
        self._entries[cls.type_name] = cls
        return cls


PROVIDER_TYPES = ProviderRegistry({
    "http-markdownify": "lexbench.providers.local:HttpMarkdownify",
    "trafilatura": "lexbench.providers.local:Trafilatura",
    "readability": "lexbench.providers.local:Readability",
    "reference-echo": "lexbench.providers.local:ReferenceEcho",
    "headless-markdown": "lexbench.providers.headless:HeadlessMarkdown",
    "headless-html": "lexbench.providers.headless:HeadlessHtml",
    "readability-js": "lexbench.providers.thirdparty:ReadabilityJs",
    "crawl4ai": "lexbench.providers.thirdparty:Crawl4ai",
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
})
"""Every provider type by its type name. Add a type with :func:`register_provider_type`."""

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

__all__ = ["DEFAULT_PROVIDERS", "PROVIDER_TYPES", "ProviderRegistry", "register_provider_type", *sorted(_EXPORTS)]


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
