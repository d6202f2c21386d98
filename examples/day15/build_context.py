"""Export the Cloud Build context: only whitelisted files, with a SHA-256 manifest.

    python3 -m examples.day15.build_context --out out/day15/cloud-context

Copies the files the service needs (and nothing else) into ``--out`` and writes
``SOURCE_MANIFEST.json`` (path, size, SHA-256 of each file, the entry point, the pinned
versions). Refuses ``.git``, ``.env*``, keys, ``out/``, caches and anything off the whitelist;
fails with a clear message if a whitelisted file is missing. Refuses symlinks (anywhere on a
file's path inside the tree) and anything that resolves outside the tree, so a link cannot export
a file from elsewhere. Stdlib only.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY_POINT = "examples.day15.main:app"

# Exact files, and directories whose *.py files — and package data (PACKAGE_DATA) — are taken
# (recursively) minus the exclusions.
WHITELIST_FILES: tuple[str, ...] = (
    "Dockerfile",
    ".dockerignore",
    "requirements.lock",
    "examples/__init__.py",
    "examples/day15/__init__.py",
    "examples/day15/main.py",
)
WHITELIST_PACKAGES: tuple[str, ...] = ("local_agent",)
# Non-Python files a package needs at run time (the shipped listings snapshot), as globs under it.
PACKAGE_DATA: tuple[str, ...] = (
    "*.py",
    "listings/data/*.csv",
    "listings/data/listings.toml",
    "language/data/*.json",
)
# Fakes for tests, the replay and the chat stay out of the image.
EXCLUDED_PACKAGES: tuple[str, ...] = ("local_agent/testing",)
REQUIRED_IN_PACKAGES: tuple[str, ...] = (
    "local_agent/__init__.py",
    "local_agent/context/__init__.py",
    "local_agent/server/app.py",
    "local_agent/agent/adk_router.py",
    "local_agent/app.py",
    "local_agent/listings/data/places.csv",
    "local_agent/listings/data/events.csv",
    "local_agent/language/data/places.json",
    "local_agent/listings/data/listings.toml",
)
FORBIDDEN_PATTERNS: tuple[str, ...] = (
    ".git",
    ".git/*",
    "*/.git/*",
    ".env",
    ".env.*",
    "*/.env",
    "*/.env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*credentials*.json",
    "*service-account*.json",
    "out/*",
    "var/*",
    "*__pycache__*",
    "*.pyc",
    ".venv/*",
    ".pytest_cache/*",
    ".ruff_cache/*",
    ".hypothesis/*",
    "*.sqlite3*",
    "*.db",
)
PINNED = ("google-adk", "google-genai")


class ExportError(Exception):
    pass


def forbidden(rel: str) -> bool:
    return any(fnmatch.fnmatch(rel, pattern) for pattern in FORBIDDEN_PATTERNS)


def check_inside(root: Path, rel: str) -> None:
    """Refuse ``rel`` if any part of its path below ``root`` is a symlink, or if it resolves
    outside ``root`` (the copy would follow the link and export what it points to)."""
    path = root
    for part in Path(rel).parts:
        path = path / part
        if path.is_symlink():
            raise ExportError(f"refusing to export a symlink: {path.relative_to(root).as_posix()}")
    if not (root / rel).resolve().is_relative_to(root.resolve()):
        raise ExportError(f"refusing to export a path outside the tree: {rel}")


def collect(root: Path = ROOT) -> list[str]:
    files: list[str] = []
    for rel in WHITELIST_FILES:
        if not (root / rel).is_file():
            raise ExportError(f"whitelisted file is missing: {rel}")
        files.append(rel)
    for package in WHITELIST_PACKAGES:
        base = root / package
        if not base.is_dir():
            raise ExportError(f"whitelisted package is missing: {package}/")
        found = {p for pattern in PACKAGE_DATA for p in base.rglob(pattern) if p.is_file()}
        for path in sorted(found):
            rel = path.relative_to(root).as_posix()
            if any(rel == ex or rel.startswith(ex + "/") for ex in EXCLUDED_PACKAGES) or forbidden(rel):
                continue
            files.append(rel)
    for rel in REQUIRED_IN_PACKAGES:
        if rel not in files:
            raise ExportError(f"whitelisted file is missing: {rel}")
    for rel in files:
        if forbidden(rel):
            raise ExportError(f"refusing to export a forbidden path: {rel}")
        check_inside(root, rel)
    return sorted(set(files))


def pinned_versions(root: Path = ROOT) -> dict[str, str]:
    text = (root / "requirements.lock").read_text(encoding="utf-8")
    found = {m.group(1): m.group(2) for m in re.finditer(r"^([A-Za-z0-9_.-]+)==([^\s#]+)", text, re.M)}
    missing = [name for name in PINNED if name not in found]
    if missing:
        raise ExportError(f"requirements.lock must pin {', '.join(missing)}")
    return {name: found[name] for name in PINNED}


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export(out: Path, root: Path = ROOT) -> dict:
    out = out.resolve()
    root = root.resolve()
    if out == root or out in root.parents:
        raise ExportError("--out must not be the source tree or one of its parents")
    if root in out.parents and out.relative_to(root).parts[0] != "out":
        raise ExportError("--out inside the source tree must be under out/")
    if out.exists() and (
        not out.is_dir() or (any(out.iterdir()) and not (out / "SOURCE_MANIFEST.json").is_file())
    ):
        raise ExportError(
            "--out exists and is not an earlier export (no SOURCE_MANIFEST.json); refusing to replace it"
        )
    files = collect(root)
    versions = pinned_versions(root)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    entries = []
    for rel in files:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target, follow_symlinks=False)
        entries.append({"path": rel, "size": target.stat().st_size, "sha256": sha256_of(target)})
    manifest = {
        "entry_point": ENTRY_POINT,
        "pinned_versions": versions,
        "file_count": len(entries),
        "files": entries,
    }
    text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (out / "SOURCE_MANIFEST.json").write_text(text, encoding="utf-8")
    manifest["manifest_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return manifest


def verify(out: Path) -> list[str]:
    """Problems found re-hashing an export (empty when it is intact and has nothing extra)."""
    manifest = json.loads((out / "SOURCE_MANIFEST.json").read_text(encoding="utf-8"))
    problems = []
    listed = {e["path"] for e in manifest["files"]}
    for entry in manifest["files"]:
        path = out / entry["path"]
        if not path.is_file():
            problems.append(f"missing: {entry['path']}")
        elif path.stat().st_size != entry["size"] or sha256_of(path) != entry["sha256"]:
            problems.append(f"changed: {entry['path']}")
    for path in out.rglob("*"):
        rel = path.relative_to(out).as_posix()
        if path.is_file() and rel != "SOURCE_MANIFEST.json" and rel not in listed:
            problems.append(f"not in manifest: {rel}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="directory to (re)create")
    args = parser.parse_args(argv)
    try:
        manifest = export(args.out)
    except ExportError as exc:
        print(f"build_context: {exc}", file=sys.stderr)
        return 2
    print(f"exported {manifest['file_count']} files to {args.out}")
    print(f"entry point {manifest['entry_point']}; pinned {manifest['pinned_versions']}")
    print(f"SOURCE_MANIFEST.json sha256 {manifest['manifest_sha256']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
