"""lexbench worker: local crawl4ai attached to an already running Chromium over CDP; one page per process.

    python worker.py --version
    python worker.py --cdp-url=WS [--wait-until=load|networkidle] [--selector=CSS] [--min-count=N]
                     [--delay-ms=MS] [--timeout-ms=MS] URL

Prints one JSON object: success, status, final_url, title, markdown, error. The browser belongs to the
caller (its command line comes from lexbench's ENGINES); this process only drives a page in it. Runs with
the interpreter of the environment that has the ``crawl4ai`` extra; imports nothing from lexbench.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from importlib import metadata


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", action="store_true")
    parser.add_argument("--cdp-url")
    parser.add_argument("--wait-until", default="load")
    parser.add_argument("--selector")
    parser.add_argument("--min-count", type=int, default=1)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--timeout-ms", type=int, default=30000)
    parser.add_argument("url", nargs="?")
    return parser.parse_args()


async def _crawl(args: argparse.Namespace) -> dict:
    from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig

    wait_for = None
    if args.selector:
        wait_for = f"js:() => document.querySelectorAll({json.dumps(args.selector)}).length >= {args.min_count}"
    browser = BrowserConfig(cdp_url=args.cdp_url, browser_mode="cdp", headless=True, verbose=False)
    run = CrawlerRunConfig(cache_mode=CacheMode.BYPASS, wait_until=args.wait_until, wait_for=wait_for,
                           wait_for_timeout=args.timeout_ms, page_timeout=args.timeout_ms,
                           delay_before_return_html=args.delay_ms / 1000, verbose=False)
    async with AsyncWebCrawler(config=browser) as crawler:
        result = await crawler.arun(args.url, config=run)
    markdown = getattr(result.markdown, "raw_markdown", None) or ""
    return {"success": bool(result.success), "status": result.status_code, "final_url": result.redirected_url,
            "title": (result.metadata or {}).get("title"), "markdown": markdown, "error": result.error_message}


def main() -> None:
    args = _arguments()
    if args.version:
        print(f"crawl4ai {metadata.version('crawl4ai')}")
        return
    os.environ.setdefault("CRAWL4AI_NO_CLOUD_NOTICE", "1")
    # crawl4ai keeps a cache and logs under its base directory: keep them out of the user's home.
    with tempfile.TemporaryDirectory(prefix="lexbench-crawl4ai-") as base:
        os.environ["CRAWL4_AI_BASE_DIRECTORY"] = base
        real_stdout, sys.stdout = sys.stdout, sys.stderr  # crawl4ai prints banners; stdout carries only the JSON
        try:
            answer = asyncio.run(_crawl(args))
        finally:
            sys.stdout = real_stdout
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
