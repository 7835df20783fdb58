"""Fixtures for a user's own fetcher, and the provider types a conftest.py adds (SPEC §1, §5; README
"Your own fetcher").

- ``lexbench_case``: parametrized over the selected suite (ids are case ids): a
  :class:`~lexbench.run.fetcher.CaseTarget`, the case plus the URL to fetch.
- ``fetch_timeout``: ``--fetch-timeout``, seconds per physical call.
- ``lexbench_provider``: a factory, ``lexbench_provider(name)`` → the configured provider ``name``, built
  once per process.
- ``lexbench_run``: the open run, a :class:`~lexbench.run.fetcher.BenchmarkRun`.

A test that uses ``lexbench_case`` is a provider of the run, named after its function without the
``test_`` prefix, or by ``@pytest.mark.lexbench_provider_name("name")``. Its answer, handed to
``lexbench.assert_passes``, becomes a row built as a :class:`~lexbench.plugin.items.CaseItem`'s is
(:func:`lexbench.run.session.scored_row`) and reaches the controller the same way: the call report's
``lexbench_row``, with ``lexbench_test_provider`` naming the provider so the run's manifest lists it.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from lexbench.answer import ProviderResult
from lexbench.dataset.case import Case
from lexbench.dataset.flags import SELF_REPORTED
from lexbench.errors import ConfigError, LexbenchError
from lexbench.plugin.options import option_value
from lexbench.plugin.state import ACTIVATION_HINT, STATE, BenchState
from lexbench.providers import PROVIDER_TYPES, Provider, register_provider_type
from lexbench.providers.config import PROVIDER_NAME
from lexbench.providers.call import CURRENT_CALL, CallContext
from lexbench.providers.credentials import Redactor
from lexbench.run.fetcher import BenchmarkRun, CaseTarget, VerdictFailure, timed
from lexbench.run.row import crashed_row, junit_properties, self_reported, skipped_row
from lexbench.run.session import scored_row
from lexbench.verdict import Outcome, Verdict

CASE_FIXTURE = "lexbench_case"
NAME_MARK = "lexbench_provider_name"
TEST_CONTRACT = "cleaned"
NO_ANSWER = ("the test returned without an answer: call lexbench.assert_passes(lexbench_case, answer) once "
             "(it is recorded as a fail)")
"""A user's fetcher competes on the shared readable-content leaderboard."""

_ROW = pytest.StashKey[str]()
_PROPERTIES = pytest.StashKey[list[tuple[str, str]]]()
_STARTED = pytest.StashKey[float]()


def _enabled_state(config: pytest.Config) -> BenchState:
    state = config.stash.get(STATE, None)
    if state is None or not state.enabled:
        pytest.skip(f"lexbench is off in this session: {ACTIVATION_HINT} to run and record this test")
    return state


@pytest.fixture
def lexbench_case(request: pytest.FixtureRequest) -> CaseTarget:
    """One case of ``--suite`` (the test is parametrized over them, ids are case ids): its ``url`` is the
    replay server's URL of the frozen page (``--live``: the original URL); hand the answer to
    ``lexbench.assert_passes``. Skips the test when the benchmark is off."""
    state = _enabled_state(request.config)
    case: Case = request.param
    item = request.node
    name = provider_of_test(item)

    def record(result, verdict: Verdict, received: float) -> Verdict:  # type: ignore[no-untyped-def]
        if _ROW in item.stash:
            raise RuntimeError(f"lexbench.assert_passes was called twice for case {case.id} in {item.nodeid}; "
                               "a test gives one answer per case")
        result = timed(result, received - item.stash.get(_STARTED, received))
        context = state.row_context(name, state.get_suite().id, TEST_CONTRACT)
        # A user's test declares no credentials of its own but may hold any configured provider's (its
        # answer may come from lexbench_provider(name)): the session's redactor masks them all (SPEC §5).
        redactor = state.session_redactor()
        shown = redactor.result(self_reported(verdict))  # the test's own excuse, labelled (issue 27 item 6)
        row = scored_row(state.run_dir, context, case, result, shown, redactor)
        if shown.outcome is Outcome.UNRESOLVABLE:
            row.flags = [*row.flags, SELF_REPORTED]
        item.stash[_ROW] = row.model_dump_json()
        # Per-item figures travel to the testsuite's properties (RunWriter): xunit2 has none per testcase.
        item.stash[_PROPERTIES] = [(f"lexbench/{row.item_id}/{figure}", value) for figure, value
                                   in junit_properties(verdict, result.latency_s, len(result.content))]
        return shown

    return CaseTarget(case, lambda: state.target_url(case), sink=record)


@pytest.fixture(scope="session")
def fetch_timeout(pytestconfig: pytest.Config) -> float:
    """``--fetch-timeout``: the seconds one physical call may take (default 30)."""
    return option_value(pytestconfig, "fetch_timeout")


