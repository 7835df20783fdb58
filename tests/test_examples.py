"""The shipped ``examples/`` run what they claim (issue 20, item 6): every ``pytest``/``lexbench``
command in them parses with the plugin's and the CLI's own argument parsers, each matrix job or
Indexed Job pod reads a different shard through ``--shard=auto``, and the final ``lexbench report
--merge`` names every shard's run directory. An option renamed or a path changed fails here."""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

import pytest
import yaml
from _pytest.config import get_config

from lexbench.cli import build_parser
from lexbench.run.shard import Shard

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
_SHELL_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


@pytest.fixture(scope="module")
def pytest_options():
    """pytest's own command-line parser, with xdist's and lexbench's options, as ``pytest`` builds it."""
    config = get_config()
    config.pluginmanager.import_plugin("xdist.plugin")
    config.pluginmanager.import_plugin("lexbench.plugin")
    return config._parser


def commands(script: str, variables: dict[str, str]) -> list[list[str]]:
    """The ``pytest`` and ``lexbench`` commands of a shell ``script``, with ``$NAME`` expanded from
    ``variables`` and the script's own ``name=value`` lines; a variable it cannot expand fails."""
    known = dict(variables)
    found = []
    for line in script.replace("\\\n", " ").splitlines():
        for part in re.split(r"\|\||&&|;|\bthen\b|\belse\b", line):
            words = shlex.split(part)
            if len(words) == 1 and re.fullmatch(r"\w+=\S*", words[0]):
                name, value = words[0].split("=", 1)
                known[name] = expand(value, known)
            elif words[:1] in (["pytest"], ["lexbench"]) or words[:3] == ["python", "-m", "pytest"]:
                found.append([expand(word, known) for word in words])
    return found


def expand(text: str, variables: dict[str, str]) -> str:
    def value(match: re.Match) -> str:
        name = match[1] or match[2]
        assert name in variables, f"${name} is not set in the example"
        return variables[name]
    return _SHELL_VARIABLE.sub(value, text)


def pytest_args(command: list[str]) -> list[str]:
    return command[3:] if command[0] == "python" else command[1:]


def merge_command(found: list[list[str]]):
    [merge] = [build_parser().parse_args(c[1:]) for c in found if c[0] == "lexbench"]
    assert merge.verb == "report" and merge.merge and merge.output
    return merge


def uses(step: dict, action: str) -> bool:
    return step.get("uses", "").split("@")[0] == action


def check_merge_covers(merge, run_dirs: list[str]) -> None:
    """Every shard's run directory is among the merge's RUN_DIR arguments (shell globs), the output is not."""
    for run_dir in run_dirs:
        assert any(fnmatch.fnmatchcase(run_dir, pattern) for pattern in merge.run_dirs), (run_dir, merge.run_dirs)
    assert not any(fnmatch.fnmatchcase(merge.output, pattern) for pattern in merge.run_dirs)


def test_github_actions_matrix_runs_every_shard_once_and_merges_them(pytest_options):
    workflow = yaml.safe_load((EXAMPLES / "github-actions-shards.yml").read_text())
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    assert merge_job["needs"] == "shard"
    values = shard_job["strategy"]["matrix"]["shard"]
    count = len(values)

    run_dirs, artifacts = [], []
    for position, value in enumerate(values):
        contexts = {"matrix.shard": str(value), "strategy.job-total": str(count), "strategy.job-index": str(position)}

        def evaluate(text: str) -> str:
            def context(match: re.Match) -> str:
                assert match[1] in contexts, f"unknown expression ${{{{ {match[1]} }}}}"
                return contexts[match[1]]
            return _EXPRESSION.sub(context, str(text))

        environ = {name: evaluate(value) for name, value in shard_job["env"].items()}
        assert Shard.from_option("auto", environ) == Shard(position + 1, count)
        found = [c for step in shard_job["steps"] if "run" in step for c in commands(evaluate(step["run"]), {})]
        [pytest_command] = found
        options = pytest_options.parse(pytest_args(pytest_command))
        assert options.shard == "auto" and options.run_dir
        [upload] = [step["with"] for step in shard_job["steps"] if uses(step, "actions/upload-artifact")]
        assert evaluate(upload["path"]) == options.run_dir
        run_dirs.append(options.run_dir)
        artifacts.append(evaluate(upload["name"]))
    assert len(set(run_dirs)) == len(set(artifacts)) == count

    [download] = [step["with"] for step in merge_job["steps"] if uses(step, "actions/download-artifact")]
    assert all(fnmatch.fnmatchcase(name, download["pattern"]) for name in artifacts)
    # download-artifact puts each of several artifacts in a directory named after it under `path`.
    downloaded = [f"{download['path']}/{name}" for name in artifacts]
    merge = merge_command([c for step in merge_job["steps"] if "run" in step for c in commands(step["run"], {})])
    check_merge_covers(merge, downloaded)


