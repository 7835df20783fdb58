"""Headless engine providers: ``headless-markdown`` and ``headless-html`` (SPEC §5, "headless engines").

A configuration names the engine, its binary and the version it expects; the route is the type::

    {"name": "chromium-cdp", "type": "headless-markdown",
     "options": {"engine": "chromium-cdp", "binary": "/usr/bin/chromium", "expected_version": "156",
                 "completion": {"wait": "load", "selector": "article p", "min_count": 3, "timeout_ms": 8000}}}

- ``headless-markdown`` (route ``headless_markdown``): the completed DOM, scripts and styles dropped,
  converted with markdownify; scored on the shared leaderboard (output contract ``cleaned``).
- ``headless-html`` (route ``headless_html``): the completed DOM's HTML; scored on the separate
  diagnostics leaderboard (output contract ``rendered_html``).

Before the first call :meth:`HeadlessProvider.prepare` runs the preflight: a missing binary, a missing
extra (Playwright, the Node worker's packages) or a version other than ``expected_version`` stops the
provider with the reason, so its items are skipped as unresolvable (``infrastructure``), never run
against the wrong engine. Per call, :func:`~lexbench.providers.engines.select_route` refuses what the
task's delivery rules out before anything starts; then one engine process runs in a fresh profile
directory under the call's deadline and the output ceiling, and is killed and reaped however the call
ends. Every request the engine makes goes through the call's guarding proxy
(:mod:`~lexbench.providers.guard_proxy`), which applies the provider's network guard: public addresses
only, live or replay, the replay server's own ``host:port`` excepted in replay mode.
"""

from __future__ import annotations

import ipaddress
import json
import shutil
from collections.abc import Callable, Coroutine, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar
from urllib.parse import urljoin, urlsplit

import lxml.html
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.case import Case
from lexbench.errors import ConfigError, LexbenchError
from lexbench.resources import shipped_dir
from lexbench.providers.base import Provider
from lexbench.providers.call import Deadline, FetchError
from lexbench.providers.cdp import PlaywrightLoop, fetch_document, net_error, render
from lexbench.providers.engine_process import MAX_OUTPUT_BYTES, EngineProcess, ProcessRun, fresh_profile, run_process
from lexbench.providers.guard_proxy import (
    GuardProxy, guarded_call, proxy_failure, proxy_page_error, record_hook_refusals,
)
from lexbench.providers.engines import (
    ENGINES, FILE_ROUTE, RESOURCE_ATTRIBUTES, RESOURCES_ROUTE, Completion, Engine, Route, case_completion, check_completion,
    command_line, engine, parse_version, select_route, version_matches,
)

WORKERS_DIR = shipped_dir("providers") / "workers"
"""Non-Python workers live in the checkout (SPEC §1 ``providers/``), not in the wheel."""
NODE_WORKER = WORKERS_DIR / "readability-js" / "worker.mjs"
PLAYWRIGHT_VERSION = "1.65.2"
"""The Playwright for Python release the ``engines`` extra pins; preflight rejects another."""
_PREFLIGHT_S = 30.0
KILL_RESERVE_S = 1.0
"""Seconds of the call deadline kept back so that killing and reaping an engine ends inside it."""
T = TypeVar("T")
_DROP_TAGS = ("head", "script", "style", "noscript", "template")


class PreflightError(LexbenchError):
    """An engine or worker cannot run here as configured: missing binary or extra, other version."""


class EngineOptions(BaseModel):
    """A headless provider's options (SPEC §5). ``engine``: a key of ``ENGINES``; ``binary``: the
    executable (a path or a name on PATH); ``expected_version``: the version preflight requires (exact,
    or a prefix at a dot: ``"156"`` accepts 156.0.8078.108); ``route``: optional, must equal the type's;
    ``completion``: :class:`~lexbench.providers.engines.Completion`; ``text_scope``: 1 (the whole
    document) or 2 (only the completion selector's matches); ``worker``: the Node worker script for
    Node engines (default: the checkout's); ``javascript``: whether the page's scripts run (CDP engines
    only; ``false`` renders a capture as sources that saved pages with JavaScript off saw it);
    ``inline_frames``: replace each same-origin iframe by its document's body before the HTML is taken
    (CDP engines only; the rendered control uses it); ``inline_shadow_roots``: likewise each open shadow
    root's tree, slots filled, becomes its host's content."""

    model_config = ConfigDict(extra="forbid")

    engine: str
    binary: str = Field(min_length=1)
    expected_version: str = Field(min_length=1)
    route: Route | None = None
    completion: Completion = Field(default_factory=Completion)
    text_scope: Literal[1, 2] = 1
    worker: str | None = None
    javascript: bool = True
    inline_frames: bool = False
    inline_shadow_roots: bool = False


