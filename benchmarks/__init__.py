"""Performance benchmarks for issue 10: ``python -m benchmarks.perf`` (``make perf``); never part of ``make test``."""
