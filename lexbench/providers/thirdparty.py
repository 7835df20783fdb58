"""Third-party workers as optional extras: ``readability-js``, ``crawl4ai`` and ``langchain`` (SPEC §5).

- ``readability-js``: Mozilla's Readability on jsdom, in the Node worker under
  ``providers/workers/readability-js`` (``make workers`` installs its pinned npm packages). It runs on the
  ``jsdom`` engine of ``ENGINES`` with the worker's ``readability`` output; the article HTML is converted
  with markdownify. Options as for ``headless-markdown`` (``engine`` is fixed to ``jsdom``), plus
  ``readability_version``.
- ``crawl4ai``: the local crawl4ai library attached over CDP to a system Chromium that this adapter starts
  with the ``chromium-cdp`` engine's command line; the worker script runs under ``python`` (default: this
  interpreter), which must have the ``crawl4ai`` extra. Options: ``binary`` and ``expected_version`` (of
  Chromium), ``crawl4ai_version``, ``python``, ``completion``.
- ``langchain``: LangChain's ``WebBaseLoader`` (langchain-community; requests and BeautifulSoup, no
  browser) in a long-lived child process under ``python`` (default: this interpreter), which must have
  the ``langchain`` extra; the Document's ``page_content`` is the answer, as plain text. Options:
  ``python``, ``langchain_version`` (of langchain-community), ``separator`` (BeautifulSoup's
  ``get_text`` separator; ``None``, the loader's default, joins text nodes with nothing).

:data:`WORKERS` records what each browser-based worker runs on and which completion it applies. Preflight checks the
engine and the worker's pinned versions; a missing extra stops the provider with the reason, so its
items are skipped (unresolvable), never failed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.case import Case
from lexbench.errors import ConfigError
from lexbench.providers.base import Provider
from lexbench.providers.call import Deadline, FetchError
from lexbench.providers.engine_process import EngineProcess, fresh_profile, run_process
from lexbench.providers.engines import ENGINES, Completion, command_line
from lexbench.providers.extraction import ExtractionWorker
from lexbench.providers.guard_proxy import guarded_call, proxy_failure, record_hook_refusals
from lexbench.providers.headless import (
    KILL_RESERVE_S, WORKERS_DIR, HeadlessProvider, PreflightError, dom_to_markdown, parse_options, probe_version,
    replay_host, which,
)

CRAWL4AI_WORKER = WORKERS_DIR / "crawl4ai" / "worker.py"
LANGCHAIN_WORKER = Path(__file__).resolve().parents[1] / "workers" / "langchain_loader.py"
"""The LangChain loader's worker script; in the package, so an installed wheel has it too."""
LANGCHAIN_PINS: Mapping[str, str] = {"langchain-community": "0.4.2", "langchain-core": "1.8.3", "beautifulsoup4": "4.15.0"}
"""The ``langchain`` extra's pins (pyproject.toml); preflight requires ``langchain_version`` of langchain-community."""
LANGCHAIN_INSTALL_HINT = "make langchain in a checkout, or pip install 'lexbench[langchain]' into that interpreter"


@dataclass(frozen=True)
class Worker:
    """A third-party worker: the engine it runs on, the completion constraints and waits it applies,
    the package versions preflight pins, and how it is installed."""

    name: str
    runs_on: str
    waits: tuple[str, ...]
    constraints: tuple[str, ...]
    pins: Mapping[str, str]
    install_hint: str

    def refuse(self, completion: Completion) -> None:
        """Raise :class:`ConfigError` when ``completion`` asks for what this worker cannot apply."""
        missing = [f"wait {completion.wait!r}"] if completion.wait not in self.waits else []
        missing += [c for c in completion.constraints() if c not in self.constraints]
        if missing:
            raise ConfigError(f"worker {self.name} cannot apply {', '.join(missing)}")