def parse_options(options: Mapping[str, Any], route: Route) -> tuple[EngineOptions, Engine]:
    """Validate ``options`` for ``route``; raises ``ValueError`` naming the problem (the configuration
    loader reports it with the file and provider name)."""
    try:
        parsed = EngineOptions.model_validate(dict(options))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "options"
        raise ValueError(f"{where}: {first['msg']}") from None
    if parsed.route is not None and parsed.route != route:
        raise ValueError(f"route {parsed.route!r} does not match this type's route {route!r}")
    try:
        eng = engine(parsed.engine)
        check_completion(eng, route, parsed.completion, text_scope=parsed.text_scope)
        if not parsed.javascript and eng.driver != "cdp":
            raise ConfigError(f"javascript: false needs a CDP engine; {eng.name} does not drive one")
        for name in ("inline_frames", "inline_shadow_roots"):
            if getattr(parsed, name) and eng.driver != "cdp":
                raise ConfigError(f"{name} needs a CDP engine; {eng.name} does not drive one")
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return parsed, eng


def which(binary: str) -> str | None:
    """The executable's absolute path, or ``None`` when it is not installed."""
    return shutil.which(binary)


def probe_version(eng: Engine, binary: str, expected: str | None, *, worker: str = "") -> str:
    """Run the engine's version command and check it against ``expected`` (SPEC §5 preflight; ``None``
    accepts any version: a control's).

    Returns the version found. Raises :class:`PreflightError` for a missing binary, a failing or
    unreadable version command, or another version.
    """
    path = which(binary)
    if path is None:
        raise PreflightError(f"{eng.name}: {binary} is not installed ({eng.install_hint})")
    argv = [part.format(binary=path, worker=worker) for part in eng.version_argv]
    try:
        run = run_process(argv, _PREFLIGHT_S)
    except OSError as exc:
        raise PreflightError(f"{eng.name}: cannot run {path}: {exc.strerror or exc}") from None
    output = run.stdout.decode("utf-8", errors="replace") + run.stderr
    version = parse_version(eng, output) if run.returncode == 0 else None
    if version is None:
        tail = output.strip().splitlines()[-1:] or ["no output"]
        raise PreflightError(f"{eng.name}: `{' '.join(argv)}` did not report a version (exit {run.returncode}: "
                             f"{tail[0][:200]}); {eng.install_hint}")
    if expected is not None and not version_matches(expected, version):
        raise PreflightError(f"{eng.name}: {path} is version {version} but the configuration expects "
                             f"{expected}; install that version or update expected_version")
    return version


def check_playwright() -> str:
    """The installed Playwright for Python version; raises :class:`PreflightError` when it is missing or
    not the pinned :data:`PLAYWRIGHT_VERSION`."""
    try:
        version = metadata.version("playwright")
    except metadata.PackageNotFoundError:
        raise PreflightError("Playwright for Python is not installed: pip install -e '.[engines]' "
                             "(it drives the system Chromium; no browser download)") from None
    if version != PLAYWRIGHT_VERSION:
        raise PreflightError(f"Playwright for Python {version} is installed, lexbench pins {PLAYWRIGHT_VERSION}: "
                             "pip install -e '.[engines]'")
    return version


def replay_host(case: Case, url: str) -> str | None:
    """The replay server's IP literal when ``url`` is a loopback replay URL (replay mode), else ``None``."""
    host = urlsplit(url).hostname
    if url == case.url or host is None:
        return None
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None


