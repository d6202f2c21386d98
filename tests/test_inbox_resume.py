"""The durable inbox in the app (``LOCAL_QUEUE=inprocess``): rows a dead process left are answered at
start, in order per chat, exactly once, by push with the apology naming the message's time; the
bad rows (a new channel secret, damage, a chat that unfollowed meanwhile, a store down at start);
a reply LINE refused is pushed again later; what ``/healthz`` counts; no plaintext in the file."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers_app import SECRET, AppHarness, texts_of

from local_agent.context.errors import StoreError
from local_agent.line.client import retry_key_for
from local_agent.line.inbound import InboundEvent
from local_agent.server.inbox import DurableInbox, InboxSeal, apology, too_late_text
from local_agent.server.inbox_turn import QUOTED_APOLOGY
from local_agent.stores.ports import InboxEntry
from local_agent.stores.sqlite import SqliteStore
from local_agent.testing import webhooks as W

USER, OTHER = "Uinbox0000000000000000000000000001", "Uinbox0000000000000000000000000002"
QUESTIONS = ("花壇有什麼店推薦吃吃看？", "鹿港最近有什麼活動？", "員林有什麼好吃的？")
FAST = {"LOCAL_EVENT_LEASE_SECONDS": "1"}  # sweeps every third of a second


def event(user: str, text: str, n: int, received_at: float) -> InboundEvent:
    return InboundEvent(
        kind="text",
        scope=W.scope_of(user),
        reply_to=user,
        event_id=f"01INBOXTEST{n:015d}",
        reply_token=f"inboxreplytoken{n:017d}",
        received_at=received_at,
        text=text,
    )


def leave_rows(
    path: Path, events: list[InboundEvent], *, secret: str = SECRET, lapse_in: float = -60.0
) -> None:
    """What a process killed after acknowledging ``events`` leaves: their rows, its lease lapsing
    ``lapse_in`` seconds from now (already lapsed by default)."""
    store = SqliteStore(path)
    dead = DurableInbox(
        store=store,
        seal=InboxSeal(secret),
        lease=1.0,
        holder="dead",
        clock=lambda: time.time() + lapse_in - 1.0,
    )  # type: ignore[arg-type]
    asyncio.run(dead.accept(events))
    store.close()


def health(app: AppHarness) -> dict[str, Any]:
    assert app.client is not None
    return app.client.get("/healthz").json()["queue"]["inbox"]


def wait_for(predicate: Any, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.slow
def test_rows_left_by_a_dead_process_are_answered_at_start_in_order_once_by_push_with_the_apology(
    tmp_path: Path,
) -> None:
    path = tmp_path / "local.db"
    came = time.time() - 120  # reply tokens long expired
    left = [event(USER, q, i, came + i) for i, q in enumerate(QUESTIONS)]
    left += [event(OTHER, QUESTIONS[0], 10, came + 0.5)]
    leave_rows(path, left)
    with AppHarness(path, settings=FAST) as app:
        assert app.wait_idle()
        pushes = app.line.pushes()
        assert len(pushes) == 4 and app.line.replies() == []
        to_user = [p for p in pushes if p.body["to"] == USER]
        assert [p.headers.get("x-line-retry-key") for p in to_user] == [
            retry_key_for(e.event_id or "") for e in left[:3]
        ]
        for push, answered in zip(to_user, left[:3], strict=True):
            first = texts_of(push)[0]
            assert first.startswith(apology(answered.received_at))
            assert answered.text not in json.dumps(push.body, ensure_ascii=False)  # never the user's words
        assert [o.tool_calls[0]["effective_arguments"]["area"] for o in app.outcomes_for(USER)] == [
            "花壇鄉",
            "鹿港鎮",
            "員林市",
        ]
        counts = health(app)
        assert counts["answered_after_restart"] == 4 and counts["answered"] == 4
        assert app.store.inbox_pending() == 0
    with AppHarness(path, settings=FAST) as again:  # a second restart answers nothing twice
        time.sleep(0.5)
        assert again.wait_idle() and again.line.requests == []


def test_a_row_older_than_the_age_limit_gets_only_the_apology_not_a_stale_search(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    old = event(USER, QUESTIONS[0], 1, time.time() - 3600)
    leave_rows(path, [old])
    with AppHarness(path, settings=FAST) as app:
        assert app.wait_idle()
        (push,) = app.line.pushes()
        assert texts_of(push) == [too_late_text(old.received_at)]
        assert app.outcomes == [] and app.store.inbox_pending() == 0


def test_unreadable_rows_are_dropped_with_a_clear_log_line_and_nothing_is_sent(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    leave_rows(
        path, [event(USER, QUESTIONS[0], 1, time.time() - 5)], secret="another-channel-secret-0123456789"
    )
    store = SqliteStore(path)
    damaged = InboxEntry(
        "01INBOXDAMAGED0000000000001", W.scope_of(OTHER).storage_id, time.time(), 0, b"LI1garbage"
    )
    store.inbox_accept([damaged], holder="dead", now=time.time() - 60, lease=1.0)
    store.close()
    logs = io.StringIO()
    with AppHarness(path, settings=FAST, log_stream=logs, log_level="INFO") as app:
        assert app.wait_idle()
        assert app.line.requests == [] and app.store.inbox_pending() == 0
        assert health(app)["dropped"] == 2
    lines = [json.loads(line) for line in logs.getvalue().splitlines() if "unreadable" in line]
    assert sorted(line["code"] for line in lines) == ["INBOX_CORRUPT", "INBOX_KEY_CHANGED"]


@pytest.mark.slow
def test_a_chat_that_unfollowed_meanwhile_is_not_answered(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    leave_rows(path, [event(USER, q, i, time.time() - 30 + i) for i, q in enumerate(QUESTIONS)], lapse_in=1.5)
    with AppHarness(path, settings=FAST) as app:
        assert app.turn(W.unfollow_event(USER)).status_code == 200  # before the dead lease lapses
        time.sleep(2.5)  # the rows lapse and the sweep finds them gone or dropped
        assert app.wait_idle()
        assert app.line.pushes() == [] and app.line.replies() == [] and app.outcomes == []
        assert app.store.inbox_pending() == 0 and health(app)["dropped"] == 3


class StoreDownAtStart:
    """The real SqliteStore whose inbox claims fail until ``up`` is set (a store down at start)."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner, self.up = inner, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def inbox_claim(self, **kwargs: Any) -> Any:
        if not self.up:
            raise StoreError(operation="inbox.claim", backend="sqlite")
        return self.inner.inbox_claim(**kwargs)


