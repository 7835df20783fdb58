"""``-k <provider>`` selects that provider's items on every suite (issue 20, item 4): the suite id is no node
name (the imported mozilla suite's id ``readability`` used to select all 280 items, not 70); ``-k`` matches
substrings, so ``[<provider>]`` is the exact form. Collection only; the run directory opening reads git's
state, hence ``slow``."""

from __future__ import annotations

import pytest

from lexbench.dataset.suite import load_suite
from tests.suite_factory import ARTICLES, write_suite

EXAMPLE_CONFIG = "providers/providers.example.json"


@pytest.fixture
def project(bench_project):
    return bench_project


def _selected(pytester, *args: str) -> list[str]:  # type: ignore[no-untyped-def]
    result = pytester.runpytest("--collect-only", "-q", f"--run-dir={pytester.path / 'r'}", *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    return [line for line in result.outlines if line.startswith("lexbench::")]


@pytest.mark.slow
def test_a_suite_named_like_a_provider_is_not_selected_by_its_name(project):
    suite = write_suite(project.path / "suite", ARTICLES, suite_id="readability")
    providers = "--providers=readability,trafilatura,reference-echo"
    every = _selected(project, f"--suite={suite}", providers)
    assert len(every) == 6 and all("::readability::" not in node for node in every)
    selected = _selected(project, f"--suite={suite}", providers, "-k", "readability")
    assert selected == ["lexbench::article-001-en-tides[readability]", "lexbench::article-002-en-orchard[readability]"]


@pytest.mark.slow
def test_on_the_demo_suite_the_bracketed_name_selects_exactly_one_provider(project):
    from lexbench.dataset.suite import CASES_ROOT

    cases = len(load_suite("demo").cases)
    config = f"--provider-config={CASES_ROOT.parent / EXAMPLE_CONFIG}"
    providers = "--providers=readability,readability-js,trafilatura"
    exact = _selected(project, "--suite=demo", config, providers, "-k", "[readability]")
    assert len(exact) == cases and all(node.endswith("[readability]") for node in exact)
    # A bare name is a substring: readability-js's items match it too.
    loose = _selected(project, "--suite=demo", config, providers, "-k", "readability")
    assert len(loose) == 2 * cases
    excluded = _selected(project, "--suite=demo", config, providers, "-k", "readability and not readability-js")
    assert excluded == exact
    assert len(_selected(project, "--suite=demo", config, providers, "-k", "trafilatura")) == cases
