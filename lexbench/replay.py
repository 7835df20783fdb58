"""The loopback replay server: serves each case's frozen capture (SPEC §7).

Providers fetch ``http://127.0.0.1:<port>/replay/<case-id>`` while the case keeps its original URL
for identity. Each capture is served byte for byte with the content type (and charset) its rule
declares. One server runs per pytest process (the controller with ``-n 0``, each xdist worker
otherwise), on port 0 so parallel sessions never collide.

Hosted services on frozen pages (issue 21): ``lexbench serve-replay`` runs the same server on a host and
port the operator exposes (a public host or a tunnel), and a run with ``--replay-public-url=URL`` hands
each hosted provider ``URL/<run prefix>/<provider>/<provider token>/replay/<case-id>``. The run prefix is
unguessable and new per run (a service's cache cannot answer from an earlier run); the provider segment
says whose fetcher asked, and its token, derived from the replay key the server and the run share,
proves it (:mod:`lexbench.replay_log`): a path whose token does not match is 404 and not logged. Every
fetch served under a run prefix is logged (time, case, provider, user agent, status) in a bounded
:class:`~lexbench.replay_log.ServedLog`, and ``GET /<run prefix>/served-fetches/<log token>`` answers that
run's log as JSON lines to the run alone, which keeps it as ``served-fetches.jsonl``: evidence that the
service really fetched the frozen page. The transport is bounded for a public host
(:mod:`lexbench.replay_transport`: connections, header and idle timeouts).

Web-archive captures (issue 28): a case whose capture is a WARC is served as a tree, the page at
``/replay/<case-id>/`` and each record at ``/replay/<case-id>/<path relative to the page>`` (the same under a
run prefix and provider token), with its recorded status, headers and delay (:func:`archive_answer`). A request under the case
for a path the archive lacks gets 404 and is logged in :attr:`ReplayServer.unrecorded`: what the provider
asked for that the page's own first load never needed.
"""

from __future__ import annotations

import http.client
import re
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from lexbench.dataset.archive import Archive
from lexbench.replay_log import ServedLog, log_token, provider_token, same_token
from lexbench.replay_transport import BoundedHandler, BoundedServer, TransportLimits

REPLAY_PREFIX = "/replay/"
SERVED_FETCHES = "served-fetches"
"""The route (under a run prefix) answering that run's served-fetch log, and the run directory's file stem."""
_RUN_PATH = re.compile(r"/(?P<prefix>run-[A-Za-z0-9_-]{16,64})/(?:(?P<provider>[^/]{1,64})/(?P<token>[A-Za-z0-9_-]{1,64})"
                       rf"/replay/(?P<case>.+)|{SERVED_FETCHES}/(?P<log>[A-Za-z0-9_-]{{1,64}}))")
SHUTDOWN_POLL_S = 0.05
"""How often the server loop checks for shutdown (seconds); stopping waits for one check."""
UNRECORDED = b"not recorded in this case's archive\n"
"""The body of the 404 a request for a path the archive lacks gets."""


Page = tuple[bytes, str] | Archive
"""What is served for one case: ``(capture bytes, content type)``, or a web archive."""


