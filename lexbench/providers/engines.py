"""``ENGINES``: one definition per headless engine, and the decisions that depend on it (SPEC §5).

Every other module asks this table instead of testing an engine's name. An :class:`Engine` holds

- its command-line template (placeholders ``{binary}``, ``{profile}``, ``{url}``, ``{worker}``,
  ``{output}``) and the arguments its native CDP server needs, if it has one;
- the arguments every run gets (headless, no sandbox for root, and the background-networking flags
  without which Chromium floods a closed network with refused connections), the ones that send every
  request through the call's guarding proxy (:mod:`~lexbench.providers.guard_proxy`; ``{proxy}``), and
  the ones replay mode adds (the jsdom worker's ``--allow-host``);
- its completion semantics: which waits it offers (``load``, ``network_idle``, a ``virtual_time``
  budget) and which DOM constraints it applies (selector/count, frame, delay, timeout), and how each
  reaches the engine (command-line arguments or CDP steps);
- the routes it supports (``headless_markdown``: rendered DOM → markdownify, shared leaderboard;
  ``headless_html``: the rendered HTML itself, the separate diagnostics leaderboard), the task deliveries
  it has a route for (SPEC §2: ``file`` → :data:`FILE_ROUTE`, the document's response bytes;
  ``resources`` → :data:`RESOURCES_ROUTE`, the resource URLs of the completed DOM) and the result
  metadata it can fill.

:func:`command_line` and :func:`cdp_steps` turn (engine, route, completion) into exactly what runs;
``golden/test_engine_command_lines.py`` pins both for every combination. :func:`check_completion`
and :func:`select_route` refuse, before any call, what an engine cannot do and the combinations the
provider contract rejects (DOM completion with direct file delivery; the version-2 text scope with
resource discovery).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from lexbench.dataset.case import Delivery, DomCompletion
from lexbench.errors import ConfigError

Route = Literal["headless_markdown", "headless_html"]
"""``headless_markdown``: the completed DOM converted with markdownify (output contract ``cleaned``);
``headless_html``: the completed DOM's HTML (output contract ``rendered_html``)."""
ROUTE_CONTRACTS: Mapping[str, str] = {"headless_markdown": "cleaned", "headless_html": "rendered_html"}
"""The output contract each route's answers are scored under."""

Wait = Literal["load", "network_idle", "virtual_time"]
Driver = Literal["one_shot", "cdp", "node"]
"""How an adapter runs the engine: one command whose stdout is the answer; a browser whose CDP server
the adapter drives; a Node worker script printing one JSON object."""
Constraint = Literal["selector", "count", "frame", "delay", "timeout"]
FILE_ROUTE = "file_bytes"
"""The route of a ``file`` task: the response bytes of the URL itself, no DOM completion (SPEC §2)."""
RESOURCES_ROUTE = "resource_urls"
"""The route of a ``resources`` task: the completed DOM's resource URLs (:data:`RESOURCE_ATTRIBUTES`)."""
RESOURCE_ATTRIBUTES: tuple[tuple[str, str], ...] = (("a", "href"), ("area", "href"), ("img", "src"))
"""What a resource is, for the resources route (SPEC §2): the target of every ``<a href>`` and ``<area
href>`` (documents and pages the page links to) and the source of every ``<img src>`` (its images), in the
completed DOM, resolved against the page (its ``<base href>`` honoured). ``srcset``, ``data-src``, scripts,
styles and fonts are not resources of the task: they are how the page is built, not what it offers."""


