"""The files of a lexbench checkout that pytest or Python could load, compared with its commit
(issue 19: a certified run certifies only code that is committed)."""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import sys
from dataclasses import dataclass
from pathlib import Path

LOADABLE_NAMES = frozenset({"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "conftest.py"})
"""Files pytest reads for its configuration or loads as plugins, whatever their folder."""
LOADABLE_SUFFIXES = (".py", ".pyw", ".pyc", ".pth", ".so", ".pyd")
"""Files Python may import or execute: sources, bytecode without source, ``.pth`` path hooks (run by
``site`` when their folder is a site directory) and extension modules."""
SKIPPED_DIRS = frozenset({".git", "build", "runs", "node_modules", "__pycache__"})
"""Folders not scanned as files: git's own store; ``build/`` (pip's and the imported suites' output) and
``runs/`` (run records), both ignored by git and never on ``sys.path`` nor collected by a benchmark
session (it collects ``cases/`` only); the Node worker's ``node_modules``; and ``__pycache__``, the
bytecode cache, which Python uses only beside its source: each cache it would load instead of a
source is checked to hold that source's code (:func:`_forged_caches`). A folder holding ``pyvenv.cfg``
(the project's ``.venv``) is the Python environment, identified in the manifest by its package
versions, and is skipped too."""


@dataclass(frozen=True)
class LoadableTree:
    """What :func:`loadable_tree` found: ``files`` loadable files, ``sha256`` over their paths and
    contents, ``differing`` the paths (relative, sorted) that are not in the commit as they are, and
    ``outside_sys_path`` the ``sys.path`` folders outside the checkout and the Python environment."""

    files: int
    sha256: str
    differing: list[str]
    outside_sys_path: list[str]


def _blob_sha1(data: bytes) -> str:
    # git's object name of a blob: the commit holds a file exactly when these match.
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _loadable(name: str) -> bool:
    return name in LOADABLE_NAMES or name.endswith(LOADABLE_SUFFIXES)


def _forged_caches(folder: Path) -> list[Path]:
    """The bytecode caches in ``folder/__pycache__`` that this Python would load in place of a source
    of ``folder`` (its cache tag and magic number; a timestamp header naming the source's time and
    size, or a hash-based one) but whose code is not that source's: Python checks only the header."""
    forged = []
    tag = sys.implementation.cache_tag
    for cache in sorted((folder / "__pycache__").glob(f"*.{tag}*.pyc")):
        stem, _, rest = cache.name.partition(f".{tag}")
        optimize = {".pyc": 0, ".opt-1.pyc": 1, ".opt-2.pyc": 2}.get(rest)
        source = folder / f"{stem}.py"
        if optimize is None or cache.is_symlink() or not source.is_file() or source.is_symlink():
            continue
        data = cache.read_bytes()
        if len(data) < 16 or data[:4] != importlib.util.MAGIC_NUMBER:
            continue  # Python would recompile it
        flags = int.from_bytes(data[4:8], "little")
        info = source.stat()
        if not flags & 1 and data[8:16] != ((int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                                            + (info.st_size & 0xFFFFFFFF).to_bytes(4, "little")):
            continue  # a stale cache: Python recompiles the source
        try:
            cached = marshal.loads(data[16:])
            compiled = compile(source.read_bytes(), str(source), "exec", dont_inherit=True, optimize=optimize)
        except (ValueError, EOFError, TypeError, SyntaxError):
            forged.append(cache)
            continue
        if cached != compiled:
            forged.append(cache)
    return forged


def loadable_tree(root: Path, ls_tree: str) -> LoadableTree:
    """Compare every file under the checkout ``root`` that pytest or Python could load with the commit
    (``ls_tree``: ``git ls-tree -r -z --full-tree HEAD``'s output).

    Loadable: :data:`LOADABLE_NAMES` and :data:`LOADABLE_SUFFIXES` anywhere in the tree, except under
    :data:`SKIPPED_DIRS` and virtual environments; ignored by git or not, since ``.gitignore`` does not
    stop an import. A symbolic link counts by its target path (as git stores it), and a linked folder
    counts as loadable (its files could be). A file differs when the commit lacks it or holds other
    bytes; a loadable file of the commit missing on disk differs too, and so does a bytecode cache
    Python would load whose code is not its source's. Raises ``ValueError`` when
    ``ls_tree`` is not git's format.
    """
    committed: dict[str, str] = {}
    for entry in filter(None, ls_tree.split("\0")):
        meta, path = entry.split("\t", 1)
        committed[path] = meta.split()[2]
    found: dict[str, str] = {}  # relative path -> sha256 of what Python would read
    differing: set[str] = set()
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if "__pycache__" in dirs:
            differing |= {path.relative_to(root).as_posix() for path in _forged_caches(here)}
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not (here / d / "pyvenv.cfg").exists()]
        for name in dirs + files:
            path = here / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                if not (_loadable(name) or path.is_dir()):
                    continue
                data = os.readlink(path).encode()
            elif name in files and _loadable(name):
                data = path.read_bytes()
            else:
                continue
            found[relative] = hashlib.sha256(data).hexdigest()
            if committed.get(relative) != _blob_sha1(data):
                differing.add(relative)
    differing |= {path for path in committed if _loadable(path.rsplit("/", 1)[-1]) and path not in found
                  and not any(part in SKIPPED_DIRS for part in path.split("/"))}
    digest = hashlib.sha256("".join(f"{path}\0{sha}\n" for path, sha in sorted(found.items())).encode())
    environment = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    outside = []
    for entry in sys.path:
        where = Path(entry or os.getcwd()).resolve()
        if where == root or root in where.parents or any(where == e or e in where.parents for e in environment):
            continue
        if where.exists():
            outside.append(str(where))
    return LoadableTree(files=len(found), sha256=digest.hexdigest(), differing=sorted(differing),
                        outside_sys_path=sorted(set(outside)))
