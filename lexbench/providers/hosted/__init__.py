"""Hosted fetch APIs: one adapter per service on the shared HTTP boundary (SPEC §3.1, §5).

:mod:`~lexbench.providers.hosted.base` holds :class:`HostedProvider`, the base every adapter builds on
(an adapter writes ``build_request`` and ``parse_response``); each other module is one service:

=========================  ===========================  ==========================================
type                       module                       native endpoint (default; configurable)
=========================  ===========================  ==========================================
``brightdata-unlocker``    :mod:`.brightdata`           ``POST api.brightdata.com/request``
``browser-use-fetch``      :mod:`.browser_use`          ``POST api.browser-use.com/api/v2/fetch`` (unverified)
``browserbase-fetch``      :mod:`.browserbase`          ``POST api.browserbase.com/v1/fetch``
``deepseek-fetch``         :mod:`.deepseek`             ``POST api.deepseek.com/v1/tools/fetch``
``crawl4ai-cloud``         :mod:`.crawl4ai_cloud`       ``POST api.crawl4ai.com/v1/scrape``
=========================  ===========================  ==========================================

Every adapter sends the case URL as it is to the service (no filtering by track), never downloads the
page itself and never substitutes a local browser; rendering and retries inside the service are the
service's own.
"""

from __future__ import annotations

from lexbench.providers.hosted.base import HostedProvider, OptionType, excerpt, json_body, member, number, status_code
from lexbench.providers.hosted.brightdata import BrightDataUnlocker
from lexbench.providers.hosted.browser_use import BrowserUseFetch
from lexbench.providers.hosted.browserbase import BrowserbaseFetch
from lexbench.providers.hosted.crawl4ai_cloud import Crawl4aiCloud
from lexbench.providers.hosted.deepseek import DeepSeekFetch

HOSTED_PROVIDER_TYPES: tuple[type[HostedProvider], ...] = (
    BrightDataUnlocker, BrowserUseFetch, BrowserbaseFetch, DeepSeekFetch, Crawl4aiCloud,
)
"""Every hosted adapter, in the order the README's provider table lists them."""

__all__ = [
    "HOSTED_PROVIDER_TYPES", "BrightDataUnlocker", "BrowserUseFetch", "BrowserbaseFetch", "Crawl4aiCloud", "DeepSeekFetch",
    "HostedProvider", "OptionType", "excerpt", "json_body", "member", "number", "status_code",
]
