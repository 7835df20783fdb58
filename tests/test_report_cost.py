"""The engine cost in the reports (issue 28 item 4): per provider, seconds per page (median, p90 over every
attempt), peak memory per page, and pages per minute from the items' own wall clock with how many ran at
once — ``not recorded`` / ``not measured`` where a figure was not taken, never 0 or a scaled guess."""

from __future__ import annotations

import json

import lxml.html
import pytest

from lexbench.answer import Attempt, ResultMetadata
from lexbench.report.cost import engine_cost
from lexbench.report.render import render_markdown, write_reports
from lexbench.verdict import Outcome
from tests.test_report import MANIFEST, row

MIB = 2**20
T0 = 1_800_000_000.0


def timed(provider, case, start, end, *, seconds, peak=None, attempts=None):
    metadata = ResultMetadata(peak_memory_bytes=peak, memory_sampled_every_s=0.1) if peak else ResultMetadata()
    return row(provider, case, Outcome.PASS, latency=seconds, started_at=T0 + start, finished_at=T0 + end,
               metadata=metadata, attempts=[Attempt(latency_s=s) for s in attempts or [seconds]])


def engine_rows():
    # Two workers, the engine alone: items 0–10 s and 0–12 s, then 10–20 s and 12–24 s: 4 pages in 24 s.
    return [timed("engine", "c1", 0, 10, seconds=9.0, peak=100 * MIB), timed("engine", "c2", 0, 12, seconds=11.0, peak=300 * MIB),
            timed("engine", "c3", 10, 20, seconds=9.5, peak=200 * MIB),
            timed("engine", "c4", 12, 24, seconds=4.0, peak=250 * MIB, attempts=[6.0, 4.0])]


def test_pages_per_minute_come_from_the_items_wall_clock_at_the_parallelism_they_ran_at():
    (entry,) = engine_cost(engine_rows(), ["engine"])
    assert entry["pages_per_minute"] == 10.0 and entry["wall_s"] == 24.0 and entry["wall_items"] == 4
    assert entry["at_once"] == 2 and entry["others_in_span"] == 0
    # Seconds per page sum a retried page's attempts: 9, 9.5, 10 (6 + 4), 11.
    assert (entry["page_seconds_median"], entry["page_seconds_p90"]) == (9.75, 11.0)
    assert (entry["peak_memory_median_bytes"], entry["peak_memory_max_bytes"]) == (225 * MIB, 300 * MIB)


def test_one_worker_in_turn_is_one_at_once_and_a_shared_span_is_said():
    serial = [timed("a", "c1", 0, 5, seconds=5), timed("a", "c2", 5, 10, seconds=5), timed("b", "c1", 4, 6, seconds=2)]
    a, b = engine_cost(serial, ["a", "b"])
    assert (a["at_once"], a["pages_per_minute"], a["others_in_span"]) == (1, 12.0, 1)
    assert (b["at_once"], b["others_in_span"]) == (1, 2)


def test_an_item_shorter_than_the_rows_resolution_still_ran():
    # Rows keep times to the millisecond: a 0.4 ms control item starts and ends on the same one.
    serial = [timed("echo", "c1", 3.0, 3.0, seconds=0.0004), timed("echo", "c2", 3.0, 3.0, seconds=0.0004)]
    (entry,) = engine_cost(serial[:1], ["echo"])
    assert entry["at_once"] == 1
    (entry,) = engine_cost(serial, ["echo"])
    assert entry["at_once"] == 2  # two workers in the same millisecond
    (entry,) = engine_cost([timed("echo", "c1", 2.0, 3.0, seconds=1), timed("echo", "c2", 3.0, 3.0, seconds=0.0004)],
                           ["echo"])
    assert entry["at_once"] == 1  # one ended as the other began


def test_the_reports_show_the_table_and_say_what_was_not_measured(tmp_path):
    untimed = [row("hosted", "c1", Outcome.PASS, latency=0.8), row("hosted", "c2", Outcome.PASS, latency=1.2)]
    write_reports(tmp_path, engine_rows() + untimed, MANIFEST)
    markdown = (tmp_path / "report.md").read_text()
    assert "## Engine cost" in markdown and "never scaled to another worker count" in markdown
    assert ("| engine | 4 | 9.75 | 11.00 | 225.0 MiB | 300.0 MiB | 10.0 (4 in 24.0 s) | 2 at once |") in markdown
    assert "| hosted | 2 | 1.00 | 1.20 | not measured | not measured | not recorded | not recorded |" in markdown
    page = lxml.html.fromstring((tmp_path / "report.html").read_bytes())
    table = page.xpath('//h2[@id="engine-cost"]/following-sibling::table[1]')[0]
    cells = [[td.text_content() for td in tr.xpath("td")] for tr in table.xpath(".//tbody/tr")]
    assert cells == [["engine", "4", "9.75", "11.00", "225.0 MiB", "300.0 MiB", "10.0 (4 in 24.0 s)", "2 at once"],
                     ["hosted", "2", "1.00", "1.20", "not measured", "not measured", "not recorded", "not recorded"]]
    report = json.loads((tmp_path / "report.json").read_text())
    assert [e["pages_per_minute"] for e in report["engine_cost"]] == [10.0, None]


def test_a_shared_span_reads_as_shared_in_the_table():
    rows = [timed("a", "c1", 0, 5, seconds=5), timed("b", "c1", 1, 3, seconds=2)]
    assert "| a | 1 | 5.00 | 5.00 | not measured | not measured | 12.0 (1 in 5.0 s) | 1 at once, beside 1 item of other providers |" \
        in render_markdown(rows, MANIFEST)


@pytest.mark.parametrize("bad", [-1.0])
def test_a_row_with_a_negative_time_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="started_at"):
        row("a", "c1", Outcome.PASS, started_at=bad)
