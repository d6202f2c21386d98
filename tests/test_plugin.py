"""BoundedContextPlugin on the sample agent (not LOCAL) through ADK's real Runner, with a scripted model.

Every request the model is handed is checked: no earlier turn's raw text, at most ``max_exchanges``
projected exchanges, function calls and responses in whole pairs, the whole request within the
budget; an over-budget turn is answered without a model call and its text never comes back.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from google.adk.events import Event
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from examples.plugin.weather import APP_NAME, WEATHER, ScriptedWeatherModel, build_app, conversation
from local_agent.context.exchanges import EXCHANGE_MARKER, SUMMARY_MARKER
from local_agent.context.session_budget import ByteMeasure, BytesBoundMeasure
from local_agent.plugin import (
    BUDGET_EXCEEDED,
    PROJECTION_FAILED,
    PROJECTION_NOT_TEXT,
    PROJECTION_REPEATS_USER_TEXT,
    PROJECTION_TOO_LONG,
    SUMMARY_FAILED,
    SUMMARY_NOT_TEXT,
    SUMMARY_TOO_LONG,
    BoundedContextPlugin,
    FinishedExchange,
    PluginConfigError,
    StoreError,
    ToolCall,
    default_projection,
)

USER = "u1"


class Chat:
    """One ADK session of the sample app: run turns, keep each turn's events and requests."""

    def __init__(self, plugin: BoundedContextPlugin, *, session_id: str | None = None) -> None:
        self.model = ScriptedWeatherModel()
        self.plugin = plugin
        self.runner = Runner(
            app=build_app(self.model, plugins=[plugin]), session_service=InMemorySessionService()
        )
        self.session_id = session_id
        self.texts: list[str] = []
        self.requests: list[list[dict[str, Any]]] = []  # per turn, what the model was handed
        self.events: list[list[Event]] = []

    async def turn(self, text: str) -> list[Event]:
        if self.session_id is None or not await self.runner.session_service.get_session(
            app_name=APP_NAME, user_id=USER, session_id=self.session_id
        ):
            session = await self.runner.session_service.create_session(
                app_name=APP_NAME, user_id=USER, session_id=self.session_id
            )
            self.session_id = session.id
        before = len(self.model.sent)
        message = types.Content(role="user", parts=[types.Part(text=text)])
        events = [
            e
            async for e in self.runner.run_async(
                user_id=USER, session_id=self.session_id, new_message=message
            )
        ]
        self.texts.append(text)
        self.requests.append(self.model.sent[before:])
        self.events.append(events)
        return events

    def run(self, texts: list[str]) -> None:
        async def go() -> None:
            for text in texts:
                await self.turn(text)

        asyncio.run(go())


def _projection(i: int) -> str:
    """The default projection of turn ``i`` (0-based) of ``conversation``: the third of every five names no city."""
    if i % 5 == 2:
        return "no tool was called"
    city = sorted(WEATHER)[i % len(WEATHER)]
    return 'get_weather {"city":"' + city + '"}'


def _texts(request: dict[str, Any]) -> list[str]:
    return [p["text"] for c in request["contents"] for p in c["parts"] if "text" in p]


def _exchanges(request: dict[str, Any]) -> list[str]:
    return [t.removeprefix(EXCHANGE_MARKER) for t in _texts(request) if t.startswith(EXCHANGE_MARKER)]


def _summaries(request: dict[str, Any]) -> list[str]:
    return [t.removeprefix(SUMMARY_MARKER) for t in _texts(request) if t.startswith(SUMMARY_MARKER)]


def _assert_whole_pairs(request: dict[str, Any]) -> None:
    """Every function call is answered by the next content, and every response answers the one before."""
    contents = request["contents"]
    for i, content in enumerate(contents):
        calls = [p["function_call"]["name"] for p in content["parts"] if "function_call" in p]
        answers = [p["function_response"]["name"] for p in content["parts"] if "function_response" in p]
        if calls and i + 1 < len(contents):
            nxt = [
                p["function_response"]["name"] for p in contents[i + 1]["parts"] if "function_response" in p
            ]
            assert nxt == calls
        if answers:
            assert i > 0
            before = [p["function_call"]["name"] for p in contents[i - 1]["parts"] if "function_call" in p]
            assert before == answers


