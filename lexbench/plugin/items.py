"""The benchmark's collector and items: the selected suite, one item per case × provider (SPEC §1)."""

from __future__ import annotations

import time

import pytest

from lexbench.answer import CallAssessment, ErrorType, ProviderResult
from lexbench.dataset.case import Case
from lexbench.dataset.suite import Suite
from lexbench.plugin.state import STATE
from lexbench.providers.credentials import Redactor
from lexbench.providers.policy import call_and_assess
from lexbench.run.record import item_id
from lexbench.run.fetcher import VerdictFailure
from lexbench.run.live import not_public_answer
from lexbench.run.row import junit_properties
from lexbench.run.session import scored_row
from lexbench.verdict import Outcome, Verdict

BACKSTOP_MARGIN = 30.0
"""pytest-timeout's per-item backstop sits this many seconds above the provider's own deadline."""


def replay_unreachable(provider: str) -> str:
    """Why hosted ``provider``'s items are skipped in replay mode without ``--replay-public-url``
    (``replay_unreachable``, SPEC §7), naming both ways to run them (README "Hosted APIs")."""
    return (f"{provider} is a hosted service and cannot fetch the loopback replay server; its items run with "
            "--live, or on the frozen pages with --replay-public-url=URL where `lexbench serve-replay` is "
            "exposed at a public URL")


