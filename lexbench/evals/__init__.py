"""Keeping the scorer honest (SPEC §8): the gold set, its accuracy gate and the before/after lift gate.

- :mod:`lexbench.evals.gold` — gold tuples (case + synthetic answer + expected verdict), the
  manifest and :func:`~lexbench.evals.gold.check_gold`;
- :mod:`lexbench.evals.accuracy` — every tuple through ``evaluate_response``, symmetric 3-class
  accuracy, confusion matrix, advisory expert concordance, and the gate (:data:`GATE_FLOORS`);
- :mod:`lexbench.evals.lift` — ``suite.provider.metric`` figures of two runs (or two run-evals
  outputs), polarity-corrected signed lift, and the acknowledgement that lets a blocked change through;
- :mod:`lexbench.evals.commands` — the ``check-gold``, ``run-evals`` and ``compare`` verbs.

The package imports nothing itself, so the ``lexbench`` command stays quick to start.
"""