def test_kubernetes_indexed_job_runs_every_shard_once_and_merges_them(pytest_options):
    documents = list(yaml.safe_load_all((EXAMPLES / "k8s-indexed-job.yaml").read_text()))
    assert {d["metadata"]["labels"]["lexbench/part"] for d in documents} == {"shards", "merge"}
    [shards] = [d for d in documents if d["kind"] == "Job" and d["spec"].get("completionMode") == "Indexed"]
    [merge_job] = [d for d in documents if d["kind"] == "Job" and d is not shards]
    [claim] = [d for d in documents if d["kind"] == "PersistentVolumeClaim"]
    count = shards["spec"]["completions"]
    [container] = shards["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item["value"] for item in container["env"]}
    assert env["LEXBENCH_SHARD_COUNT"] == str(count)

    def mount(job) -> str:
        [volume] = job["spec"]["template"]["spec"]["volumes"]
        assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
        [container] = job["spec"]["template"]["spec"]["containers"]
        [mounted] = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
        return mounted["mountPath"]

    run_dirs = []
    for index in range(count):
        environ = {**env, "JOB_COMPLETION_INDEX": str(index)}  # set by the Job controller in each pod
        assert Shard.from_option("auto", environ) == Shard(index + 1, count)
        found = commands("\n".join(container["args"]), environ)
        assert found, "the shard pod runs no pytest command"
        dirs = set()
        for command in found:
            options = pytest_options.parse(pytest_args(command))
            assert options.shard == "auto"
            dirs.add(options.run_dir or options.resume)  # a retried pod resumes the same directory
        [run_dir] = dirs
        assert run_dir.startswith(mount(shards) + "/")
        run_dirs.append(run_dir)
    assert len(set(run_dirs)) == count

    [merge_container] = merge_job["spec"]["template"]["spec"]["containers"]
    merge = merge_command(commands("\n".join(merge_container["args"]), {}))
    assert mount(merge_job) == mount(shards)
    check_merge_covers(merge, run_dirs)


def test_the_example_checks_catch_a_renamed_option(pytest_options):
    with pytest.raises(pytest.UsageError, match="unrecognized arguments: --shards=auto"):
        pytest_options.parse(["--suite=demo", "--shards=auto"])
    merge = build_parser().parse_args(["report", "--merge", "runs/shard-*", "--output", "runs/merged"])
    with pytest.raises(AssertionError):
        check_merge_covers(merge, ["elsewhere/shard-1"])


@pytest.mark.slow  # runs the workflow's shell steps: two nights of pytest on the demo suite, then lexbench history
def test_the_nightly_job_keeps_runs_and_checks_the_last_two_nights(tmp_path):
    import os
    import subprocess
    import sys

    workflow = yaml.safe_load((EXAMPLES / "github-actions-nightly.yml").read_text())
    steps = workflow["jobs"]["nightly"]["steps"]
    kept = {step["with"]["path"] for step in steps if uses(step, "actions/cache/restore") or uses(step, "actions/cache/save")}
    assert kept == {"runs"}  # restored before the run, saved after it: the history is runs/ itself
    scripts = [step["run"] for step in steps if "run" in step and "pip install" not in step["run"]]
    bin_dir = str(Path(sys.executable).parent)  # the venv's pytest and lexbench, as `pip install .` puts them on PATH
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "CI")} | {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    outputs = []
    for night in (1, 2):  # two scheduled runs: the cache carries runs/ from the first to the second
        contexts = {"github.run_number": str(night), "github.run_id": str(1000 + night)}

        def evaluate(text: str) -> str:
            def context(match: re.Match) -> str:
                assert match[1] in contexts, f"unknown expression ${{{{ {match[1]} }}}}"
                return contexts[match[1]]
            return _EXPRESSION.sub(context, str(text))

        for script in scripts:
            done = subprocess.run(["bash", "-e", "-c", evaluate(script)], cwd=tmp_path, env=env, capture_output=True,
                                  text=True, timeout=1800)
            assert done.returncode == 0, (script, done.stdout[-3000:], done.stderr[-3000:])
            outputs.append(done.stdout)
        [upload] = [step["with"] for step in steps if uses(step, "actions/upload-artifact")]
        for path in evaluate(upload["path"]).split():
            assert (tmp_path / path).exists(), path
        assert (tmp_path / "runs" / f"nightly-{night}" / "report.html").is_file()
    check = outputs[-1].splitlines()
    assert any(" vs nightly-1: " in line and "0 pass → fail" in line for line in check), check
    assert check[-1].startswith("history --check: no regression")
    # The second night's report shows each provider's trend over both nights.
    assert '<h2 id="trends">Trends</h2>' in (tmp_path / "runs" / "nightly-2" / "report.html").read_text(encoding="utf-8")
