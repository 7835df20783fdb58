"""The benchmark's collector and items: the selected suite, one item per case × provider (SPEC §1)."""

from __future__ import annotations


import pytest

from lexbench.answer import ErrorType, ProviderResult
from lexbench.dataset.case import Case
from lexbench.dataset.suite import Suite
from lexbench.plugin.state import STATE
from lexbench.providers import call_provider
from lexbench.run.row import junit_properties
from lexbench.run.session import scored_row
from lexbench.verdict import Outcome, Verdict

BACKSTOP_MARGIN = 30.0
"""pytest-timeout's per-item backstop sits this many seconds above the provider's own deadline."""


class SuiteCollector(pytest.Collector):
    """One suite: items ordered case by case, providers in selection order."""

    def __init__(self, *, suite: Suite, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.suite = suite

    @classmethod
    def for_session(cls, session: pytest.Session, suite: Suite) -> SuiteCollector:
        """The suite as a child of the session, with the node id ``<suite-id>`` (its items'
        ``<suite-id>::<item name>``), whatever directory pytest was started in."""
        return cls.from_parent(session, name=suite.id, nodeid=suite.id, suite=suite)

    def collect(self):  # type: ignore[no-untyped-def]
        state = self.config.stash[STATE]
        for case in self.suite.cases:
            for provider_name in state.provider_names:
                yield CaseItem.from_parent(self, name=item_name(case, provider_name), case=case,
                                           provider_name=provider_name)


def item_name(case: Case, provider_name: str) -> str:
    """The item's name, the last part of its node id: ``<case-id>[<provider>]``."""
    return f"{case.id}[{provider_name}]"


class VerdictFailure(Exception):
    """Raised for a ``fail`` verdict; pytest shows only its explanation."""


class CaseItem(pytest.Item):
    """One case × provider: call the provider, score the answer, report the verdict."""

    def __init__(self, *, case: Case, provider_name: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.case = case
        self.provider_name = provider_name
        self.row_json: str | None = None
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

    def runtest(self) -> None:
        result = self._call()
        from lexbench.scoring.budget import score_within_budget  # loaded by then; kept local like the one above

        # Score what the provider answered; redact what is written or shown (SPEC §5): a verdict's
        # explanation and evidence may quote the answer. Scoring runs under its time and memory budget.
        verdict = score_within_budget(self.case, result)
        redactor = self.config.stash[STATE].redactor(self.provider_name)
        shown = redactor.result(verdict)
        self._record(result, redactor.result(result), shown)
        if shown.outcome is Outcome.FAIL:
            raise VerdictFailure(shown.explanation)
        if shown.outcome is Outcome.UNRESOLVABLE:
            pytest.skip(shown.explanation)  # it opens with "unresolvable: "

    def _call(self) -> ProviderResult:
        state = self.config.stash[STATE]
        provider_type = state.provider_type(self.provider_name)
        if state.cannot_reach_replay(self.provider_name):
            return ProviderResult.failure(
                ErrorType.REPLAY_UNREACHABLE,
                f"{self.provider_name} is a hosted service and cannot fetch the loopback replay server; "
                "its items run only with --live")
        down = state.replay_down(probe=False) if provider_type.needs_network else None
        if down:
            return ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"{down}; {self.provider_name} was not called")
        try:
            url = self.case.url if not provider_type.needs_network else (
                state.public_target_url(self.case, self.provider_name) or state.target_url(self.case))
            provider = state.get_provider(self.provider_name)
        except OSError as exc:
            return ProviderResult.failure(ErrorType.INFRASTRUCTURE, f"the replay server could not start: {exc}")
        result = call_provider(provider, self.case, url, state.policy)
        down = state.replay_down(probe=True) if provider_type.needs_network and not result.success else None
        if down:  # the call failed because the page could not be served: not the provider's failure
            return result.model_copy(update={
                "error_type": ErrorType.INFRASTRUCTURE,
                "error_message": f"{down} ({self.provider_name} reported {result.error_type}: {result.error_message})"})
        return result

    def _record(self, answered: ProviderResult, result: ProviderResult, verdict: Verdict) -> None:
        """Write the item's row and saved response from the redacted ``result`` and ``verdict``; sizes are
        measured on the ``answered`` content."""
        state = self.config.stash[STATE]
        row = scored_row(state.run_dir, state.row_context(self.provider_name, self.parent.suite.id), self.case,
                         answered, result, verdict)
        self.row_json = row.model_dump_json()
        self.user_properties.extend(junit_properties(verdict, result.latency_s, len(answered.content)))

    def repr_failure(self, excinfo, style=None):  # type: ignore[no-untyped-def]
        if isinstance(excinfo.value, VerdictFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):  # type: ignore[no-untyped-def]
        return self.parent.suite.root / "dataset.json", None, self.name

