"""``lexbench fetch-evidence`` under attack (issue 27, items 1 and 2).

Item 1: ``--into DIR`` used to publish by renaming DIR aside and deleting it, so a user's folder or a git
checkout named there lost everything but ``dataset.json`` and ``evidence/``. Item 2: a hostile upstream
(``--upstream-base``) or ``sources.json``: a redirect to another loopback port was followed, a gzip bomb
and an endless body ended in ``MemoryError`` near 1.5 GB, a 1-byte drip held a file for 70 s (the timeout
was per read), ``../…/etc/hostname`` and ``/etc/hostname`` were read and their real sha256 printed, and a
FIFO in the mirror hung. Every upstream here is a loopback server started by the test; the memory and
hang attacks run in a child process allowed 1.25 GiB more address space and a deadline, so a regression
fails the test instead of exhausting the machine.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import socket
import time
import zlib
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from lexbench.cli import main
from lexbench.dataset import evidence
from lexbench.dataset.evidence import fetch_evidence
from lexbench.errors import EvidenceError
from tests.dataset.test_fetch_evidence import COMMIT, build_suite, edit_sources
from tests.providers.servers import LOAD_MARGIN_S, LoopbackServer, send
from tests.reliability.hostile import in_child

MARKER_NAME = ".lexbench-evidence.json"
"""What a user sees in a fetched directory and in the refusals (lexbench.dataset.evidence.MARKER_NAME)."""
CHILD_DEADLINE_S = 120.0
HEADROOM = 1280 << 20
"""What a child may map beyond its size at start: far above what a bounded fetch needs (its peak is
measured and asserted), below a bomb's inflation (4 GiB) or an endless body (3 GiB). Not smaller: before
issue 27 every JSON read asked for 1 GiB of address space up front, so the old code would fail here
before meeting the attack."""


def fetch_in_child(suite: str, into: str, mirror: str | None, upstream_base: str | None) -> dict:
    """Fetch in this (child) process with :data:`HEADROOM` of address space left; the outcome and the
    peak memory the fetch added (VmHWM after resetting it), in MB."""
    import resource

    limit = _status_kb("VmSize") * 1024 + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")  # resets VmHWM to the current RSS
    except OSError:
        pass
    baseline = _status_kb("VmRSS")
    started = time.monotonic()
    outcome = "fetched"
    try:
        fetch_evidence(Path(suite), into=Path(into), mirror=Path(mirror) if mirror else None,
                       **({"upstream_base": upstream_base} if upstream_base else {}))
    except EvidenceError as exc:
        outcome = f"refused: {exc}"
    except MemoryError:
        outcome = "MemoryError"
    return {"outcome": outcome, "peak_mb": max(0, _status_kb("VmHWM") - baseline) / 1024,
            "seconds": time.monotonic() - started}


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def upstream_files(corpus_upstream: Path, attack=None):  # type: ignore[no-untyped-def]
    """A handler serving the upstream layout from ``corpus_upstream``; ``attack(h, server, path)``
    answers instead when it returns True."""

    def handle(h: BaseHTTPRequestHandler, server: LoopbackServer) -> None:
        if attack is not None and attack(h, server, h.path):
            return
        file = corpus_upstream / h.path.lstrip("/")
        if file.is_file():
            send(h, 200, file.read_bytes(), content_type="application/octet-stream")
        else:
            send(h, 404, b"not found")

    return handle


@pytest.fixture
def suite(tmp_path: Path):  # type: ignore[no-untyped-def]
    return build_suite(tmp_path)


# --- item 1: --into never destroys what lexbench did not write ---------------------------------------


def _cli_fetch(root: Path, mirror: Path, into: str) -> int:
    return main(["fetch-evidence", "--suite", str(root), "--mirror", str(mirror), "--into", into])


@pytest.mark.attack(item=1, issue=27)
def test_into_a_users_documents_folder_is_refused_and_nothing_is_removed(suite, tmp_path, capsys):  # type: ignore[no-untyped-def]
    root, corpus = suite
    documents = tmp_path / "my-documents"
    (documents / "thesis").mkdir(parents=True)
    (documents / "notes.txt").write_text("my notes")
    (documents / "thesis" / "chapter1.tex").write_text("\\chapter{One}")
    assert _cli_fetch(root, corpus.mirror, str(documents)) == 2
    error = capsys.readouterr().err
    assert f"--into {documents}: not empty" in error and MARKER_NAME in error and "choose a new or empty directory" in error
    assert sorted(p.relative_to(documents).as_posix() for p in documents.rglob("*")) == [
        "notes.txt", "thesis", "thesis/chapter1.tex"]
    assert (documents / "notes.txt").read_text() == "my notes"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".my-documents")]  # no temporary left either


@pytest.mark.attack(item=1, issue=27)
def test_into_dot_inside_a_git_checkout_is_refused(suite, tmp_path, capsys, monkeypatch):  # type: ignore[no-untyped-def]
    root, corpus = suite
    checkout = tmp_path / "project"
    (checkout / ".git" / "refs").mkdir(parents=True)
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (checkout / "main.py").write_text("print('hello')\n")
    monkeypatch.chdir(checkout)
    assert _cli_fetch(root, corpus.mirror, ".") == 2
    assert f"--into {checkout}: not empty (.git, main.py)" in capsys.readouterr().err
    assert (checkout / "main.py").read_text() == "print('hello')\n" and (checkout / ".git" / "HEAD").is_file()


@pytest.mark.attack(item=1, issue=27)
def test_a_previous_fetch_is_replaced_but_a_file_the_user_added_to_it_is_kept(suite, tmp_path, capsys):  # type: ignore[no-untyped-def]
    root, corpus = suite
    into = tmp_path / "inputs"
    assert _cli_fetch(root, corpus.mirror, str(into)) == 0
    marker = json.loads((into / MARKER_NAME).read_text())
    assert marker["suite"] == "articles" and "dataset.json" in marker["files"]
    (into / "evidence" / "captures" / "article-001-en-harbour-dredging.html").write_text("stale")
    assert _cli_fetch(root, corpus.mirror, str(into)) == 0  # lexbench's own directory: replaced
    assert (into / "evidence" / "captures" / "article-001-en-harbour-dredging.html").read_text() != "stale"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".inputs")] == []  # nothing retired is left
    capsys.readouterr()
    (into / "evidence" / "my-review.md").write_text("reviewed by hand")
    assert _cli_fetch(root, corpus.mirror, str(into)) == 2
    error = capsys.readouterr().err
    assert "holds 1 entry lexbench did not write (evidence/my-review.md" in error, error
    assert (into / "evidence" / "my-review.md").read_text() == "reviewed by hand"
    assert (into / "dataset.json").is_file()


@pytest.mark.attack(item=1, issue=27)
def test_a_file_that_appears_during_a_refetch_is_kept_and_named(suite, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    root, corpus = suite
    into = tmp_path / "inputs"
    fetch_evidence(root, into=into, mirror=corpus.mirror)
    compile_articles = evidence.compile_articles

    def a_user_saves_a_file_meanwhile(*args, **kwargs):  # type: ignore[no-untyped-def]
        (into / "evidence" / "late-notes.txt").write_text("saved during the fetch")
        return compile_articles(*args, **kwargs)

    monkeypatch.setattr(evidence, "compile_articles", a_user_saves_a_file_meanwhile)
    fetched = fetch_evidence(root, into=into, mirror=corpus.mirror)
    kept = getattr(fetched, "kept", None)
    assert kept is not None and (kept / "evidence" / "late-notes.txt").read_text() == "saved during the fetch"
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*")) == ["evidence", "evidence/late-notes.txt"]


@pytest.mark.attack(item=1, issue=27)
def test_another_suites_evidence_is_not_replaced(suite, tmp_path, capsys):  # type: ignore[no-untyped-def]
    root, corpus = suite
    into = tmp_path / "inputs"
    assert _cli_fetch(root, corpus.mirror, str(into)) == 0
    marker = json.loads((into / MARKER_NAME).read_text())
    (into / MARKER_NAME).write_text(json.dumps({**marker, "suite": "forums"}))
    before = sorted(p.relative_to(into).as_posix() for p in into.rglob("*"))
    assert _cli_fetch(root, corpus.mirror, str(into)) == 2
    assert "holds the evidence of suite 'forums', not 'articles'" in capsys.readouterr().err
    assert sorted(p.relative_to(into).as_posix() for p in into.rglob("*")) == before


# --- item 2: hostile upstreams -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.attack(item=2, issue=27)
def test_a_redirect_to_another_loopback_port_is_refused(suite, tmp_path):  # type: ignore[no-untyped-def]
    root, corpus = suite
    with LoopbackServer(upstream_files(corpus.upstream)) as other:
        def redirect(h, server, path):  # type: ignore[no-untyped-def]
            send(h, 302, b"", headers={"Location": f"http://127.0.0.1:{other.port}{path}"})
            return True

        with LoopbackServer(upstream_files(corpus.upstream, redirect)) as upstream:
            with pytest.raises(EvidenceError, match=rf"refused to connect to 127\.0\.0\.1:{other.port}: loopback"):
                fetch_evidence(root, into=tmp_path / "inputs", upstream_base=upstream.url(""))
    assert other.hits == []  # not one request reached the other port
    assert not (tmp_path / "inputs").exists()


def _bomb(inflated: int) -> bytes:
    """``inflated`` zeros as gzip members of 64 MiB each (one member compressed once, repeated)."""
    member = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    one = b"".join(member.compress(block) for _ in range(64)) + member.flush()
    return one * (inflated // (64 << 20))


def _small_bomb() -> bytes:
    """A gzip file within the page's compressed bound (under 1,400 bytes) that inflates 1,000 times over."""
    return gzip.compress(bytes(1_300_000), 9)


