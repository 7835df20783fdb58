"""Per-process benchmark state: the selected suite, providers, replay server and run (SPEC §1, §3)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from lexbench.dataset.case import Case
from lexbench.dataset.suite import Suite, load_suite
from lexbench.errors import LexbenchError, RulesError
from lexbench.plugin.options import OPTIONS, option_value
from lexbench.providers import PROVIDER_TYPES, Provider, ProviderConfig, ProviderSpec, RuntimePolicy, build_provider, default_config, load_config
from lexbench.providers.credentials import Redactor
from lexbench.providers.guard import NetworkGuard
from lexbench.replay import ReplayServer, public_url_for
from lexbench.run.replay_check import replay_problem
from lexbench.run.row import RowContext
from lexbench.run.session import RunRequest, RunSession
from lexbench.run.shard import Shard


@dataclass
class BenchState:
    """Per-process benchmark state, kept in ``config.stash``."""

    config: pytest.Config
    provider_config: ProviderConfig
    provider_config_path: Path | None
    specs: dict[str, ProviderSpec]
    policy: RuntimePolicy
    run_dir: Path | None = None
    session: RunSession | None = None  # controller: the run it records (lexbench.run.session), once open
    pending: RunRequest | None = None  # controller: a new run, planned, opened when its first item runs
    suite: Suite | None = None
    providers: dict[str, Provider] = field(default_factory=dict)
    replay: ReplayServer | None = None
    replay_suspect: bool = False  # its last probe failed: probe again before each call until one succeeds
    shard: Shard | None = None
    completed: frozenset[str] = frozenset()
    configuration_sha256: str | None = None
    dataset_sha256: str | None = None
    worker_cpus: list[int] | None = None  # controller: the CPU of each xdist worker, by index (None: not pinned)
    replay_prefix: str = ""  # this run's unguessable path prefix under --replay-public-url (one for all workers)
    replay_key: str | None = None  # controller: the replay key shared with serve-replay (reads the log)
    replay_tokens: dict[str, str] = field(default_factory=dict)  # provider → its path secret under the prefix
    enabled: bool = False  # the benchmark runs in this session (benchmark_requested, told to workers)
    last_failed: frozenset[str] = frozenset()  # controller with --lf: pytest's cached failures as the session began
    _redactor: tuple[tuple[str, ...], Redactor] | None = None  # session_redactor's, with the values it masks

    @property
    def is_worker(self) -> bool:
        """Whether this process is a pytest-xdist worker (the controller and ``-n 0`` are not)."""
        return hasattr(self.config, "workerinput")

    @property
    def provider_names(self) -> list[str]:
        """The selected providers' names, in selection order."""
        return list(self.specs)

    @property
    def live(self) -> bool:
        """``--live``: providers fetch the cases' original URLs, not the replay server (SPEC §3.1)."""
        return option_value(self.config, "live")

    def get_suite(self) -> Suite:
        """The ``--suite``, loaded once per process. A worker loads the dataset its controller checked
        (the same sha256) without checking its bindings again. Raises what :func:`load_suite` raises;
        for the id of a suite the importer makes (``aeb``), the error says where it is or how to import it
        (:func:`lexbench.dataset.importers.imported_suite_hint`)."""
        if self.suite is None:
            name = option_value(self.config, "suite")
            try:
                self.suite = load_suite(name, validated_sha256=self.dataset_sha256 if self.is_worker else None)
            except RulesError as exc:
                from lexbench.dataset.importers import imported_suite_hint  # only when the suite is not found

                hint = imported_suite_hint(name)
                if hint is None:
                    raise
                raise RulesError(f"{exc}; {hint}") from None
        return self.suite

    def spec(self, name: str) -> ProviderSpec:
        """Provider ``name``'s configuration: a selected one, else any the configuration defines
        (``KeyError`` for neither)."""
        return self.specs[name] if name in self.specs else self.provider_config.spec(name)

    def provider_type(self, name: str) -> type[Provider]:
        """The class of provider ``name`` (``KeyError`` for a name the configuration does not define)."""
        return PROVIDER_TYPES[self.spec(name).type]

    def get_provider(self, name: str) -> Provider:
        """Build ``name`` once per process. The guard's only exemption is the replay server's own
        address, so in replay mode the server is started first."""
        if name not in self.providers:
            exempt = []
            if self.provider_type(name).needs_network and not self.live:
                address = urlsplit(self._replay().base_url)
                exempt.append((address.hostname, address.port))
            provider = build_provider(
                self.spec(name), guard=NetworkGuard.allowing(*exempt), policy=self.policy,
                debug_dir=self.run_dir / "debug" if self.run_dir else None)
            bind = getattr(provider, "bind_captures", None)
            if bind is not None:  # the control answers record contracts with the page they were reviewed on
                suite = self.get_suite()
                bind({c.id: suite.reviewed_html(c.id) for c in suite.cases})
            bind = getattr(provider, "bind_shells", None)
            if bind is not None:  # the static-shell control answers with the page as first served
                suite = self.get_suite()
                bind({c.id: suite.page_html(c.id) for c in suite.cases})
            self.providers[name] = provider  # only once bound: a failed bind is retried by the next item
        return self.providers[name]

    def redactor(self, name: str) -> Redactor:
        """The redactor for provider ``name``'s credentials as they are now (its ``not_secret``
        identifiers excepted), built from its configuration whether or not it was called."""
        return Redactor.from_environment(self.spec(name).secret_variables())

    def session_redactor(self) -> Redactor:
        """The session's redactor: every secret of every provider the configuration defines (and of the
        selected ones), as they are now. What a user's test writes or shows passes through it, since
        the test may call any configured provider (``lexbench_provider``) or hold any of their keys."""
        names = [*self.provider_config.secret_variables(), *(v for spec in self.specs.values() for v in spec.secret_variables())]
        values = tuple(os.environ.get(name) or "" for name in dict.fromkeys(names))
        if self._redactor is None or self._redactor[0] != values:  # built again only when a value changed
            self._redactor = (values, Redactor(values))
        return self._redactor[1]

    def _replay(self) -> ReplayServer:
        if self.replay is None:
            suite = self.get_suite()
            self.replay = ReplayServer(suite.replay_pages()).start()
        return self.replay

    @property
    def public_replay(self) -> str | None:
        """``--replay-public-url`` in replay mode, else ``None``."""
        return None if self.live else option_value(self.config, "replay_public_url")

    def target_url(self, case: Case) -> str:
        """The URL a network provider fetches for ``case``: its original URL with ``--live``, else the
        replay server's URL of its frozen capture (the server starts on first use; ``OSError`` if it
        cannot)."""
        if self.live:
            return case.url
        return self._replay().url_for(case.id)

    def public_target_url(self, case: Case, provider: str) -> str | None:
        """The frozen page's URL under ``--replay-public-url`` for a hosted ``provider``, else ``None``."""
        if not self.public_target_url_handed(provider):
            return None
        return public_url_for(self.public_replay, self.replay_prefix, provider, self.replay_tokens[provider], case.id,
                              archive=case.capture.is_archive)

    def public_target_url_handed(self, provider: str) -> bool:
        """Whether ``provider`` is handed frozen pages under ``--replay-public-url`` (a hosted service
        with its path secret)."""
        return (bool(self.public_replay) and provider in self.replay_tokens
                and not self.provider_type(provider).reaches_loopback)

    def cannot_reach_replay(self, name: str) -> bool:
        """Whether provider ``name`` is a hosted service in replay mode without ``--replay-public-url``: it
        cannot fetch the loopback replay server, so its items are never called (and it is never built)."""
        provider_type = self.provider_type(name)
        return (provider_type.needs_network and not provider_type.reaches_loopback and not self.live
                and not self.public_replay)

    def replay_down(self, *, probe: bool) -> str | None:
        """Why the replay server cannot serve pages now (replay mode, once started), else ``None``
        (:func:`lexbench.run.replay_check.replay_problem`)."""
        if self.live or self.replay is None:
            return None
        problem, self.replay_suspect = replay_problem(self.replay, probe=probe, suspect=self.replay_suspect)
        return problem

    def row_context(self, provider: str, suite: str, output_contract: str | None = None) -> RowContext:
        """What every row of ``provider`` carries besides its case, in this process; ``output_contract``
        for a provider that is a user's test (:mod:`lexbench.plugin.fixtures`), else its configured one."""
        return RowContext(suite=suite, provider=provider,
                          output_contract=output_contract or self.specs[provider].output_contract,
                          dataset_sha256=self.dataset_sha256, configuration_sha256=self.configuration_sha256)


