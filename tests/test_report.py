"""The leaderboard counts verdicts the way SPEC §6 says and shows the noise figure."""

from lexbench.record import RunRow
from lexbench.report import percentile, render_markdown, summarise
from lexbench.verdict import Component, ComponentResult, Outcome


def row(provider, case, outcome, *, latency=1.0, chars=1000, contract="cleaned", failed=()):
    components = [ComponentResult(name=c, passed=False) for c in failed]
    return RunRow(suite="s", case=case, provider=provider, output_contract=contract, category="article",
                  track="body", lang="en", outcome=outcome, explanation=f"{outcome.value}: because",
                  components=components, latency_s=latency, content_chars=chars, reference_chars=500,
                  failure_class=None if outcome is Outcome.PASS else "content")


def test_pass_rate_excludes_unresolvable_and_noise_is_median_ratio():
    rows = [row("a", "c1", Outcome.PASS, chars=500), row("a", "c2", Outcome.FAIL, chars=1500, failed=[Component.TITLE]),
            row("a", "c3", Outcome.UNRESOLVABLE, chars=0), row("a", "c4", Outcome.PASS, chars=1000)]
    (summary,) = summarise(rows)
    assert (summary.passed, summary.failed, summary.unresolvable) == (2, 1, 1)
    assert summary.pass_rate == 2 / 3
    assert summary.noise == 2.0  # median of 1.0, 3.0, 2.0 (the unresolvable row is left out)
    assert summary.component_failures == {"title": 1}


def test_controls_are_listed_apart_and_failed_items_explained():
    rows = [row("echo", "c1", Outcome.PASS, contract="control"), row("x", "c1", Outcome.FAIL, failed=[Component.REGIONS])]
    text = render_markdown(rows, {"suite": {"id": "s", "revision": 1, "review_status": "reviewed"}})
    readable, controls = text.index("Readable content"), text.index("Controls")
    assert readable < text.index("| x |") < controls < text.index("| echo |")
    assert "`c1[x]` | fail | fail: because" in text


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
    from lexbench.report import render_terminal
    header, line, legend = render_terminal(rows)
    assert "regions" in header and "stable" in header
    assert "100.0 %" in line and "0.0 %" in line and "noise" in legend
