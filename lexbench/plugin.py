"""The pytest plugin: every case × provider is one item; the verdict is the test outcome (SPEC §1).

Hooks only wire the pipeline together: suite loading (:mod:`lexbench.dataset.suite`), the provider
call (:mod:`lexbench.providers`), scoring (:mod:`lexbench.scoring`) and the run engine
(:mod:`lexbench.run`: the run directory, its rows, manifest and reports, without pytest).

Collection: the repository's ``cases/`` directory (pyproject ``testpaths``) is collected as the
benchmark: one :class:`SuiteCollector` for ``--suite``, holding items named ``<case-id>[<provider>]``.
Outcomes: pass → passed; fail → failed with the verdict's explanation (no traceback);
unresolvable → skipped with its reason. Results reach the controller through each report's
``lexbench_row`` attribute, which pytest-xdist serialises with the report, so ``-n 0`` and
``-n auto`` produce the same run record.

Resume and shards (SPEC §6): the controller decides at configure time which items are already
finished (``--resume=RUN_DIR``) and passes that set and the ``--shard=K/N`` spec to every worker, so
the deselection in ``pytest_collection_modifyitems`` is the same in every process.
"""

from __future__ import annotations

import gc
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from lexbench.answer import CallAssessment, ErrorType, ProviderResult
from lexbench.dataset.case import Case
from lexbench.dataset.suite import Suite, load_suite
from lexbench.errors import LexbenchError, RunError
from lexbench.providers import (
    DEFAULT_PROVIDERS, PROVIDER_TYPES, Provider, ProviderConfig, ProviderSpec, RuntimePolicy, build_provider,
    default_config, load_config,
)
from lexbench.providers.config import CONFIGURED
from lexbench.providers.credentials import Redactor
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.policy import DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, call_and_assess, declared_family
from lexbench.report import render_terminal, write_reports
from lexbench.replay import ReplayServer, check_public_base_url, new_run_prefix, public_url_for, served_fetches_url
from lexbench.run.planning import expand_gateway_specs, planned_worker_cpus, worker_cpu
from lexbench.run.replay_check import replay_problem
from lexbench.run.row import RowContext, junit_properties
from lexbench.run.session import RunRequest, RunSession, scored_row
from lexbench.shard import Shard
from lexbench.verdict import Outcome, Verdict

BACKSTOP_MARGIN = 30.0
"""pytest-timeout's per-item backstop sits this many seconds above the provider's own deadline."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """``pytest_addoption``: the benchmark's command-line options."""
    group = parser.getgroup("lexbench", "lexbench benchmark")
    group.addoption("--suite", default="demo", help="suite name under cases/ or path of a suite directory (default: demo)")
    group.addoption("--providers", default=None,
                    help=f"comma-separated provider names from the configuration, or '{CONFIGURED}' for its "
                         f"default_providers (default: {CONFIGURED}; built-in: {','.join(DEFAULT_PROVIDERS)})")
    group.addoption("--provider-config", default=None, metavar="FILE",
                    help="provider configuration JSON (see providers/providers.example.json; default: the built-in "
                         "local providers); give it as --provider-config=FILE")
    group.addoption("--run-dir", default=None, help="where to write the run record (default: runs/<suite>-<UTC time>)")
    group.addoption("--no-cpu-pinning", action="store_true", default=False,
                    help="with -n N and only local or control providers, do not keep each worker (and its "
                         "extraction process) on a CPU of its own")
    group.addoption("--fetch-timeout", type=float, default=DEFAULT_TIMEOUT_S,
                    help="seconds per physical provider call, a total deadline (default: 30); pytest-timeout's "
                         "--timeout is the backstop")
    group.addoption("--retries", type=int, default=DEFAULT_RETRIES,
                    help="extra attempts after a failed provider call (default: 1)")
    group.addoption("--live", action="store_true",
                    help="fetch the cases' original URLs instead of the loopback replay server (needs internet)")
    group.addoption("--replay-public-url", default=None, metavar="URL",
                    help="in replay mode, hand hosted providers the frozen pages at URL, where `lexbench serve-replay` "
                         "is exposed (a public host or tunnel); its served-fetch log is kept in the run directory")
    group.addoption("--resume", default=None, metavar="RUN_DIR",
                    help="continue the run in RUN_DIR: run only the items without a recorded result, with the same "
                         "suite, providers and settings; give it as --resume=RUN_DIR")
    group.addoption("--shard", default=None, metavar="K/N",
                    help="run only shard K of N (a deterministic, balanced share of the items); combine the shards "
                         "with lexbench report --merge")
    group.addoption("--measure-only", action="store_true",
                    help="record scored evidence (results.jsonl, responses/, manifest) without building a report; "
                         "never certifies")
    group.addoption("--certified", action="store_true",
                    help="a certified run: needs an explicit --providers list, committed code, every credential set "
                         "and a suite whose bindings verify; the manifest says whether it was reached")