@pytest.fixture(scope="session")
def lexbench_provider(pytestconfig: pytest.Config) -> Callable[[str], Provider]:
    """A factory: ``lexbench_provider(name)`` is provider ``name`` of the provider configuration (selected
    or not), built once per process on the shared HTTP boundary; call ``.fetch(lexbench_case.case,
    fetch_timeout, lexbench_case.url)`` for one physical call. Raises ``LookupError`` for a name the
    configuration does not define."""
    state = _enabled_state(pytestconfig)

    built: dict[str, TestProvider] = {}

    def build(name: str) -> Provider:
        try:
            state.spec(name)
        except KeyError:
            raise LookupError(f"no provider {name!r} in the provider configuration ({state.provider_config_path or 'built-in'}); "
                              f"configured: {', '.join(state.provider_config.names)}") from None
        if name not in built:
            built[name] = TestProvider(state.get_provider(name))
        return built[name]  # type: ignore[return-value]

    return build


class TestProvider:
    """A configured provider as ``lexbench_provider(name)`` hands it to a user's test: the provider's own
    attributes, and :meth:`fetch` as one physical call made under the call context the runtime policy
    gives a built-in item's call (:data:`~lexbench.providers.call.CURRENT_CALL`), so the HTTP boundary
    masks the provider's credentials in its debug log, drops them from a redirect and the hosted
    adapters from their error excerpts, as they do for the built-in provider (SPEC §5)."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        """``provider.fetch(case, timeout, url)`` under a call context; returns or raises what it does."""
        context = CallContext(provider=self.provider.name, case_id=case.id, attempt=1, redactor=self.provider.redactor())
        token = CURRENT_CALL.set(context)
        try:
            return self.provider.fetch(case, timeout, url)
        finally:
            CURRENT_CALL.reset(token)
            context.trace.memory.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["provider"], name)

    def __repr__(self) -> str:
        return f"TestProvider({self.provider.name!r})"


@pytest.fixture(scope="session")
def lexbench_run(pytestconfig: pytest.Config) -> BenchmarkRun:
    """The run this session records into. Skips when the benchmark is off."""
    state = _enabled_state(pytestconfig)
    return BenchmarkRun(directory=state.run_dir, suite=state.get_suite(), live=state.live,
                        providers=tuple(state.provider_names), fetch_timeout_s=state.policy.timeout_s)


def parametrize_cases(metafunc: pytest.Metafunc) -> None:
    """Parametrize a test that uses ``lexbench_case`` over the suite's cases (indirectly: the fixture
    builds each :class:`CaseTarget` at setup, so collection starts no server)."""
    if CASE_FIXTURE not in metafunc.fixturenames:
        return
    try:
        state = metafunc.config.stash.get(STATE, None)
        if state is None:
            return  # the benchmark is off: the fixture skips the test with the way to switch it on
        cases = state.get_suite().cases
    except LexbenchError as exc:
        raise pytest.UsageError(f"--suite: {exc}") from None
    metafunc.parametrize(CASE_FIXTURE, cases, ids=[case.id for case in cases], indirect=True)


def provider_of_test(item: pytest.Item) -> str | None:
    """The provider a user's test stands for: ``@pytest.mark.lexbench_provider_name("name")``, else its
    function's name without ``test_``; ``None`` for an item that does not use ``lexbench_case``."""
    if CASE_FIXTURE not in getattr(item, "fixturenames", ()):
        return None
    mark = item.get_closest_marker(NAME_MARK)
    if mark is not None:
        if len(mark.args) != 1 or mark.kwargs or not isinstance(mark.args[0], str):
            raise pytest.UsageError(f"{item.nodeid}: write @pytest.mark.{NAME_MARK}('name'), one provider name")
        return mark.args[0]
    name = getattr(item, "originalname", item.name)
    return name.removeprefix("test_") or name


