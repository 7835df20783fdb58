"""The runtime policy every provider call obeys, enforced here and nowhere else (SPEC §5).

:func:`call_provider` is the one call path: the plugin and the tests call it, never ``fetch`` directly.
Per physical call (an *attempt*) it

- runs ``provider.fetch`` in a fresh worker thread under a watchdog: the deadline is a total one
  (``timeout_s``, default 30 s), enforced inside by the shared HTTP boundary and the bounded subprocess
  runner, and outside by the watchdog, which abandons a worker that has not reported by the deadline
  plus ``grace_s``;
- discards late answers: an answer that arrives after the deadline becomes a ``timeout`` without content;
- never overlaps: a provider whose abandoned worker is still running is quarantined, and its next
  attempt waits for that worker (within its own deadline) instead of starting beside it;
- times the attempt from the call to the return of ``fetch`` — the response and its required decoding —
  and nothing after (scoring and persistence follow);
- retries a failed call once by default (``retries``), keeping every attempt with its own timing,
  statuses and cost; the final attempt supplies the result and the primary latency. Not retried:
  unresolvable setup problems, the harness's own refusals (``blocked_network``, ``too_large``),
  adapter crashes, and a DoH resolution failure (``public_doh`` adds no retry);
- expands credentials only at call time. The result is the provider's answer as given, so the scorer
  judges what the provider answered; whatever is written or printed from it is redacted first
  (``provider.redactor()``), and the boundary's debug log is redacted as it is saved.

Errors a provider reports on purpose are raised as :class:`FetchError` (or returned as failed results);
any other exception becomes a ``crashed`` result and the run continues.

For parallel runs, :func:`worker_cpus` decides whether each xdist worker keeps to a CPU of its own.
"""

from __future__ import annotations

import contextvars
import math
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lexbench.answer import (
    Attempt, CallAssessment, ErrorType, ProviderResult, ResultMetadata, assess_call, mark_upstream_failure,
)
from lexbench.providers.base import Provider
from lexbench.providers.call import CURRENT_CALL, MAX_BODY_BYTES, CallContext, CallTrace, FetchError
from lexbench.providers.credentials import Redactor

if TYPE_CHECKING:
    from lexbench.dataset.case import Case

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_RETRIES = 1
MAX_TIMEOUT_S = 86_400.0
MAX_RETRIES = 100
"""Upper bounds of the per-call timeout and the retry count: an item's backstop timer is
(retries + 1) × timeout, and an absurd product overflows the platform's timer (an INTERNALERROR)."""

# Failures a repeat cannot change: the harness's own refusals, and adapter bugs.
_NOT_RETRIED = frozenset({ErrorType.BLOCKED_NETWORK, ErrorType.TOO_LARGE, ErrorType.CRASHED})


@dataclass(frozen=True)
class RuntimePolicy:
    """Per-call limits (SPEC §5). ``timeout_s``: seconds per physical call, a total deadline;
    ``retries``: extra attempts after a failed call; ``max_body_bytes``: the body/output ceiling;
    ``grace_s``: how long past the deadline the watchdog waits for a worker to report its own timeout
    before abandoning it. Raises ``ValueError`` on a timeout that is not positive and finite (``inf``,
    ``nan``, 0) or above :data:`MAX_TIMEOUT_S`, or on retries outside 0–:data:`MAX_RETRIES`."""

    timeout_s: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    max_body_bytes: int = MAX_BODY_BYTES
    grace_s: float = 0.5

    def __post_init__(self) -> None:
        if not (isinstance(self.timeout_s, int | float) and math.isfinite(self.timeout_s)
                and 0 < self.timeout_s <= MAX_TIMEOUT_S):
            raise ValueError(f"the fetch timeout must be a positive, finite number of seconds up to {MAX_TIMEOUT_S:,.0f} "
                             f"(a day), got {self.timeout_s!r}")
        if not 0 <= self.retries <= MAX_RETRIES:
            raise ValueError(f"retries must be 0 to {MAX_RETRIES}, got {self.retries!r}")

    def as_record(self) -> dict[str, Any]:
        """The policy as the manifest records it."""
        return {"timeout_s": self.timeout_s, "retries": self.retries, "max_body_bytes": self.max_body_bytes}


