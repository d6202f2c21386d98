"""BoundedContextPlugin in ADK apps as they are built: many agents, long-running tools, callbacks.

Agents written here, apart from the repository's own, run through ADK's real ``Runner`` with a
scripted ``BaseLlm`` that reads only its request and records each one. Every request carries the
person's message of its turn (and its image) and no earlier turn's words; the tool calls are the
ones the same app makes without the plugin; the budget holds on every request.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.plugins.global_instruction_plugin import GlobalInstructionPlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import AgentTool, LongRunningFunctionTool
from google.genai import types
from pydantic import Field

from local_agent.context.session_budget import ByteMeasure
from local_agent.plugin import (
    BUDGET_EXCEEDED,
    CUT_MARKER,
    REQUEST_GREW_AFTER_PLUGIN,
    BoundedContextPlugin,
    content_dict,
    request_envelope,
)

USER = "person-1"
IMAGE = types.Part.from_bytes(data=b"\x89PNG-the-photo-of-a-receipt", mime_type="image/png")
MESSAGES = [
    "Hello, I need help with my order number twelve please, it is late",
    "Also the second parcel never came and the courier did not call me",
    "Can you check again tomorrow morning, I will be at home after nine",
    "Thank you so much, one more thing about the refund for the blue lamp",
]
Respond = Callable[[LlmRequest], list[types.Part]]


class Recording(BaseLlm):
    """A scripted model: ``respond`` reads only the request; every request is recorded."""

    model: str = "scripted"
    respond: Any = None
    sent: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.sent.append(
            {**request_envelope(llm_request), "contents": [content_dict(c) for c in llm_request.contents]}
        )
        parts = self.respond(llm_request)
        yield LlmResponse(content=types.Content(role="model", parts=parts), turn_complete=True)


def _last(llm_request: LlmRequest) -> types.Content:
    return llm_request.contents[-1]


def _answered(llm_request: LlmRequest) -> bool:
    return any(p.function_response for p in _last(llm_request).parts or [])


def _call(name: str, **args: Any) -> list[types.Part]:
    return [types.Part(function_call=types.FunctionCall(name=name, args=args))]


def _text(text: str) -> list[types.Part]:
    return [types.Part(text=text)]


class App_:
    """One app, one ADK session; each turn's events kept, every model's requests per turn."""

    def __init__(self, root: Any, models: list[Recording], plugins: list[BasePlugin]) -> None:
        self.models = models
        self.runner = Runner(
            app=App(name="shop", root_agent=root, plugins=plugins), session_service=InMemorySessionService()
        )
        self.session_id = ""
        self.turns: list[list[dict[str, Any]]] = []
        self.events: list[list[Any]] = []

    async def send(self, message: types.Content) -> list[Any]:
        if not self.session_id:
            session = await self.runner.session_service.create_session(app_name="shop", user_id=USER)
            self.session_id = session.id
        before = [len(m.sent) for m in self.models]
        events = [
            e
            async for e in self.runner.run_async(
                user_id=USER, session_id=self.session_id, new_message=message
            )
        ]
        self.turns.append([r for m, n in zip(self.models, before, strict=True) for r in m.sent[n:]])
        self.events.append(events)
        return events

    def run(self, texts: list[str], *, image: bool = False) -> None:
        async def go() -> None:
            for text in texts:
                parts = [types.Part(text=text), *([IMAGE] if image else [])]
                await self.send(types.Content(role="user", parts=parts))

        asyncio.run(go())

    def tool_calls(self) -> list[list[tuple[str, str]]]:
        return [
            [
                (c.name or "", json.dumps(c.args, sort_keys=True))
                for e in events
                for c in e.get_function_calls()
            ]
            for events in self.events
        ]


def _assert_turns_carry_their_message_only(app: App_, texts: list[str], *, image: bool = False) -> int:
    checked = 0
    for k, requests in enumerate(app.turns):
        assert requests, f"turn {k + 1} made no model request"
        for request in requests:
            dumped = json.dumps(request, ensure_ascii=False)
            assert texts[k] in dumped, f"turn {k + 1}: a request lost the person's message"
            assert not [t for t in texts[:k] if t in dumped], f"turn {k + 1}: an earlier message came back"
            if image:
                assert any("inline_data" in p for c in request["contents"] for p in c["parts"])
            checked += 1
    return checked


# -- the apps ---------------------------------------------------------------------------------
def transfer_app(plugins: list[BasePlugin]) -> App_:
    helper_model = Recording(respond=lambda r: _text("Helper here: I looked at it."))
    root_model = Recording(
        respond=lambda r: _text("Done.") if _answered(r) else _call("transfer_to_agent", agent_name="helper")
    )
    helper = LlmAgent(name="helper", model=helper_model, instruction="You help with orders.")
    root = LlmAgent(name="front", model=root_model, instruction="Route to helper.", sub_agents=[helper])
    return App_(root, [root_model, helper_model], plugins)


def sequential_app(plugins: list[BasePlugin]) -> App_:
    first_model = Recording(respond=lambda r: _text("Step one: the order is found."))
    second_model = Recording(respond=lambda r: _text("Step two: the answer is written."))
    first = LlmAgent(name="finder", model=first_model, instruction="Find the order.")
    second = LlmAgent(name="writer", model=second_model, instruction="Write the answer.")
    return App_(
        SequentialAgent(name="pipeline", sub_agents=[first, second]), [first_model, second_model], plugins
    )


def parallel_app(plugins: list[BasePlugin]) -> App_:
    left_model = Recording(respond=lambda r: _text("Branch one: the parcel is found."))
    right_model = Recording(respond=lambda r: _text("Branch two: the refund is checked."))
    left = LlmAgent(name="parcels", model=left_model, instruction="Find the parcel.")
    right = LlmAgent(name="refunds", model=right_model, instruction="Check the refund.")
    return App_(ParallelAgent(name="both", sub_agents=[left, right]), [left_model, right_model], plugins)


def loop_app(plugins: list[BasePlugin]) -> App_:
    model = Recording(respond=lambda r: _text(f"Pass {len(r.contents)}: still looking."))
    looking = LlmAgent(name="looker", model=model, instruction="Look once more.")
    return App_(LoopAgent(name="again", sub_agents=[looking], max_iterations=2), [model], plugins)


def lookup(order: int) -> dict[str, Any]:
    """Look an order up.

    Args:
        order: the order number.
    """
    return {"status": "ok", "order": order, "state": "shipped"}


def agent_tool_app(plugins: list[BasePlugin]) -> App_:
    child_model = Recording(
        respond=lambda r: _text("Order 12 shipped.") if _answered(r) else _call("lookup", order=12)
    )
    child = LlmAgent(name="orders", model=child_model, instruction="Look orders up.", tools=[lookup])

    def root_respond(r: LlmRequest) -> list[types.Part]:
        if _answered(r):
            return _text("Your order shipped.")
        said = "".join(p.text or "" for p in _last(r).parts or [])
        return _call("orders", request=said)  # AgentTool's request: the person's phrase, by construction

    root_model = Recording(respond=root_respond)
    root = LlmAgent(
        name="front", model=root_model, instruction="Use the orders tool.", tools=[AgentTool(child)]
    )
    return App_(root, [root_model, child_model], plugins)


# -- the current turn, found from the invocation ----------------------------------------------
@pytest.mark.parametrize("build", [transfer_app, sequential_app, parallel_app, loop_app, agent_tool_app])
def test_every_agent_sees_the_persons_message_and_the_same_tools_run_as_without_the_plugin(build):
    plugin = BoundedContextPlugin(16384)
    app = build([plugin])
    app.run(MESSAGES)
    plain = build([])
    plain.run(MESSAGES)
    assert app.tool_calls() == plain.tool_calls()
    assert sum(len(m.sent) for m in app.models) == sum(len(m.sent) for m in plain.models)  # 0 extra calls
    if build is not agent_tool_app:
        assert _assert_turns_carry_their_message_only(app, MESSAGES) > len(MESSAGES)  # two agents
    else:  # the child sees its own request (the phrase), the root sees the message; nothing earlier
        for k, requests in enumerate(app.turns):
            for request in requests:
                dumped = json.dumps(request, ensure_ascii=False)
                assert MESSAGES[k] in dumped and not [t for t in MESSAGES[:k] if t in dumped]
    for requests in app.turns:
        assert all(ByteMeasure().sync(r) <= 16384 for r in requests)


def test_a_loops_second_pass_sees_its_first_pass_of_this_turn_and_nothing_of_earlier_turns():
    app = loop_app([BoundedContextPlugin(16384)])
    app.run(MESSAGES[:3])
    for requests in app.turns:
        first, second = requests
        said = [
            p["text"] for c in second["contents"] if c["role"] == "model" for p in c["parts"] if "text" in p
        ]
        assert [t for t in said if t.startswith("Pass ")] == [
            "Pass " + str(len(first["contents"])) + ": still looking."
        ]


def test_a_sub_agent_after_a_transfer_sees_the_message_and_its_image():
    app = transfer_app([BoundedContextPlugin(16384)])
    app.run(MESSAGES[:3], image=True)
    _assert_turns_carry_their_message_only(app, MESSAGES[:3], image=True)
    helper_requests = app.models[1].sent
    assert helper_requests and all("For context" in json.dumps(r) for r in helper_requests[:1])


def test_an_agent_tool_child_run_keeps_no_window_of_its_own():
    plugin = BoundedContextPlugin(16384)
    app = agent_tool_app([plugin])
    app.run(MESSAGES)
    records = [plugin.store.load(key) for key in list(plugin.store._rows)]
    assert len(records) == 1  # one person
    assert len(records[0].exchanges) == 1  # one conversation: the child runs wrote none
    ((_, window),) = records[0].exchanges
    assert window.turns == ('orders {"request":"<text>"}',) * 2  # the phrase is free text: not kept
    assert not [t for t in MESSAGES if t in json.dumps(records[0].to_dict())]


# -- a long-running tool's resume ---------------------------------------------------------------
def ask_approval(amount: int, reason: str) -> dict[str, Any]:
    """Ask a person to approve a refund.

    Args:
        amount: the refund in dollars.
        reason: why.
    """
    return {"status": "pending", "ticket": "T-1"}


def test_a_long_running_tools_resume_carries_no_earlier_message_verbatim():
    def respond(r: LlmRequest) -> list[types.Part]:
        if _answered(r):
            return _text("The refund is approved.")
        return _call("ask_approval", amount=30, reason="lamp arrived broken")

    model = Recording(respond=respond)
    agent = LlmAgent(
        name="refunds", model=model, instruction="Refunds.", tools=[LongRunningFunctionTool(ask_approval)]
    )
    app = App_(agent, [model], [BoundedContextPlugin(16384)])
    asked = "Please refund my blue lamp, it arrived broken on Monday morning"
    app.run([asked, MESSAGES[0], MESSAGES[1]])
    call = next(c for e in app.events[0] for c in e.get_function_calls())
    answer = types.Part(
        function_response=types.FunctionResponse(id=call.id, name=call.name, response={"status": "approved"})
    )
    asyncio.run(app.send(types.Content(role="user", parts=[answer])))
    resume = app.turns[-1]
    assert resume, "the resume made no model request"
    for request in resume:
        dumped = json.dumps(request, ensure_ascii=False)
        assert not [t for t in (asked, *MESSAGES[:2]) if t in dumped]
        kinds = [
            next(iter(k for k in p if k in ("function_call", "function_response")), None)
            for c in request["contents"]
            for p in c["parts"]
        ]
        assert kinds[-2:] == ["function_call", "function_response"]  # the call and its answer, whole
        assert '"approved"' in dumped


# -- the budget as ADK runs it ----------------------------------------------------------------
RAG = "Retrieved passage: " + "the shop's refund policy allows thirty days. " * 30


def _rag(callback_context: Any, llm_request: LlmRequest) -> None:
    llm_request.append_instructions([RAG])  # the agent's own callback runs after every plugin


def test_the_budget_holds_after_an_agent_callback_and_a_later_plugin_grow_the_request(caplog):
    budget = 3000  # without the final check the requests reach 3,448 B
    model = Recording(respond=lambda r: _text("Fine.") if _answered(r) else _call("lookup", order=12))
    agent = LlmAgent(
        name="shop", model=model, instruction="Orders.", tools=[lookup], before_model_callback=_rag
    )
    plugins: list[BasePlugin] = [
        BoundedContextPlugin(budget),
        GlobalInstructionPlugin("Always be kind. " * 40),
    ]
    app = App_(agent, [model], plugins)
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        app.run(MESSAGES)
    sizes = [ByteMeasure().sync(r) for requests in app.turns for r in requests]
    assert len(sizes) == 2 * len(MESSAGES) and max(sizes) <= budget
    assert all(
        RAG.strip() in json.dumps(r) for requests in app.turns for r in requests
    )  # the callback's text went
    grew = [r for r in caplog.records if getattr(r, "code", None) == REQUEST_GREW_AFTER_PLUGIN]
    assert len(grew) == 1 and REQUEST_GREW_AFTER_PLUGIN in grew[0].getMessage()
    assert not [e for events in app.events for e in events if e.error_code]


def big_report(order: int) -> dict[str, Any]:
    """The full history of an order.

    Args:
        order: the order number.
    """
    return {
        "status": "ok",
        "order": order,
        "history": [f"step {i}: scanned at hub {i % 7}" for i in range(600)],
    }


def test_a_15_kb_tool_result_is_cut_to_fit_not_refused_after_the_tool_ran(caplog):
    ran: list[int] = []

    def report(order: int) -> dict[str, Any]:
        """The full history of an order.

        Args:
            order: the order number.
        """
        ran.append(order)
        return big_report(order)

    assert len(json.dumps(big_report(1))) > 15000
    model = Recording(respond=lambda r: _text("Here it is.") if _answered(r) else _call("report", order=12))
    agent = LlmAgent(name="shop", model=model, instruction="Orders.", tools=[report])
    app = App_(agent, [model], [BoundedContextPlugin()])
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        app.run(MESSAGES[:2])
    assert ran == [12, 12]
    assert not [e for events in app.events for e in events if e.error_code == BUDGET_EXCEEDED]
    seconds = [requests[1] for requests in app.turns]
    assert all(
        CUT_MARKER in json.dumps(r, ensure_ascii=False) and ByteMeasure().sync(r) <= 16384 for r in seconds
    )
    assert [getattr(r, "code", None) for r in caplog.records].count("TOOL_RESPONSE_CUT") == 2


# -- windows: deleted on request, gone after their TTL ---------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _window_of(app: App_) -> list[str]:
    return [
        t
        for r in app.turns[-1][:1]
        for c in r["contents"]
        for p in c["parts"]
        for t in [p.get("text", "")]
        if t.startswith("[Earlier")
    ]


def test_forget_deletes_a_persons_windows_and_they_expire_after_the_ttl(tmp_path):
    clock = Clock()
    plugin = BoundedContextPlugin(16384, store=tmp_path / "w.sqlite3", clock=clock, ttl_seconds=900)
    app = agent_tool_app([plugin])
    app.run(MESSAGES[:2])
    assert len(plugin.store) == 1
    plugin.forget(USER)
    assert len(plugin.store) == 0
    app.run(MESSAGES[2:3])
    assert _window_of(app) == []  # nothing came back
    app.run(MESSAGES[3:4])
    assert len(_window_of(app)) == 1
    clock.now += 901
    app.run(MESSAGES[:1])
    assert _window_of(app) == []  # expired: read as empty
    clock.now += 901
    assert plugin.purge() == 1 and len(plugin.store) == 0


def _windows_in_locals_store(store: Any) -> None:
    """The plugin on one of LOCAL's store adapters (the journal port): windows written and read
    back, the person forgotten, and nothing of the person's words in the store."""
    from local_agent.plugin.config import person_key

    plugin = BoundedContextPlugin(16384, store=store)
    app = agent_tool_app([plugin])
    app.run(MESSAGES[:3])
    assert len(_window_of(app)) == 2
    record = plugin.store.load(person_key(plugin.name, USER))
    assert record is not None and not [t for t in MESSAGES if t in json.dumps(record.to_dict())]
    plugin.forget(USER)
    app.run(MESSAGES[3:4])
    assert _window_of(app) == []