@dataclass(frozen=True)
class Answer:
    """One replayed answer: status, headers (``Content-Length`` is added when sending), body, and the
    recorded delay in milliseconds before sending it."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    delay_ms: int = 0


def archive_answer(archive: Archive, path: str, case_prefix: str) -> Answer | None:
    """The answer to ``path`` (relative to the page, query included) from ``archive``, or ``None`` when it
    holds no such record. ``case_prefix`` is the case's URL path ending in ``/``: a recorded ``Location``
    written relative to the page root (``/next/``) is moved under it, so redirects stay inside the case."""
    record = archive.records.get(path)
    if record is None and path.startswith("?"):
        record = archive.page  # the page itself with a query a client added (a cache buster): still the page
    if record is None:
        return None
    headers = tuple((k, case_prefix + v[1:] if k == "Location" and v.startswith("/") and not v.startswith("//") else v)
                    for k, v in record.headers)
    return Answer(record.status, headers, record.body, record.delay_ms)


def _case_prefix(path: str, case_id: str) -> str:
    marker = f"{REPLAY_PREFIX}{case_id}/"
    return path[: path.find(marker) + len(marker)]


class ReplayServer:
    """A threaded HTTP server on 127.0.0.1 serving ``captures`` = {case id: :data:`Page`}.

    Use as a context manager or call :meth:`start` / :meth:`stop`. ``requests`` counts hits per case id
    (a provider that never asked for the page is visible in tests). ``host`` and ``port`` (default
    127.0.0.1, any free port) are where it listens; ``key`` is the replay key that checks the provider
    and log tokens of run paths (without one, only ``/replay/<case-id>`` is served); ``served`` is the
    bounded log of fetches under a run prefix (see the module docstring; an archive resource's entry has
    its ``path`` relative to the page); ``limits`` bound the transport. ``unrecorded`` lists every request
    under an archive case for a path it does not hold, in arrival order: ``{case, provider, path, method}``
    (``provider`` is ``None`` on the loopback routes).
    """

    def __init__(self, captures: Mapping[str, Page], host: str = "127.0.0.1", port: int = 0, *,
                 key: str | None = None, limits: TransportLimits = TransportLimits(),
                 served: ServedLog | None = None) -> None:
        self._captures = dict(captures)
        self._address = (host, port)
        self._key = key
        self.limits = limits
        self.requests: dict[str, int] = {}
        self.served = served if served is not None else ServedLog()
        self.unrecorded: list[dict[str, str | None]] = []
        self._lock = threading.Lock()
        self._server: BoundedServer | None = None
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
        """The loopback URL a provider fetches for ``case_id`` (ending in ``/`` for a web archive, so the
        page's relative URLs resolve under the case)."""
        return f"{self.base_url}{REPLAY_PREFIX}{case_id}{'/' if self.is_archive(case_id) else ''}"

    def is_archive(self, case_id: str) -> bool:
        """Whether ``case_id`` is served from a web archive."""
        return isinstance(self._captures.get(case_id), Archive)

    def unrecorded_for(self, case_id: str, since: int = 0) -> list[str]:
        """The paths (relative to the page) requested under ``case_id`` that its archive lacks, from entry
        ``since`` of :attr:`unrecorded` on (take ``len(server.unrecorded)`` before a call to get its own)."""
        with self._lock:
            return [str(e["path"]) for e in self.unrecorded[since:] if e["case"] == case_id]

    def start(self) -> ReplayServer:
        server = self

        class Handler(BoundedHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._serve(body=True)

            def do_HEAD(self) -> None:  # noqa: N802
                self._serve(body=False)

            def _serve(self, body: bool) -> None:
                path, _, query = self.path.partition("?")
                run = server._run_path(path)
                tail = path[len(REPLAY_PREFIX) :] if path.startswith(REPLAY_PREFIX) else run and run["case"]
                case_id, slash, rel = (tail or "").partition("/")
                entry = server._captures.get(case_id) if case_id else None
                rel = unquote(rel) + (f"?{query}" if query else "")
                if run and run["log"]:
                    answer = Answer(200, (("Content-Type", "application/x-ndjson"),), server.served.lines(run["prefix"]))
                elif isinstance(entry, Archive):
                    answer = (archive_answer(entry, rel, _case_prefix(path, case_id)) if slash
                              else Answer(301, (("Location", path + "/" + (f"?{query}" if query else "")),), b""))
                    if answer is None:
                        answer = Answer(404, (("Content-Type", "text/plain; charset=utf-8"),), UNRECORDED)
                        with server._lock:
                            server.unrecorded.append({"case": case_id, "provider": run and run["provider"],
                                                      "path": rel, "method": self.command})
                elif entry is None or slash:
                    answer = Answer(404, (("Content-Type", "text/plain; charset=utf-8"),), b"not a replayed case\n")
                else:
                    answer = Answer(200, (("Content-Type", entry[1]),), entry[0])
                if entry is not None and answer.status < 300 and not rel.partition("?")[0]:
                    with server._lock:
                        server.requests[case_id] = server.requests.get(case_id, 0) + 1
                if run and not run["log"]:
                    server.served.add(time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), prefix=run["prefix"],
                                      provider=run["provider"], case=case_id, method=self.command,
                                      user_agent=self.headers.get("User-Agent"), status=answer.status,
                                      path=rel if isinstance(entry, Archive) and rel else None)
                if answer.delay_ms:
                    time.sleep(answer.delay_ms / 1000)  # the recorded delay, as the page's first load saw it
                self.send_response(answer.status)
                for name, value in answer.headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                if body:
                    self.wfile.write(answer.body)

        self._server = BoundedServer(self._address, Handler, self.limits)
        # shutdown() waits for the loop's next poll: at the default 0.5 s, every process paid ~0.5 s at its end.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(SHUTDOWN_POLL_S,),
                                        name="lexbench-replay", daemon=True)
        self._thread.start()
        return self

    def _run_path(self, path: str) -> re.Match[str] | None:
        """``path``'s run route when its provider or log token is the one the replay key gives, else
        ``None`` (served as any unknown path: 404, not logged)."""
        run = _RUN_PATH.fullmatch(path)
        if run is None or self._key is None:
            return None
        expected = (log_token(self._key, run["prefix"]) if run["log"] else
                    provider_token(self._key, run["prefix"], run["provider"]))
        return run if same_token(run["log"] or run["token"], expected) else None

    def answering(self, timeout_s: float = 2.0) -> bool:
        """Whether the server is running and answers an HTTP request within ``timeout_s`` seconds."""
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


