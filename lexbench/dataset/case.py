"""Case and suite models: what a frozen case promises and how it is bound to its evidence (SPEC §2).

Two shapes of the same case exist:

- :class:`CaseRule` — the authoring form stored in ``rules.json``. It names its evidence files (the
  capture and the reference body) by relative path and binds them by sha256, character count and
  exact opening and ending. It never holds the reference text itself.
- :class:`Case` — the compiled form stored in ``dataset.json``: the rule plus the verified reference
  text. Scoring only ever sees a :class:`Case`.

Every model forbids unknown fields, so a typo in ``rules.json`` is an error, not a silent default.
Validation errors are raised as :class:`pydantic.ValidationError`; :func:`lexbench.dataset.suite`
turns them into :class:`~lexbench.errors.RulesError` messages naming the case and the field.

Why one module of this size: it is the case model (SPEC §2) — a case and its contracts are one pydantic schema, exported as one JSON Schema (schemas/).
"""

from __future__ import annotations

import hashlib
import math
import re
import warnings
from datetime import date
from enum import StrEnum
from fractions import Fraction
from typing import Annotated, ClassVar, Literal

import regex
from cssselect import SelectorError
from lxml.cssselect import CSSSelector
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from lexbench.text import label_normalise

CASE_ID_PATTERN = r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d{3}-[a-z]{2,3}(?:-[a-z0-9]+)+$"
"""``<category>-<NNN>-<lang>-<slug>``, e.g. ``article-042-en-wsj-stadia`` (SPEC §2)."""

SHA256_PATTERN = r"^[0-9a-f]{64}$"
MIN_ENDING_FRAGMENTS = 10
"""A reviewed ending (``reference_scope.end``) yields at least this many fragments (SPEC §2): a
shorter one can be met by a few characters that also occur earlier in the article."""
MAX_REGIONS = 5
"""Segmentation v3 allows at most five regions (SPEC §2)."""
COVERAGE_THRESHOLD = 0.8
"""Body contract v4: every region and the ending need ≥ 80 % fragment coverage (SPEC §2)."""

NonEmpty = Annotated[str, StringConstraints(min_length=1)]
Sha256 = Annotated[str, StringConstraints(pattern=SHA256_PATTERN)]


class Model(BaseModel):
    """Base for every dataset model: unknown fields are rejected, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class CaseKind(StrEnum):
    """What a case's content is (SPEC §2)."""

    FIXED_ARTICLE = "fixed_article"
    POST_COLLECTION = "post_collection"
    SITE_LABELS = "site_labels"


class Delivery(StrEnum):
    """How the answer is delivered (SPEC §2): ``text`` (readable content), ``file`` (the document's bytes,
    judged by the case's :class:`FileContract`) or ``resources`` (the page's owned resource URLs after DOM
    completion, judged by its :class:`ResourcesContract`)."""

    TEXT = "text"
    FILE = "file"
    RESOURCES = "resources"


class ReviewStatus(StrEnum):
    """Whether a human reviewed the suite's contracts, or they were imported from a corpus as-is."""

    REVIEWED = "reviewed"
    IMPORTED_UNREVIEWED = "imported_unreviewed"


class TitleBasis(StrEnum):
    """Where the title contract comes from (SPEC §3.3).

    ``observed``: an independently observed visible title; scored.
    ``titleless``: the page is a titleless short post; nothing to score.
    ``not_in_source``: an imported corpus has no independent title; reported as not scored, never
    invented from ``<title>``.
    """

    OBSERVED = "observed"
    TITLELESS = "titleless"
    NOT_IN_SOURCE = "not_in_source"


class SourceRegion(StrEnum):
    """The page region a stable group was observed in (SPEC §2)."""

    TITLE = "title"
    ATTRIBUTION = "attribution"
    NAVIGATION = "navigation"
    SIDEBAR = "sidebar"
    FOOTER = "footer"
    CONTROLS = "controls"
    ARTICLE = "article"


class FileBinding(Model):
    """An evidence file named relative to the evidence home and bound by the sha256 of its bytes."""

    path: NonEmpty
    sha256: Sha256

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or ".." in value.split("/"):
            raise ValueError(f"evidence path {value!r} must be relative to the evidence home, without '..'")
        return value


