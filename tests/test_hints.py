"""Errors that say what to do: a provider defined only in the example configuration, the id of a suite
the importer makes (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexbench.dataset.importers import IMPORTED_SUITES, imported_suite_hint
from lexbench.errors import ConfigError
from lexbench.providers import default_config
from lexbench.providers.config import EXAMPLE_CONFIG

REPO = Path(__file__).resolve().parents[1]


def test_a_provider_of_the_example_configuration_names_the_file_its_credential_and_the_option(monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(ConfigError) as refused:
        default_config().select("firecrawl")
    assert str(refused.value) == (
        "unknown provider(s) firecrawl; configured: http-markdownify, trafilatura, readability, reference-echo. "
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
    assert str(refused.value).endswith("configured: http-markdownify, trafilatura, readability, reference-echo")


def test_the_id_of_an_imported_suite_gets_the_import_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suites, corpus = tmp_path / "build" / "suites", tmp_path / "corpus"
    assert imported_suite_hint("aeb", suites, corpus) == (
        "'aeb' names the suite `lexbench import-corpus --format scrapinghub-aeb` makes (id 'aeb'); import it first: "
        "lexbench import-corpus --format scrapinghub-aeb --source corpus/scrapinghub-aeb --output "
        "build/suites/scrapinghub-aeb (make corpus-suites writes its suites to build/suites too), then pass "
        "--suite=build/suites/scrapinghub-aeb")
    assert "--format mozilla-readability" in imported_suite_hint("mozilla-readability", suites, corpus)
    assert imported_suite_hint("no-such-suite", suites, corpus) is None


def test_an_imported_suite_already_there_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    imported = tmp_path / "build" / "suites" / "scrapinghub-aeb"
    imported.mkdir(parents=True)
    (imported / "dataset.json").write_text("{}")
    assert imported_suite_hint("aeb", tmp_path / "build" / "suites", tmp_path / "corpus") == (
        "suite 'aeb' is imported in build/suites/scrapinghub-aeb: pass --suite=build/suites/scrapinghub-aeb")


@pytest.fixture
def project(pytester):
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    (pytester.path / "cases").mkdir()
    return pytester


def test_pytest_providers_firecrawl_says_where_it_is_defined(project):
    result = project.runpytest("--providers=firecrawl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert "--providers: unknown provider(s) firecrawl" in error
    assert f"firecrawl is defined in {EXAMPLE_CONFIG}" in error and "set FIRECRAWL_API_KEY" in error


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
