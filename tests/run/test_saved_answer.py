"""The answer as it is written (SPEC §5, §6): redacted once, where the run saves it, with its sha256 and
size taken from what was saved — for a 20 MB answer as for a short one."""

from __future__ import annotations

import base64
import hashlib
import json
from urllib.parse import quote

import pytest

from lexbench.answer import Attempt, ErrorType, ProviderResult, ResultMetadata
from lexbench.dataset.suite import load_suite
from lexbench.providers.credentials import Redactor
from lexbench.run.record import count_tokens
from lexbench.run.row import RowContext
from lexbench.run.session import scored_row
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict
from tests.suite_factory import ARTICLES, write_suite

SECRET = "sk-live-4f3e2d1c0b9a8877"
MASK = "[REDACTED]"
CONTEXT = RowContext(suite="tiny", provider="hosted", output_contract="cleaned", dataset_sha256=None,
                     configuration_sha256=None)


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES[:1]))).cases[0]


def test_a_secret_inside_a_20_mb_answer_is_masked_in_the_saved_response_and_the_row(case, tmp_path):
    page = "The harbour authority said the breakwater cut the swell by half. " * 103_000  # 6.7 MB
    leaks = [SECRET, base64.b64encode(f"Bearer {SECRET}".encode()).decode(), quote(f"key={SECRET}&x=1", safe="")]
    parts = [page, leaks[0], " ", page, " ", leaks[1], " ", page, " ", leaks[2]]
    content = "".join(parts)
    assert len(content) > 20_000_000
    answer = ProviderResult(
        success=False, content=content, content_format="markdown", error_type=ErrorType.SERVICE_ERROR,
        error_message=f"the service echoed the key {SECRET}",
        metadata=ResultMetadata(request_id=SECRET, billing={"account": SECRET}),
        attempts=[Attempt(latency_s=0.5, error_type=ErrorType.SERVICE_ERROR, error_message=f"bad key {SECRET}")])
    redactor = Redactor([SECRET])
    shown = redactor.result(Verdict(  # as the item redacts it before showing and writing it
        outcome=Outcome.FAIL, failure_class="service_error", explanation=f"fail: the service echoed {SECRET}",
        components=[ComponentResult(name=Component.CALL, passed=False, evidence=f"echoed {SECRET}",
                                    details=[{"quote": SECRET}])]))

    row = scored_row(tmp_path, CONTEXT, case, answer, shown, redactor)

    saved = (tmp_path / "responses" / f"{row.response_sha256}.txt").read_bytes()
    expected = "".join(MASK if part in leaks else part for part in parts)  # each leak masked whole, the page kept
    assert saved == expected.encode()
    assert hashlib.sha256(saved).hexdigest() == row.response_sha256
    written = row.model_dump_json()
    assert SECRET not in written and leaks[1] not in written
    assert row.error_message == f"the service echoed the key {MASK}"
    assert row.attempts[0].error_message == f"bad key {MASK}"
    assert row.metadata.request_id == MASK and row.metadata.billing == {"account": MASK}
    assert json.loads(written)["components"][0]["details"] == [{"quote": MASK}]
    # Sizes are the answer's as the provider gave it, as before redaction.
    assert row.content_chars == len(content) and row.content_tokens == count_tokens(content)
    assert answer.content == content and answer.error_message.endswith(SECRET)  # the scorer's answer untouched


def test_an_answer_without_a_secret_is_saved_as_given(case, tmp_path):
    content = "# Title\n\nBody text, twice. Body text, twice.\n"
    answer = ProviderResult(success=True, content=content, content_format="markdown")
    row = scored_row(tmp_path, CONTEXT, case, answer, Verdict(outcome=Outcome.PASS, explanation="pass"),
                     Redactor([SECRET]))
    assert (tmp_path / "responses" / f"{row.response_sha256}.txt").read_text() == content
    assert row.content_tokens == count_tokens(content) == 12 and row.content_chars == len(content)
