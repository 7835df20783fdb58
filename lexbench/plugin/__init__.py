"""The pytest plugin: every case × provider is one item; the verdict is the test outcome (SPEC §1).

Hooks only wire the pipeline together: suite loading (:mod:`lexbench.dataset.suite`), the provider
call (:mod:`lexbench.providers`), scoring (:mod:`lexbench.scoring`) and the run engine
(:mod:`lexbench.run`: the run directory, its rows, manifest and reports, without pytest).

Activation: the plugin loads in every project where lexbench is installed (the ``pytest11`` entry
point) and stays idle — no item, no run directory, no output — unless the benchmark is switched on:
``--lexbench`` or ``lexbench = true`` in the ini file. In lexbench's own checkout, its root
``conftest.py`` sets ``--lexbench`` when the session collects ``cases/`` (pyproject ``testpaths``:
``pytest --suite=demo`` from the checkout's root).

Collection: the session gets one more child beside what its arguments collect, a
:class:`SuiteCollector` named ``lexbench`` holding the ``--suite``'s items named ``<case-id>[<provider>]``
(:func:`lexbench.run.record.item_id`), node ids ``lexbench::<case-id>[<provider>]``: the benchmark needs no
directory of its own in the project and is collected from any directory. The suite id is in no node
name, because ``-k`` matches every node name and a suite id may be a provider's (the imported mozilla
suite is ``readability``); the report header names the suite.
Outcomes: pass → passed; fail → failed with the verdict's explanation (no traceback);
unresolvable → skipped with its reason. Results reach the controller through each report's
``lexbench_row`` attribute, which pytest-xdist serialises with the report, so ``-n 0`` and
``-n auto`` produce the same run record. A user's own test on the ``lexbench_case`` fixture
(:mod:`lexbench.plugin.fixtures`) is a provider of the run too: its answers, scored by
``lexbench.assert_passes``, travel the same way.

Resume and shards (SPEC §6): the controller decides at configure time which items are already
finished (``--resume=RUN_DIR``) and passes that set and the ``--shard=K/N`` spec to every worker, so
the deselection in ``pytest_collection_modifyitems`` is the same in every process.
"""

from __future__ import annotations

import gc
import os
import shlex
import sys
import types
from pathlib import Path

import pytest

from lexbench.dataset.suite import Suite
from lexbench.errors import LexbenchError, RunError
from lexbench.plugin import hooks
from lexbench.plugin.fixtures import (
    NAME_MARK, attach_test_row, case_of_test, check_test_providers, fetch_timeout, lexbench_case, lexbench_provider,
    lexbench_run, mark_call_start, parametrize_cases, provider_of_test, redact_report, register_conftest_types,
)
from lexbench.plugin.items import BACKSTOP_MARGIN, CaseItem, SuiteCollector, VerdictFailure
from lexbench.plugin.options import misrooted_path_option, option_value, pytest_addoption, resolve_options
from lexbench.plugin.state import (
    STATE, BenchState, benchmark_requested, idle_options, provider_config_of, runtime_policy_of,
)
from lexbench.plugin.writer import SELECTED_OUTPUT, RunWriter, run_item_names
from lexbench.providers import PROVIDER_TYPES
from lexbench.providers.policy import declared_family
from lexbench.run.record import item_id
from lexbench.replay import SERVED_FETCHES, new_run_prefix, served_fetches_url
from lexbench.replay_log import REPLAY_KEY_VARIABLE, check_replay_key, log_token, provider_token
from lexbench.run.live import live_refusal
from lexbench.run.planning import expand_gateway_specs, planned_worker_cpus, worker_cpu
from lexbench.run.session import RunRequest, RunSession, configuration_sha256_of, planned_run
from lexbench.run.shard import Shard
from lexbench.text import counted

