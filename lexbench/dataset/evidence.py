"""``lexbench fetch-evidence``: rebuild a reviewed suite's external evidence on any machine (SPEC §4).

A committed reviewed suite (``cases/articles``) publishes its rules and bindings but not its captures,
references or compiled ``dataset.json``. Its ``sources.json`` binds every source file the evidence is
derived from, by the sha256 and size (``bytes``) of its decompressed bytes, and where it lives upstream::

    {"schema_version": 1, "evidence_home": "../shared/corpus",
     "upstream": {"dragnet": {"repository": "https://github.com/<owner>/<repo>", "commit": "<40 hex>"}},
     "cases": {"<case id>": {"source": "dragnet", "key": "R1000",
        "files": {"dragnet/HTML/R1000.html.gz": {"sha256": "…", "bytes": 80121,
                                                "upstream": "dragnet_data/input/R1000.html"}},
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

    <into>/.lexbench-evidence.json          (the marker: the suite and every file lexbench wrote)

built in a temporary directory beside ``<into>`` and renamed into place only when everything verified:
nothing partial is ever published, and ``<into>`` is replaced only when it is empty or a previous fetch
of the same suite holding nothing its marker does not list; nothing lexbench did not write is removed.
Every file is read at most to its binding's ``bytes`` (:class:`FileBound`): mirror files through the
bounded, kind-checked reader confined to the mirror, upstream files through the providers' HTTP
boundary (network guard, redirect rules, whole-file deadline). Any missing, changed, oversized or
refused file raises :class:`EvidenceError` naming the file and the case.

For authors of ``sources.json``: :data:`UPSTREAM` holds each corpus folder's repository and pinned
commit, :func:`upstream_path` maps a corpus path to its upstream path, and :func:`bind_source_file`
makes a file's binding from a mirror.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import os
import re
import shutil
import stat
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.answer import ErrorType
from lexbench.dataset.bindings import DATASET_NAME, SOURCE_INPUTS_NAME
from lexbench.dataset.compile import compile_articles, load_rules, sha256_bytes, write_new
from lexbench.dataset.importers.reviewed import capture_spec, derive_capture, derive_reference
from lexbench.resources import data_root
from lexbench.errors import EvidenceError, LexbenchError
from lexbench.jsonfile import InvalidJson, decode_json, read_json, read_regular_file
from lexbench.providers.call import MAX_BODY_BYTES, Deadline, FetchError
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.http import BoundedDecoder, HttpBoundary

UPSTREAM_BASE = "https://raw.githubusercontent.com"
"""Where upstream files are fetched from: ``<base>/<owner>/<repo>/<commit>/<path>``."""
DEFAULT_MIRROR = "../shared/corpus"
"""The local mirror in the corpus layout, relative to the repository root."""
EVIDENCE_DIR = ".evidence"
"""Default home of external input directories, ``<repository root>/.evidence/<suite>`` (git-ignored)."""
FETCH_TIMEOUT_S = 60.0
"""Whole-file deadline for one upstream file: connect, redirects, headers and the entire body (not per read)."""
MAX_SOURCE_BYTES = MAX_BODY_BYTES
"""The decompressed size bound of a source file whose binding records no ``bytes`` (20,000,000: the
response ceiling, which every capture is under)."""
MARKER_NAME = ".lexbench-evidence.json"
"""The file lexbench writes into every input directory it builds: the suite and every file it wrote.
Only a directory holding it (of the same suite) is ever replaced, and only the files it lists are removed."""
_MAX_MARKER_BYTES = 10_000_000


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


def bind_source_file(mirror: Path, corpus_path: str, *, folder: str | None = None) -> dict[str, Any]:
    """A ``sources.json`` file binding read from a corpus mirror: ``{"sha256": <of the decompressed
    bytes>, "bytes": <their count>, "upstream": <upstream path>}``. For authors writing a suite's
    ``sources.json``; ``bytes`` bounds what :func:`fetch_evidence` reads of the file."""
    data = Mirror(mirror).read(corpus_path, None, None, FileBound.of({}, corpus_path))
    return {"sha256": sha256_bytes(data), "bytes": len(data), "upstream": upstream_path(corpus_path, folder=folder)}


@dataclass(frozen=True)
class FileBound:
    """How much of one source file is read, from its binding: ``decoded`` is the most decompressed
    bytes (the binding's ``bytes`` when recorded, then ``exact``; else :data:`MAX_SOURCE_BYTES`).
    Every origin stops reading past :meth:`stored` and decompresses no further than ``decoded``, so a
    hostile file is refused before it is hashed, with memory near its bound."""

    decoded: int
    exact: bool

    @classmethod
    def of(cls, binding: dict[str, Any], corpus_path: str) -> FileBound:
        """The bound of the file ``binding`` (a ``sources.json`` ``files`` entry) binds; raises
        :class:`EvidenceError` for a ``bytes`` that is not a non-negative integer."""
        size = binding.get("bytes")
        if size is None:
            return cls(MAX_SOURCE_BYTES, exact=False)
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise EvidenceError(f"{corpus_path}: bytes must be the file's decompressed size (an integer >= 0), got {size!r}")
        return cls(size, exact=True)

    def stored(self, gzipped: bool) -> int:
        """The most bytes of the file as stored: gzip adds at most 5 bytes per 16 KiB deflate block,
        its header (with a file name) and trailer."""
        return self.decoded + self.decoded // 1000 + 1024 if gzipped else self.decoded

    def describe(self) -> str:
        if self.exact:
            return f"sources.json binds it at {self.decoded:,} bytes"
        return f"sources.json records no bytes for it, so at most {self.decoded:,} bytes are read"


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
    kept: Path | None = None
    """Where files that appeared in ``into`` during the fetch, unknown to its marker, were kept (else ``None``)."""


class Origin:
    """Reads one source file's decompressed bytes, at most ``bound.decoded`` of them, or raises
    :class:`FileNotFoundError` when absent and :class:`EvidenceError` for anything else."""

    label = ""

    def read(self, corpus_path: str, upstream: dict[str, Any] | None, upstream_path: str | None,
             bound: FileBound) -> bytes:
        raise NotImplementedError


class Mirror(Origin):
    """A local directory in the corpus layout (``<source folder>/…``; ``.gz`` files are decompressed).
    Only regular files inside it are read (:func:`~lexbench.jsonfile.read_regular_file` with ``within``):
    ``../``, absolute paths and symlinks out of it are refused, and so are FIFOs, sockets and devices."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.label = f"mirror {root}"

    def read(self, corpus_path: str, upstream: dict[str, Any] | None, upstream_path: str | None,
             bound: FileBound) -> bytes:
        path = self.root / corpus_path
        gzipped = path.suffix == ".gz"
        try:
            data = read_regular_file(path, bound.stored(gzipped), within=self.root)
        except FileNotFoundError:
            raise
        except OSError as exc:
            extra = f" ({bound.describe()})" if exc.errno == errno.EFBIG else ""
            raise EvidenceError(f"{path}: {exc.strerror or exc}{extra}") from None
        return _gunzip(data, str(path), bound) if gzipped else data


class Upstream(Origin):
    """The source repositories at their pinned commits, over HTTP(S) from ``base`` (raw file layout),
    through the providers' HTTP boundary (:class:`~lexbench.providers.http.HttpBoundary`): the
    private-network guard on every address and redirect hop, the whole-file deadline
    :data:`FETCH_TIMEOUT_S`, and the file's :class:`FileBound` as the body ceiling (compressed and
    decompressed). Only ``base``'s own ``address:port`` is exempt from the guard, when ``base`` names
    an IP literal (a mirror served on this machine, as the tests do); its redirects are not."""

    def __init__(self, base: str = UPSTREAM_BASE) -> None:
        self.base = base.rstrip("/")
        self.label = f"upstream {self.base}"
        self.guard = _base_guard(self.base)

    def url(self, upstream: dict[str, Any], upstream_path: str) -> str:
        """``<base>/<owner>/<repo>/<commit>/<path>`` of a file; raises :class:`EvidenceError` for a
        repository that is not ``https://github.com/<owner>/<repo>``, a commit that is not 40 hex digits,
        and a path that is absolute or holds ``..`` (it would leave the pinned commit)."""
        repository = urllib.parse.urlparse(str(upstream.get("repository", "")))
        parts = repository.path.strip("/").removesuffix(".git").split("/")
        if repository.netloc != "github.com" or len(parts) != 2 or any(p in ("", ".", "..") for p in parts):
            raise EvidenceError(f"upstream repository {upstream.get('repository')!r} is not https://github.com/<owner>/<repo>")
        commit = str(upstream.get("commit", ""))
        if not re.fullmatch(r"[0-9a-f]{40}", commit):
            raise EvidenceError(f"upstream commit {commit!r} of {upstream.get('repository')} is not 40 hex digits")
        segments = upstream_path.replace("\\", "/").split("/")
        if upstream_path.startswith("/") or any(segment in ("", ".", "..") for segment in segments):
            raise EvidenceError(f"upstream path {upstream_path!r} is not a plain relative path inside the repository")
        return f"{self.base}/{parts[0]}/{parts[1]}/{commit}/{urllib.parse.quote(upstream_path)}"

    def read(self, corpus_path: str, upstream: dict[str, Any] | None, upstream_path: str | None,
             bound: FileBound) -> bytes:
        if upstream is None or not upstream_path:
            raise EvidenceError(f"{corpus_path}: sources.json gives no upstream repository or path for it")
        url = self.url(upstream, upstream_path)
        gzipped = upstream_path.endswith(".gz")
        stored = bound.stored(gzipped)
        # A server may compress the transfer anyway: its gzip overhead is allowed on the wire, not in the file.
        boundary = HttpBoundary(guard=self.guard, max_body_bytes=stored + stored // 1000 + 1024)
        try:
            # identity: the body is the file as stored, so its bound is exact (a gzip transfer of a tiny
            # file can be larger than the file); a server that compresses anyway is inflated within it.
            response = boundary.fetch_target(url, Deadline.after(FETCH_TIMEOUT_S), {"Accept-Encoding": "identity"})
        except FetchError as exc:
            status = exc.metadata.get("upstream_status")
            if status == 404:  # a missing file's error page may be larger than the file
                raise FileNotFoundError(url) from None
            if status is not None and status != 200:
                raise EvidenceError(f"{url}: HTTP {status}") from None
            extra = f" ({bound.describe()})" if exc.error_type == ErrorType.TOO_LARGE else ""
            if exc.error_type == ErrorType.BLOCKED_NETWORK:
                extra = (" (fetch-evidence reaches public addresses only; --upstream-base's own IP:port is exempt "
                         "when it names an IP literal, never a redirect or another host)")
            raise EvidenceError(f"{url}: cannot be fetched ({exc}){extra}") from None
        if response.status == 404:
            raise FileNotFoundError(url)
        if response.status != 200:
            raise EvidenceError(f"{url}: HTTP {response.status}")
        if len(response.body) > stored:
            raise EvidenceError(f"{url}: {len(response.body):,} bytes, more than the {stored:,} the file may have "
                                f"({bound.describe()}); refused before hashing")
        return _gunzip(response.body, url, bound) if gzipped else response.body


def _base_guard(base: str) -> NetworkGuard:
    """The network guard for ``base``: its own ``(IP literal, port)`` exempt when it names one, else none."""
    parts = urllib.parse.urlsplit(base)
    try:
        host = ipaddress.ip_address((parts.hostname or "").split("%", 1)[0])
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return NetworkGuard()
    return NetworkGuard.allowing((str(host), port))


def _gunzip(data: bytes, where: str, bound: FileBound) -> bytes:
    # Inflated in bounded steps (the HTTP boundary's decoder): a gzip bomb stops at the file's bound.
    try:
        decoder = BoundedDecoder("gzip", bound.decoded)
        decoder.feed(data)
        return decoder.finish()
    except FetchError as exc:
        if exc.error_type == ErrorType.TOO_LARGE:
            raise EvidenceError(f"{where}: decompresses past {bound.decoded:,} bytes ({bound.describe()}); "
                                "refused before hashing") from None
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
    corpus layout) when given, else from ``upstream_base``; at most its :class:`FileBound` is read (its
    recorded ``bytes``, which it must have exactly) and its decompressed bytes must hash to the bound
    sha256. The capture and reference derived from them must hash to the ``rules.json`` bindings, and the
    whole inventory must compile (:func:`~lexbench.dataset.compile.compile_articles`). When the suite is
    published (``source-inputs.json``), the compiled ``dataset.json`` must be byte-identical to the pinned
    one.

    ``into`` must be absent, empty, or an input directory lexbench wrote for the same suite (its
    :data:`MARKER_NAME` lists every file lexbench wrote there, and nothing else may be there). It is
    replaced only at the end, by a rename, and only the files that marker lists are then removed; on
    any error nothing is left behind and nothing of ``into`` is touched.

    Raises :class:`EvidenceError` naming the file and the case (missing, changed, too large, outside the
    mirror, not a regular file, unfetchable) or ``into`` (not lexbench's to replace),
    :class:`~lexbench.errors.RulesError` for rules that do not compile.
    """
    started = time.perf_counter()
    rules = load_rules(suite_root / "rules.json")
    sources = load_sources(suite_root / "sources.json")
    origin: Origin = Mirror(mirror) if mirror is not None else Upstream(upstream_base)
    missing = [rule.id for rule in rules.cases if rule.id not in sources["cases"]]
    if missing:
        raise EvidenceError(f"{suite_root / 'sources.json'}: no source entry for case(s) {', '.join(missing)}")

    suite = suite_root.resolve().name
    into = into.resolve()
    previous = previous_evidence(into, suite)  # refused before any file is fetched
    into.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=into.parent, prefix=f".{into.name}.building-"))
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
                        bound = FileBound.of(binding, corpus_path)
                        data = origin.read(corpus_path, upstream, binding.get("upstream"), bound)
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
                    recorded = f" ({binding['bytes']:,} bytes)" if isinstance(binding.get("bytes"), int) else ""
                    raise EvidenceError(
                        f"case {case_id}: source file {corpus_path} from the {origin.label} has sha256 {actual} "
                        f"({len(data):,} bytes), but sources.json binds {binding['sha256']}{recorded}: the file "
                        "changed or is not the reviewed one; refused")
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
        _write_marker(building, suite)
        kept = _publish_dir(building, into, previous)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)  # the temporary directory made above: lexbench's alone
        raise
    return Fetched(into=into, cases=len(rules.cases), dataset_sha256=dataset_sha256, files=len(read_once),
                   origin=origin.label, seconds=time.perf_counter() - started, kept=kept)


# --- publishing into a directory that may hold a user's files --------------------------------------


def previous_evidence(into: Path, suite: str) -> list[str] | None:
    """What of ``into`` (resolved) :func:`fetch_evidence` may replace: ``None`` when it does not exist,
    ``[]`` when it is an empty directory, else the files the :data:`MARKER_NAME` of a previous fetch of
    ``suite`` lists (relative POSIX paths). Raises :class:`EvidenceError` naming ``into`` and what to do
    when it is a file, a non-empty directory without a valid marker (a user's folder, a git checkout),
    another suite's evidence, or holds anything the marker does not list."""
    try:
        status = os.lstat(into)
    except FileNotFoundError:
        return None
    again = "choose a new or empty directory with --into (default: .evidence/<suite>)"
    if not stat.S_ISDIR(status.st_mode):
        raise EvidenceError(f"--into {into}: exists and is not a directory; lexbench never replaces what it did not "
                            f"write: {again}")
    entries = sorted(os.listdir(into))
    if not entries:
        return []
    marker = into / MARKER_NAME
    if MARKER_NAME not in entries:
        shown = ", ".join(entries[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")
        raise EvidenceError(f"--into {into}: not empty ({shown}) and not an evidence directory lexbench wrote (it "
                            f"has no {MARKER_NAME}); lexbench never removes files it did not create: {again}")
    try:
        recorded = decode_json(read_regular_file(marker, _MAX_MARKER_BYTES))
    except (OSError, InvalidJson) as exc:
        raise EvidenceError(f"{marker}: not a marker lexbench wrote ({getattr(exc, 'strerror', None) or exc}); "
                            f"lexbench replaces only a directory whose marker lists what it wrote: {again}") from None
    files = recorded.get("files") if isinstance(recorded, dict) else None
    if (not isinstance(recorded, dict) or recorded.get("kind") != "lexbench_evidence" or not isinstance(files, list)
            or not all(isinstance(f, str) and _plain_relative(f) and f != MARKER_NAME for f in files)):
        raise EvidenceError(f"{marker}: not a marker lexbench wrote (expected kind lexbench_evidence and a list of "
                            f"plain relative file paths); lexbench replaces only a directory whose marker lists what "
                            f"it wrote: {again}")
    if recorded.get("suite") != suite:
        raise EvidenceError(f"--into {into}: holds the evidence of suite {recorded.get('suite')!r}, not {suite!r}; "
                            f"lexbench replaces only a previous fetch of the same suite: {again}")
    unlisted = _unlisted(into, set(files))
    if unlisted:
        shown = ", ".join(unlisted[:5]) + (f" and {len(unlisted) - 5} more" if len(unlisted) > 5 else "")
        raise EvidenceError(f"--into {into}: holds {len(unlisted)} entr{'y' if len(unlisted) == 1 else 'ies'} lexbench "
                            f"did not write ({shown}; its {MARKER_NAME} does not list them); move them out of it, or "
                            f"{again}")
    return list(files)


def _plain_relative(path: str) -> bool:
    return not path.startswith("/") and all(part not in ("", ".", "..") for part in path.split("/"))


def _unlisted(into: Path, files: set[str]) -> list[str]:
    """Entries under ``into`` that are neither a listed regular file, a folder holding one, nor the marker."""
    folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    found = []
    for top, dirs, names in os.walk(into, followlinks=False):
        relative_top = os.path.relpath(top, into)
        for name in sorted(dirs + names):
            relative = name if relative_top == "." else f"{relative_top}/{name}"
            kind = os.lstat(os.path.join(top, name)).st_mode
            if relative == MARKER_NAME or (stat.S_ISREG(kind) and relative in files) \
                    or (stat.S_ISDIR(kind) and relative in folders):
                continue
            found.append(relative)
        dirs[:] = [d for d in dirs if (d if relative_top == "." else f"{relative_top}/{d}") in folders]
    return found


def _write_marker(building: Path, suite: str) -> None:
    files = sorted(path.relative_to(building).as_posix() for path in building.rglob("*") if path.is_file())
    write_new(building / MARKER_NAME, (json.dumps({
        "kind": "lexbench_evidence", "schema_version": 1, "suite": suite, "files": files,
        "note": "written by lexbench fetch-evidence: the files it wrote here, the only ones it will replace",
    }, indent=1) + "\n").encode("utf-8"))


def _publish_dir(building: Path, into: Path, previous: list[str] | None) -> Path | None:
    """Swap ``building`` into ``into`` by renames, so a reader sees the old directory or the new one,
    never a mix; the folder where files lexbench did not write were kept, if any appeared meanwhile."""
    # A rename onto an empty directory replaces it; onto one that gained a file meanwhile it fails, and
    # nothing is lost.
    changed = f"--into {into}: changed during the fetch, nothing was replaced; look at it and fetch again"
    if not previous:
        try:
            os.replace(building, into)
        except OSError as exc:
            raise EvidenceError(f"{changed} ({exc.strerror})") from None
        return None
    retired = Path(tempfile.mkdtemp(dir=into.parent, prefix=f".{into.name}.retired-"))
    os.replace(into, retired)
    try:
        os.replace(building, into)
    except OSError as exc:
        os.replace(retired, into)
        raise EvidenceError(f"{changed} ({exc.strerror})") from None
    # Remove only what the previous marker lists; anything else that appeared since stays (with its folder).
    for relative in [*previous, MARKER_NAME]:
        path = retired / relative
        if path.is_file() and not path.is_symlink():
            path.unlink()
    for folder in sorted({retired / f.rsplit("/", 1)[0] for f in previous if "/" in f}, key=lambda p: -len(p.parts)):
        for level in [folder, *folder.parents]:
            if level == retired or retired not in level.parents:
                break
            try:
                level.rmdir()
            except OSError:
                break
    try:
        retired.rmdir()
    except OSError:
        return retired  # something lexbench did not write appeared during the fetch: kept, and said so
    return None