def _assert_bounded(chat: Chat, *, budget: int, max_exchanges: int) -> int:
    """The four checks on every request of every turn; returns how many requests were checked."""
    checked = 0
    for k, requests in enumerate(chat.requests):
        earlier = [t for t in chat.texts[:k] if t != chat.texts[k]]
        for request in requests:
            dumped = json.dumps(request, ensure_ascii=False)
            assert not [t for t in earlier if t in dumped], f"turn {k + 1} carries an earlier turn's words"
            assert len(_exchanges(request)) <= max_exchanges
            _assert_whole_pairs(request)
            assert ByteMeasure().sync(request) <= budget
            assert _texts(request)[-1:] == [chat.texts[k]] or "function_response" in dumped
            checked += 1
    return checked


def test_every_request_of_a_long_conversation_is_bounded_and_free_of_earlier_words():
    texts = conversation(14)
    chat = Chat(BoundedContextPlugin(budget_bytes=16384, max_exchanges=2))
    chat.run(texts)
    assert _assert_bounded(chat, budget=16384, max_exchanges=2) >= 14 + 11  # a tool call takes two requests
    # Within budget the last two exchanges are present, as their default projections, newest last.
    last = chat.requests[-1][0]
    assert _exchanges(last) == [_projection(11), _projection(12)]
    assert _summaries(last) == [_projection(10)]  # the newest exchange evicted
    # ADK's session still holds every raw message: the bound is on what the model sees.
    session = asyncio.run(
        chat.runner.session_service.get_session(app_name=APP_NAME, user_id=USER, session_id=chat.session_id)
    )
    assert sum(1 for e in session.events if e.author == "user" and e.content.parts[0].text) == 14


def test_the_second_request_of_a_turn_keeps_the_call_and_its_response_whole():
    chat = Chat(BoundedContextPlugin(budget_bytes=16384, max_exchanges=2))
    chat.run(conversation(4))
    second = chat.requests[3][1]
    roles = [c["role"] for c in second["contents"]]
    assert roles[-3:] == ["user", "model", "user"]
    assert "function_call" in second["contents"][-2]["parts"][0]
    assert "function_response" in second["contents"][-1]["parts"][0]
    assert len(_exchanges(second)) == 2


@pytest.mark.parametrize("budget", [1900, 2100, 2300, 2500, 2700])
def test_a_tight_budget_drops_whole_exchanges_oldest_first_then_the_summary(budget: int):
    texts = conversation(8)
    chat = Chat(BoundedContextPlugin(budget_bytes=budget, max_exchanges=2))
    chat.run(texts)
    _assert_bounded(chat, budget=budget, max_exchanges=2)
    full = Chat(BoundedContextPlugin(budget_bytes=100_000, max_exchanges=2))
    full.run(texts)
    for tight_turn, full_turn in zip(chat.requests[3:], full.requests[3:], strict=True):
        kept, whole = _exchanges(tight_turn[0]), _exchanges(full_turn[0])
        assert kept == whole[len(whole) - len(kept) :]  # a suffix: the newest exchanges stay
        if _summaries(tight_turn[0]):
            assert kept == whole  # the summary goes only after every exchange has gone


def test_an_over_budget_turn_is_refused_without_a_model_call_and_never_comes_back():
    chat = Chat(BoundedContextPlugin(budget_bytes=2600, max_exchanges=2))
    texts = conversation(3)
    chat.run(texts[:2])
    calls = chat.model.calls
    long_text = "Please remember my whole story: " + "I walked to Taipei station and back. " * 60
    events = asyncio.run(chat.turn(long_text))
    assert chat.model.calls == calls  # no model call
    assert [e.error_code for e in events] == [BUDGET_EXCEEDED]
    asyncio.run(chat.turn(texts[2]))
    assert chat.model.calls > calls  # the next turn works
    for request in chat.requests[-1]:
        assert "my whole story" not in json.dumps(request, ensure_ascii=False)
    assert len(_exchanges(chat.requests[-1][0])) == 2  # the refused turn left no exchange


