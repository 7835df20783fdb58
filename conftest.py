"""The checkout's own switch (SPEC §1: the top-level ``conftest.py``, tiny): collecting this checkout's
``cases/`` directory runs the benchmark, so ``pytest --suite=demo`` from the root (pyproject
``testpaths = ["cases"]``) is a benchmark run without ``--lexbench``.

This lives here, not in the plugin, because only the checkout has that directory at its root: an
installed lexbench (the ``pytest11`` entry point, :mod:`lexbench.plugin`) never reads this file and is
switched on only by ``--lexbench`` or ``lexbench = true`` (:func:`lexbench.plugin.state.benchmark_requested`),
as before. The plugin itself loads from its entry point; this file adds no fixture and no option.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CASES_DIR = Path(__file__).resolve().parent / "cases"


@pytest.hookimpl(tryfirst=True)  # before the plugin's pytest_configure reads the switch
def pytest_configure(config: pytest.Config) -> None:
    """``pytest_configure``: on the controller, switch the benchmark on when an argument lies in ``cases/``
    (xdist workers are told by their controller)."""
    if getattr(config, "workerinput", None) is not None or not hasattr(config.option, "lexbench"):
        return
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        path = (path if path.is_absolute() else config.invocation_params.dir / path).resolve()
        if path == CASES_DIR or CASES_DIR in path.parents:
            config.option.lexbench = True
            return
