"""Errors that say what to do: a provider defined only in the example configuration, the id of a suite
the importer makes (issue 20), in a checkout and installed from a wheel (a fake installed layout: a
``site-packages/lexbench`` with no checkout beside it); JSON of the wrong shape; counts in words."""

from __future__ import annotations

from pathlib import Path

import shutil

import pytest
from pydantic import BaseModel, ValidationError

from lexbench.dataset.importers import IMPORTED_SUITES, imported_suite_hint
from lexbench.errors import ConfigError
from lexbench import resources
from lexbench.jsonfile import validation_problem
from lexbench.plugin.items import replay_unreachable
from lexbench.providers import PROVIDER_TYPES, default_config
from lexbench.providers.config import example_config, load_provider_config
from lexbench.text import counted

REPO = Path(__file__).resolve().parents[1]


def test_a_provider_of_the_example_configuration_names_the_file_its_credential_and_the_option(monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(ConfigError) as refused:
        default_config().select("firecrawl")
    assert str(refused.value) == (
        "unknown provider(s) firecrawl; configured: http-markdownify, trafilatura, readability, reference-echo, static-shell, "
        "rendered-control. "
        "firecrawl is defined in providers/providers.example.json, not in the active configuration: pass "
        "--provider-config=providers/providers.example.json (or your copy of it) and set FIRECRAWL_API_KEY")


def test_names_the_example_does_not_define_get_the_configured_list_only(monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(ConfigError) as refused:
        default_config().select("exa,no-such-fetcher")
    message = str(refused.value)
    assert message.startswith("unknown provider(s) exa, no-such-fetcher; configured: http-markdownify, ")
    assert "exa is defined in providers/providers.example.json" in message and "set EXA_API_KEY" in message
    assert "no-such-fetcher is" not in message and "no-such-fetcher are" not in message


@pytest.mark.parametrize("content", [None, "{not json", "[1, 2]", '{"providers": "firecrawl"}'])
def test_an_unreadable_example_leaves_the_error_without_a_hint(tmp_path, content):
    example = tmp_path / "example.json"
    if content is not None:
        example.write_text(content)
    with pytest.raises(ConfigError) as refused:
        default_config().select("firecrawl", example=example)
    assert str(refused.value).endswith("configured: http-markdownify, trafilatura, readability, reference-echo, static-shell, rendered-control")


def test_the_id_of_an_imported_suite_gets_the_import_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suites, corpus = tmp_path / "build" / "suites", tmp_path / "corpus"
    assert imported_suite_hint("aeb", suites, corpus, checkout=True) == (
        "'aeb' names the suite `lexbench import-corpus --format scrapinghub-aeb` makes (id 'aeb'); import it first: "
        "lexbench import-corpus --format scrapinghub-aeb --source corpus/scrapinghub-aeb --output "
        "build/suites/scrapinghub-aeb (make corpus-suites writes its suites to build/suites too), then pass "
        "--suite=build/suites/scrapinghub-aeb")
    assert "--format mozilla-readability" in imported_suite_hint("mozilla-readability", suites, corpus, checkout=True)
    assert imported_suite_hint("no-such-suite", suites, corpus) is None


def test_an_imported_suite_already_there_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    imported = tmp_path / "build" / "suites" / "scrapinghub-aeb"
    imported.mkdir(parents=True)
    (imported / "dataset.json").write_text("{}")
    assert imported_suite_hint("aeb", tmp_path / "build" / "suites", tmp_path / "corpus") == (
        "suite 'aeb' is imported in build/suites/scrapinghub-aeb: pass --suite=build/suites/scrapinghub-aeb")


@pytest.fixture
def project(bench_project):
    return bench_project


def test_pytest_providers_firecrawl_says_where_it_is_defined(project):
    result = project.runpytest("--providers=firecrawl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert "--providers: unknown provider(s) firecrawl" in error
    assert f"firecrawl is defined in {example_config()}" in error and "set FIRECRAWL_API_KEY" in error


def test_pytest_suite_aeb_says_how_to_import_it(project):
    result = project.runpytest("--suite=aeb")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(result.stderr.str().split())
    assert "--suite: suite 'aeb'" in error
    target = IMPORTED_SUITES / "scrapinghub-aeb"
    if (target / "dataset.json").is_file():  # this checkout has run make corpus-suites
        assert f"pass --suite={target}" in error
    else:
        assert "lexbench import-corpus --format scrapinghub-aeb --source" in error
        assert f"--output {target}" in error and f"--suite={target}" in error


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """lexbench as a wheel installs it: the package in site-packages, its shipped files under
    ``lexbench/_shipped/``, no checkout beside it; the user works in their own project directory."""
    package = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "lexbench"
    shipped = package / "_shipped"
    (shipped / "providers").mkdir(parents=True)
    shutil.copy(REPO / "providers" / "providers.example.json", shipped / "providers" / "providers.example.json")
    monkeypatch.setattr(resources, "CHECKOUT", package.parent)
    monkeypatch.setattr(resources, "SHIPPED", shipped)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert not resources.in_checkout()
    return shipped


def test_installed_the_import_hint_uses_the_working_directory_and_no_make_target(installed):
    hint = imported_suite_hint("aeb")
    assert hint == (
        "'aeb' names the suite `lexbench import-corpus --format scrapinghub-aeb` makes (id 'aeb'); import it first: "
        "lexbench import-corpus --format scrapinghub-aeb --source <your copy of the corpus>/scrapinghub-aeb "
        "--output build/suites/scrapinghub-aeb (a corpus folder with its _index.tsv; the pages come from "
        "https://github.com/scrapinghub/article-extraction-benchmark), then pass --suite=build/suites/scrapinghub-aeb")
    assert "site-packages" not in hint and "make corpus-suites" not in hint


def test_installed_a_suite_imported_under_the_working_directory_is_named(installed):
    imported = Path("build") / "suites" / "scrapinghub-aeb"
    imported.mkdir(parents=True)
    (imported / "dataset.json").write_text("{}")
    assert imported_suite_hint("aeb") == (
        "suite 'aeb' is imported in build/suites/scrapinghub-aeb: pass --suite=build/suites/scrapinghub-aeb")


def test_installed_the_provider_hint_reads_the_shipped_example_and_says_to_copy_it(installed):
    example = installed / "providers" / "providers.example.json"
    assert example_config() == example
    with pytest.raises(ConfigError) as refused:
        default_config().select("firecrawl")
    assert str(refused.value) == (
        "unknown provider(s) firecrawl; configured: http-markdownify, trafilatura, readability, reference-echo, static-shell, "
        "rendered-control. "
        f"firecrawl is defined in the example configuration installed with lexbench, {example}, not in the active "
        "configuration: copy it into your project and pass --provider-config=FILE (your copy) and set "
        "FIRECRAWL_API_KEY")


def test_a_hosted_provider_in_replay_mode_names_both_ways_to_run_it():
    assert replay_unreachable("firecrawl") == (
        "firecrawl is a hosted service and cannot fetch the loopback replay server; its items run with --live, "
        "or on the frozen pages with --replay-public-url=URL where `lexbench serve-replay` is exposed at a "
        "public URL")


@pytest.mark.parametrize(("content", "problem"), [
    ("[]", "the top level: expected a JSON object, got an array"),
    ('"providers"', "the top level: expected a JSON object, got a string"),
    ("null", "the top level: expected a JSON object, got null"),
    ('{"schema_version": 1, "default_providers": ["a"], "providers": [[]]}',
     "providers.0: expected a JSON object, got an array"),
])
def test_a_provider_configuration_of_the_wrong_shape_says_where_and_what(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as refused:
        load_provider_config(path, PROVIDER_TYPES)
    assert str(refused.value) == f"{path}: {problem}"


def test_an_error_at_the_root_location_is_never_shown_as_an_empty_location():
    class Document(BaseModel):
        cases: dict[str, int]

    with pytest.raises(ValidationError) as refused:
        Document.model_validate([1])
    assert validation_problem(refused.value.errors()[0]) == "the top level: expected a JSON object, got an array"
    assert validation_problem(refused.value.errors()[0], root="the row").startswith("the row: ")
    with pytest.raises(ValidationError) as refused:
        Document.model_validate({"cases": {"a": "x"}})
    assert validation_problem(refused.value.errors()[0]).startswith("cases.a: Input should be a valid integer")


@pytest.mark.parametrize(("n", "shown"), [(0, "0 items"), (1, "1 item"), (2, "2 items")])
def test_counts_read_in_the_singular_for_one(n, shown):
    assert counted(n, "item") == shown


@pytest.mark.slow  # the run record's provenance runs git
def test_a_run_of_one_item_says_one_item(pytester):
    result = pytester.runpytest("--lexbench", "-k", "article-001 and reference-echo", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    (run,) = (pytester.path / "runs").iterdir()
    assert f"run record: {run} (1 item; report.md" in " ".join(result.stdout.str().split())
