"""Provider types that exist only for the benchmarks, registered when a benchmark project's conftest
imports this module (in the controller and in every xdist worker).

- ``bench-zero``: a zero-latency in-process provider. It answers at once with the case's title and
  reference as Markdown, so an item costs only the harness: collection, the call path, the answer
  boundary, scoring, the run record and JUnit properties.
- ``bench-fake-api``: a hosted-style provider whose API is a loopback fake (:class:`FakeApiServer`)
  answering after a fixed delay; its request goes through the shared HTTP boundary like any hosted call.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from lexbench.answer import ProviderResult
from lexbench.dataset.case import Case
from lexbench.providers import register_provider_type
from lexbench.providers.base import Provider
from lexbench.providers.hosted.base import HostedProvider, json_body
from lexbench.providers.http import HttpRequest, HttpResponse


@register_provider_type
class ZeroLatency(Provider):
    """Answers instantly with ``# <title>``, the reference text and the stable-group phrases (Markdown, a
    passing answer), no network."""

    type_name = "bench-zero"
    needs_network = False

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        phrases = "\n\n".join(phrase for group in case.stable_groups for phrase in group.phrases)
        content = f"# {case.title or case.name}\n\n{case.reference_text or ''}\n\n{phrases}"
        return ProviderResult(success=True, content=content, content_format="markdown", final_url=case.url)


@register_provider_type
class FakeApi(HostedProvider):
    """POSTs ``{"url": ...}`` to the ``endpoint`` option and reads ``{"content": ...}`` back. Unlike a real
    hosted service it can reach the loopback replay server, so its items run in replay mode."""

    type_name = "bench-fake-api"
    reaches_loopback = True
    option_names: ClassVar[frozenset[str] | None] = frozenset({"endpoint"})

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        return HttpRequest("POST", options["endpoint"], json={"url": url})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        return ProviderResult(success=True, content=json_body(response)["content"], content_format="markdown")


class FakeApiServer:
    """A threaded loopback HTTP server that answers every POST after ``delay_s`` seconds with
    ``{"content": answer}``. ``handled`` collects each request's server-side seconds (arrival to the
    last byte written): the true latency the harness should record."""

    def __init__(self, delay_s: float, answer: str) -> None:
        self.delay_s = delay_s
        self.handled: list[float] = []
        body = json.dumps({"content": answer}).encode("utf-8")
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                start = time.perf_counter()
                self.rfile.read(int(self.headers.get("content-length") or 0))
                time.sleep(server.delay_s)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                server.handled.append(time.perf_counter() - start)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.request_queue_size = 128
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)  # quick stop

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/fetch"

    def __enter__(self) -> FakeApiServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