__all__ = ["BACKSTOP_MARGIN", "STATE", "BenchState", "CaseItem", "RunWriter", "SuiteCollector", "VerdictFailure",
           "fetch_timeout", "lexbench_case", "lexbench_provider", "lexbench_run", "pytest_addoption"]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """``pytest_addhooks``: the hooks a conftest.py may implement (:mod:`lexbench.plugin.hooks`)."""
    pluginmanager.add_hookspecs(hooks)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """``pytest_load_initial_conftests``: refuse a session pytest rooted at a path option's value
    (:func:`~lexbench.plugin.options.misrooted_path_option`) before it collects the wrong directory."""
    problem = misrooted_path_option(early_config)
    if problem:
        raise pytest.UsageError(problem)


def pytest_configure(config: pytest.Config) -> None:
    """``pytest_configure``: when the benchmark is switched on, load the provider configuration and
    validate the selection; on the controller, open the run directory. Switched off, refuse the
    benchmark's options (they would be silently ignored) and do nothing else."""
    workerinput = getattr(config, "workerinput", None)
    if not (workerinput.get("lexbench_enabled") if workerinput is not None else benchmark_requested(config)):
        given = idle_options(config)
        if given and workerinput is None:
            raise pytest.UsageError(f"{', '.join(given)}: the lexbench benchmark is off in this session; switch it "
                                    "on with --lexbench (or `lexbench = true` in the ini file)")
        return
    config.addinivalue_line("markers", "control: a control provider item (scorer sanity check)")
    resolve_options(config)  # a bad value, from the command line or the ini file, stops the session here
    config.addinivalue_line("markers", f"{NAME_MARK}(name): the provider name a test on the lexbench_case "
                            "fixture records its answers under (default: its function name without test_)")
    try:
        PROVIDER_TYPES.discover()  # an installed entry point that shadows a built-in type stops the session here
    except LexbenchError as exc:
        raise pytest.UsageError(f"installed provider types: {exc}") from None
    register_conftest_types(config)
    provider_config, path = provider_config_of(config)
    try:
        selected = provider_config.select(option_value(config, "providers"))
    except LexbenchError as exc:
        raise pytest.UsageError(f"--providers: {exc}") from None
    state = BenchState(config=config, provider_config=provider_config, provider_config_path=path,
                       specs={spec.name: spec for spec in selected}, policy=runtime_policy_of(config))
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
        state.replay_tokens = dict(workerinput.get("lexbench_replay_tokens", {}))
        state.enabled = bool(workerinput.get("lexbench_enabled"))
        cpu = workerinput.get("lexbench_cpu")
        if cpu is not None:
            try:
                os.sched_setaffinity(0, {cpu})  # inherited by the extraction process started later
            except OSError:
                pass  # the CPU left the allowed set since the controller looked: run unpinned
        return
    state.enabled = True
    state.replay_prefix = new_run_prefix()
    public = option_value(config, "replay_public_url")
    if public is not None and state.live:
        raise pytest.UsageError("--replay-public-url: applies to replay mode only (with --live every provider "
                                "fetches the live pages); drop one of the two")
    if public is not None:
        state.replay_key = _replay_key()
        # Each provider's path secret (the workers get these, never the key); the log's stays here.
        state.replay_tokens = {name: provider_token(state.replay_key, state.replay_prefix, name) for name in state.specs}
    try:
        suite = state.get_suite()
    except LexbenchError as exc:
        raise pytest.UsageError(f"--suite: {exc}") from None
    refusal = live_refusal(suite.id, suite.cases) if state.live else None
    if refusal:
        raise pytest.UsageError(refusal)
    state.worker_cpus = _planned_worker_cpus(config, state)
    if config.getoption("lf", False) and getattr(config, "cache", None) is not None:
        # read before the session adds its own outcomes (the cache provider's own copy changes as items run)
        state.last_failed = frozenset(config.cache.get("cache/lastfailed", {}))
    _open_run(state, suite)
    config.pluginmanager.register(RunWriter(state), "lexbench-run-writer")


