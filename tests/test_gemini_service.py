"""The Gemini path through the whole service: webhook → ADK Runner → google-genai → a local fake
Gemini endpoint, with countTokens on the full request before every send.

Only the remote edge is fake (Gemini's HTTP API and LINE's); the SDKs and our code run for real.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers_app import AppHarness

from local_agent.agent.gemini import GEMINI_MODEL
from local_agent.context.projection import SUMMARY_MARKER
from local_agent.testing import webhooks as W
from local_agent.testing.fake_gemini import FakeGemini, fake_token_count

USER = "Ugemini0000000000000000000000001"


def _places_call(body: dict) -> dict:
    """Answer like Gemini would for these turns: propose the tool call the request asks for."""
    contents = body.get("contents") or []
    last = "".join(p.get("text", "") for p in contents[-1].get("parts", [])) if contents else ""
    if "活動" in last:
        return {"function_call": {"name": "search_local_events", "args": {"area": "花壇鄉", "keyword": ""}}}
    return {
        "function_call": {
            "name": "search_local_places",
            "args": {"area": "花壇鄉", "dietary_type": "", "keyword": ""},
        }
    }


def _gemini_app(tmp_path: Path, fake: FakeGemini, **extra: str) -> AppHarness:
    settings = {
        "LOCAL_MODEL": GEMINI_MODEL,
        "GOOGLE_API_KEY": "test-key-not-real",
        "LOCAL_GEMINI_BASE_URL": fake.base_url,
        "LOCAL_APPROVE_COUNT_TOKENS": "yes",
        **extra,
    }
    return AppHarness(tmp_path / "local.sqlite3", settings=settings).start()


def test_gemini_turns_count_the_whole_request_in_tokens_then_send_the_budgeted_contents(
    tmp_path: Path,
) -> None:
    with FakeGemini(responder=_places_call).start() as fake:
        app = _gemini_app(tmp_path, fake)
        try:
            texts = [
                "花壇有什麼店推薦吃吃看？",
                "那花壇這禮拜有沒有什麼活動？",
                "阿那邊停車要錢嗎？",
                "有沒有公車可以到？",
                "剛才那個鄉鎮，再找一家吃的。",
            ]
            for text in texts:
                app.turn(W.text_event(USER, text))
        finally:
            app.stop()
        generates, counts = fake.generate_requests, fake.count_requests
    # One model call per turn (skip_summarization), each preceded by a countTokens of that request.
    assert len(generates) == len(texts)
    assert len(counts) == len(texts)
    for gen in generates:
        assert gen.path.endswith(f"/models/{GEMINI_MODEL}:generateContent")
        body = gen.body
        assert body["generationConfig"]["thinkingConfig"] == {"thinking_level": "LOW"}
        names = {d["name"] for t in body["tools"] for d in t["functionDeclarations"]}
        assert names == {"search_local_places", "search_local_events"}
        assert "LOCAL" in json.dumps(body["systemInstruction"], ensure_ascii=False)
    # Developer API path: countTokens carries the rules and the tool JSON as leading text.
    for count in counts:
        assert "systemInstruction" not in count.body and "tools" not in count.body
        lead = json.dumps(count.body["contents"][0], ensure_ascii=False)
        assert "search_local_places" in lead and "彰化" in lead
    # What Gemini received on turn 5 is the budgeted window: summary line, two projections, question.
    turn5 = [("".join(p.get("text", "") for p in c["parts"])) for c in generates[-1].body["contents"]]
    assert turn5[0] == SUMMARY_MARKER + '{"area": "花壇鄉", "goal": "events"}'
    assert turn5[-1] == texts[-1]
    assert not any(t in "".join(turn5[:-1]) for t in texts[:-1])
    # The service reports the count in tokens, as the fake counted the full countTokens body.
    outcomes = [o for o in app.outcomes if o.model_requests]
    assert {o.model_requests[0]["unit"] for o in outcomes} == {"tokens"}
    assert outcomes[-1].model_requests[0]["count"] == fake_token_count(counts[-1].body)
    assert outcomes[-1].tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"
    assert app.line.replies()[-1].body["messages"][0]["text"].startswith("花壇鄉")


def test_a_token_budget_below_the_rules_refuses_before_gemini_is_called(tmp_path: Path) -> None:
    with FakeGemini(responder=_places_call).start() as fake:
        app = _gemini_app(tmp_path, fake, LOCAL_INPUT_BUDGET="5")
        try:
            app.turn(W.text_event(USER, "花壇有什麼店推薦吃吃看？"))
        finally:
            app.stop()
        assert fake.generate_requests == []
        assert len(fake.count_requests) >= 1
    assert app.outcomes[-1].error_code == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
    assert app.line.replies(), "the user still gets an answer"


def test_gemini_failing_gives_a_polite_reply_and_writes_no_journal(tmp_path: Path) -> None:
    with FakeGemini(responder=_places_call).start() as fake:
        fake.fail_next(503, times=10)
        app = _gemini_app(tmp_path, fake, LOCAL_APPROVE_COUNT_TOKENS="no")
        try:
            app.turn(W.text_event(USER, "花壇有什麼店推薦吃吃看？"), timeout=60)
            assert app.outcomes[-1].error_code == "MODEL_UNAVAILABLE"
            assert app.store.journal_rows() == {}
        finally:
            app.stop()
    assert "抱歉" in app.line.replies()[-1].body["messages"][0]["text"]


def _pending_aware(body: dict) -> dict:
    """Like Gemini following the rules: no township known → the tool with area empty; a pending
    projection in the request and a township in the question → that search."""
    contents = body.get("contents") or []
    texts = ["".join(p.get("text", "") for p in c.get("parts", [])) for c in contents]
    last = texts[-1] if texts else ""
    pending = any("未指定區域：找店家" in t for t in texts[:-1])
    area = "花壇鄉" if ("花壇" in last and (pending or "吃" in last)) else ""
    return {
        "function_call": {
            "name": "search_local_places",
            "args": {"area": area, "dietary_type": "", "keyword": ""},
        }
    }


def test_on_the_gemini_path_a_pending_question_reaches_the_next_request_and_is_completed(
    tmp_path: Path,
) -> None:
    with FakeGemini(responder=_pending_aware).start() as fake:
        app = _gemini_app(tmp_path, fake, LOCAL_APPROVE_COUNT_TOKENS="no")
        try:
            app.turn(W.text_event(USER, "我想吃東西"))
            asked = app.outcomes[-1]
            app.turn(W.text_event(USER, "花壇", group="Cgemini0000000000000000000000001", mention=True))
            app.turn(W.text_event(USER, "花壇"))
            answered = app.outcomes[-1]
        finally:
            app.stop()
        rules = json.dumps(fake.generate_requests[-1].body["systemInstruction"], ensure_ascii=False)
    assert asked.reply.texts == ("請問是哪個鄉鎮？",) and asked.projection == "未指定區域：找店家"
    assert "未指定區域：找店家" in rules
    assert answered.tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"
    # the group turn of the same user had its own (empty) window: no pending question leaked there
    group = app.outcomes[1]
    assert group.model_requests[0]["contents"][-1]["text"] == "花壇"  # the mention was cut out
    assert group.tool_calls[0]["effective_arguments"] == {}
