"""Faults over real processes: the production uvicorn command (header deadlines, 6 s graceful
limit) serving the app, the fake LINE API (sometimes slow), and Firestore through the official
emulator, through a relay the test cuts and restores, or at an address where nothing listens.

What each test shows: no acknowledged event is left unanswered (store outage, SIGTERM mid-burst);
503 while the store is unreachable at ack time; ``/healthz`` leaves ``ok`` within seconds of an
outage and returns after recovery; exit within Cloud Run's 10 s of SIGTERM with slow connections
open; one flooding chat does not delay another chat's answer.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers_app import SECRET, TOKEN
from multiproc import FRESH_CONNECTIONS, HOST, ServerProcess, base_env
from tcp_proxy import TcpRelay

from local_agent.line.client import retry_key_for
from local_agent.replies.render import POLITE_FAILURE
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CLOUD_RUN_GRACE = 10.0  # seconds between SIGTERM and SIGKILL
SIGTERM_AFTER = 3.0  # seconds into the burst
FOOD = "花壇鄉有什麼好吃的？"


def production_flags() -> list[str]:
    """The uvicorn flags of the Dockerfile's CMD (so the tests run what ships)."""
    cmd = next(line for line in (REPO / "Dockerfile").read_text().splitlines() if line.startswith("CMD"))
    words = json.loads(cmd[3:].strip())[-1].split()
    start = words.index("--http")
    return words[start:]


class ProductionServer(ServerProcess):
    """The app under the Dockerfile's uvicorn flags; ready when ``/livez`` answers."""

    def command(self) -> list[str]:
        return [*super().command(), *production_flags()]

    def healthy(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/livez", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def health(self) -> tuple[int, dict[str, Any]]:
        response = httpx.get(f"{self.base_url}/healthz", timeout=5)
        return response.status_code, response.json()

    def wait_health(self, predicate: Callable[[int, dict[str, Any]], bool], timeout: float) -> float:
        """Seconds until ``predicate(status, body)`` holds; fails the test after ``timeout``."""
        started = time.monotonic()
        last: tuple[int, dict[str, Any]] = (0, {})
        while time.monotonic() - started < timeout:
            last = self.health()
            if predicate(*last):
                return time.monotonic() - started
            time.sleep(0.2)
        raise AssertionError(f"/healthz did not reach the state within {timeout} s: {last}")

    def logs(self) -> list[dict[str, Any]]:
        rows = []
        for line in self.stdout().splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
        return rows

    def lost_at_shutdown(self) -> int:
        rows = [r for r in self.logs() if r.get("message") == "shutdown accounting"]
        assert rows, self.stdout()[-3000:]
        return int(rows[-1]["events_lost"])


@pytest.fixture
def line() -> Iterator[FakeLineApi]:
    fake = FakeLineApi(access_token=TOKEN).start()
    yield fake
    fake.stop()


def server_env(line: FakeLineApi, **extra: str) -> dict[str, str]:
    common = dict(
        LINE_CHANNEL_SECRET=SECRET,
        LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
        LINE_API_HOST=line.base_url,
        LOCAL_MODEL="offline",
        LOCAL_LOG_LEVEL="INFO",
    )
    common.update(extra)
    return base_env(**common)


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], ProductionServer]]:
    started: list[ProductionServer] = []

    def start(env: dict[str, str]) -> ProductionServer:
        server = ProductionServer(f"s{len(started)}", env, tmp_path)
        started.append(server)
        server.start().wait_ready(90)
        return server

    yield start
    for server in started:
        server.stop()


def user(n: int) -> str:
    return f"U{n:032x}"


async def post_all(url: str, bodies: Sequence[tuple[bytes, dict[str, str]]]) -> list[int]:
    """POST every body concurrently; the status of each (0 when the connection failed)."""
    async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:

        async def one(body: bytes, headers: dict[str, str]) -> int:
            try:
                return (await client.post(f"{url}/callback", content=body, headers=headers)).status_code
            except httpx.HTTPError:
                return 0

        return list(await asyncio.gather(*(one(b, h) for b, h in bodies)))


