"""What a certified session loaded, and where each piece of it comes from (issue 27, item 4; SPEC §6).

:mod:`lexbench.run.checkout` compares the checkout's files with its commit, but code also reaches a pytest
session from the Python environment: a plugin named by ``-p`` (on the command line, in
``PYTEST_ADDOPTS`` or the ini's ``addopts``) or by ``PYTEST_PLUGINS``, an installed ``pytest11`` entry
point, a ``.pth`` file of a site directory (``site`` runs its ``import`` lines at every start of
Python), ``sitecustomize``. :func:`loaded_code` records every registered pytest plugin and conftest,
every module Python has imported and every ``.pth`` file of the site directories, each with its file's
sha256 and its origin:

- ``checkout``: a file of the lexbench checkout exactly as its commit holds it (git's blob name);
- ``lexbench``: a file of the installed lexbench distribution, matching the sha256 its ``RECORD`` lists;
- ``pinned``: a file of an installed distribution of lexbench's dependency closure — a requirement of
  lexbench (``pyproject.toml``'s exact pins, every extra included) or, transitively, of one of those —
  whose installed version the requirement allows, matching the sha256 its ``RECORD`` lists;
- ``installer``: a file of pip or setuptools (the environment's installer; setuptools'
  ``distutils-precedence.pth`` runs at every start), matching its ``RECORD``;
- ``python``: the interpreter's standard library (its ``stdlib`` folders, outside any site directory).

Anything else — a file no ``RECORD`` lists, a file whose bytes differ from its ``RECORD``, a
distribution outside the closure or at another version, a file outside the checkout and the
environment, a checkout file its commit does not hold — is *foreign*: a certified run refuses it.

What this proves, and what it cannot: that every piece of code loaded when the run was certified is
the checkout's commit, or a file as its installed distribution's ``RECORD`` describes it, or the
standard library. ``RECORD`` files and the standard library are the environment's own word: whoever
can rewrite an installed file can rewrite its ``RECORD`` line too, so this stops a planted plugin,
``.pth`` file or conftest, not an attacker who controls the Python installation. Modules imported after
the check (a provider's engine loaded by its first item, in the controller or an xdist worker) are not
in the record; they come from the same checked distributions unless their files were changed.

I/O: reads the loaded files, the site directories and the distributions' metadata; runs nothing.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import os
import site
import subprocess
import sys
import sysconfig
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion

from lexbench.jsonfile import canonical_sha256
from lexbench.run.checkout import blob_sha1, parse_ls_tree

ENVIRONMENT_VARIABLES = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTHONPATH",
                         "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
                         "PYTHONINSPECT", "PYTHONPLATLIBDIR", "PYTHONEXECUTABLE")
"""The environment variables that change which code a pytest session loads (recorded as set, or absent)."""
INSTALLER_DISTRIBUTIONS = frozenset({"pip", "setuptools"})
"""The environment's installer (``python -m venv`` puts them there): allowed when their files match their ``RECORD``."""
_SITE_FOLDERS = frozenset({"site-packages", "dist-packages"})


@dataclass(frozen=True)
class Origin:
    """Where one loaded file comes from: ``kind`` (``checkout``, ``lexbench``, ``pinned``, ``installer``,
    ``python`` or ``foreign``) and ``detail`` (the distribution and version, or why it is foreign)."""

    kind: str
    detail: str = ""

    @property
    def foreign(self) -> bool:
        return self.kind == "foreign"

    def __str__(self) -> str:
        return f"{self.kind} {self.detail}".strip()


@dataclass(frozen=True)
class _Owner:
    name: str  # canonical distribution name
    version: str
    hash: str | None  # RECORD's "sha256=<urlsafe base64>", None when listed without one