ARCHIVE_SUFFIXES = (".warc", ".warc.gz")
"""A capture whose path ends so is a web archive (WARC, ISO 28500) of every resource the page's first
load requested (SPEC §7, :mod:`lexbench.dataset.archive`); any other capture is one saved HTML file."""


class Capture(FileBinding):
    """The saved page the replay server serves for this case (SPEC §7): one HTML file served with
    ``content_type``, or a web archive (path ending ``.warc`` / ``.warc.gz``) whose records carry their
    own status, headers and content type (``content_type`` is then ignored: leave it at its default or
    give the archive's own type, ``application/warc``)."""

    content_type: NonEmpty = "text/html; charset=utf-8"

    @property
    def is_archive(self) -> bool:
        """Whether this capture is a web archive rather than one HTML file."""
        return self.path.endswith(ARCHIVE_SUFFIXES)

    @model_validator(mode="after")
    def _archive_types_its_records(self) -> Capture:
        if self.is_archive and self.content_type not in ("text/html; charset=utf-8", "application/warc"):
            raise ValueError(f"capture {self.path!r} is a web archive: each record carries its own content type, "
                             "so drop content_type")
        return self


class ReferenceBinding(FileBinding):
    """The reference body file, bound by UTF-8 sha256, character count and exact opening and ending."""

    chars: int = Field(ge=1)
    opening: NonEmpty
    ending: NonEmpty


class ReferenceScope(Model):
    """What the reference claims to cover (SPEC §2).

    ``complete``: the whole displayed article. ``displayed_excerpt``: only the ordinarily displayed part
    of a folded article, with ``cutoff_evidence`` describing the visible cutoff. ``end`` is the reviewed
    ending passage that body contract v4 requires at ≥ 80 % coverage; it must be non-empty.
    """

    kind: Literal["complete", "displayed_excerpt"]
    end: NonEmpty
    cutoff_evidence: str | None = None

    @model_validator(mode="after")
    def _excerpt_needs_evidence(self) -> ReferenceScope:
        if self.kind == "displayed_excerpt" and not (self.cutoff_evidence or "").strip():
            raise ValueError("a displayed_excerpt scope needs cutoff_evidence describing the visible cutoff")
        if not self.end.strip():
            raise ValueError("reference_scope.end must be a non-empty ending passage")
        return self


class Region(Model):
    """A labelled, contiguous, one-based inclusive range of reference lines (SPEC §2)."""

    label: NonEmpty
    first_line: int = Field(ge=1)
    last_line: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Region:
        if self.last_line < self.first_line:
            raise ValueError(f"region {self.label!r}: last_line {self.last_line} is before first_line {self.first_line}")
        return self


class BodyRule(Model):
    """The body contract of a fixed article, as authored (SPEC §2).

    ``contract_version`` 4 = every region and the ending ≥ 80 %; 3 = legacy, regions only. Version 1
    is rejected as unsupported. ``segmentation_version`` 3 = at most five regions.
    """

    contract_version: Literal[3, 4]
    segmentation_version: Literal[2, 3] = 3
    reference: ReferenceBinding
    reference_scope: ReferenceScope
    regions: list[Region] = Field(min_length=1)

    @field_validator("contract_version", mode="before")
    @classmethod
    def _supported_version(cls, value: object) -> object:
        if value in (1, 2):
            raise ValueError(f"body contract version {value} is unsupported; compile the case as version 4")
        if value not in (3, 4):
            raise ValueError(
                f"body contract version {value!r} is unknown: this lexbench reads version 4 (current) and "
                "3 (legacy, for older frozen inputs)"
            )
        return value

    @model_validator(mode="after")
    def _regions_contiguous(self) -> BodyRule:
        if self.segmentation_version == 3 and len(self.regions) > MAX_REGIONS:
            raise ValueError(f"segmentation v3 allows at most {MAX_REGIONS} regions, got {len(self.regions)}")
        expected = 1
        for region in self.regions:
            if region.first_line != expected:
                raise ValueError(
                    f"region {region.label!r} starts at line {region.first_line}, expected {expected}: "
                    "regions must be contiguous and in order"
                )
            expected = region.last_line + 1
        return self


_FIELD_WORDS = {"basis": "stability basis", "observed": "observation date"}


