"""The benchmark's options (SPEC §1, §6): each one a command-line flag and an ini key with one help text,
resolved in one place (:func:`resolve_options`): the command line, else the ini file, else the default."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lexbench.providers import DEFAULT_PROVIDERS
from lexbench.providers.config import CONFIGURED
from lexbench.providers.policy import DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, RuntimePolicy
from lexbench.replay import check_public_base_url
from lexbench.run.shard import AUTO, Shard

INI_PREFIX = "lexbench_"
"""An option's ini key is this prefix and its name: ``--fetch-timeout`` ↔ ``lexbench_fetch_timeout``."""

_TRUE, _FALSE = frozenset({"true", "yes", "on", "1"}), frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True)
class Option:
    """One benchmark option. ``name`` is its ``config.option`` attribute; the flag is ``--`` + the name with
    dashes, the ini key :data:`INI_PREFIX` + the name. ``kind`` says how its text is read, the same from
    either source: ``text``; ``path`` (relative to the invocation directory on the command line, to the ini
    file's directory in the ini, as pytest does for its ``paths`` ini values); ``suite`` (a suite name, or a
    path when it holds a ``/`` or starts with ``.`` or ``~``); ``float``; ``int``; ``flag`` (a switch on the
    command line, ``true``/``false`` in the ini). ``check`` raises ``ValueError`` for a value out of range."""

    name: str
    kind: str
    default: Any
    help: str
    metavar: str | None = None
    check: Callable[[Any], object] | None = None

    @property
    def flag(self) -> str:
        """The command-line flag: ``--`` and the name with dashes."""
        return "--" + self.name.replace("_", "-")

    @property
    def ini(self) -> str:
        """The ini key: :data:`INI_PREFIX` and the name."""
        return INI_PREFIX + self.name


OPTIONS: tuple[Option, ...] = (
    Option("suite", "suite", "demo", "suite name under cases/ or path of a suite directory (default: demo)",
           metavar="NAME|PATH"),
    Option("providers", "text", None,
           f"comma-separated provider names from the configuration, or '{CONFIGURED}' for its default_providers "
           f"(default: {CONFIGURED}; built-in: {','.join(DEFAULT_PROVIDERS)})", metavar="A,B"),
    Option("provider_config", "path", None,
           "provider configuration JSON (see providers/providers.example.json; default: the built-in local "
           "providers)", metavar="FILE"),
    Option("run_dir", "path", None, "where to write the run record (default: runs/<suite>-<UTC time>)",
           metavar="DIR"),
    Option("no_cpu_pinning", "flag", False,
           "with -n N and only local or control providers, do not keep each worker (and its extraction process) "
           "on a CPU of its own"),
    Option("fetch_timeout", "float", DEFAULT_TIMEOUT_S,
           "seconds per physical provider call, a total deadline (default: 30); pytest-timeout's --timeout is "
           "the backstop", metavar="S", check=lambda value: RuntimePolicy(timeout_s=value)),
    Option("retries", "int", DEFAULT_RETRIES, "extra attempts after a failed provider call (default: 1)",
           metavar="N", check=lambda value: RuntimePolicy(retries=value)),
    Option("live", "flag", False,
           "fetch the cases' original URLs instead of the loopback replay server (needs internet)"),
    Option("replay_public_url", "text", None,
           "in replay mode, hand hosted providers the frozen pages at URL, where `lexbench serve-replay` is "
           "exposed (a public host or tunnel); its served-fetch log is kept in the run directory", metavar="URL",
           check=check_public_base_url),
    Option("resume", "path", None,
           "continue the run in RUN_DIR: run only the items without a recorded result, with the same suite, "
           "providers and settings", metavar="RUN_DIR"),
    Option("shard", "text", None,
           "run only shard K of N (a balanced share of the items); 'auto' reads K and N from Kubernetes, GitLab, "
           "CircleCI, Buildkite or LEXBENCH_SHARD_*; merge the shards with lexbench report --merge",
           metavar="K/N|auto", check=lambda value: value.strip().lower() == AUTO or Shard.parse(value)),
    Option("measure_only", "flag", False,
           "record scored evidence (results.jsonl, responses/, manifest) without building a report; never "
           "certifies"),
    Option("certified", "flag", False,
           "a certified run: needs an explicit --providers list, committed code, every credential set and a "
           "suite whose bindings verify; the manifest says whether it was reached"),
)
BY_NAME = {option.name: option for option in OPTIONS}
_BY_FLAG = {option.flag: option for option in OPTIONS}

