"""The hooks the plugin adds to pytest (SPEC §5): implement them in a ``conftest.py``."""

from __future__ import annotations


def pytest_lexbench_provider_types() -> list[type]:
    """Return provider types (:class:`lexbench.Provider` subclasses) to add to the registry for this
    session, each under its ``type_name``; a provider configuration (``--provider-config``) then names
    them in ``type``. Called once per process at configure time, so implement it in a conftest.py pytest
    loads at start (the root one); the types are removed again when the session ends. A name a
    built-in or installed type already holds is a usage error."""
