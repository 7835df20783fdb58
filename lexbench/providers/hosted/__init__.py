"""Hosted fetch APIs: one adapter per service on the shared HTTP boundary (SPEC §3.1, §5).

:mod:`~lexbench.providers.hosted.base` holds :class:`HostedProvider`, the base every adapter builds on
(an adapter writes ``build_request`` and ``parse_response``); each other module is one service:

=========================  ===========================  ==========================================
type                       module                       native endpoint (default; configurable)
=========================  ===========================  ==========================================
``brightdata-unlocker``    :mod:`.brightdata`           ``POST api.brightdata.com/request``
``browser-use-fetch``      :mod:`.browser_use`          refused: no documented fetch endpoint
``browserbase-fetch``      :mod:`.browserbase`          ``POST api.browserbase.com/v1/fetch``
``deepseek-fetch``         :mod:`.deepseek`             ``POST api.deepseek.com/v1/tools/fetch``
``crawl4ai-cloud``         :mod:`.crawl4ai_cloud`       ``POST api.crawl4ai.com/v1/scrape``
``jina-reader``            :mod:`.jina`                 ``POST r.jina.ai/``
``firecrawl``              :mod:`.firecrawl`            ``POST api.firecrawl.dev/v2/scrape``
``exa-contents``           :mod:`.exa`                  ``POST api.exa.ai/contents``
``tavily-extract``         :mod:`.tavily`               ``POST api.tavily.com/extract``
``cloudflare-markdown``    :mod:`.cloudflare`           ``POST api.cloudflare.com/client/v4/accounts/{id}/browser-rendering/markdown``
``spider``                 :mod:`.spider`               ``POST api.spider.cloud/crawl`` (limit 1)
``scrapingbee``            :mod:`.scrapingbee`          ``GET app.scrapingbee.com/api/v1/``
``zyte-api``               :mod:`.zyte`                 ``POST api.zyte.com/v1/extract`` (HTML → Markdown here)
=========================  ===========================  ==========================================

This package imports none of them: the registry (:data:`lexbench.providers.PROVIDER_TYPES`) imports the
module of the type it builds, and :mod:`~lexbench.providers.hosted.adapters` lists them all, for tests.

Every adapter sends the case URL as it is to the service (no filtering by track), never downloads the
page itself and never substitutes a local browser; rendering and retries inside the service are the
service's own. Tests: ``tests/providers/test_hosted_adapters.py`` against the loopback fakes in
``tests/providers/hosted_fakes.py``.
"""
