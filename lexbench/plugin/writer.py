"""The controller's run writer: rows recorded as reports arrive, the run finished at the end (SPEC §6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _pytest.junitxml import xml_key  # the session's JUnit XML writer, as record_testsuite_property finds it

from lexbench.errors import RunError
from lexbench.plugin.fixtures import case_of_test, provider_of_test
from lexbench.plugin.items import CaseItem
from lexbench.plugin.state import BenchState
from lexbench.history.trend import report_panel
from lexbench.run.record import RunRow, item_id
from lexbench.report.render import render_terminal, write_reports
from lexbench.text import counted


SELECTED_OUTPUT = "lexbench_selected"
"""The key of a worker's ``workeroutput`` that carries :func:`run_item_names` of its selected items."""


def reports_with_trends(run_dir: Path, rows: list[RunRow], manifest: dict[str, Any]) -> list[Path]:
    """:func:`~lexbench.report.render.write_reports` with the trend panel of the earlier runs beside
    ``run_dir`` (:func:`~lexbench.history.trend.report_panel`; none beside it: the plain report)."""
    return write_reports(run_dir, rows, manifest, trend_panel=report_panel(run_dir))


def run_item_names(items: list[pytest.Item]) -> list[str]:
    """The run's item names (``<case-id>[<provider>]``, :func:`lexbench.run.record.item_id`) of the selected
    ``items``: the suite's items and each user's test on ``lexbench_case``; other tests are not the run's."""
    names = []
    for item in items:
        if isinstance(item, CaseItem):
            names.append(item.name)
            continue
        case, tested = case_of_test(item), provider_of_test(item)
        if case is not None and tested is not None:
            names.append(item_id(case.id, tested))
    return names


class RunWriter:
    """Controller-only plugin: records rows as reports arrive and finishes the run at the end
    (:class:`lexbench.run.session.RunSession`).

    When the run directory cannot be written (disk full), the session stops after the items in flight
    — no provider is called for a result that could not be kept — and the summary says why and how to
    resume; the rows already written stay whole."""

    def __init__(self, state: BenchState) -> None:
        self.state = state
        self.session: pytest.Session | None = None
        self.selection_seen = False
        self.selected: set[str] | None = None  # the run's items this session selected; None: not known yet

    @pytest.hookimpl(trylast=True, optionalhook=True)  # after the plugin's own hook has started the run
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """``pytest_collection_finish`` (``-n 0``): the items this session runs."""
        self._selected([item.nodeid for item in session.items])
        self.selected = set(run_item_names(session.items))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:  # type: ignore[no-untyped-def]
        """pytest-xdist's ``pytest_testnodedown``: the run's items a worker selected (every worker selects
        the same; a worker that died sends none)."""
        names = getattr(node, "workeroutput", {}).get(SELECTED_OUTPUT)
        if names is not None:
            self.selected = (self.selected or set()) | set(names)

    @pytest.hookimpl(trylast=True, optionalhook=True)  # after the plugin's own hook has started the run
    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:  # type: ignore[no-untyped-def]
        """pytest-xdist's ``pytest_xdist_node_collection_finished``: the items every worker runs (the same
        on each)."""
        self._selected(ids)

    def _selected(self, node_ids: list[str]) -> None:
        """Record a partial rerun in the manifest: with ``--lf``, pytest's cache provider keeps only the
        items that failed (a fail verdict or a crash) in its last sessions when any is selected, so the
        selection then lies wholly in that set; otherwise it runs every item and the run is a full one."""
        if self.selection_seen:
            return
        self.selection_seen = True
        last_failed = self.state.last_failed
        if self.state.session is None or not last_failed or not node_ids or not all(node_id in last_failed for node_id in node_ids):
            return
        try:
            self.state.session.mark_rerun("last-failed", len(node_ids))
        except OSError:
            pass  # the manifest is written again when the session finishes

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """``pytest_sessionstart``: remember the session, to stop it if the run record fails."""
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """``pytest_runtest_logreport``: append each finished item's row (written at once)."""
        row_json = getattr(report, "lexbench_row", None)
        run = self.state.session
        if run is None:
            return
        try:
            if row_json and (report.when == "call" or report.when == "setup" and report.skipped):
                tested = getattr(report, "lexbench_test_provider", None)
                if tested:  # a user's test on lexbench_case: the manifest lists its provider first
                    run.add_test_provider(tested, report.nodeid.split("[", 1)[0])
                run.append_json(row_json)  # made by RunRow.model_dump_json(): no re-parse
                self._junit_figures(report)
            elif report.failed and not row_json and report.when != "teardown":
                # The item died without a verdict (worker killed, backstop timeout): record it as crashed.
                message = str(report.longrepr).strip().splitlines()[-1][:500] if report.longrepr else "no verdict"
                run.record_crash(report.nodeid, message)
        except RunError:
            self._stop(f"lexbench: the run record cannot be written: {run.write_failure}")

    def _junit_figures(self, report: pytest.TestReport) -> None:
        # Per-item figures go to the <testsuite>'s <properties>, named lexbench/<item>/<figure>: the
        # xunit2 schema (pytest's default family) has no <properties> per <testcase>, so pytest's
        # user_properties would make the file invalid. This is where record_testsuite_property writes.
        xml = self.state.config.stash.get(xml_key, None)
        if xml is not None:
            for name, value in getattr(report, "lexbench_properties", ()):
                xml.add_global_property(name, value)

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
        run) and print the leaderboard; when no item ran, say why no run record was written."""
        if self.state.session is None:
            hint = no_run_hint(self.state)
            if hint:
                terminalreporter.write_line(hint)
            return
        for line in self.state.session.finish(reports_with_trends, render_terminal, self.selected):
            if line.section:
                terminalreporter.section(line.text)
            elif line.red:
                terminalreporter.write_line(line.text, red=True)
            else:
                terminalreporter.write_line(line.text)



def no_run_hint(state: BenchState) -> str | None:
    """The line a session that ran no item prints when ``-k``/``-m`` selected nothing: what they were
    matched against. ``None`` without ``-k``/``-m``."""
    config = state.config
    keyword, markexpr = config.getoption("keyword"), config.getoption("markexpr")
    if not keyword and not markexpr:
        return None
    suite = state.get_suite()
    given = " and ".join(f"{flag} {value!r}" for flag, value in (("-k", keyword), ("-m", markexpr)) if value)
    return (f"lexbench: {given} selected no item, so no run record was written; the benchmark's items are "
            f"<case-id>[<provider>] for the {counted(len(suite.cases), 'case')} of suite {suite.id} and the providers "
            f"{', '.join(state.provider_names)}")
