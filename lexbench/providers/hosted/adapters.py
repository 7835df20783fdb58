"""Every hosted adapter class, in the order the README's provider table lists them (tests and docs read
it; building a provider imports only its own module, through the registry)."""

from __future__ import annotations

from lexbench.providers.hosted.base import HostedProvider
from lexbench.providers.hosted.brightdata import BrightDataUnlocker
from lexbench.providers.hosted.browser_use import BrowserUseFetch
from lexbench.providers.hosted.browserbase import BrowserbaseFetch
from lexbench.providers.hosted.cloudflare import CloudflareMarkdown
from lexbench.providers.hosted.crawl4ai_cloud import Crawl4aiCloud
from lexbench.providers.hosted.deepseek import DeepSeekFetch
from lexbench.providers.hosted.exa import ExaContents
from lexbench.providers.hosted.firecrawl import Firecrawl
from lexbench.providers.hosted.jina import JinaReader
from lexbench.providers.hosted.scrapingbee import ScrapingBee
from lexbench.providers.hosted.spider import Spider
from lexbench.providers.hosted.tavily import TavilyExtract
from lexbench.providers.hosted.zyte import ZyteApi

HOSTED_PROVIDER_TYPES: tuple[type[HostedProvider], ...] = (
    BrightDataUnlocker, BrowserUseFetch, BrowserbaseFetch, DeepSeekFetch, Crawl4aiCloud, JinaReader, Firecrawl,
    ExaContents, TavilyExtract, CloudflareMarkdown, Spider, ScrapingBee, ZyteApi,
)
"""Every hosted adapter, in the order the README's provider table lists them (a ``refused`` one included,
so that configuring it gives its reason)."""
