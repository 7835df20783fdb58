"""A user's provider type from their own package (entry-point group ``lexbench.providers``) or their
conftest.py (``pytest_lexbench_provider_types``), named by ``type`` in a provider configuration (issue 20
item 3; README "Your own provider type")."""

import base64
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

from lexbench.errors import ConfigError
from lexbench.providers import ENTRY_POINT_GROUP, PROVIDER_TYPES, TYPE_SOURCES, ProviderRegistry

ECHOES = '''
    from lexbench import Provider, ProviderResult


    class Echoes(Provider):
        """Answers with the case's reviewed title, body and stable phrases, as the control does."""

        type_name = "echoes"
        needs_network = False

        def fetch(self, case, timeout, url):
            lines = [case.title, case.reference_text, *[p for g in case.stable_groups for p in g.phrases]]
            return ProviderResult(success=True, content="\\n".join(lines), content_format="text")
'''


def provider_config(path, type_name, name="mine"):
    path.write_text(json.dumps({"schema_version": 1, "default_providers": [name],
                                "providers": [{"name": name, "type": type_name}]}))
    return path


def dist_info(root, entry_points, name="acme_fetch"):
    """An installed distribution's metadata directory declaring ``entry_points`` of the group."""
    meta = root / f"{name}-1.0.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (meta / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")


def build_wheel(out, modules, entry_points, name="acme_fetch", version="1.0"):
    """A pure-Python wheel (PEP 427) of ``modules`` ({file name: source}) declaring ``entry_points`` of the
    group: what ``python -m build`` makes of such a project, without needing a build backend offline."""
    meta = f"{name}-{version}.dist-info"
    lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    files = {**modules,
             f"{meta}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{meta}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{meta}/entry_points.txt": f"[{ENTRY_POINT_GROUP}]\n{lines}"}
    record = []
    for path, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    files[f"{meta}/RECORD"] = "\n".join([*record, f"{meta}/RECORD,,"]) + "\n"
    wheel = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A directory on sys.path holding the module ``acme_echoes`` (Echoes) and a distribution's metadata."""
    (tmp_path / "acme_echoes.py").write_text(textwrap.dedent(ECHOES))
    monkeypatch.syspath_prepend(tmp_path)
    yield tmp_path
    sys.modules.pop("acme_echoes", None)


def test_the_registry_reads_an_installed_distributions_entry_points(installed):
    dist_info(installed, {"echoes": "acme_echoes:Echoes"})
    registry = ProviderRegistry({"trafilatura": "lexbench.providers.local:Trafilatura"}, group=ENTRY_POINT_GROUP)
    assert "echoes" in registry and sorted(registry) == ["echoes", "trafilatura"]
    assert registry["echoes"].__name__ == "Echoes" and registry["echoes"].type_name == "echoes"
    assert registry.origin("echoes").startswith("entry point echoes = 'acme_echoes:Echoes' of acme_fetch")
    assert registry.origin("trafilatura") == "built-in"


@pytest.mark.parametrize(("points", "message"), [
    ({"trafilatura": "acme_echoes:Echoes"}, "'trafilatura' is a built-in provider type; rename the entry point"),
    ({"echoes": "acme_missing:Echoes"}, "of acme_fetch .*cannot be imported: No module named 'acme_missing'"),
    ({"echoes": "acme_echoes:textwrap"}, "not a subclass of lexbench.Provider"),
    ({"echo": "acme_echoes:Echoes"}, "the class's type_name is 'echoes'; make it 'echo', the entry point's name"),
])
def test_a_bad_entry_point_is_refused_naming_its_distribution(installed, points, message):
    (installed / "acme_echoes.py").write_text(textwrap.dedent(ECHOES) + "\nimport textwrap\n")
    dist_info(installed, points)
    registry = ProviderRegistry({"trafilatura": "lexbench.providers.local:Trafilatura"}, group=ENTRY_POINT_GROUP)
    with pytest.raises(ConfigError, match=message):
        registry[next(iter(points))]


@pytest.fixture
def project(pytester):
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    return pytester


def test_a_conftest_adds_a_type_for_its_session_only(project):
    project.makeconftest('pytest_plugins = ["lexbench.plugin"]\n' + textwrap.dedent(ECHOES) + '''

def pytest_lexbench_provider_types():
    return [Echoes]
''')
    config = provider_config(project.path / "providers.json", "echoes")
    result = project.runpytest("--lexbench", f"--provider-config={config}", "--providers=mine", "--collect-only")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    assert "15 tests collected" in result.stdout.str() and "sella-bar-tides[mine]>" in result.stdout.str()
    assert "echoes" not in PROVIDER_TYPES  # removed again when the session ended


@pytest.mark.parametrize(("returned", "message"), [
    ("[object]", "pytest_lexbench_provider_types returned <class 'object'>; return lexbench.Provider subclasses"),
    ("[Clash]", "provider type 'trafilatura' is already registered"),
])
def test_a_conftest_type_that_cannot_be_added_is_a_usage_error(project, returned, message):
    project.makeconftest(f'''
pytest_plugins = ["lexbench.plugin"]
from lexbench import Provider

class Clash(Provider):
    type_name = "trafilatura"

def pytest_lexbench_provider_types():
    return {returned}
''')
    result = project.runpytest("--lexbench", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_an_unknown_type_lists_the_known_ones_and_where_types_come_from(project):
    project.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    config = provider_config(project.path / "providers.json", "echoes")
    result = project.runpytest("--lexbench", f"--provider-config={config}", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str().replace("\n", " ")
    assert "provider 'mine': unknown type 'echoes'; known types: brightdata-unlocker," in error
    assert "trafilatura" in error and TYPE_SOURCES in error


@pytest.mark.slow  # pip installs the distribution; the run is a pytest process
def test_an_installed_distributions_type_runs_by_name_from_a_configuration(project, tmp_path_factory, monkeypatch):
    wheel = build_wheel(tmp_path_factory.mktemp("dist"), {"acme_echoes.py": textwrap.dedent(ECHOES)},
                        {"echoes": "acme_echoes:Echoes"})
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(target), str(wheel)], check=True, timeout=600)
    assert (target / "acme_echoes.py").is_file()

    project.makeconftest('pytest_plugins = ["lexbench.plugin"]')
    (project.path / "cases").mkdir()
    config = provider_config(project.path / "providers.json", "echoes", name="acme")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(target), os.environ.get("PYTHONPATH")])))
    run_dir = project.path / "run"
    result = project.runpytest_subprocess("--lexbench", f"--provider-config={config}", "--providers=acme", "-k", "carrick",
                                          f"--run-dir={run_dir}")
    result.assert_outcomes(passed=1, deselected=14)
    [row] = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert (row["provider"], row["outcome"]) == ("acme", "pass")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["providers"] == ["acme"] and manifest["provider_config"]["providers"]["acme"]["type"] == "echoes"
