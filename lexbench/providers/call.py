"""What one call carries down to the shared boundary: its :class:`Deadline`, the :class:`FetchError` an
adapter or the boundary raises on purpose, the body ceiling, and the attempt in progress
(:data:`CURRENT_CALL`) with the memory sampler its engines and workers register with (:func:`call_memory`)
(SPEC §5).

A leaf of the provider layer: :mod:`~lexbench.providers.http`, :mod:`~lexbench.providers.guard`,
:mod:`~lexbench.providers.resolve` and the adapters take these from here, never from
:mod:`~lexbench.providers.policy`, which drives the call and sits above them.
"""

from __future__ import annotations

import contextvars
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from lexbench.answer import DnsMode, ErrorType, ProviderResult, Resolution, ResultMetadata
from lexbench.providers.credentials import Redactor
from lexbench.providers.memory import PeakMemory

MAX_BODY_BYTES = 20_000_000
"""The ceiling on response bodies, decompressed bodies and subprocess output (SPEC §5)."""


@dataclass(frozen=True)
class Deadline:
    """A moment on the monotonic clock by which one physical call must be complete.

    ``seconds`` is the budget it was made with; :meth:`remaining` is never negative.
    """

    at: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(at=time.monotonic() + seconds, seconds=seconds)

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.at


class FetchError(Exception):
    """A call failure an adapter or the shared boundary reports on purpose.

    ``error_type`` is the stable class; the message must say what happened and, where it can, what to
    do. ``metadata`` holds :class:`ResultMetadata` fields already known (e.g. ``upstream_status`` of a
    body that turned out too large). :func:`~lexbench.providers.policy.call_provider` turns it into a failed result.
    """

    def __init__(self, error_type: ErrorType, message: str, **metadata: Any) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.metadata = metadata

    def to_result(self) -> ProviderResult:
        return ProviderResult.failure(self.error_type, str(self), metadata=ResultMetadata(**self.metadata))


@dataclass
class CallTrace:
    """What the shared boundary observed during one attempt (filled in as it goes). ``memory`` samples
    the containers the attempt's engines and workers run in (:func:`call_memory`); ``containment`` is
    their kind (``cgroup`` or ``subreaper``, :mod:`~lexbench.providers.containment`), ``None`` when the
    attempt ran no child process. ``blocked_requests``: what the engine's guarding proxy or a worker's
    request hook refused (:mod:`~lexbench.providers.guard_proxy`)."""

    dns_mode: DnsMode | None = None
    resolutions: list[Resolution] = field(default_factory=list)
    redirects: list[str] = field(default_factory=list)
    exchanges: int = 0
    memory: PeakMemory = field(default_factory=PeakMemory)
    containment: str | None = None
    blocked_requests: list[str] = field(default_factory=list)


@dataclass
class CallContext:
    """The attempt in progress, visible to the shared boundary through :data:`CURRENT_CALL`.

    ``redactor`` masks this provider's credentials in anything saved; ``abandoned`` is set by the
    watchdog when it gives up on the worker, so the boundary starts no new request for it.
    """

    provider: str
    case_id: str
    attempt: int
    redactor: Redactor
    trace: CallTrace = field(default_factory=CallTrace)
    abandoned: threading.Event = field(default_factory=threading.Event)


CURRENT_CALL: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar("lexbench_call", default=None)
"""The attempt running in this worker thread, or ``None`` outside
:func:`~lexbench.providers.policy.call_provider`."""


def call_memory() -> PeakMemory | None:
    """The attempt in progress's memory sampler, where an engine or worker registers its process group
    (``watch`` when it starts, ``unwatch`` before it is killed; the runtime policy closes it when the
    call has returned); ``None`` outside a call."""
    context = CURRENT_CALL.get()
    return context.trace.memory if context is not None else None

