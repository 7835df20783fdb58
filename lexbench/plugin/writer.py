"""The controller's run writer: rows recorded as reports arrive, the run finished at the end (SPEC §6)."""

from __future__ import annotations

import pytest

from lexbench.errors import RunError
from lexbench.plugin.state import BenchState
from lexbench.report import render_terminal, write_reports


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
        if run is None:
            return
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
        run) and print the leaderboard; when no item ran, say why no run record was written."""
        if self.state.session is None:
            hint = no_run_hint(self.state)
            if hint:
                terminalreporter.write_line(hint)
            return
        for line in self.state.session.finish(write_reports, render_terminal):
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
            f"<case-id>[<provider>] for the {len(suite.cases)} cases of suite {suite.id} and the providers "
            f"{', '.join(state.provider_names)}")