STATE = pytest.StashKey[BenchState]()

ACTIVATION_HINT = "pass --lexbench (or set `lexbench = true` in the ini file)"
"""How a user turns the benchmark on (:func:`benchmark_requested`), for the messages that say it is off."""


def benchmark_requested(config: pytest.Config) -> bool:
    """Whether this session runs the benchmark (opens a run), the one activation predicate: ``--lexbench``
    or ``lexbench = true`` in the ini file. In lexbench's own checkout, collecting its ``cases/`` directory
    sets ``--lexbench`` too (the checkout's root ``conftest.py``: ``pytest --suite=demo`` from its root, where
    pyproject ``testpaths`` is ``cases``); a ``cases/`` directory of another project never switches it on.
    The built-in items and a user's tests on the ``lexbench_case`` fixture are recorded only then."""
    return bool(config.getoption("lexbench") or config.getini("lexbench"))


IDLE_ALLOWED = frozenset({"fetch_timeout", "retries", "no_cpu_pinning"})
"""Options that mean something with the benchmark off too (``fetch_timeout`` is a fixture's value)."""


def idle_options(config: pytest.Config) -> list[str]:
    """The benchmark-only options (every one of :data:`~lexbench.plugin.options.OPTIONS` but
    :data:`IDLE_ALLOWED`) given on the command line of a session whose benchmark is off, as flags."""
    return [option.flag for option in OPTIONS
            if option.name not in IDLE_ALLOWED and config.getoption(option.name) not in (None, False)]


def provider_config_of(config: pytest.Config) -> tuple[ProviderConfig, Path | None]:
    """The provider configuration of this session and its file (``None``: the built-in one); a worker
    reads the file its controller chose. Raises ``pytest.UsageError`` for a file that cannot be loaded."""
    workerinput = getattr(config, "workerinput", None)
    option = workerinput.get("lexbench_provider_config") if workerinput else option_value(config, "provider_config")
    if not option:
        return default_config(), None
    path = Path(option).resolve()  # absolute already (resolve_options)
    try:
        return load_config(path), path
    except LexbenchError as exc:
        raise pytest.UsageError(f"--provider-config: {exc}") from None


def runtime_policy_of(config: pytest.Config) -> RuntimePolicy:
    """The runtime policy (SPEC §5) from ``--fetch-timeout`` (seconds) and ``--retries``, already
    range-checked by :func:`~lexbench.plugin.options.resolve_options`."""
    return RuntimePolicy(timeout_s=option_value(config, "fetch_timeout"), retries=option_value(config, "retries"))