def _open_run(state: BenchState, suite: Suite) -> None:
    """Decide the session's run from the options. A resumed or certified run is opened now
    (:meth:`lexbench.run.session.RunSession.open`); a new one gets its directory's path, checked, and is
    created by :func:`_start_run` when the first item is about to run, so ``--collect-only`` or a ``-k``
    that selects nothing leaves no empty run directory. A refusal is a usage error before any item runs."""
    config = state.config
    if option_value(config, "shard"):
        try:
            state.shard = Shard.from_option(option_value(config, "shard"), os.environ)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    request = RunRequest(
        suite=suite, specs=state.specs, provider_config=state.provider_config, policy=state.policy,
        project_root=config.rootpath, invocation_dir=config.invocation_params.dir,
        provider_config_path=state.provider_config_path, provider_selection=option_value(config, "providers"),
        live=state.live, run_dir=option_value(config, "run_dir"), resume=option_value(config, "resume"),
        shard=state.shard, measure_only=option_value(config, "measure_only"),
        certified=option_value(config, "certified"),
        keyword=config.getoption("keyword"), markexpr=config.getoption("markexpr"),
        workers=len(_gateway_specs(config)), worker_cpus=state.worker_cpus,
        effective_argv=_effective_argv(config), plugins=lambda: _registered_plugins(config))
    try:
        if request.resume or request.certified:
            state.session = session = RunSession.open(request)
            state.run_dir, state.completed = session.run_dir, session.completed
        else:
            state.pending = planned_run(request)
            state.run_dir = Path(state.pending.run_dir)
    except RunError as exc:
        raise pytest.UsageError(str(exc)) from None
    state.dataset_sha256, state.configuration_sha256 = suite.dataset_sha256, configuration_sha256_of(request)


def _effective_argv(config: pytest.Config) -> list[str]:
    """The arguments pytest parsed, in its order: the ini's ``addopts``, ``PYTEST_ADDOPTS``, the command line."""
    return [*config.getini("addopts"), *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
            *config.invocation_params.args]


def _registered_plugins(config: pytest.Config) -> list[tuple[str, str | None]]:
    """Every plugin pytest has registered (conftests included) as (name, file of the module that
    defines it); a plugin object counts by its class's module. Blocked names (``-p no:x``) hold none."""
    found = []
    for name, plugin in config.pluginmanager.list_name_plugin():
        if plugin is None:
            continue
        module = plugin if isinstance(plugin, types.ModuleType) else sys.modules.get(type(plugin).__module__)
        found.append((str(name), getattr(module, "__file__", None)))
    return found


def _start_run(config: pytest.Config) -> None:
    """Create and open the planned run (see :func:`_open_run`) on the controller, once."""
    state = config.stash.get(STATE, None)
    if state is None or state.is_worker or state.session is not None or state.pending is None:
        return
    try:
        state.session = RunSession.open(state.pending)
    except RunError as exc:
        raise pytest.UsageError(str(exc)) from None


