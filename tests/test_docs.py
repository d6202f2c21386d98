"""The documentation stands alone: nothing points outside the repository, and what it cites exists.

* no file in the repository (outside ``.git``, virtualenvs and caches) refers to working papers
  kept outside it;
* every ``docs/design.md §N`` citation in the code names a section that exists, and the design's
  sections are numbered 1..N in order;
* relative links in the Markdown files resolve to files in the repository, and README.md and
  AGENTS.md link to the design.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
SKIPPED_DIRS = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    "node_modules",
    "out",
    "var",
}
# Written split so that this file does not contain what it looks for.
OUTSIDE_REFERENCES = ("../" + "shared", "DESIGN" + " §")
CITATION = re.compile(r"docs/design\.md\s+§(\d+)")
HEADING = re.compile(r"^## (\d+)\. ", re.MULTILINE)
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def repository_files() -> list[Path]:
    files: list[Path] = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        files.extend(Path(folder) / name for name in names)
    return sorted(files)


def test_the_scan_sees_the_repository() -> None:
    relative = {p.relative_to(ROOT).as_posix() for p in repository_files()}
    assert {"README.md", "AGENTS.md", "docs/design.md", "local_agent/context/projection.py"} <= relative
    assert not any(r.startswith(".git/") for r in relative)


def test_no_file_refers_to_papers_outside_the_repository() -> None:
    found = []
    for path in repository_files():
        data = path.read_bytes()
        for needle in OUTSIDE_REFERENCES:
            if needle.encode("utf-8") in data:
                found.append((path.relative_to(ROOT).as_posix(), needle))
    assert found == []


def design_sections() -> list[int]:
    return [int(n) for n in HEADING.findall(DESIGN.read_text(encoding="utf-8"))]


def test_design_sections_are_numbered_one_to_n_in_order() -> None:
    sections = design_sections()
    assert sections == list(range(1, len(sections) + 1))
    assert len(sections) == 12


def test_every_design_citation_names_an_existing_section() -> None:
    sections = set(design_sections())
    citations = []
    for path in repository_files():
        if path.suffix not in {".py", ".md", ".toml", ".txt", ".json"}:
            continue
        for number in CITATION.findall(path.read_text(encoding="utf-8", errors="replace")):
            citations.append((path.relative_to(ROOT).as_posix(), int(number)))
    assert citations, "the code cites the design somewhere; the pattern must find it"
    unknown = [(where, n) for where, n in citations if n not in sections]
    assert unknown == [], f"docs/design.md has sections {sorted(sections)}"


@pytest.mark.parametrize(
    "name",
    [
        "README.md",
        "AGENTS.md",
        "docs/design.md",
        "docs/plugin.md",
        "docs/conversations.md",
        "docs/listings.md",
        "docs/deploy.md",
        "docs/report.md",
        "docs/settings.md",
        "docs/architecture.md",
        "bench/README.md",
        "examples/day15/README.md",
        "examples/plugin/README.md",
    ],
)
def test_relative_markdown_links_resolve_inside_the_repository(name: str) -> None:
    page = ROOT / name
    broken = []
    for target in MD_LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor on the same page
        resolved = (page.parent / target.split("#", 1)[0]).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("name", ["README.md", "AGENTS.md"])
def test_readme_and_agents_link_to_the_design(name: str) -> None:
    assert "](docs/design.md" in (ROOT / name).read_text(encoding="utf-8")


def test_design_quotes_every_marker_string_exactly() -> None:
    from local_agent.context import errors, projection

    design = DESIGN.read_text(encoding="utf-8")
    missing = [s for s in projection.FIXED_STRINGS if f"`{s}`" not in design]
    codes = [
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.LocalError) and cls.__subclasses__() == []
    ]
    missing += [code for code in codes if f"`{code}`" not in design]
    assert missing == [], "quote these in docs/design.md (§4 marker strings, §5 error codes)"


# What a reader of this repository does not have: the spec's own section numbers and names for it.
# (Written split so that this file does not contain what it looks for.)
LEANING = (
    re.compile("§" + "[一二三四五六七八九十]"),
    re.compile(r"\bthe " + r"seed\b", re.IGNORECASE),
    re.compile(r"LOCAL Day 15 " + "article"),
    re.compile("local-" + "day12"),
)
USER_FACING = ("README.md", "AGENTS.md", "docs", "examples", "bench")


def test_the_docs_and_what_users_see_lean_on_nothing_outside_the_repository() -> None:
    found = []
    for path in repository_files():
        relative = path.relative_to(ROOT).as_posix()
        if not relative.startswith(USER_FACING) or path.suffix not in {".md", ".py", ".json", ".toml"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [(relative, p.pattern) for p in LEANING if p.search(text)]
    assert found == []


BENCHMARKS = (
    "context_growth",
    "plugin_tools",
    "turn_overhead",
    "webhook_load",
    "conversations",
    "listings_load",
)
HISTORY = re.compile(
    r"\bissues? \d|this wave|the branch|first run|[Ss]econd pass|[Tt]hird pass"
    r"|\b[Tt]un(?:ed|ing)\b|\b[Ss]eed\b|lab notes?|[Oo]n a quieter host|as before the"
)
CODE_SPAN = re.compile(r"`[^`]*`")


def test_bench_readme_has_one_section_per_benchmark_with_its_latest_figures_and_no_history() -> None:
    text = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)
    for name in BENCHMARKS:
        (section,) = [s for s in sections if s.startswith(f"`{name}`")]
        assert "**Latest figures**" in section, name
        assert f"python -m bench.{name}" in text, name
    assert HISTORY.findall(CODE_SPAN.sub("", text)) == []  # a flag such as `--seed N` is a name, not history


README_LINES = 250
GUIDES = sorted((ROOT / "docs").glob("*.md"))
COMMAND = re.compile(r"python3? -m ([a-z_][\w.]*)")


def test_the_readme_is_short_and_links_every_guide() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    assert {f"docs/{p.name}" for p in GUIDES} <= set(MD_LINK.findall(text))


@pytest.mark.parametrize("name", ["README.md", *(f"docs/{p.name}" for p in GUIDES), "bench/README.md"])
def test_every_python_command_shown_names_a_module_that_exists(name: str) -> None:
    import importlib.util

    text = (ROOT / name).read_text(encoding="utf-8")
    missing = []
    for module in sorted(set(COMMAND.findall(text))):
        top = module.split(".")[0]
        if (ROOT / top).exists() or top in {"local_agent", "examples", "bench"}:
            found = (ROOT / module.replace(".", "/")).with_suffix(".py").exists() or (
                ROOT / module.replace(".", "/") / "__main__.py"
            ).exists()
        else:
            found = importlib.util.find_spec(top) is not None
        if not found:
            missing.append(module)
    assert missing == []


@pytest.mark.slow
@pytest.mark.parametrize("module", ["examples.day15.report", "bench.report_cost", "examples.day15.listings"])
def test_the_guides_commands_answer_help(module: str) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
