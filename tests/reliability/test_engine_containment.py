"""Issue 27, item 8 (first half): an engine's child that leaves the process group with ``setsid`` and
holds 300 MB is measured in the call's peak memory and killed with the engine — at the call's normal
end, at its deadline, and when pytest itself ends, is interrupted (SIGINT) or is killed (SIGKILL).

The engine is a stand-in for the Node worker (the ``jsdom`` engine's command line, run by this
interpreter): it double-forks a grandchild into a session of its own, which allocates 300 MB, writes
its pid to ``$HOG_PID_FILE`` and sleeps. On the old code (process groups only) the grandchild was not
in the figure (the call measured ~10 MB) and was still running after pytest had exited.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers.containment import containment_mode
from lexbench.providers.headless import HeadlessMarkdown
from tests.providers.servers import LOAD_MARGIN_S
from tests.suite_factory import ARTICLES, write_suite

pytestmark = pytest.mark.slow  # starts engine stand-ins of 300 MB

HOG_BYTES = 300 * 10**6
WAIT_S = 300.0
"""A bound on waiting for the stand-in's grandchild to report, far beyond the work."""

# The stand-in engine: `python worker.py --version`, or `python worker.py --output=html ... URL`.
# With ANSWER=never it never answers (the deadline or an interruption must end it).
WORKER = textwrap.dedent("""
    import json, os, sys, time
    if sys.argv[1:] == ["--version"]:
        print("jsdom 26.1.0 readability 0.6.0 node 20.0.0")
        sys.exit(0)
    pid_file = os.environ["HOG_PID_FILE"]
    if os.fork() == 0:
        os.setsid()                      # out of the engine's session and process group
        if os.fork() == 0:               # and re-parented to init once its parent exits
            block = bytearray(b"\\x01") * {hog}
            with open(pid_file + ".tmp", "w") as out:
                out.write(str(os.getpid()))
            os.rename(pid_file + ".tmp", pid_file)
            time.sleep(3600)
        os._exit(0)
    while not os.path.exists(pid_file):
        time.sleep(0.05)
    if os.environ.get("ANSWER") == "never":
        time.sleep(3600)
    time.sleep(0.5)                      # a few samples while the grandchild holds its memory
    print(json.dumps({{"status": 200, "final_url": sys.argv[-1], "title": "Stand-in",
                      "html": "<html><body><h1>Stand-in</h1><p>One paragraph.</p></body></html>"}}))
""").format(hog=HOG_BYTES)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while running(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return not running(pid)


def wait_for_pid(path: Path, process: subprocess.Popen | None = None) -> int:
    end = time.monotonic() + WAIT_S
    while not path.exists():
        assert process is None or process.poll() is None, f"pytest ended ({process.returncode}) before the engine ran"
        assert time.monotonic() < end, "the stand-in engine never started its grandchild"
        time.sleep(0.05)
    return int(path.read_text())


@pytest.fixture
def worker(tmp_path, monkeypatch):
    folder = tmp_path / "worker"
    (folder / "node_modules").mkdir(parents=True)  # what preflight looks for beside a Node worker
    script = folder / "worker.py"
    script.write_text(WORKER)
    pid_file = tmp_path / "hog.pid"
    monkeypatch.setenv("HOG_PID_FILE", str(pid_file))
    yield script, pid_file
    if pid_file.exists() and running(pid := int(pid_file.read_text())):
        os.kill(pid, signal.SIGKILL)  # never leave the attack's hog behind, whatever the outcome


def provider(script: Path) -> HeadlessMarkdown:
    return HeadlessMarkdown("stand-in", {"engine": "jsdom", "binary": sys.executable, "expected_version": "26.1.0",
                                         "worker": str(script)})


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


@pytest.mark.attack(item=8, issue=27)
def test_a_setsid_child_of_300_mb_is_measured_and_killed_at_the_calls_end(worker, case):
    script, pid_file = worker
    result = call_provider(provider(script), case, "http://127.0.0.1:9/page", RuntimePolicy(timeout_s=120, retries=0))
    hog = int(pid_file.read_text())
    assert result.success, result.error_message
    assert result.metadata.peak_memory_bytes >= 0.9 * HOG_BYTES, result.metadata.peak_memory_bytes
    assert result.metadata.containment == containment_mode().kind
    assert gone_within(hog, LOAD_MARGIN_S), f"the setsid grandchild {hog} outlived its call"


@pytest.mark.attack(item=8, issue=27)
def test_a_setsid_child_is_killed_at_the_deadline(worker, case, monkeypatch):
    script, pid_file = worker
    monkeypatch.setenv("ANSWER", "never")
    result = call_provider(provider(script), case, "http://127.0.0.1:9/page", RuntimePolicy(timeout_s=20, retries=0))
    assert result.error_type == "timeout", result.error_message
    hog = int(pid_file.read_text())
    assert result.metadata.peak_memory_bytes >= 0.9 * HOG_BYTES
    assert gone_within(hog, LOAD_MARGIN_S), f"the setsid grandchild {hog} outlived the deadline's kill"


@pytest.mark.attack(item=8, issue=27)
@pytest.mark.parametrize("ending", ["normal end", "SIGINT", "SIGKILL"])
def test_a_setsid_child_does_not_outlive_pytest(ending, worker, pytester, tmp_path_factory, monkeypatch):
    if ending == "SIGKILL" and containment_mode().kind != "cgroup":
        pytest.skip(f"a SIGKILLed pytest is outlived without a cgroup: {containment_mode().detail}")
    script, pid_file = worker
    if ending != "normal end":
        monkeypatch.setenv("ANSWER", "never")
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES[:1])
    config = pytester.path / "providers.json"
    config.write_text(json.dumps({"schema_version": 1, "default_providers": ["stand-in"], "providers": [
        {"name": "stand-in", "type": "headless-markdown",
         "options": {"engine": "jsdom", "binary": sys.executable, "expected_version": "26.1.0", "worker": str(script)}}]}))
    run_dir = tmp_path_factory.mktemp("runs") / "run"
    argv = [sys.executable, "-m", "pytest", f"--suite={suite}", f"--provider-config={config}", "--providers=stand-in",
            f"--run-dir={run_dir}", "--retries=0", "--fetch-timeout=600", "-q"]
    # Ctrl-C's SIGINT as a terminal delivers it: a session started from a background job (make in CI, a
    # non-interactive shell's `&`) inherits SIGINT ignored, and an ignored SIGINT never interrupts pytest.
    session = subprocess.Popen(argv, cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        hog = wait_for_pid(pid_file, session)
        if ending != "normal end":
            session.send_signal(getattr(signal, ending))
        output = session.communicate(timeout=WAIT_S)[0].decode(errors="replace")
    finally:
        if session.poll() is None:
            session.kill()
    assert gone_within(hog, LOAD_MARGIN_S), f"the setsid grandchild {hog} outlived pytest ({ending}):\n{output[-2000:]}"
    if ending == "normal end":
        row = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
        assert row["metadata"]["peak_memory_bytes"] >= 0.9 * HOG_BYTES, row["metadata"]
        assert row["metadata"]["containment"] == containment_mode().kind
        manifest = json.loads((run_dir / "manifest.json").read_text())
        assert manifest["host"]["engine_containment"]["kind"] == containment_mode().kind
