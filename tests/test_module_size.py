"""No module over 600 lines unless its docstring says why it is one concept (issue 18)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lexbench"
LIMIT = 600


def test_every_long_module_says_why_it_is_one_concept() -> None:
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if source.count("\n") <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(source)) or ""
        if "Why one module of this size:" not in doc:
            unexplained.append(f"{path.relative_to(PACKAGE.parent)} ({source.count(chr(10))} lines)")
    assert not unexplained, "modules over 600 lines without a reason in their docstring: " + ", ".join(unexplained)
