"""The pytest plugin: every case × provider is one item; the verdict is the test outcome (SPEC §1).

Hooks only wire the pipeline together: suite loading (:mod:`lexbench.dataset.suite`), the provider
call (:mod:`lexbench.providers`), scoring (:mod:`lexbench.scoring`) and the run engine
(:mod:`lexbench.run`: the run directory, its rows, manifest and reports, without pytest).

Activation: the plugin loads in every project where lexbench is installed (the ``pytest11`` entry
point) and stays idle — no item, no run directory, no output — unless the benchmark is switched on:
``--lexbench``, ``lexbench = true`` in the ini file, or, in lexbench's own checkout, collecting its
``cases/`` directory (pyproject ``testpaths``: ``pytest --suite=demo`` from the checkout's root).

Collection: the session gets one more child beside what its arguments collect, a
:class:`SuiteCollector` for ``--suite`` holding items named ``<case-id>[<provider>]``, so the
benchmark needs no directory of its own in the project and is collected from any directory.
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
from pathlib import Path

import pytest

from lexbench.dataset.suite import Suite
from lexbench.errors import LexbenchError, RunError
from lexbench.plugin.items import BACKSTOP_MARGIN, CaseItem, SuiteCollector, VerdictFailure
from lexbench.plugin.options import pytest_addoption
from lexbench.plugin.state import (
    STATE, BenchState, benchmark_requested, idle_options, provider_config_of, runtime_policy_of,
)
from lexbench.plugin.writer import RunWriter
from lexbench.providers.policy import declared_family
from lexbench.replay import check_public_base_url, new_run_prefix, served_fetches_url
from lexbench.run.planning import expand_gateway_specs, planned_worker_cpus, worker_cpu
from lexbench.run.session import RunRequest, RunSession, configuration_sha256_of, planned_run
from lexbench.shard import Shard

__all__ = ["BACKSTOP_MARGIN", "STATE", "BenchState", "CaseItem", "RunWriter", "SuiteCollector",
           "VerdictFailure", "pytest_addoption"]


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
    provider_config, path = provider_config_of(config)
    try:
        selected = provider_config.select(config.getoption("providers"))
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
        cpu = workerinput.get("lexbench_cpu")
        if cpu is not None:
            try:
                os.sched_setaffinity(0, {cpu})  # inherited by the extraction process started later
            except OSError:
                pass  # the CPU left the allowed set since the controller looked: run unpinned
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
    """Decide the session's run from the options. A resumed or certified run is opened now
    (:meth:`lexbench.run.session.RunSession.open`); a new one gets its directory's path, checked, and is
    created by :func:`_start_run` when the first item is about to run, so ``--collect-only`` or a ``-k``
    that selects nothing leaves no empty run directory. A refusal is a usage error before any item runs."""
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
        if request.resume or request.certified:
            state.session = session = RunSession.open(request)
            state.run_dir, state.completed = session.run_dir, session.completed
        else:
            state.pending = planned_run(request)
            state.run_dir = Path(state.pending.run_dir)
    except RunError as exc:
        raise pytest.UsageError(str(exc)) from None
    state.dataset_sha256, state.configuration_sha256 = suite.dataset_sha256, configuration_sha256_of(request)


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
                               pinning=not config.getoption("no_cpu_pinning"))


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
    if state is None or not _runs_items(session.config):
        return
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
    """``pytest_runtest_makereport``: attach the item's run row to its call-phase report."""
    report = yield
    if call.when == "call" and isinstance(item, CaseItem) and item.row_json:
        report.lexbench_row = item.row_json
    return report



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

