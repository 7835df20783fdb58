"""One session of a run (SPEC §6): open the run directory → record each item's row → finish the
manifest and the reports. Plain values in, files out; :mod:`lexbench.plugin` drives it from pytest.

::

    session = RunSession.open(RunRequest(suite=..., specs=..., ...))   # RunError: nothing was run
    session.record(case, provider, answer, verdict, redactor)          # or append_json(a worker's row)
    summary = session.finish()                                         # manifest, then the reports
    session.close()

Only the controller opens a session; a worker (or the item itself with ``-n 0``) turns its answer into
a row with :func:`scored_row`, which saves the answer under ``responses/``, and the controller appends
the row it is sent. When the run directory cannot be written (disk full) the session remembers why
(:attr:`RunSession.write_failure`): the caller stops calling providers, and :meth:`RunSession.finish`
says how to resume.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexbench.run.certify import certification_problems, loaded_code_problems
from lexbench.dataset.case import Case
from lexbench.dataset.flags import SELF_REPORTED
from lexbench.dataset.suite import Suite
from lexbench.errors import RunError
from lexbench.providers import ProviderConfig, ProviderSpec, RuntimePolicy
from lexbench.providers.config import CONFIGURED
from lexbench.providers.credentials import Redactor
from lexbench.answer import ProviderResult
from lexbench.run.record import (
    RESULTS_NAME, RunIdentity, RunRecorder, RunRow, canonical_sha256, checked_rows, count_tokens, environment, item_id,
    load_rows, read_manifest, resume_plan, save_counted, utc_now, write_manifest,
)
from lexbench.run.rundir import RunLock, append_file, check_run_dir, make_run_dir
from lexbench.run.manifest import (
    Certification, Completion, Manifest, Rerun, RunOptions, SessionRecord, SuiteFacts, configuration_record,
    provider_config_facts,
)
from lexbench.run.attestation import certification_record
from lexbench.run.provenance import session_code
from lexbench.run.row import RowContext, crashed_row, parse_item_name, row_of
from lexbench.run.served_fetches import keep_served_fetches
from lexbench.scoring.probes import boilerplate_found
from lexbench.run.shard import Shard
from lexbench.text import counted
from lexbench.verdict import Verdict


@dataclass(frozen=True)
class RunRequest:
    """What a session is asked to do: :mod:`lexbench.plugin`'s options as plain values.

    ``specs``: the selected providers in selection order; ``provider_selection``: ``--providers`` as
    given (``None``: the configuration's default); ``run_dir``/``resume``: the options as given,
    relative to ``invocation_dir``; a new run without ``run_dir`` goes to
    ``<project_root>/runs/<suite>-<UTC time>[-shardKofN]``. ``keyword``/``markexpr`` (``-k``/``-m``) are
    checked by a certified run; ``workers``/``worker_cpus`` are recorded in the session entry.
    ``effective_argv`` (the ini's ``addopts``, ``PYTEST_ADDOPTS``, then the command line) and
    ``plugins`` (pytest's registered plugins and conftests now, as (name, file); called when the run
    is certified and again when it finishes) make a certified run's record of the code it loaded
    (:func:`lexbench.run.provenance.loaded_code`)."""

    suite: Suite
    specs: dict[str, ProviderSpec]
    provider_config: ProviderConfig
    policy: RuntimePolicy
    project_root: Path
    invocation_dir: Path
    provider_config_path: Path | None = None
    provider_selection: str | None = None
    live: bool = False
    run_dir: str | None = None
    resume: str | None = None
    shard: Shard | None = None
    measure_only: bool = False
    certified: bool = False
    keyword: str = ""
    markexpr: str = ""
    argv: list[str] = field(default_factory=lambda: list(sys.argv))
    workers: int = 0
    worker_cpus: list[int] | None = None
    effective_argv: list[str] = field(default_factory=list)
    plugins: Callable[[], list[tuple[str, str | None]]] = list

    def path(self, value: str) -> Path:
        """An option's path, relative to where the session was invoked."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else self.invocation_dir / path


@dataclass(frozen=True)
class SummaryLine:
    """One line of the session's closing summary; with ``section``, the title of a section instead."""

    text: str
    red: bool = False
    section: bool = False


class RunSession:
    """An open run directory, locked for this session, with its manifest written and its results
    file open (see the module docstring). Made by :meth:`open`."""

    def __init__(self, request: RunRequest, run_dir: Path, lock: RunLock, manifest: Manifest,
                 completed: frozenset[str]) -> None:
        self.request = request
        self.run_dir = run_dir
        self.lock = lock
        self.manifest = manifest
        self.completed = completed
        self.recorder: RunRecorder | None = None
        self.write_failure: str | None = None

    @property
    def dataset_sha256(self) -> str | None:
        return self.manifest.suite.dataset_sha256

    @property
    def configuration_sha256(self) -> str:
        return self.manifest.configuration_sha256

    @classmethod
    def open(cls, request: RunRequest) -> RunSession:
        """Decide the run directory (new or resumed), check it is one lexbench left as it is and lock it
        (:mod:`lexbench.run.rundir`), check a certified run's requirements, open the results file and write
        the first manifest. Raises :class:`RunError` with the reason — another session holding the
        directory included — before any item runs; the lock is released then."""
        if request.measure_only and request.certified:
            raise RunError("--measure-only and --certified exclude each other: a measure-only run never certifies")
        suite = request.suite
        configuration = configuration_record(request.specs, request.provider_config, request.policy, live=request.live)
        configuration_sha256 = canonical_sha256(configuration)
        identity = RunIdentity(suite=suite.id, dataset_sha256=suite.dataset_sha256,
                               configuration_sha256=configuration_sha256)
        if request.resume:
            run_dir, lock, previous, completed = _resumed_dir(request, identity)
        else:
            run_dir, lock = _new_dir(request)
            previous, completed = {}, frozenset()
        try:
            manifest = _first_manifest(request, configuration, configuration_sha256, previous, completed)
            opened = cls(request, run_dir, lock, manifest, completed)
            opened.recorder = RunRecorder(run_dir)
        except OSError as exc:
            lock.release()
            raise RunError(f"--run-dir={run_dir}: cannot write the run record there: {exc.strerror or exc}") from None
        except BaseException:
            lock.release()
            raise
        try:
            write_manifest(run_dir, manifest.record())
        except OSError as exc:
            opened.close()
            raise RunError(f"--run-dir={run_dir}: cannot write the run record there: {exc.strerror or exc}") from None
        return opened

    def row_context(self, provider: str) -> RowContext:
        """What every row of ``provider`` in this run carries besides its case."""
        return RowContext(suite=self.request.suite.id, provider=provider,
                          output_contract=self.request.specs[provider].output_contract,
                          dataset_sha256=self.dataset_sha256, configuration_sha256=self.configuration_sha256)

    def record(self, case: Case, provider: str, answer: ProviderResult, verdict: Verdict,
               redactor: Redactor | None = None) -> RunRow:
        """Save the answer and append the row of ``case`` × ``provider`` (see :func:`scored_row`; no
        ``redactor``: the session's, :meth:`redactor`) in this process. Raises :class:`RunError` (and
        remembers it) when the row cannot be written."""
        row = scored_row(self.run_dir, self.row_context(provider), case, answer, verdict, redactor or self.redactor())
        self.append_json(row.model_dump_json())
        return row

    def redactor(self) -> Redactor:
        """The session's redactor: the secrets of every provider of the run's configuration, selected or
        not, as they are now (SPEC §5). Whatever reaches the run record without a provider's own
        redactor (a crash message, a user's test's row) passes through it."""
        names = [*self.request.provider_config.secret_variables(),
                 *(v for spec in self.request.specs.values() for v in spec.secret_variables())]
        return Redactor.from_environment(dict.fromkeys(names))

    def append_json(self, row_json: str) -> None:
        """Append a row given as ``RunRow.model_dump_json()`` (made by a worker; not parsed again).
        Raises :class:`RunError` (and remembers it) when it cannot be written."""
        try:
            self.recorder.append_json(row_json)
        except RunError as exc:
            self.stop(str(exc))
            raise

    def add_test_provider(self, name: str, test: str) -> None:
        """List provider ``name``, a user's test (``test``: its function's node id) recording through the
        ``lexbench_case`` fixture, in the manifest (``providers`` and ``test_providers``), once, before its
        first row. Raises :class:`RunError` (and remembers it) when the manifest cannot be written."""
        if name in self.manifest.test_providers:
            return
        self.manifest.test_providers[name] = test
        # Selected providers first, then the tests' by name: the same list whatever order rows arrive in,
        # so the shards of one run agree (lexbench report --merge compares it).
        self.manifest.providers = [*self.request.specs, *sorted(self.manifest.test_providers)]
        try:
            write_manifest(self.run_dir, self.manifest.record())
        except OSError as exc:
            message = f"cannot write {self.run_dir / 'manifest.json'}: {exc.strerror or exc}"
            self.stop(message)
            raise RunError(message) from None

    def record_crash(self, item_name: str, message: str) -> RunRow | None:
        """Append the row of the item named ``item_name`` (a node id will do) that ended without a
        verdict, quoting ``message``; ``None`` when the name is not an item of this run. Raises
        :class:`RunError` (and remembers it) when it cannot be written."""
        parsed = parse_item_name(item_name)
        case = next((c for c in self.request.suite.cases if parsed and c.id == parsed[0]), None)
        if case is None or parsed[1] not in self.request.specs:
            return None
        row = crashed_row(self.row_context(parsed[1]), case, self.redactor().text(message))
        try:
            self.recorder.append(row)
        except RunError as exc:
            self.stop(str(exc))
            raise
        return row

    def stop(self, message: str) -> bool:
        """Remember why the run record cannot be written; ``True`` the first time only."""
        if self.write_failure is not None:
            return False
        self.write_failure = message
        return True

    def mark_rerun(self, of: str, items: int) -> None:
        """Record in the manifest, at once, that this run reruns only ``items`` earlier failures (``of``:
        ``last-failed``), not every item of the suite. Raises ``OSError`` when the manifest cannot be written."""
        self.manifest.run.rerun = Rerun(of=of, items=items)
        write_manifest(self.run_dir, self.manifest.record())

    def finish(self, write_reports: Callable[[Path, list[RunRow], dict[str, Any]], object],
               render_terminal: Callable[[list[RunRow]], list[str]],
               selected: Collection[str] | None = None) -> list[SummaryLine]:
        """Record the session's end and the completion in the manifest, write the reports (not in a
        measure-only run, nor after a write failure) and return the closing summary: the leaderboard,
        or why no report was written and how to continue.

        ``selected``: the names (``<case-id>[<provider>]``) of the items this session selected, the
        suite's and the users' tests' alike, after ``-k``/``-m``/``--shard``/``--lf``/``--resume``
        deselected theirs; ``None`` when unknown (every process that collected them died), and the
        run's whole plan is expected then.

        ``write_reports(run_dir, rows, manifest)`` and ``render_terminal(rows)`` come from the report
        stage (``lexbench.report.render``), which follows the run in the flow, so the caller hands them in."""
        lines: list[SummaryLine] = []
        rows = load_rows(self.run_dir)
        if self.write_failure is not None:
            lines += [SummaryLine("lexbench run record", section=True),
                      SummaryLine(f"lexbench: the run stopped: {self.write_failure}", red=True)]
        try:
            self._finish_manifest(rows, selected)
        except OSError as exc:
            return [*lines, SummaryLine(f"lexbench: cannot write {self.run_dir / 'manifest.json'}: "
                                        f"{exc.strerror or exc}; the rows are kept; continue with "
                                        f"--resume={self.run_dir} once the disk has room", red=True)]
        if self.write_failure is not None:
            return lines
        if self.manifest.run.measure_only:
            return [SummaryLine("lexbench measure-only run", section=True),
                    SummaryLine(f"{counted(len(rows), 'scored item')} in {self.run_dir} ({RESULTS_NAME}, responses/); "
                                f"no report built — lexbench report {self.run_dir} builds one")]
        try:
            manifest, rows = checked_rows(self.run_dir)
            write_reports(self.run_dir, rows, manifest)
        except RunError as exc:
            return [SummaryLine(f"lexbench: no report written: {exc}", red=True)]
        except OSError as exc:
            return [SummaryLine(f"lexbench: no report written: {exc.strerror or exc}; rebuild it later with "
                                f"lexbench report {self.run_dir}", red=True)]
        lines = [SummaryLine("lexbench leaderboard", section=True), *map(SummaryLine, render_terminal(rows))]
        certification = self.manifest.certification
        if certification:
            verdict = "certified" if certification.certified else "NOT certified: " + "; ".join(certification.problems)
            lines.append(SummaryLine(f"certification: {verdict}"))
        lines.append(SummaryLine(f"run record: {self.run_dir} ({counted(len(rows), 'item')}; report.md, report.html, "
                                 f"report.json, {RESULTS_NAME})"))
        return lines

    def _finish_manifest(self, rows: list[RunRow], selected: Collection[str] | None) -> None:
        """Record the session's end, how many of the run's selected items have a result, and whether a
        requested certification was reached (every item of the run's whole plan recorded).

        Completion counts what the run selected over its sessions: this session's ``selected`` items
        plus those recorded before it (a resumed run); an item ``-k``, ``-m``, ``--lf`` or another
        shard deselected is not this run's, so it is not missing. Certification does not follow the
        selection: it needs every item of :meth:`planned_items`."""
        planned = self.planned_items()
        expected = planned if selected is None else set(selected) | self.completed
        recorded_items = {row.item_id for row in rows}
        recorded = recorded_items & expected
        missing = len(expected - recorded)
        unfinished = len(planned - recorded_items)
        finished = utc_now()
        manifest = self.manifest
        session = manifest.sessions[-1]
        session.finished = finished
        manifest.finished = finished
        manifest.completion = Completion(expected=len(expected), recorded=len(recorded), missing=missing)
        certification = manifest.certification
        if certification is not None:
            problems = [f"{unfinished} item(s) of the suite's cases × providers have no "
                        f"result; finish them with --resume={self.run_dir}"] if unfinished else []
            excused = sorted(row.item_id for row in rows if SELF_REPORTED in row.flags)
            if excused:  # a user's test's own excuse for a miss cannot be checked (issue 27 item 6)
                problems.append(f"{len(excused)} item(s) of users' tests reported themselves unresolvable "
                                f"(self-reported: a result built as rate_limited/auth…, or a pytest.skip), which a "
                                f"certified run does not accept: {', '.join(excused[:5])}"
                                + (f" and {len(excused) - 5} more" if len(excused) > 5 else ""))
            # Code imported since the start (a conftest collected later, a plugin loaded on demand) counts too.
            loaded = session_code(self.request.plugins(), code=manifest.code, argv=self.request.effective_argv,
                                  environ=os.environ)
            certification.problems = problems + loaded_code_problems(loaded)
            certification.certified = not certification.problems
            certification.record = certification.record_sha256 = None
            if certification.certified:
                certification.record = certification_record(manifest.record(), rows)
                certification.record_sha256 = canonical_sha256(certification.record)
        write_manifest(self.run_dir, manifest.record())

    def planned_items(self) -> set[str]:
        """The names of every item the run plans, whatever a session selects: each case of the suite
        × each selected provider and each user's test provider (``manifest.test_providers``), within
        this shard (a user's test is dealt to the shards by case, as
        :func:`lexbench.plugin.pytest_collection_modifyitems` deals it)."""
        cases, names, shard = self.request.suite.cases, list(self.request.specs), self.request.shard
        planned = {item_id(case.id, name) for c, case in enumerate(cases) for p, name in enumerate(names)
                   if shard is None or shard.holds(c, p, len(names))}
        return planned | {item_id(case.id, name) for c, case in enumerate(cases) for name in self.manifest.test_providers
                          if shard is None or shard.holds(c, 0, 1)}

    def keep_served_fetches(self, url: str, shown_url: str, *, prefix: str, providers: frozenset[str]) -> str | None:
        """Add the entries of the served-fetch log at ``url`` (the public replay server's, issue 21) that
        can be believed to the run's ``served-fetches.jsonl`` (bounded, checked and cleaned:
        :func:`lexbench.run.served_fetches.keep_served_fetches`); a resumed run adds its own lines.
        Returns what was not kept, else ``None``: not fatal, the items are already recorded."""
        cases = frozenset(case.id for case in self.request.suite.cases)
        return keep_served_fetches(url, shown_url, self.run_dir, prefix=prefix, providers=providers,
                                   cases=cases).message()

    def close(self) -> None:
        """Close the results file and release the run directory."""
        if self.recorder is not None:
            self.recorder.close()
        self.lock.release()


def scored_row(run_dir: Path | None, context: RowContext, case: Case, answer: ProviderResult, verdict: Verdict,
               redactor: Redactor, *, unrecorded_requests: list[str] | None = None,
               wall: tuple[float, float] | None = None) -> RunRow:
    """The row of a scored item, its answer saved under ``responses/`` of ``run_dir`` (not saved
    without one). ``answer`` is the provider's answer as the scorer saw it; ``verdict`` is already
    redacted (it is shown as well as written).

    The answer is redacted here, where it is written, and once (:meth:`Redactor.result`: the same
    object when it holds no secret); the saved text's sha256 and the token count come from the one
    encoding that is written (:func:`save_counted`). Sizes and boilerplate probes are measured on the
    answer as given. A response that cannot be saved (disk full) keeps the verdict and flags the row
    ``response_not_saved``; the controller stops the run if rows fail too. ``unrecorded_requests`` and
    ``wall``: see :func:`~lexbench.run.row.row_of`."""
    flags = list(case.flags)
    written = redactor.result(answer)
    try:
        digest, tokens = save_counted(run_dir, written.content)
    except OSError:
        digest, tokens, flags = None, None, [*flags, "response_not_saved"]
    if tokens is None or written.content is not answer.content:  # a secret was masked: count what was given
        tokens = count_tokens(answer.content)
    return row_of(context, case, verdict, written, answered=answer, response_sha256=digest, content_tokens=tokens,
                  flags=flags, boilerplate_found=boilerplate_found(case, answer.content, answer.content_format),
                  unrecorded_requests=unrecorded_requests, wall=wall)


def _first_manifest(request: RunRequest, configuration: dict, configuration_sha256: str, previous: dict,
                    completed: frozenset[str]) -> Manifest:
    """The manifest a session writes when it opens its run: a resumed run keeps its earlier sessions and
    its first start. Raises :class:`RunError` when a certified run's requirements are not met."""
    suite = request.suite
    engines = {name: {key: spec.options[key] for key in ("engine", "binary", "expected_version") if key in spec.options}
               for name, spec in request.specs.items() if "expected_version" in spec.options}
    facts = environment(engines=engines)
    certification = _certification(request, facts["code"]) if request.certified else None
    started = utc_now()
    session = SessionRecord(started=started, argv=request.argv, resumed_with=len(completed),
                            workers=request.workers, worker_cpus=request.worker_cpus)
    return Manifest(
        argv=request.argv,
        suite=SuiteFacts(id=suite.id, revision=suite.dataset.suite.revision,
                         review_status=suite.dataset.suite.review_status.value, path=str(suite.root),
                         dataset_sha256=suite.dataset_sha256, cases=len(suite.cases)),
        # A resumed run keeps the providers its users' tests added (add_test_provider).
        providers=[*request.specs, *sorted(name for name in previous.get("test_providers", {}) if name not in request.specs)],
        test_providers=previous.get("test_providers", {}),
        provider_selection=request.provider_selection or CONFIGURED,
        provider_config=provider_config_facts(
            request.specs, request.provider_config,
            str(request.provider_config_path) if request.provider_config_path else "built-in"),
        runtime_policy=request.policy.as_record(),
        fetch_timeout_s=request.policy.timeout_s,
        mode="live" if request.live else "replay",
        configuration=configuration,
        configuration_sha256=configuration_sha256,
        run=RunOptions(measure_only=request.measure_only, certified_requested=request.certified,
                       shard=str(request.shard) if request.shard else None,
                       shard_source=request.shard.source if request.shard else None),
        certification=certification,
        **facts,
        sessions=[*previous.get("sessions", []), session],
        started=previous.get("started", started),
    )


def planned_run(request: RunRequest) -> RunRequest:
    """``request`` with the directory its new run will use: ``run_dir`` as given, or
    ``<project_root>/runs/<suite>-<UTC time>[-shardKofN]``, checked as :meth:`RunSession.open` checks it
    (absent, or a folder lexbench left without results) but not created, so that a session that runs no
    item leaves nothing behind. Raises :class:`RunError` with the reason."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    shard = f"-shard{request.shard.index}of{request.shard.count}" if request.shard else ""
    run_dir = (request.path(request.run_dir) if request.run_dir
               else request.project_root / "runs" / f"{request.suite.id}-{stamp}{shard}")
    check_run_dir(run_dir, manifest_required=False)
    read_manifest(run_dir)
    if run_dir.is_dir() and load_rows(run_dir):
        raise RunError(f"--run-dir={run_dir} already holds results of a run; continue it with "
                       f"--resume={run_dir} or choose a new --run-dir")
    return replace(request, run_dir=str(run_dir))


def configuration_sha256_of(request: RunRequest) -> str:
    """The ``configuration_sha256`` the run of ``request`` records (what every row carries)."""
    return canonical_sha256(configuration_record(request.specs, request.provider_config, request.policy,
                                                 live=request.live))


def _new_dir(request: RunRequest) -> tuple[Path, RunLock]:
    """A new run's directory, created and locked: absent, or empty of results."""
    run_dir = Path(planned_run(request).run_dir)
    lock = None
    try:
        check_run_dir(run_dir, manifest_required=False)
        read_manifest(run_dir)  # a manifest there must be lexbench's: nothing is added to another tool's folder
        make_run_dir(run_dir)
        lock = RunLock(run_dir).acquire()
        check_run_dir(run_dir, manifest_required=False)  # as it is now that no other session can change it
        read_manifest(run_dir)
        recorded = load_rows(run_dir)
    except RunError:
        if lock is not None:
            lock.release()
        raise
    except OSError as exc:
        if lock is not None:
            lock.release()
        raise RunError(f"--run-dir={run_dir}: cannot create the run directory: {exc.strerror or exc}") from None
    if recorded:
        lock.release()
        raise RunError(f"--run-dir={run_dir} already holds results of a run; continue it with "
                       f"--resume={run_dir} or choose a new --run-dir")
    return run_dir, lock


def _resumed_dir(request: RunRequest, identity: RunIdentity) -> tuple[Path, RunLock, dict, frozenset[str]]:
    """A resumed run's directory, locked, with its manifest and the items it already finished."""
    run_dir = request.path(request.resume)
    if request.run_dir and request.path(request.run_dir).resolve() != run_dir.resolve():
        raise RunError(f"--run-dir={request.run_dir} and --resume={request.resume} name different "
                       "directories; --resume alone is enough")
    check_run_dir(run_dir, manifest_required=True)
    lock = RunLock(run_dir).acquire()
    try:
        plan = resume_plan(run_dir, identity, shard=str(request.shard) if request.shard else None,
                           certified=request.certified)
    except RunError:
        lock.release()
        raise
    return run_dir, lock, plan.manifest, plan.completed


def _certification(request: RunRequest, code: dict) -> Certification:
    """The certification record of a ``--certified`` run at its start. Raises :class:`RunError` listing
    every requirement the run does not meet (:mod:`lexbench.run.certify`)."""
    loaded = session_code(request.plugins(), code=code, argv=request.effective_argv, environ=os.environ)
    checks, problems = certification_problems(
        providers_option=request.provider_selection, keyword=request.keyword, markexpr=request.markexpr, code=code,
        credential_variables=[v for spec in request.specs.values() for v in spec.credential_variables()],
        suite_root=request.suite.root, review_status=request.suite.dataset.suite.review_status.value,
        project_root=request.project_root, loaded=loaded)
    if problems:
        raise RunError("--certified: this run cannot be certified:\n  " + "\n  ".join(problems))
    git = code["git"] or {}
    # What was certified: the commit's tree, every loadable file as it was on disk, and the code loaded.
    return Certification(checks=checks, tree={key: git.get(key) for key in ("commit", "tree", "loadable_files",
                                                                          "loadable_sha256")}, loaded=loaded)