WORKERS: Mapping[str, Worker] = {
    "readability-js": Worker(
        name="readability-js", runs_on="jsdom", waits=("load",), constraints=("selector", "count", "delay", "timeout"),
        pins={"jsdom": "26.1.0", "@mozilla/readability": "0.6.0"},
        install_hint="make workers (npm ci in providers/workers/readability-js)",
    ),
    "crawl4ai": Worker(
        name="crawl4ai", runs_on="chromium-cdp", waits=("load", "network_idle"),
        constraints=("selector", "count", "delay", "timeout"), pins={"crawl4ai": "0.9.5"},
        install_hint="pip install -e '.[crawl4ai]' in the interpreter given as python",
    ),
}
"""Every third-party worker by name (SPEC §5)."""


class ReadabilityJs(HeadlessProvider):
    """Mozilla's Readability on jsdom (Node worker); the article converted with markdownify."""

    type_name = "readability-js"
    # Text only: the worker extracts an article (SPEC §2: no file or resources route), whatever its engine has.
    deliveries = frozenset({"text"})
    delivery_refusal = Provider.delivery_refusal
    family = "worker"
    route = "headless_markdown"
    output_contracts = ("cleaned",)
    option_names = HeadlessProvider.option_names | {"readability_version"}
    worker_spec: ClassVar[Worker] = WORKERS["readability-js"]

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        options = dict(options or {})
        self.readability_version = str(options.pop("readability_version", self.worker_spec.pins["@mozilla/readability"]))
        super().__init__(name, {"engine": self.worker_spec.runs_on, **options}, **kwargs)
        self.worker_spec.refuse(self.config.completion)

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        rest = {k: v for k, v in options.items() if k != "readability_version"}
        if rest.get("engine", cls.worker_spec.runs_on) != cls.worker_spec.runs_on:
            raise ValueError(f"readability-js runs on the {cls.worker_spec.runs_on} engine only")
        parsed, _ = parse_options({**rest, "engine": cls.worker_spec.runs_on}, cls.route)
        try:
            cls.worker_spec.refuse(parsed.completion)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    def preflight(self) -> str:
        """The jsdom engine's preflight, then the Readability version the worker reports."""
        version = super().preflight()
        run = run_process([which(self.config.binary) or self.config.binary, self.worker, "--version"], 30.0)
        reported = run.stdout.decode("utf-8", errors="replace")
        if f"readability {self.readability_version}" not in reported:
            raise PreflightError(f"readability-js: the worker reports {reported.strip() or 'nothing'}, the "
                                 f"configuration expects @mozilla/readability {self.readability_version} "
                                 f"({self.worker_spec.install_hint})")
        return version

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        deadline, _ = self.begin(case, timeout, text_scope=self.config.text_scope)
        with guarded_call(self.http.guard) as proxy:
            run = self._run(self._argv(url, replay_host(case, url), proxy, output="readability",
                                       completion=self.completion(case)), deadline)
        try:
            answer = json.loads(run.stdout)
        except json.JSONDecodeError:
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "the readability-js worker printed no JSON object") from None
        record_hook_refusals(answer.get("blocked"))
        if answer.get("error"):
            error = answer["error"]
            raise FetchError(_error_type(error.get("type")), f"readability-js: {error.get('message')}",
                             upstream_status=answer.get("status"))
        article = answer.get("article") or {}
        body, _ = dom_to_markdown(article.get("content") or "")
        title = article.get("title") or answer.get("title")
        content = f"# {title}\n\n{body}" if title and body else body
        status = answer.get("status")
        ok = status is None or 200 <= status < 300
        result = ProviderResult(
            success=ok, content=content, content_format="markdown", final_url=answer.get("final_url"), title=title,
            error_type=None if ok else ErrorType.UPSTREAM_STATUS,
            error_message=None if ok else f"the page answered HTTP {status}",
            metadata=ResultMetadata(engine=f"readability-js {self.readability_version} on jsdom {self.version}",
                                    upstream_status=status, redirects=answer.get("redirects") or [],
                                    content_type=answer.get("content_type")),
        )
        completion = answer.get("completion") or {}
        if ok and not completion.get("met", True):
            return result.model_copy(update={"success": False, "error_type": ErrorType.TIMEOUT,
                                             "error_message": f"the DOM completion condition was not met: {completion.get('detail')}"})
        return result


