"""The loopback replay server: serves each case's frozen capture (SPEC §7).

Providers fetch ``http://127.0.0.1:<port>/replay/<case-id>`` while the case keeps its original URL
for identity. Each capture is served byte for byte with the content type (and charset) its rule
declares. One server runs per pytest process (the controller with ``-n 0``, each xdist worker
otherwise), on port 0 so parallel sessions never collide.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLAY_PREFIX = "/replay/"
SHUTDOWN_POLL_S = 0.05
"""How often the server loop checks for shutdown (seconds); stopping waits for one check."""


class ReplayServer:
    """A threaded HTTP server on 127.0.0.1 serving ``captures`` = {case id: (bytes, content type)}.

    Use as a context manager or call :meth:`start` / :meth:`stop`. ``requests`` counts hits per case id
    (a provider that never asked for the page is visible in tests).
    """

    def __init__(self, captures: Mapping[str, tuple[bytes, str]]) -> None:
        self._captures = dict(captures)
        self.requests: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """Whether the server was started, not stopped, and its serving thread is alive."""
        return self._server is not None and self._thread is not None and self._thread.is_alive()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``; raises ``RuntimeError`` before :meth:`start`."""
        if self._server is None:
            raise RuntimeError("the replay server is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def url_for(self, case_id: str) -> str:
        """The loopback URL a provider fetches for ``case_id``."""
        return f"{self.base_url}{REPLAY_PREFIX}{case_id}"

    def start(self) -> ReplayServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._serve(body=True)

            def do_HEAD(self) -> None:  # noqa: N802
                self._serve(body=False)

            def _serve(self, body: bool) -> None:
                path = self.path.split("?", 1)[0]
                case_id = path[len(REPLAY_PREFIX) :] if path.startswith(REPLAY_PREFIX) else None
                entry = server._captures.get(case_id) if case_id else None
                if entry is None:
                    data, status, content_type = b"not a replayed case\n", 404, "text/plain; charset=utf-8"
                else:
                    (data, content_type), status = entry, 200
                    with server._lock:
                        server.requests[case_id] = server.requests.get(case_id, 0) + 1
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: pytest output is for verdicts

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # shutdown() waits for the loop's next poll: at the default 0.5 s, every process paid ~0.5 s at its end.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(SHUTDOWN_POLL_S,),
                                        name="lexbench-replay", daemon=True)
        self._thread.start()
        return self

    def answering(self, timeout_s: float = 2.0) -> bool:
        """Whether the server is running and answers an HTTP request within ``timeout_s`` seconds."""
        import http.client

        if self._server is None:
            return False
        host, port = self._server.server_address[:2]
        connection = http.client.HTTPConnection(host, port, timeout=timeout_s)
        try:
            connection.request("HEAD", REPLAY_PREFIX)
            connection.getresponse().read()
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()
        return True

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
