"""Clarifications keep what was said: a township with nothing to look for there gets 「想在鹿港鎮找吃的，
還是查活動？」 with two buttons; the turn projects with the township and the date window, and the answer
(typed or tapped) completes the search there, on those dates. A reference older than the request can
hold asks which township. Through the replay path (the real app in-process, signed webhooks, the fake
LINE API), and the projection's own contract."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from line_schema import check_messages

from examples.day15.replay import EventResult, ReplayDriver
from local_agent.agent import offline_rules as rules
from local_agent.context.projection import KIND_LABEL, SafeTurn, parse_user_text
from local_agent.context.window import ContextSummary, ContextWindow

U1 = "U" + "1" * 32
START = 1_796_011_200.0  # 2026-11-30 12:00 Taiwan time, a Monday
WEEKEND = ("2026-12-05", "2026-12-06")


def run(body: Callable[[ReplayDriver], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with ReplayDriver.open(start_at=START) as driver:
            return await body(driver)

    return asyncio.run(main())


def text_of(result: EventResult) -> str:
    check_messages(result.messages)
    return next(m["text"] for m in result.messages if m["type"] == "text")


def labels(result: EventResult) -> list[str]:
    return [a["label"] for a in result.quick_replies]


def sent_user_texts(result: EventResult) -> list[str]:
    return [c["text"] for c in result.model_requests[0]["contents"] if c["role"] == "user"]


def call(result: EventResult) -> tuple[str, dict[str, Any]]:
    executed = result.tool_calls[-1]
    return executed["tool"], executed["effective_arguments"]


@pytest.mark.parametrize("answer,how", [("活動", "tap"), ("活動", "text"), ("吃的", "tap"), ("吃的", "text")])
def test_the_answer_to_the_kind_question_searches_that_township_on_those_dates(answer, how):
    async def body(d: ReplayDriver) -> tuple[EventResult, EventResult]:
        asked = await d.send_text(U1, "鹿港這週末")
        done = await (d.tap(U1, answer) if how == "tap" else d.send_text(U1, answer))
        return asked, done

    asked, done = run(body)
    assert text_of(asked) == rules.township_only_text("鹿港鎮")
    assert labels(asked) == list(rules.KIND_ANSWERS)
    assert asked.outcome is not None
    assert asked.outcome.projection == f"鹿港鎮：{KIND_LABEL}，日期 {WEEKEND[0]} 至 {WEEKEND[1]}"
    # the next request carries the question's projection, never the words 「這週末」
    projected = sent_user_texts(done)[-2]
    assert parse_user_text(projected) == SafeTurn("", "鹿港鎮", *WEEKEND, asked_kind=True)
    assert not any("這週末" in t for t in sent_user_texts(done)[:-1])
    tool, args = call(done)
    if answer == "活動":
        assert tool == "search_local_events"
        assert (args["area"], args["date_from"], args["date_to"]) == ("鹿港鎮", *WEEKEND)
        assert text_of(done).startswith("鹿港鎮（查詢日期：12/5（六）至 12/6（日））")
    else:
        assert (tool, args["area"]) == ("search_local_places", "鹿港鎮")
        assert text_of(done).startswith("鹿港鎮找到")


def test_a_bare_township_asks_the_kind_and_the_answer_searches_there_without_dates():
    async def body(d: ReplayDriver) -> tuple[EventResult, EventResult]:
        return await d.send_text(U1, "花壇"), await d.send_text(U1, "活動")

    asked, done = run(body)
    assert asked.outcome is not None and asked.outcome.projection == f"花壇鄉：{KIND_LABEL}"
    tool, args = call(done)
    assert (tool, args["area"]) == ("search_local_events", "花壇鄉")
    assert "date_from" not in args or args["date_from"] != WEEKEND[0]


def test_the_dates_wait_only_for_the_next_turn():
    async def body(d: ReplayDriver) -> EventResult:
        await d.send_text(U1, "鹿港這週末")
        await d.send_text(U1, "停車要錢嗎？")
        return await d.send_text(U1, "活動")

    tool, args = call(run(body))
    assert (tool, args["area"]) == ("search_local_events", "鹿港鎮")  # the township is still in the window
    assert (args.get("date_from"), args.get("date_to")) != WEEKEND  # the question's dates are not


def test_a_reference_older_than_the_request_asks_which_township():
    async def body(d: ReplayDriver) -> tuple[EventResult, EventResult]:
        await d.send_text(U1, "花壇有什麼好吃的？")
        await d.send_text(U1, "員林這禮拜有什麼活動？")
        older = await d.send_text(U1, "一開始問的那個鄉鎮，有什麼好吃的？")
        recent = await d.send_text(U1, "剛才那個鄉鎮，有什麼好吃的？")
        return older, recent

    older, recent = run(body)
    assert text_of(older).startswith(rules.ASK_TOWNSHIP)
    assert "員林" not in text_of(older).split("？")[0]
    assert all(not c["effective_arguments"] for c in older.tool_calls)  # no search ran
    tool, args = call(recent)
    assert (tool, args["area"]) == ("search_local_places", "員林市")


@pytest.mark.parametrize(
    "text,older",
    [
        ("一開始問的那個鄉鎮有什麼好吃的", True),
        ("昨天問的那裡還有活動嗎", True),
        ("上次說的那個鄉鎮有沒有海鮮餐廳", False),  # said of the message just before
        ("上禮拜說的那個地方再找一家", True),
        ("第一個問的那個鄉鎮", True),
        ("剛才那個鄉鎮，再找一家吃的。", False),
        ("剛剛那裡有什麼活動", False),
        ("昨天有什麼活動", False),  # a date, not a place
        ("那邊有什麼活動", False),
    ],
)
def test_refers_to_older(text, older):
    from local_agent.language.townships import refers_to_older

    assert refers_to_older(text) is older


# -- the projection's contract ------------------------------------------------------------------


def test_a_kind_question_round_trips_through_its_text_and_its_stored_form():
    for turn in (
        SafeTurn("", "鹿港鎮", *WEEKEND, asked_kind=True),
        SafeTurn("", "花壇鄉", "2026-12-05", "2026-12-05", asked_kind=True),
        SafeTurn("", "花壇鄉", asked_kind=True),
    ):
        assert parse_user_text(turn.user_text()) == turn
        assert SafeTurn.from_dict(turn.to_dict()) == turn
        assert not turn.is_public and not turn.is_pending
    assert SafeTurn("", "花壇鄉", "2026-12-05", "2026-12-05", asked_kind=True).label == (
        f"花壇鄉：{KIND_LABEL}，日期 2026-12-05"
    )
    assert "asked_kind" not in SafeTurn("places", "花壇鄉").to_dict()  # older rows read as before


@pytest.mark.parametrize(
    "kwargs",
    [
        {"goal": "places", "area": "花壇鄉", "asked_kind": True},
        {"area": "", "asked_kind": True},
        {"area": "花壇", "asked_kind": True},  # canonical names only
        {"area": "花壇鄉", "date_from": "2026-12-06", "date_to": "2026-12-05", "asked_kind": True},
        {"area": "花壇鄉", "confirm_area": "員林市", "asked_kind": True},
        {"area": "花壇鄉", "shown": ("p001",), "asked_kind": True},
        {"area": "花壇鄉", "asked_kind": "yes"},
        {"area": "花壇鄉"},  # an area needs a goal unless the kind was asked
    ],
)
def test_a_kind_question_refuses_anything_but_a_township_and_a_date_window(kwargs):
    with pytest.raises(ValueError):
        SafeTurn(**kwargs)


def test_a_stored_kind_question_with_a_bad_flag_is_refused():
    with pytest.raises(ValueError):
        SafeTurn.from_dict({"goal": "", "area": "花壇鄉", "asked_kind": "true"})


def test_the_summary_never_takes_a_kind_question_in():
    summary = ContextSummary("places", "花壇鄉")
    assert summary.absorb(SafeTurn("", "鹿港鎮", asked_kind=True)) == summary
    window = (
        ContextWindow().append(SafeTurn("", "鹿港鎮", asked_kind=True)).append(SafeTurn()).append(SafeTurn())
    )
    assert window.summary.is_empty


def test_the_kind_question_is_decided_on_the_request_as_sent():
    def contents(*texts: str) -> list[dict[str, Any]]:
        return [{"role": "user", "parts": [{"text": t}]} for t in texts]

    from datetime import date

    today = date(2026, 11, 30)
    assert rules.kind_question(contents("鹿港這週末"), today) == SafeTurn(
        "", "鹿港鎮", *WEEKEND, asked_kind=True
    )
    assert rules.kind_question(contents("鹿港有什麼好吃的"), today) is None  # a search runs
    assert rules.kind_question(contents("鹿港停車場在哪"), today) is None  # not a kind the tools know
    assert rules.kind_question(contents("二林和芳苑"), today) is None  # two townships: which one first
    assert rules.kind_question([], today) is None


# -- a model that answers 「活動」 without the dates (as Gemini may) -----------------------------------


@pytest.fixture
def store(tmp_path):
    from local_agent.stores.sqlite import SqliteStore

    opened = SqliteStore(tmp_path / "t.sqlite3")
    yield opened
    opened.close()


def tools_after(store, window: ContextWindow):
    from local_agent.agent.pipeline import waiting_in
    from local_agent.agent.tools import TurnTools

    return TurnTools(
        preferences=store,
        audit=store,
        clock=lambda: START,
        user_id="U1",
        scope_id="s",
        waiting_dates=waiting_in(window),
    )


def test_an_event_search_right_after_the_kind_question_waits_with_its_dates(store):
    asked = (
        ContextWindow()
        .append(SafeTurn("places", "花壇鄉"))
        .append(SafeTurn("", "鹿港鎮", *WEEKEND, asked_kind=True))
    )
    tools = tools_after(store, asked)
    result = tools.search_local_events("鹿港鎮")
    assert (result["date_from"], result["date_to"]) == WEEKEND
    assert tools.executions[-1].effective_arguments["date_from"] == WEEKEND[0]
    own = tools.search_local_events("鹿港鎮", date_from="2026-12-01", date_to="2026-12-01")
    assert (own["date_from"], own["date_to"]) == ("2026-12-01", "2026-12-01")  # its own dates win
    assert "date_from" not in tools.search_local_events("花壇鄉")  # another township: no dates


def test_the_dates_do_not_wait_once_another_turn_came_between(store):
    later = ContextWindow().append(SafeTurn("", "鹿港鎮", *WEEKEND, asked_kind=True)).append(SafeTurn())
    assert "date_from" not in tools_after(store, later).search_local_events("鹿港鎮")
    undated = ContextWindow().append(SafeTurn("", "鹿港鎮", asked_kind=True))
    assert "date_from" not in tools_after(store, undated).search_local_events("鹿港鎮")
