"""Certification certifies only committed code (issue 19, item 11): a file pytest or Python could load
that is untracked, ignored, modified or deleted anywhere in the checkout stops a certified run, and
the certified tree is recorded. Each test is marked ``attack`` and counted under "reliability figures"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.run.certify import certification_problems
from lexbench.run.record import code_state
from tests.suite_factory import ARTICLES, write_suite

REPO = Path(__file__).resolve().parents[2]
GIT = shutil.which("git")
pytestmark = [pytest.mark.skipif(GIT is None, reason="git is not installed"), pytest.mark.slow]  # runs git

PLANTED_CONFTEST = '''import lexbench.scoring as scoring
from lexbench.verdict import Outcome

_evaluate = scoring.evaluate_response


def _always_pass(case, result):
    verdict = _evaluate(case, result)
    return verdict.model_copy(update={"outcome": Outcome.PASS})


scoring.evaluate_response = _always_pass
'''


def git(root: Path, *args: str) -> str:
    return subprocess.run([GIT, "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}).stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A committed checkout shaped like lexbench's: package, providers, cases, root conftest and config."""
    root = tmp_path / "checkout"
    for path, text in {"lexbench/__init__.py": "", "providers/providers.example.json": "{}\n",
                       "conftest.py": 'pytest_plugins = ["lexbench.plugin"]\n', "pyproject.toml": "[project]\n",
                       "cases/demo/dataset.json": "{}\n", ".gitignore": ".venv/\nbuild/\nlocal_*.py\n"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root.parent, "init", "-q", str(root))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def certify(code: dict) -> list[str]:
    return certification_problems(providers_option="reference-echo", keyword="", markexpr="", code=code,
                                  credential_variables=[], suite_root=Path("/nonexistent"), review_status="reviewed",
                                  environ={})[1]


def plant(root: Path, path: str, text: str = "import os\n") -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


@pytest.mark.attack(item=11)
@pytest.mark.parametrize("planted", ["cases/conftest.py", "cases/demo/conftest.py", "sitecustomize.py", "json.py",
                                     "cases/helper.pth", "pytest.ini", "tox.ini", "setup.cfg", "lexbench/extra.pyc",
                                     "local_override.py", "pyproject.toml", "conftest.py", "deleted:conftest.py",
                                     "link:cases/code"])
def test_any_loadable_file_that_differs_from_the_commit_stops_certification(checkout, planted):
    clean = code_state(checkout / "lexbench")["git"]
    assert clean["uncommitted"] == [] and clean["tree"] == git(checkout, "rev-parse", "HEAD^{tree}").strip()
    assert not any("could load" in p for p in certify({"git": clean}))
    kind, _, path = planted.rpartition(":")
    if kind == "deleted":
        (checkout / path).unlink()
    elif kind == "link":
        (checkout / "elsewhere").mkdir()
        (checkout / path).symlink_to(checkout / "elsewhere", target_is_directory=True)
    else:
        plant(checkout, path, PLANTED_CONFTEST)
    state = code_state(checkout / "lexbench")["git"]
    assert state["uncommitted"] == [path]
    assert state["loadable_sha256"] != clean["loadable_sha256"] or kind == "deleted"
    problems = certify({"git": state})
    assert any(f"could load or that lexbench runs ({path})" in p for p in problems), problems


@pytest.mark.attack(item=11)
def test_the_environment_build_output_caches_and_data_do_not_count(checkout):
    plant(checkout, ".venv/pyvenv.cfg", "home = /usr/bin\n")
    plant(checkout, ".venv/lib/python3.11/site-packages/anything.py")
    plant(checkout, "build/lib/lexbench/__init__.py")
    plant(checkout, "lexbench/__pycache__/__init__.cpython-311.pyc")
    plant(checkout, "cases/demo/notes.txt")
    state = code_state(checkout / "lexbench")["git"]
    assert state["uncommitted"] == [] and state["loadable_files"] == 3  # lexbench/__init__.py, conftest.py, toml
    assert not any("could load" in p for p in certify({"git": state}))


@pytest.mark.attack(item=11)
def test_a_forged_bytecode_cache_beside_a_committed_source_stops_certification(checkout):
    """Python loads ``__pycache__/<module>.<tag>.pyc`` instead of its source when the cache's header
    names the source's modification time and size; the code inside is not checked. A forged cache with
    that header runs planted code while every source is as committed. A cache Python wrote itself counts
    as nothing."""
    import importlib.util
    import marshal
    import py_compile
    import struct

    source = checkout / "lexbench" / "rule.py"
    source.write_text('VALUE = "honest"\n')
    git(checkout, "add", "-A")
    git(checkout, "commit", "-q", "-m", "rule")
    cache = Path(importlib.util.cache_from_source(str(source)))
    py_compile.compile(str(source), cfile=str(cache), doraise=True)
    assert code_state(checkout / "lexbench")["git"]["uncommitted"] == []  # a cache of the committed source
    info = source.stat()
    header = importlib.util.MAGIC_NUMBER + struct.pack("<III", 0, int(info.st_mtime) & 0xFFFFFFFF,
                                                       info.st_size & 0xFFFFFFFF)
    cache.write_bytes(header + marshal.dumps(compile('VALUE = "planted"', str(source), "exec")))
    loaded = subprocess.run([sys.executable, "-c", "import lexbench.rule as r; print(r.VALUE)"], cwd=checkout,
                            capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "planted"  # Python itself runs the forged cache
    relative = cache.relative_to(checkout).as_posix()
    state = code_state(checkout / "lexbench")["git"]
    assert state["uncommitted"] == [relative]
    assert any(f"could load or that lexbench runs ({relative})" in p for p in certify({"git": state}))


@pytest.mark.attack(item=11)
def test_a_planted_conftest_in_a_clone_of_lexbench_is_refused_and_a_clean_clone_certifies(tmp_path):
    """The attack as it was reproduced: an untracked ``cases/conftest.py`` that makes every verdict a
    pass, in a checkout of this repository, with ``pytest --certified``."""
    clone = tmp_path / "lexbench"
    git(tmp_path, "clone", "-q", "--no-hardlinks", str(REPO), str(clone))
    if git(REPO, "status", "--porcelain", "--untracked-files=no").strip():
        pytest.skip("this checkout has uncommitted changes: the clone (of HEAD) would not be the code under test")
    command = [sys.executable, "-m", "pytest", "--suite=demo", "--providers=reference-echo", "--certified", "-q",
               "-p", "no:randomly", f"--run-dir={tmp_path / 'run'}"]
    plant(clone, "cases/conftest.py", PLANTED_CONFTEST)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    refused = subprocess.run(command, cwd=clone, capture_output=True, text=True, timeout=600, env=env)
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR, refused.stdout + refused.stderr
    assert "cannot be certified" in refused.stderr and "cases/conftest.py" in refused.stderr
    (clone / "cases" / "conftest.py").unlink()
    certified = subprocess.run(command, cwd=clone, capture_output=True, text=True, timeout=600, env=env)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["certification"]["certified"] is True, certified.stdout + certified.stderr
    tree = manifest["certification"]["tree"]
    assert tree["tree"] == git(clone, "rev-parse", "HEAD^{tree}").strip() and len(tree["loadable_sha256"]) == 64


@pytest.mark.attack(item=11)
def test_a_pytest_project_outside_the_checkout_is_not_certified(pytester, tmp_path):
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    suite = write_suite(pytester.path / "suite", ARTICLES[:1])
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo", "--certified",
                                           f"--run-dir={tmp_path / 'run'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "is not the lexbench checkout" in result.stderr.str()
