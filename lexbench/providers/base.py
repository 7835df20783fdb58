"""The provider interface and registry (SPEC §5).

A provider turns a URL into readable content. Adapters implement one method::

    class MyProvider(Provider):
        type_name = "my-provider"

        def fetch(self, case, timeout, url):
            ...  # one physical call to `url`; never look at the case's reference
            return ProviderResult(success=True, content="# Title\\n\\nBody", content_format="markdown")

``url`` is what to fetch: the replay server's loopback URL in replay mode, the case's own URL with
``--live``. ``case.url`` stays the page's identity. Exceptions escaping ``fetch`` are turned into a
``crashed`` result by :func:`lexbench.providers.call.call_provider`, never into a harness error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Literal

from lexbench.dataset.case import Case
from lexbench.providers.result import ProviderResult

OutputContract = Literal["cleaned", "rendered_html", "control"]
"""``cleaned`` → the shared readable-content leaderboard; ``rendered_html`` → diagnostics table;
``control`` → scorer sanity checks shown apart from real providers."""


class Provider(ABC):
    """One configured provider. Instances are built once per worker process and reused."""

    type_name: ClassVar[str]
    output_contract: ClassVar[OutputContract] = "cleaned"
    needs_network: ClassVar[bool] = True
    """False for controls that never fetch (they run without the replay server)."""

    def __init__(self, name: str | None = None, **options: object) -> None:
        self.name = name or self.type_name
        self.options = options

    @abstractmethod
    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        """Fetch ``url`` within ``timeout`` seconds and return the normalised result.

        Failures are returned as ``ProviderResult(success=False, error_type=..., error_message=...)``
        with any content kept; raising is reserved for bugs.
        """

    def close(self) -> None:
        """Release clients or processes; called once at the end of the worker's session."""
