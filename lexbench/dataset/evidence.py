"""``lexbench fetch-evidence``: rebuild a reviewed suite's external evidence on any machine (SPEC §4).

A committed reviewed suite (``cases/articles``) publishes its rules and bindings but not its captures,
references or compiled ``dataset.json``. Its ``sources.json`` binds every source file the evidence is
derived from, by the sha256 of its decompressed bytes, together with where it lives upstream::

    {"schema_version": 1, "evidence_home": "../shared/corpus",
     "upstream": {"dragnet": {"repository": "https://github.com/<owner>/<repo>", "commit": "<40 hex>"}},
     "cases": {"<case id>": {"source": "dragnet", "key": "R1000",
        "files": {"dragnet/HTML/R1000.html.gz": {"sha256": "…", "upstream": "dragnet_data/input/R1000.html"}},
        "capture": {"file": "dragnet/HTML/R1000.html.gz", "field": null},
        "reference": {"file": "…", "part": "before_comments", "key": null, "field": null, "lines": null}}}}

:func:`fetch_evidence` gets each file from a local mirror in the corpus layout (``../shared/corpus``) or
from ``<upstream base>/<owner>/<repo>/<commit>/<upstream path>`` (raw.githubusercontent.com), checks its
sha256, derives capture and reference exactly as the reviewed-suite importer does
(:mod:`lexbench.dataset.importers.reviewed`), checks both against ``rules.json`` and compiles the
dataset (:func:`~lexbench.dataset.compile.compile_articles`). The result is an input directory::

    <into>/dataset.json
    <into>/evidence/captures/<id>.html
    <into>/evidence/references/<id>.txt

built in a temporary directory beside ``<into>`` and renamed into place only when everything verified:
nothing partial is ever published. Any missing or changed file raises :class:`EvidenceError` naming the
file and the case.

For authors of ``sources.json``: :data:`UPSTREAM` holds each corpus folder's repository and pinned
commit, :func:`upstream_path` maps a corpus path to its upstream path, and :func:`bind_source_file`
makes a file's binding from a mirror.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.dataset.bindings import DATASET_NAME, SOURCE_INPUTS_NAME
from lexbench.dataset.compile import compile_articles, load_rules, sha256_bytes, write_new
from lexbench.dataset.importers.reviewed import capture_spec, derive_capture, derive_reference
from lexbench.resources import data_root
from lexbench.errors import EvidenceError, LexbenchError
from lexbench.jsonfile import InvalidJson, read_json

UPSTREAM_BASE = "https://raw.githubusercontent.com"
"""Where upstream files are fetched from: ``<base>/<owner>/<repo>/<commit>/<path>``."""
DEFAULT_MIRROR = "../shared/corpus"
"""The local mirror in the corpus layout, relative to the repository root."""
EVIDENCE_DIR = ".evidence"
"""Default home of external input directories, ``<repository root>/.evidence/<suite>`` (git-ignored)."""
FETCH_TIMEOUT_S = 60.0


UPSTREAM: dict[str, dict[str, str]] = {
    "scrapinghub-aeb": {"repository": "https://github.com/scrapinghub/article-extraction-benchmark",
                        "commit": "4a3bc979f76c0df73cb95fe272e2fc1b96f9f010"},
    "mozilla-readability": {"repository": "https://github.com/mozilla/readability",
                            "commit": "ab4027a8b37669745016869a37a504727992b2ba"},
    "trafilatura-eval": {"repository": "https://github.com/adbar/trafilatura",
                         "commit": "e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5"},
    # dragnet: the HTML and the GoldStandard (byte-identical to seomoz Corrected/) of the j-szulc mirror.
    "dragnet": {"repository": "https://github.com/j-szulc/html-cleaning-dataset-merged",
                "commit": "46e01a04b47051838a228bf23631430b2c9de375"},
    "magic-html-bench": {"repository": "https://github.com/opendatalab/magic-html",
                         "commit": "47d4a7fed12030e906a093b074637f178cb46ef2"},
    "harvest-forums": {"repository": "https://github.com/fhgr/harvest",
                       "commit": "f778b0a4112259ad246c8ac57e9d51eb149ab9ef"},
    "webmainbench-sample": {"repository": "https://github.com/opendatalab/WebMainBench",
                            "commit": "9d991bdc00c57b57521499494d96be85c31317ba"},
    "gne-zh-lists": {"repository": "https://github.com/GeneralNewsExtractor/GeneralNewsExtractor",
                     "commit": "3d5a67c65f4d6c8e13c3047754a4c18fc0b0754a"},
}
"""Each corpus folder's source repository and pinned commit, as the corpus README names them."""

