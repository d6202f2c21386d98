"""AdkRouter.run_turn end to end with the offline model: the seed's five turns, the budget gate,
store and model failures, a forget racing a turn, and snapshots free of raw text."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field

from local_agent.agent.adk_router import MODEL_UNAVAILABLE, AdkRouter, request_envelope
from local_agent.agent.offline_model import OfflineModel
from local_agent.agent.pipeline import ContextPipeline
from local_agent.context.errors import StoreError
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.context.projection import MODEL_PROJECTION, NON_PUBLIC_LABEL, SUMMARY_ACK, SUMMARY_MARKER
from local_agent.context.session_budget import ByteMeasure, SessionBudget
from local_agent.fingerprint import text_fingerprint
from local_agent.replies.render import BUDGET_REFUSAL, POLITE_FAILURE
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import Commands

SCOPE = ScopeKey.for_user("U1")
SEED_TURNS = (
    "花壇有什麼蔬食推薦？",
    "花壇最近有什麼活動？",
    "那邊停車要不要錢？",
    "接駁公車幾點會來？",
    "剛才那個鄉鎮，再找一家吃的。",
)
# Seed §4, 「第 5 輪｜兩回合加摘要（節錄 contents）」, verbatim.
SEED_TURN5_CONTENTS = [
    {
        "role": "user",
        "text": '【應用端舊話題摘要，不是指令、同意或已完成狀態】{"area": "花壇鄉", "goal": "events"}',
    },
    {"role": "model", "text": "只作指代線索，新的問句與後端核對優先。"},
    {
        "role": "user",
        "text": "【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。",
    },
    {"role": "model", "text": "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。"},
    {
        "role": "user",
        "text": "【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。",
    },
    {"role": "model", "text": "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。"},
    {"role": "user", "text": "剛才那個鄉鎮，再找一家吃的。"},
]


class CountingModel(OfflineModel):
    calls: list[int] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):
        self.calls.append(len(llm_request.contents))
        async for response in super().generate_content_async(llm_request, stream):
            yield response


class BrokenModel(OfflineModel):
    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):
        raise ConnectionError("model transport down")
        yield  # pragma: no cover  (makes this an async generator)


class ScriptedModel(OfflineModel):
    """Always proposes the same function call, whatever it is asked (a misbehaving Gemini).
    Gives up after three calls so a looping turn still ends quickly."""

    name_: str = "search_local_places"
    args_: dict[str, Any] = Field(default_factory=dict)
    calls: list[int] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):
        self.calls.append(len(llm_request.contents))
        if len(self.calls) > 3:
            raise RuntimeError("the model kept being called within one turn")
        call = types.FunctionCall(name=self.name_, args=dict(self.args_))
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(function_call=call)]), turn_complete=True
        )


class Proxy:
    """Delegates everything to ``inner`` except what a subclass overrides."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class AppendFails(Proxy):
    def update(self, scope_id, mutate):
        raise StoreError(operation="journal.update", backend="test")


class AuditFails(Proxy):
    def append_audit(self, row):
        raise StoreError(operation="audit.append", backend="test")


class PreferencesFail(Proxy):
    def get(self, user_id):
        raise StoreError(operation="preferences.get", backend="test")


class ForgetDuringToolCall(Proxy):
    """Preferences whose read *inside the tool call* (the second read of a turn) is preceded by
    a forget, as if the user's 「忘記我的飲食偏好」 landed between begin() and finish()."""

    def __init__(self, inner: SqliteStore, clock) -> None:
        super().__init__(inner)
        self.clock, self.reads, self.armed = clock, 0, False

    def get(self, user_id):
        self.reads += 1
        if self.armed and self.reads == 2:
            self.inner.set_consent(user_id, consent="forgotten", dietary_type=None, now=self.clock())
        return self.inner.get(user_id)


def build(
    tmp_path,
    clock,
    *,
    store=None,
    limit=16384,
    model=None,
    journal_storage=None,
    preferences=None,
    audit=None,
):
    store = store if store is not None else SqliteStore(tmp_path / "x.db")
    journal = ContextJournal(journal_storage or store, clock=clock)
    pipeline = ContextPipeline(
        journal=journal,
        preferences=preferences or store,
        audit=audit or store,
        snapshots=store,
        budget=SessionBudget(limit=limit),
        clock=clock,
    )
    model = model if model is not None else CountingModel()
    return AdkRouter(pipeline=pipeline, model=model, measure=ByteMeasure()), model, store


def turn(router, text, scope=SCOPE):
    return asyncio.run(router.run_turn(scope, text))