def site_directories() -> list[Path]:
    """The site directories of this Python, whose ``.pth`` files ``site`` runs at start: the
    environment's ``site-packages`` and, when enabled, the user's."""
    folders = [Path(p) for p in site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(Path(site.getusersitepackages()))
    unique: dict[Path, Path] = {}  # by the folder it is: lib64/ → lib/ is one site directory
    for folder in folders:
        if folder.is_dir():
            unique.setdefault(folder.resolve(), folder)
    return list(unique.values())


def _installed(site_dirs: Sequence[Path]) -> tuple[dict[str, _Owner], dict[str, metadata.Distribution]]:
    """Every file the distributions installed in ``site_dirs`` list in their ``RECORD`` (normalised
    absolute path → owner), and the distributions by canonical name (the first found, as import finds it)."""
    owners: dict[str, _Owner] = {}
    dists: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions(path=[str(folder) for folder in site_dirs]):
        name = canonicalize_name(dist.metadata["Name"] or "")
        if not name or name in dists:
            continue
        dists[name] = dist
        base, version = str(dist.locate_file("")), dist.version  # each reads and parses METADATA
        # RECORD read as CSV here: importlib.metadata's ``files`` makes an object per file (28k: 11 s).
        for line in csv.reader((dist.read_text("RECORD") or "").splitlines()):
            if line:
                where = os.path.normpath(os.path.join(base, line[0]))
                owners.setdefault(where, _Owner(name, version, line[1] if len(line) > 1 and line[1] else None))
    return owners, dists


def lexbench_requirements(root: Path | None, dists: Mapping[str, metadata.Distribution]) -> list[str]:
    """lexbench's requirements, every extra included: from the checkout's ``pyproject.toml`` (committed:
    the checkout is checked) when ``root`` holds one, else from the installed lexbench's metadata (its
    ``extra`` markers dropped). Empty when neither is there."""
    if root is not None and (root / "pyproject.toml").is_file():
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
        return [*project.get("dependencies", []), *(r for extra in project.get("optional-dependencies", {}).values()
                                                    for r in extra)]
    dist = dists.get("lexbench")
    return [r.split(";", 1)[0] for r in (dist.requires or [])] if dist else []


def dependency_closure(requirements: Iterable[str], dists: Mapping[str, metadata.Distribution]) -> dict[str, str]:
    """The pinned distributions (canonical name → version): each installed distribution a requirement
    names whose installed version the requirement allows, and transitively the same for their own
    requirements (markers evaluated for this Python and the extras asked for). A requirement whose
    installed version it does not allow stops there: that distribution is not pinned."""
    pinned: dict[str, str] = {}
    pending: list[tuple[str, frozenset[str]]] = [(text, frozenset()) for text in requirements]
    while pending:
        text, extras = pending.pop()
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is not None and not any(requirement.marker.evaluate({"extra": extra})
                                                      for extra in (extras or {""})):
            continue
        name = canonicalize_name(requirement.name)
        dist = dists.get(name)
        if dist is None or name in pinned:
            continue
        try:
            allowed = requirement.specifier.contains(dist.version, prereleases=True)
        except InvalidVersion:
            allowed = False
        if allowed:
            pinned[name] = dist.version
            pending += [(nested, frozenset(requirement.extras) | {""}) for nested in dist.requires or ()]
    return pinned


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


class Provenance:
    """Says where a loaded file comes from (:class:`Origin`): the checkout at ``root`` (``committed``:
    :func:`lexbench.run.checkout.parse_ls_tree` of its commit; ``root`` ``None`` for an installed
    lexbench), the installed distributions of ``site_dirs``, or the standard library."""

    def __init__(self, root: Path | None, committed: Mapping[str, str], site_dirs: Sequence[Path]) -> None:
        self.root = root.resolve() if root is not None else None
        self.committed = committed
        self.owners, self.dists = _installed(site_dirs)
        self.pinned = dependency_closure(lexbench_requirements(root, self.dists), self.dists)
        self.environment = [Path(p).resolve() for p in dict.fromkeys((sys.prefix, sys.exec_prefix))]
        self.stdlib = [Path(sysconfig.get_paths()[key]).resolve() for key in ("stdlib", "platstdlib")]

    def display(self, path: Path) -> str:
        """``path`` relative to the checkout when inside it, else absolute."""
        resolved = path.resolve()
        if self.root is not None and (resolved == self.root or self.root in resolved.parents):
            return resolved.relative_to(self.root).as_posix()
        return str(path)

    def origin(self, path: Path, data: bytes) -> Origin:
        """Where the file at ``path`` with contents ``data`` comes from (see the module docstring)."""
        owner = self.owners.get(os.path.normpath(os.path.abspath(path)))
        resolved = path.resolve()
        if owner is None and resolved != path:
            owner = self.owners.get(str(resolved))
        if owner is not None:
            return self._owned(owner, data)
        if any(resolved == e or e in resolved.parents for e in self.environment):
            return Origin("foreign", "in the Python environment but listed in no installed distribution's RECORD")
        if self.root is not None and self.root in resolved.parents:
            relative = resolved.relative_to(self.root).as_posix()
            if self.committed.get(relative) == blob_sha1(data):
                return Origin("checkout")
            return Origin("foreign", "in the checkout but not committed as it is")
        if (any(s in resolved.parents for s in self.stdlib)
                and not _SITE_FOLDERS.intersection(resolved.parts)):
            return Origin("python", sys.version.split()[0])
        return Origin("foreign", "outside the checkout, the Python environment and the standard library")

    def _owned(self, owner: _Owner, data: bytes) -> Origin:
        label = f"{owner.name} {owner.version}"
        if owner.hash is None:
            return Origin("foreign", f"listed without a hash in {label}'s RECORD")
        if owner.hash != _record_hash(data):
            return Origin("foreign", f"differs from {label}'s RECORD")
        if owner.name == "lexbench":
            return Origin("lexbench", owner.version)
        if self.pinned.get(owner.name) == owner.version:
            return Origin("pinned", label)
        if owner.name in INSTALLER_DISTRIBUTIONS:
            return Origin("installer", label)
        return Origin("foreign", f"{label} is not a pinned dependency of lexbench (pyproject.toml and its closure)")


def _entry(provenance: Provenance, name: str, file: str | None) -> dict[str, Any]:
    """One loaded piece: its ``name``, ``file`` (as :meth:`Provenance.display` shows it), ``sha256`` and
    ``origin``; ``file`` ``None`` for a piece without one (a namespace package, a built-in module)."""
    if not file:
        return {"name": name, "file": None, "sha256": None, "origin": "python built-in"}
    path = Path(file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return {"name": name, "file": str(path), "sha256": None,
                "origin": f"foreign its file cannot be read ({exc.strerror or exc})", "foreign": True}
    origin = provenance.origin(path, data)
    return {"name": name, "file": provenance.display(path), "sha256": hashlib.sha256(data).hexdigest(),
            "origin": str(origin), "foreign": origin.foreign}


def _module_files() -> list[tuple[str, str]]:
    """Every imported module that has a file (built-in modules and namespace packages have none)."""
    return [(name, module.__file__) for name, module in list(sys.modules.items())
            if isinstance(getattr(module, "__file__", None), str)]


def committed_files(root: Path) -> dict[str, str]:
    """The files of the checkout ``root``'s commit (path → git object name); empty when git cannot tell."""
    try:
        listing = subprocess.run(["git", "-C", str(root), "ls-tree", "-r", "-z", "--full-tree", "HEAD"],
                                 capture_output=True, text=True, timeout=30, check=True).stdout
        return parse_ls_tree(listing)
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}


def session_code(plugins: Sequence[tuple[str, str | None]], *, code: Mapping[str, Any], argv: Sequence[str],
                 environ: Mapping[str, str]) -> dict[str, Any]:
    """:func:`loaded_code` for a session whose code is ``code`` (:func:`lexbench.run.record.code_state`):
    its checkout's root and commit, or none for an installed lexbench."""
    git = code.get("git") or {}
    root = Path(git["root"]) if git.get("root") else None
    return loaded_code(plugins, root=root, committed=committed_files(root) if root else {}, argv=argv, environ=environ)


def loaded_code(plugins: Sequence[tuple[str, str | None]], *, root: Path | None, committed: Mapping[str, str],
                argv: Sequence[str], environ: Mapping[str, str],
                site_dirs: Sequence[Path] | None = None) -> dict[str, Any]:
    """The record of what the session loaded (``certification.loaded`` in the manifest).

    ``plugins``: pytest's registered plugins as (name, file of their module; ``None`` for none);
    those whose file is a ``conftest.py`` are listed as ``conftests``. ``argv``: the effective
    arguments (the ini's ``addopts``, then ``PYTEST_ADDOPTS``, then the command line). Returns
    ``{"argv", "environment", "plugins", "conftests", "pth", "modules", "distributions", "foreign",
    "sha256"}``: ``modules`` counts the imported modules by origin with one sha256 over (name, file
    sha256); ``distributions`` the installed distributions (``name==version``) that supplied loaded
    files; ``foreign`` one line per foreign piece (file: origin), empty when everything is the
    checkout's commit, lexbench, a pinned dependency, the installer or the standard library;
    ``sha256`` the canonical sha256 of the rest.
    """
    site_dirs = site_directories() if site_dirs is None else site_dirs
    provenance = Provenance(root, committed, site_dirs)
    registered = [_entry(provenance, name, file) for name, file in plugins]
    conftests = [entry for entry in registered if entry["file"] and Path(entry["file"]).name == "conftest.py"]
    plugin_entries = [entry for entry in registered if entry not in conftests]
    pth = [_entry(provenance, path.name, str(path)) for folder in site_dirs for path in sorted(folder.glob("*.pth"))]
    modules = [_entry(provenance, name, file) for name, file in sorted(_module_files())]
    named: dict[tuple[str, str], list[str]] = {}  # one line per foreign file, naming what loaded it
    for entry in [*registered, *pth, *modules]:
        if entry.get("foreign"):
            named.setdefault((entry["file"], entry["origin"].removeprefix("foreign ")), []).append(entry["name"])
    foreign = [f"{file} ({', '.join(dict.fromkeys(names))}): {why}" for (file, why), names in sorted(named.items())]
    supplied = sorted({entry["origin"].split(" ", 1)[1].replace(" ", "==") for entry in [*registered, *pth, *modules]
                       if entry["origin"].startswith(("pinned ", "installer "))})
    record = {
        "argv": list(argv),
        "environment": {name: environ.get(name) for name in ENVIRONMENT_VARIABLES if name in environ},
        "plugins": [_public(entry) for entry in plugin_entries],
        "conftests": [_public(entry) for entry in conftests],
        "pth": [_public(entry) for entry in pth],
        "modules": {"count": len(modules), "by_origin": dict(sorted(Counter(e["origin"].split(" ", 1)[0] for e in modules).items())),
                    "sha256": hashlib.sha256("".join(f"{e['name']}\0{e['sha256']}\n" for e in modules).encode()).hexdigest()},
        "distributions": supplied,
        "foreign": foreign,
    }
    record["sha256"] = canonical_sha256(record)
    return record


def _public(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key != "foreign"}
