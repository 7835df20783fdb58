"""``lexbench history`` over the committed fixture of 12 real nights (tests/fixtures/history/make_runs.py).

The fixture: nights 1–2 on demo revision 2, 3–12 on revision 3; nights 1–4 recorded by scorer 1, 5–12 by
scorer 2; ``acme`` (a user's fetcher) flips pass → fail on all six cases on night 12; ``trafilatura`` and
``reference-echo`` stay steady; ``http-markdownify`` runs on nights 3, 4 and 12 (a non-comparable pair).
"""

from __future__ import annotations

import json
import shutil
from math import comb
from pathlib import Path

import pytest

from lexbench.cli import main as lexbench
from lexbench.history.check import mcnemar_exact
from lexbench.history.store import History, scan
from lexbench.run.rundir import RunLock

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "history" / "runs"

VIEW_COLUMNS = {
    "runs": ["run", "name", "suite", "dataset_sha256", "dataset_revision", "configuration_sha256", "scorer_version",
             "started", "finished", "providers", "items", "results_file", "approved"],
    "items": ["run", "case", "provider", "provider_configuration_sha256", "output_contract", "category", "track", "lang",
              "outcome", "failure_class", "latency_s", "content_chars", "reference_chars", "content_tokens", "cost",
              "cost_unit", "attempts", "error_type", "explanation"],
    "components": ["run", "case", "provider", "component", "passed", "measured", "threshold", "evidence"],
    "attempts": ["run", "case", "provider", "attempt", "latency_s", "api_http_status", "upstream_status", "error_type",
                 "cost", "late"],
}
"""The views' columns: the public contract the README documents."""


@pytest.fixture(autouse=True)
def history_cache(tmp_path, monkeypatch):
    """Each test's own figure cache (never the user's ~/.cache)."""
    monkeypatch.setenv("LEXBENCH_HISTORY_CACHE", str(tmp_path / "cache" / "history.duckdb"))
    return tmp_path / "cache" / "history.duckdb"


@pytest.fixture
def runs(tmp_path):
    """A writable copy of the fixture."""
    shutil.copytree(FIXTURE, tmp_path / "runs")
    return tmp_path / "runs"


def history(*folders: Path) -> History:
    return History(scan(list(folders)))


def query(h: History, sql: str, *params):
    return h.sql(sql, params)[1]


def test_the_views_hold_every_night_with_the_documented_columns():
    h = history(FIXTURE)
    for view, columns in VIEW_COLUMNS.items():
        assert h.sql(f"SELECT * FROM {view} LIMIT 0")[0] == columns
    assert query(h, "SELECT name, dataset_revision, scorer_version, items FROM runs ORDER BY name") == [
        (f"night-{n:02d}", "2" if n <= 2 else "3", 1 if n <= 4 else 2, 24 if n in (3, 4, 12) else 18) for n in range(1, 13)]
    # Every row of every results.jsonl is an item; each has its components and at least one attempt.
    lines = sum(len((FIXTURE / f"night-{n:02d}" / "results.jsonl").read_text(encoding="utf-8").splitlines()) for n in range(1, 13))
    assert query(h, "SELECT count(*) FROM items") == [(lines,)]
    assert query(h, "SELECT count(*) FROM items WHERE attempts < 1 OR provider_configuration_sha256 IS NULL") == [(0,)]
    assert query(h, "SELECT count(DISTINCT component) FROM components WHERE provider = 'acme'") == [(6,)]
    # One attempt per built-in provider's item (none retried); a user's test (acme) records no physical call.
    assert query(h, "SELECT min(attempt), max(attempt), count(*) FROM attempts") == [(1, 1, lines - 72)]
    assert query(h, "SELECT count(*) FROM attempts WHERE provider = 'acme'") == [(0,)]
    # The flip, as rows: acme's title fails on every case of night 12 and on none before.
    assert query(h, """SELECT r.name, count(*) FILTER (WHERE NOT passed) FROM components c JOIN runs r USING (run)
                       WHERE provider = 'acme' AND component = 'title' GROUP BY r.name ORDER BY r.name""") == [
        (f"night-{n:02d}", 6 if n == 12 else 0) for n in range(1, 13)]


