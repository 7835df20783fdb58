"""What a certified run requires before its first call (SPEC §6), one requirement at a time."""

import json

import pytest

from lexbench.run.certify import certification_problems
from tests.suite_factory import ARTICLES, write_suite

CLEAN = {"git": {"commit": "a" * 40, "uncommitted": []}}


@pytest.fixture
def suite(tmp_path):
    return write_suite(tmp_path / "suite", ARTICLES)


def check(suite, **overrides):
    arguments = dict(providers_option="trafilatura,reference-echo", keyword="", markexpr="", code=CLEAN,
                     credential_variables=[], suite_root=suite, review_status="reviewed", environ={})
    arguments.update(overrides)
    return certification_problems(**arguments)


def test_a_clean_explicit_run_over_verified_bindings_passes(suite):
    checks, problems = check(suite)
    assert problems == []
    assert checks == ["explicit provider selection: --providers=trafilatura,reference-echo", "every item selected (no -k/-m)",
                      "clean code: commit aaaaaaaaaaaa", "every credential variable set", "suite bindings verify"]


@pytest.mark.parametrize(("overrides", "problem"), [
    ({"providers_option": None}, "provider list is not explicit"),
    ({"markexpr": "not control"}, "-m 'not control'"),
    ({"code": {"git": {"commit": "a" * 40, "uncommitted": ["lexbench/plugin.py"]}}},
     "could load or that lexbench runs (lexbench/plugin.py)"),
    ({"credential_variables": ["EXA_API_KEY"]}, "EXA_API_KEY unset or empty"),
    ({"review_status": "imported_unreviewed"}, "imported_unreviewed, not reviewed"),
])
def test_each_requirement_names_its_problem(suite, overrides, problem):
    _, problems = check(suite, **overrides)
    assert len(problems) == 1 and problem in problems[0]


def test_a_set_credential_and_an_installed_package_are_clean(suite):
    _, problems = check(suite, credential_variables=["EXA_API_KEY"], environ={"EXA_API_KEY": "k" * 20},
                        code={"git": None})
    assert problems == []


def test_bindings_must_exist_and_verify(suite):
    catalog = suite / "dataset-catalog.json"
    data = json.loads(catalog.read_text())
    data["cases"][0]["name"] = "Renamed after publication"
    catalog.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    _, problems = check(suite)
    assert len(problems) == 1 and "bindings do not verify" in problems[0] and "lexbench validate" in problems[0]
    catalog.unlink()
    _, problems = check(suite)
    assert "no public bindings (dataset-catalog.json)" in problems[0]
