"""A local LINE in two commands: ``python -m local_agent.testing.fake_line_api --port P`` prints what the
service sends it, ``python -m examples.day15.send TEXT --to URL`` signs and posts a text event; and each
one's bad input (no secret, no service, a refusal, a port in use) as a clear message and exit status."""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from helpers_app import SECRET, UvicornHarness

from local_agent.testing.fake_line_api import RecordedRequest, request_line

ROOT = Path(__file__).resolve().parents[1]
ENV_PREFIXES = ("LINE_", "LOCAL_", "GOOGLE_", "FIRESTORE_", "PUBSUB_")
TOKEN = "secret-channel-token-123456"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env.update(PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", **extra)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _send(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "examples.day15.send", *args],
        cwd=tmp_path,  # no .env here
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


class _Fake:
    """The fake LINE API as a process, its stdout read line by line."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "local_agent.testing.fake_line_api", "--port", str(port)],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next_line(self, timeout: float = 30) -> str:
        return self.lines.get(timeout=timeout)


@pytest.fixture
def fake() -> Iterator[_Fake]:
    running = _Fake(_free_port())
    try:
        assert running.next_line().startswith(f"fake LINE API on http://127.0.0.1:{running.port} ")
        assert running.next_line() == f"start the service with LINE_API_HOST=http://127.0.0.1:{running.port}"
        yield running
    finally:
        running.proc.terminate()
        running.proc.wait(timeout=30)


def test_a_request_line_shows_what_a_user_sees_and_never_a_header():
    request = RecordedRequest(
        "/v2/bot/message/reply",
        {"authorization": f"Bearer {TOKEN}"},
        {"replyToken": "rt", "messages": [{"type": "text", "text": "花壇鄉找到\n4 家店家"}]},
        status=200,
    )
    assert request_line(request) == "POST /v2/bot/message/reply -> 200 reply: text「花壇鄉找到 4 家店家」"
    refused = RecordedRequest("/v2/bot/message/push", {}, {}, 401, {"message": "Authentication failed"})
    assert request_line(refused) == "POST /v2/bot/message/push -> 401 Authentication failed"
    late = RecordedRequest(
        "/v2/bot/message/push",
        {},
        {"to": "U1", "messages": [{"type": "text", "text": "抱歉晚回覆了：好", "quoteToken": "qtok-secret"}]},
        status=200,
    )
    shown = request_line(late)
    assert (
        shown
        == "POST /v2/bot/message/push -> 200 push to U1: text「抱歉晚回覆了：好」 quoting the user's message"
    )
    assert "qtok-secret" not in shown


@pytest.mark.slow
def test_the_two_commands_make_a_local_line(tmp_path, fake):
    harness = UvicornHarness(
        tmp_path / "local.sqlite3", settings={"LINE_API_HOST": f"http://127.0.0.1:{fake.port}"}
    )
    harness.start()
    try:
        done = _send(
            tmp_path, "花壇有什麼好吃的", "--to", f"{harness.base_url}/callback", LINE_CHANNEL_SECRET=SECRET
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith(f"to {harness.base_url}/callback: 200 OK")
        assert done.stderr.splitlines() == ["settings: the environment only (no .env in this folder)"]
        lines = [fake.next_line(), fake.next_line()]
    finally:
        harness.stop()
    assert lines[0] == "POST /v2/bot/chat/loading/start -> 202 loading 20 s"
    assert lines[1].startswith("POST /v2/bot/message/reply -> 200 reply: text「花壇鄉找到 ")
    assert "flex「花壇鄉店家：花壇和米素食" in lines[1]
    assert SECRET not in done.stdout + done.stderr


@pytest.mark.slow
def test_the_fake_prints_a_request_without_its_token(fake):
    body = {"replyToken": "rt-1", "messages": [{"type": "text", "text": "你好"}]}
    auth = {"Authorization": f"Bearer {TOKEN}"}
    answer = httpx.post(f"http://127.0.0.1:{fake.port}/v2/bot/message/reply", json=body, headers=auth)
    assert answer.status_code == 200
    assert fake.next_line() == "POST /v2/bot/message/reply -> 200 reply: text「你好」"
    fake.proc.terminate()
    out, err = fake.proc.communicate(timeout=30)
    assert TOKEN not in out + err and fake.proc.returncode == 0


@pytest.mark.slow
def test_the_fakes_port_in_use_is_a_clear_message(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "local_agent.testing.fake_line_api", "--port", str(port)],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"fake_line_api: port {port} on 127.0.0.1 is in use (another fake, or the service itself?); "
        "choose another with --port"
    )


@pytest.mark.slow
def test_send_without_a_secret_sends_nothing(tmp_path):
    done = _send(tmp_path, "你好", "--to", f"http://127.0.0.1:{_free_port()}/callback")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "send: LINE_CHANNEL_SECRET is not set (in the environment or ./.env): "
        "the service's channel secret signs the message"
    )


@pytest.mark.slow
def test_send_to_a_service_that_is_not_running(tmp_path):
    port = _free_port()
    done = _send(tmp_path, "你好", "--to", f"http://127.0.0.1:{port}/callback", LINE_CHANNEL_SECRET=SECRET)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"send: not accepted: nothing answers at http://127.0.0.1:{port}/callback; is the service running? "
        f"(.venv/bin/uvicorn examples.day15.main:app --port {port})"
    )


@pytest.mark.slow
def test_send_answered_other_than_200_says_what_it_answered(tmp_path):
    harness = UvicornHarness(tmp_path / "local.sqlite3")
    harness.start()
    try:
        wrong = _send(
            tmp_path, "你好", "--to", f"{harness.base_url}/callback", LINE_CHANNEL_SECRET="not-the-secret"
        )
        missing = _send(tmp_path, "你好", "--to", f"{harness.base_url}/nowhere", LINE_CHANNEL_SECRET=SECRET)
    finally:
        harness.stop()
    assert wrong.returncode == 1 and missing.returncode == 1
    assert wrong.stderr.splitlines()[-1] == (
        f"send: not accepted: {harness.base_url}/callback answered 400: "
        '{"error":"invalid signature"} (is LINE_CHANNEL_SECRET the service\'s?)'
    )
    assert missing.stderr.splitlines()[-1].startswith(
        f"send: not accepted: {harness.base_url}/nowhere answered 404"
    )


@pytest.mark.slow
def test_send_refuses_a_url_that_is_not_http(tmp_path):
    done = _send(tmp_path, "你好", "--to", "127.0.0.1:8080/callback", LINE_CHANNEL_SECRET=SECRET)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("send: --to must be an http:// or https:// URL")
