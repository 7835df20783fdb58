"""lexbench: a pytest-native benchmark suite for Web Fetch providers (SPEC §1).

The public names for a user's own fetcher (README "Your own fetcher"), each loaded from its module on
first use (PEP 562), so ``import lexbench`` stays cheap and loads neither the scorer nor pytest::

    import lexbench

    def test_my_fetcher(lexbench_case, fetch_timeout):
        lexbench.assert_passes(lexbench_case, my_fetch(lexbench_case.url, timeout=fetch_timeout))

and for scripting a suite without pytest (README "Scripting a suite")::

    suite = lexbench.load_suite("demo")
    verdict = lexbench.evaluate_response(suite.cases[0], lexbench.ProviderResult(success=True, content=text))
"""

from __future__ import annotations

import importlib
from typing import Any

# The public names and the module that defines each.
_EXPORTS = {
    "assert_passes": "lexbench.run.fetcher",
    "BenchmarkRun": "lexbench.run.fetcher",
    "CaseTarget": "lexbench.run.fetcher",
    "VerdictFailure": "lexbench.run.fetcher",
    "Provider": "lexbench.providers.base",
    "ProviderResult": "lexbench.answer",
    "Verdict": "lexbench.verdict",
    "evaluate_response": "lexbench.scoring.evaluate",
    "load_suite": "lexbench.dataset.suite",
}

__all__ = ["BenchmarkRun", "CaseTarget", "Provider", "ProviderResult", "Verdict", "VerdictFailure", "assert_passes",
           "evaluate_response", "load_suite"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
