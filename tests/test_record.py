"""The run record survives a kill, refuses rows of another run, and merges shards strictly (SPEC §6)."""

import hashlib
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexbench.errors import RunError
from lexbench.run.record import (RESULTS_NAME, RunIdentity, RunRecorder, RunRow, checked_rows, count_tokens, load_rows,
                             merge_runs, resume_plan, save_counted, save_response, write_manifest)
from lexbench.verdict import Outcome

IDENTITY = RunIdentity(suite="tiny", dataset_sha256="d" * 64, configuration_sha256="c" * 64)


def manifest(shard=None, *, finished="2026-01-01T00:01:00+00:00", suite="tiny", dataset="d" * 64, config="c" * 64):
    return {"suite": {"id": suite, "dataset_sha256": dataset, "path": "/suites/tiny"}, "providers": ["a", "b"],
            "configuration": {"mode": "replay"}, "configuration_sha256": config,
            "run": {"shard": shard, "measure_only": False, "certified_requested": False},
            "sessions": [{"started": "2026-01-01T00:00:00+00:00", "finished": finished}],
            "started": "2026-01-01T00:00:00+00:00", "finished": finished}


def make_row(case, provider, *, suite="tiny", dataset="d" * 64, config="c" * 64, sha=None):
    return RunRow(suite=suite, case=case, provider=provider, output_contract="cleaned", category="article",
                  track="body", lang="en", outcome=Outcome.PASS, explanation="pass", dataset_sha256=dataset,
                  configuration_sha256=config, response_sha256=sha)


def make_run(path, rows, **fields):
    write_manifest(path, manifest(**fields))
    recorder = RunRecorder(path)
    for r in rows:
        recorder.append(r)
    recorder.close()
    return path


def test_torn_last_row_is_cut_and_its_item_runs_again(tmp_path):
    run = make_run(tmp_path / "run", [make_row("c1", "a"), make_row("c2", "a")])
    results = run / RESULTS_NAME
    whole = results.read_bytes()
    results.write_bytes(whole + make_row("c3", "a").model_dump_json().encode()[:40])  # killed mid-write
    assert [r.item_id for r in load_rows(run)] == ["c1[a]", "c2[a]"]
    plan = resume_plan(run, IDENTITY, shard=None, certified=False)
    assert plan.completed == {"c1[a]", "c2[a]"} and plan.torn_bytes == 40
    assert results.read_bytes() == whole
    recorder = RunRecorder(run)
    recorder.append(make_row("c3", "a"))
    recorder.close()
    assert [r.item_id for r in load_rows(run)] == ["c1[a]", "c2[a]", "c3[a]"]


def test_resume_refuses_another_suite_configuration_or_shard(tmp_path):
    run = make_run(tmp_path / "run", [make_row("c1", "a")])
    with pytest.raises(RunError, match=r"dataset sha256 eeeeeeeeeeee instead of dddddddddddd.*same\s+--suite"):
        resume_plan(run, RunIdentity("tiny", "e" * 64, "c" * 64), shard=None, certified=False)
    with pytest.raises(RunError, match="configuration sha256"):
        resume_plan(run, RunIdentity("tiny", "d" * 64, "f" * 64), shard=None, certified=False)
    with pytest.raises(RunError, match="pass the same --shard"):
        resume_plan(run, IDENTITY, shard="1/2", certified=False)
    with pytest.raises(RunError, match="same --certified"):
        resume_plan(run, IDENTITY, shard=None, certified=True)
    with pytest.raises(RunError, match="not a run directory"):
        resume_plan(tmp_path / "nothing", IDENTITY, shard=None, certified=False)


def test_rows_of_another_run_are_refused_not_mixed(tmp_path):
    run = make_run(tmp_path / "run", [make_row("c1", "a"), make_row("c2", "a", dataset="e" * 64),
                                      make_row("c3", "a", config="0" * 64)])
    with pytest.raises(RunError) as caught:
        resume_plan(run, IDENTITY, shard=None, certified=False)
    message = str(caught.value)
    assert "refusing to mix" in message and "c2[a]" in message and "c3[a]" in message
    assert "dataset sha256 eeeeeeeeeeee" in message and "configuration sha256 000000000000" in message
    with pytest.raises(RunError, match="refusing to mix"):
        checked_rows(run)


def test_an_item_recorded_twice_is_refused(tmp_path):
    run = make_run(tmp_path / "run", [make_row("c1", "a"), make_row("c1", "a")])
    with pytest.raises(RunError, match=r"recorded more than once \(c1\[a\]\)"):
        checked_rows(run)


