"""The history's store: run directories as they are, read by DuckDB (SPEC §6, issue 31).

:func:`scan` walks the given folders and sorts every entry into one of four kinds:

- **complete** — a finished run that :func:`lexbench.run.record.checked_rows` would accept: its rows are
  in the views;
- **incomplete** — half written: no ``manifest.json`` (a session that crashed before writing it), a
  session still holding ``session.lock``, a manifest without ``finished`` (crashed or running), a torn
  last line, items without a result. Listed, never counted;
- **refused** — a run ``lexbench report`` refuses: the same checks and the same message
  (:func:`~lexbench.run.rundir.check_run_dir`, :func:`~lexbench.run.record.read_manifest`,
  :func:`~lexbench.run.approvals.check_binding`, :func:`~lexbench.run.record.checked_rows`);
- **foreign** — a file or folder in ``runs/`` that is no run directory: ignored with a note.

Rows are never turned into Python objects in bulk. The row checks of ``checked_rows`` (every line a row
of this run's suite, dataset, configuration and providers, each item once) run first as one SQL pass
over every run; only a run that pass flags is read by ``checked_rows`` itself, whose refusal is then
the message shown (so the wording is ``lexbench report``'s, and a flag the SQL raised wrongly is
cleared by the real check).

Nothing from a run directory becomes SQL text: file paths reach DuckDB through its relation API, values
through parameters; the view definitions are constants. DuckDB runs with no extension download or
autoload (``json`` is built into the wheel).
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from lexbench.errors import LexbenchError
from lexbench.run import approvals as approval
from lexbench.run.record import MANIFEST_NAME, RESULTS_NAME, canonical_sha256, checked_rows, read_manifest, scorer_version
from lexbench.run.rundir import LOCK_NAME, check_run_dir

COMPLETE, INCOMPLETE, REFUSED, FOREIGN = "complete", "incomplete", "refused", "foreign"

ROW_COLUMNS = {
    "suite": "VARCHAR", "case": "VARCHAR", "provider": "VARCHAR", "output_contract": "VARCHAR",
    "category": "VARCHAR", "track": "VARCHAR", "lang": "VARCHAR", "outcome": "VARCHAR",
    "failure_class": "VARCHAR", "explanation": "VARCHAR", "latency_s": "DOUBLE", "error_type": "VARCHAR",
    "content_chars": "BIGINT", "content_tokens": "BIGINT", "reference_chars": "BIGINT",
    "dataset_sha256": "VARCHAR", "configuration_sha256": "VARCHAR",
    "components": "STRUCT(name VARCHAR, passed BOOLEAN, measured DOUBLE, threshold DOUBLE, evidence VARCHAR)[]",
    "attempts": "STRUCT(latency_s DOUBLE, api_http_status INTEGER, upstream_status INTEGER, error_type VARCHAR, "
                "cost DOUBLE, late BOOLEAN)[]",
    "metadata": "STRUCT(cost DOUBLE, cost_total DOUBLE, cost_unit VARCHAR)",
}
"""The fields of :class:`lexbench.run.record.RunRow` the views read, with their DuckDB types."""

RUNS_TABLE = """CREATE TEMP TABLE runs (
    run VARCHAR, name VARCHAR, suite VARCHAR, dataset_sha256 VARCHAR, dataset_revision VARCHAR,
    configuration_sha256 VARCHAR, scorer_version INTEGER, started TIMESTAMP, finished TIMESTAMP,
    providers VARCHAR[], items INTEGER, results_file VARCHAR, approved VARCHAR[])"""

PROVIDER_TABLE = "CREATE TEMP TABLE _provider_configs (run VARCHAR, provider VARCHAR, provider_configuration_sha256 VARCHAR)"

_ITEMS = """SELECT
        runs.run, r."case", r.provider, p.provider_configuration_sha256, r.output_contract, r.category, r.track, r.lang, r.outcome,
        r.failure_class, r.latency_s, r.content_chars, r.reference_chars, r.content_tokens,
        coalesce(r.metadata.cost_total, list_sum([a.cost FOR a IN r.attempts]), r.metadata.cost) AS cost,
        CASE WHEN coalesce(r.metadata.cost_total, list_sum([a.cost FOR a IN r.attempts]), r.metadata.cost)
             IS NOT NULL THEN coalesce(r.metadata.cost_unit, 'units') END AS cost_unit,
        greatest(len(r.attempts), 1) AS attempts, r.error_type, r.explanation
      FROM ROWS AS r JOIN runs ON runs.results_file = r.filename
      LEFT JOIN _provider_configs AS p ON p.run = runs.run AND p.provider = r.provider"""
"""The ``items`` columns over a rows relation (``ROWS``: ``_rows``, or ``_fresh`` for the runs not cached)."""

_COMPONENTS = """SELECT run, "case", provider, c.name AS component, c.passed, c.measured,
        c.threshold, c.evidence
      FROM (SELECT runs.run, r."case", r.provider, unnest(r.components) AS c
            FROM ROWS AS r JOIN runs ON runs.results_file = r.filename)"""

VIEWS = (
    "CREATE TEMP VIEW items AS " + _ITEMS.replace("ROWS", "_rows"),
    "CREATE TEMP VIEW components AS " + _COMPONENTS.replace("ROWS", "_rows"),
    """CREATE TEMP VIEW attempts AS SELECT run, "case", provider, a.n AS attempt, a.a.latency_s AS latency_s,
        a.a.api_http_status AS api_http_status, a.a.upstream_status AS upstream_status,
        a.a.error_type AS error_type, a.a.cost AS cost, a.a.late AS late
      FROM (SELECT runs.run, r."case", r.provider,
                   unnest(list_transform(r.attempts, lambda x, i: {'n': i, 'a': x})) AS a
            FROM _rows AS r JOIN runs ON runs.results_file = r.filename)""",
)

FIGURE_TABLES = (
    """CREATE TEMP TABLE _figures (run VARCHAR, provider VARCHAR, provider_configuration_sha256 VARCHAR,
        output_contract VARCHAR, items BIGINT, passed BIGINT, failed BIGINT, unresolvable BIGINT, latency_p50_s DOUBLE,
        cost DOUBLE, cost_unit VARCHAR, noise DOUBLE)""",
    "CREATE TEMP TABLE _component_figures (run VARCHAR, provider VARCHAR, component VARCHAR, scored BIGINT, failures BIGINT)",
)
"""Each run's figures per provider and per component: what the summary reads (:mod:`lexbench.history.summary`)."""

