"""Data flows one way through the package: each module imports only from its own layer or earlier ones.

The layers, in order (a module belongs to the entry with the longest matching name; ``lexbench`` itself
is the package's ``__init__`` only):

====  ================  ==========================================================================
  0   leaves            ``lexbench`` ``errors`` ``jsonfile`` ``charsets`` ``answer`` ``verdict``
                        ``text`` (the text normal form the dataset and the scorer share)
                        ``resources`` (where the suites, workers and schemas are: checkout or wheel)
  1   dataset           ``lexbench.dataset`` (cases, cohort, compile, bindings, checks, suite, ``archive``
                        (web-archive captures), ``recorder`` (records one into an archive), ...)
  2   replay/providers  ``replay`` (``replay_log``: its tokens and bounded log; ``replay_transport``),
                        ``lexbench.providers``, ``lexbench.workers`` (standalone worker scripts)
  3   scoring           ``lexbench.scoring``
  4   importers         ``dataset.importers``, ``dataset.evidence``, ``dataset.selection``,
                        ``dataset.built_site`` (a suite built from source and recorded) and its
                        ``dataset.archive_commands`` (the record-archive verb): build
                        datasets from corpora; two formats check a capture against its contract with
                        the scorer, so they come after it
  5   run               ``lexbench.run`` (the run record: session, rows, record, shards, certification,
                        run directory, statistics, checkout state)
  6   report            ``lexbench.report`` (the figures, Markdown/JSON/terminal, HTML, memory)
  7   history           ``lexbench.history`` (every run directory read in place with DuckDB: trends, SQL
                        views, the paired regression check, the trend panel); it reads run records and
                        reuses the report's figures, so it comes after both
  8   evals             ``lexbench.evals``
  9   entry points      ``cli``, ``plugin``
====  ================  ==========================================================================

Every import counts, at module level or inside a function; imports under ``if TYPE_CHECKING:`` count
for the layers too (a type from a later layer is still the flow running backwards). The module graph
(importing ``a.b.c`` also runs the packages ``a`` and ``a.b``) has no cycle.
"""

from __future__ import annotations

import pytest

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lexbench"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("leaves", ("lexbench", "lexbench.errors", "lexbench.jsonfile", "lexbench.charsets", "lexbench.answer",
                "lexbench.verdict", "lexbench.text", "lexbench.resources")),
    ("dataset", ("lexbench.dataset",)),
    ("replay/providers", ("lexbench.replay", "lexbench.replay_log", "lexbench.replay_transport", "lexbench.providers",
                          "lexbench.workers")),
    ("scoring", ("lexbench.scoring",)),
    ("importers", ("lexbench.dataset.importers", "lexbench.dataset.evidence", "lexbench.dataset.selection",
                   "lexbench.dataset.built_site", "lexbench.dataset.archive_commands")),
    ("run", ("lexbench.run",)),
    ("report", ("lexbench.report",)),
    ("history", ("lexbench.history",)),
    ("evals", ("lexbench.evals",)),
    ("entry points", ("lexbench.cli", "lexbench.plugin")),
)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the lexbench module imported (the longest existing module name)
    where: str  # path:line
    runtime: bool  # False under ``if TYPE_CHECKING:``


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package by dotted name → (file, is a package)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]  # a name may be a submodule


def _under_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports() -> list[Import]:
    """Every import of a lexbench module inside the package."""
    known = modules()
    found = []
    for module, (path, is_package) in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            resolved = set()
            for target in _targets(module, is_package, node):
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    resolved.add(target)
            for target in sorted(resolved):
                found.append(Import(module, target, f"{path.relative_to(ROOT)}:{node.lineno}",
                                    not _under_type_checking(node, parents)))
    return found


def layer_of(module: str) -> int | None:
    """The index of ``module``'s layer in :data:`LAYERS`, or ``None`` when no entry names it."""
    best: tuple[int, int] | None = None  # (length of the matching name, layer)
    for index, (_, names) in enumerate(LAYERS):
        for name in names:
            matches = module == name or (name != "lexbench" and module.startswith(name + "."))
            if matches and (best is None or len(name) > best[0]):
                best = (len(name), index)
    return None if best is None else best[1]


def test_every_module_has_a_layer():
    unplaced = sorted(m for m in modules() if layer_of(m) is None)
    assert not unplaced, f"add these modules to the layer table in {Path(__file__).name}: {unplaced}"


def test_no_module_imports_from_a_later_layer():
    backwards = []
    for imp in imports():
        source, target = layer_of(imp.source), layer_of(imp.target)
        if source is not None and target is not None and target > source:
            backwards.append(f"{imp.where}: {imp.source} ({LAYERS[source][0]}) imports {imp.target} "
                             f"({LAYERS[target][0]}), a later layer")
    assert not backwards, "imports against the flow:\n" + "\n".join(backwards)


def _graph() -> dict[str, set[str]]:
    """Runtime import edges, including the parent packages an import runs (not within one's own package)."""
    known = modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for imp in imports():
        if not imp.runtime:
            continue
        parts = imp.target.split(".")
        for end in range(1, len(parts) + 1):
            target = ".".join(parts[:end])
            if target in known and target != imp.source and not imp.source.startswith(target + "."):
                graph[imp.source].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_module_graph_has_no_cycle():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" ↔ ".join(c) for c in cycles)


HEAVY = ("httpx", "httpcore", "lxml_html_clean", "trafilatura", "readability", "playwright", "markdownify")


def _loaded_after(code: str, *args: str) -> list[str]:
    """The modules loaded in a fresh interpreter after running ``code`` (which must not print to stdout)."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def _heavy(loaded: list[str]) -> list[str]:
    return [m for m in loaded if m.split(".")[0] in HEAVY]


@pytest.mark.slow  # a fresh interpreter, so sys.modules shows only what the import loads
def test_importing_the_scorer_loads_no_provider_and_no_fetch_library():
    loaded = _loaded_after("import lexbench.scoring")
    assert _heavy(loaded) == []
    assert [m for m in loaded if m.startswith("lexbench.providers")] == []


@pytest.mark.slow  # a fresh interpreter, so sys.modules shows only what the import loads
def test_lexbench_report_loads_no_adapter_and_no_fetch_library(tmp_path):
    # The report verb imports everything it needs before it finds the directory holds no run.
    loaded = _loaded_after("import contextlib, io, sys\nfrom lexbench.cli import main\n"
                           "with contextlib.redirect_stdout(io.StringIO()):\n    main(['report', sys.argv[1]])",
                           str(tmp_path))
    assert "lexbench.report.render" in loaded and "lexbench.run.record" in loaded
    assert _heavy(loaded) == []
    assert [m for m in loaded if m.startswith("lexbench.providers.")] == []
