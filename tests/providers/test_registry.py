"""The provider registry names each type's class as "module:Class" and imports it only when looked up."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lexbench.errors import ConfigError
from lexbench.providers import PROVIDER_TYPES, ProviderRegistry
from lexbench.providers.base import Provider
from lexbench.providers.controls import RenderedControl, StaticShell
from lexbench.providers.headless import ENGINE_PROVIDER_TYPES
from lexbench.providers.hosted.adapters import HOSTED_PROVIDER_TYPES
from lexbench.providers.local import HttpMarkdownify, Readability, ReferenceEcho, Trafilatura
from lexbench.providers.thirdparty import WORKER_PROVIDER_TYPES


BUILT_IN = (HttpMarkdownify, Trafilatura, Readability, ReferenceEcho, StaticShell, RenderedControl, *ENGINE_PROVIDER_TYPES, *WORKER_PROVIDER_TYPES,
            *HOSTED_PROVIDER_TYPES)


def test_every_entry_names_the_class_registered_under_its_type_name():
    # Other tests register their fakes in this process; the built-in entries are those of lexbench's modules.
    builtin = {name: PROVIDER_TYPES[name] for name in PROVIDER_TYPES if PROVIDER_TYPES[name].__module__.startswith("lexbench.")}
    assert builtin == {cls.type_name: cls for cls in BUILT_IN}


@pytest.mark.slow  # a fresh interpreter, so sys.modules shows only what the import loads
def test_names_are_read_without_importing_and_a_lookup_imports_one_adapter():
    script = ("import json, sys\nfrom lexbench.providers import PROVIDER_TYPES\n"
              "names = sorted(PROVIDER_TYPES); known = 'zyte-api' in PROVIDER_TYPES\n"
              "before = sorted(m for m in sys.modules if m.startswith('lexbench.providers.'))\n"
              "cls = PROVIDER_TYPES['zyte-api']\n"
              "after = sorted(m for m in sys.modules if m.startswith('lexbench.providers.hosted.'))\n"
              "print(json.dumps([len(names), known, before, cls.__name__, after]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    count, known, before, name, after = json.loads(done.stdout)
    assert count == len(BUILT_IN) and known
    assert before == []  # neither the names nor `in` imported a provider module
    assert name == "ZyteApi"
    assert "lexbench.providers.hosted.zyte" in after and "lexbench.providers.hosted.jina" not in after


def test_an_unknown_name_is_a_key_error_and_a_taken_name_a_config_error():
    registry = ProviderRegistry({"trafilatura": "lexbench.providers.local:Trafilatura"})
    with pytest.raises(KeyError):
        registry["nope"]
    assert "nope" not in registry

    class Impostor(Provider):
        type_name = "trafilatura"

    with pytest.raises(ConfigError, match="'trafilatura' is already registered"):
        registry.register(Impostor)
    assert registry.register(Trafilatura) is Trafilatura  # the class its path names may register again
    assert registry["trafilatura"] is Trafilatura
