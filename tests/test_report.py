"""The report counts verdicts the way SPEC §6 says, shows intervals, comparisons, breakdowns, costs and
noise, and depends only on the rows and the run-wide facts."""

import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import unicodedata
from html import escape
from pathlib import Path

import lxml.html
import pytest

from lexbench.answer import Attempt, ResultMetadata
from lexbench.run.record import RunRow
from lexbench.report.render import md_text, render_json, render_markdown, render_terminal
from lexbench.report.model import build_report, percentile, summarise
from lexbench.verdict import Component, ComponentResult, Outcome

MANIFEST = {"suite": {"id": "s", "revision": 1, "review_status": "reviewed", "dataset_sha256": "ab" * 32},
            "providers": ["a", "b"], "configuration_sha256": "cd" * 32,
            "configuration": {"mode": "replay", "runtime_policy": {"timeout_s": 30.0, "retries": 1}}}


def row(provider, case, outcome, *, latency=1.0, chars=1000, contract="cleaned", failed=(), track="body",
        lang="en", sha=None, **extra):
    components = [ComponentResult(name=c, passed=False) for c in failed]
    return RunRow(suite="s", case=case, provider=provider, output_contract=contract, category="article",
                  track=track, lang=lang, outcome=outcome, explanation=f"{outcome.value}: because",
                  components=components, latency_s=latency, content_chars=chars, reference_chars=500,
                  failure_class=None if outcome is Outcome.PASS else "content", response_sha256=sha, **extra)


def test_pass_rate_excludes_unresolvable_and_noise_is_median_ratio():
    rows = [row("a", "c1", Outcome.PASS, chars=500), row("a", "c2", Outcome.FAIL, chars=1500, failed=[Component.TITLE]),
            row("a", "c3", Outcome.UNRESOLVABLE, chars=0), row("a", "c4", Outcome.PASS, chars=1000)]
    (summary,) = summarise(rows)
    assert (summary.passed, summary.failed, summary.unresolvable) == (2, 1, 1)
    assert summary.pass_rate == 2 / 3
    assert summary.noise == 2.0  # median of 1.0, 3.0, 2.0 (the unresolvable row is left out)
    assert summary.component_failures == {"title": 1}
    assert summary.interval.low <= 2 / 3 <= summary.interval.high


def test_controls_are_listed_apart_and_failed_items_link_their_answer():
    rows = [row("echo", "c1", Outcome.PASS, contract="control"),
            row("x", "c1", Outcome.FAIL, failed=[Component.REGIONS], sha="f" * 64)]
    text = render_markdown(rows, MANIFEST)
    readable, controls = text.index("Readable content"), text.index("Controls")
    assert readable < text.index("| x |") < controls < text.index("| echo |")
    assert f"| `c1[x]` | fail | content | [ffffffffffff…](responses/{'f' * 64}.txt) | fail: because |" in text


def test_percentile_nearest_rank():
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 0.95) == 95.0


def test_component_pass_rates_show_where_a_provider_fails():
    rows = [row("a", "c1", Outcome.FAIL, failed=[Component.STABLE_GROUPS]),
            row("a", "c2", Outcome.FAIL, failed=[Component.STABLE_GROUPS])]
    for r in rows:
        r.components.append(ComponentResult(name=Component.REGIONS, passed=True))
    (summary,) = summarise(rows)
    assert summary.component_pass_rate(Component.REGIONS) == 1.0
    assert summary.component_pass_rate(Component.STABLE_GROUPS) == 0.0
    assert summary.component_pass_rate(Component.TITLE) is None
    lines = render_terminal(rows)
    assert "95 % CI" in lines[0] and "noise" in lines[2]
    header = lines.index("component pass rates: share of the items where the component was scored that passed it") + 1
    assert lines[header].split() == ["provider", "title", "regions", "ending", "stable", "groups", "comments", "posts"]
    assert lines[header + 1].split() == ["a", "–", "100.0", "%", "–", "0.0", "%", "–", "–"]


