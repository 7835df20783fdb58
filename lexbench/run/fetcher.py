"""A user's own fetcher, scored from the user's own test (SPEC §1, issue 20)::

    def test_my_fetcher(lexbench_case, fetch_timeout):
        answer = my_fetch(lexbench_case.url, timeout=fetch_timeout)
        lexbench.assert_passes(lexbench_case, answer)

:class:`CaseTarget` is what the ``lexbench_case`` fixture gives: one case of the selected suite plus the
URL to fetch. :func:`assert_passes` turns the answer into a :class:`~lexbench.answer.ProviderResult`
(its format sniffed as the scorer sniffs an undeclared one), scores it with the real scorer under its
budget and makes the verdict the test's outcome. The pytest plugin records the row; nothing here needs
pytest except the skip of an ``unresolvable`` verdict, imported at that edge.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.answer import ErrorType, ProviderResult
from lexbench.dataset.case import Case
from lexbench.dataset.suite import Suite
from lexbench.providers.call import MAX_BODY_BYTES
from lexbench.verdict import Outcome, Verdict

FORMATS = ("html", "markdown", "text")
"""The answer formats the scorer reads (:func:`lexbench.scoring.view.project`)."""

_MEASURE_CHUNK = 1_000_000
"""Characters encoded at a time when measuring an answer, so measuring never copies the whole of it."""

AnswerSink = Callable[[ProviderResult, Verdict, float], Verdict | None]
"""Receives a scored answer: the result, its verdict and ``time.perf_counter()`` when it was handed in;
returns the verdict as it may be shown (its credentials masked), or ``None`` to show it as it is."""


class VerdictFailure(AssertionError):
    """A ``fail`` verdict as a test failure; ``str()`` is the verdict's explanation, ``verdict`` the
    whole :class:`~lexbench.verdict.Verdict`. pytest shows the explanation without a traceback."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.explanation)
        self.verdict = verdict


class CaseTarget:
    """One case of the selected suite as a user's test receives it (the ``lexbench_case`` fixture).

    ``url`` is what a network fetcher fetches: the loopback replay server's URL of the frozen page
    (``--live``: the case's original URL), resolved on first read, so a test that never reads it
    starts no server. ``case`` is the :class:`~lexbench.dataset.case.Case`; its other fields read
    through (``lexbench_case.id``, ``.category``, ``.lang``...), except ``url``: the case's own URL,
    its identity in the suite, is ``original_url``.
    """

    def __init__(self, case: Case, url: str | Callable[[], str], *, sink: AnswerSink | None = None) -> None:
        self.case = case
        self._url = url
        self._sink = sink

    @property
    def url(self) -> str:
        """The URL to fetch: the replay server's URL of the frozen page (``--live``: the original URL);
        the replay server starts on the first read."""
        if callable(self._url):
            self._url = self._url()
        return self._url

    @property
    def served_url(self) -> str | None:
        """The URL this test was handed, once it read :attr:`url`; ``None`` before (nothing was fetched
        from it). The scorer reads links under it as the case's own (SPEC §7)."""
        return self._url if isinstance(self._url, str) else None

    @property
    def original_url(self) -> str:
        """The case's own URL, the page as it was captured (SPEC §2)."""
        return self.case.url

    def __getattr__(self, name: str) -> Any:
        case = self.__dict__.get("case")
        if case is None or name.startswith("_"):
            raise AttributeError(name)
        return getattr(case, name)

    def __repr__(self) -> str:
        return f"CaseTarget({self.case.id!r})"


@dataclass(frozen=True)
class BenchmarkRun:
    """The open run a session records (the ``lexbench_run`` fixture): ``directory`` holds the run record
    (``results.jsonl``, ``manifest.json``, reports; SPEC §6), ``suite`` the selected suite, ``live``
    whether cases are fetched from their original URLs, ``providers`` the selected configured providers
    and ``fetch_timeout_s`` the deadline of one physical call, in seconds."""

    directory: Path
    suite: Suite
    live: bool
    providers: tuple[str, ...]
    fetch_timeout_s: float


