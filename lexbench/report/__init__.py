"""Reports built from a run record (SPEC §6), one module a step: :mod:`~lexbench.report.model` computes
the figures from the manifest and rows, :mod:`~lexbench.report.render` writes Markdown, JSON and the
terminal leaderboard (and all three files), :mod:`~lexbench.report.html` the HTML page,
:mod:`~lexbench.report.memory` the peak-memory figures, :mod:`~lexbench.report.cost` the engine cost
(seconds and peak memory per page, pages per minute)."""