@dataclass
class BenchState:
    """Per-process benchmark state, kept in ``config.stash``."""

    config: pytest.Config
    provider_config: ProviderConfig
    provider_config_path: Path | None
    specs: dict[str, ProviderSpec]
    policy: RuntimePolicy
    run_dir: Path | None = None
    session: RunSession | None = None  # controller: the run it records (lexbench.run.session)
    suite: Suite | None = None
    providers: dict[str, Provider] = field(default_factory=dict)
    replay: ReplayServer | None = None
    replay_suspect: bool = False  # its last probe failed: probe again before each call until one succeeds
    shard: Shard | None = None
    completed: frozenset[str] = frozenset()
    configuration_sha256: str | None = None
    dataset_sha256: str | None = None
    worker_cpus: list[int] | None = None  # controller: the CPU of each xdist worker, by index (None: not pinned)
    replay_prefix: str = ""  # this run's unguessable path prefix under --replay-public-url (one for all workers)

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    @property
    def provider_names(self) -> list[str]:
        return list(self.specs)

    @property
    def live(self) -> bool:
        return bool(self.config.getoption("live"))

    def get_suite(self) -> Suite:
        """The ``--suite``, loaded once per process. A worker loads the dataset its controller checked
        (the same sha256) without checking its bindings again."""
        if self.suite is None:
            self.suite = load_suite(self.config.getoption("suite"),
                                    validated_sha256=self.dataset_sha256 if self.is_worker else None)
        return self.suite

    def provider_type(self, name: str) -> type[Provider]:
        return PROVIDER_TYPES[self.specs[name].type]

    def get_provider(self, name: str) -> Provider:
        """Build ``name`` once per process. The guard's only exemption is the replay server's own
        address, so in replay mode the server is started first."""
        if name not in self.providers:
            exempt = []
            if self.provider_type(name).needs_network and not self.live:
                address = urlsplit(self._replay().base_url)
                exempt.append((address.hostname, address.port))
            provider = build_provider(
                self.specs[name], guard=NetworkGuard.allowing(*exempt), policy=self.policy,
                debug_dir=self.run_dir / "debug" if self.run_dir else None)
            bind = getattr(provider, "bind_captures", None)
            if bind is not None:  # the control answers record contracts with the verified capture
                suite = self.get_suite()
                bind({c.id: (suite.captures[c.id], c.capture.content_type) for c in suite.cases})
            self.providers[name] = provider  # only once bound: a failed bind is retried by the next item
        return self.providers[name]

    def redactor(self, name: str) -> Redactor:
        """The redactor for provider ``name``'s credentials as they are now (its ``not_secret``
        identifiers excepted), built from its configuration whether or not it was called."""
        return Redactor.from_environment(self.specs[name].secret_variables())

    def _replay(self) -> ReplayServer:
        if self.replay is None:
            suite = self.get_suite()
            self.replay = ReplayServer(
                {c.id: (suite.captures[c.id], c.capture.content_type) for c in suite.cases}
            ).start()
        return self.replay

    @property
    def public_replay(self) -> str | None:
        """``--replay-public-url`` in replay mode, else ``None``."""
        return None if self.live else self.config.getoption("replay_public_url")

    def target_url(self, case: Case) -> str:
        if self.live:
            return case.url
        return self._replay().url_for(case.id)

    def public_target_url(self, case: Case, provider: str) -> str | None:
        """The frozen page's URL under ``--replay-public-url`` for a hosted ``provider``, else ``None``."""
        if not self.public_replay or self.provider_type(provider).reaches_loopback:
            return None
        return public_url_for(self.public_replay, self.replay_prefix, provider, case.id)

    def cannot_reach_replay(self, name: str) -> bool:
        """Whether provider ``name`` is a hosted service in replay mode without ``--replay-public-url``: it
        cannot fetch the loopback replay server, so its items are never called (and it is never built)."""
        provider_type = self.provider_type(name)
        return (provider_type.needs_network and not provider_type.reaches_loopback and not self.live
                and not self.public_replay)

    def replay_down(self, *, probe: bool) -> str | None:
        """Why the replay server cannot serve pages now (replay mode, once started), else ``None``
        (:func:`lexbench.run.replay_check.replay_problem`)."""
        if self.live or self.replay is None:
            return None
        problem, self.replay_suspect = replay_problem(self.replay, probe=probe, suspect=self.replay_suspect)
        return problem

    def row_context(self, provider: str, suite: str) -> RowContext:
        """What every row of ``provider`` carries besides its case, in this process."""
        return RowContext(suite=suite, provider=provider, output_contract=self.specs[provider].output_contract,
                          dataset_sha256=self.dataset_sha256, configuration_sha256=self.configuration_sha256)


