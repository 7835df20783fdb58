"""``--live`` only fetches public pages (SPEC §5): a case whose URL is not one — a reserved name such as
``.example``, a private or loopback address, a single-label host — is never handed to a provider.

The rule for a run: when no case of the suite has a public URL (the demo suite: every page is on an
``.example`` host), ``--live`` is refused before the run opens, naming the cases; otherwise each such
case's items are ``unresolvable`` with failure class ``not_public_url`` and the reason, the provider
not called and so not charged (the operator's choice of mode, not the method, stopped the call).
"""

from __future__ import annotations

from collections.abc import Sequence

from lexbench.answer import ErrorType, ProviderResult
from lexbench.dataset.case import Case
from lexbench.providers.guard import page_url_problem

_NAMED = 5
"""Cases named in a refusal; the rest are counted."""


def live_refusal(suite_id: str, cases: Sequence[Case]) -> str | None:
    """The usage error for ``--live`` on a suite none of whose ``cases`` has a public URL, else ``None``."""
    problems = [(case.id, page_url_problem(case.url)) for case in cases]
    if not problems or any(problem is None for _, problem in problems):
        return None
    named = "; ".join(f"{case_id}: {problem}" for case_id, problem in problems[:_NAMED])
    more = f"; and {len(problems) - _NAMED} more" if len(problems) > _NAMED else ""
    return (f"--live: no case of suite {suite_id} has a public URL, so nothing could be fetched live ({named}{more}); "
            "its pages exist only as frozen captures: drop --live to score them on the replay server")


def not_public_answer(case: Case, provider: str) -> ProviderResult | None:
    """The answer recorded, instead of calling ``provider``, for ``case`` under ``--live`` when its URL is
    not a public page: a failed result of class ``not_public_url`` naming the URL and why; ``None`` when
    the URL may be fetched."""
    problem = page_url_problem(case.url)
    if problem is None:
        return None
    return ProviderResult.failure(ErrorType.NOT_PUBLIC_URL, f"{case.url}: {problem}; {provider} was not called")
