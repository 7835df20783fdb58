"""Where lexbench's own files are: the committed suites (``cases/``), the engine workers
(``providers/workers/``), the example provider configuration and the JSON schemas.

In a checkout (an editable install included) they are the checkout's directories beside the package;
installed from a wheel they are the copies pyproject's package data puts under ``lexbench/_shipped/``
(the demo suite whole, the other suites' public bindings, the workers without ``node_modules``).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent
"""The checkout root when the package runs from one (else the folder the package is installed in)."""
SHIPPED = PACKAGE / "_shipped"
"""Where a wheel installs the shipped directories (pyproject ``[tool.setuptools.package-dir]``)."""


def in_checkout() -> bool:
    """Whether the package runs from a lexbench checkout (its ``pyproject.toml`` and ``cases/`` beside it)."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "cases").is_dir()


def shipped_dir(name: str) -> Path:
    """The directory ``name`` (``cases``, ``providers`` or ``schemas``): the checkout's, or the installed copy."""
    return CHECKOUT / name if in_checkout() else SHIPPED / name


def data_root() -> Path:
    """Where fetched and generated inputs go (``.evidence/``): the checkout root, or, installed, the
    directory the command runs in (never inside the installed package)."""
    return CHECKOUT if in_checkout() else Path.cwd()