class Crawl4aiOptions(BaseModel):
    """``crawl4ai`` options: Chromium's ``binary`` and ``expected_version``, the pinned
    ``crawl4ai_version``, the ``python`` interpreter that has the extra, and ``completion``."""

    model_config = ConfigDict(extra="forbid")

    binary: str = Field(min_length=1)
    expected_version: str = Field(min_length=1)
    crawl4ai_version: str = WORKERS["crawl4ai"].pins["crawl4ai"]
    python: str = Field(default=sys.executable, min_length=1)
    completion: Completion = Field(default_factory=Completion)


class Crawl4ai(HeadlessProvider):
    """Local crawl4ai driving a system Chromium over CDP; its raw Markdown is the answer."""

    type_name = "crawl4ai"
    # Text only: the worker extracts an article (SPEC §2: no file or resources route), whatever its engine has.
    deliveries = frozenset({"text"})
    delivery_refusal = Provider.delivery_refusal
    family = "worker"
    route = "headless_markdown"
    output_contracts = ("cleaned",)
    option_names = frozenset(Crawl4aiOptions.model_fields)
    worker_spec: ClassVar[Worker] = WORKERS["crawl4ai"]

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        try:
            self.worker_options = Crawl4aiOptions.model_validate(dict(options or {}))
        except ValidationError as exc:
            raise ConfigError(f"provider {name or self.type_name!r}: {exc.errors()[0]['msg']}") from None
        chromium = {"engine": self.worker_spec.runs_on, "binary": self.worker_options.binary,
                    "expected_version": self.worker_options.expected_version,
                    "completion": self.worker_options.completion.model_dump(exclude_defaults=True)}
        super().__init__(name, chromium, **kwargs)
        self.options = dict(options or {})
        self.worker_spec.refuse(self.config.completion)
        self.crawl4ai_version: str | None = None

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        try:
            parsed = Crawl4aiOptions.model_validate(dict(options))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ValueError(f"{'.'.join(str(p) for p in first['loc']) or 'options'}: {first['msg']}") from None
        try:
            cls.worker_spec.refuse(parsed.completion)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    def preflight(self) -> str:
        """Chromium's version (Playwright is not needed in this interpreter: crawl4ai brings its own),
        then the crawl4ai version the configured interpreter reports."""
        version = probe_version(self.engine, self.config.binary, self.config.expected_version)
        self.crawl4ai_version = self._probe_crawl4ai()
        return version

    def _probe_crawl4ai(self) -> str:
        python, expected = self.worker_options.python, self.worker_options.crawl4ai_version
        if which(python) is None:
            raise PreflightError(f"crawl4ai: interpreter {python} not found")
        run = run_process([python, str(CRAWL4AI_WORKER), "--version"], 60.0)
        reported = run.stdout.decode("utf-8", errors="replace").strip()
        if run.returncode != 0 or not reported.startswith("crawl4ai "):
            raise PreflightError(f"crawl4ai is not installed in {python} ({self.worker_spec.install_hint})")
        version = reported.split()[1]
        if version != expected:
            raise PreflightError(f"crawl4ai {version} is installed in {python}, the configuration expects {expected}")
        return version

    def worker_argv(self, ws_url: str, url: str) -> list[str]:
        """The worker's command line for one page (pinned by the golden snapshot)."""
        completion = self.config.completion
        argv = [self.worker_options.python, str(CRAWL4AI_WORKER), f"--cdp-url={ws_url}",
                f"--wait-until={'networkidle' if completion.wait == 'network_idle' else 'load'}"]
        if completion.selector is not None:
            argv += [f"--selector={completion.selector}", f"--min-count={completion.min_count}"]
        if completion.delay_ms:
            argv.append(f"--delay-ms={completion.delay_ms}")
        if completion.timeout_ms is not None:
            argv.append(f"--timeout-ms={completion.timeout_ms}")
        return [*argv, url]

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        deadline, _ = self.begin(case, timeout)
        chromium = ENGINES[self.worker_spec.runs_on]
        with fresh_profile() as profile, guarded_call(self.http.guard) as proxy:
            argv = command_line(chromium, route=self.route, completion=Completion(), binary=which(self.config.binary)
                                or self.config.binary, url=url, proxy=proxy.address, profile=str(profile),
                                replay_host=replay_host(case, url))
            with EngineProcess(argv) as browser:
                match = browser.wait_for_line(r"DevTools listening on (ws://\S+)", deadline.remaining())
                if match is None:
                    if deadline.expired:
                        raise FetchError(ErrorType.TIMEOUT, "chromium did not start its CDP server within the "
                                         f"{deadline.seconds:g} s deadline; the browser was killed")
                    raise FetchError(ErrorType.SERVICE_ERROR, "chromium did not start its CDP server")
                run = self._run(self.worker_argv(match.group(1), url), deadline)
                browser.kill()
        try:
            answer = json.loads(run.stdout.decode("utf-8", errors="replace").strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "the crawl4ai worker printed no JSON object") from None
        status = answer.get("status")
        metadata = ResultMetadata(engine=f"crawl4ai {self.crawl4ai_version} on chromium {self.version}",
                                  upstream_status=status)
        ok = bool(answer.get("success")) and (status is None or 200 <= status < 300)
        error = None
        if not ok:
            error = ErrorType.UPSTREAM_STATUS if status is not None and not 200 <= status < 300 else ErrorType.SERVICE_ERROR
        return ProviderResult(
            success=ok, content=answer.get("markdown") or "", content_format="markdown",
            final_url=answer.get("final_url"), title=answer.get("title"), error_type=error,
            error_message=None if ok else f"crawl4ai: {answer.get('error') or f'HTTP {status}'}", metadata=metadata,
        )


