"""Reliability: the real app in separate uvicorn worker processes, under concurrency, redelivery,
shutdown, memory pressure and LINE API faults.

Three worker processes (``python -m uvicorn examples.day15.main:app --host 127.0.0.1 --port P``)
start once for the module, configured only through the environment: A and B share one SQLite
file (two instances of one deployment), C has its own file and is SIGTERMed by its test. All
three talk to one :class:`FakeLineApi` running in this test process. The bounded-memory test and
the reply-timeout test run the app in-process (they need its internals or a short client timeout).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import sqlite3
import time
from pathlib import Path

import httpx
import pytest
from helpers_app import SECRET, TOKEN, AppHarness, first_text
from multiproc import (
    FRESH_CONNECTIONS,
    DeliveryWatch,
    ServerProcess,
    Turn,
    base_env,
    check_deliveries,
    check_store,
    drive_users,
    make_conversation,
    rss_kib,
    scan,
    scope_id,
    start_servers,
)

from local_agent.agent.offline_rules import CAPABILITIES
from local_agent.context.journal import JournalRecord
from local_agent.stores.sqlite import SqliteStore
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import REPLY_PATH, FakeLineApi

pytestmark = pytest.mark.slow

USERS, TURNS = 50, 20
BURST = 20
MEMORY_TARGET_SCOPES = 10_000
# Submission stops here; see test_bounded_memory_many_scopes. LOCAL_MEMORY_TEST_SECONDS=300 runs
# all 10,000 scopes (about 200 s on this machine) for a standalone measurement.
MEMORY_TIME_BUDGET_S = float(os.environ.get("LOCAL_MEMORY_TEST_SECONDS", "20"))
MEMORY_MIN_SCOPES = 600


class Cluster:
    def __init__(self, root: Path, line: FakeLineApi) -> None:
        self.root, self.line = root, line
        self.shared_db = root / "shared.sqlite3"
        self.c_db = root / "c.sqlite3"
        common = dict(
            LINE_CHANNEL_SECRET=SECRET,
            LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
            LINE_API_HOST=line.base_url,
            LOCAL_STORE="sqlite",
            LOCAL_MODEL="offline",
            LOCAL_LOG_LEVEL="INFO",
        )
        # A and B serve senders that do not retry a 503 as LINE would: a long drain budget lets
        # admission accept all they send even on a slow machine. C keeps the production budget.
        lenient = dict(LOCAL_DRAIN_SECONDS="60")
        self.a = ServerProcess(
            "A", base_env(**common, **lenient, LOCAL_SQLITE_PATH=str(self.shared_db)), root
        )
        self.b = ServerProcess(
            "B", base_env(**common, **lenient, LOCAL_SQLITE_PATH=str(self.shared_db)), root
        )
        self.c = ServerProcess("C", base_env(**common, LOCAL_SQLITE_PATH=str(self.c_db)), root)
        self.sent_texts: list[str] = []  # every raw text sent to A or B, for the privacy scan
        self.startup_s = 0.0

    @property
    def pair(self) -> list[ServerProcess]:
        return [self.a, self.b]

    def wait_idle(self, timeout: float = 30.0) -> None:
        for server in self.pair:
            assert server.wait_idle(timeout), f"{server.name} still busy"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("reliability")
    line = FakeLineApi(access_token=TOKEN).start()
    cl = Cluster(root, line)
    started = time.monotonic()
    try:
        start_servers([cl.a, cl.b, cl.c])
        cl.startup_s = time.monotonic() - started
        yield cl
    finally:
        for server in (cl.a, cl.b, cl.c):
            server.stop()
        line.stop()


def user_id(n: int, prefix: str = "Urel") -> str:
    return f"{prefix}{n:029d}"


# -- 1. concurrency: 50 users x 20 turns over two worker processes sharing one SQLite file ------------


class ConcurrencyRun:
    conversations: list[list[Turn]]
    watch: DeliveryWatch
    seconds: float
    store_problems: list[str]
    delivery_problems: list[str]
    accepted: int
    loading_chats: set[str]
    users: set[str]
    per_server: dict[str, int]


@pytest.fixture(scope="module")
def concurrency_run(cluster: Cluster) -> ConcurrencyRun:
    run = ConcurrencyRun()
    run.conversations = [make_conversation(user_id(u), u, TURNS, seed=15) for u in range(USERS)]
    for conversation in run.conversations:
        cluster.sent_texts.extend(t.text for t in conversation)
    run.per_server = {
        "A": sum(t.server == 0 for c in run.conversations for t in c),
        "B": sum(t.server == 1 for c in run.conversations for t in c),
    }
    first_request = len(cluster.line.requests)
    started = time.monotonic()
    run.watch = asyncio.run(
        drive_users(
            run.conversations,
            [cluster.a.base_url, cluster.b.base_url],
            cluster.line,
            SECRET,
            turn_timeout=90,
            deadline_s=280,
        )
    )
    run.seconds = time.monotonic() - started
    cluster.wait_idle()
    store = SqliteStore(cluster.shared_db)
    try:
        # checked right away, before other tests add traffic to the shared file
        run.store_problems = check_store(store, run.conversations, exclusive=True)
    finally:
        store.close()
    run.delivery_problems = check_deliveries(run.conversations, run.watch)
    run.accepted = sum(len(v) for v in run.watch.delivered.values())
    run.users = {c[0].user for c in run.conversations}
    run.loading_chats = {
        r.body.get("chatId")
        for r in cluster.line.requests[first_request:]
        if r.kind == "loading" and r.accepted
    }
    return run


def test_concurrent_users_over_two_processes_lose_nothing_and_cross_nothing(
    concurrency_run: ConcurrencyRun, cluster: Cluster, capsys: pytest.CaptureFixture
) -> None:
    run = concurrency_run
    with capsys.disabled():
        print(
            f"\n[reliability] 3 worker processes ready in {cluster.startup_s:.1f} s; "
            f"{USERS}x{TURNS} turns over A/B ({run.per_server}) in {run.seconds:.1f} s "
            f"({USERS * TURNS / run.seconds:.0f} turns/s)"
        )
    # every message answered, exactly once
    assert run.accepted == USERS * TURNS
    assert run.watch.strays == []
    assert run.delivery_problems == []
    # every journal holds exactly its user's turns; audit/snapshot counts per scope match
    assert run.store_problems == []
    # the loading animation went to this run's users only (1:1 chats)
    assert run.loading_chats <= run.users


def test_privacy_scan_of_sqlite_files_and_worker_logs(
    concurrency_run: ConcurrencyRun, cluster: Cluster, capsys: pytest.CaptureFixture
) -> None:
    cluster.wait_idle()
    needles = set(cluster.sent_texts)
    assert len(needles) == len(cluster.sent_texts) >= USERS * TURNS, "raw texts must be distinct"
    assert all(len(t) >= 8 for t in needles)
    phones = {t.split("電話")[1][:12] for t in needles}  # e.g. 0912-007-013, unique per message
    assert len(phones) == len(needles)
    blobs: dict[str, bytes] = {}
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(cluster.shared_db) + suffix)
        if path.exists():
            blobs[path.name] = path.read_bytes()
    for server in cluster.pair:
        blobs[f"{server.name}.stdout"] = server.stdout_bytes()
        blobs[f"{server.name}.stderr"] = server.stderr_bytes()
    assert blobs["shared.sqlite3"], "the SQLite file is empty?"
    assert b'"turn done"' in blobs["A.stdout"] + blobs["B.stdout"], "the workers' JSON logs were not captured"
    hits = scan(blobs, needles | phones)
    with capsys.disabled():
        sizes = ", ".join(f"{k} {len(v) // 1024} KiB" for k, v in blobs.items())
        print(
            f"\n[reliability] privacy scan: {len(needles)} messages + {len(phones)} phone fragments over "
            f"{sizes}: {len(hits)} hits"
        )
    assert hits == []


# -- 2. redelivery across instances ---------------------------------------------------------------------


def test_same_webhook_event_delivered_to_both_processes_runs_once(cluster: Cluster) -> None:
    events = [
        W.text_event(user_id(900 + i, "Uredeliver"), f"我有氣喘，電話0955-{i:03d}-123，鹿港有什麼好吃的店？")
        for i in range(5)
    ]
    cluster.sent_texts.extend(e["message"]["text"] for e in events)
    watch = DeliveryWatch.from_now(cluster.line)
    turns = [Turn(e["source"]["userId"], 0, e["message"]["text"], "places", "鹿港鎮", e) for e in events]
    for turn in turns:
        watch.expect(turn)
    before_dupes = sum(s.stdout().count("duplicate event dropped") for s in cluster.pair)

    async def both() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:
            posts = []
            for event in events:
                body, headers = W.signed(SECRET, event)
                posts += [
                    client.post(f"{s.base_url}/callback", content=body, headers=headers) for s in cluster.pair
                ]
            return list(await asyncio.gather(*posts))

    responses = asyncio.run(both())
    assert [r.status_code for r in responses] == [200] * 10
    cluster.wait_idle()
    time.sleep(0.3)  # a second (wrong) delivery would be in flight by now
    cluster.wait_idle()
    watch.poll()
    store = SqliteStore(cluster.shared_db)
    try:
        for turn in turns:
            assert len(watch.delivered.get(turn.event_id, [])) == 1, "one reply per event"
            assert [r.turn_id for r in store.audit_rows(scope_id(turn.user))] == [turn.event_id]
            assert [s.turn_id for s in store.snapshots(scope_id(turn.user))] == [turn.event_id]
    finally:
        store.close()
    assert watch.strays == []
    after_dupes = sum(s.stdout().count("duplicate event dropped") for s in cluster.pair)
    assert after_dupes - before_dupes == len(events)


# -- 3. SIGTERM during in-flight turns -----------------------------------------------------------------


def test_sigterm_during_in_flight_turns_finishes_or_drops_cleanly(
    cluster: Cluster, capsys: pytest.CaptureFixture
) -> None:
    server = cluster.c
    users = [user_id(700 + i, "Usigterm") for i in range(BURST // 2)]
    conversations = [
        make_conversation(u, 700 + i, 2, seed=3, first="places", servers=1) for i, u in enumerate(users)
    ]
    turns = [t for c in conversations for t in c]
    watch = DeliveryWatch.from_now(cluster.line)
    for turn in turns:
        watch.expect(turn)

    async def burst() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:
            first = [
                client.post(f"{server.base_url}/callback", content=b, headers=h)
                for b, h in (W.signed(SECRET, c[0].event) for c in conversations)
            ]
            acks = list(await asyncio.gather(*first))
            second = [
                client.post(f"{server.base_url}/callback", content=b, headers=h)
                for b, h in (W.signed(SECRET, c[1].event) for c in conversations)
            ]
            return acks + list(await asyncio.gather(*second))

    responses = asyncio.run(burst())
    pending = server.pending()  # evidence that turns are in flight (one quick GET)
    rc, seconds = server.terminate(timeout=40)  # right after the acks
    accepted = sum(r.json().get("accepted", 0) for r in responses if r.status_code == 200)
    assert rc is not None, "the worker did not exit within 40 s of SIGTERM"
    assert rc in (0, -signal.SIGTERM), server.stderr()[-2000:]
    assert seconds < 30, "the drain is bounded (8 s) and uvicorn's shutdown should follow it"
    assert accepted == len(turns) and all(r.status_code == 200 for r in responses)

    watch.poll()
    answered = [t for t in turns if watch.delivered.get(t.event_id)]
    assert all(len(watch.delivered[t.event_id]) == 1 for t in answered)
    store = SqliteStore(cluster.c_db)
    try:
        journals = store.journal_rows()
        snapshots = store.snapshots()
    finally:
        store.close()
    done = {s.turn_id for s in snapshots}
    assert {t.event_id for t in answered} <= done  # an answered turn completed its writes
    for sid, record in journals.items():  # no partial journal
        parsed = JournalRecord.from_dict(record)
        assert len(parsed.window.turns) <= 2
        assert parsed.version == sum(
            1 for s in snapshots if s.scope_id == sid and s.data.get("journal_written")
        )
    stderr, stdout = server.stderr(), server.stdout()
    assert "Traceback" not in stderr and "Traceback" not in stdout
    assert "JOB_FAILED" not in stdout
    dropped = len(turns) - len(answered)
    accounting = [json.loads(line) for line in stdout.splitlines() if '"shutdown accounting"' in line]
    assert len(accounting) == 1, "one accounting line at every stop"
    # With the inbox (the default) nothing accepted is lost: what was not answered stays for the
    # next start (tests/test_inbox_processes.py answers it there), and the line counts it exactly.
    assert accounting[0]["events_lost"] == 0
    assert accounting[0]["events_left_in_inbox"] == dropped
    with capsys.disabled():
        print(
            f"\n[reliability] SIGTERM after {accepted} acks ({pending} pending): exit {rc} in {seconds:.2f} s; "
            f"{len(answered)} answered, {dropped} dropped cleanly"
        )


# -- 4. bounded memory ---------------------------------------------------------------------------------


class MemoryRun:
    scopes: int
    seconds: float
    rss_before: int
    rss_after: int
    active_scopes: int
    queues: int
    turns_left: dict
    sessions_left: int
    session_user_keys: int
    replies: int


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory: pytest.TempPathFactory) -> MemoryRun:
    run = MemoryRun()
    path = tmp_path_factory.mktemp("memory") / "memory.sqlite3"
    per_body, bodies_per_round = 10, 20
    text = "伸港有什麼好吃的店？"  # a full router turn (ADK, tool, audit, journal, snapshot), text-only reply
    with AppHarness(path, settings={"LOCAL_DRAIN_SECONDS": "60"}) as app:  # senders do not retry a 503
        # measure the app, not the test harness: no outcome recording, fake LINE records dropped per round
        app.app.state.observers.remove(app._observe)
        app.send_concurrently([[W.text_event(f"Uwarm{i:028d}", text) for i in range(per_body)]])
        assert app.wait_idle(30)  # warm-up (first-call caches, pools), not counted
        replies = len(app.line.replies())
        app.line.clear()
        run.rss_before = rss_kib()
        started = time.monotonic()
        sent = n_round = 0
        while sent < MEMORY_TARGET_SCOPES and time.monotonic() - started < MEMORY_TIME_BUDGET_S:
            batches = [
                [
                    W.text_event(
                        f"Umem{sent + b * per_body + i:028d}",
                        text,
                        group=f"Cmem{n_round:06d}{b:03d}",
                        mention=True,  # in a group the bot answers only when mentioned
                    )
                    for i in range(per_body)
                ]
                for b in range(bodies_per_round)
            ]
            responses = app.send_concurrently(batches)
            assert all(r.status_code == 200 and r.json()["accepted"] == per_body for r in responses)
            sent += per_body * bodies_per_round
            n_round += 1
            assert app.wait_idle(60)
            replies += len(app.line.replies())
            app.line.clear()
        run.scopes = sent
        run.seconds = time.monotonic() - started
        run.rss_after = rss_kib()
        run.replies = replies
        dispatcher = app.dispatcher
        router = app.app.state.wiring.router
        run.active_scopes = dispatcher.active_scopes
        run.queues = len(getattr(dispatcher, "inner", dispatcher)._queues)  # behind the turn thread
        run.turns_left = dict(router._turns)
        by_app = router.sessions.sessions
        run.sessions_left = sum(len(s) for users in by_app.values() for s in users.values())
        run.session_user_keys = sum(len(users) for users in by_app.values())
    return run


def test_bounded_memory_many_scopes(memory_run: MemoryRun, capsys: pytest.CaptureFixture) -> None:
    """Up to 10,000 distinct scopes (group chat x user) through one in-process app, 10 events per body.

    Measured on the loaded 2-core test machine: about 16-20 ms per turn (a whole router turn: ADK
    Runner, tool, audit row, journal append, snapshot, reply), so 10,000 scopes would take 160-200 s,
    and 40 s would leave no room for the rest of this module in its ~120 s budget. So submission
    stops after ``MEMORY_TIME_BUDGET_S`` = 20 s, which reaches about 1,000-1,200 scopes here (the
    count is printed); at least ``MEMORY_MIN_SCOPES`` = 600 are required. A faster machine runs all
    10,000. A standalone run of 4,000 scopes measured RSS 140 -> 151 -> 151 -> 156 -> 153 MiB per
    1,000: flat once SQLite's page caches are warm. The harness's own outcome records and the fake
    LINE API's request log are switched off / dropped per round so they do not count.
    """
    run = memory_run
    with capsys.disabled():
        grown = run.rss_after - run.rss_before
        print(
            f"\n[reliability] memory: {run.scopes} scopes in {run.seconds:.1f} s; RSS before "
            f"{run.rss_before / 1024:.1f} MiB, after {run.rss_after / 1024:.1f} MiB "
            f"(+{grown / 1024:.1f} MiB, {grown * 1024 / max(run.scopes, 1):.0f} B/scope); "
            f"ADK session user keys left: {run.session_user_keys}"
        )
    assert run.scopes >= MEMORY_MIN_SCOPES
    assert run.replies == run.scopes + 10
    assert run.active_scopes == 0
    assert run.queues == 0
    assert run.turns_left == {}
    assert run.sessions_left == 0


def test_adk_session_service_keeps_no_per_scope_keys(memory_run: MemoryRun) -> None:
    """Per-turn ADK sessions belong to one fixed throwaway user, so ADK's in-memory service keeps at
    most that one (empty) entry however many scopes went through."""
    assert memory_run.session_user_keys <= 1


# -- 5. LINE API faults through the real app -------------------------------------------------------------


def _attempts(line: FakeLineApi, token: str) -> list[int]:
    return [r.status for r in line.attempts("reply") if r.body.get("replyToken") == token]


def _wait(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _post(server: ServerProcess, event: dict) -> httpx.Response:
    body, headers = W.signed(SECRET, event)
    return httpx.post(f"{server.base_url}/callback", content=body, headers=headers, timeout=30)


def test_line_500_then_200_is_delivered_after_one_retry(cluster: Cluster) -> None:
    server, line = cluster.a, cluster.line
    cluster.wait_idle()
    event = W.text_event(user_id(1, "Ufault"), "員林有什麼好吃的店？電話0977-000-001")
    cluster.sent_texts.append(event["message"]["text"])
    line.fail_next(REPLY_PATH, 500, times=1)
    started = time.monotonic()
    assert _post(server, event).status_code == 200
    assert _wait(lambda: 200 in _attempts(line, event["replyToken"]), 15)
    assert _attempts(line, event["replyToken"]) == [500, 200]
    assert time.monotonic() - started < 10


def test_line_429_always_gives_up_after_bounded_attempts_and_keeps_serving(cluster: Cluster) -> None:
    server, line = cluster.a, cluster.line
    cluster.wait_idle()
    user = user_id(2, "Ufault")
    event = W.text_event(user, "鹿港這週有什麼活動？電話0977-000-002")
    cluster.sent_texts.append(event["message"]["text"])
    line.fail_next(REPLY_PATH, 429, times=1000)  # "always", as far as this test lasts
    try:
        started = time.monotonic()
        assert _post(server, event).status_code == 200
        assert server.wait_idle(20)
        elapsed = time.monotonic() - started
        assert _attempts(line, event["replyToken"]) == [429, 429, 429]  # 1 try + max_retries (2)
        assert not [r for r in line.pushes() if r.body.get("to") == user]
        assert elapsed < 10  # backoff 0.5 s + 1.0 s, capped
        assert "gave up" in server.stdout()
    finally:
        line.clear()  # drops the remaining 429s (and the records, which later tests do not need)
    follow = W.text_event(user, "彰化有什麼好吃的店？電話0977-000-003")
    cluster.sent_texts.append(follow["message"]["text"])
    assert _post(server, follow).status_code == 200
    assert line.wait_for_count(1, "reply", timeout=15)
    (reply,) = line.replies()
    assert reply.body["replyToken"] == follow["replyToken"]
    assert first_text(reply).startswith("彰化市")


def test_reply_timeout_gives_up_bounded_and_the_app_keeps_serving(tmp_path: Path) -> None:
    user = user_id(3, "Ufault")
    # a client timeout short enough to keep the test quick, long enough for each attempt to
    # reach the fake on a loaded machine; the fake holds every answer well past it
    with AppHarness(tmp_path / "timeout.sqlite3", gateway={"timeout": 0.5, "backoff": 0.01}) as app:
        app.line.delay_next(REPLY_PATH, 2.0, times=3)
        event = W.text_event(user, "溪湖有什麼好吃的店？")
        started = time.monotonic()
        app.turn(event, timeout=20)
        elapsed = time.monotonic() - started
        # the held requests are answered (and recorded) once their delay is over
        assert app.line.wait_for(lambda reqs: sum(r.kind == "reply" for r in reqs) >= 3, timeout=10)
        attempts = _attempts(app.line, event["replyToken"])
        assert len(attempts) == 3  # 1 try + max_retries, then give up
        # LINE may still deliver a timed-out reply; the later attempts then find the token used:
        # at most one message reaches the user, and no push duplicates it.
        assert attempts.count(200) <= 1
        assert not app.line.attempts("push")
        assert elapsed < 15  # 3 attempts of 0.5 s and the turn: bounded, not hanging
        follow = W.text_event(user, "芳苑有什麼好吃的店？")
        app.turn(follow, timeout=20)
        assert any(r.body["replyToken"] == follow["replyToken"] for r in app.line.replies())


def test_capabilities_text_is_what_non_tool_turns_get(concurrency_run: ConcurrencyRun) -> None:
    """Sanity for the delivery check: a parking or bus question is answered with the capabilities."""
    kinds = {t.kind for c in concurrency_run.conversations for t in c}
    assert {"parking", "bus", "ref_places", "ref_events", "places", "events"} <= kinds
    some = next(t for c in concurrency_run.conversations for t in c if t.kind == "parking")
    (request,) = concurrency_run.watch.delivered[some.event_id]
    assert first_text(request) == CAPABILITIES


# -- the checker itself ----------------------------------------------------------------------------------


def test_checker_catches_a_lost_turn_a_crossed_journal_and_a_misdelivered_reply(tmp_path: Path) -> None:
    """The no-loss/no-crossing oracle used above must fail on a store or delivery that is wrong."""
    conversations = [make_conversation(user_id(n, "Ucheck"), n, 5, seed=5, first="places") for n in range(2)]
    db = tmp_path / "check.sqlite3"
    with AppHarness(db) as app:
        for conversation in conversations:
            for turn in conversation:
                app.turn(turn.event)
        watch = DeliveryWatch(app.line)
        for conversation in conversations:
            for turn in conversation:
                watch.expect(turn)
        watch.poll()
    store = SqliteStore(db)
    try:
        assert check_store(store, conversations) == []
        assert check_deliveries(conversations, watch) == []
        first, second = (scope_id(c[0].user) for c in conversations)
        raw = sqlite3.connect(db, isolation_level=None)
        try:  # lose the last audit row of the first user
            raw.execute(
                "DELETE FROM audit WHERE id = (SELECT MAX(id) FROM audit WHERE scope_id = ?)", (first,)
            )
            assert any(conversations[0][0].user in p for p in check_store(store, conversations))
            # cross: the second user's journal now holds the first user's window
            (record,) = raw.execute("SELECT record FROM journal WHERE scope_id = ?", (first,)).fetchone()
            raw.execute("UPDATE journal SET record = ? WHERE scope_id = ?", (record, second))
            assert any(conversations[1][0].user in p for p in check_store(store, conversations))
        finally:
            raw.close()
    finally:
        store.close()
    a, b = conversations[0][0], conversations[1][0]
    watch.delivered[a.event_id], watch.delivered[b.event_id] = (
        watch.delivered[b.event_id],
        watch.delivered[a.event_id],
    )
    problems = check_deliveries(conversations, watch)
    assert any("reply token of another event" in p for p in problems)
    pushed = dataclasses.replace(
        watch.delivered[a.event_id][0],
        path="/v2/bot/message/push",
        body={**watch.delivered[b.event_id][0].body, "to": b.user},
    )
    watch.delivered[a.event_id] = [pushed]
    assert any("pushed to another chat" in p for p in check_deliveries(conversations, watch))