def dom_to_markdown(html: str) -> tuple[str, str | None]:
    """(Markdown, title) of a rendered DOM: head, scripts, styles and templates dropped, the rest
    converted with markdownify (ATX headings). Empty input gives ``("", None)``."""
    if not html.strip():
        return "", None
    try:
        root = lxml.html.document_fromstring(html)
    except Exception:  # lxml raises on pathological documents
        return "", None
    title = root.findtext(".//title")
    for element in root.xpath("|".join(f"//{tag}" for tag in _DROP_TAGS)):
        element.drop_tree()
    body = lxml.html.tostring(root, encoding="unicode")
    import markdownify  # not at module import (~70 ms of every process's start-up); prepare() imports it

    return markdownify.markdownify(body, heading_style="ATX").strip(), (title.strip() or None) if title else None


def resource_urls(html: str, page_url: str) -> list[str]:
    """The resource URLs of a DOM's HTML (the ``resources`` route, SPEC §2): every
    :data:`~lexbench.providers.engines.RESOURCE_ATTRIBUTES` value, resolved against ``page_url`` (or the
    document's ``<base href>``, itself resolved against it), ``http``/``https`` only, fragments dropped,
    each once in document order. Empty for empty or unparsable HTML."""
    if not html.strip():
        return []
    try:
        root = lxml.html.document_fromstring(html)
    except Exception:  # lxml raises on pathological documents
        return []
    base = next((urljoin(page_url, b) for b in root.xpath("//base/@href")[:1]), page_url)
    found: dict[str, None] = {}
    for element in root.iter(*{tag for tag, _ in RESOURCE_ATTRIBUTES}):
        for tag, attribute in RESOURCE_ATTRIBUTES:
            value = element.get(attribute) if element.tag == tag else None
            if value and value.strip():
                url = urljoin(base, value.strip()).split("#", 1)[0]
                if urlsplit(url).scheme in ("http", "https"):
                    found.setdefault(url, None)
    return list(found)


