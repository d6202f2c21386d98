"""Short functions: none in ``local_agent/`` or ``examples/`` is longer than 60 lines.

Cyclomatic complexity (at most 12) is ruff's mccabe check (``C901``, ``pyproject.toml``); this test
covers length, counted from a function's first decorator (or ``def``) to its last line, docstring
and comments included. Nested functions count on their own and inside their parent.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 60
CHECKED = ("local_agent", "examples")
# Data tables that may run longer, as "path::qualified.name": none today. Add one only for a
# function that is a literal table, and say why here.
DATA_TABLE_EXCEPTIONS: dict[str, str] = {}


def long_functions(source: str, path: str, limit: int = MAX_LINES) -> dict[str, int]:
    """``{"path::Qualified.name": lines}`` for every function in ``source`` over ``limit`` lines."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    lines = (child.end_lineno or child.lineno) - first + 1
                    if lines > limit:
                        found[f"{path}::{name}"] = lines
                name += "."
            visit(child, name)

    visit(ast.parse(source), "")
    return found


def test_the_length_check_counts_from_the_decorator_to_the_last_line() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(58))
    at_limit = f"@decorator\ndef f():\n{body}\n"  # 60 lines
    over = (
        f"class C:\n    @decorator\n    def g(self):\n{body}\n        return 1\n"  # 61 lines with the return
    )
    over = over.replace("\n    x", "\n        x")
    assert long_functions(at_limit, "a.py") == {}
    assert long_functions(over, "b.py") == {"b.py::C.g": 61}


def test_no_function_in_the_package_or_the_examples_is_over_60_lines() -> None:
    found: dict[str, int] = {}
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            found.update(long_functions(path.read_text(encoding="utf-8"), relative))
    assert {name: lines for name, lines in found.items() if name not in DATA_TABLE_EXCEPTIONS} == {}
