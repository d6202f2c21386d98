"""The durable inbox over real uvicorn processes (``LOCAL_QUEUE=inprocess``), on SQLite and on the
Firestore emulator: kill -9 with 40 accepted, unanswered events, then a restart on the same store
(each answered exactly once); SIGTERM with a backlog beyond the drain, then a restart (the same);
a burst of 200 events at a cold start (all accepted, each answered once); the SQLite file scanned
for the users' words while the events wait.

Turns are held unanswered by the fake LINE API holding the loading-animation calls (each turn's
first LINE call in a 1:1 chat): a held loading call is not an answer, so whatever the fake does
with it later, an answer is only a reply or a push it accepted."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers_app import SECRET, TOKEN
from multiproc import FRESH_CONNECTIONS, ServerProcess, base_env, scan

from local_agent.line.client import retry_key_for
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import LOADING_PATH, FakeLineApi

pytestmark = pytest.mark.slow

QUESTIONS = ("花壇有什麼店推薦吃吃看？", "鹿港最近有什麼活動？", "員林有什麼好吃的？", "田中有什麼活動？")
LEASE = "2"


@pytest.fixture
def line() -> Iterator[FakeLineApi]:
    fake = FakeLineApi(access_token=TOKEN).start()
    yield fake
    fake.stop()


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    if request.param == "sqlite":
        return {"LOCAL_STORE": "sqlite", "LOCAL_SQLITE_PATH": str(tmp_path / "local.db")}
    emulator = request.getfixturevalue("firestore_emulator")
    return {
        "LOCAL_STORE": "firestore",
        "GOOGLE_CLOUD_PROJECT": request.getfixturevalue("firestore_project"),
        "FIRESTORE_EMULATOR_HOST": emulator.endpoint,
    }


def server(
    name: str, line: FakeLineApi, store_env: dict[str, str], root: Path, **extra: str
) -> ServerProcess:
    env = base_env(
        LINE_CHANNEL_SECRET=SECRET,
        LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
        LINE_API_HOST=line.base_url,
        LOCAL_MODEL="offline",
        LOCAL_LOG_LEVEL="INFO",
        LOCAL_EVENT_LEASE_SECONDS=LEASE,
        **store_env,
        **extra,
    )
    return ServerProcess(name, env, root)


def conversations(people: int, each: int, tag: str) -> list[list[dict[str, Any]]]:
    return [
        [W.text_event(f"U{tag}{p:0{32 - len(tag)}d}", QUESTIONS[i % len(QUESTIONS)]) for i in range(each)]
        for p in range(people)
    ]


async def _post_all(base_url: str, bodies: list[list[dict[str, Any]]]) -> list[httpx.Response]:
    async with httpx.AsyncClient(timeout=60, limits=FRESH_CONNECTIONS) as client:
        posts = [
            client.post(f"{base_url}/callback", content=b, headers=h)
            for b, h in (W.signed(SECRET, *events) for events in bodies)
        ]
        return list(await asyncio.gather(*posts))


def answers(line: FakeLineApi, events: list[dict[str, Any]]) -> Counter[str]:
    """How many accepted replies and pushes each event got (by its reply token or retry key)."""
    by_token = {e["replyToken"]: e["webhookEventId"] for e in events}
    by_key = {retry_key_for(e["webhookEventId"]): e["webhookEventId"] for e in events}
    got: Counter[str] = Counter()
    for reply in line.replies():
        if reply.body.get("replyToken") in by_token:
            got[by_token[reply.body["replyToken"]]] += 1
    for push in line.pushes():
        key = push.headers.get("x-line-retry-key") or push.headers.get("X-Line-Retry-Key")
        if key in by_key:
            got[by_key[key]] += 1
    return got


def wait_answered(line: FakeLineApi, events: list[dict[str, Any]], timeout: float = 90.0) -> Counter[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(answers(line, events)) < len(events):
        time.sleep(0.1)
    time.sleep(2 * float(LEASE) + 1)  # long enough for a second answer to show, if there were one
    return answers(line, events)


def in_chat_order(line: FakeLineApi, chats: list[list[dict[str, Any]]]) -> bool:
    """Each chat's answers left in the order its messages came."""
    position = {}
    for i, request in enumerate(line.requests):
        if request.kind in ("reply", "push") and request.accepted:
            token = request.body.get("replyToken")
            key = request.headers.get("x-line-retry-key") or request.headers.get("X-Line-Retry-Key")
            position[token or key] = i
    for chat in chats:
        seen = [position.get(e["replyToken"], position.get(retry_key_for(e["webhookEventId"]))) for e in chat]
        if None in seen or seen != sorted(seen):  # type: ignore[type-var]
            return False
    return True


