"""End to end: signed webhook → ADK Runner → offline model → tool → reply at the fake LINE API.

Real components throughout (FastAPI app, SDK parser, dispatcher, ADK ``Runner``, offline model,
SQLite store, the SDK's async LINE client); the only fake is the LINE API server. One test runs
under a real uvicorn server over real HTTP; the rest drive the app in-process.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import time
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from helpers_app import SECRET, TOKEN, AppHarness, HangingModel, UvicornHarness, first_text

from local_agent.agent.offline_rules import ASK_TOWNSHIP
from local_agent.context.canonical import canonical_json
from local_agent.context.errors import StoreError
from local_agent.context.projection import (
    MODEL_PROJECTION,
    NON_PUBLIC_LABEL,
    SUMMARY_ACK,
    SUMMARY_MARKER,
    USER_PROJECTION_PREFIX,
)
from local_agent.line.client import retry_key_for
from local_agent.replies.render import HELP_TEXT, POLITE_FAILURE
from local_agent.stores.sqlite import SqliteStore
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi
from local_agent.turns.commands import parse_postback

USER, OTHER, GROUP = (
    "Ue2e00000000000000000000000000001",
    "Ue2e00000000000000000000000000002",
    "Ge2e0000000001",
)

# The seed's offline five-turn conversation: 花壇 food → 花壇 events → parking → bus → reference.
FIVE_TURNS = (
    "花壇有什麼蔬食推薦？",
    "花壇最近有什麼活動？",
    "花壇火車站附近哪裡可以停車？",
    "要怎麼搭公車過去？",
    "剛才那個鄉鎮，再找一家吃的。",
)
# The seed's three-turn LINE conversation (圖 2).
THREE_TURNS = ("花壇有什麼店推薦吃吃看？", "八卦山步道有什麼活動？", "剛才那個鄉鎮，再找一家吃的")
SUMMARY_LINE = SUMMARY_MARKER + '{"area": "花壇鄉", "goal": "events"}'
FOOD_HUATAN = "花壇有什麼店推薦吃吃看？"


@pytest.fixture
def app(tmp_path: Path):
    with AppHarness(tmp_path / "local.sqlite3") as harness:
        yield harness


def model_texts(outcome) -> list[str]:
    """The contents of the (single) model request of a turn, as texts."""
    assert len(outcome.model_requests) == 1
    return [c["text"] for c in outcome.model_requests[0]["contents"]]


def run_conversation(app: AppHarness, texts, user: str = USER, group: str | None = None) -> list:
    outcomes = []
    for text in texts:
        before = len(app.outcomes)
        response = app.turn(W.text_event(user, text, group=group))
        assert response.status_code == 200
        assert len(app.outcomes) == before + 1, text
        outcomes.append(app.outcomes[-1])
    return outcomes


# -- real HTTP under uvicorn ---------------------------------------------------------------------


def test_true_http_three_turn_line_conversation_returns_huatan_places(tmp_path: Path) -> None:
    with UvicornHarness(tmp_path / "local.sqlite3") as server:
        assert server.http.get("/healthz").json()["status"] == "ok"

        follow = W.follow_event(USER)
        assert server.turn(follow).status_code == 200
        greeting = server.line.replies()[-1]
        assert greeting.body["replyToken"] == follow["replyToken"]
        assert first_text(greeting) == HELP_TEXT

        events = [W.text_event(USER, text) for text in THREE_TURNS]
        for event in events:
            response = server.turn(event)
            assert response.status_code == 200 and response.json()["accepted"] == 1
        outcomes = server.outcomes[1:]
        assert [o.tool_calls[0]["tool"] for o in outcomes] == [
            "search_local_places",
            "search_local_events",
            "search_local_places",
        ]
        assert [o.tool_calls[0]["effective_arguments"]["area"] for o in outcomes] == ["花壇鄉"] * 3
        # turn 3 resolved 剛才那個鄉鎮 from the window (花壇 is still within the two turns)
        # (with the ids of the four 花壇 places turn 1 showed)
        assert model_texts(outcomes[2])[0] == (
            f"{USER_PROJECTION_PREFIX}花壇鄉：找店家。不包含當次素別，不代表同意或服務完成。"
            "已列出編號：p001,p002,p003,p004"
        )
        assert outcomes[2].model_requests[0]["summary_dropped"] is False

        by_token = {r.body["replyToken"]: r for r in server.line.replies()}
        first = by_token[events[0]["replyToken"]]
        assert first_text(first).startswith("花壇鄉找到")
        flex = [m for m in first.body["messages"] if m["type"] == "flex"]
        assert flex and flex[0]["contents"]["type"] == "carousel"
        assert "花壇鄉" in json.dumps(flex[0], ensure_ascii=False)
        # 「再找一家」: all four were shown in turn 1, and the reply says so
        last = by_token[events[2]["replyToken"]]
        assert first_text(last).startswith("花壇鄉符合的店家都列過了（共 4 家）")
        # loading animation once per text message, 1:1 only
        assert [r.body["chatId"] for r in server.line.loadings()] == [USER] * 3

        # over real HTTP too: a bad signature is refused and a redelivery is not processed twice
        body, headers = W.signed(SECRET, W.text_event(USER, FOOD_HUATAN))
        assert server.post(body, {**headers, "x-line-signature": "bm9wZQ=="}).status_code == 400
        replies = len(server.line.replies())
        assert server.turn(events[0]).status_code == 200
        assert len(server.line.replies()) == replies and len(server.outcomes) == 4


# -- context through the webhook ----------------------------------------------------------------


def test_five_turn_conversation_resolves_turn_five_to_huatan_through_the_summary(app: AppHarness) -> None:
    outcomes = run_conversation(app, FIVE_TURNS[:4])
    assert [o.projection for o in outcomes] == [
        "花壇鄉：找店家",
        "花壇鄉：查活動",
        NON_PUBLIC_LABEL,
        NON_PUBLIC_LABEL,
    ]
    assert app.journal(USER)["summary"] == {"goal": "events", "area": "花壇鄉"}

    (fifth,) = run_conversation(app, FIVE_TURNS[4:])
    sent = model_texts(fifth)
    assert sent[0] == SUMMARY_LINE
    assert sent[1] == SUMMARY_ACK
    assert (
        sent[2]
        == sent[4]
        == f"{USER_PROJECTION_PREFIX}{NON_PUBLIC_LABEL}。不包含當次素別，不代表同意或服務完成。"
    )
    assert sent[3] == sent[5] == MODEL_PROJECTION
    assert sent[6] == FIVE_TURNS[4] and len(sent) == 7
    assert not any(t in "".join(sent[:-1]) for t in FIVE_TURNS)  # no earlier raw text in the request
    assert fifth.model_requests[0]["summary_dropped"] is False
    (call,) = fifth.tool_calls
    assert call["tool"] == "search_local_places"
    assert call["proposed_arguments"] == {"area": "花壇鄉", "dietary_type": "", "keyword": "", "more": True}
    assert first_text(app.line.replies()[-1]).startswith("花壇鄉找到")


def _contents(texts_and_roles) -> list[dict]:
    return [{"role": c["role"], "parts": [{"text": c["text"]}]} for c in texts_and_roles]


def _item_bytes(items: list[dict]) -> int:
    """Bytes these contents add to the canonical JSON request (each item plus its comma)."""
    return sum(len(canonical_json(i).encode("utf-8")) + 1 for i in items)


def test_budget_that_forces_summary_dropped_makes_the_offline_model_ask_which_township(
    tmp_path: Path,
) -> None:
    # Run 1 (default budget): measure turn 5's whole request.
    with AppHarness(tmp_path / "measure.sqlite3") as first:
        fifth = run_conversation(first, FIVE_TURNS)[-1]
    request = fifth.model_requests[0]
    items = _contents(request["contents"])
    full = request["count"]
    summary_only = full - _item_bytes(items[2:6])
    nothing = summary_only - _item_bytes(items[0:2])
    budget = summary_only - 1  # the request fits without the summary, not with it
    assert nothing <= budget < summary_only

    # Run 2: same conversation under that budget.
    with AppHarness(tmp_path / "budget.sqlite3", settings={"LOCAL_INPUT_BUDGET": budget}) as second:
        outcomes = run_conversation(second, FIVE_TURNS[:4])
        assert all(o.error_code is None for o in outcomes)
        assert second.journal(USER)["summary"] == {"goal": "events", "area": "花壇鄉"}  # the clue is stored
        (fifth,) = run_conversation(second, FIVE_TURNS[4:])
        request = fifth.model_requests[0]
        assert request["summary_dropped"] is True and request["dropped_turns"] == 2
        assert model_texts(fifth) == [FIVE_TURNS[4]]
        assert request["count"] == nothing <= budget
        # asked by running the search with no area: nothing searched, the question is pending
        assert [c["effective_arguments"] for c in fifth.tool_calls] == [{}]
        assert fifth.projection == "未指定區域：找店家"
        assert first_text(second.line.replies()[-1]).startswith(ASK_TOWNSHIP)


def test_consent_search_forget_search_through_the_webhook(app: AppHarness) -> None:
    app.turn(W.text_event(USER, "記住我吃素"))
    prompt = app.line.replies()[-1].body["messages"][-1]
    items = prompt["quickReply"]["items"]
    assert [parse_postback(i["action"]["data"]) for i in items] == [
        (True, "vegetarian"),
        (False, "vegetarian"),
    ]

    app.turn(W.postback_event(USER, items[0]["action"]["data"]))
    assert app.outcomes[-1].command == "consent_granted"
    app.turn(W.text_event(USER, FOOD_HUATAN))
    remembered = app.outcomes[-1]
    app.turn(W.text_event(USER, "忘記我的飲食偏好"))
    assert app.outcomes[-1].command == "forget"
    app.turn(W.text_event(USER, FOOD_HUATAN))
    forgotten = app.outcomes[-1]

    proposed = {"area": "花壇鄉", "dietary_type": "", "keyword": ""}
    (before,) = remembered.tool_calls
    assert before["proposed_arguments"] == proposed
    assert (before["memory_revision"], before["preference_origin"]) == (1, "consented_memory")
    assert before["effective_arguments"] == {"area": "花壇鄉", "dietary_type": "vegetarian", "keyword": ""}
    (after,) = forgotten.tool_calls
    assert after["proposed_arguments"] == proposed
    assert (after["memory_revision"], after["preference_origin"]) == (2, "none")
    assert after["effective_arguments"] == {"area": "花壇鄉", "dietary_type": "any", "keyword": ""}
    # the window was projected again under the new revision: the township, nothing of the diet
    sent = model_texts(forgotten)
    assert sent[-1] == FOOD_HUATAN and any("花壇鄉：找店家" in t for t in sent[:-1])
    assert not any(w in t for t in sent[:-1] for w in ("吃素", "素食", "vegetarian"))
    # the audit rows in SQLite say the same, except that the forget replaced the remembered diet
    rows = app.store.audit_rows(W.scope_of(USER).storage_id)
    assert [
        (r.memory_revision, r.preference_origin, r.effective_arguments["dietary_type"]) for r in rows
    ] == [(1, "consented_memory", "#forgotten"), (2, "none", "any")]
    assert app.store.get(USER).consent == "forgotten"


def test_two_users_and_a_group_interleaved_never_see_each_others_context(app: AppHarness) -> None:
    first = [
        (USER, None, "花壇有什麼店推薦吃吃看？"),
        (OTHER, None, "鹿港有什麼活動？"),
        (USER, GROUP, "員林有什麼好吃的？"),
        (OTHER, GROUP, "田中有什麼活動？"),
    ]
    for user, group, text in first:
        app.turn(W.text_event(user, text, group=group, mention=group is not None))
    follow_up = "剛才那個鄉鎮，再找一家吃的。"
    expected = {
        (USER, None): "花壇鄉",
        (OTHER, None): "鹿港鎮",
        (USER, GROUP): "員林市",
        (OTHER, GROUP): "田中鎮",
    }
    towns = set(expected.values())
    for (user, group), town in expected.items():
        app.turn(W.text_event(user, follow_up, group=group, mention=group is not None))
        outcome = app.outcomes[-1]
        sent = "".join(model_texts(outcome))
        assert [t for t in towns if t in sent] == [town], (user, group, sent)
        assert outcome.tool_calls[0]["effective_arguments"]["area"] == town
        journal = app.journal(user, group)
        assert all(label.startswith(town) for label in journal["turns"]), journal
    # a scope nobody used has nothing, even for a user present in the group
    app.turn(W.text_event(USER, follow_up, room="Rroom0001", mention=True))
    assert model_texts(app.outcomes[-1]) == [follow_up]
    assert [c["effective_arguments"] for c in app.outcomes[-1].tool_calls] == [{}]
    assert first_text(app.line.replies()[-1]).startswith(ASK_TOWNSHIP)
    # group replies went to the group's reply token / chat, never to a 1:1 push
    assert app.line.pushes() == []


def test_three_turn_line_conversation_in_process(app: AppHarness) -> None:
    outcomes = run_conversation(app, THREE_TURNS)
    assert outcomes[-1].tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"
    assert first_text(app.line.replies()[0]).startswith("花壇鄉找到")
    # 「再找一家」 after all four 花壇 places were shown: says there are no more
    assert first_text(app.line.replies()[-1]).startswith("花壇鄉符合的店家都列過了（共 4 家）")


# -- LINE edge behaviour --------------------------------------------------------------------------


def test_follow_event_gets_the_greeting_and_no_loading(app: AppHarness) -> None:
    event = W.follow_event(USER)
    app.turn(event)
    (reply,) = app.line.replies()
    assert reply.body["replyToken"] == event["replyToken"] and first_text(reply) == HELP_TEXT
    assert app.line.loadings() == []
    assert app.outcomes[-1].command == "greeting"


def test_loading_animation_only_in_one_to_one_chats(app: AppHarness) -> None:
    app.turn(W.text_event(USER, FOOD_HUATAN))
    app.turn(W.text_event(USER, FOOD_HUATAN, group=GROUP, mention=True))
    app.turn(W.text_event(USER, FOOD_HUATAN, room="Rroom0001", mention=True))
    assert len(app.line.replies()) == 3
    assert [(r.body["chatId"], r.body["loadingSeconds"]) for r in app.line.loadings()] == [(USER, 20)]


def test_expired_or_spent_reply_token_falls_back_to_push_with_retry_key(app: AppHarness) -> None:
    expired = W.text_event(USER, FOOD_HUATAN)
    app.line.expire_reply_token(expired["replyToken"])
    app.turn(expired)
    (push,) = app.line.pushes()
    assert push.body["to"] == USER
    assert push.headers["x-line-retry-key"] == retry_key_for(expired["webhookEventId"])
    assert app.line.replies() == []

    spent = W.text_event(USER, FOOD_HUATAN, group=GROUP, mention=True)  # a token LINE already saw used
    reuse = W.text_event(OTHER, FOOD_HUATAN, group=GROUP, mention=True)
    reuse["replyToken"] = spent["replyToken"]
    app.turn(spent)
    app.turn(reuse)
    assert len(app.line.replies()) == 1
    group_push = app.line.pushes()[-1]
    assert group_push.body["to"] == GROUP  # a group turn is pushed to the group, not the user
    assert group_push.headers["x-line-retry-key"] == retry_key_for(reuse["webhookEventId"])

    app.gateway.reply_token_max_age = 0  # a token too old to try: push directly
    late = W.text_event(USER, FOOD_HUATAN)
    app.turn(late)
    assert [r.body["replyToken"] for r in app.line.attempts("reply")].count(late["replyToken"]) == 0
    assert app.line.pushes()[-1].headers["x-line-retry-key"] == retry_key_for(late["webhookEventId"])


def _record_processing(app: AppHarness) -> list[tuple[str, int, str]]:
    """Wrap the dispatcher's submit so the test sees submit/start/end of every job, with its
    scope (on submit) and its text (on the turn)."""
    log: list[tuple[str, int, str]] = []
    counter = itertools.count()
    original = app.dispatcher.submit
    running: dict[str, int] = {}

    def submit(scope, job):
        n = next(counter)

        async def wrapped():
            log.append(("start", n, scope))
            running[scope] = n
            try:
                await job()
            finally:
                log.append(("end", n, scope))

        accepted = original(scope, wrapped)
        log.append(("submit", n, scope))
        return accepted

    def observe(event, outcome):
        log.append(("turn", running[event.scope.storage_id], event.text))

    app.dispatcher.submit = submit
    app.app.state.observers.append(observe)
    return log


def _processed_in_order(log: list[tuple[str, int, str]], scope: str) -> list[str]:
    """Assert the scope's jobs ran one at a time in submit order; return their texts in that order."""
    submitted = [n for kind, n, s in log if kind == "submit" and s == scope]
    runs = [(kind, n) for kind, n, s in log if kind in ("start", "end") and s == scope]
    assert runs == [x for n in submitted for x in (("start", n), ("end", n))]
    texts = {n: text for kind, n, text in log if kind == "turn"}
    return [texts[n] for n in submitted]