_FIGURES = """INSERT INTO _figures SELECT i.run, i.provider, any_value(i.provider_configuration_sha256),
        any_value(i.output_contract), count(*), count(*) FILTER (WHERE i.outcome = 'pass'),
        count(*) FILTER (WHERE i.outcome = 'fail'), count(*) FILTER (WHERE i.outcome = 'unresolvable'),
        quantile_disc(i.latency_s, 0.5) FILTER (WHERE i.outcome <> 'unresolvable'),
        sum(i.cost), string_agg(DISTINCT i.cost_unit, ', '),
        median(i.content_chars::DOUBLE / i.reference_chars) FILTER (WHERE i.outcome <> 'unresolvable' AND i.reference_chars > 0)
    FROM (ITEMS) AS i GROUP BY i.run, i.provider"""

_COMPONENT_FIGURES = """INSERT INTO _component_figures SELECT run, provider, component, count(passed),
        count(*) FILTER (WHERE passed = false) FROM (COMPONENTS) GROUP BY run, provider, component"""

CACHE_TABLES = (
    "CREATE TABLE IF NOT EXISTS cache.runs (run VARCHAR, key VARCHAR, refused VARCHAR)",
    "CREATE TABLE IF NOT EXISTS cache.figures AS SELECT * FROM _figures WHERE false",
    "CREATE TABLE IF NOT EXISTS cache.component_figures AS SELECT * FROM _component_figures WHERE false",
    "CREATE TABLE IF NOT EXISTS cache.intervals (key VARCHAR, passed BIGINT, failed BIGINT, low DOUBLE, high DOUBLE)",
)
"""The figures kept between invocations (:class:`History` ``cache``), one entry per run and file state."""

