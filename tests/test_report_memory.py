"""Peak memory from the answer to the reports (issue 22): a call's ``metadata.peak_memory_bytes`` is written
in its row and read back, and ``report.json``, ``report.md`` and ``report.html`` show each provider's
median and maximum, with ``not measured`` for a provider that runs no child process."""

from __future__ import annotations

import json

import lxml.html
import pytest

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers.base import Provider
from lexbench.run.record import RunRecorder, load_rows
from lexbench.report.render import render_markdown, write_reports
from lexbench.report.memory import mib_text
from lexbench.run.row import RowContext, row_of
from lexbench.verdict import Outcome, Verdict
from tests.suite_factory import ARTICLES, write_suite
from tests.test_report import MANIFEST, row

MIB = 2**20


class Answers(Provider):
    """Answers with the peak memory it is given (``None``: none, as an in-process or hosted provider)."""

    type_name = "answers"
    needs_network = False

    def __init__(self, peak_bytes, **kwargs):
        super().__init__(**kwargs)
        self.peak_bytes = peak_bytes

    def fetch(self, case, timeout, url):
        measured = ResultMetadata(peak_memory_bytes=self.peak_bytes, memory_sampled_every_s=0.1)
        return ProviderResult(success=True, content="# Title\n\nBody.", content_format="markdown",
                              metadata=measured if self.peak_bytes is not None else ResultMetadata())


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases


def test_the_figure_reaches_the_row_and_each_provider_s_median_and_max_reach_the_reports(cases, tmp_path):
    recorder = RunRecorder(tmp_path)
    for provider, peaks in (("engine", (100 * MIB, 300 * MIB)), ("hosted", (None, None))):
        context = RowContext(suite="s", provider=provider, output_contract="cleaned", dataset_sha256=None,
                             configuration_sha256=None)
        for case, peak in zip(cases, peaks):
            answer = call_provider(Answers(peak, name=provider), case, "http://127.0.0.1:9/", RuntimePolicy(retries=0))
            verdict = Verdict(outcome=Outcome.PASS, explanation="pass: because")
            recorder.append(row_of(context, case, verdict, answer))
    recorder.close()

    rows = load_rows(tmp_path)
    assert sorted(r.metadata.peak_memory_bytes or 0 for r in rows if r.provider == "engine") == [100 * MIB, 300 * MIB]
    assert all(r.metadata.memory_sampled_every_s == 0.1 for r in rows if r.provider == "engine")
    hosted_lines = [line for line in (tmp_path / "results.jsonl").read_text().splitlines() if '"hosted"' in line]
    assert hosted_lines and not any("memory" in line for line in hosted_lines)  # unmeasured rows keep their bytes

    write_reports(tmp_path, rows, MANIFEST)
    report = json.loads((tmp_path / "report.json").read_text())
    assert {e["provider"]: e for e in report["memory"]} == {
        "engine": {"provider": "engine", "measured_items": 2, "peak_memory_median_bytes": 200 * MIB,
                   "peak_memory_max_bytes": 300 * MIB, "sampled_every_s": 0.1},
        "hosted": {"provider": "hosted", "measured_items": 0, "peak_memory_median_bytes": None,
                   "peak_memory_max_bytes": None, "sampled_every_s": None},
    }
    markdown = (tmp_path / "report.md").read_text()
    assert "## Engine cost" in markdown and "sampled every 0.1 s" in markdown
    lines = {line.split(" | ")[0]: line.split(" | ") for line in markdown.splitlines() if line.startswith("| ")}
    assert lines["| engine"][4:6] == ["200.0 MiB", "300.0 MiB"]
    assert lines["| hosted"][4:6] == ["not measured", "not measured"]
    page = lxml.html.fromstring((tmp_path / "report.html").read_bytes())
    table = page.xpath('//h2[@id="engine-cost"]/following-sibling::table[1]')[0]
    cells = {tr.xpath("td")[0].text_content(): [td.text_content() for td in tr.xpath("td")] for tr in table.xpath(".//tbody/tr")}
    assert cells["engine"][4:6] == ["200.0 MiB", "300.0 MiB"]
    assert cells["hosted"][4:6] == ["not measured", "not measured"]


def test_a_run_without_a_measured_or_timed_item_has_no_cost_table():
    rows = [row("a", "c1", Outcome.PASS), row("b", "c1", Outcome.FAIL)]
    assert "Engine cost" not in render_markdown(rows, MANIFEST)


def test_memory_is_shown_in_mib_with_one_decimal():
    assert [mib_text(v) for v in (None, 0, 431_000_000, 5 * 2**30)] == [
        "not measured", "0.0 MiB", "411.0 MiB", "5,120.0 MiB"]
