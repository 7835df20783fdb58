"""The benchmark's command-line options (SPEC §1, §6): one definition each, read by the hooks."""

from __future__ import annotations

import pytest

from lexbench.providers import DEFAULT_PROVIDERS
from lexbench.providers.config import CONFIGURED
from lexbench.providers.policy import DEFAULT_RETRIES, DEFAULT_TIMEOUT_S


def pytest_addoption(parser: pytest.Parser) -> None:
    """``pytest_addoption``: the benchmark's command-line options."""
    group = parser.getgroup("lexbench", "lexbench benchmark")
    group.addoption("--lexbench", action="store_true", default=False,
                    help="run the benchmark: the selected suite x providers as test items (off by default, so an "
                         "unrelated test run is unchanged; the ini switch is `lexbench = true`)")
    parser.addini("lexbench", type="bool", default=False,
                  help="run the benchmark in every session of this project (as --lexbench does)")
    group.addoption("--suite", default="demo", help="suite name under cases/ or path of a suite directory (default: demo)")
    group.addoption("--providers", default=None,
                    help=f"comma-separated provider names from the configuration, or '{CONFIGURED}' for its "
                         f"default_providers (default: {CONFIGURED}; built-in: {','.join(DEFAULT_PROVIDERS)})")
    group.addoption("--provider-config", default=None, metavar="FILE",
                    help="provider configuration JSON (see providers/providers.example.json; default: the built-in "
                         "local providers); give it as --provider-config=FILE")
    group.addoption("--run-dir", default=None, help="where to write the run record (default: runs/<suite>-<UTC time>)")
    group.addoption("--no-cpu-pinning", action="store_true", default=False,
                    help="with -n N and only local or control providers, do not keep each worker (and its "
                         "extraction process) on a CPU of its own")
    group.addoption("--fetch-timeout", type=float, default=DEFAULT_TIMEOUT_S,
                    help="seconds per physical provider call, a total deadline (default: 30); pytest-timeout's "
                         "--timeout is the backstop")
    group.addoption("--retries", type=int, default=DEFAULT_RETRIES,
                    help="extra attempts after a failed provider call (default: 1)")
    group.addoption("--live", action="store_true",
                    help="fetch the cases' original URLs instead of the loopback replay server (needs internet)")
    group.addoption("--replay-public-url", default=None, metavar="URL",
                    help="in replay mode, hand hosted providers the frozen pages at URL, where `lexbench serve-replay` "
                         "is exposed (a public host or tunnel); its served-fetch log is kept in the run directory")
    group.addoption("--resume", default=None, metavar="RUN_DIR",
                    help="continue the run in RUN_DIR: run only the items without a recorded result, with the same "
                         "suite, providers and settings; give it as --resume=RUN_DIR")
    group.addoption("--shard", default=None, metavar="K/N",
                    help="run only shard K of N (a deterministic, balanced share of the items); combine the shards "
                         "with lexbench report --merge")
    group.addoption("--measure-only", action="store_true",
                    help="record scored evidence (results.jsonl, responses/, manifest) without building a report; "
                         "never certifies")
    group.addoption("--certified", action="store_true",
                    help="a certified run: needs an explicit --providers list, committed code, every credential set "
                         "and a suite whose bindings verify; the manifest says whether it was reached")