def log_lines(proc: ServerProcess, message: str) -> list[dict[str, Any]]:
    lines = []
    for raw in proc.stdout().splitlines() + proc.stderr().splitlines():
        if message in raw:
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
    return lines


def test_kill_9_with_40_unanswered_events_then_a_restart_answers_each_exactly_once(
    line: FakeLineApi, store_env: dict[str, str], tmp_path: Path
) -> None:
    first = server("first", line, store_env, tmp_path).start().wait_ready()
    chats = conversations(10, 4, "kill")
    events = [e for chat in chats for e in chat]
    line.delay_next(LOADING_PATH, 30.0, times=len(events))
    try:
        responses = asyncio.run(_post_all(first.base_url, chats))
        assert [r.status_code for r in responses] == [200] * 10
        assert sum(r.json()["accepted"] for r in responses) == 40
        time.sleep(0.5)  # the first turns are in flight, held at their loading call
        assert answers(line, events) == Counter()  # accepted, none answered yet
        assert first.proc is not None
        first.proc.kill()  # SIGKILL: no drain, no release, nothing written at exit
        first.proc.wait(10)
    finally:
        first.stop()
    if store_env["LOCAL_STORE"] == "sqlite":  # privacy: the waiting events' words are not in the file
        blobs = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("local.db")}
        assert scan(blobs, [*QUESTIONS, *(e["source"]["userId"] for e in events)]) == []
    line.clear()
    second = server("second", line, store_env, tmp_path).start().wait_ready()
    try:
        got = wait_answered(line, events)
        assert got == Counter({e["webhookEventId"]: 1 for e in events})
        assert in_chat_order(line, chats)
        assert "Traceback" not in second.stderr()
    finally:
        second.stop()


def test_sigterm_with_a_backlog_beyond_the_drain_then_a_restart_answers_each_exactly_once(
    line: FakeLineApi, store_env: dict[str, str], tmp_path: Path
) -> None:
    first = server("first", line, store_env, tmp_path, LOCAL_DRAIN_SECONDS="1").start().wait_ready()
    chats = conversations(10, 4, "term")
    events = [e for chat in chats for e in chat]
    line.delay_next(LOADING_PATH, 8.0, times=len(events))
    try:
        responses = asyncio.run(_post_all(first.base_url, chats))
        assert sum(r.json()["accepted"] for r in responses) == 40
        rc, seconds = first.terminate(timeout=40)
        assert rc is not None and seconds < 30
    finally:
        first.stop()
    (accounting,) = log_lines(first, '"shutdown accounting"')
    assert accounting["events_lost"] == 0 and accounting["events_left_in_inbox"] > 0
    answered_before = answers(line, events)
    line.clear()
    second = server("second", line, store_env, tmp_path).start().wait_ready()
    try:
        got = wait_answered(line, events) + answered_before
        assert got == Counter({e["webhookEventId"]: 1 for e in events})
    finally:
        second.stop()


def test_a_burst_of_200_at_a_cold_start_is_all_accepted_and_each_answered_once(
    line: FakeLineApi, store_env: dict[str, str], tmp_path: Path
) -> None:
    fresh = server("fresh", line, store_env, tmp_path).start().wait_ready()
    chats = conversations(40, 5, "burst")
    events = [e for chat in chats for e in chat]
    try:
        responses = asyncio.run(_post_all(fresh.base_url, [[e] for e in events]))
        assert [r.status_code for r in responses] == [200] * 200
        got = wait_answered(line, events)
        assert got == Counter({e["webhookEventId"]: 1 for e in events})
    finally:
        fresh.stop()


