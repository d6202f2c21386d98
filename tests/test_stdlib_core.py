"""``local_agent/context/`` (and what the offline demo imports) uses the standard library only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STDLIB_ONLY = [
    *sorted((ROOT / "local_agent" / "context").glob("*.py")),
    *(
        ROOT / "local_agent" / f"{name}.py"
        for name in (
            "__init__",
            "fingerprint",
            "listings/__init__",
            "listings/catalogue",
            "listings/dates",
            "listings/loader",
            "language/__init__",
            "language/text",
            "language/words",
            "language/diets",
            "language/townships",
            "language/intents",
            "turns/__init__",
            "turns/commands",
            "turns/kept",
            "agent/__init__",
            "agent/offline_rules",
            "agent/pipeline",
            "agent/instructions",
            "agent/tools",
            "stores/__init__",
            "stores/ports",
            "stores/sqlite",
            "replies/__init__",
            "replies/render",
            "replies/reply",
            "testing/loopback",
        )
    ),
]
# Dependency direction, lowest first: a module may import its own wing and the wings ranked below it.
WING_RANK = {
    "context": 0,
    "fingerprint": 1,
    "logs": 1,
    "settings": 1,
    "stores": 2,
    "listings": 2,
    "language": 3,
    "replies": 4,
    "plugin": 5,
    "agent": 6,
    "turns": 7,
    "wiring": 8,
    "line": 9,
    "server": 10,
    "app": 11,
    "testing": 12,
}


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


def _wing(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_no_import_runs_upward_between_wings():
    """context <- fingerprint/logs/settings <- stores/listings <- language <- replies <- plugin <- agent <- turns
    <- wiring <- line <- server <- app <- testing."""
    upward = []
    for path in sorted((ROOT / "local_agent").rglob("*.py")):
        rel = path.relative_to(ROOT / "local_agent").with_suffix("")
        if rel.name == "__init__" and len(rel.parts) == 1:
            continue
        wing = rel.parts[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("local_agent")
            ):
                targets = (
                    [_wing(node.module or "")]
                    if node.module != "local_agent"
                    else [a.name for a in node.names]
                )
                upward += [
                    f"{rel.as_posix()} -> {t}"
                    for t in targets
                    if t in WING_RANK and WING_RANK[t] > WING_RANK[wing]
                ]
    assert upward == []


def test_the_language_wing_imports_only_the_context_core_and_the_listings():
    """Vocabulary and intents sit on the data they read (townships, dietary words), nothing else."""
    reached = set()
    for path in sorted((ROOT / "local_agent" / "language").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("local_agent.")
            ):
                reached.add(_wing(node.module or ""))
    assert reached <= {"context", "listings", "language"}
    assert "listings" in reached