# -- the seed's five turns -----------------------------------------------------------------------------


def test_the_seeds_five_turns_resolve_turn_five_to_huatan(tmp_path, clock):
    router, model, store = build(tmp_path, clock)
    outcomes = [turn(router, t) for t in SEED_TURNS]
    assert [o.projection for o in outcomes] == [
        "花壇鄉：找店家",
        "花壇鄉：查活動",
        NON_PUBLIC_LABEL,
        NON_PUBLIC_LABEL,
        "花壇鄉：找店家",
    ]
    fifth = outcomes[-1]
    assert fifth.error_code is None
    assert fifth.tool_calls[0]["tool"] == "search_local_places"
    # 「再找一家」 asks for more: the summary keeps no listing ids, so nothing counts as shown
    assert fifth.tool_calls[0]["proposed_arguments"] == {
        "area": "花壇鄉",
        "dietary_type": "",
        "keyword": "",
        "more": True,
    }
    assert fifth.tool_calls[0]["effective_arguments"] == {
        "area": "花壇鄉",
        "dietary_type": "any",
        "keyword": "",
        "more": True,
    }
    assert fifth.model_requests[0]["contents"] == SEED_TURN5_CONTENTS
    assert len(model.calls) == 5


def test_turn_five_carries_no_raw_text_of_earlier_turns(tmp_path, clock):
    router, _, _ = build(tmp_path, clock)
    outcomes = [turn(router, t) for t in SEED_TURNS]
    history = "".join(c["text"] for c in outcomes[-1].model_requests[0]["contents"][:-1])
    for earlier in SEED_TURNS[:-1]:
        assert earlier not in history
    for fragment in ("停車", "公車", "蔬食", "要不要錢"):
        assert fragment not in history
    assert SUMMARY_MARKER in history and SUMMARY_ACK in history and MODEL_PROJECTION in history


def test_a_group_turn_does_not_leak_into_the_same_users_one_to_one_chat(tmp_path, clock):
    router, _, _ = build(tmp_path, clock)
    turn(router, "鹿港有什麼小吃", ScopeKey("local", "group", "Cgroup", "U1"))
    outcome = turn(router, "剛才那個鄉鎮，再找一家吃的。", SCOPE)
    assert outcome.reply.texts[0].startswith("請問是哪個鄉鎮？")
    assert [(c["status"], c["effective_arguments"]) for c in outcome.tool_calls] == [("error", {})]


def test_each_turn_runs_in_a_fresh_session_that_is_deleted_afterwards(tmp_path, clock):
    router, _, _ = build(tmp_path, clock)
    turn(router, "花壇有什麼店推薦吃吃看？")
    turn(router, "剛才那個鄉鎮，再找一家吃的。")
    listed = asyncio.run(router.sessions.list_sessions(app_name="local", user_id=SCOPE.storage_id))
    assert listed.sessions == []
    assert router._turns == {}


# -- budget gate ---------------------------------------------------------------------------------------


def test_a_one_byte_budget_refuses_without_calling_the_model_or_writing_the_journal(tmp_path, clock):
    normal, _, store = build(tmp_path, clock)
    turn(normal, "花壇有什麼店推薦吃吃看？")
    journal_before, audit_before = store.journal_rows(), len(store.audit_rows())
    snapshots_before = len(store.snapshots())
    tiny, model, _ = build(tmp_path, clock, store=store, limit=1)
    clock.advance(10)
    outcome = turn(tiny, "剛才那個鄉鎮，再找一家吃的。")
    assert outcome.error_code == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
    assert outcome.reply.texts == (BUDGET_REFUSAL,)
    assert model.calls == []
    assert outcome.tool_calls == [] and outcome.projection is None
    assert store.journal_rows() == journal_before  # not even updated_at moved
    assert len(store.audit_rows()) == audit_before
    # The refusal leaves one snapshot saying why (counts and code, never the text).
    (refused,) = store.snapshots()[snapshots_before:]
    assert refused.data["error_code"] == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
    assert (
        refused.data["journal_written"] is False and refused.data["projection"] == "未指定區域：詢問可用功能"
    )
    assert "剛才那個鄉鎮" not in json.dumps(refused.to_dict(), ensure_ascii=False)


def test_a_measure_in_the_wrong_unit_refuses_before_the_model(tmp_path, clock):
    router, model, store = build(tmp_path, clock)

    class TokenMeasure(ByteMeasure):
        unit = "tokens"

    router.measure = TokenMeasure()
    outcome = turn(router, "花壇有什麼店推薦吃吃看？")
    assert outcome.error_code == "COUNTER_UNIT_MISMATCH"
    assert model.calls == [] and store.journal_rows() == {}


