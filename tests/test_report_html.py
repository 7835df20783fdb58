"""report.html is one self-contained page whose charts and tables a real browser renders (SPEC §6)."""

import re
import shutil
import struct
import subprocess

import lxml.html
import pytest

from lexbench.record import save_response
from lexbench.report import write_reports
from lexbench.verdict import Component, Outcome
from tests.test_report import MANIFEST, row

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def run_with_report(run_dir):
    """A run directory with 12 cases × (2 providers + a control), one saved failing answer."""
    sha = save_response(run_dir, "Only the navigation came back.")
    rows = []
    for i in range(12):
        case = f"article-{i:03d}-{'en' if i % 3 else 'de'}-x"
        rows.append(row("alpha", case, Outcome.PASS, latency=0.05 * (i + 1)))
        rows.append(row("beta", case, Outcome.FAIL if i % 2 else Outcome.PASS, latency=0.5 + i, lang=case[12:14],
                        failed=[Component.REGIONS] if i % 2 else (), sha=sha if i == 1 else None))
        rows.append(row("echo", case, Outcome.PASS, contract="control", latency=0.001))
    rows[-2] = row("beta", rows[-2].case, Outcome.UNRESOLVABLE, latency=None)
    write_reports(run_dir, rows, MANIFEST)
    return run_dir / "report.html", sha


def test_nothing_is_fetched_and_answers_link_relatively(tmp_path):
    page, sha = run_with_report(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"<script|<link|<img|<iframe|\bsrc=|url\(|@import", text, re.I)
    # The only absolute URL is the SVG namespace name, which browsers never fetch.
    assert set(re.findall(r"https?://[^\s\"'<>]+", text)) == {"http://www.w3.org/2000/svg"}
    hrefs = re.findall(r'href="([^"]+)"', text)
    assert hrefs == [f"responses/{sha}.txt"]
    assert (tmp_path / hrefs[0]).read_text() == "Only the navigation came back."


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); "
                                             "the browser rendering check needs it")
def test_chromium_renders_the_charts_and_tables(tmp_path):
    page, _ = run_with_report(tmp_path / "run")
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True)
    tree = lxml.html.fromstring(dom.stdout)

    def chart(figure_id):
        (figure,) = tree.xpath(f'//figure[@id="{figure_id}"]')
        (svg,) = figure.xpath(".//svg")
        return svg

    bars = chart("chart-pass-rates")
    assert len(bars.xpath('.//rect[@class="bar"]')) == 3
    assert len(bars.xpath('.//line[@class="whisker"]')) == 3 * 3  # one span and two caps per bar
    dots = chart("chart-latency")
    assert len(dots.xpath('.//circle[@class="dot"]')) == 12 + 11 + 12  # the unresolvable item has no latency
    cells = chart("chart-heatmap").xpath('.//rect[@class="cell"]')
    assert len(cells) == 3 * 12
    assert {c.get("fill") for c in cells} == {"#2e7d32", "#c62828", "#9e9e9e"}
    headings = [h.text_content() for h in tree.xpath("//h2")]
    assert headings[:4] == ["Leaderboards", "Pairwise comparisons", "Latency and cost", "Provider × case"]
    assert "Items that did not pass" in headings
    tables = tree.xpath("//table")
    assert len(tables) >= 8
    assert tree.xpath('//a[starts-with(@href, "responses/")]')

    shot = tmp_path / "shot.png"
    subprocess.run([*flags, "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1200, 1600) and len(data) > 20_000  # a blank page compresses to a few KB
