"""Replay of web-archive captures (SPEC §7, issue 28): every record at its path under the case's replay
prefix, with its recorded status, headers and delay; what the archive lacks is a logged 404."""

from __future__ import annotations

import json
import time
from datetime import date

import httpx
import pytest

from lexbench.dataset.archive import ArchiveRecord, read_archive, write_archive
from lexbench.replay import ReplayServer, new_run_prefix, public_url_for, served_fetches_url
from lexbench.replay_log import log_token, provider_token

pytestmark = pytest.mark.slow  # starts a server

CASE = "article-001-en-lanterns"
ARCHIVE = read_archive(write_archive([
    ArchiveRecord("", 200, (("Content-Type", "text/html; charset=utf-8"),), b"<script src=app.js></script>"),
    ArchiveRecord("app.js", 200, (("Content-Type", "text/javascript"),), b"fetch('api/a.json')"),
    ArchiveRecord("api/a.json?page=1", 200, (("Content-Type", "application/json"),), b'{"a": 1}', delay_ms=300),
    ArchiveRecord("gone", 410, (("Content-Type", "text/plain"),), b"gone"),
    ArchiveRecord("old", 302, (("Location", "/new/"),), b""),
], recorded=date(2026, 12, 3)), source="test")


def test_each_record_is_served_at_its_path_under_the_case_with_its_status_and_headers():
    with ReplayServer({CASE: ARCHIVE, "plain": (b"<p>x</p>", "text/html")}) as server:
        page = server.url_for(CASE)
        assert page.endswith(f"/replay/{CASE}/")
        with httpx.Client(base_url=page) as client:
            assert client.get("").content == b"<script src=app.js></script>"
            script = client.get("app.js")
            assert (script.status_code, script.headers["content-type"]) == (200, "text/javascript")
            assert client.get("api/a.json", params={"page": "1"}).json() == {"a": 1}
            assert client.get("gone").status_code == 410  # recorded status, not a 404 of ours
            moved = client.get("old")
            assert (moved.status_code, moved.headers["location"]) == (302, f"/replay/{CASE}/new/")
        no_slash = httpx.get(server.base_url + f"/replay/{CASE}")
        assert (no_slash.status_code, no_slash.headers["location"]) == (301, f"/replay/{CASE}/")
        assert server.url_for("plain").endswith("/replay/plain")  # one HTML capture: as before
    assert server.requests == {CASE: 1}
    assert server.unrecorded == []


def test_what_the_archive_lacks_is_a_404_logged_for_the_item():
    with ReplayServer({CASE: ARCHIVE}) as server:
        mark = len(server.unrecorded)
        page = server.url_for(CASE)
        assert httpx.get(page + "favicon.ico").status_code == 404
        assert httpx.get(page + "api/a.json", params={"page": "2"}).status_code == 404  # another query
        assert httpx.get(page + "app.js").status_code == 200
        assert server.unrecorded_for(CASE, mark) == ["favicon.ico", "api/a.json?page=2"]
        assert server.unrecorded_for(CASE, len(server.unrecorded)) == []
        assert server.unrecorded_for("article-002-en-other", mark) == []


def test_a_recorded_delay_is_replayed():
    with ReplayServer({CASE: ARCHIVE}) as server:
        started = time.monotonic()
        httpx.get(server.url_for(CASE) + "api/a.json?page=1")
        assert time.monotonic() - started >= 0.3  # at least the recorded delay (never asserted fast)


def test_relative_addressing_holds_under_a_public_run_prefix():
    prefix, key = new_run_prefix(), "k" * 32
    token = provider_token(key, prefix, "jina-reader")
    with ReplayServer({CASE: ARCHIVE}, key=key) as server:
        page = public_url_for(server.base_url, prefix, "jina-reader", token, CASE, archive=True)
        assert page.endswith(f"/jina-reader/{token}/replay/{CASE}/")
        assert httpx.get(page).content == b"<script src=app.js></script>"
        assert httpx.get(page + "app.js").status_code == 200
        assert httpx.get(page + "missing.css").status_code == 404
        moved = httpx.get(page + "old")
        assert moved.headers["location"] == f"/{prefix}/jina-reader/{token}/replay/{CASE}/new/"
        log = httpx.get(served_fetches_url(server.base_url, prefix, log_token(key, prefix))).text
    assert [e["provider"] for e in server.unrecorded] == ["jina-reader"]
    entries = [json.loads(line) for line in log.splitlines()]
    assert {"path": "missing.css", "status": 404} in [{"path": e["path"], "status": e["status"]} for e in entries]
