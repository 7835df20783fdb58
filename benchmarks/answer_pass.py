"""Figure 6: a 20 MB answer's pass from the provider's return to its saved row (issue 18), scoring aside.

The pass is what an item does with an answer besides scoring it (figures 1a and 1c measure that):
``call_and_assess`` (the runtime policy, with a provider that returns the answer at once), the verdict
redacted, then :func:`lexbench.run.session.scored_row` — the answer redacted where it is written, saved
under ``responses/`` with its sha256 and token count — and the row as JSON.

- **6a** With a credential (a hosted provider: every string is searched for it; the answer holds none,
  the usual case), the pass takes at most 1.2× what it cannot avoid doing once: one redaction pass over
  the answer and one save of it (``Redactor.text`` + ``save_response``), measured in turn with it. The
  redaction is most of both sides.
- **6b** Its peak of traced allocations (``tracemalloc``) stays under 1.5× the answer's size: the answer
  is encoded once to be written, never dumped, validated or split into tokens whole.
- **6c** Without a credential (a local provider: nothing to redact), the pass takes at most 5× one save
  of the answer; counting its tokens is most of the rest.

The detail lines count what reads or copies the whole answer during one pass — copies of the answer's
model (``model_copy``, ``model_dump``/``model_validate``), sha256 and token passes, redaction passes —
and ``assess_call`` calls in one item with scoring (a short answer). Before issue 18 they were 2, 1/1,
1, 1 (a ``split`` into one object per token: 191 MB traced), 1; and 2 (policy and scorer).
"""

from __future__ import annotations

import contextlib
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.common import Figure, fresh_dir, median, paired_rounds, ratios, spread
from benchmarks.projects import write_synthetic_suite

ANSWER_CHARS = 20_000_000
SECRET = "sk-bench-9f8e7d6c5b4a39281706"  # the provider's credential: sought in every string, found in none
PARAGRAPH = ("The harbour authority said on Tuesday that the new breakwater, built over three winters, had "
             "already cut the swell at the inner moorings by half. [Read more](https://example.org/harbour) ")