def test_the_summary_prints_each_provider_s_trend_with_intervals_and_what_changed(capsys):
    assert lexbench(["history", str(FIXTURE), "--last", "0"]) == 0
    out = capsys.readouterr().out
    assert "lexbench history: 12 complete run(s), 11 provider trend(s)" in out
    heads = [line for line in out.splitlines() if line.startswith("acme ")]
    assert [h.split("— ")[1].split(", configuration")[0] for h in heads] == [
        "dataset f9b7310248e9 (revision 2), scorer 1", "dataset 9cb93b815f62 (revision 3), scorer 1",
        "dataset 9cb93b815f62 (revision 3), scorer 2"]
    night12 = next(line for line in out.splitlines() if line.strip().startswith("night-12") and "0.0 %" in line)
    assert night12.split()[1:6] == ["6", "0.0", "%", "0.0–0.0", "%"]


def test_json_gives_every_run_of_every_trend(capsys):
    assert lexbench(["history", str(FIXTURE), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 12 and len(data["trends"]) == 11
    acme = [t for t in data["trends"] if t["provider"] == "acme" and t["scorer_version"] == 2][0]
    assert [r["pass_rate"] for r in acme["runs"]] == [1.0] * 7 + [0.0]
    assert acme["runs"][-1]["components"]["title"] == 0.0 and acme["runs"][-1]["interval"] == {"low": 0.0, "high": 0.0}


def test_sql_prints_rows_and_json(capsys):
    assert lexbench(["history", str(FIXTURE), "--sql", "SELECT provider, count(*) AS n FROM items GROUP BY provider ORDER BY provider"]) == 0
    assert capsys.readouterr().out.splitlines()[2:4] == ["acme              72", "http-markdownify  18"]
    assert lexbench(["history", str(FIXTURE), "--json", "--sql", "SELECT count(*) AS n FROM runs"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 12}]
    assert lexbench(["history", str(FIXTURE), "--sql", "SELECT nope FROM runs"]) == 2
    assert "--sql: Binder Error" in capsys.readouterr().err


def test_check_lists_the_flip_with_its_failing_components_and_exits_1(capsys):
    assert lexbench(["history", str(FIXTURE), "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert ("acme on suite demo: night-12 vs night-11: 6 paired case(s), 6 pass → fail, 0 fail → pass; exact McNemar "
            "p = 0.03125 (α 0.05): REGRESSION") in out
    assert "  pass → fail  article-001-en-carrick-tidal-array  (fails page_identity, title)" in out
    assert ("http-markdownify on suite demo: night-12 vs night-04: not comparable (scorer version 1 → 2); a changed "
            "dataset or scorer is not a regression") in out
    assert any(line.startswith("trafilatura on suite demo: night-12 vs night-11: 6 paired case(s), 0 pass → fail")
               for line in out)
    assert out[-1] == "history --check: regression in acme (significant at α 0.05)"


def test_check_alpha_and_max_new_failures(capsys):
    assert lexbench(["history", str(FIXTURE), "--check", "--alpha", "0.01"]) == 0  # p = 1/32 is not below 0.01
    assert capsys.readouterr().out.splitlines()[-1] == "history --check: no regression (α 0.01)"
    assert lexbench(["history", str(FIXTURE), "--check", "--alpha", "0.01", "--max-new-failures", "5"]) == 1
    assert lexbench(["history", str(FIXTURE), "--check", "--alpha", "0.01", "--max-new-failures", "6"]) == 0
    capsys.readouterr()
    assert lexbench(["history", str(FIXTURE), "--check", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    acme = next(p for p in data["providers"] if p["provider"] == "acme")
    assert acme["regression"] and len(acme["new_failures"]) == 6 and acme["new_failures"][0]["components"] == ["page_identity", "title"]


def test_a_changed_dataset_is_not_comparable_either(runs, capsys):
    for n in range(3, 13):  # leave nights 1-2 (revision 2) and 3 (revision 3, both scorer 1)
        shutil.rmtree(runs / f"night-{n:02d}") if n > 3 else None
    assert lexbench(["history", str(runs), "--check"]) == 0
    out = capsys.readouterr().out
    assert "night-03 vs night-02: not comparable (dataset f9b7310248e9 → 9cb93b815f62)" in out
    assert "REGRESSION" not in out


@pytest.mark.parametrize(("b", "c", "expected"), [
    (0, 0, 1.0), (1, 0, 1.0), (5, 0, 0.0625), (6, 0, 0.03125), (0, 6, 0.03125), (3, 10, 2 * 378 / 8192),
    (10, 3, 2 * 378 / 8192), (7, 7, 1.0), (20, 5, 2 * sum(comb(25, k) for k in range(6)) / 2 ** 25)])
def test_mcnemar_exact_against_a_hand_checked_table(b, c, expected):
    # Hand-checked: 378 = C(13,0)+C(13,1)+C(13,2)+C(13,3) = 1+13+78+286; (20, 5) p ≈ 0.00408 (binomial tables).
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)
    if (b, c) == (20, 5):
        assert round(mcnemar_exact(b, c), 5) == 0.00408


def test_half_written_runs_are_listed_as_incomplete_and_left_out(runs, capsys):
    (runs / "night-12" / "manifest.json").unlink()  # crashed before writing it
    with (runs / "night-11" / "results.jsonl").open("ab") as handle:
        handle.write(b'{"suite": "demo", "case": "art')  # torn last line
    manifest = json.loads((runs / "night-10" / "manifest.json").read_text(encoding="utf-8"))
    manifest["finished"] = None  # crashed mid-run
    (runs / "night-10" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with RunLock(runs / "night-09"):  # a session still writing
        assert lexbench(["history", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "lexbench history: 8 complete run(s)" in out
    assert "4 incomplete, left out of the trends:" in out
    assert f"{runs / 'night-12'}: no manifest.json (a session that crashed or is starting)" in out
    assert f"{runs / 'night-11' / 'results.jsonl'}: the last line is torn (a session killed mid-write)" in out
    assert f"{runs / 'night-10'}: its session did not finish" in out
    assert f"{runs / 'night-09'}: a session is still writing it (session.lock is held)" in out
    assert "night-1" not in "\n".join(line for line in out.splitlines() if line.startswith("  night"))


@pytest.mark.parametrize("tamper", ["configuration", "provider", "duplicate", "damaged line"])
def test_a_tampered_run_is_refused_by_name_as_lexbench_report_refuses_it(runs, capsys, tamper):
    results = runs / "night-07" / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    if tamper == "configuration":
        row["configuration_sha256"] = "0" * 64
        lines[0] = json.dumps(row)
    elif tamper == "provider":
        row["provider"] = "someone-else"
        lines[0] = json.dumps(row)
    elif tamper == "duplicate":
        lines.insert(1, lines[0])
    else:
        lines[0] = lines[0][:40]
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert lexbench(["report", str(runs / "night-07")]) == 2
    refusal = capsys.readouterr().err.removeprefix("lexbench report: error: ").strip()
    assert lexbench(["history", str(runs), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 11 and data["refused"] == [{"path": str(runs / "night-07"), "reason": refusal}]
    assert lexbench(["history", str(runs)]) == 0
    assert "1 refused, as lexbench report refuses them:" in capsys.readouterr().out


def test_cached_figures_are_the_figures_and_a_run_changed_since_is_read_again(runs, capsys, history_cache):
    assert lexbench(["history", str(runs), "--json", "--no-cache"]) == 0
    uncached = json.loads(capsys.readouterr().out)
    assert not history_cache.exists()
    assert lexbench(["history", str(runs), "--json"]) == 0  # fills the cache
    assert json.loads(capsys.readouterr().out) == uncached and history_cache.is_file()
    assert lexbench(["history", str(runs), "--json"]) == 0  # reads it
    assert json.loads(capsys.readouterr().out) == uncached
    # Tampered after it was cached: its files changed, so it is read again and refused.
    results = runs / "night-12" / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["configuration_sha256"] = "0" * 64
    results.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")
    assert lexbench(["history", str(runs), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 11 and [r["path"] for r in data["refused"]] == [str(runs / "night-12")]


def test_foreign_files_are_ignored_with_a_note(runs, capsys):
    (runs / "notes.txt").write_text("my notes", encoding="utf-8")
    (runs / "scratch").mkdir()
    (runs / ".DS_Store").write_text("", encoding="utf-8")
    assert lexbench(["history", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "lexbench history: 12 complete run(s)" in out
    assert f"  {runs / 'notes.txt'}: not a run directory; ignored" in out
    assert f"  {runs / 'scratch'}: not a run directory (no manifest.json, no results.jsonl); ignored" in out
    assert ".DS_Store" not in out


def test_nothing_in_a_run_directory_is_taken_as_sql(runs, capsys):
    hostile = "x'); DROP TABLE runs; --"
    night = runs / "night-12"
    renamed = runs / f"night-13 {hostile}"
    night.rename(renamed)
    manifest = json.loads((renamed / "manifest.json").read_text(encoding="utf-8"))
    manifest["providers"] = [hostile if p == "acme" else p for p in manifest["providers"]]
    (renamed / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    rows = [json.loads(line) for line in (renamed / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["case"] = f"{row['case']}{hostile}"
        row["provider"] = hostile if row["provider"] == "acme" else row["provider"]
    (renamed / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert lexbench(["history", str(runs), "--check"]) == 0  # the hostile provider has one run: nothing to compare
    out = capsys.readouterr().out
    assert f"{hostile} on suite demo: night-13 {hostile}: no earlier run" in out
    h = history(runs)
    assert query(h, "SELECT count(*) FROM runs") == [(12,)]
    assert query(h, "SELECT count(*) FROM items WHERE provider = ? AND \"case\" LIKE ?", hostile, f"%{hostile}") == [(6,)]


def test_a_missing_folder_is_named(tmp_path, capsys):
    assert lexbench(["history", str(tmp_path / "nope")]) == 2
    assert f"{tmp_path / 'nope'}: no such folder of runs" in capsys.readouterr().err


def test_html_writes_a_trend_figure_per_trend(runs, capsys):
    out = runs.parent / "trend.html"
    assert lexbench(["history", str(runs), "--html", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    page = out.read_text(encoding="utf-8")
    assert page.count("<figure id=\"trend-") == 11 and "<script" not in page
    assert "acme (cleaned) — suite demo, dataset revision 3 (9cb93b815f62), scorer 2: 8 run(s)" in page
    assert "Latest night-12: 0.0 % [0.0–0.0 %] of 6 scored item(s)" in page


def test_report_html_gains_a_trend_panel_from_the_runs_beside_it_up_to_this_run(runs, capsys):
    assert lexbench(["report", str(runs / "night-12")]) == 0
    page = (runs / "night-12" / "report.html").read_text(encoding="utf-8")
    # Its three providers with an earlier comparable run; http-markdownify's is scorer 1: a new trend, one run, no panel.
    assert page.count('<figure id="chart-trend-') == 3 and '<h2 id="trends">Trends</h2>' in page
    assert "acme (cleaned) — suite demo, dataset revision 3 (9cb93b815f62), scorer 2: 8 run(s)" in page
    # An older night's report shows the trend up to that night, whatever was added since, and rebuilds the same bytes.
    assert lexbench(["report", str(runs / "night-07")]) == 0
    seventh = (runs / "night-07" / "report.html").read_bytes()
    assert "scorer 2: 3 run(s)" in seventh.decode("utf-8") and b"night-08" not in seventh
    shutil.rmtree(runs / "night-12")
    assert lexbench(["report", str(runs / "night-07")]) == 0
    assert (runs / "night-07" / "report.html").read_bytes() == seventh


def test_a_run_alone_has_no_trend_panel(runs, capsys):
    alone = runs.parent / "alone"
    alone.mkdir()
    shutil.move(runs / "night-12", alone / "night-12")
    assert lexbench(["report", str(alone / "night-12")]) == 0
    assert 'id="trends"' not in (alone / "night-12" / "report.html").read_text(encoding="utf-8")