def test_the_windows_live_in_locals_sqlite_store(tmp_path):
    from local_agent.stores.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "local.sqlite3")
    try:
        _windows_in_locals_store(store)
    finally:
        store.close()


def test_the_windows_live_in_locals_firestore_store(firestore_store):
    _windows_in_locals_store(firestore_store)


@pytest.mark.slow
def test_a_tool_heavy_agent_over_30_turns_sends_far_less_than_adks_ways_and_stays_flat():
    from bench import plugin_tools

    runs = plugin_tools.run_all(30)
    f = plugin_tools.figures(runs)
    assert 5.0 <= f["result_kb"][0] and f["result_kb"][1] <= 20.0  # the tool results are 5-20 KB
    assert f["same_tools"] and runs["compaction"]["summarizer_calls"] == 30 // 3
    assert f["plugin_over_filter"] <= 0.5 and f["plugin_over_default"] <= 0.1 and f["flat"] <= 1.05
    assert f["cuts"]["plugin"] == 0 < f["cuts"]["plugin_default_budget"]  # cut, not refused
    assert f["other_codes"] == []
    root = Path(__file__).resolve().parents[1]
    for doc in ("bench/README.md", "docs/plugin.md"):  # the figures the docs state are this run's
        text = (root / doc).read_text(encoding="utf-8")
        stated = [f"{f['total'][w]:,}" for w in plugin_tools.WAYS]
        stated += [f"{f['plugin_over_filter']:.3f}", f"{f['plugin_over_default']:.3f}", f"{f['flat']:.3f}"]
        assert [s for s in stated if s not in text] == [], doc