def test_merge_combines_every_shard_once(tmp_path):
    sha = save_response(tmp_path / "s1", "answer one")
    s1 = make_run(tmp_path / "s1", [make_row("c2", "a", sha=sha), make_row("c1", "b")], shard="1/2")
    s2 = make_run(tmp_path / "s2", [make_row("c1", "a"), make_row("c2", "b")], shard="2/2")
    merged = merge_runs([s2, s1], tmp_path / "merged")
    assert [r.item_id for r in load_rows(tmp_path / "merged")] == ["c1[a]", "c1[b]", "c2[a]", "c2[b]"]
    assert (tmp_path / "merged" / "responses" / f"{sha}.txt").read_text() == "answer one"
    assert merged["run"]["shard"] is None and [m["shard"] for m in merged["merged_from"]] == ["1/2", "2/2"]
    on_disk = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert on_disk["configuration_sha256"] == "c" * 64 and on_disk["finished"]


@pytest.mark.parametrize(("second", "problem"), [
    ({"shard": "2/2", "dataset": "e" * 64}, "suite differs"),
    ({"shard": "2/2", "config": "e" * 64}, f"configuration sha256 {'c' * 64} is neither the current configuration "
                                           f"{'e' * 64} nor approved: no approvals registry was given"),
    ({"shard": "1/2"}, "shard 1/2 is also"),
    ({"shard": "2/3"}, "3-way split"),
    ({"shard": None}, "not a shard"),
    ({"shard": "2/2", "finished": None}, "did not finish"),
])
def test_merge_refuses_shards_that_do_not_belong_together(tmp_path, second, problem):
    s1 = make_run(tmp_path / "s1", [make_row("c1", "a")], shard="1/2")
    dataset, config = second.pop("dataset", "d" * 64), second.pop("config", "c" * 64)
    s2 = make_run(tmp_path / "s2", [make_row("c2", "a", dataset=dataset, config=config)],
                  dataset=dataset, config=config, **second)
    with pytest.raises(RunError, match=problem):
        merge_runs([s1, s2], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_missing_shards_and_overlap(tmp_path):
    s1 = make_run(tmp_path / "s1", [make_row("c1", "a")], shard="1/3")
    s2 = make_run(tmp_path / "s2", [make_row("c1", "a")], shard="2/3")
    with pytest.raises(RunError) as caught:
        merge_runs([s1, s2], tmp_path / "merged")
    assert "shard(s) 3/3 missing" in str(caught.value) and "more than one shard (c1[a])" in str(caught.value)


# --- count_tokens (issue 10: counted with byte tables instead of one string per token) -------------

_TOKEN_DEFINITION = re.compile(  # the definition count_tokens documents, as one findall
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W\u3040-\u30ff"
    r"\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+|[^\w\s]")


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)))
def test_count_tokens_equals_its_definition(text: str) -> None:
    assert count_tokens(text) == len(_TOKEN_DEFINITION.findall(text))


@pytest.mark.parametrize("text, tokens", [
    ("", 0), ("Hello, world!", 4), ("snake_case 42x", 2), ("中文字", 3), ("abc中def", 3),
    ("naïve café—“quoted”", 6), ("a\u00a0b\u3000c", 3), ("e\u0301", 2), ("\ud800x", 2), ("\x00\x1f", 1),
])
def test_count_tokens_counts_words_cjk_characters_and_marks(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


_CHUNK = 1 << 20  # count_tokens reads an ASCII answer a MiB at a time


@pytest.mark.parametrize("middle", ["xyzzy", ".,;", "  ", "a"])
@pytest.mark.parametrize("shift", [-1, 0, 1])
def test_count_tokens_of_an_answer_across_chunks_equals_its_definition(middle: str, shift: int) -> None:
    """A word, marks or spaces standing across a chunk's end are counted as in one piece."""
    filler = "ab cd, e" * (_CHUNK // 8)
    text = filler[:_CHUNK + shift - len(middle) // 2] + middle + filler[:64]
    assert count_tokens(text) == len(_TOKEN_DEFINITION.findall(text))


@pytest.mark.parametrize("content", ["Plain words, marks.", "naïve 中文 text \ud800 kept", ""])
def test_save_counted_saves_as_save_response_does_and_counts_as_count_tokens(tmp_path, content: str) -> None:
    digest, tokens = save_counted(tmp_path / "one", content)
    assert tokens == len(_TOKEN_DEFINITION.findall(content))
    assert digest == save_response(tmp_path / "two", content)
    if content:
        data = content.encode("utf-8", "surrogatepass")
        assert digest == hashlib.sha256(data).hexdigest()
        assert (tmp_path / "one" / "responses" / f"{digest}.txt").read_bytes() == data
    assert save_counted(None, content) == (None, tokens)  # no run directory: counted, not saved