def answer_result(answer: str | ProviderResult, format: str | None = None) -> ProviderResult:
    """``answer`` as a result: a string is a successful answer in ``format`` (``"html"``,
    ``"markdown"`` or ``"text"``; sniffed with :func:`~lexbench.scoring.projection.sniff_format` when
    ``None``); a :class:`ProviderResult` is kept, its ``content_format`` set to ``format`` when given.
    Raises ``TypeError`` for another type and ``ValueError`` for another format. An answer over the
    body ceiling is the ``too_large`` failure :func:`oversized` gives, not sniffed."""
    if format is not None and format not in FORMATS:
        raise ValueError(f"format={format!r}: the scorer reads {', '.join(FORMATS)}; omit it to sniff the format")
    too_large = oversized(answer)
    if too_large is not None:
        return too_large
    if isinstance(answer, ProviderResult):
        return answer if format is None else answer.model_copy(update={"content_format": format})
    if isinstance(answer, str):
        from lexbench.scoring.projection import sniff_format  # the scorer loads with the first answer, not with pytest

        return ProviderResult(success=True, content=answer, content_format=format or sniff_format(answer))
    hint = "; decode the bytes to str first" if isinstance(answer, (bytes, bytearray)) else ""
    raise TypeError(f"the answer must be a str or a lexbench.ProviderResult, not {type(answer).__name__}{hint}")


def utf8_size(text: str) -> int:
    """The size of ``text`` in UTF-8 bytes (a lone surrogate counts its 3 bytes), measured a chunk at a
    time so that a large answer is not copied whole."""
    if text.isascii():
        return len(text)
    return sum(len(text[start:start + _MEASURE_CHUNK].encode("utf-8", "surrogatepass"))
               for start in range(0, len(text), _MEASURE_CHUNK))


def oversized(answer: str | ProviderResult) -> ProviderResult | None:
    """The ``too_large`` failure of an answer whose content passes :data:`MAX_BODY_BYTES` in UTF-8 bytes
    (the ceiling a built-in provider's body meets, SPEC §5), keeping a result's timing and metadata;
    ``None`` when it fits, or for a type :func:`answer_result` refuses."""
    content = answer.content if isinstance(answer, ProviderResult) else answer
    if not isinstance(content, str) or len(content) * 4 <= MAX_BODY_BYTES:  # 4: UTF-8's widest character
        return None
    size = utf8_size(content)
    if size <= MAX_BODY_BYTES:
        return None
    message = f"the answer is {size:,} bytes, over the {MAX_BODY_BYTES:,}-byte ceiling; not scored"
    if isinstance(answer, ProviderResult):
        return ProviderResult.failure(ErrorType.TOO_LARGE, message, final_url=answer.final_url,
                                      metadata=answer.metadata, latency_s=answer.latency_s, attempts=answer.attempts)
    return ProviderResult.failure(ErrorType.TOO_LARGE, message)


def timed(result: ProviderResult, elapsed_s: float) -> ProviderResult:
    """``result`` with ``latency_s`` = ``elapsed_s`` (seconds, floored at 0), unless it carries its own
    (a positive ``latency_s``, as :func:`lexbench.providers.call_provider` measures)."""
    return result if result.latency_s > 0 else result.model_copy(update={"latency_s": max(elapsed_s, 0.0)})


def assert_passes(case: CaseTarget | Case, answer: str | ProviderResult, *, format: str | None = None) -> Verdict:
    """Score ``answer`` for ``case`` and make the verdict the test's outcome (SPEC §3).

    ``answer``: the fetched page as a string (its ``format`` given, or sniffed: html, markdown or text)
    or a :class:`~lexbench.answer.ProviderResult`. It is scored by the benchmark's scorer under its time
    and memory budget, as every built-in provider's answer is; a ``CaseTarget`` from ``lexbench_case``
    also hands it to the run record. Returns the verdict when it passes; raises
    :class:`VerdictFailure` (an ``AssertionError``) with the explanation when it fails; skips the test
    (``pytest.skip``) with the reason when it is unresolvable. Raises ``TypeError``/``ValueError`` for
    an answer or format it cannot score. An answer over :data:`~lexbench.providers.call.MAX_BODY_BYTES`
    UTF-8 bytes is not scored: it fails ``too_large``, as a built-in provider's body does.
    """
    received = time.perf_counter()
    target = case if isinstance(case, CaseTarget) else None
    plain = target.case if target is not None else case
    if not isinstance(plain, Case):
        raise TypeError(f"case must be the lexbench_case fixture (or a lexbench Case), not {type(case).__name__}")
    result = answer_result(answer, format)
    from lexbench.scoring.budget import score_within_budget  # loaded by answer_result's sniffing or here, once

    verdict = score_within_budget(plain, result, served_url=target.served_url if target is not None else None)
    if target is not None and target._sink is not None:
        shown = target._sink(result, verdict, received)  # what the test shows passes the session's redactor
        verdict = verdict if shown is None else shown
    if verdict.outcome is Outcome.FAIL:
        raise VerdictFailure(verdict)
    if verdict.outcome is Outcome.UNRESOLVABLE:
        import pytest  # the one pytest edge: an unresolvable verdict is a skip with its reason

        pytest.skip(verdict.explanation)
    return verdict