def test_a_store_down_at_start_still_serves_new_events_and_retries_the_resume(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    left = event(USER, QUESTIONS[1], 1, time.time() - 120)
    leave_rows(path, [left])
    store = StoreDownAtStart(SqliteStore(path))
    logs = io.StringIO()
    with AppHarness(path, settings=FAST, store=store, log_stream=logs, log_level="INFO") as app:
        app.turn(W.text_event(OTHER, QUESTIONS[0]))  # a new event is answered meanwhile
        assert len(app.line.replies()) == 1 and app.line.pushes() == []
        assert "inbox resume failed at start" in logs.getvalue()
        store.up = True
        assert wait_for(lambda: len(app.line.pushes()) == 1)
        assert app.line.pushes()[0].body["to"] == USER and app.store.inbox_pending() == 0
    store.inner.close()


def test_a_duplicate_webhook_during_the_resume_is_answered_once(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    live = W.text_event(USER, QUESTIONS[0])
    parsed = event(USER, QUESTIONS[0], 0, time.time() - 100)
    leave_rows(path, [dataclasses.replace(parsed, event_id=live["webhookEventId"])])
    with AppHarness(path, settings=FAST) as app:
        app.turn(live)  # LINE redelivers the same event while the resume runs
        assert app.wait_idle()
        assert len(app.line.pushes()) + len(app.line.replies()) == 1 and len(app.outcomes) == 1


def test_a_reply_line_refused_is_pushed_once_line_answers_again(tmp_path: Path) -> None:
    with AppHarness(tmp_path / "local.db", settings=FAST) as app:
        app.app.state.inbox.retry_seconds = 0.3
        app.line.fail_next("/message/reply", 500, times=3)  # the first try and both retries
        sent = W.text_event(USER, QUESTIONS[0])
        app.turn(sent)
        assert app.line.replies() == []
        assert wait_for(lambda: len(app.line.pushes()) == 1)
        (push,) = app.line.pushes()
        # pushed late: it quotes the message it answers, after a short apology
        assert texts_of(push)[0].startswith(QUOTED_APOLOGY + "花壇鄉找到")
        assert push.body["messages"][0]["quoteToken"] == sent["message"]["quoteToken"]
        assert wait_for(lambda: health(app)["delivered_on_retry"] == 1)
        counts = health(app)
        assert counts["failed_to_deliver"] == 1 and counts["accepted"] == 1 and counts["answered"] == 1
        assert app.store.inbox_pending() == 0 and len(app.outcomes) == 1


def test_while_events_are_pending_the_database_holds_no_plaintext_user_text(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    secret_words = "我的電話是0912345678，我有糖尿病"
    leave_rows(path, [event(USER, f"花壇有什麼吃的？{secret_words}", 1, time.time())], lapse_in=600)
    blobs = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("local.db"))
    assert SqliteStore(path).inbox_pending() == 1
    for needle in (secret_words, "0912345678", "糖尿病", "花壇有什麼吃的", USER):
        assert needle.encode("utf-8") not in blobs


class InboxDown:
    """The real SqliteStore whose inbox writes fail while ``down`` is set."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner, self.down = inner, True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def inbox_accept(self, *args: Any, **kwargs: Any) -> Any:
        if self.down:
            raise StoreError(operation="inbox.accept", backend="sqlite")
        return self.inner.inbox_accept(*args, **kwargs)


def test_an_event_the_inbox_cannot_keep_is_refused_with_503_and_nothing_runs(tmp_path: Path) -> None:
    store = InboxDown(SqliteStore(tmp_path / "local.db"))
    logs = io.StringIO()
    with AppHarness(tmp_path / "local.db", store=store, log_stream=logs, log_level="INFO") as app:
        event = W.text_event(USER, QUESTIONS[0])
        response = app.send(event)
        assert response.status_code == 503 and response.json()["error"] == "store unavailable"
        assert app.wait_idle() and app.line.requests == [] and app.outcomes == []
        assert "inbox not written, asking LINE to redeliver" in logs.getvalue()
        store.down = False
        app.turn(event)  # LINE redelivers it: now kept and answered, once
        assert len(app.line.replies()) == 1 and health(app)["accepted"] == 1
        assert app.store.inbox_pending() == 0
    store.inner.close()
