"""Property tests of every file loader (issue 11): whatever bytes a rules, cohort, dataset, binding,
provider configuration, gold tuple or run file holds, its loader either accepts it or raises the
documented error — a :class:`~lexbench.errors.LexbenchError` subclass naming the file — and nothing
else (no ``RecursionError``, ``UnicodeDecodeError``, ``AttributeError``, ``KeyError``, …).

Inputs are valid files mutated at random paths (values replaced, keys deleted or added, lists
duplicated), arbitrary JSON values, and arbitrary bytes, including ``[[[[…`` nesting, over-long
integers, lone surrogate escapes and non-UTF-8.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexbench.dataset.cohort import load_cohort
from lexbench.dataset.compile import load_dataset, load_rules
from lexbench.dataset.suite import load_suite
from lexbench.errors import LexbenchError
from lexbench.evals.gold import check_gold
from lexbench.providers import load_config
from lexbench.run.record import checked_rows
from tests.reliability.figures import count_example
from tests.suite_factory import ARTICLES, write_suite

REPO = Path(__file__).resolve().parents[2]
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                           max_size=4), max_leaves=12)
NASTY_BYTES = [b"[" * 5000, b"{\"a\":" * 3000, b"1" * 5000, b'"\\ud800"', b"\xff\xfe{}", b"\xef\xbb\xbf{}", b"NaN",
               b"1e999999", b"", b"\x00", b'{"a": 1, "a": 2}', b"\xe9"]


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> Any:
    """``document`` with one to three random edits, each at a random path."""
    doc = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        doc = _edit(draw, doc)
    return doc


def _edit(draw: st.DrawFn, node: Any) -> Any:
    if isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)) > 0:
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else list(range(len(node)))))
        node[key] = _edit(draw, node[key])
        return node
    action = draw(st.sampled_from(["replace", "delete", "add", "duplicate", "retype"]))
    if action == "delete" and isinstance(node, (dict, list)) and node:
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else list(range(len(node)))))
        del node[key]
    elif action == "add" and isinstance(node, dict):
        node[draw(st.text(max_size=12))] = draw(JSON)
    elif action == "duplicate" and isinstance(node, list) and node:
        node.append(copy.deepcopy(node[0]))
    elif action == "retype":
        return draw(st.sampled_from([[node], {"x": node}, str(node)[:40], None, -1, 10**30]))
    else:
        return draw(JSON)
    return node


def file_contents(document: Any) -> st.SearchStrategy[bytes]:
    """Bytes for one file: a mutation of ``document``, any JSON value, damaged JSON, or nasty bytes."""
    encoded = mutated(document).map(lambda d: json.dumps(d, ensure_ascii=False).encode("utf-8"))
    damaged = st.tuples(st.just(json.dumps(document).encode()), st.integers(0, 400), st.binary(max_size=8)).map(
        lambda t: t[0][: t[1]] + t[2] + t[0][t[1]:])
    return encoded | JSON.map(lambda v: json.dumps(v).encode()) | damaged | st.sampled_from(NASTY_BYTES) | st.binary(
        max_size=64)


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    cases_root = tmp_path_factory.mktemp("cases")
    return write_suite(cases_root / "tiny", ARTICLES, registry=cases_root / "registry.json")


def _document(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class Scratch:
    """A file to overwrite for one example and restore afterwards."""

    def __init__(self, path: Path) -> None:
        self.path, self.original = path, path.read_bytes()

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc: object) -> None:
        self.path.write_bytes(self.original)


def expect_only(error: type[BaseException], load: Callable[[], object]) -> None:
    """``load()`` succeeds or raises ``error``; anything else fails the test with its traceback."""
    try:
        load()
    except error as exc:
        assert str(exc).strip(), "a loader error must say what is wrong"


SUITE_FILES = ["rules.json", "cohort.json", "dataset.json", "dataset-catalog.json", "tasks.json",
               "source-inputs.json", "../registry.json"]


@pytest.mark.parametrize("name", SUITE_FILES)
def test_suite_files_load_or_fail_with_a_lexbench_error(suite: Path, name: str) -> None:
    """Each file the suite loader reads, damaged any way: the direct loader raises ``RulesError``,
    and loading the whole suite (which a run does first) raises only a ``LexbenchError``."""
    path = (suite / name).resolve()
    direct = {"rules.json": load_rules, "cohort.json": load_cohort, "dataset.json": load_dataset}.get(name)

    @given(file_contents(_document(path)))
    def check(data: bytes) -> None:
        count_example()
        with Scratch(path):
            path.write_bytes(data)
            if direct is not None:
                expect_only(LexbenchError, lambda: direct(path))
            expect_only(LexbenchError, lambda: load_suite(str(suite), cases_root=suite.parent))

    check()


def test_provider_configuration_loads_or_fails_with_a_config_error(tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    """Mutations of ``providers/providers.example.json`` (whatever providers it lists today)."""
    from lexbench.errors import ConfigError

    path = tmp_path_factory.mktemp("config") / "providers.json"
    example = _document(REPO / "providers" / "providers.example.json")

    @given(file_contents(example))
    def check(data: bytes) -> None:
        count_example()
        path.write_bytes(data)
        expect_only(ConfigError, lambda: load_config(path))

    check()


@pytest.fixture(scope="module")
def gold(suite: Path, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A one-tuple gold set over the tiny suite."""
    root = tmp_path_factory.mktemp("gold")
    dataset = _document(suite / "dataset.json")
    case = dataset["cases"][0]
    (root / "manifest.json").write_text(json.dumps({
        "schema_version": 1, "id": "gold", "description": "fuzz",
        "ranges": [{"first": 1, "last": 1, "kind": "complete-markdown", "count": 1, "expected_verdict": "pass"}],
        "totals": {"tuples": 1, "pass": 1, "fail": 0, "unresolvable": 0}, "human_expert_verdicts": 0}))
    (root / "001-complete-markdown-tides.json").write_text(json.dumps({
        "tuple_id": "001-complete-markdown-tides", "kind": "complete-markdown",
        "case": {"suite": "tiny", "id": case["id"], "reference_sha256": case["body"]["reference"]["sha256"]},
        "answer": {"success": True, "content": f"# {case['title']}\n\n{case['reference_text']}",
                   "content_format": "markdown", "api_http_status": 200, "upstream_status": 200},
        "expected_verdict": "pass", "fabrication_intent": True, "derivation": "the page", "rationale": "complete"}))
    assert check_gold(root, suite.parent) == []
    return root


