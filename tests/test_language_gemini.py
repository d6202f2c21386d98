"""Places and dates on the Gemini path: the tool checks the area Gemini proposes, and what a pending
question waits with (a date window, a township asked about) reaches the next Gemini request through
the projection, not a side channel. Real google-genai and ADK against the local fake endpoint."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers_app import AppHarness

from local_agent.agent.gemini import GEMINI_MODEL
from local_agent.testing import webhooks as W
from local_agent.testing.fake_gemini import FakeGemini

pytestmark = pytest.mark.slow  # each test starts the app and a fake Gemini (several seconds)

USER = "Ugeminiplaces00000000000000000001"
DUANWU = "2027-06-09"
_WAITING = re.compile(r"未指定區域：查活動，日期 (\d{4}-\d{2}-\d{2})")
_ASKED = re.compile(r"已問是否指(\S{3})。")


def _texts(body: dict) -> list[str]:
    return ["".join(p.get("text", "") for p in c.get("parts", [])) for c in body.get("contents") or []]


def _follows_the_rules(body: dict) -> dict:
    """What a model following the rules would propose: the window of 端午 said in the question, the
    window waiting in the projection when only a township is answered, the township asked about
    when the answer is 是, and a misheard place name passed as heard."""
    texts = _texts(body)
    last, history = texts[-1], "".join(texts[:-1])
    if "端午" in last:
        return {"function_call": {"name": "search_local_events", "args": {"area": "", "date_from": DUANWU}}}
    if last == "鹿港" and (waiting := _WAITING.search(history)):
        args = {"area": "鹿港鎮", "date_from": waiting.group(1), "date_to": waiting.group(1)}
        return {"function_call": {"name": "search_local_events", "args": args}}
    if last == "是" and (asked := _ASKED.search(history)):
        args = {"area": asked.group(1), "dietary_type": "", "keyword": ""}
        return {"function_call": {"name": "search_local_places", "args": args}}
    area = "原林" if "原林" in last else "台中" if "台中" in last else ""
    return {
        "function_call": {
            "name": "search_local_places",
            "args": {"area": area, "dietary_type": "", "keyword": ""},
        }
    }


def _app(tmp_path: Path, fake: FakeGemini) -> AppHarness:
    settings = {
        "LOCAL_MODEL": GEMINI_MODEL,
        "GOOGLE_API_KEY": "test-key-not-real",
        "LOCAL_GEMINI_BASE_URL": fake.base_url,
        "LOCAL_APPROVE_COUNT_TOKENS": "no",
    }
    return AppHarness(tmp_path / "local.sqlite3", settings=settings).start()


def test_a_date_window_waits_in_the_projection_and_reaches_gemini(tmp_path: Path) -> None:
    with FakeGemini(responder=_follows_the_rules).start() as fake:
        app = _app(tmp_path, fake)
        try:
            app.turn(W.text_event(USER, "端午節有什麼活動？"))
            asked = app.outcomes[-1]
            app.turn(W.text_event(USER, "鹿港"))
            answered = app.outcomes[-1]
        finally:
            app.stop()
        second = _texts(fake.generate_requests[-1].body)
    assert asked.reply.texts == ("請問是哪個鄉鎮？",)
    assert asked.projection == f"未指定區域：查活動，日期 {DUANWU}"
    assert any(f"未指定區域：查活動，日期 {DUANWU}" in t for t in second[:-1])
    effective = answered.tool_calls[0]["effective_arguments"]
    assert (effective["area"], effective["date_from"], effective["date_to"]) == ("鹿港鎮", DUANWU, DUANWU)


def test_the_tool_confirms_a_misheard_township_gemini_proposed_and_yes_completes_it(tmp_path: Path) -> None:
    with FakeGemini(responder=_follows_the_rules).start() as fake:
        app = _app(tmp_path, fake)
        try:
            app.turn(W.text_event(USER, "原林有什麼好吃的"))
            asked = app.outcomes[-1]
            app.turn(W.text_event(USER, "是"))
            answered = app.outcomes[-1]
            app.turn(W.text_event(USER, "台中有什麼好吃的"))
            outside = app.outcomes[-1]
        finally:
            app.stop()
        second = _texts(fake.generate_requests[1].body)
    assert asked.reply.texts == ("您是說員林市嗎？",) and [c.label for c in asked.reply.choices] == [
        "是",
        "不是",
    ]
    assert asked.tool_calls[0]["effective_arguments"] == {}  # never applied
    assert any("已問是否指員林市" in t for t in second[:-1])
    assert answered.tool_calls[0]["effective_arguments"]["area"] == "員林市"
    assert "目前只服務彰化縣的 26 個鄉鎮市" in outside.reply.texts[0]
    # A place outside the county: the search waits for a township of Changhua (pending, no place name).
    assert outside.projection == "未指定區域：找店家" and outside.error_code is None
