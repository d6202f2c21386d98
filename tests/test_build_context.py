"""The whitelisted export: hashes, refusals, and the Dockerfile's own install + start steps."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import tomllib
import venv
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from examples.day15 import build_context as bc
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi

ROOT = Path(__file__).resolve().parents[1]


def test_export_copies_only_the_whitelist_and_every_hash_verifies(tmp_path):
    out = tmp_path / "ctx"
    manifest = bc.export(out)
    assert manifest["entry_point"] == "examples.day15.main:app"
    assert manifest["pinned_versions"] == {"google-adk": "2.13.0", "google-genai": "2.34.0"}
    paths = {e["path"] for e in manifest["files"]}
    assert {
        "Dockerfile",
        "requirements.lock",
        "examples/day15/main.py",
        "local_agent/server/app.py",
    } <= paths
    assert not any(p.startswith(("tests/", "bench/", "local_agent/testing/", ".git")) for p in paths)
    assert bc.verify(out) == []
    (out / "local_agent" / "agent" / "adk_router.py").write_text("tampered", encoding="utf-8")
    (out / "stray.txt").write_text("x", encoding="utf-8")
    problems = bc.verify(out)
    assert "changed: local_agent/agent/adk_router.py" in problems
    assert "not in manifest: stray.txt" in problems


def _fake_root(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    for rel in bc.WHITELIST_FILES + bc.REQUIRED_IN_PACKAGES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n", encoding="utf-8")
    (root / "requirements.lock").write_text("google-adk==2.9.1\ngoogle-genai==2.23.0\n", encoding="utf-8")
    return root


def test_secrets_caches_and_unlisted_files_never_leave_the_tree(tmp_path):
    root = _fake_root(tmp_path)
    (root / ".env").write_text("LINE_CHANNEL_SECRET=real", encoding="utf-8")
    (root / "local_agent" / ".env.py").write_text("SECRET = 1", encoding="utf-8")
    (root / "local_agent" / "__pycache__").mkdir()
    (root / "local_agent" / "__pycache__" / "x.py").write_text("", encoding="utf-8")
    (root / "local_agent" / "testing").mkdir()
    (root / "local_agent" / "testing" / "fake.py").write_text("", encoding="utf-8")
    (root / "notes.py").write_text("", encoding="utf-8")
    files = bc.collect(root)
    assert all(not f.endswith(".env.py") and "__pycache__" not in f and "testing" not in f for f in files)
    assert "notes.py" not in files and ".env" not in files


def test_a_missing_whitelisted_file_fails_with_its_name(tmp_path, capsys):
    root = _fake_root(tmp_path)
    (root / "examples" / "day15" / "main.py").unlink()
    with pytest.raises(bc.ExportError, match="examples/day15/main.py"):
        bc.collect(root)


def _lock_entries(text: str) -> dict[str, tuple[str, list[str], list[str]]]:
    """name → (version, hashes, via) of each ``name==version`` block of a uv/pip-tools lock."""
    entries: dict[str, tuple[str, list[str], list[str]]] = {}
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    for block in blocks:
        head = re.match(r"([A-Za-z0-9_.\[\]-]+)==([^\s\\]+)", block)
        assert head, f"not a pinned requirement: {block[:80]!r}"
        via = re.findall(r"^\s+#\s+(?:via\s+)?([A-Za-z0-9_.\[\]-]+)\s*$", block, re.M)
        name = canonicalize_name(head.group(1).split("[")[0])
        entries[name] = (head.group(2), re.findall(r"--hash=sha256:([0-9a-f]{64})", block), via)
    return entries


def test_the_lock_matches_pyproject_and_hashes_every_package():
    """requirements.lock is ``uv pip compile`` output for pyproject's runtime dependencies plus
    the firestore and pubsub extras: each of them is pinned at a version its specifier allows, every pinned
    package is reached from pyproject (its ``via`` chain), and every pin carries hashes. After a
    change of dependencies, run the command in the lock's header (with uv installed anywhere)."""
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    header = text.splitlines()[1]
    assert "uv pip compile pyproject.toml --extra firestore --extra pubsub --generate-hashes" in header
    entries = _lock_entries(text)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [
        Requirement(r)
        for r in project["dependencies"]
        + project["optional-dependencies"]["firestore"]
        + project["optional-dependencies"]["pubsub"]
    ]
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in entries, f"{name} is in pyproject.toml but not in the lock: regenerate it"
        version = entries[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{name}=={version} vs {requirement}"
        )
    direct = {canonicalize_name(r.name) for r in wanted}
    reached = set(direct)
    changed = True
    while changed:  # a package is reached when something reached pulls it in
        changed = False
        for name, (_, _, via) in entries.items():
            if name not in reached and any(canonicalize_name(v) in reached for v in via):
                reached.add(name)
                changed = True
    assert set(entries) == reached, f"pinned but not needed by pyproject: {sorted(set(entries) - reached)}"
    assert all(hashes for _, hashes, _ in entries.values())


