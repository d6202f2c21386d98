"""``local_agent/context/`` (and what the offline demo imports) uses the standard library only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STDLIB_ONLY = [*sorted((ROOT / "local_agent" / "context").glob("*.py")),
               *(ROOT / "local_agent" / f"{name}.py" for name in (
                   "__init__", "catalogue", "commands", "intent", "pipeline", "ports", "render", "reply",
                   "rules", "sqlite_store", "tools", "loopback"))]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_context_core_and_the_demo_path_import_only_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"local_agent", "__future__"}
    offenders = {p.relative_to(ROOT).as_posix(): sorted(_imports(p) - allowed) for p in STDLIB_ONLY}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_context_core_never_imports_the_rest_of_the_package():
    """Dependency direction: context/ is the centre; nothing in it reaches outward."""
    for path in (ROOT / "local_agent" / "context").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.level in (0, 1), f"{path.name} imports from outside local_agent.context"
                assert not (node.level == 0 and (node.module or "").startswith("local_agent")), path.name