def answer_text(chars: int = ANSWER_CHARS) -> str:
    """A Markdown answer of exactly ``chars`` characters: a heading and repeated paragraphs."""
    text = "# The harbour\n\n" + "\n\n".join([PARAGRAPH] * (chars // (len(PARAGRAPH) + 2) + 1))
    return text[:chars]


class _Pass:
    """One case and a provider returning ``content`` at once, redacted by ``redactor``; the two sides."""

    def __init__(self, work: Path, content: str, *, credential: bool) -> None:
        from lexbench.answer import ProviderResult
        from lexbench.dataset.suite import load_suite
        from lexbench.providers.base import Provider
        from lexbench.providers.credentials import Redactor
        from lexbench.run.row import RowContext
        from lexbench.verdict import Outcome, Verdict

        class Answering(Provider):
            type_name = "bench-answering"
            needs_network = False

            def fetch(self, case, timeout, url):  # type: ignore[no-untyped-def]
                return answer

        self.work = work
        self.case = load_suite(str(write_synthetic_suite(fresh_dir(work, "suite"), 1))).cases[0]
        answer = ProviderResult(success=True, content=content, content_format="markdown")
        self.answer = answer
        self.provider = Answering(name="answering")
        self.redactor = Redactor([SECRET] if credential else [])
        self.verdict = Verdict(outcome=Outcome.PASS, explanation="pass: the answer holds every region")
        self.context = RowContext(suite="bench", provider="answering", output_contract="cleaned",
                                  dataset_sha256=None, configuration_sha256=None)

    def item(self, *, score: bool = False) -> str:
        """The pass: the call under the runtime policy → (the scorer) → the redacted verdict → the saved
        row, as JSON."""
        from lexbench.providers.policy import RuntimePolicy, call_and_assess
        from lexbench.run.session import scored_row
        from lexbench.scoring.budget import score_within_budget

        result, call = call_and_assess(self.provider, self.case, self.case.url, RuntimePolicy())
        verdict = score_within_budget(self.case, result, call=call) if score else self.verdict
        shown = self.redactor.result(verdict)
        row = scored_row(fresh_dir(self.work, "run"), self.context, self.case, result, shown, self.redactor)
        return row.model_dump_json()

    def floor(self) -> None:
        """What the pass cannot avoid: one redaction pass over the answer (with a credential) and one save."""
        from lexbench.run.record import save_response

        if self.redactor:
            self.redactor.text(self.answer.content)
        save_response(fresh_dir(self.work, "floor"), self.answer.content)


def _seconds(work: Callable[[], Any]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _peak_bytes(work: Callable[[], Any]) -> int:
    """The peak of traced allocations while ``work`` runs, above what was allocated before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@contextlib.contextmanager
def _counted(answer_type: type) -> Iterator[Counter[str]]:
    """Count, while open, what reads or copies the whole answer: wrappers on the functions that can."""
    import hashlib

    from pydantic import BaseModel

    import lexbench.run.record as record
    import lexbench.run.row as row
    import lexbench.run.session as session
    import lexbench.scoring.evaluate as evaluate
    from lexbench.providers import policy
    from lexbench.providers.credentials import Redactor

    counts: Counter[str] = Counter()
    whole = ANSWER_CHARS // 2  # a read of at least half the answer's size is a read of the whole answer
    originals: list[tuple[Any, str, Any]] = []

    def counting(owner: Any, name: str, key: str, applies: Callable[..., bool] = lambda *args: True) -> None:
        function = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        plain = function.__func__ if isinstance(function, classmethod) else function

        def counted(*args: Any, **kwargs: Any) -> Any:
            if applies(*args):
                counts[key] += 1
            return plain(*args, **kwargs)

        originals.append((owner, name, function))
        setattr(owner, name, classmethod(counted) if isinstance(function, classmethod) else counted)

    def the_answer(model: Any, *args: Any) -> bool:
        return isinstance(model, answer_type)

    def large(*args: Any) -> bool:
        return any(isinstance(arg, (str, bytes)) and len(arg) >= whole for arg in args)

    counting(BaseModel, "model_copy", "copies of the answer (model_copy)", the_answer)
    counting(BaseModel, "model_dump", "dumps of the answer (model_dump)", the_answer)
    counting(BaseModel, "model_validate", "validations of an answer (model_validate)",
             lambda cls, *args: issubclass(cls, answer_type))
    counting(policy, "assess_call", "assess_call")
    counting(evaluate, "assess_call", "assess_call")
    counting(hashlib, "sha256", "sha256 passes", large)
    counting(Redactor, "text", "redaction passes over the content", large)
    if hasattr(record, "_ascii_tokens"):  # an ASCII answer is counted there, from the bytes written
        counting(record, "_ascii_tokens", "token passes", large)
    for module in (module for module in (record, row, session) if hasattr(module, "count_tokens")):
        counting(module, "count_tokens", "token passes",
                 lambda text: large(text) and not (hasattr(record, "_ascii_tokens") and text.isascii()))
    try:
        yield counts
    finally:
        for owner, name, function in reversed(originals):
            setattr(owner, name, function)


def answer_pass_figures(work: Path, rounds: int) -> list[Figure]:
    """Figures 6a and 6c (time against what cannot be avoided) and 6b (peak memory against the answer)."""
    from lexbench.answer import ProviderResult

    work.mkdir(parents=True, exist_ok=True)
    content = answer_text()
    with tempfile.TemporaryDirectory(dir=work) as scratch:
        hosted = _Pass(Path(scratch), content, credential=True)
        local = _Pass(Path(scratch), content, credential=False)
        hosted.item()  # warm: imports, the response folder's first creation
        hosted_times = paired_rounds(rounds, lambda: _seconds(hosted.item), lambda: _seconds(hosted.floor))
        local_times = paired_rounds(rounds, lambda: _seconds(local.item), lambda: _seconds(local.floor))
        peak = median([_peak_bytes(hosted.item) for _ in range(max(1, rounds // 2))])
        with _counted(ProviderResult) as counts:
            hosted.item()
        short = _Pass(Path(scratch), answer_text(20_000), credential=True)
        with _counted(ProviderResult) as scored:
            short.item(score=True)
    counted = ", ".join(f"{name} {number}" for name, number in sorted(counts.items()) if name != "assess_call")
    counts_line = (f"whole-answer reads and copies in one pass: {counted or 'none'}; "
                   f"assess_call in one item with scoring: {scored['assess_call']}")
    size = f"{ANSWER_CHARS / 1e6:g} MB ASCII answer"
    passes, floors = hosted_times
    time_figure = Figure("6a", f"a {size}'s pass to its saved row (credential) / one redaction + one save",
                         median(ratios(passes, floors)), 1.2, "<=",
                         details=[f"pass: {spread(passes)}", f"one redaction + one save: {spread(floors)}",
                                  counts_line, f"{rounds} rounds"])
    memory_figure = Figure("6b", "peak traced memory of that pass / the answer's size", peak / ANSWER_CHARS, 1.5,
                           "<=", details=[f"peak {peak / 1e6:.1f} MB above the answer itself (tracemalloc)"])
    passes, floors = local_times
    local_figure = Figure("6c", f"a {size}'s pass to its saved row (no credential) / one save",
                          median(ratios(passes, floors)), 5.0, "<=",
                          details=[f"pass: {spread(passes)}", f"one save: {spread(floors)}", f"{rounds} rounds"])
    return [time_figure, memory_figure, local_figure]
