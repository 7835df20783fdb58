"""The extraction worker: local extractors run in a child process that the deadline can kill (SPEC §5).

Extraction (trafilatura, readability, markdownify on up to 20 MB of HTML) is CPU work inside a library;
a thread running it cannot be stopped. :class:`ExtractionWorker` keeps one long-lived child per pytest
process (``python -m lexbench.providers.extract_worker``), sends it the fetched HTML and waits for the
answer within what is left of the call's deadline. At the deadline, or when the answer passes the
20,000,000-byte output ceiling, the child's container (:mod:`~lexbench.providers.containment`: a cgroup,
or its process tree) is killed and reaped; a fresh child is
started during the next call's (untimed) preparation, so an abandoned extraction never runs beside
the next one. The child also has an address-space limit, so a runaway parse fails the call instead of
exhausting the host, and a parser crash ends the child, not the pytest process. From each extraction
to the end of its call, the child's memory counts in that call's peak memory
(:func:`~lexbench.providers.call.call_memory`).

The ``langchain`` provider runs its loader in a child of the same kind (:class:`ExtractionWorker` with
its own ``argv``). Engines and other one-shot subprocesses use :mod:`lexbench.providers.engine_process`.
"""

from __future__ import annotations

import json
import os
import selectors
import struct
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.answer import ErrorType
from lexbench.providers.call import CURRENT_CALL, MAX_BODY_BYTES, Deadline, FetchError, call_memory
from lexbench.providers.containment import Container

WORKER_MEMORY_BYTES = 4 * 1024**3
"""Address-space limit of the child: a runaway parse fails instead of swapping the host."""
WORKER_START_S = 120.0
"""How long preparation waits for a new child's ready message (imports included)."""
_FRAME = struct.Struct(">I")
_CHUNK = 1 << 20


