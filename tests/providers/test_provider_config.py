"""Provider configuration files: named providers, types, options, contracts, placeholders (SPEC §5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.errors import ConfigError
from lexbench.providers import DEFAULT_PROVIDERS, PROVIDER_TYPES, default_config, load_config, register_provider_type
from lexbench.providers.config import parse_provider_config
from lexbench.providers.credentials import Redactor, expand
from tests.providers.fake_api import FakeFetchApi

EXAMPLE = Path(__file__).resolve().parents[2] / "providers" / "providers.example.json"
register_provider_type(FakeFetchApi)


def config(*providers, default=None, **top):
    return {"schema_version": 1, "default_providers": default or [providers[0]["name"]], "providers": list(providers), **top}


def fake(name="fake", **extra):
    return {"name": name, "type": "fake-fetch-api", "options": {"base_url": "http://127.0.0.1:1", "api_key": "${FAKE_KEY}"},
            **extra}


def test_the_example_configuration_loads_and_defaults_to_the_local_providers():
    example = load_config(EXAMPLE)
    assert example.default_providers == list(DEFAULT_PROVIDERS)
    assert [s.name for s in example.select("configured")] == list(DEFAULT_PROVIDERS)
    assert example.spec("reference-echo").output_contract == "control"
    assert example.spec("trafilatura-precision").options == {"include_comments": False, "favor_precision": True}


def test_the_built_in_configuration_matches_the_example_defaults():
    builtin = default_config()
    assert builtin.default_providers == load_config(EXAMPLE).default_providers
    assert set(builtin.names) >= set(DEFAULT_PROVIDERS)


def test_selection_by_name_and_configured():
    loaded = parse_provider_config(config(fake("a"), fake("b"), default=["b"]), PROVIDER_TYPES)
    assert [s.name for s in loaded.select(None)] == ["b"]
    assert [s.name for s in loaded.select("configured")] == ["b"]
    assert [s.name for s in loaded.select("b,a")] == ["b", "a"]
    with pytest.raises(ConfigError, match=r"unknown provider\(s\) c; configured: a, b"):
        loaded.select("a,c")
    with pytest.raises(ConfigError, match="named twice"):
        loaded.select("a,a")


def test_unknown_provider_type_is_refused_with_the_known_ones(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(config({"name": "x", "type": "no-such-type"})))
    with pytest.raises(ConfigError, match=r"p\.json: provider 'x': unknown type 'no-such-type'; known types: .*trafilatura"):
        load_config(path)


def test_duplicated_provider_name_is_refused():
    with pytest.raises(ConfigError, match="provider name 'fake' is defined twice"):
        parse_provider_config(config(fake(), fake()), PROVIDER_TYPES)


def test_duplicated_json_key_is_refused(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"schema_version": 1, "schema_version": 1, "default_providers": ["a"], "providers": []}')
    with pytest.raises(ConfigError, match="schema_version appear twice"):
        load_config(path)


def test_missing_placeholder_variable_loads_and_fails_only_at_call_time(monkeypatch):
    monkeypatch.delenv("FAKE_KEY", raising=False)
    loaded = parse_provider_config(config(fake()), PROVIDER_TYPES)  # no error: expansion is a call-time matter
    spec = loaded.spec("fake")
    assert spec.credential_variables() == ["FAKE_KEY"] and spec.options["api_key"] == "${FAKE_KEY}"
    # the call-time outcome (unresolvable, missing_credentials) is tested in test_hosted_boundary and test_plugin


@pytest.mark.parametrize(("entry", "message"), [
    (fake(options={"base_url": "x", "api_key": "sk-literal"}), "must be an \\$\\{ENV_VAR\\} placeholder"),
    (fake(options={"base_url": "x", "api_key": "${BROKEN"}), "malformed placeholder"),
    (fake(options={"base_url": "x", "api_key": "${FAKE_KEY}", "colour": "red"}), r"unknown option\(s\) colour"),
    (fake(dns_mode="public_doh"), "public_doh needs doh_url"),
    (fake(output_contract="rendered_html"), "output_contract 'rendered_html' is not one fake-fetch-api produces"),
    ({"name": "t", "type": "trafilatura", "dns_mode": "public_doh", "doh_url": "https://1.1.1.1/dns-query"},
     "apply to hosted API providers only"),
    ({"name": "t", "type": "trafilatura", "options": {"include_links": "yes"}}, "must be true or false"),
    ({"name": "bad name[x]", "type": "trafilatura"}, "name"),
    ({"name": "configured", "type": "trafilatura"}, "reserved"),
    ({"name": "t", "type": "trafilatura", "secret": "x"}, "Extra inputs are not permitted"),
])
def test_invalid_entries_are_refused_with_the_reason(entry, message):
    with pytest.raises(ConfigError, match=message):
        parse_provider_config(config(entry), PROVIDER_TYPES)


def test_default_providers_must_be_defined():
    with pytest.raises(ConfigError, match="undefined provider"):
        parse_provider_config(config(fake(), default=["nope"]), PROVIDER_TYPES)


def test_defaults_apply_dns_mode_to_hosted_providers_only():
    loaded = parse_provider_config(config(fake(), {"name": "t", "type": "trafilatura"},
                                          defaults={"dns_mode": "public_doh", "doh_url": "https://1.1.1.1/dns-query",
                                                    "log_level": "debug"}), PROVIDER_TYPES)
    assert (loaded.spec("fake").dns_mode, loaded.spec("fake").doh_url) == ("public_doh", "https://1.1.1.1/dns-query")
    assert (loaded.spec("t").dns_mode, loaded.spec("t").doh_url) == ("system", None)
    assert loaded.spec("t").log_level == "debug"


def test_the_configuration_hash_never_sees_a_credential(monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "first-secret")
    first = parse_provider_config(config(fake()), PROVIDER_TYPES).redacted_sha256()
    monkeypatch.setenv("FAKE_KEY", "second-secret")
    assert parse_provider_config(config(fake()), PROVIDER_TYPES).redacted_sha256() == first
    changed = fake(options={"base_url": "http://127.0.0.1:2", "api_key": "${FAKE_KEY}"})
    assert parse_provider_config(config(changed), PROVIDER_TYPES).redacted_sha256() != first


def test_placeholders_expand_from_the_environment_and_redact_every_encoding():
    env = {"KEY": "ab/c+d=e f", "OTHER": "zzz"}
    assert expand({"h": ["Bearer ${KEY}", "${OTHER}-${OTHER}"]}, env) == {"h": ["Bearer ab/c+d=e f", "zzz-zzz"]}
    redactor = Redactor.from_environment(["KEY"], env)
    for form in ("ab/c+d=e f", "ab%2Fc%2Bd%3De%20f", "ab%2Fc%2Bd%3De+f", "YWIvYytkPWUgZg==", "YWIvYytkPWUgZjo="):
        assert redactor.text(f"x {form} y") == "x [REDACTED] y", form
    assert redactor.bytes(b"key=ab/c+d=e f") == b"key=[REDACTED]"
    assert redactor.headers([("X-Api-Key", "anything"), ("Accept", "ab/c+d=e f")]) == [
        ("X-Api-Key", "[REDACTED]"), ("Accept", "[REDACTED]")]


def test_identifiers_declared_not_secret_are_left_out_of_redaction_and_checked(monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-secret-key")
    monkeypatch.setenv("FAKE_ZONE", "harbour")
    zoned = fake(options={"base_url": "http://127.0.0.1:1/${FAKE_ZONE}", "api_key": "${FAKE_KEY}"},
                 not_secret=["FAKE_ZONE"])
    spec = parse_provider_config(config(zoned), PROVIDER_TYPES).spec("fake")
    assert spec.credential_variables() == ["FAKE_ZONE", "FAKE_KEY"] and spec.secret_variables() == ["FAKE_KEY"]
    assert Redactor.from_environment(spec.secret_variables()).text("harbour sk-secret-key") == "harbour [REDACTED]"
    with pytest.raises(ConfigError, match="not_secret names 'FAKE_REGION', which no option uses"):
        parse_provider_config(config({**zoned, "not_secret": ["FAKE_REGION"]}), PROVIDER_TYPES)
    with pytest.raises(ConfigError, match="not_secret names 'FAKE_KEY', but the credential option 'api_key' uses it"):
        parse_provider_config(config({**zoned, "not_secret": ["FAKE_KEY"]}), PROVIDER_TYPES)


def test_the_example_declares_its_zone_and_account_id_not_secret():
    example = load_config(EXAMPLE)
    assert example.spec("brightdata").not_secret == ["BRIGHTDATA_UNLOCKER_ZONE"]
    assert example.spec("cloudflare-markdown").not_secret == ["CLOUDFLARE_ACCOUNT_ID"]
    assert "BRIGHTDATA_API_TOKEN" in example.spec("brightdata").secret_variables()