def display_width(line):
    """Terminal columns of ``line``: East Asian wide and fullwidth characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


WIDE_PROVIDERS = ("chromium-dump-dom", "chromium-cdp-html", "http-markdownify", "readability-js", "trafilatura",
                  "crawl4ai-cloud", "brightdata", "a-provider-name-longer-than-any-column")


def test_the_terminal_leaderboard_fits_100_columns_with_eight_long_provider_names():
    rows = [row(name, f"article-{i:03d}-en-x", Outcome.PASS if (i + n) % 3 else Outcome.FAIL, latency=12.5 + n,
                chars=123456, failed=() if (i + n) % 3 else [Component.STABLE_GROUPS, Component.TITLE],
                boilerplate_probes=40, boilerplate_found=39)
            for n, name in enumerate(WIDE_PROVIDERS) for i in range(280)]
    rows += [row("reference-echo", f"article-{i:03d}-en-x", Outcome.UNRESOLVABLE, contract="control") for i in range(280)]
    lines = render_terminal(rows)
    assert max(map(display_width, lines)) <= 100, "\n".join(lines)
    shown = [line.split()[0] for line in lines[1:10]]
    assert set(shown) == {*WIDE_PROVIDERS[:-1], "a-provider-name-longer-…", "reference-echo"}
    (dump_dom,) = [line.split() for line in lines[1:10] if line.startswith("chromium-dump-dom ")]
    assert dump_dom[:6] == ["chromium-dump-dom", "cleaned", "186", "94", "0", "66.4"] and dump_dom[-1] == "246.91×"
    assert "every column, comparisons, breakdowns and why each item failed: report.md, report.html" in lines
    assert any("-vv prints it whole" in line for line in lines)
    # Nothing failed (pytest never cuts skip reasons): no word about cut failure reasons.
    for outcome in (Outcome.PASS, Outcome.UNRESOLVABLE):
        assert not any("-vv" in line for line in render_terminal([row("a", "c1", outcome)]))


def _two_providers(n=40):
    # "a" passes every case; "b" passes one case in four; "c" has exactly "b"'s outcomes.
    rows = []
    for i in range(n):
        case = f"article-{i:03d}-en-x"
        rows.append(row("a", case, Outcome.PASS))
        rows.append(row("b", case, Outcome.PASS if i % 4 == 0 else Outcome.FAIL))
        rows.append(row("c", case, Outcome.PASS if i % 4 == 0 else Outcome.FAIL))
    return rows


def test_paired_comparison_separates_real_differences_from_ties():
    report = build_report(_two_providers(), MANIFEST)
    pairs = {(c["first"], c["second"]): c for c in report["comparisons"]}
    assert pairs[("a", "b")]["real"] and pairs[("a", "b")]["difference"] == 0.75
    assert pairs[("a", "b")]["interval"]["low"] > 0
    assert pairs[("b", "c")]["difference"] == 0 and not pairs[("b", "c")]["real"]
    assert pairs[("b", "c")]["shared_cases"] == 40
    text = render_markdown(_two_providers(), MANIFEST)
    assert "## Pairwise comparisons" in text and "| cleaned | a | b | 40 | 100.0 % | 25.0 % | +75.0 pp |" in text


def test_a_comparison_shows_each_provider_s_noise_beside_its_pass_rate():
    # "dump" passes every case with answers six times the reference; "clean" passes half at the reference's size.
    rows = []
    for i in range(20):
        case = f"article-{i:03d}-en-x"
        rows.append(row("dump", case, Outcome.PASS, chars=3000))
        rows.append(row("clean", case, Outcome.PASS if i % 2 else Outcome.FAIL, chars=500 + i))
    rows.append(row("dump", "article-099-en-only", Outcome.PASS, chars=90000))  # not shared: not in the pair's noise
    pair = build_report(rows, MANIFEST)["comparisons"][0]
    assert (pair["first"], pair["second"]) == ("dump", "clean")
    assert pair["first_noise"] == 6.0 and pair["second_noise"] == 1.019
    text = render_markdown(rows, MANIFEST)
    assert "| A's noise | B's noise |" in text and "| 6.00× | 1.02× |" in text
    from lexbench.report.html import render_html

    html = render_html(rows, MANIFEST)
    assert "<th>A&#x27;s noise</th><th>B&#x27;s noise</th>" in html


def test_every_leaderboard_row_has_as_many_cells_as_its_header():
    # A row carries every component column (comments and posts included); a header short of them shifts
    # every later column under the wrong heading.
    text = render_markdown(_two_providers(), MANIFEST)
    table = [line for line in text.split("## Leaderboards")[1].splitlines() if line.startswith("|")][:3]
    header, rule, first = (line.count("|") for line in table)
    assert header == rule == first
    assert "| comments | posts |" in table[0]


def test_controls_are_not_compared():
    rows = [row("echo", "c1", Outcome.PASS, contract="control"), row("x", "c1", Outcome.FAIL)]
    assert build_report(rows, MANIFEST)["comparisons"] == []


def test_breakdowns_components_and_failure_classes():
    rows = [row("a", "c1", Outcome.PASS, track="body", lang="en"),
            row("a", "c2", Outcome.FAIL, track="comments", lang="de", failed=[Component.PAGE_IDENTITY, Component.COMMENTS]),
            row("a", "c3", Outcome.UNRESOLVABLE, track="comments", lang="de")]
    report = build_report(rows, MANIFEST)
    tracks = {g["group"]: g["providers"]["a"] for g in report["breakdowns"]["track"]}
    assert tracks == {"body": {"pass": 1, "scored": 1, "pass_rate": 1.0},
                      "comments": {"pass": 0, "scored": 1, "pass_rate": 0.0}}
    assert [g["group"] for g in report["breakdowns"]["lang"]] == ["de", "en"]
    (components,) = report["components"]
    assert components["failures"]["page_identity"] == 1 and components["failures"]["comments"] == 1
    assert list(components["failures"]) == ["call", "title", "regions", "ending", "stable_groups", "page_identity",
                                            "comments", "posts", "anchors"]
    text = render_markdown(rows, MANIFEST)
    assert "## Pass rate by track" in text and "| comments | 2 | 0.0 % (0/1) |" in text
    assert "| provider | call | title | regions | ending | stable groups | identity | comments | posts |" in text
    assert "| a | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 | 1/1 | 1/1 | 0/0 |" in text
    assert report["failure_classes"] == [{"provider": "a", "classes": {"content": 2}}]


def test_cost_comes_from_metadata_total_or_attempts():
    billed = row("h", "c1", Outcome.PASS, metadata=ResultMetadata(cost_total=0.003, cost_unit="usd"),
                 attempts=[Attempt(latency_s=1, cost=0.0015), Attempt(latency_s=1, cost=0.0015)])
    from_attempts = row("h", "c2", Outcome.PASS, metadata=ResultMetadata(cost_unit="usd"),
                        attempts=[Attempt(latency_s=1, cost=0.002)])
    free = row("h", "c3", Outcome.PASS)
    (entry,) = build_report([billed, from_attempts, free], MANIFEST)["latency_and_cost"]
    assert entry["cost"] == {"usd": 0.005} and entry["costed_items"] == 2
    assert entry["attempts"] == 4 and entry["retried_items"] == 1
    assert "0.0050 usd" in render_markdown([billed, from_attempts, free], MANIFEST)


def test_report_bytes_depend_on_rows_not_their_order_or_the_session():
    rows = _two_providers(25)
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)
    session = {**MANIFEST, "argv": ["elsewhere"], "started": "2030-01-01T00:00:00+00:00",
               "host": {"hostname": "other"}, "run": {"shard": "2/3"}}
    assert render_json(rows, MANIFEST) == render_json(shuffled, session)
    assert render_markdown(rows, MANIFEST) == render_markdown(shuffled, session)
    data = json.loads(render_json(rows, MANIFEST))
    (board,) = data["leaderboards"]
    b = next(p for p in board["providers"] if p["provider"] == "b")
    assert b["pass_rate"] == 0.28 and 0 < b["interval"]["low"] < 0.28 < b["interval"]["high"] < 1


def test_write_reports_bootstraps_once_and_matches_the_renderers(tmp_path, monkeypatch):
    from lexbench.run import stats
    from lexbench.report.render import write_reports
    from lexbench.report.html import render_html

    rows = _two_providers(25)
    expected = {"report.md": render_markdown(rows, MANIFEST), "report.html": render_html(rows, MANIFEST),
                "report.json": render_json(rows, MANIFEST)}
    calls = []
    for name in ("pass_rate_interval", "paired_difference"):
        def counted(*args, _name=name, _real=getattr(stats, name), **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)
        monkeypatch.setattr(stats, name, counted)
    paths = write_reports(tmp_path, rows, MANIFEST)
    assert {p.name: p.read_text(encoding="utf-8") for p in paths} == expected
    # One interval per provider and one per pair (a-b, a-c, b-c): the report is built once, not per file.
    assert sorted(calls) == ["paired_difference"] * 3 + ["pass_rate_interval"] * 3


@pytest.mark.slow
def test_the_report_names_the_scorer_version_its_rows_were_scored_with():
    from lexbench.run.record import environment
    from lexbench.scoring.evaluate import SCORER_VERSION

    rows = [row("a", "c1", Outcome.PASS)]
    manifest = {**MANIFEST, "versions": environment()["versions"]}
    assert manifest["versions"]["scorer"] == SCORER_VERSION
    assert f"scorer version {SCORER_VERSION}." in render_markdown(rows, manifest)
    assert build_report(rows, manifest)["run"]["scorer_version"] == SCORER_VERSION
    # A run recorded before the version existed says so instead of guessing.
    assert "scorer version not recorded (before version 2)." in render_markdown(rows, MANIFEST)


def test_boilerplate_probes_are_reported_beside_the_noise_figure_only_where_cases_have_them():
    rows = [row("a", "t1", Outcome.PASS, boilerplate_probes=4, boilerplate_found=3),
            row("a", "t2", Outcome.PASS, boilerplate_probes=2, boilerplate_found=0),
            row("a", "c3", Outcome.PASS),
            row("b", "t1", Outcome.FAIL, boilerplate_probes=4, boilerplate_found=0),
            row("b", "c3", Outcome.UNRESOLVABLE, boilerplate_probes=1, boilerplate_found=None)]
    report = build_report(rows, MANIFEST)
    providers = {p["provider"]: p for board in report["leaderboards"] for p in board["providers"]}
    assert providers["a"]["boilerplate_probes"] == {"found": 3, "probes": 6, "pages": 2}
    assert providers["b"]["boilerplate_probes"] == {"found": 0, "probes": 4, "pages": 1}
    text = render_markdown(rows, MANIFEST)
    assert "`without` snippets; a diagnostic, not part of the verdict): a 3 of 6 snippets on 2 pages; b 0 of 4 " \
           "snippets on 1 page." in text
    terminal = render_terminal(rows)
    probes = terminal.index("boilerplate probes (trafilatura-eval `without` snippets found in the answers):")
    assert terminal[probes + 1:probes + 3] == ["  a: 3 of 6 snippets on 2 pages", "  b: 0 of 4 snippets on 1 page"]
    from lexbench.report.html import render_html

    assert "b 0 of 4 snippets on 1 page.</p>" in render_html(rows, MANIFEST)
    plain = [row("a", "c1", Outcome.PASS)]
    assert "boilerplate" not in render_markdown(plain, MANIFEST) and "boilerplate" not in render_json(plain, MANIFEST)
    assert "boilerplate" not in plain[0].model_dump_json()  # rows of other cases keep their bytes


ROOT = Path(__file__).resolve().parents[1]


def piped_pytest(*args):
    """pytest on the demo suite from the repository root, its output piped (as in a CI log or ``| tee``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER", "COLUMNS", "PYTEST_ADDOPTS")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-rfs", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # items failed; the harness did not
    return done.stdout.splitlines()


@pytest.mark.slow  # runs pytest on the demo suite in a subprocess
def test_a_piped_run_prints_a_leaderboard_within_100_columns_that_says_where_each_reason_is_whole(tmp_path):
    lines = piped_pytest("--providers=trafilatura,reference-echo", f"--run-dir={tmp_path / 'run'}")
    start = next(i for i, line in enumerate(lines) if " lexbench leaderboard " in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("run record: "))
    board = lines[start + 1:end]
    assert board[0].split()[:3] == ["provider", "contract", "pass"]
    assert max(map(display_width, board)) <= 100, "\n".join(board)
    assert "every column, comparisons, breakdowns and why each item failed: report.md, report.html" in board
    assert "when piped): the FAILURES section above and report.md hold it whole; -vv prints it whole below" in board
    # pytest cuts the short summary to 80 columns when piped (the leaderboard's note says so) ...
    failed = [line for line in lines[end:] if line.startswith("FAILED ")]
    assert len(failed) == 15 and all(display_width(line) <= 80 and line.endswith("...") for line in failed)
    # ... and the FAILURES section above it holds every reason whole, as the note says.
    explanations = [json.loads(line)["explanation"] for line in (tmp_path / "run" / "results.jsonl").open(encoding="utf-8")]
    failures = [e for e in explanations if e.startswith("fail: ")]
    assert len(failures) == 15 and all(e in lines[:start] for e in failures)


@pytest.mark.slow  # runs pytest on the demo suite in a subprocess
def test_with_vv_a_piped_short_summary_shows_the_whole_reason(tmp_path):
    lines = piped_pytest("--providers=trafilatura", "-k", "article-001-en-carrick-tidal-array", "-vv",
                         f"--run-dir={tmp_path / 'run'}")
    (explanation,) = [json.loads(line)["explanation"] for line in (tmp_path / "run" / "results.jsonl").open(encoding="utf-8")]
    (summary,) = [line for line in lines if line.startswith("FAILED ")]
    assert "trafilatura" in summary and summary.endswith(f" - {explanation}")


FLAG_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def _codes(node):
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and FLAG_CODE.fullmatch(n.value)}