def test_the_lock_check_fails_on_a_stale_lock(tmp_path):
    stale = (
        "# header\n#    cmd\nfastapi==0.1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via local-agent\n"
    )
    entries = _lock_entries(stale)
    assert entries["fastapi"][0] == "0.1.0"
    assert not Requirement("fastapi>=0.115").specifier.contains("0.1.0")


def test_the_dockerfile_pins_its_base_by_digest_and_installs_only_the_hashed_lock():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    bases = re.findall(r"^FROM (\S+)", dockerfile, re.M)
    assert bases and all(re.fullmatch(r"[\w./:-]+@sha256:[0-9a-f]{64}", b) for b in bases), bases
    installs, _ = _dockerfile_steps(dockerfile)
    assert installs == ["pip install --require-hashes --no-deps -r requirements.lock"]


def test_symlinks_and_paths_outside_the_tree_are_refused(tmp_path):
    root = _fake_root(tmp_path)
    key = tmp_path / "outside" / "service-key.txt"
    key.parent.mkdir()
    key.write_text("PRIVATE KEY", encoding="utf-8")
    link = root / "local_agent" / "innocent.py"
    link.symlink_to(key)
    with pytest.raises(bc.ExportError, match="symlink: local_agent/innocent.py"):
        bc.collect(root)
    link.unlink()
    link.symlink_to(root / "local_agent" / "app.py")  # even a link that stays inside
    with pytest.raises(bc.ExportError, match="symlink"):
        bc.collect(root)
    link.unlink()
    (root / "local_agent" / "more").symlink_to(key.parent, target_is_directory=True)
    (root / "Dockerfile").unlink()
    (root / "Dockerfile").symlink_to(key)  # a whitelisted name
    with pytest.raises(bc.ExportError, match="symlink: Dockerfile"):
        bc.export(tmp_path / "ctx", root)
    assert not (tmp_path / "ctx").exists()


def test_a_tree_reached_through_a_symlinked_parent_is_refused_only_below_the_root(tmp_path):
    real = _fake_root(tmp_path)
    alias = tmp_path / "alias"
    alias.symlink_to(real, target_is_directory=True)
    assert "local_agent/app.py" in bc.collect(alias)  # the root itself may be reached by a link


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dockerfile_steps(dockerfile: str) -> tuple[list[str], list[str]]:
    """The pip install commands (RUN pip ...) and the CMD's shell command, as the image runs them."""
    installs = [m.group(1) for m in re.finditer(r"^RUN (pip install [^\n]+)$", dockerfile, re.M)]
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", dockerfile, re.M).group(1))
    assert cmd[:2] == ["sh", "-c"]
    return installs, shlex.split(cmd[2].replace("exec ", "", 1))


