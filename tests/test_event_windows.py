"""The event search's date window on every path: the tool and its audit row, the offline rules, the
reply, the ADK turn (date from the request's rules), and LOCAL_LISTINGS_DIR at service start."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from conftest import FakeClock
from helpers_app import make_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.agent import offline_rules as intent
from local_agent.agent.instructions import SYSTEM_INSTRUCTION, dated_instruction, today_from, today_line
from local_agent.agent.tools import TurnTools
from local_agent.context.journal import ScopeKey
from local_agent.context.session_budget import render_contents
from local_agent.context.window import ContextWindow
from local_agent.listings.loader import EVENT_COLUMNS, PLACE_COLUMNS, ListingsError, load_listings
from local_agent.replies.render import render_tool_result
from local_agent.stores.sqlite import SqliteStore
from local_agent.wiring import build_service

# 12:00 on Monday 2026-11-30 in Taiwan.
MONDAY_NOON = datetime(2026, 11, 30, 4, 0, tzinfo=UTC).timestamp()
MONDAY = date(2026, 11, 30)
SCOPE = ScopeKey.for_user("U1")


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "w.db")
    yield s
    s.close()


@pytest.fixture
def tools(store):
    return TurnTools(
        preferences=store, audit=store, clock=FakeClock(MONDAY_NOON), user_id="U1", scope_id="s", turn_id="t"
    )


# -- the tool -------------------------------------------------------------------------------------


def test_a_window_is_in_the_result_and_the_audit_rows_arguments(tools, store):
    result = tools.search_local_events("花壇", "", "2026-11-30", "2026-12-06")
    assert result["status"] == "ok" and result["date_from"] == "2026-11-30"
    assert result["dates_label"] == "11/30（一）至 12/6（日）"
    (row,) = store.audit_rows()
    window = {"date_from": "2026-11-30", "date_to": "2026-12-06"}
    assert row.effective_arguments == {"area": "花壇鄉", "keyword": "", **window}
    assert row.proposed_arguments == {"area": "花壇", "keyword": "", **window}
    dated = [i for i in result["items"] if not i["standing"]]
    assert [i["name"] for i in dated] == ["花壇長青健康講座", "花壇茉莉花季踩街"]
    assert all(i["standing"] for i in result["items"][len(dated) :])


def test_a_one_day_window_needs_only_date_from(tools):
    result = tools.search_local_events("鹿港鎮", "", "2026-12-31")
    assert result["date_to"] == "2026-12-31"
    assert [i["name"] for i in result["items"] if not i["standing"]] == ["鹿港歲末燈會", "鹿港跨年音樂會"]


def test_without_a_window_the_arguments_read_as_before_and_past_events_are_left_out(tools, store):
    result = tools.search_local_events("花壇鄉")
    assert "date_from" not in result
    assert store.audit_rows()[0].effective_arguments == {"area": "花壇鄉", "keyword": ""}
    names = [i["name"] for i in result["items"]]
    assert "花壇秋收感恩市集" not in names and "花壇冬至湯圓共煮" in names


@pytest.mark.parametrize(
    ("date_from", "date_to"),
    [
        ("2026-02-30", ""),
        ("", "2026-12-05"),
        ("2026-12-06", "2026-12-05"),
        ("下週", ""),
        ("2026-01-01", "2027-12-31"),
    ],
)
def test_a_bad_window_is_a_structured_error_and_the_audit_keeps_no_free_text(
    tools, store, date_from, date_to
):
    result = tools.search_local_events("花壇鄉", "", date_from, date_to)
    assert result["status"] == "error" and result["code"] == "INVALID_DATE"
    (row,) = store.audit_rows()
    assert row.status == "error" and row.effective_arguments == {}
    assert "下週" not in json.dumps(row.to_dict(), ensure_ascii=False)


def test_a_window_already_over_is_said_to_be_past_not_searched(tools, store):
    result = tools.search_local_events("花壇鄉", "", "2026-11-28", "2026-11-29")
    assert result["status"] == "error" and result["code"] == "PAST_DATE"
    assert result["message"].startswith("「11/28（六）至 11/29（日）」已經過了")
    (row,) = store.audit_rows()
    assert row.status == "error" and row.effective_arguments == {}
    assert render_tool_result(result).texts == (result["message"],)
    ongoing = tools.search_local_events("花壇鄉", "", "2026-11-29", "2026-12-06")  # ends after today
    assert ongoing["status"] == "ok"


def test_a_non_text_date_is_refused(tools):
    assert tools.search_local_events("花壇鄉", "", 20261205)["code"] == "INVALID_ARGUMENT"


def test_call_dispatches_the_window_arguments(tools):
    result = tools.call("search_local_events", {"area": "花壇鄉", "date_from": "2026-12-05", "date_to": ""})
    assert result["status"] == "ok" and result["date_to"] == "2026-12-05"


# -- the reply ------------------------------------------------------------------------------------


def test_the_reply_says_which_dates_it_searched_and_labels_standing_events(tools):
    reply = render_tool_result(tools.search_local_events("花壇鄉", "", "2026-12-05", "2026-12-06"))
    assert reply.texts[0].startswith(
        "花壇鄉（查詢日期：12/5（六）至 12/6（日））找到 1 個活動，另有 2 個常態活動"
    )  # the summer jasmine-field tour (months 6;7;8) is not among them in December
    first, *rest = reply.cards
    assert first.lines[0] == "日期：12/5（六）至 12/6（日）"
    assert all(card.lines[0].startswith("常態活動：") for card in rest)


def test_a_window_with_only_standing_events_says_so(tools):
    reply = render_tool_result(tools.search_local_events("鹿港鎮", "", "2026-12-05", "2026-12-06"))
    assert "沒有這段日期的活動" in reply.texts[0] and "2 個是常態活動" in reply.texts[0]
    assert all("端午" not in card.title for card in reply.cards)  # its months are 6 only


# -- the offline rules and the ADK turn -----------------------------------------------------------


def contents(text: str) -> list[dict]:
    return render_contents(ContextWindow(), text)


def test_the_offline_rules_fill_the_window_from_the_current_question_only():
    call = intent.propose(contents("花壇這週末有什麼活動？"), today=MONDAY)["function_call"]
    assert call["args"] == {
        "area": "花壇鄉",
        "keyword": "",
        "date_from": "2026-12-05",
        "date_to": "2026-12-06",
    }
    # no date in the request's rules: no window (the rules do not guess a day)
    assert intent.propose(contents("花壇這週末有什麼活動？"))["function_call"]["args"] == {
        "area": "花壇鄉",
        "keyword": "",
    }
    # a place search never takes a window
    assert (
        "date_from" not in intent.propose(contents("花壇明天吃什麼"), today=MONDAY)["function_call"]["args"]
    )


def test_the_rules_carry_todays_taiwan_date_and_the_offline_model_reads_it_back():
    provider = dated_instruction(FakeClock(MONDAY_NOON))
    text = provider(None)
    assert text.startswith(SYSTEM_INSTRUCTION) and text.endswith(today_line(MONDAY))
    assert today_from(text) == MONDAY
    assert today_from(SYSTEM_INSTRUCTION) is None
    # the line is the same length every day, so the budget's rules size does not drift
    assert len(today_line(date(2026, 1, 1))) == len(today_line(date(2027, 12, 31)))


def write_folder(folder: Path) -> Path:
    folder.mkdir()
    (folder / "places.csv").write_text(
        ",".join(PLACE_COLUMNS) + "\nx01,埤頭素食小館,埤頭鄉,素食,vegetarian,埤頭鄉公所附近,\n",
        encoding="utf-8",
    )
    (folder / "events.csv").write_text(
        ",".join(EVENT_COLUMNS)
        + "\ny01,埤頭冬季音樂會,埤頭鄉,埤頭公園,表演,2026-12-05,,晚上七點,\n"
        + "y02,埤頭社區共餐,埤頭鄉,活動中心,體驗,,,每週三中午,\n",
        encoding="utf-8",
    )
    return folder


def test_a_service_on_a_user_made_folder_answers_a_date_question_through_adk(tmp_path):
    folder = write_folder(tmp_path / "listings")
    settings = make_settings("http://127.0.0.1:9", tmp_path / "s.db", LOCAL_LISTINGS_DIR=str(folder))
    wiring = build_service(settings, clock=FakeClock(MONDAY_NOON))
    try:
        outcome = asyncio.run(wiring.service.handle_text(SCOPE, "埤頭這週末有什麼活動？"))
        (call,) = outcome.tool_calls
        assert call["effective_arguments"] == {
            "area": "埤頭鄉",
            "keyword": "",
            "date_from": "2026-12-05",
            "date_to": "2026-12-06",
        }
        assert outcome.reply.texts[0].startswith("埤頭鄉（查詢日期：12/5（六）至 12/6（日））找到 1 個活動")
        assert [c.title for c in outcome.reply.cards] == ["埤頭冬季音樂會", "埤頭社區共餐"]
        # the date phrase never enters the projection or the journal
        assert outcome.projection is not None and "週末" not in outcome.projection
        stored = json.dumps(wiring.service.journal_state(SCOPE), ensure_ascii=False)
        assert "週末" not in stored and "2026-12-05" not in stored
        places = asyncio.run(wiring.service.handle_text(SCOPE, "埤頭有什麼素食？"))
        assert [c.title for c in places.reply.cards] == ["埤頭素食小館"]
    finally:
        wiring.store.close()


def test_the_service_refuses_to_start_on_a_bad_folder(tmp_path, caplog):
    folder = write_folder(tmp_path / "listings")
    events = folder / "events.csv"
    events.write_text(
        events.read_text(encoding="utf-8").replace("2026-12-05", "2026-02-30"), encoding="utf-8"
    )
    settings = make_settings("http://127.0.0.1:9", tmp_path / "s.db", LOCAL_LISTINGS_DIR=str(folder))
    with pytest.raises(ListingsError, match=r"^events.csv row 2 column start_date: "):
        build_service(settings, clock=FakeClock(MONDAY_NOON))
    assert not (tmp_path / "s.db").exists()  # refused before the store was opened
    refused = [r for r in caplog.records if r.name == "local_agent.wiring" and r.levelname == "ERROR"]
    assert refused and refused[0].code == "LISTINGS_INVALID"
    with pytest.raises(ListingsError):
        load_listings(folder)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["花壇鄉", "鹿港鎮", "彰化市", "員林市", "北斗鎮", "田尾鄉"]),
    st.dates(min_value=date(2026, 6, 1), max_value=date(2027, 3, 1)),
    st.integers(min_value=0, max_value=60),
)
def test_every_event_the_tool_returns_for_a_window_overlaps_it_or_is_standing(area, start, days):
    store = SqliteStore(":memory:")
    try:
        tools = TurnTools(
            preferences=store, audit=store, clock=FakeClock(MONDAY_NOON), user_id="U", scope_id="s"
        )
        end = start + timedelta(days=days)
        result = tools.search_local_events(area, "", start.isoformat(), end.isoformat())
        if end < MONDAY:  # a window already over is said to be past
            assert (result["status"], result["code"]) == ("error", "PAST_DATE")
            return
        assert result["status"] == "ok"
        for item in result["items"]:
            if item["standing"]:
                assert item["start_date"] == "" and item["when"]
            else:
                assert item["start_date"] <= end.isoformat() and item["end_date"] >= start.isoformat()
        flags = [i["standing"] for i in result["items"]]
        assert flags == sorted(flags)  # dated first, then standing
    finally:
        store.close()


# -- the Gemini path: the same contract, today's date in the rules -------------------------------


def test_gemini_receives_todays_date_and_the_window_arguments_and_its_window_is_honoured(tmp_path):
    from helpers_app import AppHarness

    from local_agent.agent.gemini import GEMINI_MODEL
    from local_agent.testing import webhooks as W
    from local_agent.testing.fake_gemini import FakeGemini

    call = {"name": "search_local_events", "args": {"area": "鹿港鎮", "date_from": "2026-12-31"}}
    with FakeGemini([{"function_call": call}]).start() as fake:
        settings = {
            "LOCAL_MODEL": GEMINI_MODEL,
            "GOOGLE_API_KEY": "test-key-not-real",
            "LOCAL_GEMINI_BASE_URL": fake.base_url,
        }
        app = AppHarness(tmp_path / "g.sqlite3", settings=settings, clock=FakeClock(MONDAY_NOON)).start()
        try:
            app.turn(W.text_event("Ugemini0000000000000000000000002", "鹿港跨年那天有什麼活動？"))
        finally:
            app.stop()
        (generate,) = fake.generate_requests
    rules = json.dumps(generate.body["systemInstruction"], ensure_ascii=False)
    assert today_line(MONDAY) in rules
    declared = {d["name"]: d for t in generate.body["tools"] for d in t["functionDeclarations"]}
    schema = declared["search_local_events"]["parameters_json_schema"]  # ADK's JSON-schema declaration
    assert {"date_from", "date_to"} <= set(schema["properties"])
    (outcome,) = app.outcomes
    (tool_call,) = outcome.tool_calls
    assert tool_call["effective_arguments"]["date_to"] == "2026-12-31"
    assert outcome.reply.texts[0].startswith("鹿港鎮（查詢日期：12/31（四））找到 2 個活動")


def test_every_shipped_listing_renders_into_line_messages(tools):
    from local_agent.line.messages import to_line_messages
    from local_agent.listings.loader import shipped_listings

    for area in shipped_listings().covered_townships:
        for result in (
            tools.search_local_places(area),
            tools.search_local_events(area),
            tools.search_local_events(area, "", "2026-12-01", "2027-01-31"),
        ):
            reply = render_tool_result(result)
            messages = to_line_messages(reply)
            assert messages and all(line for card in reply.cards for line in card.lines)