_LAYOUT: tuple[tuple[str, str, str], ...] = (
    ("dragnet", r"HTML/(?P<stem>[^/]+)\.html\.gz", "dragnet_data/input/{stem}.html"),
    ("dragnet", r"Corrected/(?P<stem>[^/]+)\.html\.corrected\.txt", "dragnet_data/GoldStandard/{stem}.txt"),
    ("scrapinghub-aeb", r"(?P<path>html/[^/]+\.html\.gz|ground-truth\.json)", "{path}"),
    ("mozilla-readability", r"test-pages/(?P<name>[^/]+)/(?P<file>source\.html|expected\.html)\.gz",
     "test/test-pages/{name}/{file}"),
    ("mozilla-readability", r"test-pages/(?P<name>[^/]+)/expected-metadata\.json",
     "test/test-pages/{name}/expected-metadata.json"),
    ("magic-html-bench", r"(?P<kind>article|forum)/htmls/(?P<key>[^/]+\.html)\.gz", "benchmark/data/{kind}/htmls/{key}"),
    ("magic-html-bench", r"(?P<kind>article|forum)/base\.json", "benchmark/data/{kind}/base.json"),
    ("harvest-forums", r"goldDocuments/(?P<name>[^/]+\.json)\.gz", "corpus/goldDocuments/{name}"),
    ("trafilatura-eval", r"evaldata\.json", "tests/evaldata.json"),
    ("trafilatura-eval", r"html/(?P<file>[^/]+)\.gz", "tests/{folder}/{file}"),
    ("webmainbench-sample", r"(?P<name>[^/]+\.jsonl)\.gz", "data/{name}"),
    ("gne-zh-lists", r"(?P<path>test_list_page/.+)\.gz", "{path}"),
)


def upstream_path(corpus_path: str, *, folder: str | None = None) -> str:
    """The path in its upstream repository of a file named by its corpus path (``<source folder>/…``),
    following the layouts the corpus README describes. A trafilatura-eval page needs ``folder``,
    ``"eval"`` or ``"cache"``: the upstream ``tests/`` folder it comes from. Raises :class:`EvidenceError`
    for a path no layout covers."""
    source, _, rest = corpus_path.partition("/")
    for name, pattern, template in _LAYOUT:
        match = re.fullmatch(pattern, rest) if name == source else None
        if match is None:
            continue
        if "{folder}" in template and folder not in ("eval", "cache"):
            raise EvidenceError(f"{corpus_path}: say which upstream folder the page comes from (tests/eval or tests/cache)")
        return template.format(folder=folder, **match.groupdict())
    raise EvidenceError(f"{corpus_path}: no known upstream layout for this corpus path")


def bind_source_file(mirror: Path, corpus_path: str, *, folder: str | None = None) -> dict[str, str]:
    """A ``sources.json`` file binding read from a corpus mirror: ``{"sha256": <of the decompressed
    bytes>, "upstream": <upstream path>}``. For authors writing a suite's ``sources.json``."""
    return {"sha256": sha256_bytes(Mirror(mirror).read(corpus_path, None, None)),
            "upstream": upstream_path(corpus_path, folder=folder)}


@dataclass(frozen=True)
class Fetched:
    """What :func:`fetch_evidence` published: the input directory, its case count, the dataset's sha256,
    how many distinct source files were read, from where, and the seconds it took."""

    into: Path
    cases: int
    dataset_sha256: str
    files: int
    origin: str
    seconds: float


class Origin:
    """Reads one source file's decompressed bytes, or raises :class:`FileNotFoundError` when absent."""

    label = ""

    def read(self, corpus_path: str, upstream: dict[str, Any] | None, upstream_path: str | None) -> bytes:
        raise NotImplementedError