# One SQL pass over every candidate run: what checked_rows would refuse, counted per file.
_SUSPECTS = """WITH flagged AS (
        SELECT r.filename, r."case", r.provider, runs.items,
               (r."case" IS NULL OR r.provider IS NULL OR r.outcome IS NULL OR r.outcome NOT IN ('pass', 'fail', 'unresolvable')
                OR r.suite IS DISTINCT FROM runs.suite OR r.dataset_sha256 IS DISTINCT FROM runs.dataset_sha256
                OR (r.configuration_sha256 IS DISTINCT FROM runs.configuration_sha256
                    AND NOT coalesce(list_contains(runs.approved, r.configuration_sha256), false))
                OR NOT coalesce(list_contains(runs.providers, r.provider), false)) AS bad
        FROM _candidates AS r JOIN runs ON runs.results_file = r.filename)
    SELECT filename FROM flagged GROUP BY filename, items
    HAVING bool_or(bad) OR count(DISTINCT [\"case\", provider]) <> count(*) OR (items IS NOT NULL AND count(*) <> items)
    UNION
    SELECT results_file FROM runs WHERE coalesce(items, 0) > 0
        AND results_file NOT IN (SELECT DISTINCT filename FROM _candidates)"""


@dataclass(frozen=True)
class RunEntry:
    """One entry of a scanned folder. ``kind`` is :data:`COMPLETE`, :data:`INCOMPLETE`, :data:`REFUSED` or
    :data:`FOREIGN`; ``reason`` says why for the last three (a refusal is ``lexbench report``'s message)."""

    path: Path
    kind: str
    reason: str = ""
    manifest: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def _lock_held(run_dir: Path) -> bool:
    try:
        fd = os.open(run_dir / LOCK_NAME, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EACCES)
    finally:
        os.close(fd)  # closing drops the shared lock taken to test it
    return False


def _torn(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() == 0:
                return False
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) != b"\n"
    except FileNotFoundError:
        return False


def classify(run_dir: Path, *, held_by_us: bool = False) -> RunEntry:
    """The kind of one run directory from its files alone (the row checks come after, in :class:`History`).
    ``held_by_us``: this process holds the run's lock (a session or ``lexbench report`` writing its report)."""
    has_manifest = os.path.lexists(run_dir / MANIFEST_NAME)
    if not has_manifest and not os.path.lexists(run_dir / RESULTS_NAME):
        return RunEntry(run_dir, FOREIGN, f"{run_dir}: not a run directory (no {MANIFEST_NAME}, no {RESULTS_NAME}); ignored")
    try:
        check_run_dir(run_dir, manifest_required=False)
        manifest = read_manifest(run_dir)
        if manifest:
            approval.check_binding(str(run_dir), manifest, None)
    except LexbenchError as exc:
        return RunEntry(run_dir, REFUSED, str(exc))
    if not manifest:
        return RunEntry(run_dir, INCOMPLETE, f"{run_dir}: no {MANIFEST_NAME} (a session that crashed or is starting)")
    if not held_by_us and _lock_held(run_dir):
        return RunEntry(run_dir, INCOMPLETE, f"{run_dir}: a session is still writing it ({LOCK_NAME} is held)", manifest)
    if not manifest.get("finished"):
        return RunEntry(run_dir, INCOMPLETE, f"{run_dir}: its session did not finish (crashed or still running; "
                        f"--resume={run_dir} finishes it)", manifest)
    if _torn(run_dir / RESULTS_NAME):
        return RunEntry(run_dir, INCOMPLETE, f"{run_dir / RESULTS_NAME}: the last line is torn (a session killed "
                        "mid-write)", manifest)
    missing = (manifest.get("completion") or {}).get("missing") or 0
    if missing:
        return RunEntry(run_dir, INCOMPLETE, f"{run_dir}: {missing} selected item(s) have no result "
                        f"(--resume={run_dir} finishes them)", manifest)
    return RunEntry(run_dir, COMPLETE, "", manifest)


