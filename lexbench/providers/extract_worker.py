"""The extraction worker's child side: ``python -m lexbench.providers.extract_worker`` (see
:class:`lexbench.providers.extraction.ExtractionWorker`).

Frames on stdin/stdout are a 4-byte big-endian length and UTF-8 JSON. Requests are
``{"extractor", "html", "url", "options"}``, or ``"body"`` (the page's bytes as Latin-1 text) and
``"content_type"`` instead of ``"html"``, decoded here; answers ``{"content", "title"}`` or ``{"error"}``. The first
frame sent is ``{"ready": true}``, after the extractors are imported (so imports are never timed).
"""

from __future__ import annotations

import json
import os
import struct
import sys

_FRAME = struct.Struct(">I")


def _limit_memory() -> None:
    limit = int(os.environ.get("LEXBENCH_WORKER_MEMORY", "0") or 0)
    if limit > 0:
        import resource  # POSIX only, and needed only when a limit is set

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


def main() -> None:
    """Serve extraction requests until stdin closes."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a library's print() must not corrupt the frames
    _limit_memory()
    # The extractors load here, after the memory limit and the stdout redirect, so both apply to them.
    from lexbench.providers.http import decode_text
    from lexbench.providers.local import extract, warm_up

    warm_up()
    _write(answers, {"ready": True, "pid": os.getpid()})
    while True:
        header = _read_exact(requests, _FRAME.size)
        if header is None:
            return
        (size,) = _FRAME.unpack(header)
        payload = _read_exact(requests, size)
        if payload is None:
            return
        try:
            request = json.loads(payload)
            html = request.get("html")
            if html is None:  # the page's bytes: decoded here, where the caller's deadline can kill it
                html = decode_text(request["body"].encode("latin-1"), request.get("content_type"))
            if html.strip():
                content, title = extract(request["extractor"], html, request["url"], request.get("options") or {})
            else:
                content, title = "", None
            answer = {"content": content, "title": title}
        except MemoryError:
            answer = {"error": "MemoryError: the extraction worker's memory limit was reached"}
        except Exception as exc:  # reported to the caller as a crashed call
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        _write(answers, answer)


if __name__ == "__main__":
    main()