class ExtractionWorker:
    """A persistent extraction child, shared by the local providers of one process (:meth:`shared`).

    :meth:`ensure_started` is preparation (untimed). :meth:`extract` sends HTML and waits for the
    answer within the deadline. Thread-safe: one extraction at a time. ``argv`` runs another child
    that speaks the same frames (the ``langchain`` provider's loader, driven through :meth:`request`);
    ``label`` names its work in error messages.
    """

    _shared: ExtractionWorker | None = None
    _shared_users = 0
    _shared_lock = threading.Lock()

    def __init__(self, max_output_bytes: int = MAX_BODY_BYTES, *, argv: Sequence[str] | None = None,
                 label: str = "extraction") -> None:
        self.max_output_bytes = max_output_bytes
        self.argv = list(argv or [sys.executable, "-m", "lexbench.providers.extract_worker"])
        self.label = label  # names the work in messages: "extraction did not finish ..."
        self._process: subprocess.Popen[bytes] | None = None
        self._container: Container | None = None
        self._lock = threading.Lock()

    @classmethod
    def shared(cls) -> ExtractionWorker:
        """The process-wide worker; pair each call with :meth:`release`."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            cls._shared_users += 1
            return cls._shared

    @classmethod
    def release(cls) -> None:
        """Drop one user of the shared worker; the last one stops it."""
        with cls._shared_lock:
            cls._shared_users = max(0, cls._shared_users - 1)
            if cls._shared_users == 0 and cls._shared is not None:
                cls._shared.stop()
                cls._shared = None

    @property
    def pid(self) -> int | None:
        """The running child's pid, or ``None``."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def ensure_started(self) -> None:
        """Start the child unless it runs, and wait for its ready message (untimed preparation).

        Raises ``RuntimeError`` when it does not report ready within :data:`WORKER_START_S` seconds.
        """
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                return
            env = dict(os.environ, LEXBENCH_WORKER_MEMORY=str(WORKER_MEMORY_BYTES))
            self._container = Container()
            self._process = self._container.spawn(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                  stderr=subprocess.DEVNULL, env=env)
            try:
                ready = self._receive(Deadline.after(WORKER_START_S))
            except FetchError as exc:
                self._stop_locked()
                raise RuntimeError(f"the {self.label} worker did not start: {exc}") from None
            if not ready.get("ready"):
                self._stop_locked()
                raise RuntimeError(f"the {self.label} worker sent {ready!r} instead of its ready message")

    def extract(self, extractor: str, html: str | bytes, url: str, options: Mapping[str, Any],
                deadline: Deadline, content_type: str | None = None) -> tuple[str, str | None]:
        """Run ``extractor`` (a local provider type name) on ``html``; return (Markdown, title or None).
        ``html`` as bytes is the page body as received: the child decodes it (``decode_text`` with
        ``content_type``), so decoding, too, is under the deadline and in a process that can be killed.

        Raises :class:`FetchError`: ``timeout`` (the child was killed at the deadline), ``too_large``
        (its answer passed the output ceiling; killed), ``crashed`` (the extractor raised, or the child
        died, e.g. at its memory limit).
        """
        page: dict[str, Any] = {"html": html} if isinstance(html, str) else {
            "body": html.decode("latin-1"), "content_type": content_type}  # latin-1: every byte, one char
        answer = self.request({"extractor": extractor, **page, "url": url, "options": dict(options)}, deadline)
        if "error" in answer:
            raise FetchError(ErrorType.CRASHED, f"{extractor} raised {answer['error']}")
        return answer.get("content") or "", answer.get("title")

    def request(self, message: Mapping[str, Any], deadline: Deadline) -> dict[str, Any]:
        """Send one request frame and return the child's answer frame, within ``deadline``.

        Raises :class:`FetchError` ``timeout``, ``too_large`` or ``crashed`` as :meth:`extract` does;
        the child is killed (a fresh one starts at the next :meth:`ensure_started`).
        """
        self.ensure_started()
        request = json.dumps(dict(message), ensure_ascii=False).encode("utf-8", errors="surrogatepass")
        with self._lock:
            memory, container, context = call_memory(), self._container, CURRENT_CALL.get()
            if memory is not None and container is not None and self.pid is not None:
                # It outlives the call, so its last sample is taken when the runtime policy closes the
                # call's sampler, outside the timing.
                memory.watch(container)
            if context is not None and container is not None:
                context.trace.containment = container.kind
            try:
                self._send(_FRAME.pack(len(request)) + request, deadline)
                return self._receive(deadline)
            except FetchError:
                self._stop_locked()
                raise

    def stop(self) -> None:
        """Kill the child (if any) and reap it."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        process, self._process = self._process, None
        container, self._container = self._container, None
        if process is None:
            return
        if container is not None:
            container.kill()  # the child and anything it started, whatever session it moved to
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def _send(self, data: bytes, deadline: Deadline) -> None:
        assert self._process is not None and self._process.stdin is not None
        fd = self._process.stdin.fileno()
        os.set_blocking(fd, False)
        view = memoryview(data)
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_WRITE)
            while view:
                if not selector.select(deadline.remaining()) and deadline.expired:
                    raise FetchError(ErrorType.TIMEOUT, f"{self.label} did not finish within the {deadline.seconds:g} s "
                                     "deadline (the page was still being handed over); worker killed")
                try:
                    view = view[os.write(fd, view[:_CHUNK]):]
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    raise FetchError(ErrorType.CRASHED, f"the {self.label} worker died; a fresh one starts for the "
                                     "next call") from None

    def _receive(self, deadline: Deadline) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        os.set_blocking(fd, False)
        buffer = bytearray()
        wanted: int | None = None
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while wanted is None or len(buffer) < wanted + _FRAME.size:
                if not selector.select(deadline.remaining()) and deadline.expired:
                    raise FetchError(ErrorType.TIMEOUT, f"{self.label} did not finish within the {deadline.seconds:g} s "
                                     "deadline; worker killed")
                try:
                    data = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not data:
                    code = self._process.wait(timeout=5)
                    raise FetchError(ErrorType.CRASHED, f"the {self.label} worker died (exit {code}); a fresh one "
                                     "starts for the next call")
                buffer += data
                if wanted is None and len(buffer) >= _FRAME.size:
                    (wanted,) = _FRAME.unpack_from(buffer)
                    if wanted > self.max_output_bytes:
                        raise FetchError(ErrorType.TOO_LARGE, f"the extractor's answer is {wanted:,} bytes, over the "
                                         f"{self.max_output_bytes:,}-byte output ceiling; worker killed")
        return json.loads(bytes(buffer[_FRAME.size:]))