class Completion(BaseModel):
    """When the DOM counts as complete, applied before text or HTML is taken (SPEC §5, provider contract
    "Task delivery and DOM completion").

    ``wait``: ``load`` (the load event), ``network_idle`` (no network activity for 500 ms) or
    ``virtual_time`` (run the page on virtual time for ``virtual_time_budget_ms``). ``selector``: a CSS
    selector that must match at least ``min_count`` elements, in the frame whose name or URL contains
    ``frame`` when given, or in the same-origin iframe the CSS selector ``frame_selector`` matches (a
    case's ``dom_completion.frame``, :func:`case_completion`). ``delay_ms``: extra milliseconds after the condition holds. ``timeout_ms``:
    how long the condition may take (default: whatever is left of the call deadline); an unmet condition
    fails the call as ``timeout`` with the content kept. Raises ``ValueError`` on inconsistent fields.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    wait: Wait = "load"
    virtual_time_budget_ms: PositiveInt | None = None
    selector: str | None = Field(default=None, min_length=1)
    min_count: PositiveInt = 1
    frame: str | None = Field(default=None, min_length=1)
    frame_selector: str | None = Field(default=None, min_length=1)
    delay_ms: int = Field(default=0, ge=0)
    timeout_ms: PositiveInt | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Completion:
        if (self.wait == "virtual_time") != (self.virtual_time_budget_ms is not None):
            raise ValueError("virtual_time_budget_ms goes with wait 'virtual_time', and only with it")
        if self.selector is None and (self.min_count != 1 or self.frame is not None or self.frame_selector is not None):
            raise ValueError("min_count and frame constrain a selector: give selector too")
        if self.frame is not None and self.frame_selector is not None:
            raise ValueError("give frame (a frame's name or URL) or frame_selector (an iframe's CSS selector), not both")
        return self

    def constraints(self) -> list[Constraint]:
        """The DOM constraints this completion uses, in a fixed order."""
        used: list[Constraint] = []
        if self.selector is not None:
            used.append("selector")
        if self.min_count != 1:
            used.append("count")
        if self.frame is not None or self.frame_selector is not None:
            used.append("frame")
        if self.delay_ms:
            used.append("delay")
        if self.timeout_ms is not None:
            used.append("timeout")
        return used

    @property
    def dynamic(self) -> bool:
        """True when anything beyond the plain load event is asked for (a rendered-page condition)."""
        return self.wait != "load" or bool(self.constraints())


@dataclass(frozen=True)
class Engine:
    """One engine's definition; see the module docstring. Templates are tuples of argument strings."""

    name: str
    driver: Driver
    description: str
    default_binary: str
    version_argv: tuple[str, ...]
    version_pattern: str
    """Regular expression over the version command's output; group 1 is the version."""
    install_hint: str
    command: tuple[str, ...]
    base_args: tuple[str, ...] = ()
    cdp_server_args: tuple[str, ...] = ()
    replay_args: tuple[str, ...] = ()
    """Added in replay mode; ``{replay_host}`` is the replay server's IP literal."""
    guard_args: tuple[str, ...] = ()
    """Added to every run: every request the engine makes goes through the call's guarding proxy at
    ``{proxy}`` (``127.0.0.1:PORT``), with no bypass."""
    waits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each supported wait → the arguments it adds (``{budget_ms}`` for virtual time)."""
    constraint_args: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each supported DOM constraint → the arguments it adds (empty for CDP, which applies it by steps)."""
    routes: tuple[Route, ...] = ("headless_markdown", "headless_html")
    deliveries: tuple[str, ...] = ("text",)
    """The task deliveries (SPEC §2) this engine has a route for: ``text`` always, ``file`` and/or
    ``resources`` where the driver implements them."""
    records: tuple[str, ...] = ()
    """The ProviderResult / ResultMetadata fields this engine fills (beyond content and engine)."""
    version_prefix: str = ""
    """Added in front of the probed version when the version command reports a different program."""

    def supports(self, completion: Completion) -> list[str]:
        """What ``completion`` asks for that this engine cannot do (empty when it can do all of it)."""
        missing = [] if completion.wait in self.waits else [f"wait {completion.wait!r}"]
        return missing + [c for c in completion.constraints() if c not in self.constraint_args]


_CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    # Without these Chromium calls home at every start; on a closed network each call is refused.
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
    "--disable-quic", "--mute-audio", "--user-data-dir={profile}",
)
# Every request through the guarding proxy, loopback included (Chromium bypasses a proxy for loopback
# unless told `<-loopback>`); Chromium itself resolves no name at all (the proxy resolves and guards),
# and WebRTC sends no UDP outside the proxy. QUIC is off in _CHROMIUM_FLAGS (it would bypass an HTTP proxy).
_CHROMIUM_GUARD = ("--proxy-server=http://{proxy}", "--proxy-bypass-list=<-loopback>",
                   "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                   "--force-webrtc-ip-handling-policy=disable_non_proxied_udp")
_CHROMIUM_VERSION = (("{binary}", "--version"), r"Chromium (\d+(?:\.\d+)+)")
_NODE_WORKER_ARGS = {
    "selector": ("--selector={selector}",), "count": ("--min-count={min_count}",),
    "delay": ("--delay-ms={delay_ms}",), "timeout": ("--timeout-ms={timeout_ms}",),
}

ENGINES: Mapping[str, Engine] = {
    engine.name: engine
    for engine in (
        Engine(
            name="chromium-dump-dom",
            driver="one_shot",
            description="Debian's Chromium run once per page with --dump-dom: prints the DOM after the load "
                        "event (or a virtual-time budget). Its exit code is 0 even for a 404 or a refused "
                        "connection, so the target status stays unknown.",
            default_binary="/usr/bin/chromium",
            version_argv=_CHROMIUM_VERSION[0], version_pattern=_CHROMIUM_VERSION[1],
            install_hint="apt-get install chromium",
            base_args=_CHROMIUM_FLAGS,
            command=("{binary}", "{base_args}", "{guard_args}", "{completion_args}", "--dump-dom", "{url}"),
            guard_args=_CHROMIUM_GUARD,
            waits={"load": (), "virtual_time": ("--virtual-time-budget={budget_ms}",)},
            constraint_args={"timeout": ("--timeout={timeout_ms}",)},
            records=("title",),
            deliveries=("text", "resources"),
        ),
        Engine(
            name="chromium-cdp",
            driver="cdp",
            description="Debian's Chromium started per call with its CDP server on a loopback port and "
                        "driven by Playwright for Python (connect_over_cdp): navigation reports the target "
                        "status, final URL and redirects; selector/count, frame, delay and timeout "
                        "constraints run as page steps.",
            default_binary="/usr/bin/chromium",
            version_argv=_CHROMIUM_VERSION[0], version_pattern=_CHROMIUM_VERSION[1],
            install_hint="apt-get install chromium; pip install -e '.[engines]' (Playwright, no browser download)",
            base_args=_CHROMIUM_FLAGS,
            cdp_server_args=("--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"),
            # No startup tab: connect_over_cdp would attach to it first (~0.2 s a call); Playwright's own
            # launch passes the same switch.
            command=("{binary}", "{base_args}", "{guard_args}", "{cdp_server_args}", "--no-startup-window"),
            guard_args=_CHROMIUM_GUARD,
            waits={"load": (), "network_idle": ()},
            constraint_args={"selector": (), "count": (), "frame": (), "delay": (), "timeout": ()},
            records=("title", "final_url", "upstream_status", "redirects", "content_type"),
            deliveries=("text", "file", "resources"),
        ),
        Engine(
            name="jsdom",
            driver="node",
            description="jsdom (npm) in a Node worker: fetches the page with Node's fetch, runs its scripts "
                        "in jsdom (no layout, no CSS), waits for the load event and any selector/count, "
                        "delay and timeout constraints, then prints the serialised DOM.",
            default_binary="node",
            version_argv=("{binary}", "{worker}", "--version"),
            version_pattern=r"jsdom (\d+(?:\.\d+)+)",
            install_hint="make workers (npm ci in providers/workers/readability-js; needs Node.js 18+)",
            command=("{binary}", "{worker}", "--output={output}", "{completion_args}", "{guard_args}", "{replay_args}",
                     "{url}"),
            guard_args=("--proxy=http://{proxy}",),
            replay_args=("--allow-host={replay_host}",),
            waits={"load": ()},
            constraint_args=_NODE_WORKER_ARGS,
            records=("title", "final_url", "upstream_status", "redirects", "content_type"),
            deliveries=("text", "resources"),
        ),
    )
}
"""Every engine by name (SPEC §5)."""


def engine(name: str) -> Engine:
    """The engine called ``name``; raises :class:`ConfigError` listing the known ones."""
    try:
        return ENGINES[name]
    except KeyError:
        raise ConfigError(f"unknown engine {name!r}; known: {', '.join(sorted(ENGINES))}") from None


def case_completion(configured: Completion, case: DomCompletion | None, eng: Engine) -> Completion:
    """The completion one call applies: the provider's ``configured`` one, with a case's DOM completion
    (SPEC §2: native retrieval parameters, never grading requirements) in place of its DOM constraints.

    ``selector``/``count``/``frame`` (a CSS selector: ``frame_selector``)/``delay_ms``/``timeout_ms`` map onto
    the same-named constraints. An engine without selector waits (``chromium-dump-dom``) receives none of
    them: its native retrieval has no DOM completion, and a lone timeout would only cut a page short; nor
    does an engine without frames (``jsdom``) for a completion inside an iframe, whose selector the page
    itself never matches. Otherwise an engine gets the constraints it applies: the case's completion
    helps it, never refuses the call. ``case`` ``None`` gives ``configured`` unchanged."""
    if case is None or "selector" not in eng.constraint_args or (case.frame and "frame" not in eng.constraint_args):
        return configured
    update: dict[str, object] = {"selector": case.selector, "min_count": case.count, "frame": None,
                                 "frame_selector": case.frame, "delay_ms": case.delay_ms, "timeout_ms": case.timeout_ms}
    for constraint, fields in (("count", ("min_count",)), ("delay", ("delay_ms",)), ("timeout", ("timeout_ms",))):
        if constraint not in eng.constraint_args:
            for name in fields:
                update[name] = Completion.model_fields[name].default
    return Completion.model_validate({**configured.model_dump(), **update})


def check_completion(eng: Engine, route: str, completion: Completion, *, text_scope: int = 1) -> None:
    """Refuse, before any call, what ``eng`` cannot do for ``route`` with ``completion``.

    ``text_scope`` 2 (text extraction limited to the elements the completion selector matches) needs a
    selector, since it is defined by the dynamic text route. Raises :class:`ConfigError` naming an engine
    that can, when one exists.
    """
    if route not in eng.routes:
        raise ConfigError(f"engine {eng.name} has no route {route!r} (routes: {', '.join(eng.routes)})")
    missing = eng.supports(completion)
    if missing:
        able = [e.name for e in ENGINES.values() if not e.supports(completion)]
        hint = f"; {', '.join(able)} can" if able else "; no engine supports that combination"
        raise ConfigError(f"engine {eng.name} cannot apply {', '.join(missing)}{hint}")
    if text_scope == 2 and completion.selector is None:
        raise ConfigError("text_scope 2 extracts the elements the completion selector matches: give "
                          "completion.selector (the dynamic text route)")


def select_route(route: str, completion: Completion, delivery: Delivery, *, text_scope: int = 1,
                 eng: Engine | None = None) -> str:
    """The output route for a task's ``delivery``, or a refusal before any call (provider contract, SPEC §2).

    ``text`` tasks take the configured ``route``; ``file`` tasks :data:`FILE_ROUTE`; ``resources`` tasks
    :data:`RESOURCES_ROUTE`. Raises :class:`ConfigError` for direct ``file`` delivery with any DOM
    completion (fetching response bytes cannot satisfy a rendered-page condition), for ``resources``
    delivery with ``text_scope`` 2 (that scope describes text extraction), and for a delivery ``eng``
    (when given) has no route for, naming the engines that have one.
    """
    if delivery is Delivery.TEXT:
        return route
    if delivery is Delivery.FILE and completion.dynamic:
        raise ConfigError("direct file delivery returns the response bytes and cannot claim a rendered-page "
                          f"condition ({_describe(completion)}) was satisfied: drop the DOM completion for file tasks")
    if delivery is Delivery.RESOURCES and text_scope == 2:
        raise ConfigError("text_scope 2 describes text extraction and needs the dynamic text route; it cannot be "
                          "combined with resource discovery")
    if eng is not None and delivery.value not in eng.deliveries:
        able = [e.name for e in ENGINES.values() if delivery.value in e.deliveries]
        raise ConfigError(f"engine {eng.name} has no route for {delivery.value!r} delivery"
                          + (f"; {', '.join(able)} can" if able else ""))
    return FILE_ROUTE if delivery is Delivery.FILE else RESOURCES_ROUTE


def _describe(completion: Completion) -> str:
    parts = [f"wait {completion.wait}"] if completion.wait != "load" else []
    return ", ".join(parts + list(completion.constraints())) or "load"


def _fill(template: tuple[str, ...], values: Mapping[str, object]) -> list[str]:
    return [part.format_map(values) for part in template]


def command_line(eng: Engine, *, route: str, completion: Completion, binary: str, url: str, proxy: str,
                 profile: str = "", replay_host: str | None = None, worker: str = "",
                 output: str | None = None) -> list[str]:
    """The exact argv that runs ``eng`` for one call (SPEC §5; pinned by the golden snapshot).

    ``proxy`` is the call's guarding proxy (``127.0.0.1:PORT``, :class:`~lexbench.providers.guard_proxy.GuardProxy`),
    which every request of the engine goes through; ``profile`` is the call's fresh profile directory; ``replay_host`` the replay server's IP literal in
    replay mode (``None`` live); ``worker`` the worker script of a Node engine; ``output`` what a Node
    worker prints (default ``html``). Raises :class:`ConfigError` when the engine cannot apply
    ``completion``.
    """
    check_completion(eng, route, completion)
    values: dict[str, object] = {
        "binary": binary, "url": url, "proxy": proxy, "profile": profile, "worker": worker, "output": output or "html",
        "replay_host": replay_host or "", "budget_ms": completion.virtual_time_budget_ms or 0,
        "selector": completion.selector or "", "min_count": completion.min_count, "delay_ms": completion.delay_ms,
        "timeout_ms": completion.timeout_ms or 0,
    }
    groups = {
        "base_args": _fill(eng.base_args, values),
        "cdp_server_args": list(eng.cdp_server_args),
        "guard_args": _fill(eng.guard_args, values),
        "replay_args": _fill(eng.replay_args, values) if replay_host else [],
        "completion_args": _fill(eng.waits[completion.wait], values)
        + [arg for c in completion.constraints() for arg in _fill(eng.constraint_args[c], values)],
    }
    argv: list[str] = []
    for part in eng.command:
        if part in ("{base_args}", "{cdp_server_args}", "{guard_args}", "{replay_args}", "{completion_args}"):
            argv += groups[part[1:-1]]
        else:
            argv.append(part.format_map(values))
    return argv


def cdp_steps(eng: Engine, completion: Completion, *, route: str, text_scope: int = 1) -> list[str]:
    """The page steps a CDP engine runs after starting, as readable strings (pinned by the golden snapshot).

    Empty for engines without a CDP driver. ``route`` may be a task route (:data:`FILE_ROUTE`,
    :data:`RESOURCES_ROUTE`). Timeouts are in milliseconds; ``{deadline}`` stands for what is left of the
    call deadline.
    """
    if eng.driver != "cdp":
        return []
    timeout = completion.timeout_ms if completion.timeout_ms is not None else "{deadline}"
    wait_until = {"load": "load", "network_idle": "networkidle"}[completion.wait]
    steps = ["connect_over_cdp(ws_url)", f"goto(url, wait_until={wait_until!r}, timeout={{deadline}})"]
    if completion.selector is not None:
        where = (f"frame matching {completion.frame!r}" if completion.frame else
                 f"iframe {completion.frame_selector!r}" if completion.frame_selector else "main frame")
        steps.append(f"wait until count({completion.selector!r}) >= {completion.min_count} in {where}, "
                     f"timeout={timeout}")
    if completion.delay_ms:
        steps.append(f"wait {completion.delay_ms} ms")
    if route == FILE_ROUTE:  # the document's own response, before the browser renders or downloads it
        return ["connect_over_cdp(ws_url)", "Fetch.enable(resourceType Document, requestStage Response)",
                "goto(url) until the document's response pauses (redirects continued), timeout={deadline}",
                "take Fetch.getResponseBody of the document, then fail the paused request (no rendering, no download)"]
    if text_scope == 2:
        steps.append(f"take outerHTML of each {completion.selector!r} match")
    else:
        steps.append("take page.content()")
    if route == RESOURCES_ROUTE:
        steps.append("resource URLs: " + ", ".join(f"{tag}[{attr}]" for tag, attr in RESOURCE_ATTRIBUTES)
                     + " of that HTML, resolved against the page URL")
    return steps


def parse_version(eng: Engine, output: str) -> str | None:
    """The version in a version command's ``output``, or ``None`` when it does not match."""
    match = re.search(eng.version_pattern, output)
    return match.group(1) if match else None


def version_matches(expected: str, actual: str) -> bool:
    """True when ``actual`` equals ``expected`` or extends it at a dot (``"156"`` matches ``"156.0.1"``)."""
    return actual == expected or actual.startswith(expected + ".")
