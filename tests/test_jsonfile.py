"""decode_json refuses what json.loads lets through (lone surrogates, deep nesting), wherever it sits;
the fast path that skips the string walk (issue 10) must not let any of them through."""

from __future__ import annotations

import pytest

from lexbench.jsonfile import MAX_DEPTH, InvalidJson, decode_json


@pytest.mark.parametrize("text", [
    '"\\ud800"', '["ok", {"a": ["x", "\\uDFFF"]}]', '{"\\ud83d": 1}', '{"a": {"b": "tail \\udc00"}}',
    '"\ud800"',  # text (not bytes) that already holds a surrogate
])
def test_a_lone_surrogate_anywhere_is_refused(text: str) -> None:
    with pytest.raises(InvalidJson, match="lone surrogate"):
        decode_json(text)


@pytest.mark.parametrize("text, value", [
    ('"\\ud83d\\ude00"', "\U0001F600"), ('{"k": ["\\\\ud800 is written escaped"]}', {"k": ["\\ud800 is written escaped"]}),
    ("42", 42), ("null", None), ('"plain"', "plain"), ('{"é": ["ü", 1.5]}', {"é": ["ü", 1.5]}),
])
def test_valid_documents_decode(text: str, value: object) -> None:
    assert decode_json(text) == value
    assert decode_json(text.encode("utf-8")) == value


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a":', "}")])
def test_nesting_deeper_than_the_limit_is_refused(opener: str, closer: str) -> None:
    assert decode_json(opener * MAX_DEPTH + "1" + closer * MAX_DEPTH) is not None
    with pytest.raises(InvalidJson, match="nested too deeply"):
        decode_json(opener * (MAX_DEPTH + 1) + "1" + closer * (MAX_DEPTH + 1))
