"""Golden command lines of every engine × route × completion setting, and of the workers (SPEC §1, §5).

One JSON object per line in ``golden/__snapshots__/test_engine_command_lines/<test>.jsonl``: the exact
argv (and, for CDP engines, the page steps) that ``ENGINES`` produces, or the refusal an unsupported
combination gets before any call. Changing a template fails here until ``pytest golden
--snapshot-update`` rewrites the snapshot and the diff is reviewed.
"""

from __future__ import annotations

import json

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from lexbench.errors import ConfigError
from lexbench.dataset.case import Delivery
from lexbench.providers.engines import ENGINES, ROUTE_CONTRACTS, Completion, cdp_steps, command_line, select_route
from lexbench.providers.thirdparty import WORKERS, Crawl4ai

COMPLETIONS = {
    "load": Completion(),
    "network-idle": Completion(wait="network_idle"),
    "virtual-time-5000ms": Completion(wait="virtual_time", virtual_time_budget_ms=5000),
    "selector-count": Completion(selector="article p", min_count=3, timeout_ms=8000),
    "selector-frame": Completion(selector="main p", frame="content", timeout_ms=8000),
    "delay-1500ms": Completion(delay_ms=1500),
    "timeout-8000ms": Completion(timeout_ms=8000),
}
BINARIES = {"one_shot": "/usr/bin/chromium", "cdp": "/usr/bin/chromium", "node": "/usr/bin/node"}
URL = "http://127.0.0.1:8000/replay/article-001-en-example"
PROFILE = "/tmp/lexbench-profile-XXXX"
WORKER = "providers/workers/readability-js/worker.mjs"
PROXY = "127.0.0.1:PROXY_PORT"  # the call's guarding proxy; its port is ephemeral


class JsonLinesSnapshot(SingleFileSnapshotExtension):
    """One snapshot file per test holding JSON lines exactly (UTF-8, ``.jsonl``)."""

    _write_mode = WriteMode.TEXT
    file_extension = "jsonl"


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(JsonLinesSnapshot)


def _line(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=False, separators=(", ", ": "))


def _engine_line(engine_name: str, route: str, setting: str, completion: Completion, mode: str) -> str:
    eng = ENGINES[engine_name]
    try:
        argv = command_line(eng, route=route, completion=completion, binary=BINARIES[eng.driver], url=URL, proxy=PROXY,
                            profile=PROFILE, replay_host="127.0.0.1" if mode == "replay" else None, worker=WORKER)
    except ConfigError as exc:
        return _line(engine=engine_name, route=route, completion=setting, mode=mode, refused=str(exc))
    steps = cdp_steps(eng, completion, route=route)
    return _line(engine=engine_name, route=route, completion=setting, mode=mode, argv=argv,
                 **({"cdp_steps": steps} if steps else {}))


def test_engine_command_lines(golden):
    lines = [
        _engine_line(name, route, setting, completion, mode)
        for name in sorted(ENGINES)
        for route in ROUTE_CONTRACTS
        for setting, completion in COMPLETIONS.items()
        for mode in ("replay", "live")
    ]
    assert "\n".join(lines) + "\n" == golden


def test_worker_command_lines(golden):
    lines = []
    for setting, completion in COMPLETIONS.items():
        for name, worker in sorted(WORKERS.items()):
            try:
                worker.refuse(completion)
            except ConfigError as exc:
                lines.append(_line(worker=name, completion=setting, refused=str(exc)))
                continue
            if name == "readability-js":
                argv = command_line(ENGINES["jsdom"], route="headless_markdown", completion=completion,
                                    binary=BINARIES["node"], url=URL, proxy=PROXY, replay_host="127.0.0.1", worker=WORKER,
                                    output="readability")
                lines.append(_line(worker=name, completion=setting, argv=argv))
            else:
                browser = command_line(ENGINES[worker.runs_on], route="headless_markdown", completion=Completion(),
                                       binary=BINARIES["cdp"], url=URL, proxy=PROXY, profile=PROFILE,
                                       replay_host="127.0.0.1")
                provider = Crawl4ai("crawl4ai", {"binary": "/usr/bin/chromium", "expected_version": "156",
                                                 "python": "python3",
                                                 "completion": completion.model_dump(exclude_defaults=True)})
                argv = provider.worker_argv("ws://127.0.0.1:PORT/devtools/browser/ID", URL)
                argv[1] = "providers/workers/crawl4ai/worker.py"  # the checkout's absolute path varies
                lines.append(_line(worker=name, completion=setting, browser_argv=browser, argv=argv))
    assert "\n".join(lines) + "\n" == golden


def test_delivery_routes(golden):
    """Every engine × non-text delivery × completion: the route the task selects and what then runs (the
    browser's argv and, over CDP, the page steps), or the refusal before any call (SPEC §2)."""
    lines = []
    for name in sorted(ENGINES):
        eng = ENGINES[name]
        for delivery in (Delivery.FILE, Delivery.RESOURCES):
            for setting in ("load", "network-idle", "selector-count", "timeout-8000ms"):
                completion = COMPLETIONS[setting]
                try:
                    route = select_route("headless_html", completion, delivery, eng=eng)
                    argv = command_line(eng, route="headless_html", completion=completion, binary=BINARIES[eng.driver],
                                        url=URL, proxy=PROXY, profile=PROFILE, replay_host="127.0.0.1", worker=WORKER)
                except ConfigError as exc:
                    lines.append(_line(engine=name, delivery=delivery.value, completion=setting, refused=str(exc)))
                    continue
                steps = cdp_steps(eng, completion, route=route)
                lines.append(_line(engine=name, delivery=delivery.value, completion=setting, route=route, argv=argv,
                                   **({"cdp_steps": steps} if steps else {})))
    assert "\n".join(lines) + "\n" == golden
