"""Every file a run reads from a suite or its evidence home is checked against its binding before any
provider is called (issue 11, SPEC §4, §6): a tampered capture, reference body, dataset, rules,
cohort, public binding or registry entry is refused by ``load_suite`` — the run's first step — with an
error naming the file and, where the file is per case, the case; in a real run that is a usage error
(exit code 4) with no row written and no provider called (checked for a capture, a reference body and
a binding in ``pytest -n 2`` runs).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.suite_factory import ARTICLES, write_suite

CASE = "article-002-en-orchard"
CALLS = "provider-calls.log"
CONFTEST = f'''
from lexbench.providers.local import HttpMarkdownify, ReferenceEcho

for _type in (HttpMarkdownify, ReferenceEcho):
    def _logged(self, case, timeout, url, _fetch=_type.fetch):
        with open({CALLS!r}, "a") as log:  # proof that a provider was called
            log.write(case.id + "\\n")
        return _fetch(self, case, timeout, url)
    _type.fetch = _logged
'''


def _json_edit(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def tamper(path: Path) -> None:
        value = json.loads(path.read_text(encoding="utf-8"))
        change(value)
        path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")

    return tamper


def _case(document: dict) -> dict:
    return next(c for c in document["cases"] if c["id"] == CASE)


def _append(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(path.read_bytes() + data)


TAMPERED = [
    # file (relative to the suite), how it is changed, what the message must name
    (f"evidence/captures/{CASE}.html", _append(b"<p>injected</p>"), [f"{CASE}.html", CASE, "sha256"]),
    (f"evidence/references/{CASE}.txt", _append(b"\nA sentence added after review."), [f"{CASE}.txt", CASE, "sha256"]),
    (f"evidence/captures/{CASE}.html", lambda path: path.unlink(), [f"{CASE}.html", CASE, "missing"]),
    ("dataset.json", _json_edit(lambda d: _case(d).update(task_prompt="Return something else.")),
     ["dataset.json", "dataset_sha256"]),
    ("dataset.json", _json_edit(lambda d: _case(d)["page_identity"].append("Orchard")), ["dataset.json"]),
    ("rules.json", _json_edit(lambda d: _case(d).update(title="Heritage orchard saved by nobody")), ["rules.json", CASE]),
    ("cohort.json", _json_edit(lambda d: _case({"cases": d["candidates"]}).update(id="article-002-en-orchards")),
     ["cohort.json", CASE]),
    ("dataset-catalog.json", _json_edit(lambda d: _case(d).update(url="https://elsewhere.example/")),
     ["dataset-catalog.json", CASE]),
    ("tasks.json", _json_edit(lambda d: _case(d).update(task_prompt="Ignore the page.")), ["tasks.json", CASE]),
    ("source-inputs.json", _json_edit(lambda d: d.update(catalog_sha256="0" * 64)), ["source-inputs.json"]),
]


@pytest.fixture
def project(pytester):  # type: ignore[no-untyped-def]
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nlexbench = true\naddopts = -p no:cacheprovider\n")
    cases = pytester.path / "cases"
    cases.mkdir()
    suite = write_suite(cases / "tiny", ARTICLES, registry=cases / "registry.json")
    return pytester, suite


@pytest.mark.slow
def test_an_untouched_suite_runs_and_calls_its_providers(project) -> None:  # type: ignore[no-untyped-def]
    """The control: the same project runs, so each refusal below is the tampering's doing."""
    pytester, suite = project
    run = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo,http-markdownify",
                                           f"--run-dir={run}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    assert len((run / "results.jsonl").read_text().splitlines()) == 4
    assert len((pytester.path / CALLS).read_text().splitlines()) == 4


@pytest.mark.parametrize(("name", "tamper", "named"), TAMPERED,
                         ids=[f"{name}:{i}" for i, (name, _, _) in enumerate(TAMPERED)])
def test_every_tampered_file_is_refused_when_the_suite_is_loaded(tmp_path: Path, name, tamper, named) -> None:  # type: ignore[no-untyped-def]
    """What a run does first (``load_suite``), for every kind of file: the error names file and case."""
    from lexbench.dataset.suite import load_suite
    from lexbench.errors import LexbenchError

    suite = write_suite(tmp_path / "tiny", ARTICLES)
    tamper((suite / name).resolve())
    with pytest.raises(LexbenchError) as caught:
        load_suite(str(suite))
    for part in named:
        assert part in str(caught.value), f"the message must name {part!r}:\n{caught.value}"


IN_A_RUN = [TAMPERED[0], TAMPERED[1], TAMPERED[7]]  # a capture, a reference body, a public binding


@pytest.mark.slow
@pytest.mark.parametrize(("name", "tamper", "named"), IN_A_RUN, ids=[name for name, _, _ in IN_A_RUN])
def test_a_tampered_file_stops_the_run_before_any_provider_is_called(project, name, tamper, named) -> None:  # type: ignore[no-untyped-def]
    """The same refusal in a real ``pytest -n 2`` run: exit code 4, no row, no provider call."""
    pytester, suite = project
    tamper((suite / name).resolve())
    run = pytester.path / "run"
    result = pytester.runpytest_subprocess(f"--suite={suite}", "--providers=reference-echo,http-markdownify",
                                           f"--run-dir={run}", "-n", "2")
    message = result.stderr.str() + result.stdout.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, message[-3000:]
    for part in named:
        assert part in message, f"the message must name {part!r}:\n{message[-3000:]}"
    assert not (run / "results.jsonl").exists() or not (run / "results.jsonl").read_text()
    assert not (pytester.path / CALLS).exists(), "a provider was called"


def test_a_committed_suite_is_checked_against_its_registry_entry(tmp_path: Path) -> None:
    """Committed suites (directly under ``cases/``) must also match ``cases/registry.json``; a run
    loads them through the same function, so the same error stops it."""
    from lexbench.dataset.suite import load_suite
    from lexbench.errors import BindingError

    cases = tmp_path / "cases"
    write_suite(cases / "tiny", ARTICLES, registry=cases / "registry.json")
    assert load_suite("tiny", cases_root=cases).cases
    _json_edit(lambda d: d["suites"]["tiny"]["files"].update({"tasks.json": "0" * 64}))(cases / "registry.json")
    with pytest.raises(BindingError, match=r"registry\.json entry 'tiny': files\['tasks\.json'\]"):
        load_suite("tiny", cases_root=cases)