@pytest.mark.slow
@pytest.mark.timeout(CHILD_DEADLINE_S + 60)
@pytest.mark.attack(item=2, issue=27)
@pytest.mark.parametrize(("bomb", "refusal"), [
    (lambda: _bomb(4 << 30), "the body declares 4,176,000 bytes, over the 2,506-byte ceiling; not downloaded) (sources.json binds it at 457 bytes)"),  # 4 GiB of zeros in 4 MB
    (_small_bomb, "decompresses past 457 bytes (sources.json binds it at 457 bytes); refused before hashing"),
], ids=["4GiB-in-4MB", "1.3MB-in-1.3kB"])
def test_a_gzip_bomb_upstream_is_cut_off_at_the_files_bound(suite, tmp_path, bomb, refusal):  # type: ignore[no-untyped-def]
    root, corpus = suite
    body = bomb()

    def serve_bomb(h, server, path):  # type: ignore[no-untyped-def]
        if not path.endswith("/html/p2.html.gz"):
            return False
        send(h, 200, body, content_type="application/gzip")
        return True

    with LoopbackServer(upstream_files(corpus.upstream, serve_bomb)) as upstream:
        result = in_child(fetch_in_child, (str(root), str(tmp_path / "inputs"), None, upstream.url("")), CHILD_DEADLINE_S)
    print(f"gzip bomb: {result}")
    assert result["outcome"].startswith("refused:"), result
    assert "source file aeb/html/p2.html.gz" in result["outcome"] and refusal in result["outcome"], result
    assert result["peak_mb"] < 100, result  # the bound is the file's 457 bytes, not the bomb's inflation
    assert not (tmp_path / "inputs").exists()