def case_of_test(item: pytest.Item) -> Case | None:
    """The case of a user's test item, ``None`` for other items."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(CASE_FIXTURE) if callspec is not None else None


def check_test_providers(items: list[pytest.Item], state: BenchState) -> None:
    """Refuse, before any item runs, a user's test whose provider name is not a valid one, or is taken by
    a selected provider or another test function, and a test parametrized over more than the cases (its
    variants would record one case twice under one provider). Raises ``pytest.UsageError``."""
    owners: dict[str, str] = {}
    for item in items:
        name = provider_of_test(item)
        if name is None:
            continue
        function = item.nodeid.split("[", 1)[0]
        others = sorted(set(item.callspec.params) - {CASE_FIXTURE})
        if others:
            raise pytest.UsageError(f"{function}: parametrized over {', '.join(others)} as well as the cases, so "
                                    f"each variant would record the same case under provider {name!r}; write one "
                                    f"test function per variant, each marked @pytest.mark.{NAME_MARK}('its-name')")
        if not re.match(PROVIDER_NAME, name):
            raise pytest.UsageError(f"{function}: provider name {name!r} is not one lexbench can record (letters, "
                                    f"digits, '.', '_', '-', at most 64); mark it @pytest.mark.{NAME_MARK}('name')")
        if name in state.specs:
            raise pytest.UsageError(f"{function}: provider name {name!r} is also a selected provider; mark the test "
                                    f"@pytest.mark.{NAME_MARK}('another-name')")
        if owners.setdefault(name, function) != function:
            raise pytest.UsageError(f"{function} and {owners[name]} both record as provider {name!r}; mark one "
                                    f"@pytest.mark.{NAME_MARK}('another-name')")


def mark_call_start(item: pytest.Item) -> None:
    """Note when a user's test starts its call: a string answer's latency is measured from here to
    ``assert_passes``."""
    if CASE_FIXTURE in getattr(item, "fixturenames", ()):
        item.stash[_STARTED] = time.perf_counter()


def redact_report(report: pytest.TestReport, redactor: Redactor) -> None:
    """Mask every secret ``redactor`` knows in what pytest shows and writes of ``report`` (its terminal
    output, ``-rA`` summary and JUnit XML): the failure or skip message (``longrepr``, rendered as text
    when it holds one), the captured output and logs (``sections``) and ``user_properties``."""
    if not redactor:
        return
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        report.longrepr = (longrepr[0], longrepr[1], redactor.text(str(longrepr[2])))
    elif longrepr is not None:
        text = str(longrepr)
        if redactor.holds_secret(text):
            report.longrepr = redactor.text(text)
    report.sections = [(title, redactor.text(content)) for title, content in report.sections]
    report.user_properties = [(name, redactor.text(value) if isinstance(value, str) else value)
                              for name, value in report.user_properties]


def attach_test_row(item: pytest.Item, call: pytest.CallInfo, report: pytest.TestReport) -> None:
    """On a user's test's call report: its row (``lexbench_row``) and provider (``lexbench_test_provider``);
    a test that raised before answering is recorded as crashed, quoting the exception, and one that
    skipped itself (in its call or setup) as ``unresolvable``, flagged ``self_reported``
    (:func:`~lexbench.run.row.skipped_row`). A ``fail`` verdict is shown as its explanation alone."""
    if call.when not in ("setup", "call"):
        return
    if call.excinfo is not None and isinstance(call.excinfo.value, VerdictFailure):
        report.longrepr = str(call.excinfo.value)
    name, case = provider_of_test(item), case_of_test(item)
    state = item.config.stash.get(STATE, None)
    if name is None or case is None or state is None or not state.enabled:
        return
    row = item.stash.get(_ROW, None)
    if call.when == "setup" and not report.skipped:
        return  # its call phase gives the row
    if row is None and report.skipped:  # it skipped itself instead of answering: its own excuse, recorded
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr or "")
        reason = state.session_redactor().text(reason.removeprefix("Skipped: "))[:500]
        row = skipped_row(state.row_context(name, state.get_suite().id, TEST_CONTRACT), case, reason).model_dump_json()
    if row is not None and report.skipped and isinstance(report.longrepr, tuple):
        path, line = item.reportinfo()[:2]  # an unresolvable verdict: shown at the test, not inside lexbench
        report.longrepr = (os.fspath(path), (line or 0) + 1, report.longrepr[2])
    if row is None and report.passed:  # it returned without an answer: a fetcher that gave nothing is no pass
        report.outcome = "failed"
        report.longrepr = NO_ANSWER
    if row is None and report.failed:
        if call.excinfo is not None and call.excinfo.exconly().strip():
            message = state.session_redactor().text(call.excinfo.exconly().strip().splitlines()[-1])[:500]
        else:
            message = NO_ANSWER
        row = crashed_row(state.row_context(name, state.get_suite().id, TEST_CONTRACT), case, message).model_dump_json()
    if row is not None:
        report.lexbench_row = row
        report.lexbench_test_provider = name
        report.lexbench_properties = item.stash.get(_PROPERTIES, [])


def register_conftest_types(config: pytest.Config) -> None:
    """Add the types conftest.py files return from ``pytest_lexbench_provider_types`` to the registry,
    until the session ends. Raises ``pytest.UsageError`` for a value that is not a ``Provider`` subclass
    or a name another type holds."""
    for returned in config.hook.pytest_lexbench_provider_types():
        for cls in returned or ():
            if not (isinstance(cls, type) and issubclass(cls, Provider)):
                raise pytest.UsageError(f"pytest_lexbench_provider_types returned {cls!r}; return lexbench.Provider "
                                        "subclasses")
            try:
                register_provider_type(cls)
            except ConfigError as exc:
                raise pytest.UsageError(f"pytest_lexbench_provider_types: {exc}") from None
            config.add_cleanup(lambda cls=cls: PROVIDER_TYPES.unregister(cls))
