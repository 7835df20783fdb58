"""An item's row in ``results.jsonl`` (:class:`~lexbench.run.record.RunRow`), built in one place from its
case, answer and verdict: the row of a scored answer and the row of an item that crashed without one
differ only in what they were given."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexbench.dataset.case import Case
from lexbench.dataset.flags import SELF_REPORTED
from lexbench.answer import ErrorType, ProviderResult
from lexbench.run.record import RunRow, count_tokens
from lexbench.verdict import Component, Outcome, Verdict

_ITEM_NAME = re.compile(r"(?P<case>[^:\[\]]+)\[(?P<provider>[^\]]+)\]$")


@dataclass(frozen=True)
class RowContext:
    """What every row of one run × provider carries besides its case: the suite id, the provider and
    its output contract, and the run's identity (``None`` digests only in rows of runs before them)."""

    suite: str
    provider: str
    output_contract: str
    dataset_sha256: str | None
    configuration_sha256: str | None


def row_of(context: RowContext, case: Case, verdict: Verdict, answer: ProviderResult | None = None, *,
           answered: ProviderResult | None = None, response_sha256: str | None = None,
           content_tokens: int | None = None, flags: list[str] | None = None,
           boilerplate_found: int | None = None, unrecorded_requests: list[str] | None = None,
           wall: tuple[float, float] | None = None) -> RunRow:
    """The row of ``case`` × ``context.provider``.

    ``answer`` is the (redacted) answer the row records, ``None`` for an item that ended without one;
    sizes (``content_chars``, ``content_tokens``) are measured on ``answered``, the answer as the
    provider gave it (default: ``answer``); ``content_tokens``, when the caller counted them already
    (:func:`lexbench.run.record.save_counted`), is not counted again. ``flags`` default to the case's own
    flags; ``boilerplate_found`` comes from :func:`lexbench.scoring.probes.boilerplate_found`;
    ``unrecorded_requests`` from the replay server (:meth:`lexbench.replay.ReplayServer.unrecorded_for`);
    ``wall`` the item's ``(started_at, finished_at)``, UTC seconds since the epoch."""
    answered = answered if answered is not None else answer
    probes = case.probes.without if case.probes and case.probes.without else None
    measured = {}
    if answer is not None:
        measured = dict(
            latency_s=answer.latency_s, attempts=answer.attempts, metadata=answer.metadata,
            error_type=answer.error_type.value if answer.error_type else None, error_message=answer.error_message,
            content_format=answer.content_format, content_chars=len(answered.content),
            content_tokens=count_tokens(answered.content) if content_tokens is None else content_tokens,
            response_sha256=response_sha256,
            boilerplate_probes=len(probes) if probes else None, boilerplate_found=boilerplate_found,
            unrecorded_requests=unrecorded_requests)
    if wall is not None:
        measured.update(started_at=round(wall[0], 3), finished_at=round(wall[1], 3))
    return RunRow(
        suite=context.suite, case=case.id, provider=context.provider, output_contract=context.output_contract,
        category=case.category, track=case.track, lang=case.lang,
        outcome=verdict.outcome, failure_class=verdict.failure_class, explanation=verdict.explanation,
        components=verdict.components,
        reference_chars=len(case.reference_text) if case.reference_text else None,
        flags=list(case.flags) if flags is None else flags,
        needs_javascript=case.needs_javascript if case.retrieval is not None else None,
        delivery=None if case.delivery == "text" else case.delivery.value,
        dataset_sha256=context.dataset_sha256, configuration_sha256=context.configuration_sha256,
        **measured,
    )


def crashed_row(context: RowContext, case: Case, message: str) -> RunRow:
    """The row of an item that ended without a verdict (its worker killed, the backstop timeout): a
    ``fail`` of class ``crashed`` quoting ``message`` (the last line of what pytest reported)."""
    verdict = Verdict(outcome=Outcome.FAIL, failure_class=ErrorType.CRASHED.value,
                      explanation=f"fail: the item ended without a verdict ({message})")
    row = row_of(context, case, verdict)
    row.error_type, row.error_message = ErrorType.CRASHED.value, message
    return row


