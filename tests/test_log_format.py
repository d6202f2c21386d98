"""One log format: under real uvicorn on the production import path, every line on stdout is JSON — the
server's own lines, the app's and the access lines (without query strings or client addresses) — and
the startup line names what serves with fields that say what they hold."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_uvicorn_and_the_app_log_the_same_json(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LINE_", "LOCAL_", "GOOGLE_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        LINE_CHANNEL_SECRET="0123456789abcdef-log-format-secret",
        LINE_CHANNEL_ACCESS_TOKEN="log-format-access-token-ABCDEFG",
        LOCAL_SQLITE_PATH=str(tmp_path / "local.sqlite3"),
    )
    args = [
        sys.executable,
        "-m",
        "uvicorn",
        "examples.day15.main:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(
        args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/livez?who=0912345678", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            pytest.fail("uvicorn did not answer /livez")
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=60)
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]  # every line is JSON
    loggers = {entry["logger"] for entry in lines}
    assert {"uvicorn.error", "uvicorn.access", "local_agent.webhook"} <= loggers, out
    access = [e for e in lines if e["logger"] == "uvicorn.access"]
    assert access[-1]["http_path"] == "/livez" and access[-1]["http_status"] == 200
    assert "0912345678" not in out and "127.0.0.1:" not in json.dumps(access)
    (started,) = [e for e in lines if e["message"] == "service started"]
    assert (started["model"], started["store"], started["listings_source"]) == (
        "offline",
        "sqlite",
        "shipped teaching snapshot",
    )
    assert started["listings_rows"] == 84 and started["budget_unit"] == "bytes"
    assert not {"count", "status", "kind"} & set(started)
