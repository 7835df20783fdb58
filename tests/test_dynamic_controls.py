"""Pages that need a browser, end to end (issue 28): a built-site suite is recorded as web archives that
hash the same on every recording, replayed, and proven by its three controls — reference-echo passes every
case, the static shell fails every ``needs_javascript`` case on its body or records (a home page: its named-link
floors), the rendered control passes every case — over the tiny fixture suite always and over ``cases/dynamic`` when its evidence is present."""

from __future__ import annotations

import json
import shutil
import textwrap
from datetime import date
from pathlib import Path

import pytest

from lexbench.dataset.case import DomCompletion
from lexbench.errors import EvidenceError
from tests.suite_factory import PAGES, write_built_suite

pytestmark = pytest.mark.slow  # Chromium, servers and pytest processes

ROOT = Path(__file__).resolve().parents[1]
CONTROLS = "reference-echo,static-shell,rendered-control"


def _need_browser() -> None:
    try:
        import playwright  # noqa: F401
    except ImportError:
        pytest.skip("Playwright for Python is not installed (pip install -e '.[engines]'): nothing can record or render")
    if shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists():
        pytest.skip("Chromium is not installed (apt-get install chromium): nothing can record or render")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The fixture pages as a built-site suite, and its input directory from fetch-evidence."""
    _need_browser()
    from lexbench.dataset.built_site import fetch_built_evidence

    root = write_built_suite(tmp_path_factory.mktemp("suite") / "tiny-dynamic")
    inputs = tmp_path_factory.mktemp("inputs") / "tiny-dynamic"
    fetch_built_evidence(root, into=inputs)
    return root, inputs


def test_a_recording_is_byte_identical_and_lists_other_origins(built):
    from lexbench.dataset.compile import sha256_bytes
    from lexbench.dataset.recorder import record_page

    root, inputs = built  # fetch-evidence recorded again and matched every bound sha256
    rules = json.loads((root / "rules.json").read_text())
    completion = DomCompletion(**rules["cases"][0]["retrieval"]["dom_completion"])
    again = record_page(PAGES / "shell-article", recorded=date(2026, 12, 3), completion=completion)
    assert sha256_bytes(again.archive) == rules["cases"][0]["capture"]["sha256"]
    assert [r.path for r in again.records] == ["", "api/article.json", "app.js", "style.css"]
    assert again.unreachable == ("https://cdn.example.com/analytics.js",)
    assert "one lantern at a time" in again.rendered_html
    framed = (inputs / "evidence" / "rendered" / "article-002-en-framed-notes.html").read_text()
    assert "<iframe" in framed


def test_a_changed_page_is_refused_naming_the_case(built, tmp_path):
    from lexbench.dataset.built_site import fetch_built_evidence

    root, _ = built
    changed = tmp_path / "changed"
    shutil.copytree(root, changed)
    article = changed / "site" / "shell-article" / "api" / "article.json"
    article.write_text(article.read_text().replace("volunteers", "the council"))  # the XHR answer changed
    with pytest.raises(EvidenceError, match=r"case article-001-en-lanterns: the archive recorded from its page "
                                            r"has sha256 [0-9a-f]{64}, but rules.json binds"):
        fetch_built_evidence(changed, into=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _rows(run_dir: Path) -> dict[tuple[str, str], dict]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {(r["case"], r["provider"]): r for r in rows}


def check_controls(pytester, suite: Path, needs_javascript: set[str], cases: list[str]) -> dict:
    """Run the three controls over ``suite`` and check what issue 28 asks of them; returns the rows."""
    run_dir = pytester.path / "run"
    pytester.runpytest_subprocess(f"--suite={suite}", f"--providers={CONTROLS}", f"--run-dir={run_dir}", "-n", "0")
    rows = _rows(run_dir)
    assert len(rows) == 3 * len(cases)
    for case in cases:
        assert rows[(case, "reference-echo")]["outcome"] == "pass", rows[(case, "reference-echo")]["explanation"]
        assert rows[(case, "rendered-control")]["outcome"] == "pass", rows[(case, "rendered-control")]["explanation"]
        shell = rows[(case, "static-shell")]
        if case in needs_javascript:
            failed = {c["name"] for c in shell["components"] if c["passed"] is False}
            # its body, its records, or (a home page's changing headlines) its named-link floors
            assert shell["outcome"] == "fail" and failed & {"regions", "ending", "comments", "posts", "anchors", "resources"}, \
                shell["explanation"]
    return rows


def test_the_three_controls_prove_each_fixture_case(built, bench_project):
    _, inputs = built
    rows = check_controls(bench_project, inputs, {"article-001-en-lanterns", "article-002-en-framed-notes"},
                          ["article-001-en-lanterns", "article-002-en-framed-notes", "article-003-en-plain-page"])
    assert rows[("article-003-en-plain-page", "static-shell")]["outcome"] == "pass"  # needs no script
    # the browser asked for nothing its first load did not; the analytics script on another origin is no request
    assert all(rows[(c, "rendered-control")]["unrecorded_requests"] == [] for c, _ in rows)


CURIOUS = '''
    import httpx

    from lexbench import Provider, ProviderResult


    class Curious(Provider):
        """Fetches the page and a stylesheet no first load asked for, then answers as the control does."""

        type_name = "curious"

        def fetch(self, case, timeout, url):
            httpx.get(url, timeout=timeout)
            httpx.get(url + "print.css", timeout=timeout)
            lines = [case.title, case.reference_text, *[p for g in case.stable_groups for p in g.phrases]]
            return ProviderResult(success=True, content="\\n".join(lines), content_format="text")


    def pytest_lexbench_provider_types():
        return [Curious]
'''


def test_the_row_keeps_what_a_provider_asked_for_beyond_the_archive(built, pytester):
    _, inputs = built
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    pytester.makeconftest('pytest_plugins = ["lexbench.plugin"]\n' + textwrap.dedent(CURIOUS))
    config = pytester.path / "providers.json"
    config.write_text(json.dumps({"schema_version": 1, "default_providers": ["curious"],
                                  "providers": [{"name": "curious", "type": "curious"}]}))
    run_dir = pytester.path / "run"
    result = pytester.runpytest_subprocess("--lexbench", f"--suite={inputs}", f"--provider-config={config}",
                                           f"--run-dir={run_dir}", "-n", "0", "-k", "lanterns")
    result.assert_outcomes(passed=1, deselected=2)
    assert _rows(run_dir)[("article-001-en-lanterns", "curious")]["unrecorded_requests"] == ["print.css"]


DYNAMIC = ROOT / ".evidence" / "dynamic" / "dataset.json"


@pytest.mark.skipif(not DYNAMIC.is_file(), reason="the dynamic suite's evidence is absent: lexbench fetch-evidence "
                    "--suite dynamic (needs npm and Chromium) builds and records it")
def test_the_three_controls_prove_every_dynamic_case(bench_project):
    _need_browser()
    dataset = json.loads(DYNAMIC.read_text())
    cases = [c["id"] for c in dataset["cases"]]
    needs = {c["id"] for c in dataset["cases"] if (c.get("retrieval") or {}).get("needs_javascript")}
    check_controls(bench_project, DYNAMIC.parent, needs, cases)