_SELF_REPORTED_NOTE = "unresolvable: self-reported by the test, not checked by lexbench: "


def self_reported(verdict: Verdict) -> Verdict:
    """``verdict`` of a user's test labelled self-reported when it is ``unresolvable`` (its explanation
    then says so, after the ``unresolvable: `` it opens with); other verdicts as they are."""
    if verdict.outcome is not Outcome.UNRESOLVABLE or verdict.explanation.startswith(_SELF_REPORTED_NOTE):
        return verdict
    reason = verdict.explanation.removeprefix("unresolvable: ")
    return verdict.model_copy(update={"explanation": _SELF_REPORTED_NOTE + reason})


def skipped_row(context: RowContext, case: Case, reason: str) -> RunRow:
    """The row of a user's test that skipped itself (``pytest.skip``, a skip mark) instead of answering:
    ``unresolvable`` of class ``skipped``, flagged :data:`SELF_REPORTED`, quoting ``reason``."""
    verdict = Verdict(outcome=Outcome.UNRESOLVABLE, failure_class="skipped",
                      explanation=f"{_SELF_REPORTED_NOTE}the test skipped itself ({reason})")
    return row_of(context, case, verdict, flags=[*case.flags, SELF_REPORTED])


def parse_item_name(name: str) -> tuple[str, str] | None:
    """``(case id, provider)`` of an item named ``…<case-id>[<provider>]`` (a node id will do), or ``None``."""
    match = _ITEM_NAME.search(name)
    return (match["case"], match["provider"]) if match else None


_COUNTS: dict[Component, tuple[str, str]] = {
    Component.TITLE: ("found", "of"), Component.STABLE_GROUPS: ("found", "of"),
    Component.PAGE_IDENTITY: ("found", "of"), Component.ANCHORS: ("found", "of"),
    Component.COMMENTS: ("found", "minimum"), Component.POSTS: ("found", "minimum"),
    Component.FILE: ("matched", "of"),
}
"""Components measured by a count: the names of their measured value and of their threshold."""
_SHARES: dict[Component, str] = {Component.REGIONS: "lowest_share", Component.ENDING: "share",
                                 Component.RESOURCES: "recall"}
"""Components measured by a fragment-coverage share (0–1): the name of their measured value."""


def junit_properties(verdict: Verdict, latency_s: float, content_chars: int) -> list[tuple[str, str]]:
    """The figures a CI dashboard wants per item, as ``(name, value)`` pairs, each name carrying its unit:

    ``outcome`` (pass, fail or unresolvable); ``latency_s`` (seconds); ``content_chars`` (characters of
    the answer); ``call_ok`` (1 or 0); shares of fragment coverage from 0 to 1, four decimals:
    ``ending_share``, ``regions_lowest_share`` and ``region_share.<label>`` per region; whole counts:
    ``title_found``/``title_of``, ``stable_groups_found``/``stable_groups_of``,
    ``page_identity_found``/``page_identity_of``, ``anchors_found``/``anchors_of``,
    ``comments_found``/``comments_minimum`` and ``posts_found``/``posts_minimum``; a ``file`` case's
    ``file_matched``/``file_of`` (1/1 when the sha256 matches) and a ``resources`` case's ``resources_recall``
    (share of the contract's URLs found). A component not
    scored for the case gives none."""
    props = [("outcome", verdict.outcome.value), ("latency_s", f"{latency_s:.4f}"), ("content_chars", str(content_chars))]
    for component in verdict.components:
        name = component.name
        if component.measured is None:
            continue
        if name is Component.CALL:
            props.append(("call_ok", str(int(component.measured))))
        elif name in _SHARES:
            props.append((f"{name.value}_{_SHARES[name]}", f"{component.measured:.4f}"))
        elif name in _COUNTS:
            measured, threshold = _COUNTS[name]
            props.append((f"{name.value}_{measured}", str(int(component.measured))))
            if component.threshold is not None:
                props.append((f"{name.value}_{threshold}", str(int(component.threshold))))
        if name is Component.REGIONS:
            props += [(f"region_share.{detail['label']}", f"{detail['coverage']:.4f}")
                      for detail in component.details if "coverage" in detail and "label" in detail]
    return props