class LangChainOptions(BaseModel):
    """``langchain`` options: the ``python`` interpreter that has the extra, the pinned
    ``langchain_version`` (of langchain-community) and BeautifulSoup's text ``separator``."""

    model_config = ConfigDict(extra="forbid")

    python: str = Field(default=sys.executable, min_length=1)
    langchain_version: str = Field(default=LANGCHAIN_PINS["langchain-community"], min_length=1)
    separator: str | None = None


class LangChain(Provider):
    """LangChain's ``WebBaseLoader`` in a killable child; the Document's ``page_content`` is the answer.

    The child is started, and the loader imported, during the untimed preparation; a call sends it the
    URL and waits within the deadline (less the reserve for killing it). The loader reports no HTTP
    status, so the child observes its responses: ``upstream_status``, the final URL, redirects and the
    Content-Type come from them, and a non-2xx page (which the loader returns as an ordinary Document)
    is a failed call, ``upstream_status``, its text kept as the content.
    """

    type_name = "langchain"
    family = "worker"
    output_contracts = ("cleaned",)
    option_names = frozenset(LangChainOptions.model_fields)

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(name, options, **kwargs)
        try:
            self.loader_options = LangChainOptions.model_validate(self.options)
        except ValidationError as exc:
            raise ConfigError(f"provider {self.name!r}: {_first_error(exc)}") from None
        self.versions: dict[str, str] | None = None
        self._preflight_error: PreflightError | None = None
        self._worker = ExtractionWorker(argv=[self.loader_options.python, str(LANGCHAIN_WORKER)], label="langchain loader")

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        super().validate_options(options)  # an unknown option, named with the accepted ones
        try:
            LangChainOptions.model_validate(dict(options))
        except ValidationError as exc:
            raise ValueError(_first_error(exc)) from None

    @property
    def engine(self) -> str:
        """What ran, for the result's metadata: the loader and the versions preflight found."""
        versions = self.versions or {}
        return (f"langchain-community {versions.get('langchain-community')} WebBaseLoader "
                f"(langchain-core {versions.get('langchain-core')}, beautifulsoup4 {versions.get('beautifulsoup4')})")

    def prepare(self) -> None:
        """Preflight once (:meth:`preflight`; its :class:`PreflightError` again on every attempt), then
        make sure the loader's child runs (untimed)."""
        if self._preflight_error is not None:
            raise self._preflight_error
        if self.versions is None:
            try:
                self.versions = self.preflight()
            except PreflightError as exc:
                self._preflight_error = exc
                raise
        self._worker.ensure_started()

    def preflight(self) -> dict[str, str]:
        """The versions of :data:`LANGCHAIN_PINS` the configured interpreter reports. Raises
        :class:`PreflightError` when the interpreter or the extra is missing, or langchain-community
        is not ``langchain_version``."""
        python, expected = self.loader_options.python, self.loader_options.langchain_version
        if which(python) is None:
            raise PreflightError(f"langchain: interpreter {python} not found")
        run = run_process([python, str(LANGCHAIN_WORKER), "--version"], 60.0)
        words = run.stdout.decode("utf-8", errors="replace").split()
        versions = dict(zip(words[::2], words[1::2]))
        if run.returncode != 0 or "langchain-community" not in versions:
            reported = " ".join(words) or run.stderr.strip()[-300:] or f"exit {run.returncode}"
            raise PreflightError(f"langchain: the langchain extra is not installed in {python} ({reported}); "
                                 f"{LANGCHAIN_INSTALL_HINT}")
        if versions["langchain-community"] != expected:
            raise PreflightError(f"langchain: langchain-community {versions['langchain-community']} is installed in "
                                 f"{python}, the configuration expects {expected}")
        return versions

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        """One page through the loader; see the class docstring. Raises :class:`FetchError`."""
        self.prepare()
        deadline = Deadline.after(max(timeout - KILL_RESERVE_S, timeout / 2))
        with guarded_call(self.http.guard) as proxy:
            answer = self._worker.request({"url": url, "separator": self.loader_options.separator,
                                           "replay": replay_host(case, url) is not None, "proxy": proxy.url}, deadline)
            if "ProxyError" in str((answer.get("error") or {}).get("message")):
                raise proxy_failure(proxy, str(answer["error"]["message"]))  # what the proxy refused, and why
        status = answer.get("status")
        metadata = ResultMetadata(engine=self.engine, upstream_status=status, redirects=answer.get("redirects") or [],
                                  content_type=answer.get("content_type"))
        error = answer.get("error")
        if error:
            raise FetchError(_error_type(error.get("type")), f"langchain: {error.get('message')}",
                             **metadata.model_dump(exclude_defaults=True))
        title = ((answer.get("metadata") or {}).get("title") or "").strip() or None
        ok = status is None or 200 <= status < 300
        return ProviderResult(
            success=ok, content=answer.get("page_content") or "", content_format="text",
            final_url=answer.get("final_url"), title=title, error_type=None if ok else ErrorType.UPSTREAM_STATUS,
            error_message=None if ok else f"the page answered HTTP {status}", metadata=metadata,
        )

    def close(self) -> None:
        """Stop the loader's child."""
        self._worker.stop()


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc']) or 'options'}: {first['msg']}"


def _error_type(name: str | None) -> ErrorType:
    try:
        return ErrorType(name)
    except ValueError:
        return ErrorType.SERVICE_ERROR


WORKER_PROVIDER_TYPES = (ReadabilityJs, Crawl4ai, LangChain)
"""The third-party worker types, for the provider registry."""
