"""report.html is one self-contained page whose charts and tables a real browser renders (SPEC §6)."""

import json
import re
import shutil
import struct
import subprocess

import lxml.html
import pytest

from lexbench.run.record import save_response
from lexbench.report.render import write_reports
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


def html_tree(rows, manifest=MANIFEST):
    from lexbench.report.html import render_html

    return lxml.html.fromstring(render_html(rows, manifest))


def test_the_pairwise_table_names_whose_pass_rate_each_column_is():
    rows = [row(p, f"article-{i:03d}-en-x", Outcome.PASS if i % (n + 1) == 0 else Outcome.FAIL)
            for n, p in enumerate(("alpha", "beta")) for i in range(10)]
    (table,) = html_tree(rows).xpath('//h2[@id="comparisons"]/following-sibling::table[1]')
    headings = [th.text_content() for th in table.xpath(".//th")]
    assert len(set(headings)) == len(headings)
    assert headings[1:7] == ["provider A", "provider B", "shared cases", "A's pass rate", "B's pass rate",
                             "difference (A − B)"]
    cells = [td.text_content() for td in table.xpath(".//tbody/tr[1]/td")]
    assert cells[1:7] == ["alpha", "beta", "10", "100.0 %", "50.0 %", "+50.0 pp"]


@pytest.mark.parametrize("latencies", [(0.2, 0.4, 0.9), (0.001, 0.05, 11.5)], ids=["linear", "log"])
def test_the_latency_axis_is_in_seconds_like_its_labels(latencies):
    rows = [row("alpha", f"article-{i:03d}-en-x", Outcome.PASS, latency=value) for i, value in enumerate(latencies)]
    (svg,) = html_tree(rows).xpath('//figure[@id="chart-latency"]//svg')
    texts = [t.text_content() for t in svg.xpath(".//text")]
    ticks = [t for t in texts if not t.startswith(("alpha", "p50"))]
    assert len(ticks) >= 3 and all(re.fullmatch(r"\d+(\.\d+)? s", t) for t in ticks), ticks
    assert not any("ms" in t for t in texts)
    assert any(re.fullmatch(r"p50 \d\.\d{3} s · p95 \d+\.\d{3} s", t) for t in texts)


def test_quoted_text_in_a_reason_is_shown_as_its_characters_not_as_escapes():
    # The scorer quotes titles and patterns with repr: an ideographic space and a regex's backslash.
    title, pattern = "老旧小区\u3000屋顶", "Sella bar\\?"
    reason = f"fail: title {title!r} not found; page identity 0/1 (no match for {pattern!r})"
    assert "\\u3000" in reason and "\\\\?" in reason
    failed = row("alpha", "article-001-zh-x", Outcome.FAIL)
    failed = failed.model_copy(update={"explanation": reason})
    tree = html_tree([failed])
    (why,) = tree.xpath('//td[@class="why"]')
    assert why.text_content() == "fail: title '老旧小区\u3000屋顶' not found; page identity 0/1 (no match for 'Sella bar\\?')"
    (cell,) = tree.xpath('//rect[@class="cell"]/title')
    assert "'老旧小区\u3000屋顶'" in cell.text_content() and "\\u3000" not in cell.text_content()
    from lexbench.report.render import render_markdown

    # Markdown shows the same characters (its backslash escaped once, as Markdown needs).
    assert "(no match for 'Sella bar\\\\?') |" in render_markdown([failed], MANIFEST)


def test_flag_codes_are_explained_where_the_report_shows_them():
    from lexbench.dataset.flags import FLAG_EXPLANATIONS

    rows = [row("alpha", "article-001-en-x", Outcome.PASS, flags=["url_unknown", "capture_charset_mismatch"]),
            row("alpha", "article-002-en-x", Outcome.PASS, flags=["url_unknown", "reviewer_note"])]
    tree = html_tree(rows)
    (flags,) = tree.xpath('//dl[@class="flags"]')
    terms = {dt.xpath("./code")[0].text: dt for dt in flags.xpath("./dt")}
    assert list(terms) == ["capture_charset_mismatch", "reviewer_note", "url_unknown"]
    for code, dt in terms.items():
        meaning = FLAG_EXPLANATIONS.get(code, "a flag of this suite's own, which lexbench does not explain")
        assert dt.xpath("./code")[0].get("title") == meaning
        assert dt.getnext().text_content().startswith(meaning + ".")
    assert terms["url_unknown"].text_content() == "url_unknown (2 cases)"
    assert terms["url_unknown"].getnext().text_content().endswith("article-001-en-x, article-002-en-x")
    from lexbench.report.render import render_json, render_markdown

    text = render_markdown(rows, MANIFEST)
    assert f"- `url_unknown` (2 cases): {FLAG_EXPLANATIONS['url_unknown']}. `article-001-en-x`, `article-002-en-x`" \
        in text
    assert json.loads(render_json(rows, MANIFEST))["flags"]["url_unknown"] == FLAG_EXPLANATIONS["url_unknown"]


def test_the_page_falls_back_to_cjk_faces_before_the_generic_family():
    from lexbench.report.html import FONT_STACK, _CSS

    families = [f.strip().strip('"') for f in FONT_STACK.split(",")]
    assert families[-1] == "sans-serif"
    assert {"Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", "Hiragino Sans", "Malgun Gothic"} <= set(families)
    assert _CSS.count(FONT_STACK) == 2  # the page text and the charts' text
