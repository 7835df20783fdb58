"""The scorer (SPEC §3): project an answer to reader text, normalise it, measure its contracts."""

from lexbench.scoring.evaluate import evaluate_response

__all__ = ["evaluate_response"]
