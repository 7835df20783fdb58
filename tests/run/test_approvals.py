"""``--approvals FILE --approvals-sha256 HEX``: rows of an earlier configuration are merged, reported and
compared only under a reviewed registry bound by its sha256 (lexbench.run.approvals)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import jsonschema
import pytest

from lexbench.cli import main
from lexbench.run.record import RunRecorder, RunRow, write_manifest
from lexbench.scoring.evaluate import SCORER_VERSION
from lexbench.verdict import Outcome

REPO = Path(__file__).resolve().parents[2]
OLD, NEW = "a" * 64, "b" * 64  # configuration sha256s: the earlier engine template's and the current one's


def make_shard(path: Path, shard: str, cases: list[str], *, config: str, started: str,
               scorer: int = SCORER_VERSION) -> Path:
    """A finished shard of suite ``tiny`` (providers ``a`` and ``b``) whose rows all pass."""
    write_manifest(path, {
        "suite": {"id": "tiny", "dataset_sha256": "d" * 64, "path": "/suites/tiny"}, "providers": ["a", "b"],
        "configuration": {"mode": "replay", "engine_template": config[:1]}, "configuration_sha256": config,
        "run": {"shard": shard, "measure_only": False, "certified_requested": False},
        "versions": {"scorer": scorer}, "sessions": [], "started": started, "finished": started})
    recorder = RunRecorder(path)
    for case in cases:
        for provider in ("a", "b"):
            recorder.append(RunRow(suite="tiny", case=case, provider=provider, output_contract="cleaned",
                                   category="article", track="body", lang="en", outcome=Outcome.PASS,
                                   explanation="pass", dataset_sha256="d" * 64, configuration_sha256=config))
    recorder.close()
    return path


def registry(path: Path, sources: list[dict]) -> tuple[Path, str]:
    """Write an approvals registry; return its path and sha256."""
    path.write_text(json.dumps({"schema_version": 1, "sources": sources}, indent=2), encoding="utf-8")
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def approval(sha: str = OLD, version: int = SCORER_VERSION, reason: str = "template 3 → 4 changed only the user agent"):
    return {"source_sha256": sha, "version": version, "reason": reason}


@pytest.fixture
def shards(tmp_path: Path) -> tuple[Path, Path]:
    """Shard 1/2 made last month under the earlier configuration, shard 2/2 today under the current one."""
    return (make_shard(tmp_path / "s1", "1/2", ["c1"], config=OLD, started="2026-10-01T00:00:00+00:00"),
            make_shard(tmp_path / "s2", "2/2", ["c2"], config=NEW, started="2026-11-01T00:00:00+00:00"))


def merge(shards, output: Path, *options: str) -> int:
    return main(["report", "--merge", *map(str, shards), "--output", str(output), *options])


def bind(path: Path, sha: str) -> list[str]:
    return ["--approvals", str(path), "--approvals-sha256", sha]


def test_approved_rows_are_merged_and_the_report_carries_the_binding(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    # The committed schema (an independent validator) accepts what lexbench accepts.
    jsonschema.validate(json.loads(path.read_text()), json.loads((REPO / "schemas/approvals.schema.json").read_text()))
    merged = tmp_path / "merged"
    assert merge(shards, merged, *bind(path, sha)) == 0
    out = capsys.readouterr().out
    assert f"report: rows of historical configurations approved by {path} (sha256 {sha})" in out

    report = json.loads((merged / "report.json").read_text())
    assert report["run"]["configuration_sha256"] == NEW  # current: the newest shard's
    assert report["run"]["approvals"] == {
        "path": str(path), "sha256": sha, "registry": json.loads(path.read_text()),
        "configurations": [{"configuration_sha256": OLD, "version": SCORER_VERSION, "reason": approval()["reason"],
                            "runs": [str(shards[0])], "providers": ["a", "b"]}]}
    assert report["counts"]["items"] == 4
    line = f"Rows of historical configuration(s) {OLD[:12]} approved by the registry {path} (sha256 {sha})."
    assert line.replace("_", "\\_") in (merged / "report.md").read_text()
    assert line in (merged / "report.html").read_text()
    manifest = json.loads((merged / "manifest.json").read_text())
    assert [m["configuration_sha256"] for m in manifest["merged_from"]] == [OLD, NEW]


def test_rows_of_an_earlier_configuration_are_refused_without_approvals(tmp_path, shards, capsys):
    assert merge(shards, tmp_path / "merged") == 2
    err = capsys.readouterr().err
    assert (f"{shards[0]}: provider(s) a, b: configuration sha256 {OLD} is neither the current configuration {NEW} "
            "nor approved: no approvals registry was given") in err
    assert not (tmp_path / "merged").exists()


def test_an_unknown_configuration_fails_closed(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval(sha="c" * 64)])
    assert merge(shards, tmp_path / "merged", *bind(path, sha)) == 2
    err = capsys.readouterr().err
    assert (f"{shards[0]}: provider(s) a, b: configuration sha256 {OLD} is neither the current configuration {NEW} "
            f"nor approved: {path} does not list it (an unknown configuration fails closed)") in err
    assert not (tmp_path / "merged").exists()


def test_an_approval_covers_only_the_scorer_version_it_names(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval(version=1)])
    assert merge(shards, tmp_path / "merged", *bind(path, sha)) == 2
    assert (f"{path} approves it only for scorer version(s) 1, and these rows were scored by version {SCORER_VERSION}"
            in capsys.readouterr().err)


def test_a_registry_changed_after_review_is_refused(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval(sha="c" * 64)])
    registry(path, [approval()])  # someone adds the approval the review did not grant
    changed = hashlib.sha256(path.read_bytes()).hexdigest()
    assert merge(shards, tmp_path / "merged", *bind(path, sha)) == 2
    err = capsys.readouterr().err
    assert f"--approvals {path}: its sha256 is {changed}, not the {sha} given with --approvals-sha256" in err
    assert not (tmp_path / "merged").exists()


@pytest.mark.parametrize(("source", "message"), [
    (approval(reason=""), "field sources.0.reason: give the reviewer's reason (it is empty or blank)"),
    (approval(reason="  \n"), "field sources.0.reason: give the reviewer's reason (it is empty or blank)"),
    (approval(version=SCORER_VERSION + 1),
     f"field sources.0.version: must be a scorer version lexbench knows, a whole number 1 to {SCORER_VERSION} "
     f"(got {SCORER_VERSION + 1})"),
    (approval(version=0), "field sources.0.version: must be a scorer version lexbench knows"),
    ({**approval(), "version": str(SCORER_VERSION)}, "field sources.0.version: must be a scorer version"),
    ({**approval(), "approved_by": "me"}, "field sources.0.approved_by: Extra inputs are not permitted"),
    (approval(sha=OLD.upper()), "field sources.0.source_sha256: String should match pattern"),
])
def test_a_registry_that_does_not_match_its_schema_is_refused(tmp_path, shards, capsys, source, message):
    path, sha = registry(tmp_path / "approvals.json", [source])
    # The committed schema rejects the same document.
    schema = json.loads((REPO / "schemas/approvals.schema.json").read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(path.read_text())))
    assert merge(shards, tmp_path / "merged", *bind(path, sha)) == 2
    err = capsys.readouterr().err
    assert f"--approvals {path}: not an approvals registry ({message}" in err
    assert "see schemas/approvals.schema.json" in err


def test_a_registry_inside_a_run_directory_cannot_approve_it(tmp_path, shards, capsys):
    inside, sha = registry(tmp_path / "approvals.json", [approval()])
    os.replace(inside, shards[0] / "approvals.json")
    assert merge(shards, tmp_path / "merged", *bind(shards[0] / "approvals.json", sha)) == 2
    assert (f"--approvals {shards[0] / 'approvals.json'}: lies inside the run directory {shards[0]}; a run or its "
            "report cannot approve itself") in capsys.readouterr().err
    link = tmp_path / "elsewhere.json"  # a link from outside is followed to where it points
    link.symlink_to(shards[0] / "approvals.json")
    assert merge(shards, tmp_path / "merged", *bind(link, sha)) == 2
    assert "lies inside the run directory" in capsys.readouterr().err


def test_a_saved_report_cannot_approve_its_own_rebuild(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    merged = tmp_path / "merged"
    assert merge(shards, merged, *bind(path, sha)) == 0
    path.unlink()
    # The report's own copy: report.json holds the registry, but it lies in the run it would approve.
    own = merged / "report.json"
    assert main(["report", str(merged), *bind(own, hashlib.sha256(own.read_bytes()).hexdigest())]) == 2
    assert f"--approvals {own}: lies inside the run directory {merged}" in capsys.readouterr().err
    # Nor does the copy count when no registry is given.
    assert main(["report", str(merged)]) == 2
    assert "give the same approvals again" in capsys.readouterr().err


def test_a_rebuilt_report_needs_the_same_approvals_again(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    merged = tmp_path / "merged"
    assert merge(shards, merged, *bind(path, sha)) == 0
    reports = {name: (merged / name).read_bytes() for name in ("report.md", "report.html", "report.json")}
    capsys.readouterr()

    assert main(["report", str(merged)]) == 2
    assert (f"{merged}: holds rows of historical configurations approved by {path} (sha256 {sha}); give the same "
            f"approvals again: --approvals {path} --approvals-sha256 {sha}") in capsys.readouterr().err

    kept = path.read_bytes()
    path.unlink()  # the registry removed
    assert main(["report", str(merged), *bind(path, sha)]) == 2
    assert f"--approvals {path}: cannot be read" in capsys.readouterr().err

    changed, new_sha = registry(path, [approval(), approval(sha="c" * 64)])  # changed, and bound by its new sha256
    assert main(["report", str(merged), *bind(changed, new_sha)]) == 2
    assert (f"{merged}: was merged under the approvals {path} (sha256 {sha}), not {path} (sha256 {new_sha}); give "
            "the same approvals again") in capsys.readouterr().err

    path.write_bytes(kept)
    assert main(["report", str(merged), *bind(path, sha)]) == 0
    assert {name: (merged / name).read_bytes() for name in reports} == reports  # the same bytes again


def test_approvals_that_approve_nothing_are_refused(tmp_path, capsys):
    run = make_shard(tmp_path / "run", None, ["c1"], config=NEW, started="2026-11-01T00:00:00+00:00")
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    assert main(["report", str(run), *bind(path, sha)]) == 2
    assert (f"--approvals {path}: approves nothing here (every row was made under the current configuration {NEW}); "
            "drop --approvals") in capsys.readouterr().err
    assert not (run / "report.json").exists()


def test_the_registry_and_its_sha256_go_together(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    assert merge(shards, tmp_path / "merged", "--approvals", str(path)) == 2
    assert "--approvals FILE and --approvals-sha256 HEX go together" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        merge(shards, tmp_path / "merged", *bind(path, sha[:40]))
    assert exited.value.code == 2
    assert "is not a sha256 (64 hex digits" in capsys.readouterr().err


def test_compare_honours_the_same_registry(tmp_path, capsys):
    base = make_shard(tmp_path / "base", None, ["c1", "c2"], config=OLD, started="2026-10-01T00:00:00+00:00")
    new = make_shard(tmp_path / "new", None, ["c1", "c2"], config=NEW, started="2026-11-01T00:00:00+00:00")
    assert main(["compare", str(base), str(new)]) == 2
    assert (f"{base}: provider(s) a, b: configuration sha256 {OLD} is neither the current configuration {NEW} nor "
            "approved: no approvals registry was given") in capsys.readouterr().err

    unknown, unknown_sha = registry(tmp_path / "unknown.json", [approval(sha="c" * 64)])
    assert main(["compare", str(base), str(new), *bind(unknown, unknown_sha)]) == 2
    assert f"{unknown} does not list it" in capsys.readouterr().err

    path, sha = registry(tmp_path / "approvals.json", [approval()])
    assert main(["compare", str(base), str(new), *bind(path, sha)]) == 0
    out = capsys.readouterr().out
    assert f"compare: historical configuration(s) {OLD} ({base}) approved by {path} (sha256 {sha})" in out
    assert "compare: ok" in out

    assert main(["compare", str(base), str(new), *bind(base / "manifest.json", sha)]) == 2
    assert f"lies inside the run directory {base}" in capsys.readouterr().err


def test_a_merged_run_whose_recorded_approvals_were_edited_is_refused(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    merged = tmp_path / "merged"
    assert merge(shards, merged, *bind(path, sha)) == 0
    manifest = json.loads((merged / "manifest.json").read_text())
    manifest["approvals"]["configurations"][0]["reason"] = "nobody reviewed this"
    write_manifest(merged, manifest)
    capsys.readouterr()
    assert main(["report", str(merged), *bind(path, sha)]) == 2
    assert (f"{merged}: manifest.json → approvals is not what {path} approves for its rows (the run record was "
            "changed after the merge)") in capsys.readouterr().err


def test_rows_without_a_recorded_configuration_cannot_be_approved(tmp_path, capsys):
    base = make_shard(tmp_path / "base", None, ["c1"], config=OLD, started="2026-10-01T00:00:00+00:00")
    manifest = json.loads((base / "manifest.json").read_text())
    manifest["configuration_sha256"] = None
    write_manifest(base, manifest)
    rows = [json.loads(line) | {"configuration_sha256": None} for line in (base / "results.jsonl").read_text().splitlines()]
    (base / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    new = make_shard(tmp_path / "new", None, ["c1"], config=NEW, started="2026-11-01T00:00:00+00:00")
    path, sha = registry(tmp_path / "approvals.json", [approval()])
    assert main(["compare", str(base), str(new), *bind(path, sha)]) == 2
    assert (f"{base}: provider(s) a, b: rows record no configuration sha256 (made before it was recorded), so no "
            f"registry can approve them beside the current configuration {NEW}; rerun them") in capsys.readouterr().err


def test_a_configuration_listed_twice_for_one_version_is_refused(tmp_path, shards, capsys):
    path, sha = registry(tmp_path / "approvals.json", [approval(), approval(reason="a second opinion")])
    assert merge(shards, tmp_path / "merged", *bind(path, sha)) == 2
    assert f"sources.1: {OLD} version {SCORER_VERSION} is listed twice" in capsys.readouterr().err