STATE = pytest.StashKey[BenchState]()


def _benchmark_requested(config: pytest.Config) -> bool:
    cases_dir = (config.rootpath / "cases").resolve()
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        path = (path if path.is_absolute() else config.invocation_params.dir / path).resolve()
        if path == cases_dir or cases_dir in path.parents:
            return True
    return False


def _provider_config(config: pytest.Config) -> tuple[ProviderConfig, Path | None]:
    workerinput = getattr(config, "workerinput", None)
    option = workerinput.get("lexbench_provider_config") if workerinput else config.getoption("provider_config")
    if not option:
        return default_config(), None
    path = Path(option)
    path = path if path.is_absolute() else (config.invocation_params.dir / path).resolve()
    try:
        return load_config(path), path
    except LexbenchError as exc:
        raise pytest.UsageError(f"--provider-config: {exc}") from None


def _runtime_policy(config: pytest.Config) -> RuntimePolicy:
    try:
        return RuntimePolicy(timeout_s=config.getoption("fetch_timeout"), retries=config.getoption("retries"))
    except ValueError as exc:
        raise pytest.UsageError(f"--fetch-timeout/--retries: {exc}") from None


def pytest_configure(config: pytest.Config) -> None:
    """``pytest_configure``: load the provider configuration and validate the selection; on the
    controller, open the run directory."""
    config.addinivalue_line("markers", "control: a control provider item (scorer sanity check)")
    provider_config, path = _provider_config(config)
    try:
        selected = provider_config.select(config.getoption("providers"))
    except LexbenchError as exc:
        raise pytest.UsageError(f"--providers: {exc}") from None
    state = BenchState(config=config, provider_config=provider_config, provider_config_path=path,
                       specs={spec.name: spec for spec in selected}, policy=_runtime_policy(config))
    config.stash[STATE] = state
    if state.is_worker:
        workerinput = config.workerinput
        run_dir = workerinput.get("lexbench_run_dir")
        state.run_dir = Path(run_dir) if run_dir else None
        state.shard = Shard.parse(workerinput["lexbench_shard"]) if workerinput.get("lexbench_shard") else None
        state.completed = frozenset(workerinput.get("lexbench_completed", ()))
        state.dataset_sha256 = workerinput.get("lexbench_dataset_sha256")
        state.configuration_sha256 = workerinput.get("lexbench_configuration_sha256")
        state.replay_prefix = workerinput.get("lexbench_replay_prefix", "")
        cpu = workerinput.get("lexbench_cpu")
        if cpu is not None:
            try:
                os.sched_setaffinity(0, {cpu})  # inherited by the extraction process started later
            except OSError:
                pass  # the CPU left the allowed set since the controller looked: run unpinned
        return
    if not _benchmark_requested(config):
        return
    state.replay_prefix = new_run_prefix()
    public = config.getoption("replay_public_url")
    if public is not None and state.live:
        raise pytest.UsageError("--replay-public-url: applies to replay mode only (with --live every provider "
                                "fetches the live pages); drop one of the two")
    if public is not None:
        try:
            check_public_base_url(public)
        except ValueError as exc:
            raise pytest.UsageError(f"--replay-public-url: {exc}") from None
    try:
        suite = state.get_suite()
    except LexbenchError as exc:
        raise pytest.UsageError(f"--suite: {exc}") from None
    state.worker_cpus = _planned_worker_cpus(config, state)
    _open_run(state, suite)
    config.pluginmanager.register(RunWriter(state), "lexbench-run-writer")