TOWNS = ["花壇", "鹿港", "員林", "田中", "溪湖", "和美", "北斗", "二林", "芬園", "社頭"]


def test_order_per_scope_when_ten_events_arrive_in_one_body(app: AppHarness) -> None:
    events = [W.text_event(USER, f"{town}有什麼活動？") for town in TOWNS]
    log = _record_processing(app)
    app.turn(*events)
    assert _processed_in_order(log, W.scope_of(USER).storage_id) == [e["message"]["text"] for e in events]
    assert [r.body["replyToken"] for r in app.line.replies()] == [e["replyToken"] for e in events]
    snapshots = app.store.snapshots(W.scope_of(USER).storage_id)
    assert [s.turn_id for s in snapshots] == [e["webhookEventId"] for e in events]


def test_order_per_scope_with_ten_concurrent_requests(app: AppHarness) -> None:
    mine = [W.text_event(USER, f"{town}有什麼好吃的？") for town in TOWNS]
    theirs = [W.text_event(OTHER, f"{town}有什麼活動？") for town in TOWNS]
    log = _record_processing(app)
    responses = app.send_concurrently([[e] for pair in zip(mine, theirs, strict=True) for e in pair])
    assert [r.status_code for r in responses] == [200] * 20
    assert app.wait_idle(60)
    for events in (mine, theirs):
        scope = W.scope_of(events[0]["source"]["userId"]).storage_id
        order = _processed_in_order(log, scope)
        assert sorted(order) == sorted(e["message"]["text"] for e in events)
        text_of = {e["replyToken"]: e["message"]["text"] for e in events}
        replied = [
            text_of[r.body["replyToken"]] for r in app.line.replies() if r.body["replyToken"] in text_of
        ]
        assert replied == order  # replies leave in the order the scope processed them
    # the two scopes did run alongside each other (the per-scope order is not a global lock)
    running, most = 0, 0
    for kind, _, _ in log:
        running += {"start": 1, "end": -1}.get(kind, 0)
        most = max(most, running)
    assert most == 2


