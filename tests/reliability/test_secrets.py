"""Secret canary over the whole example configuration (issue 11, SPEC §5): every credential variable
of every provider configured in ``providers/providers.example.json`` gets its own secret; each hosted
provider runs in a real ``pytest -n 2 --live`` session against its loopback fake (which echoes the
key back in pages and error bodies, as a careless service might) and against a hostile echo server
that repeats every header, query and body it receives, and each value it was sent in every encoding
(letter case, percent escapes in either case, base64 of the value and of its wrappings and of the whole
request, hex, JSON and PHP escapes, HTML entities); debug logging, JUnit XML with all captured logs and
``-rA`` are on. Then every byte the run wrote — run directory (results, responses, debug exchanges,
reports, manifest), JUnit XML, pytest's output — is searched for each secret by
:mod:`tests.reliability.leaks`, which decodes whatever it finds and knows nothing of the redactor.
Variables a provider declares ``not_secret`` (a zone, an account id) are identifiers, not searched for.
Providers added to the example configuration are covered without touching this test.

No request leaves the machine: every provider's ``base_url`` points at a loopback fake, and the run's
network backend refuses any address but 127.0.0.1.
"""

from __future__ import annotations

import base64
import html
import json
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, quote_plus, urlsplit

import pytest

from lexbench.providers import PROVIDER_TYPES, load_config
from tests.providers.servers import LoopbackServer, send
from tests.reliability.leaks import leaks, written_files
from tests.suite_factory import ARTICLES, PUBLIC_BASE, write_suite


pytestmark = pytest.mark.attack(item=1)


REPO = Path(__file__).resolve().parents[2]
EXAMPLE = load_config(REPO / "providers" / "providers.example.json")
CREDENTIAL_VARIABLES = sorted({name for spec in EXAMPLE.providers for name in spec.credential_variables()})
SECRET_VARIABLES = sorted({name for spec in EXAMPLE.providers for name in spec.secret_variables()})
HOSTED = [spec for spec in EXAMPLE.providers if PROVIDER_TYPES[spec.type].family == "hosted"]
# Case URLs end in the fakes' scenario names: each service answers success, auth failure and its own
# error (the hostile echo: a 500 whose body is the echo), through the adapter's success and error paths.
SCENARIOS = ["success", "auth", "service-error"]
CONFTEST = '''
import httpcore

_connect = httpcore.AnyIOBackend.connect_tcp


async def _loopback_only(self, host, port, *args, **kwargs):
    if host != "127.0.0.1":  # the canary run talks to its loopback fakes and to nothing else
        raise httpcore.ConnectError(f"secret canary: refusing {host}:{port}")
    return await _connect(self, host, port, *args, **kwargs)


httpcore.AnyIOBackend.connect_tcp = _loopback_only
'''


def secret_for(name: str) -> str:
    """A unique value per variable and run, with the bytes URL and base64 encodings change."""
    return f"sk-{name.lower().replace('_', '-')}/Canary+{secrets.token_hex(6)}=="


def forms(secret: str) -> set[str]:
    """The plain encodings of a secret, to show it did go out to the services (not a leak search)."""
    raw = secret.encode()
    found = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret), json.dumps(secret)[1:-1]}
    for data in (raw, raw + b":"):
        for encoded in (base64.b64encode(data), base64.urlsafe_b64encode(data)):
            found |= {encoded.decode(), encoded.decode().rstrip("=")}
    return found


def encodings(value: str) -> list[str]:
    """``value`` the ways a careless service might echo it."""
    raw = value.encode()
    wrapped = [raw, b"Bearer " + raw, raw + b":", b"user:" + raw, b"xy" + raw + b"z"]
    out = [value.upper(), value.lower(), quote(value, safe=""), quote(value, safe="").lower(), quote_plus(value),
           raw.hex(), raw.hex().upper(), "".join(f"\\u{ord(c):04x}" for c in value), json.dumps(value)[1:-1].replace("/", "\\/"),
           "".join(f"&#{ord(c)};" for c in value), "".join(f"&#x{ord(c):X};" for c in value),
           html.escape(value).replace("/", "&sol;").replace("+", "&plus;").replace("=", "&equals;")]
    for data in wrapped:
        out += [base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode().rstrip("=")]
    return out


def sent_values(h, body: bytes) -> list[str]:  # type: ignore[no-untyped-def]
    """Every header value, query value and JSON body string of a request: where a credential travels."""
    values = [v for k, v in h.headers.items() if k.lower() not in ("host", "content-length")]
    values += [v for pairs in parse_qs(urlsplit(h.path).query).values() for v in pairs]
    values += [token for v in list(values) for token in v.split()[1:]]  # "Bearer KEY" → KEY

    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        return [s for v in value for s in strings(v)] if isinstance(value, list) else []

    try:
        values += strings(json.loads(body))
    except ValueError:
        pass
    return values


_HOST = PUBLIC_BASE.removeprefix("https://")


