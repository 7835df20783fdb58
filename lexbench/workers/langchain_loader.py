"""lexbench worker: LangChain's ``WebBaseLoader`` (langchain-community), one long-lived child process.

    python langchain_loader.py --version
    python langchain_loader.py            (serves framed requests on stdin/stdout)

Run by path by :class:`lexbench.providers.thirdparty.LangChain` under the interpreter that has the
``langchain`` extra; it imports nothing from lexbench. Frames are a 4-byte big-endian length and UTF-8
JSON, as in ``lexbench.providers.extract_worker``: first ``{"ready": true}`` once the loader is imported,
then one answer per request ``{"url", "separator", "replay", "proxy"}``:
``{"page_content", "metadata", "status", "final_url", "redirects", "content_type", "error"}``.

What the loader does is left as it is (``WebBaseLoader(url).load()``: requests with its own headers,
redirects followed, no timeout, an HTTP error page returned as a Document, the encoding guessed from
the bytes). A response hook on its ``requests`` session only observes each response, because the
Document carries neither the status nor the final URL. Every request goes through the call's
guarding proxy (``"proxy"`` in the request, lexbench's :mod:`~lexbench.providers.guard_proxy`; proxy
variables of the environment are ignored), which refuses non-public addresses: a response it refused
(``X-Lexbench-Blocked``) or a tunnel it refused is ``blocked_network``. With ``replay`` the session may
reach the replay server's own host and port only (any other, e.g. a redirect off the loopback page,
is refused as ``blocked_network``).
"""

from __future__ import annotations

import json
import os
import struct
import sys
from urllib.parse import urlsplit

_FRAME = struct.Struct(">I")
PACKAGES = ("langchain-community", "langchain-core", "beautifulsoup4")
"""The distributions whose versions ``--version`` prints and preflight pins."""


def _versions() -> str:
    from importlib import metadata

    return " ".join(f"{name} {metadata.version(name)}" for name in PACKAGES)


def _import_loader() -> None:
    """Import the loader and its parser (WebBaseLoader imports bs4 only when it parses a page)."""
    import bs4  # noqa: F401
    from langchain_community.document_loaders import WebBaseLoader  # noqa: F401


def _limit_memory() -> None:
    limit = int(os.environ.get("LEXBENCH_WORKER_MEMORY", "0") or 0)
    if limit > 0:  # requests reads a whole body into memory: a huge one fails the call, not the host
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _read_exact(stream, size: int) -> bytes | None:  # type: ignore[no-untyped-def]
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _write(stream, message: dict) -> None:  # type: ignore[no-untyped-def]
    data = json.dumps(message, ensure_ascii=False).encode("utf-8", errors="surrogatepass")
    stream.write(_FRAME.pack(len(data)) + data)
    stream.flush()


def _confine(session, url: str) -> None:  # type: ignore[no-untyped-def]
    """Let ``session`` reach ``url``'s host and port only, and no proxy."""
    import requests
    from requests.adapters import HTTPAdapter

    allowed = urlsplit(url).netloc

    class ReplayOnly(HTTPAdapter):
        def send(self, request, **kwargs):  # type: ignore[no-untyped-def]
            target = urlsplit(request.url).netloc
            if target != allowed:
                raise requests.ConnectionError(f"blocked: {target} is not the replay server ({allowed})")
            return super().send(request, **kwargs)

    session.trust_env = False
    session.mount("http://", ReplayOnly())
    session.mount("https://", ReplayOnly())


def _error_type(exc: Exception) -> str:
    """The lexbench error type for an exception the loader raised."""
    import requests

    text = str(exc)
    if isinstance(exc, requests.TooManyRedirects):
        return "too_many_redirects"
    if isinstance(exc, requests.exceptions.SSLError):
        return "tls"
    if isinstance(exc, requests.Timeout):
        return "timeout"
    if isinstance(exc, requests.exceptions.ProxyError) and "403" in text:
        return "blocked_network"  # the guarding proxy refused the tunnel
    if isinstance(exc, requests.ConnectionError):
        if text.startswith("blocked: "):
            return "blocked_network"
        if "NameResolutionError" in text or "Name or service not known" in text:
            return "dns"
        return "connect"
    if isinstance(exc, MemoryError):
        return "crashed"
    return "service_error"


def load(url: str, separator: str | None, replay: bool, proxy: str | None = None) -> dict:
    """One page through ``WebBaseLoader``; the answer frame described in the module docstring."""
    from langchain_community.document_loaders import WebBaseLoader

    loader = WebBaseLoader(url, bs_get_text_kwargs={} if separator is None else {"separator": separator})
    responses: list = []
    loader.session.hooks["response"].append(lambda response, *args, **kwargs: responses.append(response))
    loader.session.trust_env = False  # no proxy variables, no .netrc: the guarding proxy only
    if proxy:
        loader.session.proxies = {"http": proxy, "https": proxy}
    if replay:
        _confine(loader.session, url)
    answer: dict = {"page_content": "", "metadata": {}, "error": None}
    try:
        document = loader.load()[0]
        answer.update(page_content=document.page_content, metadata=dict(document.metadata))
    except Exception as exc:  # the loader's failure is the call's, reported with its class
        answer["error"] = {"type": _error_type(exc), "message": f"{type(exc).__name__}: {exc}"[:2000]}
    proxied = next((r for r in responses if r.headers.get("x-lexbench-blocked") or r.headers.get("x-lexbench-error")), None)
    if proxied is not None and answer["error"] is None:  # the guarding proxy refused the page or could not reach it
        blocked = proxied.headers.get("x-lexbench-blocked")
        answer["error"] = {"type": "blocked_network" if blocked else proxied.headers["x-lexbench-error"],
                           "message": f"{proxied.url}: {blocked or proxied.text[:500]}"}
    if responses:
        last = responses[-1]
        answer.update(status=last.status_code, final_url=last.url, redirects=[r.url for r in responses[1:]],
                      content_type=last.headers.get("content-type"))
    return answer


def main() -> None:
    """``--version``, or serve requests until stdin closes."""
    if sys.argv[1:] == ["--version"]:
        try:
            _import_loader()
        except ImportError as exc:
            print(f"missing: {exc}")
            sys.exit(3)
        print(_versions())
        return
    requests_in, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a library's print() must not corrupt the frames
    _limit_memory()
    _import_loader()  # before the ready frame, so no call pays for it

    _write(answers, {"ready": True, "pid": os.getpid()})
    while True:
        header = _read_exact(requests_in, _FRAME.size)
        if header is None:
            return
        payload = _read_exact(requests_in, _FRAME.unpack(header)[0])
        if payload is None:
            return
        request = json.loads(payload)
        _write(answers, load(request["url"], request.get("separator"), bool(request.get("replay")), request.get("proxy")))


if __name__ == "__main__":
    main()