def new_run_prefix() -> str:
    """An unguessable path segment for one run's public replay URLs (``run-`` and 24 URL-safe characters)."""
    return f"run-{secrets.token_urlsafe(18)}"


def check_public_base_url(value: str) -> str:
    """``value`` if it can serve as ``--replay-public-url`` (SPEC §7), else ``ValueError`` saying why:
    an http(s) URL with a host, and nothing a hosted service would be handed besides the frozen page's
    location: no ``user:password@`` (every service and the run's argv would get it), no query or
    fragment (the run prefix and case follow the path), no ``.``/``..`` path segment (services
    normalise them away, so the log would not match the URL handed out). The message never repeats
    a value holding credentials."""
    parts = urlsplit(value)
    if "@" in parts.netloc:
        raise ValueError("must not carry credentials (user:password@): every hosted service would be handed "
                         "them; protect the tunnel another way (the run prefix is already unguessable)")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = repr(value) if "@" not in value else "a value with '@'"
        raise ValueError(f"must be an http(s) URL where `lexbench serve-replay` is reachable, got {shown}")
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        raise ValueError(f"must not have a query or fragment: the run prefix and case follow its path, got {value!r}")
    if any(unquote(segment) in (".", "..") for segment in parts.path.split("/")):
        raise ValueError(f"must not hold '.' or '..' path segments (services normalise them away), got {value!r}")
    return value


def public_url_for(base_url: str, prefix: str, provider: str, token: str, case_id: str, *,
                   archive: bool = False) -> str:
    """The URL a hosted ``provider`` is handed for ``case_id`` under a public replay base and run prefix,
    with its provider ``token`` (:func:`lexbench.replay_log.provider_token`); ending in ``/`` for a
    web-archive case, so the page's relative URLs stay under it."""
    return f"{base_url.rstrip('/')}/{prefix}/{provider}/{token}/replay/{case_id}{'/' if archive else ''}"


def served_fetches_url(base_url: str, prefix: str, token: str) -> str:
    """Where a public replay server answers the served-fetch log of run ``prefix`` to the holder of its
    log ``token`` (:func:`lexbench.replay_log.log_token`)."""
    return f"{base_url.rstrip('/')}/{prefix}/{SERVED_FETCHES}/{token}"