def test_rules_and_tools_above_the_budget_refuse_every_turn_without_a_model_call():
    chat = Chat(BoundedContextPlugin(budget_bytes=300))
    chat.run(conversation(2))
    assert chat.model.calls == 0
    assert [[e.error_code for e in turn] for turn in chat.events] == [[BUDGET_EXCEEDED]] * 2


def test_a_window_written_at_another_revision_is_never_read():
    revisions = {USER: 1}
    chat = Chat(BoundedContextPlugin(revision=lambda user_id: revisions[user_id]))
    texts = conversation(6)
    chat.run(texts[:3])
    assert len(_exchanges(chat.requests[-1][0])) == 2
    revisions[USER] = 2  # e.g. the person withdrew a consent
    chat.run(texts[3:4])
    assert _exchanges(chat.requests[-1][0]) == [] and _summaries(chat.requests[-1][0]) == []
    chat.run(texts[4:6])
    assert _exchanges(chat.requests[-1][0]) == [_projection(3), _projection(4)]


def test_a_revision_that_moves_during_the_turn_writes_nothing():
    revisions = {USER: 1}

    def revision(user_id: str) -> int:
        revisions[user_id] += 1  # every read sees a newer revision: the turn's window is stale
        return revisions[user_id]

    chat = Chat(BoundedContextPlugin(revision=revision))
    chat.run(conversation(3))
    assert all(_exchanges(turn[0]) == [] for turn in chat.requests)


def test_a_custom_projection_is_what_later_requests_see():
    def project(exchange: FinishedExchange) -> str | None:
        if not exchange.tool_calls:
            return None  # drop exchanges without a lookup
        call = exchange.tool_calls[-1]
        return f"looked up {call.args['city']}: {call.response['sky'] if call.response else '?'}"

    chat = Chat(BoundedContextPlugin(project=project))
    chat.run(conversation(6))
    sky = {i: WEATHER[sorted(WEATHER)[i % len(WEATHER)]]["sky"] for i in range(6)}
    cities = [sorted(WEATHER)[i % len(WEATHER)] for i in range(6)]
    assert _exchanges(chat.requests[-1][0]) == [
        f"looked up {cities[3]}: {sky[3]}",
        f"looked up {cities[4]}: {sky[4]}",
    ]


@pytest.mark.parametrize(
    ("project", "code"),
    [
        (lambda exchange: 1 / 0, PROJECTION_FAILED),
        (lambda exchange: 42, PROJECTION_NOT_TEXT),
        (lambda exchange: "x" * 401, PROJECTION_TOO_LONG),
        (lambda exchange: "the user said: " + exchange.user_text, PROJECTION_REPEATS_USER_TEXT),
    ],
)
def test_a_projection_that_fails_drops_the_exchange_with_a_logged_code(project, code, caplog):
    chat = Chat(BoundedContextPlugin(project=project))
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        chat.run(conversation(3))
    assert all(_exchanges(turn[0]) == [] for turn in chat.requests)
    ours = [r for r in caplog.records if r.name == "local_agent.plugin"]
    assert [getattr(r, "code", None) for r in ours] == [code] * 3
    assert chat.model.calls >= 3  # the turns themselves went on
    assert not any(text in r.getMessage() for r in caplog.records for text in chat.texts)


def test_windows_in_a_sqlite_file_outlive_the_plugin(tmp_path: Path):
    path = tmp_path / "windows.sqlite3"
    texts = conversation(4)
    first = Chat(BoundedContextPlugin(store=str(path)), session_id="s1")
    first.run(texts[:3])
    again = Chat(BoundedContextPlugin(store=path), session_id="s1")
    again.run(texts[3:])
    assert _exchanges(again.requests[0][0]) == [_projection(1), _projection(2)]
    stored = path.read_bytes()
    assert (
        not [t for t in texts if t.encode() in stored] and b"s1" not in stored and USER.encode() not in stored
    )


