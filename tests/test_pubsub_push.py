"""``LOCAL_QUEUE=pubsub`` without the emulator: the message format, the settings it needs, and
``POST /pubsub/push`` driven as Pub/Sub drives it (envelopes POSTed to the real app, the fake LINE
API behind it): leases, answers, failures, duplicates and the emulator token."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers_app import AppHarness, first_text
from pydantic import ValidationError

from local_agent.context.journal import ScopeKey
from local_agent.line.inbound import InboundEvent
from local_agent.server.queue import decode_event, encode_event, ordering_key
from local_agent.testing import webhooks as W
from local_agent.testing.pubsub import push_envelope

PUSH_TOKEN = "emulator-push-token-0123456789"
EMULATOR = "127.0.0.1:9"  # nothing listens: these tests never publish
PUBSUB = {
    "LOCAL_QUEUE": "pubsub",
    "GOOGLE_CLOUD_PROJECT": "test-project",
    "PUBSUB_EMULATOR_HOST": EMULATOR,
    "LOCAL_PUBSUB_PUSH_TOKEN": PUSH_TOKEN,
    "LOCAL_EVENT_LEASE_SECONDS": "3",
}


def inbound(
    user: str, text: str = "", *, kind: str = "text", event_id: str | None = None, **kw: Any
) -> InboundEvent:
    event = W.text_event(user, text or "x")
    return InboundEvent(
        kind=kind,  # type: ignore[arg-type]
        scope=W.scope_of(user, kw.pop("group", None)),
        reply_to=user,
        event_id=event_id or event["webhookEventId"],
        reply_token=None if kind == "unfollow" else event["replyToken"],
        received_at=kw.pop("received_at", 0.0) or time.time(),
        text=text,
        data=kw.pop("data", ""),
    )


# -- the message ---------------------------------------------------------------------------------
def test_a_message_round_trips_and_holds_only_the_parsed_event() -> None:
    event = inbound("U" + "a" * 32, "花壇有什麼好吃的店？")
    data = encode_event(event)
    assert decode_event(data) == event
    body = json.loads(data)
    assert set(body) == {
        "v",
        "kind",
        "scope",
        "reply_to",
        "event_id",
        "reply_token",
        "quote_token",
        "received_at",
        "text",
        "data",
    }
    assert ordering_key(event) == event.scope.source_id
    group = InboundEvent("text", ScopeKey("d", "group", "Cgroup", "U1"), "Cgroup", "e1", "rt", 1.0, "hi")
    assert ordering_key(group) == "Cgroup"  # a group's messages keep one order


def altered(**fields: Any) -> bytes:
    """A well-formed message with ``fields`` replaced."""
    good = json.loads(encode_event(InboundEvent("text", ScopeKey.for_user("U1"), "U1", "e", "r", 1.0, "x")))
    return json.dumps({**good, **fields}).encode("utf-8")


def test_the_altered_helper_starts_from_a_message_that_decodes() -> None:
    assert decode_event(altered()) is not None


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\xfe",
        b"[]",
        b'{"v": 2}',
        b"not json",
        encode_event(InboundEvent("text", ScopeKey.for_user("U1"), "U1", "e", "r", 1.0, "x")).replace(
            b'"text"', b'"bogus"', 1
        ),
        altered(scope=["d", "user", "U1", "U2"]),  # a 1:1 scope of two people
        altered(received_at=float("nan")),
        altered(event_id="e\n"),
        altered(kind="video"),
        altered(text="x" * 10_001),
        altered(scope=["d", "user", "U1"]),
    ],
)
def test_a_message_that_is_not_ours_decodes_to_nothing(data: bytes) -> None:
    assert decode_event(data) is None


# -- settings ------------------------------------------------------------------------------------
def _settings(**values: Any) -> Any:
    from local_agent.settings import Settings

    base = {
        "LINE_CHANNEL_SECRET": "s" * 20,
        "LINE_CHANNEL_ACCESS_TOKEN": "t" * 20,
        "PUBSUB_EMULATOR_HOST": None,
    }
    return Settings(_env_file=None, **{**base, **values})


def test_pubsub_mode_needs_a_project_and_a_way_to_authenticate_pushes() -> None:
    assert _settings().local_queue == "inprocess"
    with pytest.raises(ValidationError, match="GOOGLE_CLOUD_PROJECT"):
        _settings(LOCAL_QUEUE="pubsub")
    with pytest.raises(ValidationError, match="LOCAL_PUBSUB_PUSH_AUDIENCE"):
        _settings(LOCAL_QUEUE="pubsub", GOOGLE_CLOUD_PROJECT="p")
    with pytest.raises(ValidationError, match="LOCAL_PUBSUB_PUSH_AUDIENCE"):  # a token alone, no emulator
        _settings(LOCAL_QUEUE="pubsub", GOOGLE_CLOUD_PROJECT="p", LOCAL_PUBSUB_PUSH_TOKEN=PUSH_TOKEN)
    for given, missing in (
        (
            {"LOCAL_PUBSUB_PUSH_AUDIENCE": "https://local.example/pubsub/push"},
            "LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT",
        ),
        (
            {"LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT": "push@p.iam.gserviceaccount.com"},
            "LOCAL_PUBSUB_PUSH_AUDIENCE",
        ),
    ):
        with pytest.raises(ValidationError, match=f"go together \\(OIDC\\); {missing} is not set"):
            _settings(LOCAL_QUEUE="pubsub", GOOGLE_CLOUD_PROJECT="p", **given)
    with pytest.raises(ValidationError, match="at least 16"):
        _settings(
            LOCAL_QUEUE="pubsub",
            GOOGLE_CLOUD_PROJECT="p",
            PUBSUB_EMULATOR_HOST=EMULATOR,
            LOCAL_PUBSUB_PUSH_TOKEN="short",
        )
    with pytest.raises(ValidationError, match="LOCAL_PUBSUB_TOPIC"):
        _settings(LOCAL_PUBSUB_TOPIC="no spaces allowed")
    oidc = _settings(
        LOCAL_QUEUE="pubsub",
        GOOGLE_CLOUD_PROJECT="p",
        LOCAL_PUBSUB_PUSH_AUDIENCE="https://local.example/pubsub/push",
        LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT="push@p.iam.gserviceaccount.com",
    )
    assert (oidc.local_pubsub_topic, oidc.local_pubsub_subscription) == ("local-events", "local-events-push")
    emulator = _settings(
        LOCAL_QUEUE="pubsub",
        GOOGLE_CLOUD_PROJECT="p",
        PUBSUB_EMULATOR_HOST=EMULATOR,
        LOCAL_PUBSUB_PUSH_TOKEN=PUSH_TOKEN,
    )
    assert PUSH_TOKEN not in repr(emulator)


# -- the push endpoint ---------------------------------------------------------------------------
@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PUBSUB_EMULATOR_HOST", EMULATOR)  # the process env stays the test's
    with AppHarness(tmp_path / "local.sqlite3", settings=PUBSUB) as harness:
        yield harness


def push(
    app: AppHarness,
    event: InboundEvent | bytes,
    *,
    token: str | None = PUSH_TOKEN,
    message_id: str | None = None,
):
    data = event if isinstance(event, bytes) else encode_event(event)
    path = "/pubsub/push" + (f"?token={token}" if token is not None else "")
    assert app.client is not None
    return app.client.post(
        path, content=push_envelope(data, message_id=message_id), headers={"content-type": "application/json"}
    )


def test_a_pushed_text_is_answered_once_and_acknowledged_after_the_reply(app: AppHarness) -> None:
    user = "U" + "1" * 32
    event = inbound(user, "花壇有什麼好吃的店？")
    response = push(app, event, message_id="m1")
    assert (response.status_code, response.json()) == (200, {"status": "answered"})
    assert [r.body["chatId"] for r in app.line.loadings()] == [user]  # when the worker began
    assert len(app.line.replies()) == 1 and first_text(app.line.replies()[0]).startswith("花壇")
    again = push(app, event, message_id="m1")  # Pub/Sub redelivers (an ack that got lost)
    assert (again.status_code, again.json()) == (200, {"status": "duplicate"})
    assert len(app.line.replies()) == 1 and len(app.line.pushes()) == 0
    queue = app.client.get("/healthz").json()["queue"]
    assert (
        queue["mode"],
        queue["pushes"],
        queue["redeliveries"],
        queue["answered"],
        queue["duplicates"],
    ) == (
        "pubsub",
        2,
        1,
        1,
        1,
    )


def test_a_reply_line_refuses_is_not_acknowledged_and_the_redelivery_answers(app: AppHarness) -> None:
    user = "U" + "2" * 32
    event = inbound(user, "員林這週有什麼活動？")
    app.line.fail_next("/message/reply", 400, times=1, body={"message": "Bad request"})
    failed = push(app, event)
    assert (failed.status_code, failed.json()) == (503, {"status": "failed"})
    assert app.line.replies() == [] and app.line.pushes() == []
    retried = push(app, event)  # the lease was given back: no wait for it to lapse
    assert (retried.status_code, retried.json()) == (200, {"status": "answered"})
    assert len(app.line.replies()) == 1


def test_an_expired_reply_token_falls_back_to_push(app: AppHarness) -> None:
    user = "U" + "3" * 32
    event = inbound(user, "鹿港有什麼好吃的店？", received_at=1.0)  # accepted long ago
    assert push(app, event).status_code == 200
    assert app.line.replies() == [] and [p.body["to"] for p in app.line.pushes()] == [user]


def test_an_event_another_instance_holds_waits_for_its_lease(app: AppHarness) -> None:
    user = "U" + "4" * 32
    event = inbound(user, "溪湖有什麼好吃的店？")
    assert event.event_id is not None
    assert app.store.lease_event(event.event_id, holder="other/1", now=time.time(), lease=1.0) == "claimed"
    held = push(app, event)
    assert (held.status_code, held.json()) == (503, {"status": "held"})
    assert app.line.replies() == []
    time.sleep(1.1)  # the other holder died: its lease lapses and the next delivery takes over
    taken = push(app, event)
    assert (taken.status_code, taken.json()) == (200, {"status": "answered"})
    assert len(app.line.replies()) == 1


def test_an_unfollow_forgets_and_is_acknowledged_without_an_answer(app: AppHarness) -> None:
    user = "U" + "5" * 32
    app.store.set_consent(user, consent="granted", dietary_type="vegan", now=1.0)
    response = push(app, inbound(user, kind="unfollow"))
    assert (response.status_code, response.json()) == (200, {"status": "answered"})
    state = app.store.get(user)
    assert (state.consent, state.dietary_type, state.revision) == ("forgotten", None, 2)
    assert app.line.requests == []


@pytest.mark.parametrize(
    ("token", "status"),
    [(None, 401), ("", 403), ("wrong-token-0123456789", 403), (PUSH_TOKEN[:-1], 403)],
)
def test_a_push_without_the_token_is_refused_and_runs_nothing(
    app: AppHarness, token: str | None, status: int
) -> None:
    response = push(app, inbound("U" + "6" * 32, "花壇有什麼好吃的店？"), token=token)
    assert response.status_code == status
    assert app.line.requests == [] and app.store.audit_rows() == []


@pytest.mark.parametrize(
    "body", [b"", b"{}", b"[1]", b'{"message": {"data": "eA=="}}', b'{"message": "x"}', b"\xff"]
)
def test_a_body_that_is_not_an_envelope_is_a_clear_400(app: AppHarness, body: bytes) -> None:
    assert app.client is not None
    response = app.client.post(f"/pubsub/push?token={PUSH_TOKEN}", content=body)
    assert (response.status_code, response.json()) == (400, {"error": "not a push envelope"})


def test_a_message_that_is_not_an_event_is_dropped_not_redelivered_forever(app: AppHarness) -> None:
    response = push(app, b'{"hello": "world"}')
    assert (response.status_code, response.json()) == (200, {"status": "dropped"})
    assert app.line.requests == [] and app.client.get("/healthz").json()["queue"]["refused"] == 1


def test_inprocess_mode_has_no_push_endpoint(tmp_path: Path) -> None:
    with AppHarness(tmp_path / "local.sqlite3") as harness:
        assert harness.client is not None
        response = harness.client.post(f"/pubsub/push?token={PUSH_TOKEN}", content=push_envelope(b"{}"))
        assert response.status_code in (404, 405)
        assert harness.client.get("/healthz").json()["queue"]["mode"] == "inprocess"


def test_after_sigterm_no_push_is_started(app: AppHarness) -> None:
    app.app.state.shutdown.begin()  # what SIGTERM does first
    response = push(app, inbound("U" + "7" * 32, "花壇有什麼好吃的店？"))
    assert (response.status_code, response.json()) == (503, {"error": "not serving"})
    assert app.line.requests == [] and app.store.audit_rows() == []
    assert app.client is not None and app.client.get("/healthz").json()["status"] == "stopping"


def test_callback_answers_503_when_pubsub_does_not_confirm_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PUBSUB_EMULATOR_HOST", EMULATOR)  # nothing listens there
    settings = {**PUBSUB, "LOCAL_PUBSUB_PUBLISH_DEADLINE_SECONDS": "0.5"}
    with AppHarness(tmp_path / "local.sqlite3", settings=settings) as harness:
        started = time.monotonic()
        response = harness.send(W.text_event("U" + "8" * 32, "花壇有什麼好吃的店？"))
        assert (response.status_code, response.json()) == (503, {"error": "not queued"})  # LINE redelivers
        assert time.monotonic() - started < 5
        queue = harness.client.get("/healthz").json()["queue"]
        assert (queue["published"], queue["publish_failures"]) == (0, 1)
        assert harness.line.requests == [] and harness.store.audit_rows() == []
    # the failed publish is not retried behind the app's back: the publisher's commit thread ends (it
    # would otherwise retry forever, drawing its backoff from the global random module)
    deadline = time.monotonic() + 10
    while _commit_threads() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _commit_threads() == []


def _commit_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("Thread-CommitBatchPublisher")]


def test_a_worker_whose_lease_was_taken_over_delivers_nothing(app: AppHarness) -> None:
    """A worker that stalled past its lease (frozen, or its clock behind) while another instance
    took the event over: the renewal finds the lease gone and it sends nothing."""
    user = "U" + "9" * 32
    event = inbound(user, "花壇有什麼好吃的店？")
    assert event.event_id is not None
    app.line.delay_next("/chat/loading/start", 2.0)  # the turn is slow to start
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(push(app, event)))
    worker.start()
    time.sleep(0.5)
    # another instance, seeing this lease lapse on its clock, takes the event over
    assert (
        app.store.lease_event(event.event_id, holder="other/1", now=time.time() + 100, lease=60) == "claimed"
    )
    worker.join(30)
    (response,) = result
    assert (response.status_code, response.json()) == (503, {"status": "lost"})
    assert app.line.replies() == [] and app.line.pushes() == []


def test_a_push_cut_at_shutdown_gives_its_lease_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn cancels requests still open when its graceful wait ends: the push gets no 2xx
    (Pub/Sub redelivers it) and the lease is released, so another instance need not wait."""
    import asyncio

    monkeypatch.setenv("PUBSUB_EMULATOR_HOST", EMULATOR)
    settings = {**PUBSUB, "LOCAL_TURN_THREAD": "no", "LOCAL_EVENT_LEASE_SECONDS": "600"}
    with AppHarness(tmp_path / "local.sqlite3", settings=settings) as harness:
        event = inbound("U" + "c" * 32, "花壇有什麼好吃的店？")
        assert event.event_id is not None
        harness.line.delay_next("/chat/loading/start", 3.0)
        worker = harness.app.state.push_endpoint.worker

        async def cut() -> bool:
            task = asyncio.create_task(worker.run(event))
            await asyncio.sleep(0.5)
            assert worker.holding  # it holds the lease, mid-turn
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                return True
            return False

        assert harness.run(cut(), timeout=30)
        assert worker.holding == {}
        assert (
            harness.store.lease_event(event.event_id, holder="next/1", now=time.time(), lease=10) == "claimed"
        )


def test_an_oversized_push_is_refused_before_it_is_read(app: AppHarness) -> None:
    assert app.client is not None
    response = app.client.post(f"/pubsub/push?token={PUSH_TOKEN}", content=b"x" * (512 * 1024 + 1))
    assert (response.status_code, response.json()) == (413, {"error": "body too large"})
    assert app.line.requests == []
