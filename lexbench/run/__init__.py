"""The run engine, without pytest (SPEC §6): open a run directory, record each item's row, finish the
manifest and the reports.

:mod:`lexbench.plugin` drives it from pytest's hooks; everything here takes plain values, so a run can
be made and tested without a pytest session (``import lexbench.run`` never imports pytest).

- :mod:`lexbench.run.planning`: which CPU each xdist worker keeps to, from the gateway specs.
- :mod:`lexbench.run.row`: an item's :class:`~lexbench.run.record.RunRow` from its case, answer and verdict.
- :mod:`lexbench.run.manifest`: ``manifest.json`` as a model.
- :mod:`lexbench.run.session`: one session of a run: open → record → finish.
- :mod:`lexbench.run.record`: rows, resume and merge; :mod:`~lexbench.run.shard`: ``K/N`` shards;
  :mod:`~lexbench.run.certify` and :mod:`~lexbench.run.checkout`: certified runs and the checkout they
  ran; :mod:`~lexbench.run.rundir`: the run directory's files and lock; :mod:`~lexbench.run.stats`: the
  bootstrap and intervals.
"""