def _runs_items(config: pytest.Config) -> bool:
    """Whether this session runs its selected items (not ``--collect-only``, ``--setup-plan`` ...)."""
    return not any(getattr(config.option, name, False) for name in ("collectonly", "setupplan", "setuponly",
                                                                      "showfixtures"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:  # type: ignore[no-untyped-def]
    """pytest-xdist's ``pytest_xdist_node_collection_finished`` (controller, before any item is
    scheduled): a worker selected items, so the run starts."""
    if ids:
        _start_run(node.config)


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
                               pinning=not option_value(config, "no_cpu_pinning"))


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist (-p no:xdist) it is not declared
def pytest_configure_node(node) -> None:  # type: ignore[no-untyped-def]
    """pytest-xdist's ``pytest_configure_node``: tell each worker where the run directory is, and which
    CPU to keep to (see :func:`~lexbench.providers.policy.worker_cpus`)."""
    state = node.config.stash.get(STATE, None)
    if state is None:
        return
    node.workerinput["lexbench_enabled"] = True
    node.workerinput["lexbench_cpu"] = worker_cpu(state.worker_cpus, node.gateway.id)
    node.workerinput["lexbench_run_dir"] = str(state.run_dir) if state.run_dir else ""
    node.workerinput["lexbench_provider_config"] = str(state.provider_config_path) if state.provider_config_path else ""
    node.workerinput["lexbench_shard"] = str(state.shard) if state.shard else ""
    node.workerinput["lexbench_completed"] = sorted(state.completed)
    node.workerinput["lexbench_dataset_sha256"] = state.dataset_sha256
    node.workerinput["lexbench_configuration_sha256"] = state.configuration_sha256
    node.workerinput["lexbench_replay_prefix"] = state.replay_prefix
    node.workerinput["lexbench_replay_tokens"] = state.replay_tokens
    node.workerinput["lexbench_enabled"] = state.enabled


def _replay_key() -> str:
    """The replay key shared with ``lexbench serve-replay`` (:data:`REPLAY_KEY_VARIABLE`), or a usage error
    saying where it comes from."""
    value = os.environ.get(REPLAY_KEY_VARIABLE)
    if not value:
        raise pytest.UsageError(f"--replay-public-url: set {REPLAY_KEY_VARIABLE} to the replay key `lexbench "
                                "serve-replay` printed (or was started with): it proves each provider's fetches and "
                                "reads the served-fetch log")
    try:
        return check_replay_key(value)
    except ValueError as exc:
        raise pytest.UsageError(f"--replay-public-url: {exc}") from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """``pytest_report_header``: say what the session benchmarks, where it writes, and what a resume skips."""
    state = config.stash.get(STATE, None)
    if state is None or state.is_worker or state.run_dir is None:
        return []
    suite = state.get_suite()
    lines = [f"lexbench: suite {suite.id} ({counted(len(suite.cases), 'case')}) x providers {', '.join(state.provider_names)}; "
             f"run record: {state.run_dir}"]
    if state.completed:
        lines.append(f"lexbench: resumed: {counted(len(state.completed), 'item')} already recorded {'is' if len(state.completed) == 1 else 'are'} "
                     "not run again")
    return lines


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``pytest_collection_modifyitems``: deselect items of other shards and items a resumed run has
    already finished. Runs on the controller (``-n 0``) and on every worker with the same inputs."""
    state = config.stash.get(STATE, None)
    if state is None:
        return
    if state.enabled:
        try:
            check_test_providers(items, state)
        except pytest.UsageError:
            state.pending = None  # refused: pytest still finishes the collection, which must not start the run
            raise
    if state.shard is None and not state.completed:
        return
    cases = {case.id: index for index, case in enumerate(state.get_suite().cases)}
    providers = {name: index for index, name in enumerate(state.provider_names)}
    keep, drop = [], []
    for item in items:
        case, tested = case_of_test(item), provider_of_test(item)
        if isinstance(item, CaseItem) and (
                item.name in state.completed
                or (state.shard is not None
                    and not state.shard.holds(cases[item.case.id], providers[item.provider_name], len(providers)))):
            drop.append(item)
        elif case is not None and tested is not None and (
                item_id(case.id, tested) in state.completed
                or (state.shard is not None and not state.shard.holds(cases[case.id], 0, 1))):
            drop.append(item)  # a user's test: its cases are dealt to the shards in suite order
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    """``pytest_collection_finish``: in a process that runs items (a worker, or ``-n 0``), import the
    scorer and build the providers its items will call, so that one-off costs (imports, a TLS context,
    the replay server's start) are paid before the first item rather than inside it: with ``-n 16``
    sixteen first items paid them at once. A worker also hands the controller the names of the run's
    items it selected, which the run's completion counts."""
    state = session.config.stash.get(STATE, None)
    if state is None or not _runs_items(session.config):
        return
    if state.is_worker:  # the controller counts the run's selected items from them (RunWriter)
        session.config.workeroutput[SELECTED_OUTPUT] = run_item_names(session.items)
    if session.items and not state.is_worker and getattr(session.config.option, "dist", "no") == "no":
        _start_run(session.config)
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``pytest_generate_tests``: a test using ``lexbench_case`` runs once per case of the suite."""
    parametrize_cases(metafunc)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    """``pytest_runtest_call``: note when a user's test starts (its answer's latency runs from here)."""
    mark_call_start(item)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    """``pytest_make_collect_report``: with the benchmark on, the session's children are what its
    arguments collect plus the selected suite (:class:`SuiteCollector`), wherever pytest was started."""
    report = yield
    state = collector.config.stash.get(STATE, None)
    if isinstance(collector, pytest.Session) and state is not None and report.passed:
        try:
            suite = state.get_suite()
        except LexbenchError as exc:
            raise pytest.UsageError(f"--suite: {exc}") from None
        report.result.append(SuiteCollector.for_session(collector, suite))
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # type: ignore[no-untyped-def]
    """``pytest_runtest_makereport``: attach the item's run row and JUnit figures to its call-phase report
    (a built-in item's, or a user's test's on ``lexbench_case``)."""
    report = yield
    if call.when == "call" and isinstance(item, CaseItem) and item.row_json:
        report.lexbench_row = item.row_json
        report.lexbench_properties = item.junit_properties
    elif not isinstance(item, CaseItem):
        attach_test_row(item, call, report)
    state = item.config.stash.get(STATE, None)
    if state is not None and state.enabled and (isinstance(item, CaseItem) or provider_of_test(item) is not None):
        redact_report(report, state.session_redactor())  # what pytest prints and writes to the JUnit XML
    return report



@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """``pytest_sessionfinish``: resuming a run whose every item is already recorded runs nothing, and that
    is a finished run, not an empty selection: exit 0 (pytest's 5 would fail a retried CI job). A shard
    dealt no item (:func:`_empty_shard`) writes its empty run record and exits 0 too."""
    state = session.config.stash.get(STATE, None)
    if state is None or state.is_worker or exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED:
        return
    if state.completed and len(state.completed) >= len(state.get_suite().cases) * len(state.provider_names):
        session.exitstatus = pytest.ExitCode.OK
    elif _empty_shard(state) and _runs_items(session.config):
        # More shards than items: this one was dealt none. It still leaves its (empty) run record, or
        # `lexbench report --merge` of every shard could never complete (issue 27 item 9).
        _start_run(session.config)
        session.exitstatus = pytest.ExitCode.OK


def _empty_shard(state: BenchState) -> bool:
    """Whether ``--shard`` dealt this session none of the suite's cases × selected providers, nor any
    case of a user's test (dealt by case, as :func:`pytest_collection_modifyitems` deals them), and no
    ``-k``/``-m`` narrowed the selection (then an empty selection is the user's, and pytest's exit 5 stands)."""
    shard, config = state.shard, state.config
    if shard is None or state.pending is None or config.getoption("keyword") or config.getoption("markexpr"):
        return False
    cases, providers = len(state.get_suite().cases), len(state.provider_names)
    return not any(shard.holds(c, p, providers) for c in range(cases) for p in range(providers)) and \
        not any(shard.holds(c, 0, 1) for c in range(cases))


def pytest_unconfigure(config: pytest.Config) -> None:
    """``pytest_unconfigure``: close providers, stop the replay server, close the results file."""
    state = config.stash.get(STATE, None)
    if state is None:
        return
    for provider in state.providers.values():
        provider.close()
    if state.replay is not None:
        state.replay.stop()
    if state.public_replay and state.session is not None and state.replay_prefix and state.replay_key:
        url = served_fetches_url(state.public_replay, state.replay_prefix, log_token(state.replay_key, state.replay_prefix))
        shown = f"{state.public_replay.rstrip('/')}/{state.replay_prefix}/{SERVED_FETCHES}/…"  # the log token stays secret
        handed = frozenset(name for name in state.specs if state.public_target_url_handed(name))
        problem = state.session.keep_served_fetches(url, shown, prefix=state.replay_prefix, providers=handed)
        if problem:
            print(f"lexbench: {problem}", file=sys.stderr)
    if state.session is not None:
        state.session.close()