def _open_run(state: BenchState, suite: Suite) -> None:
    """Open the session's run (:meth:`lexbench.run.session.RunSession.open`) from the options; its
    refusal — another session holding the directory included — is a usage error before any item runs."""
    config = state.config
    if config.getoption("shard"):
        try:
            state.shard = Shard.parse(config.getoption("shard"))
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    request = RunRequest(
        suite=suite, specs=state.specs, provider_config=state.provider_config, policy=state.policy,
        project_root=config.rootpath, invocation_dir=config.invocation_params.dir,
        provider_config_path=state.provider_config_path, provider_selection=config.getoption("providers"),
        live=state.live, run_dir=config.getoption("run_dir"), resume=config.getoption("resume"), shard=state.shard,
        measure_only=config.getoption("measure_only"), certified=config.getoption("certified"),
        keyword=config.getoption("keyword"), markexpr=config.getoption("markexpr"),
        workers=len(_gateway_specs(config)), worker_cpus=state.worker_cpus)
    try:
        state.session = session = RunSession.open(request)
    except RunError as exc:
        raise pytest.UsageError(str(exc)) from None
    state.run_dir, state.completed = session.run_dir, session.completed
    state.dataset_sha256, state.configuration_sha256 = session.dataset_sha256, session.configuration_sha256


def _gateway_specs(config: pytest.Config) -> list[str]:
    """xdist's gateway specs of this session, ``N*spec`` expanded (none without xdist); ``-n auto`` and
    ``--maxprocesses`` are resolved by now."""
    if getattr(config.option, "dist", "no") == "no":
        return []
    return expand_gateway_specs(getattr(config.option, "tx", None) or [])


def _planned_worker_cpus(config: pytest.Config, state: BenchState) -> list[int] | None:
    families = [declared_family(state.provider_type(name)) or "undeclared" for name in state.provider_names]
    return planned_worker_cpus(_gateway_specs(config), families,
                               os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None,
                               pinning=not config.getoption("no_cpu_pinning"))


def pytest_configure_node(node) -> None:  # type: ignore[no-untyped-def]
    """pytest-xdist's ``pytest_configure_node``: tell each worker where the run directory is, and which
    CPU to keep to (see :func:`~lexbench.providers.policy.worker_cpus`)."""
    state = node.config.stash[STATE]
    node.workerinput["lexbench_cpu"] = worker_cpu(state.worker_cpus, node.gateway.id)
    node.workerinput["lexbench_run_dir"] = str(state.run_dir) if state.run_dir else ""
    node.workerinput["lexbench_provider_config"] = str(state.provider_config_path) if state.provider_config_path else ""
    node.workerinput["lexbench_shard"] = str(state.shard) if state.shard else ""
    node.workerinput["lexbench_completed"] = sorted(state.completed)
    node.workerinput["lexbench_dataset_sha256"] = state.dataset_sha256
    node.workerinput["lexbench_configuration_sha256"] = state.configuration_sha256
    node.workerinput["lexbench_replay_prefix"] = state.replay_prefix