def test_the_default_projection_keeps_no_free_text_only_declared_enum_values():
    exchange = FinishedExchange(
        user_text="my secret plan for Taipei",
        tool_calls=(
            ToolCall(
                "get_weather",
                {"city": "Taipei", "note": "my secret plan", "days": 3, "tags": ["a", 2], "opts": {"x": "y"}},
                {"sky": "rain"},
                enums={"city": ("Taipei", "Tainan"), "note": ("short",)},
            ),
            ToolCall("get_weather", {"city": "Atlantis"}, None, enums={"city": ("Taipei",)}),
        ),
        final_text="Taipei: rain.",
    )
    text = default_projection(exchange)
    assert text == (
        'get_weather {"city":"Taipei","days":3,"note":"<text>","opts":{"x":"<text>"},"tags":["<text>",2]}; '
        'get_weather {"city":"<text>"}'
    )
    assert default_projection(FinishedExchange(user_text="hello")) == "no tool was called"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"budget_bytes": 0},
        {"budget_bytes": -5},
        {"budget_bytes": "16k"},
        {"budget_bytes": True},
        {"max_exchanges": -1},
        {"max_exchanges": 1.5},
        {"max_projection_chars": 0},
        {"project": "tools"},
        {"revision": 3},
        {"ttl_seconds": 0},
        {"store": 42},
    ],
)
def test_bad_arguments_are_refused_at_construction_echoing_the_value(kwargs: dict[str, Any]):
    with pytest.raises(PluginConfigError, match="INVALID_PLUGIN_CONFIG") as refused:
        BoundedContextPlugin(**kwargs)
    assert repr(next(iter(kwargs.values()))) in str(refused.value)


def test_the_budget_may_be_given_positionally():
    assert (
        BoundedContextPlugin(2048).budget.limit
        == 2048
        == BoundedContextPlugin(budget_bytes=2048).budget.limit
    )


def test_a_store_that_cannot_be_opened_is_refused_at_construction(tmp_path: Path):
    with pytest.raises(StoreError, match="STORE_UNAVAILABLE") as refused:
        BoundedContextPlugin(store=tmp_path)  # a folder, not a file
    assert str(tmp_path) in str(refused.value) and "unable to open" in str(refused.value)
    missing = tmp_path / "missing" / "windows.sqlite3"
    with pytest.raises(StoreError, match="STORE_UNAVAILABLE") as refused:
        BoundedContextPlugin(store=missing)
    assert str(missing) in str(refused.value)


def test_zero_exchanges_keeps_only_the_current_turn():
    chat = Chat(BoundedContextPlugin(max_exchanges=0))
    chat.run(conversation(4))
    _assert_bounded(chat, budget=16384, max_exchanges=0)
    assert _exchanges(chat.requests[-1][0]) == []
    assert _summaries(chat.requests[-1][0]) == [_projection(2)]


class CountingTokens:
    """A token counter at the remote edge (as Gemini countTokens): a quarter of the bytes, counted."""

    unit = "tokens"

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, request: Any) -> int:
        self.calls += 1
        return ByteMeasure().sync(request) // 4


@pytest.mark.parametrize(("limit", "counted"), [(100_000, False), (1_500, True)])
def test_a_token_budget_counts_only_above_the_byte_bound(limit: int, counted: bool):
    tokens = CountingTokens()
    plugin = BoundedContextPlugin(budget_bytes=limit, measure=BytesBoundMeasure(tokens, limit=limit))
    chat = Chat(plugin)
    chat.run(conversation(5))
    assert (tokens.calls > 0) is counted
    assert chat.model.calls >= 5 and all(
        ByteMeasure().sync(r) // 4 <= limit for t in chat.requests for r in t
    )
    assert len(_exchanges(chat.requests[-1][0])) == 2


def test_the_side_by_side_script_measures_three_ways_and_counts_the_summarizer(capsys):
    from examples.plugin import side_by_side

    runs = side_by_side.run_all(7)
    default, compaction, plugin = runs["default"].bytes, runs["compaction"], runs["plugin"].bytes
    # Turns 4 and 7 both make a lookup (two requests): the default grows by three turns of history,
    # the plugin only by the difference of the two messages and projections.
    assert default[6] - default[3] > 2000 and abs(plugin[6] - plugin[3]) < 200
    assert compaction.summarizer_calls == 7 // 3  # interval 3: one summarizer call per 3 new invocations
    assert runs["default"].calls == runs["plugin"].calls == compaction.calls
    print(side_by_side.table(runs), *side_by_side.summary(runs), sep="\n")
    out = capsys.readouterr().out
    assert "summarizer calls 2" in out and out.splitlines()[0].startswith("turn")