def _empty_override(value: object, field: str | None, instead: str) -> object:
    # An empty string would silently stand for "use the default" (or for nothing): say so instead.
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"an empty {field} override is invalid: {instead} {_FIELD_WORDS.get(field or '', field)}")
    return value


class StableTextDefaults(Model):
    """Per-case defaults for stable groups' basis and observation date; explicit row values win."""

    basis: NonEmpty | None = None
    observed: date | None = None

    @field_validator("basis", "observed", mode="before")
    @classmethod
    def _no_empty_default(cls, value: object, info: ValidationInfo) -> object:
        return _empty_override(value, info.field_name, "omit the field or give the")


class StableGroup(Model):
    """Stable page text that a whole-page fetch should contain (SPEC §2).

    ``phrases`` are original-language phrases; the group passes when every phrase is found in the
    normalised answer. ``basis`` and ``observed`` may come from the case's defaults.
    """

    id: NonEmpty
    region: SourceRegion
    phrases: list[NonEmpty] = Field(min_length=1)
    location: NonEmpty
    selector: NonEmpty | None = Field(default=None, exclude_if=lambda value: value is None)
    """The location as a CSS selector over the capture: the visibility proof refuses a phrase whose visible
    occurrences are all outside it (SPEC §4). Left out of the JSON when absent, so older suites keep their
    bytes."""
    basis: NonEmpty | None = None
    observed: date | None = None

    @field_validator("basis", "observed", mode="before")
    @classmethod
    def _no_empty_override(cls, value: object, info: ValidationInfo) -> object:
        return _empty_override(value, info.field_name, "omit the field to use stable_text_review_defaults, or give the")


# --- record and anchor contracts (SPEC §2, §3.5–§3.7) ------------------------------------------------

RECORD_CONTRACT_VERSION = 2
"""Current version of the comment and post contracts (SPEC §3.5, §3.6)."""