class Mirror(Origin):
    """A local directory in the corpus layout (``<source folder>/…``; ``.gz`` files are decompressed)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.label = f"mirror {root}"

    def read(self, corpus_path: str, upstream: dict[str, Any] | None, upstream_path: str | None) -> bytes:
        path = self.root / corpus_path
        data = path.read_bytes()
        return _gunzip(data, str(path)) if path.suffix == ".gz" else data


class Upstream(Origin):
    """The source repositories at their pinned commits, over HTTP(S) from ``base`` (raw file layout)."""

    def __init__(self, base: str = UPSTREAM_BASE) -> None:
        self.base = base.rstrip("/")
        self.label = f"upstream {self.base}"

    def url(self, upstream: dict[str, Any], upstream_path: str) -> str:
        """``<base>/<owner>/<repo>/<commit>/<path>`` of a file; raises :class:`EvidenceError` for a
        repository that is not ``https://github.com/<owner>/<repo>``."""
        repository = urllib.parse.urlparse(str(upstream.get("repository", "")))
        parts = repository.path.strip("/").removesuffix(".git").split("/")
        if repository.netloc != "github.com" or len(parts) != 2:
            raise EvidenceError(f"upstream repository {upstream.get('repository')!r} is not https://github.com/<owner>/<repo>")
        return f"{self.base}/{parts[0]}/{parts[1]}/{upstream['commit']}/{urllib.parse.quote(upstream_path)}"

    def read(self, corpus_path: str, upstream: dict[str, Any] | None, upstream_path: str | None) -> bytes:
        if upstream is None or not upstream_path:
            raise EvidenceError(f"{corpus_path}: sources.json gives no upstream repository or path for it")
        url = self.url(upstream, upstream_path)
        try:
            with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_S) as response:  # noqa: S310 (http(s) only)
                data = response.read()
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise FileNotFoundError(url) from None
            raise EvidenceError(f"{url}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise EvidenceError(f"{url}: cannot be fetched ({getattr(exc, 'reason', exc)})") from None
        return _gunzip(data, url) if upstream_path.endswith(".gz") else data


def _gunzip(data: bytes, where: str) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise EvidenceError(f"{where}: broken gzip data ({exc})") from None


def repository_root() -> Path:
    """The checkout this package runs from, or (installed from a wheel) the current directory."""
    return data_root()


def default_into(suite: str) -> Path:
    """``<repository root>/.evidence/<suite>``: where fetched input directories go by default."""
    return repository_root() / EVIDENCE_DIR / suite


def load_sources(path: Path) -> dict[str, Any]:
    """Read a suite's ``sources.json``; raises :class:`EvidenceError` when it is missing, not JSON, or not
    schema version 1 with ``upstream`` and ``cases`` objects."""
    try:
        sources = read_json(path)
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing; a reviewed suite binds its source files in sources.json") from None
    except InvalidJson as exc:
        raise EvidenceError(f"{path}: not UTF-8 JSON ({exc})") from None
    if not isinstance(sources, dict) or sources.get("schema_version") != 1:
        raise EvidenceError(f"{path}: not a sources.json of schema_version 1")
    for name in ("upstream", "cases"):
        if not isinstance(sources.get(name), dict):
            raise EvidenceError(f"{path}: {name} must be an object")
    return sources


def fetch_evidence(suite_root: Path, *, into: Path, mirror: Path | None = None,
                   upstream_base: str = UPSTREAM_BASE) -> Fetched:
    """Fetch, verify and compile the evidence of the reviewed suite in ``suite_root`` into ``into``.

    Every file of every case in ``suite_root/sources.json`` is read from ``mirror`` (a directory in the
    corpus layout) when given, else from ``upstream_base``; its decompressed bytes must hash to the bound
    sha256. The capture and reference derived from them must hash to the ``rules.json`` bindings, and the
    whole inventory must compile (:func:`~lexbench.dataset.compile.compile_articles`). When the suite is
    published (``source-inputs.json``), the compiled ``dataset.json`` must be byte-identical to the pinned
    one. ``into`` is replaced only at the end, by a rename; on any error nothing is left behind.

    Raises :class:`EvidenceError` naming the file and the case (missing, changed, unfetchable),
    :class:`~lexbench.errors.RulesError` for rules that do not compile.
    """
    started = time.perf_counter()
    rules = load_rules(suite_root / "rules.json")
    sources = load_sources(suite_root / "sources.json")
    origin: Origin = Mirror(mirror) if mirror is not None else Upstream(upstream_base)
    missing = [rule.id for rule in rules.cases if rule.id not in sources["cases"]]
    if missing:
        raise EvidenceError(f"{suite_root / 'sources.json'}: no source entry for case(s) {', '.join(missing)}")

    into = into.resolve()
    into.parent.mkdir(parents=True, exist_ok=True)
    building = into.parent / f".{into.name}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    read_once: dict[str, bytes] = {}
    try:
        evidence = building / "evidence"
        for rule in rules.cases:
            entry = sources["cases"][rule.id]
            files = entry.get("files")
            if not isinstance(files, dict) or not files:
                raise EvidenceError(f"case {rule.id}: sources.json binds no source files")

            def read(corpus_path: str, case_id: str = rule.id, files: dict[str, Any] = files,
                     entry: dict[str, Any] = entry) -> bytes:
                binding = files.get(corpus_path)
                if not isinstance(binding, dict) or not binding.get("sha256"):
                    raise EvidenceError(f"case {case_id}: {corpus_path} is used but not bound (no sha256 in files)")
                data = read_once.get(corpus_path)
                if data is None:
                    upstream = sources["upstream"].get(entry.get("source") or corpus_path.split("/", 1)[0])
                    try:
                        data = origin.read(corpus_path, upstream, binding.get("upstream"))
                    except FileNotFoundError:
                        where = binding.get("upstream") if isinstance(origin, Upstream) else corpus_path
                        raise EvidenceError(
                            f"case {case_id}: source file {corpus_path} is missing from the {origin.label} "
                            f"(looked for {where})") from None
                    except EvidenceError as exc:
                        raise EvidenceError(f"case {case_id}: source file {corpus_path}: {exc}") from None
                    read_once[corpus_path] = data
                actual = sha256_bytes(data)
                if actual != binding["sha256"]:
                    raise EvidenceError(
                        f"case {case_id}: source file {corpus_path} from the {origin.label} has sha256 {actual}, but "
                        f"sources.json binds {binding['sha256']}: the file changed or is not the reviewed one; refused")
                return data

            # Every bound file is checked, also one the derivation would not read.
            for corpus_path in files:
                read(corpus_path)
            try:
                capture = derive_capture(capture_spec(entry), read)
                lines = derive_reference(entry.get("reference"), read, capture)
            except LexbenchError as exc:
                raise EvidenceError(f"case {rule.id}: {exc}") from None
            if sha256_bytes(capture) != rule.capture.sha256:
                raise EvidenceError(f"case {rule.id}: the capture derived from {capture_spec(entry)['file']} does not "
                                    f"hash to rules.json's capture sha256 {rule.capture.sha256}")
            write_new(evidence / rule.capture.path, capture)
            if rule.body is not None:
                text = "\n".join(lines).encode("utf-8")
                if sha256_bytes(text) != rule.body.reference.sha256:
                    raise EvidenceError(f"case {rule.id}: the reference lines derived from sources.json do not hash "
                                        f"to rules.json's body.reference.sha256 {rule.body.reference.sha256}")
                write_new(evidence / rule.body.reference.path, text)
        output = building / DATASET_NAME
        compile_articles(suite_root / "rules.json", suite_root / "cohort.json", evidence, output)
        dataset_sha256 = sha256_bytes(output.read_bytes())
        if (suite_root / SOURCE_INPUTS_NAME).is_file():
            pinned = read_json(suite_root / SOURCE_INPUTS_NAME)["files"][DATASET_NAME]
            if dataset_sha256 != pinned:
                raise EvidenceError(
                    f"the evidence verifies but compiles to a dataset.json with sha256 {dataset_sha256}, while "
                    f"{suite_root / SOURCE_INPUTS_NAME} pins {pinned}: rules.json changed after publication; "
                    "publish the new revision (lexbench publish)")
        _publish_dir(building, into)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return Fetched(into=into, cases=len(rules.cases), dataset_sha256=dataset_sha256, files=len(read_once),
                   origin=origin.label, seconds=time.perf_counter() - started)


def _publish_dir(building: Path, into: Path) -> None:
    # Swap by renames so a reader sees the old directory or the new one, never a mix.
    if into.exists():
        retired = into.parent / f".{into.name}.retired-{os.getpid()}"
        os.replace(into, retired)
        os.replace(building, into)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        os.replace(building, into)
