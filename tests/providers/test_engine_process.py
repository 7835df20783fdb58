"""Engine processes obey the runtime policy: deadline, output ceiling, kill and reap of the whole
process group, a fresh profile per call (SPEC §5)."""

from __future__ import annotations

import uuid

import pytest

from lexbench.providers.engine_process import EngineProcess, engine_processes, fresh_profile, run_process


@pytest.mark.slow
def test_a_finished_process_returns_its_output_and_status():
    run = run_process(["sh", "-c", "printf 'dom'; echo 'diagnostic' >&2; exit 3"], 10.0)
    assert (run.stdout, run.returncode, run.timed_out, run.too_large) == (b"dom", 3, False, False)
    assert "diagnostic" in run.stderr


@pytest.mark.slow
def test_the_deadline_kills_the_whole_group_and_leaves_nothing_running():
    marker = f"lexbench-test-{uuid.uuid4().hex}"
    # A child that spawns a grandchild (as a browser spawns its renderers), both outliving the deadline.
    run = run_process(["sh", "-c", f"(sleep 60; echo {marker}) & sleep 61; echo {marker}"], 0.5)
    assert run.timed_out and run.returncode == -9
    assert engine_processes(marker) == []


@pytest.mark.slow
def test_output_past_the_ceiling_kills_the_process_and_keeps_only_the_ceiling():
    run = run_process(["sh", "-c", "yes lexbench | head -c 5000000; sleep 30"], 20.0, max_output_bytes=100_000)
    assert run.too_large and not run.timed_out
    assert len(run.stdout) == 100_000


@pytest.mark.slow
def test_leaving_the_block_kills_a_long_running_engine(tmp_path):
    marker = f"lexbench-test-{uuid.uuid4().hex}"
    with EngineProcess(["sh", "-c", f"echo 'listening on port 7'; (sleep 60; echo {marker}) & sleep 61; echo {marker}"]) as process:
        match = process.wait_for_line(r"listening on port (\d+)", 5.0)
        assert match and match.group(1) == "7"
        assert engine_processes(marker)
    assert engine_processes(marker) == []


def test_each_call_gets_a_new_empty_profile_that_is_removed_afterwards():
    with fresh_profile() as first, fresh_profile() as second:
        assert first != second and not any(first.iterdir())
        (first / "Cookies").write_text("state from this call")
    assert not first.exists() and not second.exists()