class SuiteCollector(pytest.Collector):
    """The selected suite as a child of the session: items ordered case by case, providers in selection
    order. Its name is ``lexbench``, not the suite id: ``-k`` matches every node name, and a suite id may be
    a provider's name (the imported mozilla suite is ``readability``); the report header names the suite."""

    NAME = "lexbench"

    def __init__(self, *, suite: Suite, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.suite = suite

    @classmethod
    def for_session(cls, session: pytest.Session, suite: Suite) -> SuiteCollector:
        """The suite as a child of the session, node id ``lexbench`` (its items' ``lexbench::<item name>``),
        whatever directory pytest was started in."""
        return cls.from_parent(session, name=cls.NAME, nodeid=cls.NAME, suite=suite)

    def collect(self):  # type: ignore[no-untyped-def]
        state = self.config.stash[STATE]
        for case in self.suite.cases:
            for provider_name in state.provider_names:
                yield CaseItem.of(self, self.suite, case, provider_name)


class CaseItem(pytest.Item):
    """One case × provider: call the provider, score the answer, report the verdict."""

    def __init__(self, *, suite: Suite, case: Case, provider_name: str,
                 **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case
        self.provider_name = provider_name
        self.row_json: str | None = None
        self.junit_properties: list[tuple[str, str]] = []  # the item's figures, for the JUnit XML (RunWriter)
        self.unrecorded_requests: list[str] | None = None  # archive cases: what the provider asked for beyond the archive
        state = self.config.stash[STATE]
        self.output_contract = state.specs[provider_name].output_contract
        if self.output_contract == "control":
            self.add_marker(pytest.mark.control)
        policy = state.policy
        # The backstop leaves room for every attempt and for scoring's own wall-time budget, so that a
        # scorer limit is recorded as one (with the answer) rather than the item being killed.
        from lexbench.scoring.budget import DEFAULT_BUDGET  # the scorer loads with the first item, not with pytest

        calls_s = (policy.retries + 1) * (policy.timeout_s + policy.grace_s)
        self.add_marker(pytest.mark.timeout(calls_s + DEFAULT_BUDGET.wall_s + BACKSTOP_MARGIN))

    @classmethod
    def of(cls, parent: pytest.Collector, suite: Suite, case: Case, provider_name: str) -> CaseItem:
        """The item for ``case`` × ``provider_name`` under ``parent``, named ``<case-id>[<provider>]``
        (:func:`lexbench.run.record.item_id`), its node id ``<parent's node id>::<name>``. The node id is given
        as text so that pytest reads the bracket as the item's parameters, as it reads the ids kept in its
        cache: ``--lf`` compares the two (a name-derived id keeps the bracket in the name and never matches)."""
        name = item_id(case.id, provider_name)
        return cls.from_parent(parent, name=name, nodeid=f"{parent.nodeid}::{name}", suite=suite, case=case,
                               provider_name=provider_name)

    def runtest(self) -> None:
        started = time.time()  # wall clock, not monotonic: the report lines items of several processes up
        result, call, served_url = self._call()
        from lexbench.scoring.budget import score_within_budget  # loaded by then; kept local like the one above

        # Score what the provider answered; redact what is written or shown (SPEC §5): a verdict's
        # explanation and evidence may quote the answer. Scoring runs under its time and memory budget.
        verdict = score_within_budget(self.case, result, call=call, served_url=served_url)
        redactor = self.config.stash[STATE].redactor(self.provider_name)
        shown = redactor.result(verdict)
        self._record(result, shown, redactor, (started, time.time()))
        if shown.outcome is Outcome.FAIL:
            raise VerdictFailure(shown)
        if shown.outcome is Outcome.UNRESOLVABLE:
            pytest.skip(shown.explanation)  # it opens with "unresolvable: "

    def _call(self) -> tuple[ProviderResult, CallAssessment | None, str | None]:
        """The answer, the runtime policy's assessment of it (``None``: the scorer assesses it) and the URL
        the provider was handed (``None`` when it was not called)."""
        state = self.config.stash[STATE]
        provider_type = state.provider_type(self.provider_name)
        if self.case.delivery.value not in provider_type.deliveries:  # before any other check: never called
            refusal = (f"{self.provider_name} ({provider_type.type_name}) has no route for "
                       f"{self.case.delivery.value!r} delivery")
            return ProviderResult.failure(ErrorType.UNSUPPORTED_DELIVERY, refusal), None, None
        if state.cannot_reach_replay(self.provider_name):
            return ProviderResult.failure(ErrorType.REPLAY_UNREACHABLE, replay_unreachable(self.provider_name)), None, None
        refused = not_public_answer(self.case, self.provider_name) if state.live and provider_type.needs_network else None
        if refused is not None:
            return refused, None, None
        down = state.replay_down(probe=False) if provider_type.needs_network else None
        if down:
            return ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"{down}; {self.provider_name} was not called"), None, None
        try:
            url = self.case.url if not provider_type.needs_network else (
                state.public_target_url(self.case, self.provider_name) or state.target_url(self.case))
            provider = state.get_provider(self.provider_name)
        except OSError as exc:
            return ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"the replay server could not start: {exc}"), None, None
        replay = state.replay if provider_type.needs_network and not state.live else None
        mark = len(replay.unrecorded) if replay is not None else 0
        result, call = call_and_assess(provider, self.case, url, state.policy)
        if replay is not None and replay.is_archive(self.case.id):
            self.unrecorded_requests = replay.unrecorded_for(self.case.id, mark)
        down = state.replay_down(probe=True) if provider_type.needs_network and not result.success else None
        if down:  # the call failed because the page could not be served: not the provider's failure
            return result.model_copy(update={  # its error type changes: the scorer assesses it again
                "error_type": ErrorType.INFRASTRUCTURE,
                "error_message": f"{down} ({self.provider_name} reported {result.error_type}: {result.error_message})"}), None, url
        return result, call, url

    def _record(self, answer: ProviderResult, verdict: Verdict, redactor: Redactor, wall: tuple[float, float]) -> None:
        """Write the item's row and saved response (the answer is redacted there) with the redacted ``verdict``;
        ``wall``: when the item started and was scored (UTC seconds since the epoch)."""
        state = self.config.stash[STATE]
        row = scored_row(state.run_dir, state.row_context(self.provider_name, self.suite.id), self.case,
                         answer, verdict, redactor, unrecorded_requests=self.unrecorded_requests, wall=wall)
        self.row_json = row.model_dump_json()
        self.junit_properties = [(f"lexbench/{row.item_id}/{name}", value)
                                 for name, value in junit_properties(verdict, answer.latency_s, len(answer.content))]

    def repr_failure(self, excinfo, style=None):  # type: ignore[no-untyped-def]
        if isinstance(excinfo.value, VerdictFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):  # type: ignore[no-untyped-def]
        return self.suite.root / "dataset.json", None, self.name

