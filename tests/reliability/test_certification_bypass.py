"""Certification bypassed and forged (issue 27, items 4 and 5), each attack as it was reproduced: in a
clone of this repository, ``pytest --certified`` over the demo suite with a planted scorer patch that
makes every verdict a pass; and shards whose manifests and rows are edited before ``report --merge``.
Each test is marked ``attack`` and counted under "reliability figures"."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from lexbench.cli import main as lexbench
from tests.reliability.test_certification import GIT, REPO, git

pytestmark = [pytest.mark.skipif(GIT is None, reason="git is not installed"), pytest.mark.slow]  # git, pytest

# A planted plugin or conftest: every verdict of the scorer (as the items call it) becomes a pass.
ALWAYS_PASS = '''import lexbench.scoring.budget as budget
from lexbench.verdict import Outcome

_evaluate = budget.evaluate_response
budget.evaluate_response = lambda *args, **kwargs: _evaluate(*args, **kwargs).model_copy(update={"outcome": Outcome.PASS})
'''
# Code run at Python's start by a planted .pth line: the same, as soon as lexbench.scoring.budget is imported
# (pytest's assertion rewriter imports lexbench, an entry-point plugin, so an import hook would not see it).
PATCH_ON_IMPORT = '''import builtins, sys

_import = builtins.__import__


def _patched_import(*args, **kwargs):
    module = _import(*args, **kwargs)
    budget = sys.modules.get("lexbench.scoring.budget")
    if budget is not None and hasattr(budget, "evaluate_response") and not hasattr(budget, "_planted"):
        evaluate = budget._planted = budget.evaluate_response
        from lexbench.verdict import Outcome
        budget.evaluate_response = lambda *a, **k: evaluate(*a, **k).model_copy(update={"outcome": Outcome.PASS})
    return module


builtins.__import__ = _patched_import
'''
UNSET = ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of this repository's HEAD (the code under test only when nothing is uncommitted)."""
    if git(REPO, "status", "--porcelain", "--untracked-files=no").strip():
        pytest.skip("this checkout has uncommitted changes: the clone (of HEAD) would not be the code under test")
    clone = tmp_path_factory.mktemp("certify") / "lexbench"
    git(clone.parent, "clone", "-q", "--no-hardlinks", str(REPO), str(clone))
    return clone


