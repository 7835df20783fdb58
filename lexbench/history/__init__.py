"""Run history (SPEC §6, issue 31): every run directory under ``runs/`` read in place, queried with DuckDB.

The path: :mod:`~lexbench.history.store` finds the run directories, sorts out the incomplete and the
refused ones and opens the SQL views (``runs``, ``items``, ``components``, ``attempts``) straight over
their ``results.jsonl``; :mod:`~lexbench.history.summary` groups comparable runs and prints the trend per
provider; :mod:`~lexbench.history.check` pairs the last two comparable runs case by case (exact McNemar);
:mod:`~lexbench.history.trend` draws the trend panel (inline SVG) for ``--html`` and for ``report.html``.

History comes after the report step: it reads run records (:mod:`lexbench.run`) and reuses the report's
figures and formatting (:mod:`lexbench.report`). Nothing here writes into a run directory.
"""
