"""The bare side of figure 8: a plain Playwright loop over a suite's archive pages, no lexbench in the path.

    python -m benchmarks.bare_playwright SUITE_DIR [--workers 2] [--browser per-page|per-worker] [--binary B]

What a user without lexbench writes: the same replay server (:class:`lexbench.replay.ReplayServer` over the
suite's archives: the pages must be served), then ``--workers`` asyncio tasks that take the cases in turn
and for each one open Chromium (the same binary), go to the page, wait for its load event and for its DOM
completion as lexbench hands it to ``chromium-cdp`` (selector count, in the declared iframe; delay), and
read ``page.content()``. ``per-page`` starts a fresh browser for each page, as ``chromium-cdp`` does (a
fresh profile each time); ``per-worker`` keeps one browser per worker and opens a new context per case.
Prints one JSON line: ``{"pages", "seconds", "failed", "browser", "workers", "page_seconds"}``; ``seconds``
from the first page started to the last finished (the process's own start is timed by the caller),
``page_seconds`` each page's, browser start and close included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

COUNT = "([selector, count]) => document.querySelectorAll(selector).length >= count"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
         "--no-first-run", "--no-default-browser-check", "--disable-quic", "--mute-audio"]
"""The Chromium flags ``chromium-cdp`` passes, without its guarding proxy and resolver rules."""


async def main_async(args: argparse.Namespace) -> dict:
    from playwright.async_api import async_playwright

    from lexbench.dataset.suite import load_suite
    from lexbench.replay import ReplayServer

    suite = load_suite(args.suite)
    server = ReplayServer(suite.replay_pages()).start()
    queue: asyncio.Queue = asyncio.Queue()
    for case in suite.cases:
        queue.put_nowait(case)
    failed: list[str] = []
    page_seconds: list[float] = []
    async with async_playwright() as playwright:
        async def launch():  # type: ignore[no-untyped-def]
            # Playwright's own launch: a temporary profile it removes on close, as a bare script gets.
            return await playwright.chromium.launch(executable_path=args.binary, headless=True, args=FLAGS)

        async def worker() -> None:
            shared = await launch() if args.browser == "per-worker" else None
            try:
                while not queue.empty():
                    case = queue.get_nowait()
                    url = server.url_for(case.id)
                    completion = case.retrieval.dom_completion if case.retrieval else None
                    began = time.perf_counter()
                    browser = shared or await launch()
                    try:
                        html = await _page(browser, url, completion)
                        if not html.strip():
                            failed.append(case.id)
                    except Exception as exc:  # a page that does not complete is counted, as lexbench counts it
                        failed.append(f"{case.id}: {str(exc).splitlines()[0]}")
                    finally:
                        if shared is None:
                            await browser.close()
                        page_seconds.append(round(time.perf_counter() - began, 3))
            finally:
                if shared is not None:
                    await shared.close()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(args.workers)))
        seconds = time.perf_counter() - started
    server.stop()
    return {"pages": len(suite.cases), "seconds": round(seconds, 3), "failed": failed, "browser": args.browser,
            "workers": args.workers, "page_seconds": page_seconds}


async def _page(browser, url: str, completion) -> str:  # type: ignore[no-untyped-def]
    # A new context per case (a fresh profile per page in per-page mode: a fresh browser).
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(url, wait_until="load", timeout=30_000)
        frame = page.main_frame
        if completion is not None:
            if completion.frame:
                handle = await page.wait_for_selector(completion.frame, timeout=completion.timeout_ms)
                frame = await handle.content_frame()
            await frame.wait_for_function(COUNT, arg=[completion.selector, completion.count], timeout=completion.timeout_ms)
            if completion.delay_ms:
                await page.wait_for_timeout(completion.delay_ms)
        return await page.content()
    finally:
        await context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bare_playwright", description=__doc__.split("\n\n")[0])
    parser.add_argument("suite")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--browser", choices=("per-page", "per-worker"), default="per-page")
    parser.add_argument("--binary", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(main_async(args))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