def bench(clone: Path, run_dir: Path, *options: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m pytest --suite=demo`` in the clone, with this Python and its environment."""
    environ = {k: v for k, v in os.environ.items() if k not in UNSET}
    return subprocess.run([sys.executable, "-m", "pytest", "--suite=demo", "-q", "-p", "no:randomly",
                           f"--run-dir={run_dir}", *options], cwd=clone, capture_output=True, text=True,
                          timeout=600, env={**environ, **(env or {})})


def site_packages() -> Path:
    return Path(site.getsitepackages()[0])


@pytest.mark.attack(item=4, issue=27)
@pytest.mark.parametrize("bypass", ["pyvenv.cfg beside a conftest", "cases/runs/conftest.py", ".pth in the venv",
                                    "PYTEST_ADDOPTS=-p plugin"])
def test_planted_code_does_not_certify(clone, tmp_path, bypass):
    """Each bypass ran 60/60 ``certified: true`` with ``uncommitted: []``. Now the run is refused before its
    first item, naming the planted file."""
    token = f"lexbench_attack_{uuid.uuid4().hex[:12]}"
    env: dict[str, str] = {}
    if bypass == "pyvenv.cfg beside a conftest":
        planted = [clone / "cases" / "pyvenv.cfg", clone / "cases" / "conftest.py"]
        planted[0].write_text("home = /usr/bin\n")
        planted[1].write_text(ALWAYS_PASS)
        named = "cases/conftest.py"
    elif bypass == "cases/runs/conftest.py":
        (clone / "cases" / "runs").mkdir()
        planted = [clone / "cases" / "runs" / "conftest.py", clone / "cases" / "runs"]
        planted[0].write_text(ALWAYS_PASS)
        named = "cases/runs/conftest.py"
    elif bypass == ".pth in the venv":
        # Inert in every other process: it runs the patch only when this test's variable names it.
        payload = tmp_path / "payload.py"
        payload.write_text(PATCH_ON_IMPORT)
        planted = [site_packages() / f"{token}.pth"]
        planted[0].write_text(f'import os; p = os.environ.get("{token.upper()}"); p and exec(open(p).read(), {{}})\n')
        env = {token.upper(): str(payload)}
        named = str(planted[0])
    else:
        planted = [site_packages() / f"{token}.py"]  # importable, but only this run names it
        planted[0].write_text(ALWAYS_PASS)
        env = {"PYTEST_ADDOPTS": f"-p {token}"}
        named = str(planted[0])
    try:
        result = bench(clone, tmp_path / "run", "--providers=reference-echo,trafilatura", "--certified", env=env)
    finally:
        for path in planted:
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout[-2000:] + result.stderr
    assert "cannot be certified" in result.stderr and named in result.stderr, result.stderr
    assert not (tmp_path / "run" / "results.jsonl").exists()


def merge(shards: list[Path], output: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = lexbench(["report", "--merge", *map(str, shards), "--output", str(output)])
    return code, capsys.readouterr().err


@pytest.mark.attack(item=5, issue=27)
def test_shards_never_run_certified_do_not_merge_as_certified(clone, tmp_path, capsys):
    """Two shards run without ``--certified``, their manifests edited to say they were certified, merged
    into a report that said "Certified run". Now the merge is refused: neither holds a certification record."""
    shards = [tmp_path / "part1", tmp_path / "part2"]
    for k, shard in enumerate(shards, 1):
        result = bench(clone, shard, "--providers=reference-echo", f"--shard={k}/2")
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        manifest = json.loads((shard / "manifest.json").read_text())
        manifest["run"]["certified_requested"] = True
        manifest["certification"] = {"requested": True, "checks": [], "problems": [], "certified": True, "tree": {}}
        (shard / "manifest.json").write_text(json.dumps(manifest, indent=2))
    code, err = merge(shards, tmp_path / "all", capsys)
    assert code == 2 and "holds no certification record" in err and str(shards[1]) in err, err
    assert not (tmp_path / "all" / "report.md").exists()


@pytest.mark.attack(item=5, issue=27)
def test_a_shard_relabelled_with_another_configuration_does_not_merge(clone, tmp_path, capsys):
    """A certified shard run under another configuration (``--retries=0``), relabelled with shard 1's
    configuration in its manifest and rows, merged with no approvals registry into a certified run. Now
    its certification record no longer describes it and the merge is refused; the honest shards merge
    into a certified run."""
    one, two, other = tmp_path / "part1", tmp_path / "part2", tmp_path / "part2-retries0"
    for shard, options in ((one, ["--shard=1/2"]), (two, ["--shard=2/2"]), (other, ["--shard=2/2", "--retries=0"])):
        result = bench(clone, shard, "--providers=reference-echo", "--certified", *options)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    label = json.loads((one / "manifest.json").read_text())
    manifest = json.loads((other / "manifest.json").read_text())
    assert manifest["configuration_sha256"] != label["configuration_sha256"]
    rows = (other / "results.jsonl").read_text().replace(manifest["configuration_sha256"], label["configuration_sha256"])
    (other / "results.jsonl").write_text(rows)
    for key in ("configuration", "configuration_sha256", "runtime_policy", "fetch_timeout_s", "provider_config"):
        manifest[key] = label[key]
    (other / "manifest.json").write_text(json.dumps(manifest, indent=2))
    code, err = merge([one, other], tmp_path / "relabelled", capsys)
    assert code == 2 and f"{other}: its rows are not the rows it certified" in err, err
    assert "configuration_sha256" in err and not (tmp_path / "relabelled" / "report.md").exists()

    code, err = merge([one, two], tmp_path / "honest", capsys)
    assert code == 0, err
    merged = json.loads((tmp_path / "honest" / "manifest.json").read_text())
    assert merged["certification"]["certified"] is True and len(merged["certification"]["record"]["shards"]) == 2
    assert "Certified run" in (tmp_path / "honest" / "report.md").read_text()