# -- consent and forget, end to end (seed §7 evidence) -------------------------------------------------


def test_consent_then_forget_changes_the_effective_arguments_and_keeps_the_township(tmp_path, clock):
    router, _, store = build(tmp_path, clock)
    commands = Commands(preferences=store, journal=router.pipeline.journal, clock=clock)
    commands.handle_postback(SCOPE, commands.handle_text(SCOPE, "記住我吃素").reply.choices[0].data)
    granted = turn(router, "花壇有什麼店推薦吃吃看？").tool_calls[0]
    assert (
        granted["effective_arguments"]["dietary_type"],
        granted["preference_origin"],
        granted["memory_revision"],
    ) == ("vegetarian", "consented_memory", 1)
    commands.handle_text(SCOPE, "忘記我的飲食偏好")
    # the window was projected again under the new revision: the township is still there
    again = turn(router, "剛才那個鄉鎮，再找一家吃的。").tool_calls[0]
    assert again["effective_arguments"]["area"] == "花壇鄉" and again["memory_revision"] == 2
    after = turn(router, "花壇有什麼店推薦吃吃看？").tool_calls[0]
    assert (
        after["effective_arguments"]["dietary_type"],
        after["preference_origin"],
        after["memory_revision"],
    ) == ("any", "none", 2)


# -- failures ------------------------------------------------------------------------------------------


def test_a_store_failing_on_journal_append_gives_store_unavailable_and_a_polite_reply(tmp_path, clock):
    store = SqliteStore(tmp_path / "x.db")
    router, _, _ = build(tmp_path, clock, store=store, journal_storage=AppendFails(store))
    outcome = turn(router, "花壇有什麼店推薦吃吃看？")
    assert outcome.error_code == "STORE_UNAVAILABLE"
    assert outcome.reply.texts == (POLITE_FAILURE,)
    assert store.journal_rows() == {}


def test_a_store_failing_on_audit_append_gives_store_unavailable_and_writes_no_journal(tmp_path, clock):
    store = SqliteStore(tmp_path / "x.db")
    router, _, _ = build(tmp_path, clock, store=store, audit=AuditFails(store))
    outcome = turn(router, "花壇有什麼店推薦吃吃看？")
    assert (outcome.error_code, outcome.reply.texts) == ("STORE_UNAVAILABLE", (POLITE_FAILURE,))
    assert store.journal_rows() == {}


def test_a_store_failing_before_the_turn_starts_gives_store_unavailable(tmp_path, clock):
    store = SqliteStore(tmp_path / "x.db")
    router, model, _ = build(tmp_path, clock, store=store, preferences=PreferencesFail(store))
    outcome = turn(router, "花壇有什麼店推薦吃吃看？")
    assert (outcome.error_code, outcome.reply.texts) == ("STORE_UNAVAILABLE", (POLITE_FAILURE,))
    assert model.calls == []


def test_a_model_that_raises_gives_model_unavailable_and_no_journal_write(tmp_path, clock):
    router, _, store = build(tmp_path, clock, model=BrokenModel())
    outcome = turn(router, "花壇有什麼店推薦吃吃看？")
    assert outcome.error_code == MODEL_UNAVAILABLE == "MODEL_UNAVAILABLE"
    assert outcome.reply.texts == (POLITE_FAILURE,)
    assert store.journal_rows() == {}
    assert store.audit_rows() == []
    assert router._turns == {}


def test_a_forget_landing_between_begin_and_finish_keeps_the_stale_window_out_of_the_journal(tmp_path, clock):
    store = SqliteStore(tmp_path / "x.db")
    store.set_consent("U1", consent="granted", dietary_type="vegetarian", now=clock())
    prefs = ForgetDuringToolCall(store, clock)
    router, _, _ = build(tmp_path, clock, store=store, preferences=prefs)
    turn(router, "花壇有什麼店推薦吃吃看？")  # revision 1, window [花壇鄉：找店家]
    before = store.journal_rows()[SCOPE.storage_id]
    prefs.reads, prefs.armed = 0, True
    clock.advance(5)
    outcome = turn(router, "鹿港有什麼小吃")  # forget lands inside the tool call
    assert store.get("U1").revision == 2
    # The tool already read the new state: no consented memory applied.
    assert outcome.tool_calls[0]["preference_origin"] == "none"
    assert outcome.tool_calls[0]["memory_revision"] == 2
    # The journal was not written with the window read under revision 1.
    assert store.journal_rows()[SCOPE.storage_id] == before
    snap = store.snapshots(SCOPE.storage_id)[-1].data
    assert snap["journal_written"] is False and snap["preference_revision"] == 1
    # And the next turn sees nothing of it.
    prefs.armed = False
    nxt = turn(router, "剛才那個鄉鎮，再找一家吃的。")
    assert nxt.reply.texts[0].startswith("請問是哪個鄉鎮？")


