"""The provider interface (SPEC §5).

A provider turns a URL into readable content. Adapters implement one method::

    class MyProvider(Provider):
        type_name = "my-provider"

        def fetch(self, case, timeout, url):
            deadline = Deadline.after(timeout)
            page = self.http.fetch_target(url, deadline)        # the shared HTTP boundary
            return ProviderResult(success=True, content=..., content_format="markdown",
                                  metadata=ResultMetadata(upstream_status=page.status))

``fetch`` makes exactly one physical call. Deadlines, retries, late answers, credential expansion and
redaction are not its business: :func:`lexbench.providers.policy.call_provider` applies them to every
provider alike. ``url`` is what to fetch: the replay server's loopback URL in replay mode, the case's
own URL with ``--live``; ``case.url`` stays the page's identity, and nothing else of the case (least of
all its reference) may shape the request. Failures are returned as ``success=False`` results or raised
as :class:`~lexbench.providers.call.FetchError`; any other exception is reported as ``crashed``.

Hosted APIs subclass :class:`lexbench.providers.hosted.HostedProvider` and only build a request and
parse a response.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal

from lexbench.answer import ErrorType, ProviderResult
from lexbench.dataset.case import Case
from lexbench.providers.call import FetchError
from lexbench.providers.credentials import MissingCredentials, Redactor, expand, missing_variables, placeholder_names
from lexbench.providers.http import HttpBoundary

OutputContract = Literal["cleaned", "rendered_html", "control"]
"""``cleaned`` → the shared readable-content leaderboard; ``rendered_html`` → diagnostics table;
``control`` → scorer sanity checks shown apart from real providers."""

Family = Literal["local", "hosted", "engine", "worker", "control"]
"""Provider families (SPEC §5): local extractors, hosted APIs, headless engines, third-party workers,
and controls."""


class Provider(ABC):
    """One configured provider, built once per worker process and reused for every item.

    Class attributes describe the type: ``type_name`` (its registry key), ``family``,
    ``output_contracts`` (the contracts a configuration may assign; the first is the default),
    ``needs_network`` (False for controls that never fetch), ``reaches_loopback`` (False for hosted
    services, which cannot fetch the replay server), ``option_names`` (accepted option keys; ``None``
    accepts any), ``secret_options`` (options that must be ``${ENV_VAR}`` placeholders) and ``deliveries``
    (the task deliveries it has a route for: ``text`` only unless it says more).

    ``options`` are the configured fixed options with placeholders unexpanded; :meth:`expanded_options`
    expands them at call time. ``not_secret`` names the placeholder variables whose values are
    identifiers, not secrets (a zone or account name): they are never redacted. ``http`` is the shared
    HTTP boundary configured for this provider.
    """

    type_name: ClassVar[str]
    family: ClassVar[Family] = "local"
    output_contracts: ClassVar[tuple[OutputContract, ...]] = ("cleaned",)
    needs_network: ClassVar[bool] = True
    reaches_loopback: ClassVar[bool] = True
    option_names: ClassVar[frozenset[str] | None] = frozenset()
    secret_options: ClassVar[frozenset[str]] = frozenset()
    deliveries: ClassVar[frozenset[str]] = frozenset({"text"})
    """The deliveries (SPEC §2: ``text``, ``file``, ``resources``) this type has a route for; see
    :meth:`delivery_refusal`."""

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, *,
                 http: HttpBoundary | None = None, output_contract: OutputContract | None = None,
                 not_secret: Iterable[str] = ()) -> None:
        self.name = name or self.type_name
        self.options: dict[str, Any] = dict(options or {})
        self.not_secret = frozenset(not_secret)
        self.http = http or HttpBoundary()
        self.output_contract: OutputContract = output_contract or self.output_contracts[0]

    @classmethod
    def default_contract(cls) -> OutputContract:
        return cls.output_contracts[0]

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """Check configured options; raise ``ValueError`` naming the problem. Subclasses may extend."""
        if cls.option_names is not None:
            unknown = sorted(set(options) - cls.option_names)
            if unknown:
                known = ", ".join(sorted(cls.option_names)) or "none"
                raise ValueError(f"unknown option(s) {', '.join(unknown)} (accepted: {known})")

    def credential_variables(self) -> list[str]:
        """Environment variable names this provider's options refer to (its credentials)."""
        return placeholder_names(self.options)

    def missing_credentials(self) -> list[str]:
        """The credential variables that are unset or empty right now."""
        return missing_variables(self.credential_variables())

    def redactor(self) -> Redactor:
        """A redactor for the current values of this provider's credential variables, except those
        declared :attr:`not_secret`."""
        return Redactor.from_environment(name for name in self.credential_variables() if name not in self.not_secret)

    def expanded_options(self) -> dict[str, Any]:
        """The options with placeholders expanded from the environment, now (call time only).

        Raises :class:`FetchError` ``missing_credentials`` when a variable is unset or empty.
        """
        try:
            return expand(self.options)
        except MissingCredentials as exc:
            raise FetchError(ErrorType.MISSING_CREDENTIALS, f"{self.name}: {exc}") from None

    def delivery_refusal(self, case: Case) -> str | None:
        """Why this provider has no route for ``case``'s delivery (SPEC §2), or ``None`` when it has one.

        The runtime policy asks before any call (:func:`lexbench.providers.policy.call_and_assess`): a refusal
        makes the item ``unresolvable`` (``unsupported_delivery``), never a fail. :attr:`deliveries` lists the
        routes of the type; engines refine it per engine and completion."""
        if case.delivery.value in self.deliveries:
            return None
        return (f"{self.name} ({self.type_name}) has no route for {case.delivery.value!r} delivery "
                f"(it delivers {', '.join(sorted(self.deliveries))})")

    def prepare(self) -> None:
        """Untimed preparation before each attempt (start a worker, a preflight); raise on failure."""

    @abstractmethod
    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        """Make one physical call for ``url`` within ``timeout`` seconds and return the normalised result.

        Failures are ``ProviderResult(success=False, error_type=..., error_message=...)`` with any
        content kept, or a raised :class:`FetchError`; other exceptions are reserved for bugs.
        """

    def close(self) -> None:
        """Release clients or processes; called once at the end of the worker's session."""
