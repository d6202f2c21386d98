"""The inbox's review fixes, each against the real parts: a turn whose delivery fails with
something other than a LINE refusal gives its row back (it is tried again, and a reply LINE had
already taken is not sent twice); the in-flight ids shared by the webhook's loop and the turn loop
never let a sweep queue an event the turn loop finished meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers_app import TOKEN, AppHarness
from test_inbox_resume import FAST, OTHER, QUESTIONS, USER, event, health, leave_rows, wait_for

from local_agent.line.client import retry_key_for
from local_agent.server.inbox import DurableInbox, InboxSeal
from local_agent.stores.sqlite import SqliteStore
from local_agent.testing import webhooks as W

SECRET = "inbox-fixes-channel-secret-0123456789"
THIRD = "Uinbox0000000000000000000000000003"
HI = [{"type": "text", "text": "ok"}]


def test_a_delivery_that_fails_unreadably_gives_its_row_back_and_is_not_answered_twice(
    tmp_path: Path,
) -> None:
    """LINE takes the reply but answers 200 with a body the SDK cannot read (not a delivery error):
    the row is handed back instead of renewed until a restart; its retry finds the reply token used,
    so LINE's one answer stands."""
    with AppHarness(tmp_path / "local.db", settings=FAST) as app:
        app.app.state.inbox.retry_seconds = 0.3
        app.line.garble_next("/message/reply", {"sentMessages": "not a list"})
        app.send(W.text_event(USER, QUESTIONS[0]))
        assert wait_for(lambda: app.store.inbox_pending() == 0, timeout=10)
        assert app.wait_idle()
        counts = health(app)
        assert counts["handed_back"] == 1 and counts["already_answered"] == 1
        assert len(app.line.replies()) == 1 and app.line.pushes() == []


class ClaimThenFinish:
    """The real SqliteStore; right after a claim returns, ``between`` runs (on another thread's
    loop: the turn loop finishing the event) before the sweep opens the rows."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner
        self.between: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def inbox_claim(self, **kwargs: Any) -> Any:
        rows = self.inner.inbox_claim(**kwargs)
        if self.between is not None:
            self.between()
        return rows


def test_an_event_finished_on_the_turn_loop_during_a_sweeps_claim_is_not_queued_again(tmp_path: Path) -> None:
    store = ClaimThenFinish(SqliteStore(tmp_path / "local.db"))
    now = [time.time()]
    inbox = DurableInbox(
        store=store,  # type: ignore[arg-type]
        seal=InboxSeal(SECRET),
        lease=1.0,
        clock=lambda: now[0],
    )
    accepted = event(USER, QUESTIONS[0], 1, now[0])
    turn_loop = asyncio.new_event_loop()
    thread = threading.Thread(target=turn_loop.run_forever, daemon=True)
    thread.start()
    try:
        assert asyncio.run(inbox.accept([accepted])) == [accepted]
        now[0] += 2.0  # its renewal failed: the lease lapsed, and this process's sweep claims it back

        def finish_on_turn_loop() -> None:  # meanwhile the turn answered it and deletes the row
            asyncio.run_coroutine_threadsafe(inbox.done(accepted), turn_loop).result(5)

        store.between = finish_on_turn_loop
        assert asyncio.run(inbox.sweep(room=10)) == []  # not queued a second time
        assert store.inner.inbox_pending() == 0 and len(inbox.in_flight) == 0
    finally:
        turn_loop.call_soon_threadsafe(turn_loop.stop)
        thread.join(5)
        store.inner.close()


def _as_the_dead_holder(app: AppHarness, path: str, body: dict[str, Any], **headers: str) -> None:
    """What a killed process did before it died: its call reached LINE (and was taken)."""
    response = httpx.post(
        f"{app.line.base_url}{path}", json=body, headers={"Authorization": f"Bearer {TOKEN}", **headers}
    )
    assert response.status_code == 200


@pytest.mark.slow
def test_after_a_kill_the_next_owner_sends_no_second_answer_that_line_can_recognise(tmp_path: Path) -> None:
    """Rows of events a killed process had answered (LINE took the reply or the push) but not yet
    deleted: a young reply token refused as used, or a push's retry key answered 409, tells the
    next owner; it sends nothing more. A row it had not answered is answered once."""
    path = tmp_path / "local.db"
    now = time.time()
    replied = event(USER, QUESTIONS[0], 1, now - 5)  # token young: the next owner tries it
    pushed = event(OTHER, QUESTIONS[1], 2, now - 120)  # token old: it pushes with the retry key
    untouched = event(THIRD, QUESTIONS[2], 3, now - 5)
    leave_rows(path, [replied, pushed, untouched], lapse_in=1.0)
    with AppHarness(path, settings=FAST) as app:
        _as_the_dead_holder(app, "/v2/bot/message/reply", {"replyToken": replied.reply_token, "messages": HI})
        _as_the_dead_holder(
            app,
            "/v2/bot/message/push",
            {"to": OTHER, "messages": HI},
            **{"X-Line-Retry-Key": retry_key_for(pushed.event_id or "")},
        )
        assert wait_for(lambda: app.store.inbox_pending() == 0, timeout=15)
        assert app.wait_idle()
        counts = health(app)
        assert counts["already_answered"] == 1  # the used token
        assert counts["answered_after_restart"] == 2  # the 409 counts as delivered, the untouched once
        shown = [r for r in app.line.requests if r.kind in ("reply", "push") and r.accepted]
        assert len(shown) == 3  # the dead holder's two, and the untouched event's one: none twice
        assert [r.body.get("replyToken") for r in shown if r.kind == "reply"] == [
            replied.reply_token,
            untouched.reply_token,
        ]
