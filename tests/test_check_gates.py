"""The checks CI runs before the suite: ``./scripts/test`` gates pytest on ruff check, ruff format
and mypy, and mypy's settings in ``pyproject.toml`` keep the core and the stores strict."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRICT_FLAGS = {
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "disallow_untyped_decorators",
    "warn_return_any",
    "no_implicit_reexport",
    "extra_checks",
}


def _commands() -> list[str]:
    """Each ``python -m <tool> ...`` the script runs, in order, without comments."""
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "set -euo pipefail" in script  # a failing check stops the script
    found = (re.search(r"\.venv/bin/python -m (.*)$", line.split("#")[0]) for line in script.splitlines())
    return [m.group(1).strip() for m in found if m]


def _mypy() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_scripts_test_runs_lint_format_and_types_before_pytest():
    gates = [c for c in _commands() if not c.startswith("pip")]
    assert gates == [
        "ruff check local_agent examples tests bench",
        "ruff format --check local_agent examples tests bench",
        "mypy",
        'pytest "$@"',
    ]


def test_mypy_comes_from_the_dev_extra_with_a_pinned_range():
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    pins = [d for d in dev["dev"] if re.match(r"mypy\b", d)]
    assert len(pins) == 1 and "<" in pins[0] and ">=" in pins[0]
    assert "[dev" in (ROOT / "scripts" / "test").read_text(encoding="utf-8")


def test_mypy_checks_the_package_and_examples_with_every_function_annotated():
    mypy = _mypy()
    assert set(mypy["files"]) == {"local_agent", "examples"}
    assert mypy["disallow_untyped_defs"] and mypy["disallow_incomplete_defs"] and mypy["check_untyped_defs"]


def test_the_core_and_the_stores_are_strict_and_no_override_sets_the_global_strict_flag():
    overrides = _mypy()["overrides"]
    core = {"local_agent.context.*", "local_agent.stores.*"}
    strict = [o for o in overrides if core <= set(o["module"])]
    assert len(strict) == 1 and all(strict[0].get(flag) is True for flag in STRICT_FLAGS)
    assert {"local_agent.plugin", "local_agent.plugin.*"} <= set(strict[0]["module"])  # the ADK plugin too
    # ``strict`` in an override is applied to every module, not the ones named.
    assert all("strict" not in o for o in overrides)


def test_missing_imports_are_ignored_only_for_named_third_party_modules():
    for override in _mypy()["overrides"]:
        if override.get("ignore_missing_imports"):
            modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
            assert all(not m.startswith(("local_agent", "examples")) and m != "*" for m in modules)
    assert "ignore_missing_imports" not in _mypy()
