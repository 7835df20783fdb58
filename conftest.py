"""Load the lexbench pytest plugin for runs from the repository root (SPEC §1)."""

pytest_plugins = ["lexbench.plugin"]
