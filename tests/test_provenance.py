"""Where each loaded file comes from (issue 27, item 4): the checkout's commit, a pinned distribution
whose file matches its RECORD, or foreign. A site directory of fake distributions stands in for the
environment; the checkout is a folder whose "commit" is a path → git blob map."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from lexbench.run.checkout import blob_sha1
from lexbench.run.provenance import Provenance, dependency_closure, loaded_code


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def install(site: Path, name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = ()) -> None:
    """A distribution as pip leaves it: its files, METADATA and a RECORD with each file's hash."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    record = []
    for path, text in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text)
        record.append(f"{path},{record_hash(text.encode())},{len(text)}")
    (info / "RECORD").write_text("\n".join([*record, f"{info.name}/RECORD,,"]) + "\n")


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    site, root = tmp_path / "site-packages", tmp_path / "checkout"
    install(site, "pinned-dist", "1.0", {"pinned_mod.py": "A = 1\n"}, requires=("dep>=2", "extra-only; extra == 'x'"))
    install(site, "dep", "2.5", {"dep/__init__.py": "B = 2\n"})
    install(site, "extra-only", "1.0", {"extra_only.py": "C = 3\n"})
    install(site, "unpinned", "3.0", {"unpinned.py": "D = 4\n", "unpinned-hook.pth": "import unpinned\n"})
    (site / "planted.pth").write_text("import os\n")
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "lexbench"\ndependencies = ["pinned-dist==1.0"]\n')
    (root / "committed.py").write_text("E = 5\n")
    return site, root


def provenance(site: Path, root: Path) -> Provenance:
    committed = {path: blob_sha1((root / path).read_bytes()) for path in ("pyproject.toml", "committed.py")}
    return Provenance(root, committed, [site])


def origin(p: Provenance, path: Path, data: bytes | None = None) -> str:
    return str(p.origin(path, path.read_bytes() if data is None else data))


def test_pinned_files_matching_their_record_and_committed_files_are_not_foreign(world):
    site, root = world
    p = provenance(site, root)
    assert p.pinned == {"pinned-dist": "1.0", "dep": "2.5"}  # extra-only is asked for by no extra
    assert origin(p, site / "pinned_mod.py") == "pinned pinned-dist 1.0"
    assert origin(p, site / "dep" / "__init__.py") == "pinned dep 2.5"
    assert origin(p, root / "committed.py") == "checkout"


@pytest.mark.parametrize(("path", "data", "reason"), [
    ("site:pinned_mod.py", b"A = 2\n", "differs from pinned-dist 1.0's RECORD"),
    ("site:unpinned.py", None, "unpinned 3.0 is not a pinned dependency of lexbench"),
    ("site:unpinned-hook.pth", None, "unpinned 3.0 is not a pinned dependency"),
    ("site:extra_only.py", None, "extra-only 1.0 is not a pinned dependency"),
    ("site:planted.pth", None, "outside the checkout, the Python environment and the standard library"),
    ("root:committed.py", b"E = 6\n", "in the checkout but not committed as it is"),
])
def test_anything_else_is_foreign_with_its_reason(world, path, data, reason):
    site, root = world
    where, _, name = path.partition(":")
    found = provenance(site, root).origin((site if where == "site" else root) / name,
                                         data if data is not None else ((site if where == "site" else root) / name).read_bytes())
    assert found.foreign and reason in found.detail


def test_a_version_the_pin_does_not_allow_is_not_pinned(world):
    site, root = world
    (root / "pyproject.toml").write_text('[project]\nname = "lexbench"\ndependencies = ["pinned-dist==1.1"]\n')
    assert dependency_closure(["pinned-dist==1.1"], provenance(site, root).dists) == {}
    assert dependency_closure(["pinned-dist==1.0", "dep<2"], provenance(site, root).dists) == {"pinned-dist": "1.0", "dep": "2.5"}


def test_the_record_lists_each_plugin_conftest_and_pth_with_its_hash_and_names_the_foreign_ones(world):
    site, root = world
    (root / "conftest.py").write_text("planted = True\n")  # not in the commit
    committed = {path: blob_sha1((root / path).read_bytes()) for path in ("pyproject.toml", "committed.py")}
    record = loaded_code([("pinned_mod", str(site / "pinned_mod.py")), (str(root / "conftest.py"), str(root / "conftest.py"))],
                         root=root, committed=committed, argv=["-p", "pinned_mod"],
                         environ={"PYTEST_ADDOPTS": "-p pinned_mod", "HOME": "/root"}, site_dirs=[site])
    assert record["argv"] == ["-p", "pinned_mod"] and record["environment"] == {"PYTEST_ADDOPTS": "-p pinned_mod"}
    assert record["plugins"] == [{"name": "pinned_mod", "file": str(site / "pinned_mod.py"),
                                  "sha256": hashlib.sha256(b"A = 1\n").hexdigest(), "origin": "pinned pinned-dist 1.0"}]
    assert [c["file"] for c in record["conftests"]] == ["conftest.py"]
    assert sorted(e["name"] for e in record["pth"]) == ["planted.pth", "unpinned-hook.pth"]
    foreign = "\n".join(record["foreign"])
    assert "conftest.py" in foreign and "planted.pth" in foreign and "unpinned-hook.pth" in foreign
    assert "pinned_mod.py" not in foreign and len(record["sha256"]) == 64