# -- a model proposing bad calls ---------------------------------------------------------------------


def test_a_bad_area_from_the_model_becomes_a_structured_reply_audited_and_projected_as_non_public(
    tmp_path, clock
):
    router, model, store = build(
        tmp_path, clock, model=ScriptedModel(args_={"area": "台中市我的電話0912345678"})
    )
    outcome = turn(router, "台中有什麼好吃的")
    assert len(model.calls) == 1
    assert outcome.error_code == "UNKNOWN_TOWNSHIP"
    assert outcome.reply.texts and outcome.reply.cards == ()
    assert outcome.projection == NON_PUBLIC_LABEL
    (row,) = store.audit_rows()
    assert row.proposed_arguments["area"] == "#unrecognised" and row.status == "error"
    assert "0912345678" not in json.dumps(store.journal_rows(), ensure_ascii=False)


def test_an_extra_argument_from_the_model_is_not_passed_on_or_audited(tmp_path, clock):
    router, model, store = build(
        tmp_path, clock, model=ScriptedModel(args_={"area": "花壇鄉", "phone": "0912345678"})
    )
    outcome = turn(router, "花壇有什麼好吃的")
    assert outcome.error_code is None and len(model.calls) == 1
    assert "0912345678" not in json.dumps([r.to_dict() for r in store.audit_rows()])


@pytest.mark.parametrize(
    "name,args",
    [
        ("search_local_places", {}),
        ("search_local_events", {"keyword": "市集"}),
        ("search_local_parking", {"area": "花壇鄉"}),
    ],
)
def test_a_call_that_never_reaches_the_tools_still_costs_one_model_call(tmp_path, clock, name, args):
    router, model, store = build(tmp_path, clock, model=ScriptedModel(name_=name, args_=args))
    outcome = turn(router, "有什麼好吃的")
    assert len(model.calls) == 1
    assert outcome.error_code != MODEL_UNAVAILABLE


# -- snapshots -----------------------------------------------------------------------------------------


def test_the_turn_snapshot_keeps_the_current_text_only_as_a_keyed_fingerprint_and_length(tmp_path, clock):
    raw = "花壇有什麼店推薦吃吃看？我的電話0912345678，我有糖尿病"
    router, _, store = build(tmp_path, clock)
    turn(router, raw)
    (snap,) = store.snapshots()
    dumped = json.dumps(snap.to_dict(), ensure_ascii=False)
    assert raw not in dumped
    for fragment in ("0912345678", "糖尿病", "推薦吃吃看"):
        assert fragment not in dumped
    last = snap.data["contents"][-1]
    assert last == {"role": "user", "current_text": text_fingerprint(raw)}
    # Keyed: a plain SHA-256 of the text (guessable for short messages) is not what is stored.
    assert hashlib.sha256(raw.encode("utf-8")).hexdigest() not in dumped
    store.close()
    # Nowhere in the database files either (journal, audit, snapshots, WAL).
    for path in tmp_path.iterdir():
        if path.name.startswith("x.db"):
            data = path.read_bytes()
            assert b"0912345678" not in data and "糖尿病".encode() not in data, path.name


def test_request_envelope_carries_the_agents_rules_and_both_tools(tmp_path, clock):
    router, _, _ = build(tmp_path, clock)
    request = LlmRequest(
        config=types.GenerateContentConfig(
            system_instruction="規則",
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(name="search_local_places", description="d"),
                        types.FunctionDeclaration(name="search_local_events", description="e"),
                    ]
                )
            ],
        )
    )
    envelope = request_envelope(request)
    assert envelope["system_instruction"] == "規則"
    assert [t["name"] for t in envelope["tools"]] == ["search_local_places", "search_local_events"]
    assert request_envelope(LlmRequest()) == {"system_instruction": "", "tools": []}


@pytest.mark.parametrize("text", ["", "   "])
def test_a_blank_turn_does_not_crash_the_router(tmp_path, clock, text):
    router, _, _ = build(tmp_path, clock)
    outcome = turn(router, text)
    assert outcome.reply.texts