def pytest_report_header(config: pytest.Config) -> list[str]:
    """``pytest_report_header``: say what the session benchmarks, where it writes, and what a resume skips."""
    state = config.stash.get(STATE, None)
    if state is None or state.is_worker or state.run_dir is None:
        return []
    suite = state.get_suite()
    lines = [f"lexbench: suite {suite.id} ({len(suite.cases)} cases) x providers {', '.join(state.provider_names)}; "
             f"run record: {state.run_dir}"]
    if state.completed:
        lines.append(f"lexbench: resumed: {len(state.completed)} items already recorded are not run again")
    return lines


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``pytest_collection_modifyitems``: deselect items of other shards and items a resumed run has
    already finished. Runs on the controller (``-n 0``) and on every worker with the same inputs."""
    state = config.stash.get(STATE, None)
    if state is None or (state.shard is None and not state.completed):
        return
    cases = {case.id: index for index, case in enumerate(state.get_suite().cases)}
    providers = {name: index for index, name in enumerate(state.provider_names)}
    keep, drop = [], []
    for item in items:
        if isinstance(item, CaseItem) and (
                item.name in state.completed
                or (state.shard is not None
                    and not state.shard.holds(cases[item.case.id], providers[item.provider_name], len(providers)))):
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    """``pytest_collection_finish``: in a process that runs items (a worker, or ``-n 0``), import the
    scorer and build the providers its items will call, so that one-off costs (imports, a TLS context,
    the replay server's start) are paid before the first item rather than inside it: with ``-n 16``
    sixteen first items paid them at once."""
    state = session.config.stash.get(STATE, None)
    option = session.config.option
    if state is None or any(getattr(option, name, False) for name in ("collectonly", "setupplan", "setuponly",
                                                                        "showfixtures")):
        return
    names = {item.provider_name for item in session.items if isinstance(item, CaseItem)}
    if not names:
        return
    # The suite and the items live until the process ends: move them out of the collector's reach, so
    # the collections during the run and pytest's own at its end (several in a row) stop walking them
    # again. Garbage is collected first, so nothing unreachable is kept.
    gc.collect()
    gc.freeze()
    try:
        import lexbench.scoring  # noqa: F401  (markdown-it and the scorer's patterns)
    except Exception:  # noqa: BLE001  each item imports it again and fails with the reason
        return

    for name in state.provider_names:
        if name not in names or state.cannot_reach_replay(name):
            continue
        try:
            state.get_provider(name)
        except Exception:  # noqa: BLE001  each item builds it again and reports why it cannot
            continue


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """``pytest_collect_directory``: the repository's ``cases/`` directory is the benchmark."""
    if path.resolve() == (parent.config.rootpath / "cases").resolve():
        return BenchmarkDirectory.from_parent(parent, path=path)
    return None


class BenchmarkDirectory(pytest.Directory):
    """``cases/``: yields the selected suite (not the directory's files)."""

    def collect(self):  # type: ignore[no-untyped-def]
        state = self.config.stash[STATE]
        try:
            suite = state.get_suite()
        except LexbenchError as exc:
            raise pytest.UsageError(f"--suite: {exc}") from None
        yield SuiteCollector.from_parent(self, name=suite.id, suite=suite)


class SuiteCollector(pytest.Collector):
    """One suite: items ordered case by case, providers in selection order."""

    def __init__(self, *, suite: Suite, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.suite = suite

    def collect(self):  # type: ignore[no-untyped-def]
        state = self.config.stash[STATE]
        for case in self.suite.cases:
            for provider_name in state.provider_names:
                yield CaseItem.from_parent(self, name=f"{case.id}[{provider_name}]", case=case, provider_name=provider_name)


class VerdictFailure(Exception):
    """Raised for a ``fail`` verdict; pytest shows only its explanation."""


class CaseItem(pytest.Item):
    """One case × provider: call the provider, score the answer, report the verdict."""

    def __init__(self, *, case: Case, provider_name: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.case = case
        self.provider_name = provider_name
        self.row_json: str | None = None
        state = self.config.stash[STATE]
        self.output_contract = state.specs[provider_name].output_contract
        if self.output_contract == "control":
            self.add_marker(pytest.mark.control)
        policy = state.policy
        # The backstop leaves room for every attempt and for scoring's own wall-time budget, so that a
        # scorer limit is recorded as one (with the answer) rather than the item being killed.
        from lexbench.scoring.budget import DEFAULT_BUDGET  # the scorer loads with the first item, not with pytest

        calls_s = (policy.retries + 1) * (policy.timeout_s + policy.grace_s)
        self.add_marker(pytest.mark.timeout(calls_s + DEFAULT_BUDGET.wall_s + BACKSTOP_MARGIN))

    def runtest(self) -> None:
        result, call = self._call()
        from lexbench.scoring.budget import score_within_budget  # loaded by then; kept local like the one above

        # Score what the provider answered; redact what is written or shown (SPEC §5): a verdict's
        # explanation and evidence may quote the answer. Scoring runs under its time and memory budget.
        verdict = score_within_budget(self.case, result, call=call)
        redactor = self.config.stash[STATE].redactor(self.provider_name)
        shown = redactor.result(verdict)
        self._record(result, shown, redactor)
        if shown.outcome is Outcome.FAIL:
            raise VerdictFailure(shown.explanation)
        if shown.outcome is Outcome.UNRESOLVABLE:
            pytest.skip(shown.explanation)  # it opens with "unresolvable: "

    def _call(self) -> tuple[ProviderResult, CallAssessment | None]:
        """The answer and the runtime policy's assessment of it (``None``: the scorer assesses it)."""
        state = self.config.stash[STATE]
        provider_type = state.provider_type(self.provider_name)
        if state.cannot_reach_replay(self.provider_name):
            return ProviderResult.failure(
                ErrorType.REPLAY_UNREACHABLE,
                f"{self.provider_name} is a hosted service and cannot fetch the loopback replay server; "
                "its items run only with --live"), None
        down = state.replay_down(probe=False) if provider_type.needs_network else None
        if down:
            return ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"{down}; {self.provider_name} was not called"), None
        try:
            url = self.case.url if not provider_type.needs_network else (
                state.public_target_url(self.case, self.provider_name) or state.target_url(self.case))
            provider = state.get_provider(self.provider_name)
        except OSError as exc:
            return ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"the replay server could not start: {exc}"), None
        result, call = call_and_assess(provider, self.case, url, state.policy)
        down = state.replay_down(probe=True) if provider_type.needs_network and not result.success else None
        if down:  # the call failed because the page could not be served: not the provider's failure
            return result.model_copy(update={  # its error type changes: the scorer assesses it again
                "error_type": ErrorType.INFRASTRUCTURE,
                "error_message": f"{down} ({self.provider_name} reported {result.error_type}: {result.error_message})"}), None
        return result, call

    def _record(self, answer: ProviderResult, verdict: Verdict, redactor: Redactor) -> None:
        """Write the item's row and saved response (the answer is redacted there) with the redacted ``verdict``."""
        state = self.config.stash[STATE]
        row = scored_row(state.run_dir, state.row_context(self.provider_name, self.parent.suite.id), self.case,
                         answer, verdict, redactor)
        self.row_json = row.model_dump_json()
        self.user_properties.extend(junit_properties(verdict, answer.latency_s, len(answer.content)))

    def repr_failure(self, excinfo, style=None):  # type: ignore[no-untyped-def]
        if isinstance(excinfo.value, VerdictFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):  # type: ignore[no-untyped-def]
        return self.parent.suite.root / "dataset.json", None, self.name


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # type: ignore[no-untyped-def]
    """``pytest_runtest_makereport``: attach the item's run row to its call-phase report."""
    report = yield
    if call.when == "call" and isinstance(item, CaseItem) and item.row_json:
        report.lexbench_row = item.row_json
    return report


class RunWriter:
    """Controller-only plugin: records rows as reports arrive and finishes the run at the end
    (:class:`lexbench.run.session.RunSession`).

    When the run directory cannot be written (disk full), the session stops after the items in flight
    — no provider is called for a result that could not be kept — and the summary says why and how to
    resume; the rows already written stay whole."""

    def __init__(self, state: BenchState) -> None:
        self.state = state
        self.session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """``pytest_sessionstart``: remember the session, to stop it if the run record fails."""
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """``pytest_runtest_logreport``: append each finished item's row (written at once)."""
        row_json = getattr(report, "lexbench_row", None)
        run = self.state.session
        try:
            if row_json and report.when == "call":
                run.append_json(row_json)  # made by RunRow.model_dump_json(): no re-parse
            elif report.failed and not row_json and report.when != "teardown":
                # The item died without a verdict (worker killed, backstop timeout): record it as crashed.
                message = str(report.longrepr).strip().splitlines()[-1][:500] if report.longrepr else "no verdict"
                run.record_crash(report.nodeid, message)
        except RunError:
            self._stop(f"lexbench: the run record cannot be written: {run.write_failure}")

    def _stop(self, reason: str) -> None:
        # pytest-xdist's controller loop reads only its own ``shouldstop`` (not ``session.shouldstop``),
        # and ``pytest.exit`` would kill the items in flight: this private write is the one way to stop
        # handing out items while the running ones finish (pytest-xdist 3.8).
        dsession = self.state.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason
        elif self.session is not None:
            self.session.shouldstop = reason

    def pytest_terminal_summary(self, terminalreporter) -> None:  # type: ignore[no-untyped-def]
        """``pytest_terminal_summary``: finish the manifest, write the reports (not in a measure-only
        run) and print the leaderboard."""
        for line in self.state.session.finish(write_reports, render_terminal):
            if line.section:
                terminalreporter.section(line.text)
            elif line.red:
                terminalreporter.write_line(line.text, red=True)
            else:
                terminalreporter.write_line(line.text)


def pytest_unconfigure(config: pytest.Config) -> None:
    """``pytest_unconfigure``: close providers, stop the replay server, close the results file."""
    state = config.stash.get(STATE, None)
    if state is None:
        return
    for provider in state.providers.values():
        provider.close()
    if state.replay is not None:
        state.replay.stop()
    if state.public_replay and state.session is not None and state.replay_prefix:
        problem = state.session.keep_served_fetches(served_fetches_url(state.public_replay, state.replay_prefix))
        if problem:
            print(f"lexbench: {problem}", file=sys.stderr)
    if state.session is not None:
        state.session.close()