class HeadlessProvider(Provider):
    """Base of the two route types; see the module docstring. Subclasses set ``route`` and the contract."""

    family = "engine"
    route: ClassVar[Route]
    deliveries = frozenset({"text", "file", "resources"})
    """What some engine has a route for; :meth:`delivery_refusal` asks this provider's engine."""
    option_names = frozenset(EngineOptions.model_fields)

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(name, options, **kwargs)
        try:
            self.config, self.engine = parse_options(self.options, self.route)
        except ValueError as exc:
            raise ConfigError(f"provider {self.name!r}: {exc}") from None
        self.version: str | None = None
        self._preflight_error: PreflightError | None = None

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        super().validate_options(options)
        parse_options(options, cls.route)

    @property
    def worker(self) -> str:
        return self.config.worker or str(NODE_WORKER)

    def prepare(self) -> None:
        """Preflight once per process (:meth:`preflight`). Raises :class:`PreflightError` (again on every
        attempt, without probing again) when the engine cannot run as configured."""
        if self.version is not None:
            return
        if self._preflight_error is not None:
            raise self._preflight_error
        try:
            self.version = self.preflight()
        except PreflightError as exc:
            self._preflight_error = exc
            raise
        if self.route == "headless_markdown":
            import markdownify  # noqa: F401  here, untimed: dom_to_markdown runs inside the timed call

    def preflight(self) -> str:
        """Check extras and binary and return the engine version found; raises :class:`PreflightError`."""
        if self.engine.driver == "cdp":
            check_playwright()
        if self.engine.driver == "node" and not (Path(self.worker).parent / "node_modules").is_dir():
            raise PreflightError(f"{self.engine.name}: the Node worker's packages are not installed "
                                 f"({self.engine.install_hint})")
        return probe_version(self.engine, self.config.binary, self.config.expected_version, worker=self.worker)

    def delivery_refusal(self, case: Case) -> str | None:
        """Why this engine, as configured, has no route for ``case``'s delivery (``None``: it has one):
        :func:`~lexbench.providers.engines.select_route`'s refusal (no such route for the engine; direct file
        delivery with a configured DOM completion; the version-2 text scope with resource discovery)."""
        try:
            select_route(self.route, self.completion(case), case.delivery, text_scope=self.config.text_scope,
                         eng=self.engine)
        except ConfigError as exc:
            return f"{self.name}: {exc}"
        return None

    def begin(self, case: Case, timeout: float, *, text_scope: int = 1) -> tuple[Deadline, str]:
        """Start one call: select the task's route, refusing a route × completion × delivery combination the
        engine cannot honour (:class:`FetchError` ``unsupported_delivery``, before any process starts; the
        runtime policy asks :meth:`delivery_refusal` before that), preflight (:meth:`prepare`), and return
        the engine's deadline — ``timeout`` seconds less the reserve for killing it (at least half of
        ``timeout``) — and the selected route."""
        try:
            route = select_route(self.route, self.completion(case), case.delivery, text_scope=text_scope, eng=self.engine)
        except ConfigError as exc:
            raise FetchError(ErrorType.UNSUPPORTED_DELIVERY, f"{self.name}: {exc}") from None
        self.prepare()
        return Deadline.after(max(timeout - KILL_RESERVE_S, timeout / 2)), route

    def completion(self, case: Case) -> Completion:
        """The completion this provider applies to ``case``: its configured one with the case's DOM
        completion as native parameters (:func:`~lexbench.providers.engines.case_completion`)."""
        return case_completion(self.config.completion, case.dom_completion, self.engine)

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        """One page through the engine; see the module docstring. Raises :class:`FetchError`."""
        deadline, route = self.begin(case, timeout, text_scope=self.config.text_scope)
        host = replay_host(case, url)
        completion = self.completion(case)
        with guarded_call(self.http.guard) as proxy:
            if route == FILE_ROUTE:
                return self._cdp_file(url, host, deadline, proxy)
            if self.engine.driver == "one_shot":
                result = self._one_shot(url, host, deadline, proxy, completion, route)
            elif self.engine.driver == "cdp":
                result = self._cdp(url, host, deadline, proxy, completion, route)
            else:
                result = self._node(url, host, deadline, proxy, completion, route=route)
        return result

    def close(self) -> None:
        """Stop Playwright's driver process at the end of the session (CDP engines; restarted if needed)."""
        if self.engine.driver == "cdp":
            PlaywrightLoop.stop_shared()

    # -- drivers -------------------------------------------------------------------------------------

    def _argv(self, url: str, host: str | None, proxy: GuardProxy, profile: str = "", output: str | None = None,
              completion: Completion | None = None) -> list[str]:
        return command_line(self.engine, route=self.route, completion=completion or self.config.completion,
                            binary=which(self.config.binary) or self.config.binary, url=url, proxy=proxy.address,
                            profile=profile, replay_host=host, worker=self.worker, output=output)

    def _one_shot(self, url: str, host: str | None, deadline: Deadline, proxy: GuardProxy,
                  completion: Completion, route: str) -> ProviderResult:
        with fresh_profile() as profile:
            run = self._run(self._argv(url, host, proxy, str(profile), completion=completion), deadline)
        html = run.stdout.decode("utf-8", errors="replace")
        if not html.strip() or "ERR_TUNNEL_CONNECTION_FAILED" in html[:20000]:
            if "ERR_TUNNEL_CONNECTION_FAILED" in run.stderr + html[:20000]:
                raise proxy_failure(proxy, f"{self.engine.name} could not open a tunnel for {url}")
            error = _stderr_error(run.stderr) or ErrorType.EMPTY_CONTENT
            raise FetchError(error, f"{self.engine.name} printed no DOM for {url}: {_last_line(run.stderr)}")
        # --dump-dom reports no final URL: a resource list is resolved against the URL it was given
        return self._answer(html, status=None, final_url=url if route == RESOURCES_ROUTE else None, route=route)

    def _node(self, url: str, host: str | None, deadline: Deadline, proxy: GuardProxy, completion: Completion,
              output: str = "html", route: str | None = None) -> ProviderResult:
        run = self._run(self._argv(url, host, proxy, output=output, completion=completion), deadline)
        return self._from_worker_json(run, url, route=route)

    def _cdp_file(self, url: str, host: str | None, deadline: Deadline, proxy: GuardProxy) -> ProviderResult:
        """The ``file`` route: the document's response bytes through the browser (:func:`fetch_document`)."""
        document = self._over_cdp(url, host, deadline, proxy, "no document", lambda playwright, endpoint: fetch_document(
            playwright, endpoint, url, deadline_s=deadline.remaining(), max_bytes=MAX_OUTPUT_BYTES))
        ok = 200 <= document.status < 300
        return ProviderResult(
            success=ok, file=document.body, final_url=document.final_url,
            error_type=None if ok else ErrorType.UPSTREAM_STATUS,
            error_message=None if ok else f"the document answered HTTP {document.status}",
            metadata=ResultMetadata(engine=f"{self.engine.name} {self.version}", upstream_status=document.status,
                                    redirects=document.redirects, content_type=document.content_type))

    def _cdp(self, url: str, host: str | None, deadline: Deadline, proxy: GuardProxy,
             completion: Completion, route: str) -> ProviderResult:
        rendered = self._over_cdp(url, host, deadline, proxy, "no complete page", lambda playwright, endpoint: render(
            playwright, endpoint, url, completion, text_scope=self.config.text_scope, deadline_s=deadline.remaining(),
            javascript=self.config.javascript, inline_frames=self.config.inline_frames,
            inline_shadow_roots=self.config.inline_shadow_roots))
        if len(rendered.html.encode("utf-8")) > MAX_OUTPUT_BYTES:
            raise FetchError(ErrorType.TOO_LARGE, f"the rendered page exceeds {MAX_OUTPUT_BYTES:,} bytes",
                             upstream_status=rendered.status)
        result = self._answer(rendered.html, status=rendered.status, final_url=rendered.final_url,
                              title=rendered.title, redirects=rendered.redirects, content_type=rendered.content_type,
                              route=route)
        return _completion_outcome(result, rendered.completion_met, rendered.completion_detail)

    def _over_cdp(self, url: str, host: str | None, deadline: Deadline, proxy: GuardProxy, missing: str,
                  make: Callable[[Any, str], Coroutine[Any, Any, T]]) -> T:
        """Start the browser in a fresh profile, wait for its CDP endpoint, run ``make(playwright, endpoint)``
        on the shared Playwright loop inside the deadline, and kill the browser however that ends. Raises
        :class:`FetchError`: ``timeout`` (no endpoint, or ``missing`` — what did not arrive — in time),
        ``service_error`` (the browser exited first), the guarding proxy's failure for a refused tunnel."""
        with fresh_profile() as profile, EngineProcess(self._argv(url, host, proxy, str(profile))) as browser:
            try:
                match = browser.wait_for_line(r"DevTools listening on (ws://\S+)", deadline.remaining())
                if match is None:
                    if deadline.expired:
                        raise FetchError(ErrorType.TIMEOUT, f"{self.engine.name} did not start its CDP server within "
                                         f"the {deadline.seconds:g} s deadline; the browser was killed")
                    raise FetchError(ErrorType.SERVICE_ERROR, f"{self.engine.name} did not start its CDP server")
                loop = PlaywrightLoop.shared()
                try:
                    return loop.run(make(loop.playwright, match.group(1)), deadline.remaining())
                except FetchError as exc:
                    if "ERR_TUNNEL_CONNECTION_FAILED" in str(exc):
                        raise proxy_failure(proxy, str(exc)) from None
                    raise
                except TimeoutError:
                    raise FetchError(ErrorType.TIMEOUT, f"{missing} within the {deadline.seconds:g} s deadline; "
                                     "the browser was killed") from None
            finally:
                browser.kill()

    # -- shared --------------------------------------------------------------------------------------

    def _run(self, argv: list[str], deadline: Deadline) -> ProcessRun:
        try:
            run = run_process(argv, deadline.remaining())
        except OSError as exc:
            raise FetchError(ErrorType.INFRASTRUCTURE, f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        if run.too_large:
            raise FetchError(ErrorType.TOO_LARGE, f"{self.engine.name} printed more than {MAX_OUTPUT_BYTES:,} bytes; killed")
        if run.timed_out:
            raise FetchError(ErrorType.TIMEOUT, f"{self.engine.name} did not finish within the {deadline.seconds:g} s "
                             "deadline; its process group was killed")
        if run.returncode != 0:
            raise FetchError(ErrorType.SERVICE_ERROR, f"{self.engine.name} exited with {run.returncode}: "
                             f"{_last_line(run.stderr)}")
        return run

    def _from_worker_json(self, run: ProcessRun, url: str, route: str | None = None) -> ProviderResult:
        try:
            answer = json.loads(run.stdout)
        except json.JSONDecodeError:
            raise FetchError(ErrorType.MALFORMED_RESPONSE, f"the {self.engine.name} worker printed no JSON object: "
                             f"{_last_line(run.stderr)}") from None
        record_hook_refusals(answer.get("blocked"))
        status = answer.get("status")
        error = answer.get("error")
        if error:
            raise FetchError(_error_type(error.get("type")), f"{self.engine.name}: {error.get('message')}",
                             upstream_status=status, content_type=answer.get("content_type"))
        result = self._answer(answer.get("html") or "", status=status, final_url=answer.get("final_url") or (
                                  url if route == RESOURCES_ROUTE else None),
                              title=answer.get("title"), redirects=answer.get("redirects") or [],
                              content_type=answer.get("content_type"), route=route)
        completion = answer.get("completion") or {}
        return _completion_outcome(result, completion.get("met", True), completion.get("detail", ""))

    def _answer(self, html: str, *, status: int | None, final_url: str | None, title: str | None = None,
                redirects: list[str] | None = None, content_type: str | None = None,
                route: str | None = None) -> ProviderResult:
        failure = proxy_page_error(html)
        if failure is not None:  # the engine showed the guarding proxy's refusal (or failure) as the page
            raise FetchError(failure.error_type, f"{self.engine.name}: {failure}")
        resources = None
        if route == RESOURCES_ROUTE:  # the completed DOM's resource URLs, one per line as the content
            resources = resource_urls(html, final_url or "")
            content, fmt, title = "\n".join(resources), "text", title or _title(html)
        elif self.route == "headless_html":
            content, fmt, title = html, "html", title or _title(html)
        else:
            content, dom_title = dom_to_markdown(html)
            fmt, title = "markdown", title or dom_title
        ok = status is None or 200 <= status < 300
        return ProviderResult(
            success=ok, content=content, content_format=fmt, final_url=final_url, title=title, resources=resources,
            error_type=None if ok else ErrorType.UPSTREAM_STATUS,
            error_message=None if ok else f"the page answered HTTP {status}",
            metadata=ResultMetadata(engine=f"{self.engine.name} {self.version}", upstream_status=status,
                                    redirects=list(redirects or []), content_type=content_type),
        )


class HeadlessMarkdown(HeadlessProvider):
    """Route ``headless_markdown``: the completed DOM converted with markdownify (leaderboard)."""

    type_name = "headless-markdown"
    route = "headless_markdown"
    output_contracts = ("cleaned",)


class HeadlessHtml(HeadlessProvider):
    """Route ``headless_html``: the completed DOM's HTML (diagnostics leaderboard)."""

    type_name = "headless-html"
    route = "headless_html"
    output_contracts = ("rendered_html",)


def _title(html: str) -> str | None:
    try:
        title = lxml.html.document_fromstring(html).findtext(".//title") if html.strip() else None
    except Exception:  # lxml raises on pathological documents
        return None
    return title.strip() or None if title else None


def _completion_outcome(result: ProviderResult, met: bool, detail: str) -> ProviderResult:
    """An unmet completion condition fails the call as ``timeout``; the content is kept."""
    if met or not result.success:
        return result
    return result.model_copy(update={"success": False, "error_type": ErrorType.TIMEOUT,
                                     "error_message": f"the DOM completion condition was not met: {detail}"})


def _error_type(name: str | None) -> ErrorType:
    try:
        return ErrorType(name)
    except ValueError:
        return ErrorType.SERVICE_ERROR


def _stderr_error(stderr: str) -> ErrorType | None:
    if "Page load timed out" in stderr:
        return ErrorType.TIMEOUT
    return net_error(stderr)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    useful = [line for line in lines if "net::" in line or "timed out" in line.lower()]
    return ((useful or lines or ["no output"])[-1])[:300]


ENGINE_PROVIDER_TYPES: tuple[type[Provider], ...] = (HeadlessMarkdown, HeadlessHtml)
"""The headless engine types, for the provider registry."""

__all__ = ["ENGINES", "ENGINE_PROVIDER_TYPES", "EngineOptions", "HeadlessHtml", "HeadlessMarkdown", "HeadlessProvider",
           "PreflightError", "dom_to_markdown", "probe_version", "resource_urls"]
