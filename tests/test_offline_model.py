"""The offline model (an ADK BaseLlm stand-in for Gemini) driven through the real ADK Runner:
one model call per turn, it sees exactly the budgeted contents, and the whole request is measured."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from google.adk.models.llm_request import LlmRequest
from google.genai import types
from pydantic import Field

from local_agent.agent import offline_rules as intent
from local_agent.agent.adk_router import AdkRouter
from local_agent.agent.adk_tools import declaration_dict
from local_agent.agent.instructions import SYSTEM_INSTRUCTION
from local_agent.agent.offline_model import OFFLINE_MODEL_NAME, OfflineModel
from local_agent.agent.pipeline import ContextPipeline
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.context.session_budget import ByteMeasure, SessionBudget
from local_agent.stores.sqlite import SqliteStore

SCOPE = ScopeKey.for_user("U1")
TOOL_NAMES = {"search_local_places", "search_local_events", "manage_preference"}


class RecordingModel(OfflineModel):
    """The offline model, recording what each call received (as plain data)."""

    seen: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):
        config = llm_request.config
        instruction = config.system_instruction if config else None
        if isinstance(instruction, types.Content):
            instruction = "".join(p.text or "" for p in instruction.parts or [])
        tools = [  # in the canonical form: the JSON Schema ADK sends as parameters_json_schema
            declaration_dict(d)
            for t in (config.tools or [])
            for d in (getattr(t, "function_declarations", None) or [])
        ]
        self.seen.append(
            {
                "contents": [
                    {"role": c.role, "text": "".join(p.text or "" for p in c.parts or [])}
                    for c in llm_request.contents
                ],
                "system_instruction": instruction,
                "tools": tools,
                "tool_names": sorted(llm_request.tools_dict),
            }
        )
        async for response in super().generate_content_async(llm_request, stream):
            yield response


class RecordingMeasure:
    """ByteMeasure that keeps a copy of every request it measured."""

    unit = "bytes"

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, request) -> int:
        self.requests.append(copy.deepcopy(dict(request)))
        return ByteMeasure().sync(request)


def build(tmp_path, clock, *, limit: int = 16384, model: OfflineModel | None = None, store=None):
    store = store or SqliteStore(tmp_path / "x.db")
    journal = ContextJournal(store, clock=clock)
    pipeline = ContextPipeline(
        journal=journal,
        preferences=store,
        audit=store,
        snapshots=store,
        budget=SessionBudget(limit=limit),
        clock=clock,
    )
    model = model or RecordingModel()
    measure = RecordingMeasure()
    router = AdkRouter(pipeline=pipeline, model=model, measure=measure)
    return router, model, measure, store


def turn(router, text, scope=SCOPE):
    return asyncio.run(router.run_turn(scope, text))


@pytest.mark.parametrize(
    "text", ["花壇有什麼店推薦吃吃看？", "鹿港這週有什麼活動", "附近哪裡可以停車？", "剛才那個鄉鎮呢？"]
)
def test_the_model_is_called_exactly_once_per_turn(tmp_path, clock, text):
    router, model, _, _ = build(tmp_path, clock)
    outcome = turn(router, text)
    assert len(model.seen) == 1
    assert outcome.error_code is None


def test_a_tool_turn_is_answered_by_code_from_the_tool_result_not_by_a_second_model_call(tmp_path, clock):
    router, model, _, _ = build(tmp_path, clock)
    outcome = turn(router, "花壇有什麼店推薦吃吃看？")
    assert len(model.seen) == 1
    assert [c["tool"] for c in outcome.tool_calls] == ["search_local_places"]
    assert outcome.reply.texts[0].startswith("花壇鄉")
    assert outcome.reply.cards


def test_the_model_receives_exactly_the_budgeted_contents(tmp_path, clock):
    router, model, _, _ = build(tmp_path, clock)
    for text in ("花壇有什麼蔬食推薦？", "花壇最近有什麼活動？", "那邊停車要不要錢？"):
        outcome = turn(router, text)
        assert model.seen[-1]["contents"] == outcome.model_requests[0]["contents"]
    # The third turn's request holds two projected exchanges + the current text, and no raw earlier text.
    sent = model.seen[-1]["contents"]
    assert len(sent) == 5 and sent[-1] == {"role": "user", "text": "那邊停車要不要錢？"}
    assert not any("蔬食推薦" in c["text"] or "最近有什麼" in c["text"] for c in sent)


def test_the_whole_request_is_measured_rules_tools_and_contents(tmp_path, clock):
    router, model, measure, _ = build(tmp_path, clock)
    turn(router, "花壇有什麼店推薦吃吃看？")
    outcome = turn(router, "剛才那個鄉鎮，再找一家吃的。")
    (measured,) = measure.requests[-1:]
    seen = model.seen[-1]
    # What was measured is what the model got: the same rules, the same tool contract, the same contents.
    assert measured["system_instruction"] == seen["system_instruction"]
    assert measured["system_instruction"].startswith(SYSTEM_INSTRUCTION)
    assert measured["tools"] == seen["tools"]
    assert {t["name"] for t in measured["tools"]} == TOOL_NAMES == set(seen["tool_names"])
    assert [{"role": c["role"], "text": c["parts"][0]["text"]} for c in measured["contents"]] == seen[
        "contents"
    ]
    # And the reported count is the byte count of exactly that whole request, rebuilt from the model's view.
    rebuilt = {
        "system_instruction": seen["system_instruction"],
        "tools": seen["tools"],
        "contents": [{"role": c["role"], "parts": [{"text": c["text"]}]} for c in seen["contents"]],
    }
    request = outcome.model_requests[0]
    assert request["unit"] == "bytes"
    assert request["count"] == ByteMeasure().sync(rebuilt) == ByteMeasure().sync(measured)
    contents_only = ByteMeasure().sync({"contents": rebuilt["contents"]})
    assert request["count"] > contents_only + len(SYSTEM_INSTRUCTION.encode("utf-8"))


def test_when_the_budget_drops_the_clue_the_model_cannot_resolve_the_reference(tmp_path, clock):
    current = "剛才那個鄉鎮，再找一家吃的。"
    # Size of rules + tools + the current text alone, measured on a scope with no history.
    probe, _, probe_measure, store = build(tmp_path, clock)
    turn(probe, current, ScopeKey.for_user("Uprobe"))
    bare = ByteMeasure().sync(probe_measure.requests[-1])
    turn(probe, "花壇有什麼店推薦吃吃看？")  # U1 now has a 花壇 turn
    tight, model, _, _ = build(tmp_path, clock, limit=bare, store=store)
    outcome = turn(tight, current)
    assert model.seen[-1]["contents"] == [{"role": "user", "text": current}]
    assert outcome.model_requests[0]["dropped_turns"] == 1
    assert outcome.model_requests[0]["summary_dropped"] is True
    assert outcome.reply.texts[0].startswith(intent.ASK_TOWNSHIP)
    # It asks by running the search with no area: nothing is searched, the turn is pending.
    assert [(c["status"], c["effective_arguments"]) for c in outcome.tool_calls] == [("error", {})]
    assert outcome.projection == "未指定區域：找店家"


def test_the_same_request_with_the_clue_resolves_it(tmp_path, clock):
    router, model, _, _ = build(tmp_path, clock)
    turn(router, "花壇有什麼店推薦吃吃看？")
    outcome = turn(router, "剛才那個鄉鎮，再找一家吃的。")
    assert outcome.tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"


def test_offline_model_alone_proposes_a_function_call_from_the_request():
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="鹿港有什麼小吃")])])

    async def collect():
        return [r async for r in OfflineModel().generate_content_async(request)]

    (response,) = asyncio.run(collect())
    call = response.content.parts[0].function_call
    assert (call.name, dict(call.args)) == (
        "search_local_places",
        {"area": "鹿港鎮", "dietary_type": "", "keyword": "小吃"},
    )
    assert response.usage_metadata.prompt_token_count == len("鹿港有什麼小吃".encode())


def test_offline_model_is_labelled_as_a_stand_in():
    assert "offline" in OFFLINE_MODEL_NAME and "standin" in OFFLINE_MODEL_NAME.replace("-", "")
    assert OfflineModel().model == OFFLINE_MODEL_NAME
