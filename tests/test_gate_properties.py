"""Whatever the model answers, the code decides: a property test over generated model responses.

The service is wired as in production (commands, preference desk, text gate, SQLite) with a
scripted model at the remote edge. Hypothesis draws the user's sentence, the chat (1:1, group,
group without a user id) and one model response: texts (claims, invented facts, honest short
answers, whitespace, thoughts, an essay), tool calls (the preference tool with any action and diet,
a search with odd arguments, an unknown tool) or several parts together. After every turn:
no preference was written, at most one model call was made, the user got a non-empty answer,
and a model-written text reached the chat only if the gate lets it pass in that chat, for that
sentence (in a group, never one naming a diet).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import pytest
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from helpers_app import make_settings
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from local_agent.agent import text_gate
from local_agent.context.journal import ScopeKey
from local_agent.language.lexicon import words_of
from local_agent.listings import catalogue
from local_agent.wiring import Wiring, build_service

USER = "Uprop0000000000000000000000001"
SCOPES = (
    ScopeKey("Udest", "user", USER, USER),
    ScopeKey("Udest", "group", "Cprop000000000000000000000001", USER),
    ScopeKey("Udest", "group", "Cprop000000000000000000000001", "-"),
)
SENTENCES = (
    "吃素那件事就算了吧",
    "素食是我的習慣，以後幫我留意",
    "我在你這邊有留下什麼嗎",
    "幫我訂阿璋肉圓四個人",
    "彰基的電話幾號",
    "列出大家的偏好",
    "花壇",
    "嗯",
)
MODEL_TEXTS = (
    "好的，已經幫您刪除了",
    "好的，我記住了，您吃全素。",
    "已幫您預約明天中午。",
    "彰基的電話是 04-7238595。",
    "請看 https://www.example.com.tw",
    "在中山路二段 160 號。",
    "營業時間早上8點到晚上9點。",
    "大家的偏好是：小華吃素。",
    "我已經把您的偏好歸零囉",
    "好的，已經幫您清空了",
    "阿明吃全素，阿華吃蛋奶素",
    "您要找素食的店嗎？",
    "您吃素。",
    "停車的資訊我還查不到。",
    "請問是哪個鄉鎮？",
    "   ",
    "彰化" * 500,
)
DIET_WORDS = ("素", "vegan", "vegetarian", *words_of("diet"))
ACTIONS = st.sampled_from(["remember", "forget", "show", "delete_all", "", 7, None])
DIETS = st.sampled_from([*catalogue.DIETARY_TYPES, "keto", "", None, ["vegan"]])


def _call(name: str, args: dict[str, Any]) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, args=args))


PARTS = st.one_of(
    st.sampled_from(MODEL_TEXTS).map(lambda t: types.Part(text=t)),
    st.sampled_from(MODEL_TEXTS).map(lambda t: types.Part(text=t, thought=True)),
    st.builds(lambda a, d: _call("manage_preference", {"action": a, "dietary_type": d}), ACTIONS, DIETS),
    st.builds(
        lambda area, diet: _call("search_local_places", {"area": area, "dietary_type": diet}),
        st.sampled_from(["花壇鄉", "", "台北市", 5]),
        DIETS,
    ),
    st.just(_call("book_table", {"shop": "阿璋肉圓"})),
)


class ScriptedModel(BaseLlm):
    """The remote edge: answers each request with the next scripted list of parts."""

    model: str = "scripted-property-model"
    script: list[list[types.Part]] = Field(default_factory=list)
    calls: int = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.calls += 1
        parts = self.script.pop(0) if self.script else [types.Part(text="好的")]
        yield LlmResponse(content=types.Content(role="model", parts=parts), turn_complete=True)


@pytest.fixture(scope="module")
def wired(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Wiring, ScriptedModel]]:
    """One service for all examples: nothing may ever be written to the preferences."""
    model = ScriptedModel()
    settings = make_settings("http://127.0.0.1:9", tmp_path_factory.mktemp("gate") / "properties.sqlite3")
    wiring = build_service(settings, model=model)
    yield wiring, model
    wiring.store.close()


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(
    sentence=st.sampled_from(SENTENCES),
    scope=st.sampled_from(SCOPES),
    parts=st.lists(PARTS, min_size=1, max_size=3),
)
def test_no_model_answer_writes_a_preference_or_reaches_the_chat_unchecked(
    wired: tuple[Wiring, ScriptedModel], sentence: str, scope: ScopeKey, parts: list[types.Part]
) -> None:
    wiring, model = wired
    model.script = [parts]
    before = model.calls
    outcome = asyncio.run(wiring.service.handle_text(scope, sentence))
    assert model.calls - before <= 1, "one model call per turn"
    for user in (USER, "-"):
        state = wiring.store.get(user)
        assert (state.consent, state.dietary_type, state.revision) == ("none", None, 0)
    assert outcome.reply.texts and all(t.strip() for t in outcome.reply.texts)
    spoken = [p.text for p in parts if p.text and not p.thought]
    joined = "".join(spoken).strip()  # what the router would send: every text part, together
    written = {*spoken, joined} - {""}
    for text in outcome.reply.texts:
        # The model's own words were sent only if the gate lets them pass. (A fixed text of the
        # code, such as 「請問是哪個鄉鎮？」, may equal a model text; it passes the gate too.)
        if text in written:
            assert text_gate.check(text, chat=scope.source_type, said=sentence).ok, text
            if scope.source_type != "user":
                assert not any(d in text for d in DIET_WORDS), text
    if joined in outcome.reply.texts and not outcome.tool_calls:
        assert outcome.gate_code is None
    if scope.source_type != "user":
        assert not any(c.data.startswith("local:consent:") for c in outcome.reply.choices)
