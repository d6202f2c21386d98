"""``LOCAL_QUEUE=pubsub`` as Cloud Run runs it: the official Pub/Sub and Firestore emulators, two
real uvicorn instances, and a loopback round-robin front that spreads both LINE's ``/callback``
posts and Pub/Sub's pushes over them (skipping a dead one, as Cloud Run's front end does).

Covered: the same event accepted by both instances runs once; one person's 40 messages sent
without waiting, spread over both instances, are answered once each, in order, each reference
resolving to the township named last; the consent button tapped on both instances acts once; a
forget racing a search is answered after it, and no audit row keeps the diet; an unfollow racing
a search leaves nothing to resolve after a new follow; SIGKILL of one instance with messages in
flight loses none and answers none twice.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from multiproc import (
    FRESH_CONNECTIONS,
    DeliveryWatch,
    ServerProcess,
    base_env,
    check_deliveries,
    check_store,
    make_conversation,
    scan,
    scope_id,
    start_servers,
)

from local_agent.agent.offline_rules import ASK_TOWNSHIP
from local_agent.stores.ports import FORGOTTEN_MARK
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi, RecordedRequest
from local_agent.testing.pubsub import RoundRobinFront, setup_rest

pytestmark = pytest.mark.slow

SECRET = "test-channel-secret-0123456789"
TOKEN = "test-channel-access-token"
PUSH_TOKEN = "emulator-push-token-" + uuid.uuid4().hex
APPLIED = "已套用您同意記住的偏好"
FORGOTTEN = "已刪除您的飲食偏好"


class Cluster:
    def __init__(self, root: Path, line: FakeLineApi, pubsub: Any, firestore: Any, project: str) -> None:
        self.line, self.pubsub, self.firestore, self.project = line, pubsub, firestore, project
        env = base_env(
            LINE_CHANNEL_SECRET=SECRET,
            LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
            LINE_API_HOST=line.base_url,
            LOCAL_STORE="firestore",
            LOCAL_QUEUE="pubsub",
            GOOGLE_CLOUD_PROJECT=project,
            LOCAL_MODEL="offline",
            FIRESTORE_EMULATOR_HOST=firestore.endpoint,
            PUBSUB_EMULATOR_HOST=pubsub.endpoint,
            LOCAL_PUBSUB_PUSH_TOKEN=PUSH_TOKEN,
            LOCAL_EVENT_LEASE_SECONDS="3",
            LOCAL_LOG_LEVEL="INFO",
        )
        self.servers = [ServerProcess("P1", env, root), ServerProcess("P2", env, root)]
        self.front: RoundRobinFront | None = None

    def start(self) -> None:
        start_servers(self.servers)
        self.front = RoundRobinFront([s.port for s in self.servers]).start()
        setup_rest(
            self.pubsub.endpoint,
            self.project,
            "local-events",
            "local-events-push",
            f"{self.front.base_url}/pubsub/push?token={PUSH_TOKEN}",
        )

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        if self.front is not None:
            self.front.stop()

    @property
    def url(self) -> str:
        assert self.front is not None
        return self.front.base_url

    def store(self) -> Any:
        from local_agent.stores.firestore import FirestoreStore

        return FirestoreStore(project=self.project)

    def post(self, events: list[dict[str, Any]], urls: list[str] | None = None) -> list[int]:
        """POST each event as its own signed body (all at once), to the front or to ``urls``."""

        async def send() -> list[int]:
            async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:
                posts = []
                for i, event in enumerate(events):
                    body, headers = W.signed(SECRET, event)
                    url = (urls[i % len(urls)] if urls else self.url) + "/callback"
                    posts.append(client.post(url, content=body, headers=headers))
                return [r.status_code for r in await asyncio.gather(*posts)]

        return asyncio.run(send())

    def post_in_order(self, events: list[dict[str, Any]]) -> None:
        """One after another, each once acknowledged (LINE sends a chat's events in order)."""

        async def send() -> None:
            async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:
                for event in events:
                    body, headers = W.signed(SECRET, event)
                    response = await client.post(f"{self.url}/callback", content=body, headers=headers)
                    assert response.status_code == 200, response.text

        asyncio.run(send())


@pytest.fixture(scope="module")
def cluster(pubsub_emulator, firestore_emulator, tmp_path_factory: pytest.TempPathFactory):
    project = "pubsub-e2e-" + uuid.uuid4().hex[:12]
    line = FakeLineApi(access_token=TOKEN).start()
    cluster = Cluster(
        tmp_path_factory.mktemp("pubsub-e2e"), line, pubsub_emulator, firestore_emulator, project
    )
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        line.stop()
        try:
            firestore_emulator.wipe(project)
        except OSError as exc:
            print(f"wiping {project} failed: {exc}")


def queue_counts(cluster: Cluster) -> list[dict[str, int]]:
    """Each living instance's queue figures from its /healthz."""
    out = []
    for server in cluster.servers:
        if server.proc is not None and server.proc.poll() is None:
            out.append(httpx.get(f"{server.base_url}/healthz", timeout=5).json()["queue"])
    return out


def delivered(line: FakeLineApi, event: dict[str, Any]) -> list[RecordedRequest]:
    """The accepted replies and pushes that answer ``event`` (by reply token or retry key)."""
    from local_agent.line.client import retry_key_for

    key = retry_key_for(event["webhookEventId"])
    return [
        r
        for r in line.requests
        if r.accepted
        and (
            (r.kind == "reply" and r.body.get("replyToken") == event.get("replyToken"))
            or (r.kind == "push" and r.headers.get("x-line-retry-key") == key)
        )
    ]


def wait_answered(line: FakeLineApi, events: list[dict[str, Any]], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(delivered(line, e) for e in events):
            return
        time.sleep(0.1)
    missing = sum(1 for e in events if not delivered(line, e))
    raise AssertionError(f"{missing} of {len(events)} events not answered in {timeout:.0f} s")


def text_of(request: RecordedRequest) -> str:
    return " ".join(m.get("text", "") for m in request.body.get("messages", []) if m.get("type") == "text")


def order_of(line: FakeLineApi, events: list[dict[str, Any]]) -> list[int]:
    """Indexes of ``events`` in the order their answers reached LINE."""
    position = {id(r): n for n, r in enumerate(line.requests)}
    answered = [(position[id(delivered(line, e)[0])], i) for i, e in enumerate(events)]
    return [i for _, i in sorted(answered)]


def test_the_same_event_accepted_by_both_instances_runs_once(cluster: Cluster) -> None:
    event = W.text_event("U" + uuid.uuid4().hex, "我有痛風，電話0944-001-321，員林有什麼好吃的店？")
    urls = [s.base_url for s in cluster.servers]
    assert cluster.post([event, event], urls) == [200, 200]  # both published it
    wait_answered(cluster.line, [event])
    time.sleep(2.0)  # the second message has been pushed and dropped by now
    assert len(delivered(cluster.line, event)) == 1
    assert sum(q["duplicates"] for q in queue_counts(cluster)) >= 1  # the second message was dropped
    store = cluster.store()
    try:
        user = event["source"]["userId"]
        assert [r.turn_id for r in store.audit_rows(scope_id(user))] == [event["webhookEventId"]]
    finally:
        store.close()


def test_forty_messages_of_one_person_over_both_instances_are_answered_once_in_order(
    cluster: Cluster,
) -> None:
    user = "U" + uuid.uuid4().hex
    conversation = make_conversation(user, 1, 40, seed=20, phone_prefix="0955", first="places", servers=2)
    watch = DeliveryWatch.from_now(cluster.line)
    for turn in conversation:
        watch.expect(turn)
    cluster.post_in_order([t.event for t in conversation])  # without waiting for any answer
    events = [t.event for t in conversation]
    wait_answered(cluster.line, events, timeout=120)
    assert order_of(cluster.line, events) == list(range(40))
    time.sleep(1.0)  # a second answer, if any, would come now
    watch.poll()
    assert check_deliveries([conversation], watch) == []  # once each; references resolved in order
    counts = cluster.front.backends.counts if cluster.front else {}
    assert len(counts) == 2 and min(counts.values()) >= 20  # both instances took posts and pushes
    assert all(q["answered"] > 0 for q in queue_counts(cluster))
    logs = {s.name: s.stdout_bytes() + s.stderr_bytes() for s in cluster.servers}
    assert scan(logs, [t.text for t in conversation]) == []  # no user text in any log line
    # the pushes' access lines are logged, without the emulator token of their query string
    assert all(b'"http_path": "/pubsub/push"' in blob for blob in logs.values())
    assert scan(logs, [PUSH_TOKEN, TOKEN]) == []
    store = cluster.store()
    try:
        assert check_store(store, [conversation], exclusive=False) == []
    finally:
        store.close()


def _consent_prompt(cluster: Cluster, user: str) -> list[str]:
    ask = W.text_event(user, "記住我吃素")
    cluster.post_in_order([ask])
    wait_answered(cluster.line, [ask])
    items = delivered(cluster.line, ask)[0].body["messages"][-1]["quickReply"]["items"]
    return [i["action"]["data"] for i in items]


def test_one_consent_button_tapped_on_both_instances_acts_once(cluster: Cluster) -> None:
    user = "U" + uuid.uuid4().hex
    yes, no = _consent_prompt(cluster, user)
    taps = [W.postback_event(user, yes), W.postback_event(user, yes), W.postback_event(user, no)]
    assert cluster.post(taps, [s.base_url for s in cluster.servers]) == [200, 200, 200]
    wait_answered(cluster.line, taps)
    answers = [text_of(delivered(cluster.line, t)[0]) for t in taps]
    assert sum("已記住" in a for a in answers) + sum("不會記住" in a for a in answers) == 1
    assert sum("失效" in a for a in answers) == 2
    store = cluster.store()
    try:
        assert store.get(user).revision == 1
    finally:
        store.close()


def test_a_forget_racing_searches_is_answered_after_them_and_scrubs_every_row(cluster: Cluster) -> None:
    for trial in range(3):
        user = "U" + uuid.uuid4().hex
        yes, _ = _consent_prompt(cluster, user)
        tap = W.postback_event(user, yes)
        cluster.post_in_order([tap])
        wait_answered(cluster.line, [tap])
        search = [W.text_event(user, f"花壇有什麼好吃的店？{trial}-{k}") for k in range(2)]
        forget = W.text_event(user, "忘記我的飲食偏好")
        after = W.text_event(user, "鹿港有什麼好吃的店？")
        events = [*search, forget, after]
        cluster.post_in_order(events)  # LINE's order; over both instances
        wait_answered(cluster.line, events)
        assert order_of(cluster.line, events) == [0, 1, 2, 3]
        answers = [text_of(delivered(cluster.line, e)[0]) for e in events]
        assert all(APPLIED in a for a in answers[:2]) and FORGOTTEN in answers[2]
        assert APPLIED not in answers[3]
        store = cluster.store()
        try:
            rows = store.audit_rows(scope_id(user))
            assert [r.effective_arguments["dietary_type"] for r in rows] == [
                FORGOTTEN_MARK,
                FORGOTTEN_MARK,
                "any",
            ]
        finally:
            store.close()


def test_an_unfollow_racing_a_search_leaves_nothing_after_a_new_follow(cluster: Cluster) -> None:
    for _ in range(3):
        user = "U" + uuid.uuid4().hex
        search = W.text_event(user, "員林有什麼好吃的店？")
        gone = W.unfollow_event(user)
        back = W.follow_event(user)
        ref = W.text_event(user, "剛才那個鄉鎮，再找一家吃的。")
        cluster.post_in_order([search, gone, back, ref])
        wait_answered(cluster.line, [search, back, ref])
        asked = text_of(delivered(cluster.line, ref)[0])
        assert asked.startswith(ASK_TOWNSHIP) and "員林" not in asked  # the old township is gone


def _busy_instance(cluster: Cluster, timeout: float = 10.0) -> ServerProcess:
    """The instance with a push in flight (by its /healthz)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for server in cluster.servers:
            health = httpx.get(f"{server.base_url}/healthz", timeout=5).json()
            if health["queue"]["in_flight"] > 0:
                return server
        time.sleep(0.05)
    raise AssertionError("no instance had a push in flight")


def test_sigkill_of_one_instance_with_messages_in_flight_loses_none_and_repeats_none(
    cluster: Cluster,
) -> None:
    conversations = [
        make_conversation("U" + uuid.uuid4().hex, u, 5, seed=31, phone_prefix="0966", first="places")
        for u in range(4)
    ]
    events = [t.event for c in conversations for t in c]
    watch = DeliveryWatch.from_now(cluster.line)
    for conversation in conversations:
        for turn in conversation:
            watch.expect(turn)
    # Hold the next two turns (the emulator pushes at most two at once) at their loading call, so
    # an instance has turns in flight, before any reply of theirs went out, when it is killed.
    cluster.line.delay_next("/chat/loading/start", 4.0, times=2)
    for k in range(5):
        cluster.post_in_order([c[k].event for c in conversations])  # all 20 acknowledged
    victim = _busy_instance(cluster)
    assert victim.proc is not None
    victim.proc.kill()  # SIGKILL: no drain, no lease given back
    victim.proc.wait(timeout=10)
    wait_answered(cluster.line, events, timeout=120)
    time.sleep(1.5)  # a second answer, if any, would come now
    watch.poll()
    assert check_deliveries(conversations, watch) == []  # every one answered, none twice, in order
    (survivor,) = queue_counts(cluster)
    # it took over what the dead instance held, once that one's lease had lapsed
    assert survivor["held_elsewhere"] >= 1 and survivor["redeliveries"] >= 1
    for conversation in conversations:
        assert order_of(cluster.line, [t.event for t in conversation]) == list(range(5))