@pytest.mark.slow
@pytest.mark.timeout(CHILD_DEADLINE_S + 60)
@pytest.mark.attack(item=2, issue=27)
def test_an_endless_upstream_body_is_cut_off_at_the_files_bound(suite, tmp_path):  # type: ignore[no-untyped-def]
    root, corpus = suite

    def endless(h, server, path):  # type: ignore[no-untyped-def]
        if not path.endswith("/input/X1.html"):
            return False
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Connection", "close")  # no length: the body ends when the server hangs up
        h.close_connection = True
        h.end_headers()
        block = b"<p>" + b"a" * 65_529 + b"</p>"
        try:
            for _ in range((3 << 30) // len(block)):  # 3 GiB at most, ever
                if server.stopping.is_set():
                    return True
                h.wfile.write(block)
        except OSError:
            pass  # the client hung up: what it should do
        return True

    with LoopbackServer(upstream_files(corpus.upstream, endless)) as upstream:
        result = in_child(fetch_in_child, (str(root), str(tmp_path / "inputs"), None, upstream.url("")), CHILD_DEADLINE_S)
    print(f"endless body: {result}")
    assert result["outcome"].startswith("refused:"), result
    assert "dragnet/HTML/X1.html.gz" in result["outcome"] and "ceiling" in result["outcome"]
    assert result["peak_mb"] < 100, result


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.attack(item=2, issue=27)
def test_a_one_byte_drip_ends_at_the_whole_file_deadline(suite, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    root, corpus = suite
    deadline_s = 2.0
    monkeypatch.setattr(evidence, "FETCH_TIMEOUT_S", deadline_s)  # per read before the fix, per file now
    page = (corpus.upstream / "example/dragnet-data" / COMMIT / "input/X1.html").read_bytes()
    drip_s = deadline_s + LOAD_MARGIN_S + 8  # the drip outlasts deadline + margin, then stops

    def drip(h, server, path):  # type: ignore[no-untyped-def]
        if not path.endswith("/input/X1.html"):
            return False
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(page)))
        h.end_headers()
        ends = time.monotonic() + drip_s
        for byte in page:
            if server.stopping.wait(0.2) or time.monotonic() > ends:
                return True
            try:
                h.wfile.write(bytes([byte]))
                h.wfile.flush()
            except OSError:
                return True
        return True

    with LoopbackServer(upstream_files(corpus.upstream, drip)) as upstream:
        started = time.monotonic()
        try:
            fetch_evidence(root, into=tmp_path / "inputs", upstream_base=upstream.url(""))
        except Exception as exc:  # noqa: BLE001 (the time held is the finding, whatever ended it)
            refused: Exception | None = exc
        else:
            refused = None
        held = time.monotonic() - started
    print(f"1-byte drip held the fetch {held:.1f} s ({type(refused).__name__})")
    assert held < deadline_s + LOAD_MARGIN_S, f"held {held:.1f} s"
    assert isinstance(refused, EvidenceError), refused
    assert f"no complete answer within the {deadline_s:g} s deadline" in str(refused)
    assert "dragnet/HTML/X1.html.gz" in str(refused)


