"""The Gemini path through the whole service: webhook → ADK Runner → google-genai → a local fake
Gemini endpoint. countTokens runs on the full request only when the byte bound cannot show that it
fits; a count that fails or times out refuses the turn without sending.

Only the remote edge is fake (Gemini's HTTP API and LINE's); the SDKs and our code run for real.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from helpers_app import AppHarness, make_settings

from local_agent.agent.gemini import GEMINI_MODEL, GeminiTokenMeasure, build_gemini_llm, make_genai_client
from local_agent.context.journal import ScopeKey
from local_agent.context.projection import SUMMARY_MARKER
from local_agent.context.session_budget import BytesBoundMeasure
from local_agent.testing import webhooks as W
from local_agent.testing.fake_gemini import FakeGemini, fake_token_count
from local_agent.wiring import build_service

USER = "Ugemini0000000000000000000000001"
FIVE_TURNS = (
    "花壇有什麼店推薦吃吃看？",
    "那花壇這禮拜有沒有什麼活動？",
    "阿那邊停車要錢嗎？",
    "有沒有公車可以到？",
    "剛才那個鄉鎮，再找一家吃的。",
)


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
        app = _gemini_app(tmp_path, fake, LOCAL_COUNT_TOKENS_BYTES_FACTOR="0")  # count every request
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
        assert names == {"search_local_places", "search_local_events", "manage_preference"}
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
    assert {o.model_requests[0]["measured_by"] for o in outcomes} == {"countTokens"}
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


def test_normal_turns_make_one_generate_content_and_no_count_tokens(tmp_path: Path) -> None:
    """With the default factor (1.0) a ~3 KB request cannot come near 8,192 tokens: no count."""
    with FakeGemini(responder=_places_call).start() as fake:
        app = _gemini_app(tmp_path, fake)
        try:
            for n, text in enumerate(FIVE_TURNS, start=1):
                app.turn(W.text_event(USER, text))
                assert (len(fake.generate_requests), len(fake.count_requests)) == (n, 0)
            snapshots = app.store.snapshots()
        finally:
            app.stop()
        generates = fake.generate_requests
    outcomes = [o for o in app.outcomes if o.model_requests]
    assert len(outcomes) == len(FIVE_TURNS)
    for outcome, gen in zip(outcomes, generates, strict=True):
        request = outcome.model_requests[0]
        assert (request["unit"], request["measured_by"]) == ("tokens", "bytes-bound")
        # The figure is the byte length of the canonical request: at most 8,192, at least what was sent.
        assert len(json.dumps(gen.body["contents"], ensure_ascii=False).encode()) < request["count"] <= 8192
    assert [s.data["measured_by"] for s in snapshots] == ["bytes-bound"] * len(FIVE_TURNS)
    assert all(s.data["measured"] == ["bytes-bound"] for s in snapshots)
    assert app.line.replies()[-1].body["messages"][0]["text"].startswith("花壇鄉")


def test_a_request_above_the_byte_bound_is_counted_once_then_sent(tmp_path: Path) -> None:
    # 1,000 tokens is below the request's byte length, so the bound cannot show it fits; the
    # fake counts ~bytes / 4, which fits: one countTokens, then one generateContent.
    with FakeGemini(responder=_places_call).start() as fake:
        app = _gemini_app(tmp_path, fake, LOCAL_INPUT_BUDGET="1000")
        try:
            app.turn(W.text_event(USER, FIVE_TURNS[0]))
        finally:
            app.stop()
        actions = [r.action for r in fake.requests]
        (count,) = fake.count_requests
    assert actions == ["countTokens", "generateContent"]
    request = app.outcomes[-1].model_requests[0]
    assert (request["measured_by"], request["count"]) == ("countTokens", count.response["totalTokens"])
    assert request["dropped_turns"] == 0


def _per_content(body: dict) -> int:
    return 100 * len(body["contents"])


def test_near_the_budget_counted_requests_are_trimmed_oldest_exchange_first(tmp_path: Path) -> None:
    # The fake counts 100 tokens per content (the Developer API path adds one leading content for
    # rules + tools). Turn five carries summary pair + two exchanges + question + lead = 8 contents
    # = 800 tokens; a budget of 650 keeps one exchange (600).
    with FakeGemini(responder=_places_call, token_counter=_per_content).start() as fake:
        app = _gemini_app(tmp_path, fake, LOCAL_INPUT_BUDGET="650")
        try:
            for text in FIVE_TURNS:
                app.turn(W.text_event(USER, text))
        finally:
            app.stop()
        last_counts = [r.response["totalTokens"] for r in fake.count_requests[-2:]]
        generates = fake.generate_requests
    assert len(generates) == len(FIVE_TURNS)
    fifth = app.outcomes[-1].model_requests[0]
    assert last_counts == [800, 600]
    assert (fifth["measured_by"], fifth["count"], fifth["dropped_turns"]) == ("countTokens", 600, 1)
    assert len(generates[-1].body["contents"]) == 5  # summary pair + one exchange + question


def test_count_tokens_failing_refuses_politely_and_never_sends(tmp_path: Path) -> None:
    with FakeGemini(responder=_places_call).start() as fake:
        fake.fail_next(400)
        app = _gemini_app(tmp_path, fake, LOCAL_INPUT_BUDGET="1000")
        try:
            app.turn(W.text_event(USER, FIVE_TURNS[0]), timeout=60)
            assert app.store.journal_rows() == {}
        finally:
            app.stop()
        assert [(r.action, r.status) for r in fake.requests] == [("countTokens", 400)]
    assert app.outcomes[-1].error_code == "MODEL_UNAVAILABLE"
    assert "抱歉" in app.line.replies()[-1].body["messages"][0]["text"]


def test_count_tokens_timing_out_refuses_politely_and_never_sends(tmp_path: Path) -> None:
    """A hung countTokens: the measure's deadline fires, the turn is refused, nothing is sent."""
    with FakeGemini(responder=_places_call).start() as fake:
        fake.stall_next(4.0, action="countTokens")
        genai: dict[str, Any] = {
            "api_key": "test-key-not-real",
            "use_vertexai": False,
            "project": None,
            "location": None,
            "base_url": fake.base_url,
        }
        client = make_genai_client(**genai)
        # 1 s: long enough for the count to reach the fake on a loaded machine, far below the stall
        measure = BytesBoundMeasure(GeminiTokenMeasure(client, timeout_s=1.0), limit=1000)
        llm = build_gemini_llm(**genai)
        settings = make_settings("http://127.0.0.1:9", tmp_path / "local.sqlite3", LOCAL_INPUT_BUDGET="1000")
        wiring = build_service(settings, model=llm, measure=measure)

        async def go():
            try:
                return await wiring.router.run_turn(ScopeKey("Udest", "user", USER, USER), FIVE_TURNS[0])
            finally:
                await client.aio.aclose()
                await llm.api_client.aio.aclose()

        outcome = asyncio.run(go())
        deadline = time.monotonic() + 10  # the stalled count is recorded when the fake answers it
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        actions = [r.action for r in fake.requests]
    assert outcome.error_code == "MODEL_UNAVAILABLE"
    assert "抱歉" in outcome.reply.texts[0]
    assert actions == ["countTokens"] and fake.generate_requests == []
    assert wiring.store.journal_rows() == {}
    (snapshot,) = wiring.store.snapshots()
    assert snapshot.data["error_code"] == "MODEL_UNAVAILABLE" and "measured_by" not in snapshot.data