def hostile_echo() -> LoopbackServer:
    """Answers whatever it is asked with everything it was sent: headers, query and body, raw and
    base64. The case URL's last segment picks the answer: a 200 JSON echo in every field a service
    might use, a 401 or a 500 text echo."""

    def handle(h, server):  # type: ignore[no-untyped-def]
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        received = f"{h.command} {h.path}\n" + "".join(f"{k}: {v}\n" for k, v in h.headers.items()) + body.decode(
            "utf-8", "replace")
        encoded = [form for value in sent_values(h, body) for form in encodings(value)]
        echo = "\n".join([received, base64.b64encode(received.encode()).decode(),
                          base64.urlsafe_b64encode(received.encode()).decode(), *encoded])
        scenario = next((s for s in SCENARIOS if f"{_HOST}/{s}" in received or f"{_HOST}%2F{s}" in received),
                        "success")
        headers = {"X-Echo": h.headers.get("Authorization", "none").replace("\n", " "),
                   "X-Request-Id": (h.headers.get("Authorization") or "none")[-60:]}
        if scenario == "auth":
            send(h, 401, json.dumps({"error": echo}).encode(), "application/json", headers)
        elif scenario == "service-error":
            send(h, 500, echo.encode(), "text/plain; charset=utf-8", headers)
        else:
            item = {key: echo for key in ("markdown", "content", "text", "html", "raw_content", "title", "error")}
            payload = {"success": True, "status": 200, "code": 200, "request_id": echo[:80], **item,
                       "data": {**item, "metadata": {"statusCode": 200, "title": echo}},
                       "results": [{**item, "url": f"{PUBLIC_BASE}/success", "status": "success"}],
                       "statuses": [{"id": f"{PUBLIC_BASE}/success", "status": "success"}]}
            send(h, 200, json.dumps(payload).encode(), "application/json", headers)

    return LoopbackServer(handle)


def test_the_example_configuration_has_credentials_to_guard() -> None:
    """The canary is only as good as the configuration it reads: hosted providers with placeholders."""
    assert HOSTED and CREDENTIAL_VARIABLES
    assert all(spec.credential_variables() for spec in HOSTED if spec.type != "jina-reader")


@pytest.mark.slow
def test_no_secret_of_any_configured_provider_reaches_any_byte_the_run_writes(pytester, monkeypatch) -> None:
    from tests.providers import hosted_fakes

    values = {name: secret_for(name) for name in CREDENTIAL_VARIABLES}
    secret_values = {name: values[name] for name in SECRET_VARIABLES}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    articles = [dict(ARTICLES[i % 2], slug=scenario) for i, scenario in enumerate(SCENARIOS)]
    suite = write_suite(pytester.path / "suite", articles, url_base=PUBLIC_BASE)

    servers: dict[str, LoopbackServer] = {}
    providers: list[dict[str, Any]] = []
    echo = hostile_echo().__enter__()
    try:
        for spec in HOSTED:
            fake = hosted_fakes.FAKES.get(spec.type)
            base = {"type": spec.type, "log_level": "debug", "output_contract": spec.output_contract}
            if fake is not None:
                servers[spec.name] = hosted_fakes.serve(spec.type, echo_key=True).__enter__()
                providers.append({**base, "name": spec.name,
                                  "options": {**spec.options, "base_url": fake.base_url(servers[spec.name])}})
            providers.append({**base, "name": f"{spec.name}-echo", "options": {**spec.options, "base_url": echo.url("")}})
        config = pytester.path / "canary.json"
        config.write_text(json.dumps({"schema_version": 1, "default_providers": [p["name"] for p in providers],
                                      "defaults": {"dns_mode": "system", "log_level": "debug"}, "providers": providers}))
        run = pytester.path / "run"
        result = pytester.runpytest_subprocess(
            f"--suite={suite}", f"--provider-config={config}", "--providers=configured", "--live", f"--run-dir={run}",
            f"--junitxml={pytester.path / 'junit.xml'}", "-o", "junit_logging=all", "--log-level=DEBUG", "-rA",
            "-n", "2")
        received = [json.dumps(r, default=str) for server in [echo, *servers.values()] for r in server.requests]
        received += [f"{method} {path}" for server in [echo, *servers.values()] for method, path in server.hits]
    finally:
        for server in [echo, *servers.values()]:
            server.__exit__(None, None, None)

    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(providers) * len(SCENARIOS), result.stdout.str()[-3000:]
    assert list((run / "debug").rglob("*.json")), "debug logging must really have run"
    sent = [name for name, value in secret_values.items() if any(f in text for text in received for f in forms(value))]
    # every secret variable went out to its own service (two providers may share one: zyte and zyte-html)
    assert sorted(sent) == SECRET_VARIABLES, "the secrets must really have gone out, where they belong"

    haystacks = written_files(pytester.path, skip=("canary.json", "conftest.py"))
    haystacks["pytest stdout"], haystacks["pytest stderr"] = result.stdout.str().encode(), result.stderr.str().encode()
    assert any(b"[REDACTED]" in data for data in haystacks.values()), "the echoes must have been masked somewhere"
    found = leaks(haystacks, secret_values)
    assert found == [], f"{len(found)} leak(s): {found[:10]}"