# --- item 2: sources.json paths confined to the mirror, special files refused by kind -----------------


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "hostname"
    secret.parent.mkdir()
    secret.write_text("secret-host-name\n")
    return secret


def _bind_extra(root: Path, corpus_path: str) -> None:
    # The attacker does not know the file's hash: an error printing the real one would leak it.
    edit_sources(root, lambda s: s["cases"]["article-001-en-harbour-dredging"]["files"].update(
        {corpus_path: {"sha256": "0" * 64, "upstream": "input/X1.html"}}))


@pytest.mark.attack(item=2, issue=27)
@pytest.mark.parametrize("how", ["dot-dot", "absolute", "symlink", "etc-hostname"])
def test_a_sources_path_outside_the_mirror_is_refused_without_its_hash(suite, tmp_path, how):  # type: ignore[no-untyped-def]
    root, corpus = suite
    secret = _secret(tmp_path)
    if how == "etc-hostname":
        if not Path("/etc/hostname").is_file():
            pytest.skip("no /etc/hostname on this machine")
        secret = Path("/etc/hostname")
        corpus_path = "dragnet/" + "../" * len(corpus.mirror.resolve().parts) + "etc/hostname"
    elif how == "dot-dot":
        corpus_path = "dragnet/../../outside/hostname"
    elif how == "absolute":
        corpus_path = str(secret)
    else:
        (corpus.mirror / "dragnet" / "notes.txt").symlink_to(secret)
        corpus_path = "dragnet/notes.txt"
    _bind_extra(root, corpus_path)
    with pytest.raises(EvidenceError) as refused:
        fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)
    message = str(refused.value)
    assert hashlib.sha256(secret.read_bytes()).hexdigest() not in message
    assert f"source file {corpus_path}" in message and f"outside {corpus.mirror}" in message, message