@pytest.mark.parametrize("name", ["manifest.json", "001-complete-markdown-tides.json"])
def test_gold_set_files_never_break_the_checker(gold: Path, suite: Path, name: str) -> None:
    """``check_gold`` is documented never to raise: it lists problems instead."""
    path = gold / name

    @given(file_contents(_document(path)))
    def check(data: bytes) -> None:
        count_example()
        with Scratch(path):
            path.write_bytes(data)
            problems = check_gold(gold, suite.parent)
            assert all(isinstance(p, str) and p for p in problems)

    check()


@pytest.fixture(scope="module")
def run_dir(suite: Path, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A finished run of the tiny suite with the control provider."""
    import subprocess
    import sys

    project = tmp_path_factory.mktemp("project")
    (project / "pytest.ini").write_text("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    run = project / "run"
    subprocess.run([sys.executable, "-m", "pytest", f"--suite={suite}", "--providers=reference-echo",
                    f"--run-dir={run}", "-q"], cwd=project, check=True, capture_output=True, timeout=300)
    return run


@pytest.mark.slow
@pytest.mark.parametrize("name", ["manifest.json", "results.jsonl"])
def test_run_files_read_or_fail_with_a_run_error(run_dir: Path, name: str) -> None:
    """What ``--resume`` and ``lexbench report`` read: ``RunError`` for a damaged run, nothing else."""
    from lexbench.errors import RunError

    path = run_dir / name
    lines = path.read_text(encoding="utf-8").splitlines()
    document = _document(path) if name == "manifest.json" else json.loads(lines[0])

    @given(file_contents(document), st.booleans())
    def check(data: bytes, append: bool) -> None:
        count_example()
        with Scratch(path):
            path.write_bytes(path.read_bytes() + data + b"\n" if append and name != "manifest.json" else data)
            expect_only(RunError, lambda: checked_rows(run_dir))

    check()


@pytest.mark.parametrize("data", NASTY_BYTES, ids=[repr(d[:12]) for d in NASTY_BYTES])
def test_nasty_bytes_in_any_suite_file_are_a_lexbench_error(suite: Path, data: bytes) -> None:
    """The inputs that used to escape as RecursionError, ValueError or UnicodeDecodeError, always run
    (not left to the example draw): each suite file and the provider configuration."""
    for name in SUITE_FILES:
        path = (suite / name).resolve()
        with Scratch(path):
            path.write_bytes(data)
            expect_only(LexbenchError, lambda: load_suite(str(suite), cases_root=suite.parent))
    for load in (load_rules, load_cohort, load_dataset, load_config):
        path = suite.parent / "nasty.json"
        path.write_bytes(data)
        expect_only(LexbenchError, lambda: load(path))


def test_a_byte_order_mark_before_a_valid_file_is_handled_cleanly(suite: Path) -> None:
    """A BOM (an editor's habit) before any suite file: read or refused with a LexbenchError — the
    dataset's bindings used to be regenerated with json.loads, which refuses a BOM with its own error."""
    for name in SUITE_FILES:
        path = (suite / name).resolve()
        with Scratch(path):
            path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
            expect_only(LexbenchError, lambda: load_suite(str(suite), cases_root=suite.parent))


def test_a_directory_or_unreadable_path_is_a_lexbench_error(tmp_path: Path) -> None:
    """Not files at all: each loader names the path instead of leaking ``IsADirectoryError``."""
    (tmp_path / "rules.json").mkdir()
    for load in (load_rules, load_cohort, load_dataset, load_config):
        with pytest.raises(LexbenchError, match="rules.json"):
            load(tmp_path / "rules.json")


def test_copy_of_the_demo_suite_still_loads(tmp_path: Path) -> None:
    """The mutation tests start from valid files: the committed demo suite's shape loads as it is."""
    shutil.copytree(REPO / "cases" / "demo", tmp_path / "demo")
    shutil.copy(REPO / "cases" / "registry.json", tmp_path / "registry.json")
    assert load_suite("demo", cases_root=tmp_path).cases
