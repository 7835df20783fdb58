"""The replay server serves each capture byte for byte with its declared content type (SPEC §7)."""

import httpx
import pytest

from lexbench.replay import ReplayServer

pytestmark = pytest.mark.slow  # starts processes or servers: make test-fast leaves it out


def test_serves_capture_bytes_with_declared_charset():
    latin = "<html><body><p>Caf\u00e9 cr\u00e8me</p></body></html>".encode("cp1252")
    with ReplayServer({"article-001-fr-cafe": (latin, "text/html; charset=windows-1252")}) as server:
        response = httpx.get(server.url_for("article-001-fr-cafe"))
        assert server.base_url.startswith("http://127.0.0.1:")
    assert response.status_code == 200
    assert response.content == latin
    assert response.headers["content-type"] == "text/html; charset=windows-1252"
    assert "Caf\u00e9 cr\u00e8me" in response.text
    assert server.requests == {"article-001-fr-cafe": 1}


def test_unknown_case_is_404_and_stopped_server_refuses():
    server = ReplayServer({"a": (b"x", "text/plain")}).start()
    url = server.url_for("a")
    assert httpx.get(server.base_url + "/replay/nope").status_code == 404
    server.stop()
    try:
        httpx.get(url, timeout=2)
    except httpx.ConnectError:
        pass
    else:  # pragma: no cover - would mean the port is still served
        raise AssertionError("a stopped replay server still answered")