def scan(folders: Sequence[Path]) -> list[RunEntry]:
    """Every entry of ``folders`` (each a folder of run directories, or one run directory itself), by path.

    A folder that does not exist is refused with :class:`LexbenchError` naming it; an entry whose name
    starts with ``.`` is skipped silently (editors' and tools' own files)."""
    found: list[RunEntry] = []
    for folder in folders:
        if not folder.is_dir():
            raise LexbenchError(f"{folder}: no such folder of runs (lexbench history RUNS_DIR...; default runs/)")
        if os.path.lexists(folder / MANIFEST_NAME) or os.path.lexists(folder / RESULTS_NAME):
            found.append(classify(folder))
            continue
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            path = Path(entry.path)
            if entry.name.startswith("."):
                continue
            if entry.is_symlink() or not entry.is_dir():
                found.append(RunEntry(path, FOREIGN, f"{path}: not a run directory; ignored"))
            else:
                found.append(classify(path))
    return found


def _timestamp(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def provider_configuration(manifest: dict[str, Any], provider: str) -> str | None:
    """sha256 of what makes one provider's results comparable across runs: its own configuration
    (``configuration.provider_specs[provider]``) and the run's runtime policy and mode, without the other
    providers of the run (adding a provider to the nightly leaves this one's history comparable). A user's
    test provider (``test_providers``) is identified by its test's node id instead of a spec."""
    configuration = manifest.get("configuration") or {}
    specs = configuration.get("provider_specs") or {}
    spec = specs.get(provider)
    if spec is None:
        test = (manifest.get("test_providers") or {}).get(provider)
        if test is None:
            return None
        spec = {"test": test}
    shared = {k: v for k, v in configuration.items() if k not in ("providers", "provider_specs", "provider_config_sha256_redacted")}
    return canonical_sha256({"provider": provider, "spec": spec, **shared})


CACHE_VARIABLE = "LEXBENCH_HISTORY_CACHE"


def default_cache() -> Path | None:
    """Where the history keeps each run's figures between invocations: ``$LEXBENCH_HISTORY_CACHE`` (empty:
    no cache), else ``$XDG_CACHE_HOME/lexbench/history.duckdb`` (``~/.cache`` by default). A copy, never
    the store: every entry is keyed by its run's file state (:func:`file_key`) and deleting it costs time only."""
    value = os.environ.get(CACHE_VARIABLE)
    if value is not None:
        return Path(value) if value else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lexbench" / "history.duckdb"


def file_key(run_dir: Path) -> str:
    """The state of a run's two files (device, inode, size, modification and change times in ns): any
    write to either changes it (a change time cannot be set back), so a cached figure of the run is
    used only while its files are exactly as they were when it was computed."""
    parts = []
    for name in (MANIFEST_NAME, RESULTS_NAME):
        try:
            st = os.stat(run_dir / name, follow_symlinks=False)
            parts.append(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        except OSError:
            parts.append("-")
    return "/".join(parts)


def _run_row(entry: RunEntry) -> tuple[Any, ...]:
    m = entry.manifest
    suite = m.get("suite") or {}
    revision = suite.get("revision")
    completion = m.get("completion") or {}
    return (str(entry.path), entry.path.name, suite.get("id"), suite.get("dataset_sha256"),
            None if revision is None else str(revision), m.get("configuration_sha256"), scorer_version(m),
            _timestamp(m.get("started")), _timestamp(m.get("finished")), list(m.get("providers") or []),
            completion.get("recorded"), str(entry.path / RESULTS_NAME),
            sorted(approval.approved_configurations(m)))


class History:
    """The views over the complete runs of a scan, on one DuckDB connection (in memory).

    ``entries``: every scanned entry, the runs refused by the row checks turned :data:`REFUSED`.
    ``con``: the connection; :meth:`sql` runs a query and returns column names and rows."""

    def __init__(self, entries: Iterable[RunEntry], *, threads: int | None = None, cache: Path | None = None) -> None:
        import duckdb  # per use: loading it costs ~0.1 s that a report without a history never pays

        config: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
        if threads:
            config["threads"] = threads
        self.con = duckdb.connect(":memory:", config=config)
        self._error = duckdb.Error
        for statement in (RUNS_TABLE, PROVIDER_TABLE, *FIGURE_TABLES):
            self.con.execute(statement)
        entries = list(entries)
        complete = [e for e in entries if e.kind == COMPLETE]
        self._insert(complete)
        keys = {str(e.path): file_key(e.path) for e in complete}
        known = self._open_cache(cache, keys)  # run → refusal ("" when accepted), for runs whose files are unchanged
        fresh = [e for e in complete if str(e.path) not in known]
        refused = self._refused(fresh) | {run: why for run, why in known.items() if why}
        self.entries = [RunEntry(e.path, REFUSED, refused[str(e.path)], e.manifest) if str(e.path) in refused else e
                        for e in entries]
        if refused:
            self.con.execute("DELETE FROM runs WHERE list_contains(?, run)", [sorted(refused)])
        files = [row[0] for row in self.con.execute("SELECT results_file FROM runs ORDER BY run").fetchall()]
        self._rows_view("_rows", files)
        for view in VIEWS:
            self.con.execute(view)
        accepted = [e for e in fresh if str(e.path) not in refused]
        if accepted:
            self._rows_view("_fresh", [str(e.path / RESULTS_NAME) for e in accepted])
            self.con.execute(_FIGURES.replace("ITEMS", _ITEMS.replace("ROWS", "_fresh")))
            self.con.execute(_COMPONENT_FIGURES.replace("COMPONENTS", _COMPONENTS.replace("ROWS", "_fresh")))
        if self._cached:
            self._save_cache(keys, known, fresh, refused)

    def _open_cache(self, cache: Path | None, keys: dict[str, str]) -> dict[str, str]:
        """Attach ``cache`` and copy the figures of every run whose files are as they were when cached;
        return those runs (→ their refusal, ``""`` when accepted). A cache that cannot be opened (another
        process holds it, a damaged file) is not used: every run is read."""
        self._cached = False
        if cache is None or not keys:
            return {}
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            self.con.execute("ATTACH ? AS cache", [str(cache)])
            for statement in CACHE_TABLES:
                self.con.execute(statement)
            self.con.execute("CREATE TEMP TABLE _keys AS SELECT unnest($1) AS run, unnest($2) AS key",
                             [list(keys), list(keys.values())])
            known = dict(self.con.execute("SELECT c.run, coalesce(c.refused, '') FROM cache.runs AS c JOIN _keys AS k "
                                          "ON k.run = c.run AND k.key = c.key").fetchall())
            self.con.execute("INSERT INTO _figures SELECT f.* FROM cache.figures AS f JOIN _keys AS k ON k.run = f.run "
                             "JOIN cache.runs AS c ON c.run = k.run AND c.key = k.key AND c.refused IS NULL")
            self.con.execute("INSERT INTO _component_figures SELECT f.* FROM cache.component_figures AS f JOIN _keys AS k "
                             "ON k.run = f.run JOIN cache.runs AS c ON c.run = k.run AND c.key = k.key AND c.refused IS NULL")
        except (OSError, self._error):
            try:
                self.con.execute("DETACH DATABASE IF EXISTS cache")
            except self._error:
                pass
            self.con.execute("DELETE FROM _figures")
            self.con.execute("DELETE FROM _component_figures")
            return {}
        self._cached = True
        return known

    def _save_cache(self, keys: dict[str, str], known: dict[str, str], fresh: Sequence[RunEntry],
                    refused: dict[str, str]) -> None:
        """Record the runs read this time (their file keys, refusal and figures) in the attached cache."""
        runs = [str(e.path) for e in fresh]
        if not runs:
            return
        try:
            self.con.execute("BEGIN TRANSACTION")
            for table in ("cache.runs", "cache.figures", "cache.component_figures"):
                self.con.execute(f"DELETE FROM {table} WHERE list_contains($1, run)", [runs])  # table: a constant
            self.con.execute("INSERT INTO cache.runs SELECT unnest($1), unnest($2), unnest($3)",
                             [runs, [keys[r] for r in runs], [refused.get(r) for r in runs]])
            self.con.execute("INSERT INTO cache.figures SELECT * FROM _figures WHERE list_contains($1, run)", [runs])
            self.con.execute("INSERT INTO cache.component_figures SELECT * FROM _component_figures "
                             "WHERE list_contains($1, run)", [runs])
            self.con.execute("COMMIT")
        except self._error:
            self.con.execute("ROLLBACK")

    def _insert(self, entries: Sequence[RunEntry]) -> None:
        # One statement per table, the columns as list parameters zipped by unnest: executemany costs a
        # round trip per row (seconds for a thousand runs of 25 providers).
        if not entries:
            return
        columns = list(zip(*[_run_row(e) for e in entries], strict=True))
        self.con.execute("INSERT INTO runs SELECT " + ", ".join(f"unnest(${i + 1})" for i in range(len(columns))),
                         [list(c) for c in columns])
        pairs = [(str(e.path), p, provider_configuration(e.manifest, p)) for e in entries for p in e.manifest.get("providers") or []]
        if pairs:
            self.con.execute("INSERT INTO _provider_configs SELECT unnest($1), unnest($2), unnest($3)",
                             [list(c) for c in zip(*pairs, strict=True)])

    def _rows_view(self, name: str, files: Sequence[str]) -> None:
        if files:
            relation = self.con.read_json(list(files), columns=ROW_COLUMNS, format="newline_delimited",
                                          filename=True, ignore_errors=True, maximum_object_size=64 << 20)
        else:  # no complete run: the same columns, no row
            relation = self.con.sql("SELECT " + ", ".join(f"NULL::{kind} AS \"{name}\"" for name, kind in ROW_COLUMNS.items())
                                    + ", NULL::VARCHAR AS filename WHERE false")
        relation.create_view(name, replace=True)

    def _refused(self, complete: Sequence[RunEntry]) -> dict[str, str]:
        """Run path → refusal, for the runs whose rows ``checked_rows`` refuses (see the module docstring)."""
        by_file = {str(e.path / RESULTS_NAME): e for e in complete}
        suspects: set[str] = set()
        if not by_file:
            return {}
        try:
            self._rows_view("_candidates", list(by_file))
            suspects = {row[0] for row in self.con.execute(_SUSPECTS).fetchall()}
        except self._error:  # a file DuckDB cannot read at all: look at each run alone
            for name in by_file:
                try:
                    self._rows_view("_candidates", [name])
                    suspects |= {row[0] for row in self.con.execute(_SUSPECTS).fetchall()}
                except self._error:
                    suspects.add(name)
        refused = {}
        for name in sorted(suspects & set(by_file)):  # runs taken from the cache are no candidates
            entry = by_file[name]
            try:
                checked_rows(entry.path, approved=approval.approved_configurations(entry.manifest))
            except LexbenchError as exc:
                refused[str(entry.path)] = str(exc)
        return refused

    def intervals(self) -> dict[tuple[str, int, int], tuple[float, float]]:
        """The pass-rate intervals already bootstrapped, by (key, passed, failed) (empty without a cache)."""
        if not self._cached:
            return {}
        return {(k, p, f): (lo, hi) for k, p, f, lo, hi in self.con.execute("SELECT * FROM cache.intervals").fetchall()}

    def save_intervals(self, found: dict[tuple[str, int, int], tuple[float, float]]) -> None:
        """Keep newly bootstrapped intervals (seeded, so a key and counts always give the same one)."""
        if not self._cached or not found:
            return
        columns = list(zip(*[(*key, *value) for key, value in found.items()], strict=True))
        try:
            self.con.execute("INSERT INTO cache.intervals SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5)",
                             [list(c) for c in columns])
        except self._error:
            pass

    def sql(self, query: str, parameters: Sequence[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run ``query`` (the user's, over the views) and return ``(column names, rows)``. Raises
        :class:`LexbenchError` with DuckDB's message when the query is not valid."""
        try:
            cursor = self.con.execute(query, list(parameters))
            names = [d[0] for d in cursor.description or ()]
            return names, cursor.fetchall()
        except self._error as exc:
            raise LexbenchError(f"--sql: {exc}") from None