def emitted_flag_codes():
    """Every flag code lexbench's source can put on a case or a row, found where it is written: appended
    to or listed in a ``flags`` value, passed as ``flag=``/``flags=``, bound to a ``*FLAG*`` name, or
    returned by a ``*flags*`` function. Maps each code to the first file that emits it."""
    found = {}
    for path in sorted((ROOT / "lexbench").rglob("*.py")):
        if path.name.startswith("report"):
            continue  # the reports show flags (and hold their explanations); they emit none
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values = []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend") \
                    and "flag" in ast.unparse(node.func.value).lower():
                values = node.args
            elif isinstance(node, ast.keyword) and node.arg in ("flag", "flags"):
                values = [node.value]
            elif isinstance(node, ast.Dict):
                values = [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == "flags"]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any("flag" in ast.unparse(t).lower() for t in targets) and node.value is not None:
                    values = [node.value]
            elif isinstance(node, ast.FunctionDef) and "flags" in node.name:
                values = [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
            for value in values:
                for code in _codes(value):
                    found.setdefault(code, path.relative_to(ROOT).as_posix())
    return found


def test_every_flag_code_the_code_can_emit_has_an_explanation():
    from lexbench.dataset.flags import FLAG_EXPLANATIONS

    emitted = emitted_flag_codes()
    # The scan finds the flags of the importers, the charset and ending rules, and the run itself.
    assert {"url_unknown", "capture_charset_mismatch", "coverage_unknown", "ending_not_found_in_prose",
            "thread_text_as_body_no_posts_contract", "response_not_saved"} <= set(emitted)
    unexplained = {code: where for code, where in emitted.items() if code not in FLAG_EXPLANATIONS}
    assert not unexplained, f"explain these flags in lexbench/dataset/flags.py FLAG_EXPLANATIONS: {unexplained}"
    assert set(FLAG_EXPLANATIONS) == set(emitted), "an explanation for a flag nothing emits any more"
    assert all(text and "\n" not in text and not text.endswith(".") for text in FLAG_EXPLANATIONS.values())


def imported_readability_suite(tmp_path):
    """A two-page suite imported by ``lexbench import-corpus --format mozilla-readability`` from a tiny
    corpus folder: the suite directory and its import report."""
    from lexbench.dataset.importers import import_corpus
    from tests.dataset.test_corpus_import import make_readability

    expected = ('<div id="readability-page-1" class="page"><p>First paragraph of the article with enough words.</p>'
                "<p>Second paragraph continues the story.</p><p>The end of it all.</p></div>")
    source = make_readability(tmp_path / "corpus", {"page-one": expected, "page-two": expected})
    suite = tmp_path / "suite"
    return suite, import_corpus("mozilla-readability", source, suite)


def test_an_imported_suite_s_caveats_are_shown_in_report_md_and_report_html(tmp_path):
    from lexbench.report.render import write_reports

    suite, imported = imported_readability_suite(tmp_path)
    assert any("they favour Readability-derived providers" in note for note in imported.notes)
    manifest = {**MANIFEST, "suite": {"id": imported.suite_id, "revision": 1, "review_status": "imported_unreviewed",
                                      "path": str(suite), "dataset_sha256": "ef" * 32, "cases": 2}}
    run = tmp_path / "run"
    run.mkdir()
    write_reports(run, [row("readability", case, Outcome.PASS) for case in imported.imported], manifest)
    text = (run / "report.md").read_text(encoding="utf-8")
    assert "> Caveats of its import (mozilla-readability, from the suite's import-report.json):" in text
    for note in imported.notes:
        assert f"> - {md_text(note)}" in text
    page = lxml.html.fromstring((run / "report.html").read_text(encoding="utf-8"))
    assert [li.text_content() for li in page.xpath('//div[@class="note"]/ul/li')] == imported.notes
    assert json.loads((run / "report.json").read_text())["run"]["suite"]["import"] == {
        "format": "mozilla-readability", "caveats": imported.notes}
    # Rebuilt where the suite is gone, the report says where the caveats are instead of dropping them silently.
    shutil.rmtree(suite)
    write_reports(run, [row("readability", case, Outcome.PASS) for case in imported.imported], manifest)
    assert "> The import's caveats are in the suite's import-report.json, which was not beside its dataset when " \
           "this report was built." in (run / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow  # imports a suite and runs pytest on it in a subprocess
def test_a_run_on_an_imported_suite_reports_the_import_s_caveats(tmp_path):
    suite, imported = imported_readability_suite(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", f"--suite={suite}", "--providers=reference-echo",
                           f"--run-dir={tmp_path / 'run'}"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    text = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    for note in imported.notes:
        assert f"> - {md_text(note)}" in text and f"<li>{escape(note)}</li>" in html


def test_a_quoted_control_character_and_unquoted_text_are_shown_as_they_are():
    from lexbench.report.model import shown_text

    # A line break or NUL inside a quoted label reads better as its escape; an apostrophe is not a quote.
    assert shown_text("label 'a\\nb' and 'c\\x00' — it's 'plain'") == "label 'a\\nb' and 'c\\x00' — it's 'plain'"
    assert shown_text("it's 'x\\\\y' and \"don't\\u00a0stop\"") == "it's 'x\\y' and \"don't\u00a0stop\""
