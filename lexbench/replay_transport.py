"""The replay server's HTTP transport, bounded for a public host (issue 27, item 7).

``http.server``'s ``ThreadingHTTPServer`` starts one thread per connection and waits on a silent client
for ever: 400 idle connections held 402 threads. :class:`BoundedServer` serves at most
:attr:`TransportLimits.connections` connections at once (one thread each) and answers any further one
``503`` at once, without a thread; :class:`BoundedHandler` gives every request a **header deadline**
(request line and headers complete within :attr:`~TransportLimits.header_timeout_s` of the connection
being ready for it, a keep-alive wait included: a 1-byte drip does not extend it), an **idle timeout**
per read or write (:attr:`~TransportLimits.idle_timeout_s`), a deadline for writing the whole answer
(:attr:`~TransportLimits.write_timeout_s`) and a ceiling on the request head
(:attr:`~TransportLimits.max_head_bytes`, ``431`` past it). A connection past a deadline is closed.

No installed server fits better: waitress, uvicorn and hypercorn bound idle connections but none has a
header deadline, and the handler (what is served, and its log) stays ``http.server``'s.
"""

from __future__ import annotations

import io
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 28\r\n"
         b"Retry-After: 1\r\nConnection: close\r\n\r\nreplay server busy: retry\r\n\r\n")
_HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
_WRITE_CHUNK = 64 * 1024


@dataclass(frozen=True)
class TransportLimits:
    """What one replay server may hold. ``connections``: connections served at once (a thread each);
    ``header_timeout_s``: seconds for a request's line and headers, from when the connection is ready
    for it; ``idle_timeout_s``: seconds any one read or write may stall; ``write_timeout_s``: seconds
    to write a whole answer (20 MB at 170 kB/s); ``max_head_bytes``: bytes of request line and headers."""

    connections: int = 64
    header_timeout_s: float = 10.0
    idle_timeout_s: float = 10.0
    write_timeout_s: float = 120.0
    max_head_bytes: int = 32 * 1024


class _HeadTooLarge(Exception):
    pass


class _DeadlineReader(io.RawIOBase):
    """The connection's reads, each bounded by the idle timeout and all by the request's header deadline."""

    def __init__(self, connection: socket.socket, handler: BoundedHandler) -> None:
        self._connection, self._handler = connection, handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        handler = self._handler
        remaining = handler.read_deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"the request head was not complete within {handler.limits.header_timeout_s:g} s")
        if handler.head_budget <= 0:
            raise _HeadTooLarge
        self._connection.settimeout(min(handler.limits.idle_timeout_s, remaining))
        view = memoryview(buffer)
        count = self._connection.recv_into(view[: min(len(view), handler.head_budget)])
        handler.head_budget -= count
        return count


class _DeadlineWriter(io.RawIOBase):
    """The connection's writes in chunks, each bounded by the idle timeout and all by the answer's deadline."""

    def __init__(self, connection: socket.socket, handler: BoundedHandler) -> None:
        self._connection, self._handler = connection, handler

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        for start in range(0, len(view), _WRITE_CHUNK):
            remaining = self._handler.write_deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"the answer was not written within {self._handler.limits.write_timeout_s:g} s")
            self._connection.settimeout(min(self._handler.limits.idle_timeout_s, remaining))
            self._connection.sendall(view[start : start + _WRITE_CHUNK])
        return len(view)


class BoundedHandler(BaseHTTPRequestHandler):
    """A request handler under :class:`TransportLimits` (the server's ``limits``): subclass it as
    ``BaseHTTPRequestHandler`` and write ``do_GET`` etc. A request past a deadline closes its connection
    (``http.server`` handles the ``TimeoutError``); a head over the ceiling is answered ``431``."""

    protocol_version = "HTTP/1.1"
    limits: TransportLimits
    read_deadline: float
    write_deadline: float
    head_budget: int

    def setup(self) -> None:
        self.limits = getattr(self.server, "limits", TransportLimits())
        self.connection = self.request
        self.connection.settimeout(self.limits.idle_timeout_s)
        self.rfile = io.BufferedReader(_DeadlineReader(self.connection, self))
        self.wfile = _DeadlineWriter(self.connection, self)

    def handle_one_request(self) -> None:
        now = time.monotonic()
        self.read_deadline = now + self.limits.header_timeout_s
        self.write_deadline = self.read_deadline + self.limits.write_timeout_s
        self.head_budget = self.limits.max_head_bytes
        try:
            super().handle_one_request()
        except _HeadTooLarge:
            self.close_connection = True
            try:
                self.connection.sendall(_HEAD_TOO_LARGE)
            except OSError:
                pass

    def finish(self) -> None:
        try:
            self.rfile.close()
        except OSError:
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: pytest output is for verdicts, and a public server's log is the served-fetch log


class BoundedServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` serving at most ``limits.connections`` connections at once; a connection
    beyond them is answered ``503`` (``Retry-After: 1``) and closed in the accepting thread. ``refused``
    counts them."""

    daemon_threads = True
    request_queue_size = 128
    limits: ClassVar[TransportLimits]

    def __init__(self, address: tuple[str, int], handler: type[BoundedHandler], limits: TransportLimits) -> None:
        self.limits = limits  # type: ignore[misc]  # per server, read by its handlers
        self._slots = threading.BoundedSemaphore(limits.connections)
        self.refused = 0
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.refused += 1
            try:
                request.setblocking(False)
                request.send(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # a client that hangs up or stalls is the public internet's normal; nothing to print
        super().handle_error(request, client_address)