def test_redelivered_event_is_processed_once(app: AppHarness) -> None:
    event = W.text_event(USER, FOOD_HUATAN)
    app.turn(event, event)  # twice in one body
    app.turn(event)  # again in a later request
    redelivered = dict(event, deliveryContext={"isRedelivery": True})
    app.turn(redelivered)
    assert len(app.outcomes) == 1 and len(app.line.replies()) == 1 and app.line.pushes() == []

    concurrent = W.text_event(OTHER, FOOD_HUATAN)
    responses = app.send_concurrently([[concurrent]] * 6)
    assert [r.status_code for r in responses] == [200] * 6
    assert app.wait_idle()
    assert len(app.outcomes_for(OTHER)) == 1
    assert len([r for r in app.line.replies() if r.body["replyToken"] == concurrent["replyToken"]]) == 1
    assert len(app.store.snapshots(W.scope_of(OTHER).storage_id)) == 1


def test_dedupe_holds_across_an_app_restart_on_the_same_sqlite_file(tmp_path: Path) -> None:
    event = W.text_event(USER, FOOD_HUATAN)
    with FakeLineApi(access_token=TOKEN) as line:
        with AppHarness(tmp_path / "local.sqlite3", line=line) as first:
            first.turn(event)
            assert len(first.outcomes) == 1
        with AppHarness(tmp_path / "local.sqlite3", line=line) as second:
            assert second.turn(event).status_code == 200
            assert second.outcomes == []
            second.turn(W.text_event(USER, FOOD_HUATAN))  # a new event still works
            assert len(second.outcomes) == 1
        assert len(line.replies()) == 2