def test_the_envelope_reads_the_system_instruction_in_every_form_adk_holds_it():
    from google.adk.models.llm_request import LlmRequest

    from local_agent.plugin import request_envelope

    forms = [
        "rules",
        types.Content(role="system", parts=[types.Part(text="ru"), types.Part(text="les")]),
        types.Part(text="rules"),
        ["ru", types.Part(text="les")],
    ]
    for form in forms:
        request = LlmRequest(config=types.GenerateContentConfig(system_instruction=form))
        assert request_envelope(request) == {"system_instruction": "rules", "tools": []}
    assert request_envelope(LlmRequest()) == {"system_instruction": "", "tools": []}


def test_a_stored_row_that_is_not_a_window_is_read_as_no_window(tmp_path: Path, caplog):
    from local_agent.context.exchanges import SessionWindow
    from local_agent.plugin import SqliteJournalStorage

    store = SqliteJournalStorage(tmp_path / "w.sqlite3")
    chat = Chat(BoundedContextPlugin(store=store), session_id="s1")
    chat.run(conversation(2))
    store._db.execute("""UPDATE journal SET record = '{"exchanges": 7}'""")  # a damaged row, by hand
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        chat.run(conversation(3)[2:])
    assert _exchanges(chat.requests[-1][0]) == []
    assert [getattr(r, "code", None) for r in caplog.records if r.name == "local_agent.plugin"] == [
        "STORE_ROW_INVALID"
    ]
    with pytest.raises(ValueError):
        SessionWindow.from_dict({"turns": "x", "summary": "", "updated_at": 0})


@pytest.mark.parametrize(
    ("summarize", "code"),
    [
        (lambda summary, evicted: 1 / 0, SUMMARY_FAILED),
        (lambda summary, evicted: None, SUMMARY_NOT_TEXT),
        (lambda summary, evicted: (summary + " " + evicted) * 20, SUMMARY_TOO_LONG),
    ],
)
def test_a_summary_that_fails_is_left_out_and_the_turns_go_on(summarize, code, caplog):
    chat = Chat(BoundedContextPlugin(summarize=summarize, budget_bytes=16384))
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        chat.run(conversation(5))
    _assert_bounded(chat, budget=16384, max_exchanges=2)
    assert _summaries(chat.requests[-1][0]) == [] and _exchanges(chat.requests[-1][0]) == [
        _projection(2),
        _projection(3),
    ]
    codes = {getattr(r, "code", None) for r in caplog.records if r.name == "local_agent.plugin"}
    assert codes == {code}


@pytest.mark.parametrize("revision", [lambda user_id: 1 / 0, lambda user_id: "2"])
def test_a_revision_that_cannot_be_read_reads_and_writes_no_window(revision, caplog):
    chat = Chat(BoundedContextPlugin(revision=revision))
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        chat.run(conversation(3))
    assert all(_exchanges(turn[0]) == [] for turn in chat.requests) and chat.model.calls >= 3
    assert len(chat.plugin.store) == 0  # the in-memory store holds no window
    assert {getattr(r, "code", None) for r in caplog.records if r.name == "local_agent.plugin"} == {
        "REVISION_FAILED"
    }


def test_a_store_that_fails_mid_conversation_costs_the_window_not_the_turn(tmp_path: Path, caplog):
    from local_agent.plugin import SqliteJournalStorage

    store = SqliteJournalStorage(tmp_path / "w.sqlite3")
    chat = Chat(BoundedContextPlugin(store=store))
    chat.run(conversation(2))
    store.close()  # every later load and save fails
    calls = chat.model.calls
    with caplog.at_level(logging.WARNING, logger="local_agent.plugin"):
        chat.run(conversation(4)[2:])
    assert chat.model.calls > calls and all(_exchanges(turn[0]) == [] for turn in chat.requests[2:])
    codes = [getattr(r, "code", None) for r in caplog.records if r.name == "local_agent.plugin"]
    assert codes == ["STORE_UNAVAILABLE"] * 4  # a read and a write per turn