def answers(line: FakeLineApi, events: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Event id → texts delivered for it (reply by its token, or push under its retry key)."""
    by_token = {e["replyToken"]: e["webhookEventId"] for e in events}
    by_key = {retry_key_for(e["webhookEventId"]): e["webhookEventId"] for e in events}
    found: dict[str, list[str]] = {}
    for request in line.replies() + line.pushes():
        event_id = by_token.get(request.body.get("replyToken", "")) or by_key.get(
            request.headers.get("x-line-retry-key", "")
        )
        if event_id:
            texts = [m.get("text", "") for m in request.body.get("messages", []) if m.get("type") == "text"]
            found.setdefault(event_id, []).extend(texts)
    return found


def wait_answered(
    line: FakeLineApi, events: Sequence[dict[str, Any]], timeout: float
) -> dict[str, list[str]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = answers(line, events)
        if len(found) == len(events):
            return found
        time.sleep(0.1)
    return answers(line, events)


def terminate_within_grace(server: ProductionServer) -> float:
    rc, seconds = server.terminate(timeout=30)
    assert rc is not None and rc in (0, -signal.SIGTERM), server.stderr()[-2000:]
    assert seconds < CLOUD_RUN_GRACE, f"exit took {seconds:.1f} s after SIGTERM"
    assert "Traceback" not in server.stderr() + server.stdout()
    return seconds


# -- 1. store unreachable ----------------------------------------------------------------------


@pytest.fixture
def refused_address() -> Iterator[str]:
    """A loopback address that refuses connections for the whole test: the port stays bound (so no
    server started meanwhile can be given it) but never listens."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind((HOST, 0))
    try:
        yield f"{HOST}:{holder.getsockname()[1]}"
    finally:
        holder.close()


def test_unreachable_firestore_apologises_for_every_acked_event_then_answers_503(
    line: FakeLineApi,
    launch: Callable[[dict[str, str]], ProductionServer],
    capsys: pytest.CaptureFixture,
    refused_address: str,
) -> None:
    nothing_listens = refused_address
    server = launch(
        server_env(
            line,
            LOCAL_STORE="firestore",
            GOOGLE_CLOUD_PROJECT="test-unreachable",
            FIRESTORE_EMULATOR_HOST=nothing_listens,
            LOCAL_STORE_DEADLINE_SECONDS="2",
            LOCAL_INBOX="no",  # the memory-only mode: with the inbox its write fails first (503)
        )
    )
    events = [W.text_event(user(i), FOOD) for i in range(10)]
    started = time.monotonic()
    statuses = asyncio.run(post_all(server.base_url, [W.signed(SECRET, e) for e in events]))
    acked = [e for e, s in zip(events, statuses, strict=True) if s == 200]
    assert all(s in (200, 503) for s in statuses), statuses
    assert acked, "the store's state was not known yet, so the first events are accepted"
    found = wait_answered(line, acked, timeout=30)
    answered_in = time.monotonic() - started
    assert set(found) == {e["webhookEventId"] for e in acked}, "an acknowledged event got no answer"
    assert all(texts == [POLITE_FAILURE] for texts in found.values())
    assert answered_in < 20, "the apology comes within the store deadlines, not minutes later"

    unavailable_in = server.wait_health(
        lambda code, body: code == 503 and body["status"] == "unavailable", 20
    )
    late = W.text_event(user(99), FOOD)
    body, headers = W.signed(SECRET, late)
    response = httpx.post(f"{server.base_url}/callback", content=body, headers=headers, timeout=10)
    assert response.status_code == 503 and response.json()["error"] == "store unavailable"
    assert httpx.get(f"{server.base_url}/livez", timeout=5).status_code == 200  # no restart for this

    seconds = terminate_within_grace(server)
    assert server.lost_at_shutdown() == 0
    with capsys.disabled():
        print(
            f"\n[faults] unreachable store: {len(acked)}/10 acked, all apologised within {answered_in:.1f} s;"
            f" /healthz unavailable {unavailable_in:.1f} s later; exit {seconds:.1f} s after SIGTERM"
        )


# -- 2. outage and recovery through the emulator -------------------------------------------------


def test_firestore_outage_and_recovery_through_the_official_emulator(
    line: FakeLineApi,
    launch: Callable[[dict[str, str]], ProductionServer],
    firestore_emulator: Any,
    firestore_project: str,
    capsys: pytest.CaptureFixture,
) -> None:
    host, port = firestore_emulator.endpoint.rsplit(":", 1)
    relay = TcpRelay((host, int(port)))
    try:
        server = launch(
            server_env(
                line,
                LOCAL_STORE="firestore",
                GOOGLE_CLOUD_PROJECT=firestore_project,
                FIRESTORE_EMULATOR_HOST=relay.address,
                LOCAL_STORE_DEADLINE_SECONDS="4",
                LOCAL_INBOX="no",  # the memory-only mode: the dedupe claim after the 200
            )
        )
        warm, before, during, after = (W.text_event(user(i), FOOD) for i in (0, 1, 2, 3))

        def send(event: dict[str, Any]) -> int:
            body, headers = W.signed(SECRET, event)
            return httpx.post(
                f"{server.base_url}/callback", content=body, headers=headers, timeout=10
            ).status_code

        assert send(warm) == 200  # the first call opens the gRPC channel; on a busy machine it may be slow
        assert wait_answered(line, [warm], 30)
        server.wait_health(lambda code, body: body["status"] == "ok", 30)
        assert send(before) == 200
        assert wait_answered(line, [before], 20)[before["webhookEventId"]] != [POLITE_FAILURE]
        assert server.health()[0] == 200

        relay.cut()
        cut_at = time.monotonic()
        assert send(during) == 200  # the store looked fine a moment ago
        assert wait_answered(line, [during], 20)[during["webhookEventId"]] == [POLITE_FAILURE]
        not_ok_in = server.wait_health(lambda code, body: body["status"] != "ok", 10)
        unavailable_in = server.wait_health(lambda code, body: code == 503, 25)
        assert send(W.text_event(user(4), FOOD)) == 503

        relay.restore()
        restored_at = time.monotonic()
        serving_in = server.wait_health(lambda code, body: code == 200, 15)
        ok_in = server.wait_health(lambda code, body: body["status"] == "ok", 30)
        assert send(after) == 200
        assert wait_answered(line, [after], 20)[after["webhookEventId"]] != [POLITE_FAILURE]
        terminate_within_grace(server)
        assert server.lost_at_shutdown() == 0
    finally:
        relay.stop()

    from local_agent.stores.firestore import FirestoreStore

    store = FirestoreStore(project=firestore_project)
    try:
        written = set(store.journal_rows())
    finally:
        store.close()
    scope = lambda e: W.scope_of(e["source"]["userId"]).storage_id  # noqa: E731
    assert scope(before) in written and scope(after) in written
    assert scope(during) not in written, "the apologised turn wrote context"
    with capsys.disabled():
        print(
            f"\n[faults] emulator outage: /healthz not ok {not_ok_in:.1f} s after the first failed turn,"
            f" 503 {unavailable_in:.1f} s after that ({restored_at - cut_at:.0f} s cut in all);"
            f" after restore: 200 in {serving_in:.1f} s, ok {ok_in:.1f} s after that"
        )


# -- 3. SIGTERM in the middle of a burst -------------------------------------------------------


def test_sigterm_mid_burst_answers_every_acknowledged_event_within_the_grace_period(
    line: FakeLineApi,
    launch: Callable[[dict[str, str]], ProductionServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
) -> None:
    # The memory-only mode, whose admission keeps the backlog at what the drain can finish (with the
    # inbox the rest waits for the next start instead: tests/test_inbox_processes.py).
    server = launch(
        server_env(
            line, LOCAL_STORE="sqlite", LOCAL_SQLITE_PATH=str(tmp_path / "s.sqlite3"), LOCAL_INBOX="no"
        )
    )
    line.delay_next("/message/reply", 0.1, times=100_000)  # a slow LINE API: turns hold their slots
    events = [W.text_event(user(1000 + i % 60), FOOD) for i in range(600)]
    statuses: list[int] = []

    async def burst() -> None:
        async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:

            async def one(event: dict[str, Any]) -> int:
                body, headers = W.signed(SECRET, event)
                try:
                    return (
                        await client.post(f"{server.base_url}/callback", content=body, headers=headers)
                    ).status_code
                except httpx.HTTPError:
                    return 0

            for start in range(0, len(events), 20):  # 20 every 0.1 s, without waiting for answers
                batch = asyncio.gather(*(one(e) for e in events[start : start + 20]))
                await asyncio.sleep(0.1)
                statuses.extend(await batch)

    killer = threading.Timer(SIGTERM_AFTER, lambda: server.proc.send_signal(signal.SIGTERM))  # type: ignore[union-attr]
    started = time.monotonic()
    killer.start()
    asyncio.run(burst())
    rc = server.proc.wait(timeout=30)  # type: ignore[union-attr]
    seconds = time.monotonic() - started - SIGTERM_AFTER
    assert rc in (0, -signal.SIGTERM)
    assert seconds < CLOUD_RUN_GRACE, f"exit took {seconds:.1f} s after SIGTERM"
    acked = [e for e, s in zip(events, statuses, strict=True) if s == 200]
    refused = sum(1 for s in statuses if s == 503)
    assert acked, "the burst started before SIGTERM"
    found = answers(line, acked)
    missing = len(acked) - len(found)
    assert missing == 0, f"{missing} acknowledged events were never answered"
    assert server.lost_at_shutdown() == 0
    with capsys.disabled():
        print(
            f"\n[faults] SIGTERM mid-burst: 600 offered, {len(acked)} acked, {refused} answered 503,"
            f" {len(statuses) - len(acked) - refused} refused connections; all acked answered;"
            f" exit {seconds:.1f} s after SIGTERM"
        )


# -- 4. slow clients ---------------------------------------------------------------------------


def _slow_client(port: int, payload: bytes) -> socket.socket:
    sock = socket.create_connection((HOST, port), timeout=15)
    sock.sendall(payload)
    return sock


def _read_status(sock: socket.socket) -> str:
    try:
        data = sock.recv(4096)
    except OSError:
        return ""
    return data.split(b"\r\n", 1)[0].decode("latin-1")


def test_slow_clients_get_408_and_cannot_hold_shutdown_past_the_grace_period(
    line: FakeLineApi,
    launch: Callable[[dict[str, str]], ProductionServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
) -> None:
    server = launch(
        server_env(
            line,
            LOCAL_STORE="sqlite",
            LOCAL_SQLITE_PATH=str(tmp_path / "s.sqlite3"),
            LOCAL_BODY_TIMEOUT_SECONDS="2",
        )
    )
    head_only = b"POST /callback HTTP/1.1\r\nHost: x\r\n"  # the head never ends
    body_slow = b'POST /callback HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"events"'
    started = time.monotonic()
    slow_head, slow_body = _slow_client(server.port, head_only), _slow_client(server.port, body_slow)
    assert _read_status(slow_body).startswith("HTTP/1.1 408")
    body_seconds = time.monotonic() - started
    assert _read_status(slow_head).startswith("HTTP/1.1 408")
    head_seconds = time.monotonic() - started
    # lower bounds: each deadline held; upper: it ended there (roomy for a loaded 2-core machine)
    assert 1.5 < body_seconds < 4.5 and 4 < head_seconds < 12
    slow_head.close()
    slow_body.close()

    # Twenty slow connections open, and a turn in flight, when SIGTERM arrives.
    holders = [_slow_client(server.port, head_only if i % 2 else body_slow) for i in range(20)]
    event = W.text_event(user(7), FOOD)
    body, headers = W.signed(SECRET, event)
    assert (
        httpx.post(f"{server.base_url}/callback", content=body, headers=headers, timeout=10).status_code
        == 200
    )
    try:
        seconds = terminate_within_grace(server)
    finally:
        for sock in holders:
            sock.close()
    assert event["webhookEventId"] in answers(line, [event])
    assert server.lost_at_shutdown() == 0
    with capsys.disabled():
        print(
            f"\n[faults] slow clients: body 408 after {body_seconds:.1f} s, head 408 after {head_seconds:.1f} s;"
            f" exit {seconds:.1f} s after SIGTERM with 20 slow connections open"
        )


# -- 5. fairness -------------------------------------------------------------------------------


def test_one_flooding_chat_does_not_delay_another_chats_answer(
    line: FakeLineApi,
    launch: Callable[[dict[str, str]], ProductionServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
) -> None:
    server = launch(server_env(line, LOCAL_STORE="sqlite", LOCAL_SQLITE_PATH=str(tmp_path / "s.sqlite3")))
    line.delay_next("/message/reply", 0.2, times=100_000)  # each of the flood's turns holds its slot
    flood = [W.text_event(user(1), f"{FOOD}{i}") for i in range(200)]
    statuses = asyncio.run(post_all(server.base_url, [W.signed(SECRET, e) for e in flood]))
    flood_acked = [e for e, s in zip(flood, statuses, strict=True) if s == 200]
    assert 0 < len(flood_acked) <= 20 and statuses.count(503) == 200 - len(flood_acked), statuses

    other = W.text_event(user(2), FOOD)
    body, headers = W.signed(SECRET, other)
    sent = time.monotonic()
    assert (
        httpx.post(f"{server.base_url}/callback", content=body, headers=headers, timeout=10).status_code
        == 200
    )
    assert wait_answered(line, [other], 10).get(other["webhookEventId"]), "the other chat got no answer"
    other_seconds = time.monotonic() - sent
    assert other_seconds < 5.0  # not queued behind the flood's turns
    assert len(wait_answered(line, flood_acked, 60)) == len(flood_acked)
    terminate_within_grace(server)
    assert server.lost_at_shutdown() == 0
    with capsys.disabled():
        print(
            f"\n[faults] flood: 200 from one chat, {len(flood_acked)} accepted, {statuses.count(503)} answered 503;"
            f" another chat answered {other_seconds:.2f} s after its ack"
        )