def test_graceful_shutdown_finishes_in_flight_turns(tmp_path: Path) -> None:
    # The longest drain Cloud Run allows (its 10 s before SIGKILL), so a loaded machine's slow first
    # turn still starts its reply in the window; the default window is the shutdown tests' subject.
    app = AppHarness(tmp_path / "local.sqlite3", settings={"LOCAL_DRAIN_SECONDS": "9"}).start()
    app.line.delay_next("/message/reply", 0.3, times=3)  # keep the turns in flight a while
    events = [
        W.text_event(USER, FOOD_HUATAN),
        W.text_event(OTHER, "鹿港有什麼活動？"),
        W.follow_event("Ufollower00000000000000000000000"),
    ]
    assert app.send(*events).status_code == 200
    line = app.line
    app._owns_line = False  # keep the fake up to inspect it after the app is gone
    try:
        app.stop()  # at once: the lifespan drains what was accepted
        assert sorted(r.body["replyToken"] for r in line.replies()) == sorted(e["replyToken"] for e in events)
        assert len(app.outcomes) == 3
    finally:
        line.stop()


def test_webhook_after_the_drain_keeps_the_event_for_the_next_start(app: AppHarness) -> None:
    app.run(app.dispatcher.drain(timeout=5))
    response = app.send(W.text_event(USER, FOOD_HUATAN))
    assert response.status_code == 200 and response.json()["left_for_next_start"] == 1
    assert app.outcomes == [] and app.line.requests == []
    assert app.store.inbox_pending() == 1  # durable: the next start answers it