def _sigterm_after_the_last_ack(
    line: FakeLineApi, first: ServerProcess, chats: list[list[dict[str, Any]]]
) -> tuple[Counter[str], float]:
    """Send every chat's events (one body per chat, all chats at once), SIGTERM as soon as the last
    is acknowledged: what LINE took before the exit, and the seconds from SIGTERM to the exit."""
    events = [e for chat in chats for e in chat]
    responses = asyncio.run(_post_all(first.base_url, chats))
    assert [r.status_code for r in responses] == [200] * len(chats)
    assert sum(r.json()["accepted"] for r in responses) == len(events)
    rc, seconds = first.terminate(timeout=30)
    assert rc is not None
    return answers(line, events), seconds


def test_sigterm_with_300_events_and_line_answering_in_1_s_then_a_restart_answers_each_exactly_once(
    line: FakeLineApi, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """LINE acts on each reply when it arrives and answers a second later: a stop lets the calls on
    the wire finish (never cancels one) and hands back only what it never sent."""
    store_env = {"LOCAL_STORE": "sqlite", "LOCAL_SQLITE_PATH": str(tmp_path / "local.db")}
    line.answer_delay = 1.0
    first = server("first", line, store_env, tmp_path).start().wait_ready()
    chats = conversations(30, 10, "stop")
    events = [e for chat in chats for e in chat]
    try:
        before, seconds = _sigterm_after_the_last_ack(line, first, chats)
    finally:
        first.stop()
    assert seconds < 10  # within Cloud Run's grace
    assert max(before.values(), default=1) == 1 and 0 < len(before) < len(events)
    restarted = time.monotonic()
    second = server("second", line, store_env, tmp_path).start().wait_ready()
    try:
        got = wait_answered(line, events)
        assert got == Counter({e["webhookEventId"]: 1 for e in events})
        assert in_chat_order(line, chats)
        after = time.monotonic() - restarted
    finally:
        second.stop()
    with capsys.disabled():
        print(
            f"\n[inbox] SIGTERM after the last of {len(events)} acks, LINE answering in 1 s (SQLite):"
            f" exit {seconds:.1f} s after SIGTERM, {len(before)} answered before it; the next start"
            f" answered the other {len(events) - len(before)} within {after:.1f} s of its spawn; none twice"
        )


@pytest.mark.firestore
def test_sigterm_of_one_of_two_instances_on_firestore_each_event_answered_once_by_it_or_its_peer(
    line: FakeLineApi, request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    emulator = request.getfixturevalue("firestore_emulator")
    store_env = {
        "LOCAL_STORE": "firestore",
        "GOOGLE_CLOUD_PROJECT": request.getfixturevalue("firestore_project"),
        "FIRESTORE_EMULATOR_HOST": emulator.endpoint,
    }
    line.answer_delay = 1.0
    a = server("a", line, store_env, tmp_path)
    b = server("b", line, store_env, tmp_path)
    a.start(), b.start()
    a.wait_ready(), b.wait_ready()
    chats = conversations(15, 3, "peer")
    events = [e for chat in chats for e in chat]
    try:
        before, seconds = _sigterm_after_the_last_ack(line, a, chats)
        assert seconds < 10
        stopped = time.monotonic()
        got = wait_answered(line, events, timeout=60)
        assert got == Counter({e["webhookEventId"]: 1 for e in events})
        took = time.monotonic() - stopped
        assert took < 60 + 2 * float(LEASE) + 1
        assert in_chat_order(line, chats)
        assert "Traceback" not in b.stderr()
    finally:
        a.stop()
        b.stop()
    with capsys.disabled():
        print(
            f"\n[inbox] SIGTERM of one of two instances on Firestore, {len(events)} acks, LINE answering"
            f" in 1 s: exit {seconds:.1f} s after SIGTERM, {len(before)} answered by it before the exit;"
            f" every event answered once within {took:.1f} s of the exit"
        )
