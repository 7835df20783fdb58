"""The exception tree of lexbench.

    LexbenchError            anything lexbench raises on purpose; the message says what to do
    ├── RulesError           rules.json / dataset.json / config is malformed (names case and field)
    ├── EvidenceError        an evidence file is missing or does not match its binding
    ├── BindingError         a suite's public bindings disagree with each other or with dataset.json
    ├── CorpusImportError    a corpus folder cannot be imported (names the file)
    ├── ConfigError          provider configuration or command-line selection is invalid
    └── RunError             a run directory cannot be resumed, merged or reported (names the run and the mismatch)
"""

from __future__ import annotations


class LexbenchError(Exception):
    """Base class; every subclass carries an actionable message."""


class RulesError(LexbenchError):
    """Authoring rules or a compiled dataset are invalid."""


class EvidenceError(LexbenchError):
    """An evidence file is missing, unreadable or does not match its sha256 binding."""


class BindingError(LexbenchError):
    """A suite's public bindings (catalog, tasks, source inputs, registry entry) do not agree with each
    other, with ``dataset.json`` or with its authoring sources; the message lists every problem."""


class CorpusImportError(LexbenchError):
    """A corpus folder cannot be imported; the message names the offending file."""


class ConfigError(LexbenchError):
    """Provider configuration or selection is invalid."""


class RunError(LexbenchError):
    """A run directory cannot be resumed, merged or reported: it is not a run, or its rows belong to
    another suite or configuration (SPEC §6). The message names the run directory and the mismatch."""