def test_webhook_after_shutdown_began_answers_503(app: AppHarness) -> None:
    app.app.state.admission.close()  # what SIGTERM does first
    response = app.send(W.text_event(USER, FOOD_HUATAN))
    assert response.status_code == 503
    assert app.outcomes == [] and app.line.requests == [] and app.store.inbox_pending() == 0


# -- failures inside a turn ------------------------------------------------------------------------


class FailingStore:
    """The real SqliteStore, with switches that make chosen operations raise StoreError."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner
        self.fail: set[str] = set()

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def _check(self, operation: str) -> None:
        if operation in self.fail:
            raise StoreError(operation=operation, backend="sqlite")

    def update(self, scope_id, mutate):
        self._check("update")
        return self.inner.update(scope_id, mutate)

    def delete(self, scope_id):
        self._check("delete")
        return self.inner.delete(scope_id)

    def append_audit(self, row):
        self._check("append_audit")
        return self.inner.append_audit(row)


def test_store_failure_during_a_turn_answers_politely_and_writes_nothing_stale(tmp_path: Path) -> None:
    store = FailingStore(SqliteStore(tmp_path / "local.sqlite3"))
    with AppHarness(tmp_path / "local.sqlite3", store=store) as app:
        app.turn(W.text_event(USER, FOOD_HUATAN))
        rows = app.store.journal_rows()
        assert len(rows) == 1

        for operation, text in (("update", "鹿港有什麼活動？"), ("append_audit", "員林有什麼好吃的？")):
            store.fail = {operation}
            app.turn(W.text_event(USER, text))
            assert first_text(app.line.replies()[-1]) == POLITE_FAILURE
            assert app.outcomes[-1].error_code == "STORE_UNAVAILABLE"
            store.fail = set()
            assert app.store.journal_rows() == rows  # unchanged

        # the next turn sees the window as it was before the failures: only 花壇
        app.turn(W.text_event(USER, "剛才那個鄉鎮，再找一家吃的。"))
        sent = model_texts(app.outcomes[-1])
        assert "鹿港" not in "".join(sent) and "員林" not in "".join(sent)
        assert app.outcomes[-1].tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"

        # forget while the journal cannot be cleared: the revision bump still hides the old window
        store.fail = {"delete", "update"}
        app.turn(W.text_event(USER, "忘記我的飲食偏好"))
        assert app.outcomes[-1].command == "forget"
        store.fail = set()
        assert app.store.journal_rows() != {}  # the old row is still there ...
        app.turn(W.text_event(USER, "剛才那個鄉鎮，再找一家吃的。"))
        assert model_texts(app.outcomes[-1]) == ["剛才那個鄉鎮，再找一家吃的。"]  # ... but never read
        assert first_text(app.line.replies()[-1]).startswith(ASK_TOWNSHIP)
        assert app.dispatcher.failures == 0


class RaisingModel(BaseLlm):
    """A model whose transport always fails."""

    model: str = "raising-test-model"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        raise RuntimeError("model transport down")
        yield  # pragma: no cover  (makes this an async generator)


def test_model_raising_answers_politely_and_writes_no_journal(tmp_path: Path) -> None:
    with AppHarness(tmp_path / "local.sqlite3", model=RaisingModel()) as app:
        app.turn(W.text_event(USER, FOOD_HUATAN))
        app.turn(W.text_event(USER, "鹿港有什麼活動？"))
        assert [first_text(r) for r in app.line.replies()] == [POLITE_FAILURE] * 2
        assert [o.error_code for o in app.outcomes] == ["MODEL_UNAVAILABLE"] * 2
        assert app.store.journal_rows() == {}
        assert app.store.audit_rows() == []
        assert app.dispatcher.failures == 0


def test_hung_model_call_times_out_with_an_apology_and_frees_the_scope(tmp_path: Path) -> None:
    with AppHarness(tmp_path / "local.sqlite3", model=HangingModel()) as app:
        app.app.state.processor.turn_timeout = 0.3
        started = time.monotonic()
        app.turn(W.text_event(USER, FOOD_HUATAN), W.text_event(USER, "忘記我的飲食偏好"))
        assert time.monotonic() - started < 10
        assert [first_text(r) for r in app.line.replies()][0] == POLITE_FAILURE
        assert app.outcomes[-1].command == "forget"  # the next event of the scope still ran
        assert app.dispatcher.failures == 1
        assert app.store.journal_rows() == {}


def test_unexpected_error_in_a_turn_still_apologises_and_the_worker_survives(app: AppHarness) -> None:
    def broken():
        raise ValueError("bug")

    app.service.greeting = broken
    app.turn(W.follow_event(USER))
    assert first_text(app.line.replies()[-1]) == POLITE_FAILURE
    assert app.dispatcher.failures == 1

    def bad_observer(event, outcome):
        raise RuntimeError("observer bug")

    app.app.state.observers.insert(0, bad_observer)
    app.turn(W.text_event(USER, FOOD_HUATAN))
    assert first_text(app.line.replies()[-1]).startswith("花壇鄉找到")
    assert app.dispatcher.failures == 1


# -- the LINE API misbehaving ------------------------------------------------------------------------

MONTHLY = {"message": "You have reached your monthly limit."}


@pytest.mark.parametrize(
    ("status", "body", "attempts"),
    [(500, None, 3), (502, None, 3), (429, None, 3), (429, MONTHLY, 1), (401, None, 1), (403, None, 1)],
)
def test_line_api_errors_on_reply_are_retried_a_bounded_number_of_times(
    app: AppHarness, status: int, body: dict | None, attempts: int
) -> None:
    app.line.fail_next("/message/reply", status, times=50, body=body)
    app.turn(W.text_event(USER, FOOD_HUATAN))
    time.sleep(0.1)  # nothing further should arrive
    assert len(app.line.attempts("reply")) == attempts == 1 + app.gateway.max_retries * (attempts > 1)
    assert app.line.replies() == [] and app.line.attempts("push") == []
    assert app.dispatcher.failures == 0

    app.line.clear()  # the API recovers: the next message is answered
    app.turn(W.text_event(USER, FOOD_HUATAN))
    assert len(app.line.replies()) == 1


def test_transient_reply_errors_are_retried_and_delivered(app: AppHarness) -> None:
    app.line.fail_next("/message/reply", 500)
    app.line.fail_next("/message/reply", 429)
    app.turn(W.text_event(USER, FOOD_HUATAN))
    assert [r.status for r in app.line.attempts("reply")] == [500, 429, 200]
    assert len(app.line.replies()) == 1


def test_push_errors_are_bounded_too(app: AppHarness) -> None:
    event = W.text_event(USER, FOOD_HUATAN)
    app.line.expire_reply_token(event["replyToken"])
    app.line.fail_next("/message/push", 500, times=50)
    app.turn(event)
    assert [r.status for r in app.line.attempts("reply")] == [400]
    pushes = app.line.attempts("push")
    assert [r.status for r in pushes] == [500] * 3
    assert len({r.headers["x-line-retry-key"] for r in pushes}) == 1  # one key for every retry
    assert app.dispatcher.failures == 0


def test_line_api_timeouts_are_bounded(app: AppHarness) -> None:
    app.gateway.timeout = 0.5  # long enough for each attempt to reach the fake on a loaded machine
    app.line.delay_next("/message/reply", 2.0, times=50)
    app.line.delay_next("/chat/loading/start", 2.0, times=50)
    started = time.monotonic()
    app.turn(W.text_event(USER, FOOD_HUATAN))
    assert time.monotonic() - started < 20  # 1 loading + 3 reply attempts of 0.5 s, plus the turn
    assert app.line.wait_for(lambda reqs: sum(r.kind == "reply" for r in reqs) >= 3, timeout=10)
    time.sleep(2.5)  # let every held request finish at the fake
    assert len(app.line.attempts("reply")) == 3  # 1 + max_retries, then it gave up
    assert len(app.line.attempts("loading")) == 1  # the animation is never retried
    assert len(app.line.replies()) <= 1  # a timed-out reply may still have landed (documented)
    assert app.line.attempts("push") == []
    assert app.dispatcher.failures == 0


def test_loading_animation_failure_does_not_block_the_reply(app: AppHarness) -> None:
    app.line.fail_next("/chat/loading/start", 500)
    app.turn(W.text_event(USER, FOOD_HUATAN))
    assert [r.status for r in app.line.attempts("loading")] == [500]
    assert len(app.line.replies()) == 1


# -- privacy -----------------------------------------------------------------------------------------


def _escaped_forms(text: str) -> set[bytes]:
    forms = {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}
    return {f.encode("utf-8") for f in forms if f}


def _db_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_a_forgotten_diet_is_nowhere_in_the_sqlite_files_after_the_forget(tmp_path: Path) -> None:
    path = tmp_path / "local.sqlite3"
    with AppHarness(path) as app:
        app.turn(W.text_event(USER, "記住我吃全素"))
        data = app.line.replies()[-1].body["messages"][-1]["quickReply"]["items"][0]["action"]["data"]
        app.turn(W.postback_event(USER, data))
        app.turn(W.text_event(USER, "花壇有什麼好吃的？"))
        assert app.outcomes[-1].tool_calls[0]["preference_origin"] == "consented_memory"
        assert b"vegan" in _db_bytes(path)  # remembered: in the preference and the audit rows
        app.turn(W.text_event(USER, "忘記我的飲食偏好"))
        live = _db_bytes(path)
        rows = app.store.audit_rows(W.scope_of(USER).storage_id)
    assert b"vegan" not in live  # the WAL was truncated and freed bytes zeroed at the forget
    assert b"vegan" not in _db_bytes(path)
    assert [r.effective_arguments["dietary_type"] for r in rows] == ["#forgotten"]


def test_no_raw_user_text_in_sqlite_files_or_logs(tmp_path: Path) -> None:
    stream = io.StringIO()
    path = tmp_path / "local.sqlite3"
    sensitive = "我阿嬤電話0912345678，她有糖尿病，員林有什麼好吃的？"
    with AppHarness(path, log_stream=stream, log_level="DEBUG") as app:
        run_conversation(app, FIVE_TURNS)
        run_conversation(app, THREE_TURNS, user=OTHER)
        app.turn(W.text_event(USER, sensitive))
        app.turn(W.text_event(USER, "記住我吃素"))
        app.turn(
            W.postback_event(
                USER, app.line.replies()[-1].body["messages"][-1]["quickReply"]["items"][0]["action"]["data"]
            )
        )
        app.turn(W.text_event(USER, "溪湖有什麼素食小吃？我住在中山路一段九十九號"))
        app.turn(W.text_event(USER, "忘記我的飲食偏好"))
        app.turn(W.text_event(OTHER, "鹿港有什麼活動？我兒子叫王小明", group=GROUP, mention=True))
        app.turn(W.text_event(OTHER, "群組閒聊：阿姨電話0987654321", group=GROUP))  # chatter: ignored
        app.turn(W.text_event(USER, "秘密碎念" * 1250))  # refused by the budget
        app.turn(W.text_event(USER, "控制字元\x00\x01\x1b[31m 北斗有什麼好吃的？"))
        expired = W.text_event(USER, "二林有什麼好吃的？我的身分證是A123456789")
        app.line.expire_reply_token(expired["replyToken"])
        app.turn(expired)
        texts = list(app.sent_texts)
        live = _db_bytes(path)
        assert app.dispatcher.failures == 0
    after = _db_bytes(path)
    logs = stream.getvalue()
    assert logs.count("\n") > 20 and '"severity"' in logs  # the logs were really captured
    assert re.search(r'"message": "turn done"', logs)
    fragments = texts + [
        "0912345678",
        "糖尿病",
        "王小明",
        "中山路一段",
        "A123456789",
        "秘密碎念",
        "0987654321",
    ]
    for text in fragments:
        for form in _escaped_forms(text.replace("\x00", "")):
            assert form not in live, text
            assert form not in after, text
            assert form not in logs.encode("utf-8"), text


def test_turns_run_on_their_own_loop_thread_and_still_answer_in_order(tmp_path: Path) -> None:
    """With LOCAL_TURN_THREAD (the default) the webhook's loop only acknowledges; the turns run
    on the turn loop's thread, in order per scope, and shutdown still drains them."""
    import threading

    app = AppHarness(tmp_path / "local.sqlite3").start()
    threads: list[str] = []
    app.app.state.observers.append(lambda event, outcome: threads.append(threading.current_thread().name))
    try:
        texts = [FOOD_HUATAN, "那花壇這禮拜有沒有什麼活動可以去走走？", "剛才那個鄉鎮，再找一家吃的。"]
        assert app.send(*[W.text_event(USER, t) for t in texts]).status_code == 200
        assert app.wait_idle(10)
        assert threads and set(threads) == {"local-turns"}
        areas = [o.tool_calls[0]["effective_arguments"]["area"] for o in app.outcomes]
        assert areas == ["花壇鄉", "花壇鄉", "花壇鄉"]
        assert [o.tool_calls[0]["tool"] for o in app.outcomes] == [
            "search_local_places",
            "search_local_events",
            "search_local_places",
        ]
    finally:
        app.stop()


def test_a_full_backlog_answers_503_so_line_redelivers_and_nothing_is_lost(tmp_path: Path) -> None:
    app = AppHarness(tmp_path / "local.sqlite3", settings={"LOCAL_MAX_PENDING_TURNS": "2"}).start()
    try:
        first, second, third = (
            W.text_event(u, FOOD_HUATAN) for u in (USER, OTHER, "Ue2e00000000000000000000000000003")
        )
        app.line.delay_next("/message/reply", 3.0, times=2)  # keep two turns pending, even on a slow machine
        assert app.send(first, second).status_code == 200
        assert app.send(third).status_code == 503  # no room: LINE will redeliver
        assert app.wait_idle(15)
        assert app.send(third).status_code == 200  # the redelivery is accepted once there is room
        assert app.wait_idle(15)
        tokens = sorted(r.body["replyToken"] for r in app.line.replies())
        assert tokens == sorted(e["replyToken"] for e in (first, second, third))
    finally:
        app.stop()
