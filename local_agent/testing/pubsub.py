"""The Pub/Sub side for tests and benchmarks: push envelopes, the emulator, a round-robin front.

* ``push_envelope`` is what Pub/Sub POSTs to a push endpoint, around one message.
* ``PubsubEmulator`` starts the official emulator (the Cloud SDK's ``platform/pubsub-emulator``,
  a Java server) on a free loopback port and stops it; ``find_emulator`` says why it cannot.
* ``RoundRobinFront`` is a loopback HTTP front that spreads requests over several backends in
  turn, as Cloud Run's front end spreads requests over instances; a backend that refuses the
  connection (a dead instance) is skipped.
* ``setup_rest`` creates a topic and an ordered push subscription over the emulator's REST API.

Standard library only.
"""

from __future__ import annotations

import base64
import http.client
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from local_agent.testing.loopback import LoopbackServer

HOST = "127.0.0.1"
EMULATOR_RELATIVE = Path("platform/pubsub-emulator/bin/cloud-pubsub-emulator")
READY_TIMEOUT_S = 60.0


def push_envelope(
    data: bytes, *, message_id: str | None = None, subscription: str = "projects/p/subscriptions/s"
) -> bytes:
    """A push request body as Pub/Sub sends it (both spellings of the id and time fields)."""
    message_id = message_id or str(uuid.uuid4().int % 10**16)
    when = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    message = {
        "attributes": {},
        "data": base64.b64encode(data).decode("ascii"),
        "messageId": message_id,
        "message_id": message_id,
        "publishTime": when,
        "publish_time": when,
    }
    return json.dumps({"message": message, "subscription": subscription}).encode("utf-8")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def find_emulator() -> Path | str:
    """The emulator's start script, or why there is none."""
    if shutil.which("java") is None:
        return "java is not on PATH"
    gcloud = shutil.which("gcloud")
    if gcloud is None:
        return "gcloud is not on PATH (no Cloud SDK root)"
    script = Path(os.path.realpath(gcloud)).parent.parent / EMULATOR_RELATIVE
    if not script.is_file():
        return f"{script} is missing (gcloud components install pubsub-emulator)"
    return script


@dataclass
class PubsubEmulator:
    """A running emulator; ``endpoint`` is what ``PUBSUB_EMULATOR_HOST`` holds."""

    port: int
    process: subprocess.Popen[bytes]
    log_path: str
    startup_seconds: float

    @property
    def endpoint(self) -> str:
        return f"{HOST}:{self.port}"

    @classmethod
    def start(cls, script: Path, log_dir: str) -> PubsubEmulator | str:
        port = free_port()
        log_path = os.path.join(log_dir, f"pubsub-{port}.log")
        started = time.monotonic()
        with open(log_path, "wb") as log:
            # Its own process group: the script hands over to java, and stop() ends both.
            process = subprocess.Popen(
                [str(script), f"--host={HOST}", f"--port={port}"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        emulator = cls(port, process, log_path, 0.0)
        while time.monotonic() - started < READY_TIMEOUT_S:
            if process.poll() is not None:
                break
            if emulator.ready():
                emulator.startup_seconds = time.monotonic() - started
                return emulator
            time.sleep(0.2)
        emulator.stop()
        tail = Path(log_path).read_text(encoding="utf-8", errors="replace")[-1500:]
        return f"pubsub emulator on port {port} not ready within {READY_TIMEOUT_S:.0f} s; log:\n{tail}"

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://{self.endpoint}/", timeout=1) as response:
                return response.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(timeout=10)


def _rest(
    host: str, method: str, path: str, body: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = urllib.request.Request(
        f"http://{host}/v1/{path}", data=data, method=method, headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def setup_rest(
    host: str, project: str, topic: str, subscription: str, push_endpoint: str, *, ack_deadline: int = 60
) -> None:
    """Topic and ordered push subscription on the emulator (no dead-letter policy: the emulator's
    dead-lettering on ordered subscriptions stops all pushes). 409 = already there."""
    status, _ = _rest(host, "PUT", f"projects/{project}/topics/{topic}", {})
    assert status in (200, 409), status
    spec = {
        "topic": f"projects/{project}/topics/{topic}",
        "pushConfig": {"pushEndpoint": push_endpoint},
        "ackDeadlineSeconds": ack_deadline,
        "enableMessageOrdering": True,
    }
    status, _ = _rest(host, "PUT", f"projects/{project}/subscriptions/{subscription}", spec)
    assert status in (200, 409), status


def delete_subscription(host: str, project: str, subscription: str) -> None:
    _rest(host, "DELETE", f"projects/{project}/subscriptions/{subscription}")


# -- the round-robin front -----------------------------------------------------------------------

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host"}


@dataclass
class _Backends:
    ports: list[int]
    timeout: float
    _turn: itertools.count[int] = field(default_factory=itertools.count)
    counts: dict[int, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def order(self) -> list[int]:
        with self.lock:
            start = next(self._turn) % len(self.ports)
        return self.ports[start:] + self.ports[:start]


class _FrontHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        return

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass  # the client (the emulator, a test) went away: nothing to answer

    def _forward(self) -> None:
        backends: _Backends = self.server.backends  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        for port in backends.order():
            try:
                status, reply, content_type = _send(
                    port, self.command, self.path, body, headers, backends.timeout
                )
            except ConnectionRefusedError:
                continue  # a dead instance: the front routes to a living one
            except OSError:
                status, reply, content_type = 502, b'{"error":"backend failed"}', "application/json"
            with backends.lock:
                backends.counts[port] = backends.counts.get(port, 0) + 1
            self._answer(status, reply, content_type)
            return
        self._answer(503, b'{"error":"no backend"}', "application/json")

    def _answer(self, status: int, body: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_POST = _forward
    do_GET = _forward


def _send(
    port: int, method: str, path: str, body: bytes, headers: dict[str, str], timeout: float
) -> tuple[int, bytes, str]:
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("Content-Type", "application/json")
    finally:
        connection.close()


class RoundRobinFront(LoopbackServer):
    """``base_url`` spreads each request to the next backend port in turn (skipping refused ones)."""

    def __init__(self, ports: list[int], *, timeout: float = 120.0) -> None:
        self.backends = _Backends(list(ports), timeout)

    def start(self) -> RoundRobinFront:
        server = self._serve(_FrontHandler, name="round-robin-front")
        server.backends = self.backends  # type: ignore[attr-defined]
        return self

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"


__all__ = [
    "PubsubEmulator",
    "RoundRobinFront",
    "delete_subscription",
    "find_emulator",
    "free_port",
    "push_envelope",
    "setup_rest",
]