@pytest.mark.slow
def test_the_export_installs_and_serves_a_signed_webhook_as_the_dockerfile_says(tmp_path):
    started = time.perf_counter()
    out = tmp_path / "cloud-context"
    bc.export(out)
    assert bc.verify(out) == []
    dockerfile = (out / "Dockerfile").read_text(encoding="utf-8")
    assert "FROM python:3.11.13-slim-bookworm@sha256:" in dockerfile and "USER local" in dockerfile
    assert "PYTHONUNBUFFERED=1" in dockerfile
    installs, command = _dockerfile_steps(dockerfile)
    assert installs == ["pip install --require-hashes --no-deps -r requirements.lock"]
    assert command[0] == "uvicorn" and command[1] == "examples.day15.main:app"

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    for step in installs:
        subprocess.run(
            [str(py), "-m", *shlex.split(step)], cwd=out, check=True, timeout=900, stdout=subprocess.DEVNULL
        )
    secret, token = "export-test-secret", "export-test-token"
    with FakeLineApi(access_token=token).start() as line:
        port = _free_port()  # picked after the fake has bound its own, so the two cannot collide
        args = [("127.0.0.1" if a == "0.0.0.0" else a) for a in command[1:]]
        args = [str(port) if a == "${PORT}" else a for a in args]
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path),
            "PORT": str(port),
            "LINE_CHANNEL_SECRET": secret,
            "LINE_CHANNEL_ACCESS_TOKEN": token,
            "LINE_API_HOST": line.base_url,
            "LOCAL_SQLITE_PATH": str(tmp_path / "var" / "local.sqlite3"),
            "NO_PROXY": "127.0.0.1,localhost",
        }
        server = subprocess.Popen(
            [str(py), "-m", "uvicorn", *args],
            cwd=out,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            else:
                pytest.fail("the exported service did not start")
            body, headers = W.signed(secret, W.text_event("Uexport", "花壇有什麼店推薦吃吃看？"))
            r = httpx.post(f"http://127.0.0.1:{port}/callback", content=body, headers=headers, timeout=10)
            assert r.status_code == 200
            assert line.wait_for_count(1, "reply", timeout=30)
            texts = [m.get("text", "") for m in line.replies()[0].body["messages"]]
            assert any("花壇鄉" in t for t in texts)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"\nexport-install test: {time.perf_counter() - started:.1f} s", file=sys.stderr)


def test_out_that_is_not_an_earlier_export_is_never_deleted(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(bc.ExportError, match="not an earlier export"):
        bc.export(victim)
    assert (victim / "precious.txt").read_text(encoding="utf-8") == "keep me"
    with pytest.raises(bc.ExportError, match="parents"):
        bc.export(ROOT.parent)
    with pytest.raises(bc.ExportError, match="under out/"):
        bc.export(ROOT / "local_agent" / "x")
    again = tmp_path / "ctx"
    bc.export(again)
    bc.export(again)  # an earlier export may be replaced
    assert bc.verify(again) == []


def test_the_fakes_do_not_ship_in_the_image(tmp_path):
    paths = {e["path"] for e in bc.export(tmp_path / "ctx")["files"]}
    assert not any(p.startswith("local_agent/testing/") for p in paths)
    assert "local_agent/server/app.py" in paths


def test_the_export_carries_the_listings_snapshot_and_it_loads_from_there(tmp_path):
    from local_agent.listings.loader import load_listings, shipped_listings

    out = tmp_path / "ctx"
    manifest = bc.export(out)
    paths = {e["path"] for e in manifest["files"]}
    assert {"local_agent/listings/data/places.csv", "local_agent/listings/data/events.csv"} <= paths
    exported = load_listings(out / "local_agent" / "listings" / "data")
    assert (exported.places, exported.events) == (shipped_listings().places, shipped_listings().events)
    # only the declared data: no other non-Python file under the package is taken
    data = ("local_agent/listings/data/", "local_agent/language/data/")
    assert all(p.endswith(".py") or p.startswith(data) for p in paths if "/" in p)
    assert "local_agent/language/data/places.json" in paths


def test_package_data_outside_the_globs_stays_behind(tmp_path):
    root = _fake_root(tmp_path)
    (root / "local_agent" / "listings" / "data" / "draft.xlsx").write_bytes(b"PK")
    (root / "local_agent" / "notes.csv").write_text("a,b\n", encoding="utf-8")
    paths = bc.collect(root)
    assert "local_agent/listings/data/events.csv" in paths
    assert not any(p.endswith(("draft.xlsx", "notes.csv")) for p in paths)


def test_a_missing_listings_file_fails_the_export(tmp_path):
    root = _fake_root(tmp_path)
    (root / "local_agent" / "listings" / "data" / "events.csv").unlink()
    with pytest.raises(bc.ExportError, match="events.csv"):
        bc.collect(root)


def test_the_wheel_declares_the_listings_csvs_and_their_notice_as_package_data():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["tool"]["setuptools"]["package-data"]["local_agent.listings"]
    assert declared == ["data/*.csv", "data/listings.toml"]
    data = ROOT / "local_agent" / "listings" / "data"
    assert {p.name for p in data.iterdir() if p.is_file()} == {"places.csv", "events.csv", "listings.toml"}
