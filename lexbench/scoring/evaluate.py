"""``evaluate_response(case, answer) -> Verdict``: the scorer (SPEC §3).

Pure and deterministic: the same case and answer always give an equal verdict. The answer is
projected to reader text once (§3.2), normalised once, and every coverage needle is matched in a
single pass (§3.4). Components: ``call`` (§3.1), ``title`` (§3.3), ``regions`` and ``ending``
(§2 body contract: v4 scores both, legacy v3 regions only), ``stable_groups`` and ``page_identity``
(§2), and where the case has them ``comments`` (§3.5), ``posts`` (§3.6) and ``anchors`` (§2). A ``file`` or
``resources`` case is judged by ``call`` and its delivery's component alone (:mod:`lexbench.scoring.deliveries`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from lexbench.answer import CallAssessment, ProviderResult, assess_call
from lexbench.dataset.case import COVERAGE_THRESHOLD, Case, Delivery, Region, TitleBasis
from lexbench.scoring.anchors import check_anchors
from lexbench.scoring.deliveries import file_component, resources_component
from lexbench.scoring.coverage import NeedleResult, measure
from lexbench.scoring.links import PageBase
from lexbench.scoring.patterns import PATTERN_TIMEOUT_S, pattern_matches
from lexbench.scoring.projection import CODE, Projection, iter_lines
from lexbench.scoring.records import MAX_DETAIL_RECORDS, RecordCount, count_comments, count_posts
from lexbench.scoring.view import AnswerView
from lexbench.text import fold_pattern, fold_typography, fragments, label_normalise, normalise
from lexbench.verdict import Component, ComponentResult, Outcome, Verdict

SCORER_VERSION = 5
"""Raised whenever a change of the scorer can change a verdict on the same answer; recorded in every
manifest (``versions.scorer``) and report, so runs scored differently are never read as comparable
without saying so. 1: until 2026-11; 2: what a reader sees is text (SPEC §3.2) — ordered-list numbers
(Markdown markers and HTML ``<ol>`` numbers), table cells beyond a GFM header's count, Markdown after
``<head>``-like lines, after never-closed hiding elements and after never-closed comment or declaration
lines — and typographic variants (quotes, dashes, spaces, ellipsis, soft hyphens, zero-width spaces)
are folded in labels and page identity; 3: link targets made absolute against the replay URL a provider was handed
count as the case's own (SPEC §7); 4: comments and posts read as answers write them (SPEC §3.5–§3.6, issue 30) —
list-item records, trailing signatures, a name linked to the member's profile heading a post whatever rank follows it,
"Name says: <date>" headers, a name line over a date line, run-on comment lines split at their record headers, a post
named by the owner card after its closing link —, subject lines, score decorations, pagination and share links, taxonomy
labels and the site's page titles are never authors, and page identity is matched case aside (label normal form).
5: Chinese and Japanese dates, times and ages ("11月22日", "3天前", "2時間前", "昨天") are timestamps, in a comment
header and on a line of their own, so a linked name with such a date, or a name line over one, heads its record as an
English one does (dynamic's Chinese comment widget)."""

_THRESHOLD = Fraction(str(COVERAGE_THRESHOLD))  # exact 4/5: no float edge at exactly 80 %
PAGE_IDENTITY_TIMEOUT_S = PATTERN_TIMEOUT_S
"""Seconds one page-identity pattern may search one answer (SPEC §2): the bound every case pattern
gets (:mod:`lexbench.scoring.patterns`). Past it the pattern counts as unmatched and the evidence says
it timed out."""


def evaluate_response(case: Case, answer: ProviderResult, call: CallAssessment | None = None, *,
                      served_url: str | None = None) -> Verdict:
    """Score one provider answer against one case (SPEC §3).

    Returns a :class:`Verdict`: ``unresolvable`` (only the ``call`` component) when the operator's
    setup stopped the call; ``fail`` when the call failed (content components are still scored for
    diagnostics) or any scored component failed (``failure_class`` ``"content"``); else ``pass``.
    Components whose ``passed`` is ``None`` are not scored for this case and never decide the outcome.
    ``call`` is ``assess_call(answer)`` when the caller already holds it (the runtime policy made it:
    :func:`lexbench.providers.policy.call_and_assess`); without it the answer is assessed here.
    ``served_url``: the URL the provider was handed when it is not ``case.url`` (the replay server's, SPEC
    §7); link targets under it count as the case's own (:class:`~lexbench.scoring.links.PageBase`).
    Raises nothing for any valid ``Case`` and ``ProviderResult``.
    """
    call = call if call is not None else assess_call(answer)
    if call.outcome is Outcome.UNRESOLVABLE:
        component = ComponentResult(
            name=Component.CALL, passed=None, evidence=call.message, details=[_call_details(answer)]
        )
        return Verdict(
            outcome=Outcome.UNRESOLVABLE,
            components=[component],
            explanation=f"unresolvable: {call.message}.",
            failure_class=call.failure_class,
        )

    if case.delivery is not Delivery.TEXT:
        return _delivery_verdict(case, answer, call)
    view = AnswerView.of(answer.content, answer.content_format)
    base = PageBase(case.url, served_url)
    projection = view.projection
    normalised = "".join(normalise(piece) for piece in projection.pieces())  # never the whole text at once
    needles = _needle_sets(case)
    found = measure(normalised, needles)

    components = [_call_component(call, answer, projection)]
    components.append(_title_component(case, projection, normalised))
    if case.body is not None:
        components.append(_regions_component(case, found))
        if case.body.contract_version >= 4:
            components.append(_ending_component(found["ending"]))
    components.append(_stable_groups_component(case, found))
    components.append(_page_identity_component(case, projection))
    if case.comments is not None:
        ending = case.body.reference_scope.end if case.body is not None else None
        counted = count_comments(view, case.comments, ending, case.reference_text, _chrome(case), base)
        components.append(_records_component(Component.COMMENTS, counted, case.comments.baseline, case.comments.minimum))
    if case.posts is not None:
        counted = count_posts(view, case.posts, base, _chrome(case))
        components.append(_records_component(Component.POSTS, counted, case.posts.baseline, case.posts.minimum))
    if case.anchors is not None:
        components.append(_anchors_component(case, view, base))

    content_ok = all(c.passed is not False for c in components if c.name is not Component.CALL)
    if not call.ok:
        outcome, failure_class = Outcome.FAIL, call.failure_class
    elif not content_ok:
        outcome, failure_class = Outcome.FAIL, "content"
    else:
        outcome, failure_class = Outcome.PASS, None
    return Verdict(
        outcome=outcome,
        components=components,
        explanation=_explain(outcome, components, has_content=bool(answer.content) and not answer.content.isspace()),  # no stripped copy
        failure_class=failure_class,
    )


def _delivery_verdict(case: Case, answer: ProviderResult, call: CallAssessment) -> Verdict:
    """A ``file`` or ``resources`` case: ``call`` and the delivery's component (SPEC §2)."""
    if case.delivery is Delivery.FILE:
        summary = f"{len(answer.file):,} bytes answered" if answer.file is not None else "no bytes answered"
        component = file_component(case, answer)
    else:
        summary = (f"{len(answer.resources):,} resource URLs answered" if answer.resources is not None
                   else "no resource list answered")
        component = resources_component(case, answer)
    upstream = answer.metadata.upstream_status
    summary = (f"upstream {upstream}" if upstream is not None else "upstream status unknown") + f", {summary}"
    details = _call_details(answer) | {"delivery": case.delivery.value}
    if answer.file is not None:
        details["file_bytes"] = len(answer.file)
    call_component = ComponentResult(
        name=Component.CALL, passed=call.ok, measured=1.0 if call.ok else 0.0, threshold=1.0,
        evidence=f"call ok ({summary})" if call.ok else f"call failed: {call.message} ({summary})", details=[details])
    components = [call_component, component]
    if not call.ok:
        outcome, failure_class = Outcome.FAIL, call.failure_class
    elif component.passed is False:
        outcome, failure_class = Outcome.FAIL, "content"
    else:
        outcome, failure_class = Outcome.PASS, None
    has_content = answer.file is not None or bool(answer.resources)
    return Verdict(outcome=outcome, components=components, failure_class=failure_class,
                   explanation=_explain(outcome, components, has_content=has_content))


# --- needles ---------------------------------------------------------------------------------------


def _measurable(text: str) -> list[str]:
    """Fragments of ``text``; a text too short for one fragment is matched whole instead, so a
    short ending such as "Fin." is still checked rather than passing vacuously."""
    parts = fragments(text)
    if parts:
        return parts
    whole = normalise(text)
    return [whole] if whole else []


_NEEDLE_CACHE: dict[int, tuple[Case, dict[str, list[str]]]] = {}
"""id(case) → (case, its needle sets): a case is scored once per provider, its items run one after
another, and its needles cost as much as scoring a short answer. Holding the case keeps its id from
being reused; cases are frozen models, never changed in place once loaded."""
_NEEDLE_CACHE_SIZE = 8


def _needle_sets(case: Case) -> dict[str, list[str]]:
    """The case's needle lists by name (``region:N``, ``ending``, ``phrase:GROUP:N``); callers must not
    mutate them (they are shared between the providers' items of one case)."""
    cached = _NEEDLE_CACHE.get(id(case))
    if cached is not None and cached[0] is case:
        return cached[1]
    needles = _build_needle_sets(case)
    if len(_NEEDLE_CACHE) >= _NEEDLE_CACHE_SIZE:
        _NEEDLE_CACHE.clear()
    _NEEDLE_CACHE[id(case)] = (case, needles)
    return needles


def _build_needle_sets(case: Case) -> dict[str, list[str]]:
    needles: dict[str, list[str]] = {}
    if case.body is not None:
        for index, text in enumerate(case.region_texts(), start=1):
            needles[f"region:{index}"] = _measurable(text)
        needles["ending"] = _measurable(case.body.reference_scope.end)
    for group in case.stable_groups:
        for index, phrase in enumerate(group.phrases):
            needles[f"phrase:{group.id}:{index}"] = [normalise(phrase)]
    return needles


# --- components ------------------------------------------------------------------------------------


def _percent(result: NeedleResult) -> int:
    """Whole percent, rounded down, so 79.9 % never prints as "80 %" next to a failure."""
    return result.found * 100 // result.total if result.total else 100


def _reaches(result: NeedleResult) -> bool:
    return result.reaches(_THRESHOLD.numerator, _THRESHOLD.denominator)


def _call_details(answer: ProviderResult) -> dict[str, object]:
    return {
        "success": answer.success,
        "error_type": answer.error_type.value if answer.error_type else None,
        "api_http_status": answer.metadata.api_http_status,
        "upstream_status": answer.metadata.upstream_status,
        "content_chars": len(answer.content),
        "content_format": answer.content_format,
    }


def _call_component(call: CallAssessment, answer: ProviderResult, projection: Projection) -> ComponentResult:
    upstream = answer.metadata.upstream_status
    upstream_text = f"upstream {upstream}" if upstream is not None else "upstream status unknown"
    declared = "" if answer.content_format else ", sniffed"
    summary = f"{upstream_text}, {len(answer.content):,} chars of {projection.format}{declared}"
    if projection.notes:
        summary += "; " + "; ".join(projection.notes)
    evidence = f"call ok ({summary})" if call.ok else f"call failed: {call.message} ({summary})"
    details = _call_details(answer) | {"projected_format": projection.format}
    if projection.notes:
        details["projection_notes"] = list(projection.notes)
    return ComponentResult(
        name=Component.CALL, passed=call.ok, measured=1.0 if call.ok else 0.0, threshold=1.0,
        evidence=evidence, details=[details],
    )


def _title_component(case: Case, projection: Projection, normalised: str) -> ComponentResult:
    if case.title_basis is TitleBasis.TITLELESS:
        return ComponentResult(name=Component.TITLE, passed=None, evidence="titleless post: no title to score")
    if case.title_basis is TitleBasis.NOT_IN_SOURCE or not case.title:
        return ComponentResult(name=Component.TITLE, passed=None, evidence="not scored: the source has no independent title")
    wanted = label_normalise(case.title)
    norm_title = normalise(case.title)
    # Only reader-visible blocks count; metadata title, <head><title>, alt text and hidden headings
    # never reach the projection, and code blocks are skipped here (SPEC §3.3).
    match = next(
        (block for block, line in iter_lines(projection.blocks)
         if block.kind != CODE and _is_title_line(line, wanted, norm_title)),
        None,
    )
    if match is not None:
        unit = "heading" if match.kind == "heading" else match.kind.replace("_", " ")
        return ComponentResult(
            name=Component.TITLE, passed=True, measured=1.0, threshold=1.0,
            evidence=f"title found as a standalone {unit}", details=[{"title": case.title, "kind": match.kind}],
        )
    inside = bool(norm_title) and norm_title in normalised  # one scan, for a more useful message
    hint = " (its words appear only inside longer text or code)" if inside else " (its words are absent)"
    return ComponentResult(
        name=Component.TITLE, passed=False, measured=0.0, threshold=1.0,
        evidence=f"title {case.title!r} not found as a standalone heading, line or paragraph{hint}",
        details=[{"title": case.title, "words_present": inside}],
    )


_LONG_LINE = 4096
"""Characters past which a line is first compared in scoring normal form (see :func:`_is_title_line`)."""


def _is_title_line(line: str, wanted: str, norm_title: str) -> bool:
    """Whether ``line`` in label normal form is ``wanted``. Label normalisation only drops, collapses or
    case-folds characters that are not letters or digits, so an equal line also has the title's
    scoring normal form ``norm_title``: a long line is checked that way first, since label normalising
    a megabyte line of markup makes one string per decoration run (about 25 bytes per character)."""
    if len(line) > _LONG_LINE and normalise(line) != norm_title:
        return False
    return label_normalise(line) == wanted


def _regions_component(case: Case, found: dict[str, NeedleResult]) -> ComponentResult:
    assert case.body is not None
    rows = [(index, region, found[f"region:{index}"]) for index, region in enumerate(case.body.regions, start=1)]
    details = [
        {
            "index": index,
            "label": region.label,
            "lines": [region.first_line, region.last_line],
            "fragments": result.total,
            "found": result.found,
            "coverage": round(result.coverage, 4),
        }
        for index, region, result in rows
    ]

    def describe(row: tuple[int, Region, NeedleResult]) -> str:
        index, region, result = row
        return f"region {index} {region.label!r} {_percent(result)}% of {result.total} fragments"

    # Worst first; ties keep reference order.
    ranked = sorted(rows, key=lambda row: (row[2].coverage, row[0]))
    failing = [row for row in ranked if not _reaches(row[2])]
    if failing:
        evidence = "; ".join(f"{describe(row)} < {_percent_threshold()}%" for row in failing[:3])
        if len(failing) > 3:
            evidence += f"; {len(failing) - 3} more regions below"
    else:
        evidence = f"regions {len(rows)}/{len(rows)} ≥ {_percent_threshold()}% (lowest {describe(ranked[0])})"
    return ComponentResult(
        name=Component.REGIONS, passed=not failing, measured=round(ranked[0][2].coverage, 4),
        threshold=COVERAGE_THRESHOLD, evidence=evidence, details=details,
    )


def _percent_threshold() -> int:
    return int(_THRESHOLD * 100)


def _ending_component(result: NeedleResult) -> ComponentResult:
    passed = _reaches(result)
    relation = "≥" if passed else "<"
    return ComponentResult(
        name=Component.ENDING, passed=passed, measured=round(result.coverage, 4), threshold=COVERAGE_THRESHOLD,
        evidence=f"ending {_percent(result)}% of {result.total} fragments {relation} {_percent_threshold()}%",
        details=[{"fragments": result.total, "found": result.found, "coverage": round(result.coverage, 4)}],
    )


def _stable_groups_component(case: Case, found: dict[str, NeedleResult]) -> ComponentResult:
    if not case.stable_groups:
        return ComponentResult(
            name=Component.STABLE_GROUPS, passed=None,
            evidence="not scored: imported suite without reviewed stable groups",
        )
    details = []
    missing_ids = []
    for group in case.stable_groups:
        missing = [
            phrase for index, phrase in enumerate(group.phrases) if found[f"phrase:{group.id}:{index}"].found == 0
        ]
        details.append(
            {"id": group.id, "region": group.region.value, "phrases": len(group.phrases),
             "missing": missing, "passed": not missing}
        )
        if missing:
            missing_ids.append(group.id)
    total = len(case.stable_groups)
    passed_count = total - len(missing_ids)
    evidence = f"stable groups {passed_count}/{total}"
    if missing_ids:
        evidence += " (missing " + ", ".join(repr(i) for i in missing_ids) + ")"
    return ComponentResult(
        name=Component.STABLE_GROUPS, passed=not missing_ids, measured=float(passed_count), threshold=float(total),
        evidence=evidence, details=details,
    )


def _page_identity_component(case: Case, projection: Projection) -> ComponentResult:
    if not case.page_identity:
        return ComponentResult(name=Component.PAGE_IDENTITY, passed=None, evidence="not scored: no page identity patterns")
    collapsed = collapse_whitespace(fold_typography(projection.text))  # folded once for every pattern
    casefolded = collapsed.casefold()
    details: list[dict[str, object]] = []
    for pattern in case.page_identity:
        matched = _search_identity(_folded_pattern(pattern), collapsed, casefolded=casefolded)
        details.append({"pattern": pattern, "matched": bool(matched)} | ({"timed_out": True} if matched is None else {}))
    unmatched = [d["pattern"] for d in details if not d["matched"]]
    timed_out = [d["pattern"] for d in details if d.get("timed_out")]
    matched = len(details) - len(unmatched)
    if unmatched:
        evidence = f"page identity {matched}/{len(details)} (no match for " + ", ".join(repr(p) for p in unmatched) + ")"
        if timed_out:
            evidence += (f"; {', '.join(repr(p) for p in timed_out)} gave up after {PAGE_IDENTITY_TIMEOUT_S:g} s "
                         "(catastrophic backtracking: review the pattern)")
    else:
        evidence = "page identity matched"
    return ComponentResult(
        name=Component.PAGE_IDENTITY, passed=not unmatched, measured=float(matched), threshold=float(len(details)),
        evidence=evidence, details=details,
    )


_CHROME_REGIONS = frozenset({"navigation", "sidebar", "footer", "controls"})


def collapse_whitespace(text: str) -> str:
    """``re.sub(r"\\s+", " ", text)``: every whitespace run becomes one space (split/join, a few times
    faster; ``str.split`` and ``\\s`` agree on what whitespace is)."""
    parts = text.split()
    if not parts:
        return " " if text else ""
    collapsed = " ".join(parts)
    if text[0].isspace():
        collapsed = " " + collapsed
    if text[-1].isspace():
        collapsed += " "
    return collapsed


def identity_matches(pattern: str, text: str, timeout_s: float = PAGE_IDENTITY_TIMEOUT_S) -> bool | None:
    """Whether the page-identity ``pattern`` occurs in ``text`` (``re`` syntax, searched with the
    ``regex`` engine, which can stop a search): ``None`` when the search gave up after ``timeout_s``.
    Both sides are typographically folded first (SPEC §3.2: :func:`fold_typography` on the text,
    :func:`fold_pattern` on the pattern's literals), so ``d’Urle`` matches ``d'Urle``."""
    return _search_identity(_folded_pattern(pattern), fold_typography(text), timeout_s)


@lru_cache(maxsize=1024)
def _folded_pattern(pattern: str) -> tuple[str, bool]:
    """The pattern with its literal characters folded, and whether it is a plain literal (no regex
    syntax): a literal is folded whole and matched as text, since its fold may hold ``.`` (``…``)."""
    if _REGEX_SYNTAX.search(pattern):
        return fold_pattern(pattern), False
    return fold_typography(pattern), True


def _search_identity(folded: tuple[str, bool], text: str, timeout_s: float = PAGE_IDENTITY_TIMEOUT_S,
                     casefolded: str | None = None) -> bool | None:
    """Case aside (SPEC §3.2: page identity is matched in label normal form, which casefolds): "Algebra
    gets a bad rap" in the body matches the pattern ``Algebra Gets a Bad Rap``."""
    pattern, literal = folded
    if literal:
        return pattern.casefold() in (text.casefold() if casefolded is None else casefolded)
    return pattern_matches(pattern, text, timeout_s, ignore_case=True)  # the bounded search every case pattern gets


_REGEX_SYNTAX = re.compile(r"[.^$*+?{}\[\]\\|()]")  # a pattern without these matches itself literally


def _chrome(case: Case) -> list[str]:
    """Stable phrases observed in page chrome (navigation, sidebar, footer, controls): never comment
    or post authors or text (SPEC §3.5). Attribution is not chrome: an article's author may reply."""
    return [p for g in case.stable_groups if g.region.value in _CHROME_REGIONS for p in g.phrases]


def _records_component(name: Component, counted: RecordCount, baseline: int, minimum: int) -> ComponentResult:
    """Comments or posts against their floor (SPEC §3.5, §3.6): a coverage floor, not completeness."""
    found = len(counted.records)
    passed = found >= minimum
    noun = "comment" if name is Component.COMMENTS else "post"
    relation = "≥" if passed else "<"
    evidence = (f"{noun}s {found} valid record{'s' if found != 1 else ''} {relation} minimum {minimum} "
                f"(reviewed baseline {baseline}; {counted.route}")
    if counted.note:
        evidence += f"; {counted.note}"
    if counted.rejected:
        evidence += "; not records: " + ", ".join(f"{n} {reason}" for reason, n in sorted(counted.rejected.items()))
    if counted.duplicates:
        evidence += f"; {counted.duplicates} duplicate{'s' if counted.duplicates != 1 else ''} counted once"
    evidence += ")"
    details: list[dict[str, object]] = [
        {"route": counted.route, "found": found, "minimum": minimum, "baseline": baseline,
         "rejected": dict(sorted(counted.rejected.items())), "duplicates": counted.duplicates, "note": counted.note}
    ]
    details += [
        {"author": r.author, "chars": r.chars, **({"identity": r.identity} if r.identity else {})}
        for r in counted.records[:MAX_DETAIL_RECORDS]
    ]
    return ComponentResult(name=name, passed=passed, measured=float(found), threshold=float(minimum),
                           evidence=evidence, details=details)


def _anchors_component(case: Case, view: AnswerView, base: PageBase) -> ComponentResult:
    assert case.anchors is not None
    results = check_anchors(case.anchors, view, base)
    failing = [r for r in results if not r.passed]
    passed_count = len(results) - len(failing)
    evidence = f"anchors {passed_count}/{len(results)}"
    if failing:
        evidence += " (" + "; ".join(
            f"{r.id}: {r.how} < {r.threshold}" if r.kind == "link_floor" else f"{r.id}: {r.how}" for r in failing
        ) + ")"
    details = [
        {"id": r.id, "kind": r.kind, "passed": r.passed, "measured": r.measured, "threshold": r.threshold, "how": r.how}
        for r in results
    ]
    return ComponentResult(name=Component.ANCHORS, passed=not failing, measured=float(passed_count),
                           threshold=float(len(results)), evidence=evidence, details=details)


# --- explanation -----------------------------------------------------------------------------------


def _explain(outcome: Outcome, components: list[ComponentResult], has_content: bool) -> str:
    """One paragraph: the call first when it failed, then failed components, then the rest."""
    call = next(c for c in components if c.name is Component.CALL)
    others = [c for c in components if c.name is not Component.CALL]
    failed = [c.evidence for c in others if c.passed is False]
    rest = [c.evidence for c in others if c.passed is not False]
    if call.passed:
        parts = failed + rest + [call.evidence]
    elif not has_content:
        parts = [call.evidence, "no content to diagnose"]
    else:
        content = failed + rest
        parts = [call.evidence] + ([f"content (diagnostic only): {content[0]}"] + content[1:] if content else [])
    return f"{outcome.value}: " + "; ".join(parts) + "."
