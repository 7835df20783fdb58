"""Every encoding a careless service might echo a credential in is masked (issue 19, SPEC §5), as judged
by :mod:`tests.reliability.leaks`, a decoder that knows nothing of the redactor. The whole-run canary
(``test_secrets.py``) covers the same forms end to end; this one names the form that leaks."""

from __future__ import annotations

import base64
import json
import textwrap
from urllib.parse import quote

import pytest

from lexbench.providers.credentials import Redactor
from tests.reliability.leaks import leaks
from tests.reliability.test_secrets import encodings


pytestmark = pytest.mark.attack(item=1)


KEY = "sk-live/Canary+7Qx9=="

NAMED_ENTITIES = KEY.replace("/", "&sol;").replace("+", "&plus;").replace("=", "&equals;")


def request_echo(key: str) -> str:
    """Base64 of a whole request carrying the key in its query, its Authorization header and its body."""
    request = f"GET /v1/scrape?api_key={quote(key, safe='')} HTTP/1.1\r\nAuthorization: Bearer {key}\r\n\r\n" \
              f'{{"key": "{key}"}}'
    return base64.b64encode(request.encode()).decode()


FORMS = {f"echo-{i}": form for i, form in enumerate(encodings(KEY))} | {
    **{f"base64-at-byte-offset-{n}": base64.b64encode(b"x" * n + KEY.encode() + b"tail").decode() for n in range(3)},
    "base64-glued-to-a-word": "token" + base64.b64encode(b"Bearer " + KEY.encode()).decode(),
    "base64-of-a-request": request_echo(KEY),
    "base64-of-base64": base64.b64encode(base64.b64encode(KEY.encode())).decode(),
    "hex-of-upper-case": KEY.upper().encode().hex(),
    "percent-of-base64": quote(base64.b64encode(b"user:" + KEY.encode()).decode(), safe=""),
    # echo lines inside a JSON string: "\n" is no whitespace, so the forms make one token
    "escapes-glued-in-json-text": "\\n".join([NAMED_ENTITIES, quote(KEY, safe="")]),
    "query-value": f"https://api.example/v1?url=https%3A%2F%2Fsite.example&key={quote(KEY, safe='')}&x=1",
    # MIME and PEM bodies wrap base64 every 76 or 64 characters: here the key's encoding spans a break
    "base64-wrapped-at-76-across-a-break": base64.encodebytes(b"x" * 40 + b"Bearer " + KEY.encode() + b" tail" * 9).decode(),
    "base64-wrapped-at-64-crlf": "\r\n".join(textwrap.wrap(base64.b64encode(b"y" * 30 + KEY.encode() + b"z" * 60).decode(), 64)),
    "base64-wrapped-in-a-json-string": json.dumps(base64.encodebytes(b"x" * 40 + KEY.encode() + b" tail" * 9).decode())[1:-1],
    # HTML numeric references need no ";" when the next character cannot continue them
    "html-numeric-references-without-semicolons": "".join(f"&#x{ord(c):x}" if n % 2 else f"&#{ord(c)}" for n, c in enumerate(KEY)),
}


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_an_echoed_credential_is_masked_in_every_encoding(form):
    text = f"The page said: {form} (end)."
    assert leaks({"unredacted": text.encode()}, {"key": KEY}) != []  # the form really holds the key
    redacted = Redactor([KEY]).text(text)
    assert leaks({"redacted": redacted.encode()}, {"key": KEY}) == [], redacted
    assert redacted.startswith("The page said: ") and redacted.endswith(" (end).") and "[REDACTED]" in redacted


def test_text_that_holds_no_credential_is_left_as_it_was():
    text = ("A harbour town; token " + base64.b64encode(b"an ordinary payload of bytes").decode()
            + " hex " + b"an ordinary payload".hex() + " url https://a.example/?q=caf%C3%A9&x=%2F &amp; &#233;")
    assert Redactor([KEY]).text(text) == text


def test_a_query_string_keeps_its_other_parameters():
    redacted = Redactor([KEY]).text(FORMS["query-value"])
    assert redacted == "https://api.example/v1?url=https%3A%2F%2Fsite.example&key=[REDACTED]&x=1"


@pytest.mark.slow
def test_an_error_excerpt_never_cuts_a_credential_in_half(monkeypatch):
    """An API error quoted in the message is cut at 200 characters; a key straddling the cut is masked
    first, or its first half would be written where the redactor can no longer recognise it."""
    from lexbench.providers import RuntimePolicy, call_provider
    from lexbench.providers.hosted.brightdata import BrightDataUnlocker
    from lexbench.providers.http import HttpBoundary
    from tests.providers.servers import LoopbackServer, send
    from tests.scoring.factories import make_case

    monkeypatch.setenv("LEXBENCH_EXCERPT_KEY", KEY)
    monkeypatch.setenv("LEXBENCH_EXCERPT_ZONE", "zone")

    def handle(h, server):  # type: ignore[no-untyped-def]
        h.rfile.read(int(h.headers.get("Content-Length") or 0))
        send(h, 500, ("x" * 190 + " " + KEY + " and more").encode(), "text/plain")

    with LoopbackServer(handle) as api:
        provider = BrightDataUnlocker("brightdata", {"base_url": api.url(""), "api_key": "${LEXBENCH_EXCERPT_KEY}",
                                                     "zone": "${LEXBENCH_EXCERPT_ZONE}"}, http=HttpBoundary())
        result = call_provider(provider, make_case(), "https://site.example/page", RuntimePolicy(retries=0))
    assert "HTTP 500" in result.error_message and KEY[:8] not in provider.redactor().text(result.error_message)