_QUARANTINE: weakref.WeakKeyDictionary[Provider, threading.Thread] = weakref.WeakKeyDictionary()


class _CallWorker:
    """A daemon thread that runs a provider's calls, one at a time, each in its caller's context.

    Starting a thread per call costs ~0.1 ms on an idle machine and over 0.5 ms on a loaded one, per
    item. A provider's worker is reused while it is idle; a call that finds it busy (calls from several
    threads at once) gets a worker of its own, and a worker whose call was abandoned at its deadline is
    never reused."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[contextvars.Context, Callable[[], None]] | None] = queue.SimpleQueue()
        self.busy = False
        self.thread = threading.Thread(target=self._serve, daemon=True, name=name)
        self.thread.start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            context, work = job
            try:
                context.run(work)
            finally:
                self.busy = False

    def submit(self, context: contextvars.Context, work: Callable[[], None]) -> None:
        self._jobs.put((context, work))

    def stop(self) -> None:
        """End the thread after the job it is running (if any)."""
        self._jobs.put(None)


_WORKERS: weakref.WeakKeyDictionary[Provider, _CallWorker] = weakref.WeakKeyDictionary()
_WORKERS_LOCK = threading.Lock()


def _worker_for(provider: Provider) -> tuple[_CallWorker, bool]:
    """An idle worker for ``provider``, marked busy, and whether it is a one-off (to stop after its call)."""
    with _WORKERS_LOCK:
        worker = _WORKERS.get(provider)
        one_off = False
        if worker is None or not worker.thread.is_alive():
            worker = _WORKERS[provider] = _CallWorker(f"lexbench-call-{provider.name}")
            weakref.finalize(provider, worker.stop)
        elif worker.busy:
            worker, one_off = _CallWorker(f"lexbench-call-{provider.name}-extra"), True
        worker.busy = True
        return worker, one_off


def call_provider(provider: Provider, case: Case, url: str, policy: RuntimePolicy | None = None) -> ProviderResult:
    """Call ``provider`` for ``case`` at ``url`` under ``policy`` (default: 30 s, one retry) (SPEC §5).

    Returns the final attempt's result with ``attempts`` (every physical call, in order), ``latency_s``
    (the final attempt's seconds), ``metadata.cost_total`` (sum of known attempt costs), the boundary's
    ``dns_mode``/``resolutions``/``redirects``, and ``metadata.peak_memory_bytes`` with
    ``memory_sampled_every_s`` when the final attempt ran an engine or worker process. The result is not
    redacted (the scorer sees what the provider answered): redact with ``provider.redactor()`` before
    writing or printing any of it. A provider with no route for the case's delivery makes no call:
    ``unsupported_delivery`` (unresolvable, SPEC §2); nor does one whose credential variables are unset:
    ``missing_credentials``. Never raises for a provider failure or bug.
    """
    return call_and_assess(provider, case, url, policy)[0]


def call_and_assess(provider: Provider, case: Case, url: str,
                    policy: RuntimePolicy | None = None) -> tuple[ProviderResult, CallAssessment]:
    """:func:`call_provider`, and the final result's :func:`~lexbench.answer.assess_call`: the retry
    decision already assessed it, and the scorer takes it from here
    (``evaluate_response(case, result, call=...)``) instead of assessing the call again."""
    policy = policy or RuntimePolicy()
    refusal = provider.delivery_refusal(case)
    if refusal is not None:  # no route for the task's delivery: refused before any call, never a fail (SPEC §2)
        result = ProviderResult.failure(ErrorType.UNSUPPORTED_DELIVERY, refusal)
        return result, assess_call(result)
    missing = provider.missing_credentials()
    if missing:
        names = ", ".join(missing)
        result = ProviderResult.failure(
            ErrorType.MISSING_CREDENTIALS,
            f"{provider.name}: credential variable(s) {names} unset or empty; export them (or add them to the "
            "environment CI passes) and rerun",
        )
        return result, assess_call(result)

    attempts: list[Attempt] = []
    result: ProviderResult | None = None  # built only if no attempt is made: a model costs ~0.1 ms
    assessment: CallAssessment | None = None  # of ``result``, as it stands
    trace = CallTrace()
    redactor = provider.redactor()  # for the boundary's debug log and credential checks
    for number in range(1, policy.retries + 2):
        try:
            provider.prepare()  # untimed: start workers, preflight
        except Exception as exc:
            result = ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"{provider.name} could not be prepared: {_describe(exc)}")
            assessment = None
            break
        result, trace, late, latency_s = _attempt(provider, case, url, policy, number, redactor)
        result = mark_upstream_failure(result)
        attempts.append(_attempt_record(result, trace, late, latency_s))
        assessment = assess_call(result)
        if assessment.ok or assessment.outcome.value == "unresolvable" or result.error_type in _NOT_RETRIED:
            break
        if result.error_type is ErrorType.DNS and trace.dns_mode == "public_doh":
            break  # a DoH failure adds no retry (and never falls back to system DNS)
    if result is None:
        result = ProviderResult.failure(ErrorType.CRASHED, "no attempt was made")
    if assessment is None:
        assessment = assess_call(result)

    costs = [a.cost for a in attempts if a.cost is not None]
    final = attempts[-1] if attempts else None
    peak = trace.memory.peak_bytes
    metadata = result.metadata.model_copy(update={
        "cost_total": sum(costs) if costs else None,
        "dns_mode": result.metadata.dns_mode or trace.dns_mode,
        "resolutions": result.metadata.resolutions or list(trace.resolutions),
        "redirects": result.metadata.redirects or list(trace.redirects),
        **({} if peak is None else {"peak_memory_bytes": peak, "memory_sampled_every_s": trace.memory.every_s}),
        "containment": result.metadata.containment or trace.containment,
        "blocked_requests": result.metadata.blocked_requests or list(trace.blocked_requests),
    })
    # None of these fields is read by assess_call: the assessment stands for the final result.
    result = result.model_copy(update={
        "attempts": attempts,
        "latency_s": final.latency_s if final is not None else 0.0,
        "metadata": metadata,
    })
    return result, assessment


def _attempt(provider: Provider, case: Case, url: str, policy: RuntimePolicy, number: int,
             redactor: Redactor) -> tuple[ProviderResult, CallTrace, bool, float]:
    """One physical call in a watchdog-supervised worker thread. Returns (result, trace, late, seconds the
    attempt took); the result is the provider's own, not copied to carry its time."""
    context = CallContext(provider=provider.name, case_id=case.id, attempt=number, redactor=redactor)
    stale = _QUARANTINE.get(provider)
    if stale is not None:
        stale.join(policy.timeout_s)
        if stale.is_alive():
            return (ProviderResult.failure(
                ErrorType.TIMEOUT,
                f"{provider.name}: an abandoned earlier call is still running; this call was not started "
                "beside it (quarantined)", latency_s=policy.timeout_s), context.trace, False, policy.timeout_s)
        del _QUARANTINE[provider]

    outcome: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        CURRENT_CALL.set(context)
        start = time.perf_counter()
        try:
            outcome["result"] = provider.fetch(case, policy.timeout_s, url)
        except FetchError as exc:
            outcome["result"] = exc.to_result()
        except Exception as exc:  # a provider bug must not stop the run
            outcome["result"] = _crashed(provider, exc)
        finally:
            outcome["elapsed"] = time.perf_counter() - start
            done.set()

    worker, one_off = _worker_for(provider)
    worker.submit(contextvars.copy_context(), work)
    if one_off:
        worker.stop()  # queued behind its one call
    answered = done.wait(policy.timeout_s + policy.grace_s)
    context.trace.memory.close()  # its last sample, after the timed call (an abandoned one's engine is killed later)
    if not answered:
        context.abandoned.set()
        with _WORKERS_LOCK:
            if _WORKERS.get(provider) is worker:
                del _WORKERS[provider]  # never reused: it is busy with the abandoned call
        worker.stop()  # it ends once that call returns, if ever
        _QUARANTINE[provider] = worker.thread
        message = (f"no answer within the {policy.timeout_s:g} s deadline; the call was abandoned and any late "
                   "answer will be discarded")
        return (ProviderResult.failure(ErrorType.TIMEOUT, message, latency_s=policy.timeout_s + policy.grace_s),
                context.trace, False, policy.timeout_s + policy.grace_s)

    result: ProviderResult = outcome["result"]
    elapsed: float = outcome["elapsed"]
    late = elapsed > policy.timeout_s and result.error_type is not ErrorType.TIMEOUT
    if late:
        was = "a successful answer" if result.success else f"a {result.error_type or 'failed'} answer"
        result = ProviderResult.failure(
            ErrorType.TIMEOUT,
            f"{was} arrived after {elapsed:.2f} s, past the {policy.timeout_s:g} s deadline; discarded",
            metadata=ResultMetadata(engine=result.metadata.engine),
        )
    return result, context.trace, late, elapsed


def _attempt_record(result: ProviderResult, trace: CallTrace, late: bool, latency_s: float) -> Attempt:
    meta = result.metadata
    return Attempt(
        latency_s=latency_s,
        api_http_status=meta.api_http_status,
        upstream_status=meta.upstream_status,
        error_type=result.error_type,
        error_message=result.error_message,
        cost=meta.cost,
        request_id=meta.request_id,
        late=late,
        resolutions=list(trace.resolutions),
        redirects=list(trace.redirects),
        peak_memory_bytes=trace.memory.peak_bytes,
    )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _crashed(provider: Provider, exc: Exception) -> ProviderResult:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    message = f"{provider.name} raised {_describe(exc)} (at {where.filename}:{where.lineno})"
    return ProviderResult.failure(ErrorType.CRASHED, message)


# --- parallel runs ---------------------------------------------------------------------------------


PINNED_FAMILIES = frozenset({"local", "control"})
"""Provider families whose work is CPU-bound on this machine, in the worker and its extraction process."""


def worker_cpus(workers: int, families: Iterable[str], allowed: Collection[int]) -> list[int] | None:
    """The CPU each of ``workers`` xdist workers keeps to, by worker index (``gw0`` the first), or ``None``
    (not pinned).

    A local provider's item runs in two processes in turn: the worker fetches and scores, its extraction
    process extracts. With two workers' pairs sharing two cores, every hand-off between a worker and its
    extraction process waited for the scheduler: at ``-n 2`` a local provider's recorded latency came
    out 7–20 % above ``-n 0``'s and the run ~7 % slower. A CPU of its own for each pair removes the
    wait. Only when the workers (two or more) are exactly as many as the ``allowed`` CPUs, so that no
    CPU is left idle and a second run on the same machine shares every CPU alike, and every provider
    family is local or control: a browser engine needs more than one core, and hosted calls wait on the
    network, not the CPU."""
    if workers < 2 or len(allowed) != workers or any(family not in PINNED_FAMILIES for family in families):
        return None
    return sorted(allowed)


def declared_family(provider_type: type[Provider]) -> str | None:
    """The family a provider type (or a class it extends) declares; ``None`` when it only inherits the
    base class's default, which says nothing about how it works."""
    for cls in provider_type.__mro__:
        if cls is Provider:
            return None
        if "family" in vars(cls):
            return cls.family
    return None