_RESOLVED = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``pytest_addoption``: every option as a command-line flag and an ini key with the same help. Flags
    default to ``None`` so that :func:`resolve_options` can tell "not given" from a value."""
    group = parser.getgroup("lexbench", "lexbench benchmark")
    group.addoption("--lexbench", action="store_true", default=False,
                    help="run the benchmark: the selected suite x providers as test items (off by default, so an "
                         "unrelated test run is unchanged; the ini switch is `lexbench = true`)")
    parser.addini("lexbench", type="bool", default=False,
                  help="run the benchmark in every session of this project (as --lexbench does)")
    for option in OPTIONS:
        if option.kind == "flag":
            group.addoption(option.flag, dest=option.name, action="store_true", default=None, help=option.help)
        else:
            group.addoption(option.flag, dest=option.name, default=None, metavar=option.metavar, help=option.help)
        parser.addini(option.ini, f"{option.help} ({option.flag})", type="string", default=None)


def option_value(config: pytest.Config, name: str) -> Any:
    """The resolved value of benchmark option ``name`` (a key of :data:`BY_NAME`); see :func:`resolve_options`."""
    return resolve_options(config)[name]


def resolve_options(config: pytest.Config) -> dict[str, Any]:
    """Every benchmark option's value, read once per process: the command line's when given, else the ini
    key's, else the default. Paths come back absolute (see :class:`Option`), floats and ints as numbers,
    flags as ``bool``. Raises :class:`pytest.UsageError` naming the flag, or the ini key and its file, for a
    value that cannot be read or is out of range."""
    resolved = config.stash.get(_RESOLVED, None)
    if resolved is None:
        resolved = {option.name: _resolve(config, option) for option in OPTIONS}
        config.stash[_RESOLVED] = resolved
    return resolved


def _resolve(config: pytest.Config, option: Option) -> Any:
    given = config.getoption(option.name)
    if given is not None:
        source, base = option.flag, config.invocation_params.dir
    else:
        given = config.getini(option.ini)
        if given is None:
            return option.default
        source = f"{option.ini} in {config.inipath}" if config.inipath else option.ini
        base = config.inipath.parent if config.inipath else config.invocation_params.dir
    try:
        value = _read(option.kind, given, base)
        if option.check is not None and value is not None:
            option.check(value)
    except ValueError as exc:
        raise pytest.UsageError(f"{source}: {exc}") from None
    return value


def misrooted_path_option(config: pytest.Config) -> str | None:
    """Why this session is rooted in the wrong place, or ``None``. pytest chooses its rootdir and ini file
    from the command line's paths before any plugin adds its options (pytest issue #8846), so in
    ``--suite PATH`` (space form) it takes ``PATH`` for a test path: an existing directory outside the
    project roots the session there, without the project's ini file (its ``testpaths``, ``addopts`` and
    ``lexbench_*`` keys). Once the options are known, the rootdir is chosen again from the real test paths;
    when it differs, the message names the option and the ``--opt=PATH`` form, which is never misread."""
    from _pytest.config.findpaths import determine_setup  # pytest's own rule (pytest is pinned exactly)

    known = config.known_args_namespace
    if known.rootdir or known.inifilename:
        return None  # chosen explicitly: no path was taken for a test path
    rootpath, inipath, _, _ = determine_setup(inifile=None, override_ini=known.override_ini,
                                              args=known.file_or_dir, rootdir_cmd_arg=None,
                                              invocation_dir=config.invocation_params.dir)
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return None
    args = list(config.invocation_params.args)
    misread = [f"{arg} {value}" for arg, value in zip(args, args[1:])
               if arg in _BY_FLAG and _BY_FLAG[arg].kind in ("path", "suite")]
    given = " and ".join(misread) or "a path option"
    fixed = " ".join(text.replace(" ", "=", 1) for text in misread) or "--opt=PATH"
    return (f"{given}: pytest read the option's path as a test path when it chose its rootdir (before "
            f"lexbench's options were known) and rooted the session at {config.rootpath}, without "
            f"{inipath or 'your configuration file'}; write {fixed}")


def _read(kind: str, given: Any, base: Path) -> Any:
    """Read one option's value of ``kind`` from the command line's or the ini's text (a flag given on the
    command line arrives as ``True``). Raises ``ValueError`` with the reason."""
    if kind == "flag":
        if isinstance(given, bool):
            return given
        text = str(given).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise ValueError(f"expected true or false, got {given!r}")
    text = str(given).strip()
    if kind == "float":
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {given!r}") from None
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"expected a whole number, got {given!r}") from None
    if not text:
        raise ValueError("empty value")
    if kind == "path" or (kind == "suite" and ("/" in text or text.startswith((".", "~")))):
        path = Path(text).expanduser()
        return os.path.normpath(path if path.is_absolute() else base / path)
    return text