def _in_mirror_child(suite: str, mirror: str, into: str) -> str:
    return fetch_in_child(suite, into, mirror, None)["outcome"]


@pytest.mark.slow
@pytest.mark.timeout(CHILD_DEADLINE_S + 60)
@pytest.mark.attack(item=2, issue=27)
@pytest.mark.parametrize(("kind", "make"), [
    ("FIFO", lambda path: os.mkfifo(path)),
    ("socket", lambda path: socket.socket(socket.AF_UNIX).bind(str(path))),
], ids=["fifo", "socket"])
def test_a_special_file_in_the_mirror_is_refused_by_kind(suite, tmp_path, kind, make):  # type: ignore[no-untyped-def]
    root, corpus = suite
    target = corpus.mirror / "aeb" / "ground-truth.json"
    target.unlink()
    make(target)
    outcome = in_child(_in_mirror_child, (str(root), str(corpus.mirror), str(tmp_path / "inputs")), CHILD_DEADLINE_S)
    assert outcome.startswith("refused:") and "aeb/ground-truth.json" in outcome, outcome
    assert f"not a regular file (a {kind}); refusing to read it" in outcome, outcome


@pytest.mark.slow
@pytest.mark.timeout(CHILD_DEADLINE_S + 60)
@pytest.mark.attack(item=2, issue=27)
@pytest.mark.parametrize("how", ["absolute", "symlink"])
def test_dev_zero_named_by_sources_is_refused_without_reading_it(suite, tmp_path, how):  # type: ignore[no-untyped-def]
    root, corpus = suite
    if how == "absolute":
        _bind_extra(root, "/dev/zero")
    else:
        target = corpus.mirror / "aeb" / "ground-truth.json"
        target.unlink()
        target.symlink_to("/dev/zero")
    outcome = in_child(_in_mirror_child, (str(root), str(corpus.mirror), str(tmp_path / "inputs")), CHILD_DEADLINE_S)
    assert outcome.startswith("refused:") and f"outside {corpus.mirror}" in outcome, outcome


@pytest.mark.attack(item=2, issue=27)
@pytest.mark.parametrize(("content", "refusal"), [
    (_small_bomb, r"decompresses past 457 bytes \(sources\.json binds it at 457 bytes\); refused before hashing"),
    (lambda: os.urandom(5_000), r"5,0\d\d bytes, more than the 1,481 a file may have \(sources\.json binds it at 457 bytes\)"),
], ids=["bomb", "large"])
def test_a_mirror_file_larger_than_its_binding_is_refused_before_hashing(suite, tmp_path, content, refusal):  # type: ignore[no-untyped-def]
    root, corpus = suite
    (corpus.mirror / "aeb" / "html" / "p2.html.gz").write_bytes(gzip.compress(content()))
    with pytest.raises(EvidenceError, match=r"source file aeb/html/p2\.html\.gz: .*p2\.html\.gz: " + refusal):
        fetch_evidence(root, into=tmp_path / "inputs", mirror=corpus.mirror)