def minimum_records(baseline: int) -> int:
    """The record floor for a reviewed baseline count (SPEC §3.5): the baseline itself when it is at
    most five, else 80 % of it rounded up (exact integer arithmetic: 6 → 5, 10 → 8, 11 → 9)."""
    return baseline if baseline <= 5 else -(-baseline * 4 // 5)


def _check_selector(value: str) -> str:
    try:
        CSSSelector(value, translator="html")
    except SelectorError as exc:
        raise ValueError(f"CSS selector {value!r} does not parse: {exc}") from None
    return value


def _check_pattern(value: str, what: str) -> str:
    """``value`` when it compiles in ``re`` syntax and means the same to the ``regex`` engine, which
    the scorer searches with (it can bound a search's time: lexbench.scoring.patterns)."""
    try:
        re.compile(value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            regex.compile(value)
    except (re.error, regex.error) as exc:
        raise ValueError(f"{what} {value!r} does not compile: {exc}") from None
    return value


Selector = Annotated[str, StringConstraints(min_length=1)]


class RecordSelectors(Model):
    """Reviewed CSS selectors of native HTML records (SPEC §3.5, §3.6), used only on HTML answers.

    ``record`` matches one record container (a comment or a post). ``author``, ``text`` and the optional
    ``link`` and ``quote`` selectors are matched document-wide and each match belongs to its nearest
    enclosing record, so a reply nested inside its parent never lends the parent its author.
    ``record_id_attribute`` names the record container's attribute that holds the source record id
    (distinct ids stay distinct even when their text matches). Every selector must parse.
    """

    record: Selector
    author: Selector
    text: Selector
    link: Selector | None = None
    quote: Selector | None = None
    record_id_attribute: NonEmpty | None = None

    @field_validator("record", "author", "text", "link", "quote")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        return None if value is None else _check_selector(value)


_LIST_PURPOSE = {
    "ignored_labels": "pure UI labels such as 'Reply' or 'Like', which are neither authors nor record text",
    "unavailable_notices": "deleted, hidden or spam placeholders, which are not records",
    "non_author_labels": "permalink captions such as '#1' or 'Permalink', which never identify an author",
    "metadata_labels": "task-declared metadata labels such as 'Member' or 'Posts:', never authors or post text",
    "heading_labels": "explicit comment-section heading labels such as 'Comments'",
    "end_labels": "standalone labels that end the comment section, such as 'Related posts'",
}


class RecordContract(Model):
    """What comment and post contracts share (SPEC §3.5–§3.7).

    ``baseline`` is the independently reviewed count of valid records, frozen at authoring time;
    :attr:`minimum` derives the floor from it. ``html`` holds the reviewed native selectors (None:
    HTML answers use the structured text parser). Every label list is required and explicit: an empty
    list is valid, an omitted one is rejected, and two entries that are equal after label
    normalisation are rejected. Version 1 contracts are pre-release and rejected as unsupported.
    """

    contract_version: Literal[2]
    baseline: int = Field(ge=1)
    html: RecordSelectors | None = None
    ignored_labels: list[NonEmpty]
    unavailable_notices: list[NonEmpty]
    observed: date
    evidence: NonEmpty
    """Short review note: where the records were observed and how they were counted."""

    LISTS: ClassVar[tuple[str, ...]] = ("ignored_labels", "unavailable_notices")
    KIND: ClassVar[str] = "record"

    @model_validator(mode="before")
    @classmethod
    def _version_and_explicit_lists(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        version = data.get("contract_version")
        if version == 1:
            raise ValueError(
                f"{cls.KIND} contract version 1 is a pre-release format and unsupported; re-author it as "
                f"version {RECORD_CONTRACT_VERSION} with explicit label lists"
            )
        if version is not None and version != RECORD_CONTRACT_VERSION:
            raise ValueError(
                f"{cls.KIND} contract version {version!r} is unknown: this lexbench reads version {RECORD_CONTRACT_VERSION}"
            )
        for name in cls.LISTS:
            if name not in data:
                raise ValueError(
                    f"{name} is required ({_LIST_PURPOSE[name]}): list the reviewed entries explicitly; an empty "
                    "list is valid and there are no runtime defaults"
                )
        return data

    @model_validator(mode="after")
    def _no_duplicate_labels(self) -> RecordContract:
        for name in self.LISTS:
            seen: dict[str, str] = {}
            for label in getattr(self, name):
                key = label_normalise(label)
                if not key:
                    raise ValueError(f"{name}: {label!r} is empty after label normalisation")
                if key in seen:
                    raise ValueError(
                        f"{name}: {seen[key]!r} and {label!r} are the same label after normalisation "
                        "(width, whitespace, case, emphasis); keep one"
                    )
                seen[key] = label
        return self

    @property
    def minimum(self) -> int:
        """The record floor (SPEC §3.5): see :func:`minimum_records`."""
        return minimum_records(self.baseline)


class CommentContract(RecordContract):
    """Comments v2 (SPEC §3.5): initially displayed comments and replies of a fixed article.

    HTML answers use ``html`` (reviewed selectors); Markdown and text answers, and HTML answers without
    the reviewed record containers, use the comment component: it starts after the located body ending,
    or at an explicit comment heading (one of ``heading_labels``, count decorations ignored) when the
    ending is absent, and stops at a standalone ``end_labels`` entry or a heading of equal or higher
    level than the comment heading. ``record_id_pattern`` (a regular expression; group 1 if present)
    reads source record ids from the links of a text record.
    """

    heading_labels: list[NonEmpty]
    end_labels: list[NonEmpty]
    record_id_pattern: NonEmpty | None = None

    LISTS: ClassVar[tuple[str, ...]] = ("ignored_labels", "unavailable_notices", "heading_labels", "end_labels")
    KIND: ClassVar[str] = "comment"

    @field_validator("record_id_pattern")
    @classmethod
    def _pattern_compiles(cls, value: str | None) -> str | None:
        return None if value is None else _check_pattern(value, "record_id_pattern")


class PostContract(RecordContract):
    """Posts v2 (SPEC §3.6): a changing post collection.

    Counts distinct owned post-detail links — absolute link targets (resolved against the case URL) that
    fully match ``post_link_pattern`` — carrying a non-empty attributed author and visible post text.
    ``non_author_labels`` (permalink captions) and ``metadata_labels`` (task-declared metadata) never
    count as authors or as post text.
    """

    post_link_pattern: NonEmpty
    non_author_labels: list[NonEmpty]
    metadata_labels: list[NonEmpty]

    LISTS: ClassVar[tuple[str, ...]] = ("ignored_labels", "unavailable_notices", "non_author_labels", "metadata_labels")
    KIND: ClassVar[str] = "post"

    @field_validator("post_link_pattern")
    @classmethod
    def _pattern_compiles(cls, value: str) -> str:
        return _check_pattern(value, "post_link_pattern")


class LinkFloor(Model):
    """A named-link floor for a changing link collection (SPEC §2 anchors): at least ``minimum``
    distinct link targets fully matching ``href_pattern`` (absolute, resolved against the case URL)
    whose visible link text is non-empty. Link targets exist only in HTML and Markdown answers."""

    id: NonEmpty
    href_pattern: NonEmpty
    minimum: int = Field(ge=1)
    location: NonEmpty

    @field_validator("href_pattern")
    @classmethod
    def _pattern_compiles(cls, value: str) -> str:
        return _check_pattern(value, "href_pattern")


class VisibleControl(Model):
    """An opt-in anchor on a visible control's label (SPEC §2 anchors).

    ``label`` is the independently observed visible text of an input placeholder or a button value.
    In an HTML answer, a visible element matched by ``selector`` whose ``attribute`` equals the label
    (label normalisation) satisfies it; in any answer, the same label as a standalone line does. Only
    ``placeholder`` and ``value`` are allowed: accessibility metadata and other attributes are not
    visible text. This never adds to body coverage.
    """

    id: NonEmpty
    label: NonEmpty
    selector: Selector
    attribute: NonEmpty
    location: NonEmpty

    @field_validator("selector")
    @classmethod
    def _parses(cls, value: str) -> str:
        return _check_selector(value)

    @field_validator("attribute")
    @classmethod
    def _visible_attribute(cls, value: str) -> str:
        if value not in ("placeholder", "value"):
            raise ValueError(
                f"visible_control attribute {value!r} is not visible text: only an input's 'placeholder' or a "
                "button's 'value' may be used (accessibility metadata, titles and other attributes never count)"
            )
        return value


class Anchors(Model):
    """Anchors of a case (SPEC §2): named-link floors and opt-in visible-control anchors. At least one
    entry; ids unique across both lists."""

    link_floors: list[LinkFloor] = Field(default_factory=list)
    visible_controls: list[VisibleControl] = Field(default_factory=list)

    @model_validator(mode="after")
    def _non_empty_unique(self) -> Anchors:
        ids = [a.id for a in self.link_floors] + [c.id for c in self.visible_controls]
        if not ids:
            raise ValueError("anchors is empty: give link_floors and/or visible_controls, or omit anchors")
        if len(ids) != len(set(ids)):
            raise ValueError("anchor ids must be unique within a case")
        return self


class Probes(Model):
    """Snippet probes from a source whose annotation is snippets rather than a body (trafilatura-eval's
    ``evaldata.json``): ``with`` (``with_`` in Python) are passages a good extraction contains, ``without``
    boilerplate it must not. A diagnostic reported beside the noise figure, never part of the verdict
    (issue 17)."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    with_: list[NonEmpty] = Field(default_factory=list, alias="with")
    without: list[NonEmpty] = Field(default_factory=list)


# --- delivery contracts (SPEC §2: file and resources deliveries) --------------------------------------


class FileContract(Model):
    """What a ``file`` case's answer must be (SPEC §2): the document's bytes, bound by ``sha256`` (lowercase
    hex of the bytes), ``size`` (bytes, ≥ 1) and ``media_type`` (the type the document is served with, e.g.
    ``application/pdf``; reported beside the verdict, never scored: the bytes decide). Compilation checks all
    three against the capture's page record (:func:`lexbench.dataset.compile.compile_case`)."""

    sha256: Sha256
    size: int = Field(ge=1)
    media_type: Annotated[str, StringConstraints(pattern=r"^[a-z0-9.+-]+/[a-z0-9.+-]+$")]
    """``type/subtype`` in lowercase, without parameters (``text/csv``, not ``text/csv; charset=utf-8``)."""


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


class ResourcesContract(Model):
    """What a ``resources`` case's answer must hold (SPEC §2): the page's **owned** resource URLs present
    after DOM completion — the targets of ``a[href]`` (documents) and ``img[src]`` (images) on the page's
    own origin — each written relative to the page (``papers/agenda.pdf``, ``images/quay.svg?v=2``).

    The answer passes when its recall of ``urls`` reaches ``recall_floor`` (0 < floor ≤ 1): the share of
    contract URLs found among the answer's URLs, each resolved against the page URL and expressed relative
    to it (:mod:`lexbench.scoring.deliveries`). URLs are unique; ``observed`` and ``evidence`` record the
    review (where the links were seen after DOM completion, how they were counted)."""

    urls: list[NonEmpty] = Field(min_length=1)
    recall_floor: float = Field(gt=0, le=1)
    observed: date
    evidence: NonEmpty

    @field_validator("urls")
    @classmethod
    def _under_the_page(cls, urls: list[str]) -> list[str]:
        for url in urls:
            if _SCHEME.match(url) or url.startswith("/") or "#" in url or any(c.isspace() for c in url):
                raise ValueError(f"resource URL {url!r} must be written relative to the page: no scheme or origin, "
                                 "no leading '/', no fragment, no whitespace (e.g. 'papers/agenda.pdf')")
            if ".." in url.split("?", 1)[0].split("/"):
                raise ValueError(f"resource URL {url!r} leaves the page's directory ('..'): owned resources are "
                                 "addressed under the page, so that replay serves them under the case's prefix")
        duplicates = sorted({url for url in urls if urls.count(url) > 1})
        if duplicates:
            raise ValueError(f"resource URLs must be unique; repeated: {', '.join(duplicates)}")
        return urls

    @property
    def minimum(self) -> int:
        """The fewest contract URLs an answer must hold to pass: ``ceil(floor × len(urls))``."""
        return math.ceil(Fraction(str(self.recall_floor)) * len(self.urls))


class RetrievalMode(StrEnum):
    """How a case's page is retrieved (SPEC §2): ``static`` (its HTML holds the content) or ``dynamic``
    (a browser builds it: scripts, XHR, frames)."""

    STATIC = "static"
    DYNAMIC = "dynamic"


class DomCompletion(Model):
    """When a dynamic page's DOM counts as complete (SPEC §2): native retrieval parameters that engines with
    DOM completion receive (:func:`lexbench.providers.engines.case_completion`), never grading requirements.

    ``selector`` must match at least ``count`` elements, inside the same-origin iframe that the CSS selector
    ``frame`` matches when given (else the page itself); then ``delay_ms`` more milliseconds pass. The
    condition may take ``timeout_ms`` milliseconds (> 0).
    """

    selector: Selector
    count: int = Field(default=1, ge=1)
    frame: Selector | None = None
    delay_ms: int = Field(default=0, ge=0)
    timeout_ms: int = Field(gt=0)

    @field_validator("selector", "frame")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        return None if value is None else _check_selector(value)


class Retrieval(Model):
    """A case's retrieval (SPEC §2): its mode, whether its static shell fails its contracts
    (``needs_javascript``: the static-shell control must fail it, :mod:`lexbench.evals.controls`) and its
    DOM completion (``None``: the load event). A static case needs no JavaScript and declares no completion.
    """

    mode: RetrievalMode
    needs_javascript: bool
    dom_completion: DomCompletion | None

    @model_validator(mode="after")
    def _static_is_plain(self) -> Retrieval:
        if self.mode is RetrievalMode.STATIC and (self.needs_javascript or self.dom_completion is not None):
            raise ValueError("a static case needs no JavaScript and declares no dom_completion: make it dynamic")
        return self


class CaseRule(Model):
    """One case as authored in ``rules.json`` (SPEC §2, §4). Reference text lives in the evidence home."""

    id: Annotated[str, StringConstraints(pattern=CASE_ID_PATTERN)]
    name: NonEmpty
    url: NonEmpty
    category: NonEmpty
    track: NonEmpty
    task_prompt: NonEmpty
    kind: CaseKind
    delivery: Delivery = Delivery.TEXT
    lang: NonEmpty
    capture: Capture
    title: str | None
    title_basis: TitleBasis
    body: BodyRule | None = None
    stable_text_review_defaults: StableTextDefaults | None = None
    stable_groups: list[StableGroup] = Field(default_factory=list)
    page_identity: list[NonEmpty] = Field(default_factory=list)
    flags: list[NonEmpty] = Field(default_factory=list)
    """Reviewer or importer notes that the report shows, e.g. ``reference_not_in_visible_text``."""
    # Absent contracts are left out of the JSON, so datasets without them keep their exact bytes.
    comments: CommentContract | None = Field(default=None, exclude_if=lambda value: value is None)
    """Comments v2 (SPEC §3.5), only where initially displayed comments were evidenced."""
    posts: PostContract | None = Field(default=None, exclude_if=lambda value: value is None)
    """Posts v2 (SPEC §3.6), required for post collections."""
    anchors: Anchors | None = Field(default=None, exclude_if=lambda value: value is None)
    """Named-link floors and visible-control anchors (SPEC §2)."""
    probes: Probes | None = Field(default=None, exclude_if=lambda value: value is None)
    """Reviewed snippet probes of the source (trafilatura-eval): a diagnostic, not a contract."""
    retrieval: Retrieval | None = Field(default=None, exclude_if=lambda value: value is None)
    """Retrieval mode and DOM completion (SPEC §2); absent = static, no completion."""
    file: FileContract | None = Field(default=None, exclude_if=lambda value: value is None)
    """The file contract of a ``file`` case (and only of one)."""
    resources: ResourcesContract | None = Field(default=None, exclude_if=lambda value: value is None)
    """The resources contract of a ``resources`` case (and only of one)."""

    @model_validator(mode="after")
    def _delivery_has_its_contract(self) -> CaseRule:
        for delivery, field in ((Delivery.FILE, "file"), (Delivery.RESOURCES, "resources")):
            present = getattr(self, field) is not None
            if self.delivery is delivery and not present:
                raise ValueError(f"delivery {delivery.value!r} needs a {field} contract (SPEC §2)")
            if present and self.delivery is not delivery:
                raise ValueError(f"a {field} contract belongs to {delivery.value!r} delivery, not "
                                 f"{self.delivery.value!r}: set delivery to {delivery.value!r} or drop {field}")
        if self.delivery is Delivery.TEXT:
            return self
        text_only = [name for name in ("body", "comments", "posts", "anchors") if getattr(self, name) is not None]
        text_only += [name for name in ("stable_groups", "page_identity") if getattr(self, name)]
        if text_only:
            raise ValueError(f"a {self.delivery.value!r} case is judged by its {self.delivery.value} contract alone: "
                             f"drop {', '.join(text_only)} (text contracts belong to 'text' delivery)")
        if self.kind is not CaseKind.SITE_LABELS:
            raise ValueError(f"a {self.delivery.value!r} case has kind 'site_labels' (it carries no body or "
                             f"records), not {self.kind.value!r}")
        if self.delivery is Delivery.FILE and self.retrieval is not None and (
                self.retrieval.mode is RetrievalMode.DYNAMIC or self.retrieval.dom_completion is not None):
            raise ValueError("direct file delivery returns the response bytes and cannot claim a rendered-page "
                             "condition: a 'file' case is retrieved 'static', without dom_completion")
        return self

    @field_validator("page_identity")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            _check_pattern(pattern, "page_identity pattern")
        return patterns

    @model_validator(mode="after")
    def _consistent(self) -> CaseRule:
        if self.title_basis is TitleBasis.OBSERVED and not (self.title or "").strip():
            raise ValueError("title_basis 'observed' needs a non-empty title")
        if self.title_basis is not TitleBasis.OBSERVED and self.title:
            raise ValueError(f"title_basis {self.title_basis.value!r} must not carry a title")
        if self.kind is CaseKind.FIXED_ARTICLE and self.body is None:
            raise ValueError("a fixed_article case needs a body contract")
        if self.category != self.id.split("-", 1)[0]:
            raise ValueError(f"category {self.category!r} must be the case id's first part")
        ids = [group.id for group in self.stable_groups]
        if len(ids) != len(set(ids)):
            raise ValueError("stable group ids must be unique within a case")
        defaults = self.stable_text_review_defaults
        if defaults is not None and defaults.basis is None and defaults.observed is None:
            raise ValueError("stable_text_review_defaults is empty: give basis and/or observed, or omit it")
        return self

    @model_validator(mode="after")
    def _record_contracts_fit_kind(self) -> CaseRule:
        if self.kind is CaseKind.POST_COLLECTION and self.posts is None:
            raise ValueError("a post_collection case needs a posts contract (SPEC §3.6)")
        if self.posts is not None and self.kind is not CaseKind.POST_COLLECTION:
            raise ValueError(f"a posts contract belongs to post_collection cases, not {self.kind.value}")
        if self.comments is not None and self.kind is not CaseKind.FIXED_ARTICLE:
            raise ValueError(f"a comments contract belongs to fixed_article cases, not {self.kind.value}")
        return self

    @property
    def dom_completion(self) -> DomCompletion | None:
        """The case's DOM completion, ``None`` for a static case or one completed by the load event."""
        return self.retrieval.dom_completion if self.retrieval is not None else None

    @property
    def needs_javascript(self) -> bool:
        """Whether the case's static shell fails its contracts (SPEC §2); ``False`` when not declared."""
        return self.retrieval is not None and self.retrieval.needs_javascript

    def resolved_stable_groups(self) -> list[StableGroup]:
        """Stable groups with basis/observed filled from the case defaults (explicit values win)."""
        defaults = self.stable_text_review_defaults or StableTextDefaults()
        return [
            group.model_copy(
                update={"basis": group.basis or defaults.basis, "observed": group.observed or defaults.observed}
            )
            for group in self.stable_groups
        ]


class Case(CaseRule):
    """A compiled, verified case as stored in ``dataset.json``: the rule plus its reference text.

    ``reference_text`` is the exact UTF-8 reference body whose lines the regions index; it is ``None``
    only for cases without a body contract.
    """

    reference_text: str | None = None

    @model_validator(mode="after")
    def _reference_matches_binding(self) -> Case:
        if self.body is None:
            return self
        text = self.reference_text
        if text is None:
            raise ValueError("a compiled case with a body contract needs reference_text")
        binding = self.body.reference
        if len(text) != binding.chars or not text.startswith(binding.opening) or not text.endswith(binding.ending):
            raise ValueError("reference_text does not match its binding (chars, opening or ending)")
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != binding.sha256:
            raise ValueError("reference_text does not match its binding's sha256: the dataset was edited after compilation")
        lines = text.split("\n")
        last = self.body.regions[-1].last_line
        if last != len(lines):
            raise ValueError(f"regions cover lines 1..{last} but the reference has {len(lines)} lines")
        return self

    def region_texts(self) -> list[str]:
        """The reference text of each region, in order (lines joined with newlines)."""
        assert self.body is not None and self.reference_text is not None
        lines = self.reference_text.split("\n")
        return ["\n".join(lines[r.first_line - 1 : r.last_line]) for r in self.body.regions]


class SuiteInfo(Model):
    """A suite's identity (SPEC §2): id, revision, and whether its contracts were reviewed."""

    id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    revision: int = Field(ge=1)
    name: NonEmpty
    review_status: ReviewStatus = ReviewStatus.REVIEWED
    description: str = ""


class Rules(Model):
    """``rules.json``: the sole authoring source of a suite (SPEC §4)."""

    suite: SuiteInfo
    cases: list[CaseRule] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Rules:
        seen: set[str] = set()
        for rule in self.cases:
            if rule.id in seen:
                raise ValueError(f"duplicate case id {rule.id!r}")
            seen.add(rule.id)
        if self.suite.review_status is ReviewStatus.REVIEWED:
            for rule in self.cases:
                if rule.kind is CaseKind.FIXED_ARTICLE and not rule.stable_groups:
                    raise ValueError(
                        f"case {rule.id!r}: reviewed fixed articles need stable groups "
                        "(only imported_unreviewed suites may omit them)"
                    )
                for group in rule.resolved_stable_groups():
                    if group.basis is None or group.observed is None:
                        raise ValueError(
                            f"case {rule.id!r}: stable group {group.id!r} has no stability basis or observation "
                            "date; give them on the row or in stable_text_review_defaults"
                        )
        return self


class Dataset(Model):
    """``dataset.json``: a compiled suite, cases in their frozen order (SPEC §2, §4)."""

    suite: SuiteInfo
    cases: list[Case] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Dataset:
        ids = [case.id for case in self.cases]
        duplicates = sorted({case_id for case_id in ids if ids.count(case_id) > 1})
        if duplicates:
            raise ValueError(f"duplicate case ids: {', '.join(duplicates)}")
        return self
