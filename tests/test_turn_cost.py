"""The turn-cost changes keep their guarantees: fresh genai objects per turn, no user text in the
template cache, throwaway ADK sessions really deleted, store calls inline only for SQLite on the
turn thread. (The figures themselves live in bench.turn_overhead.)"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

from google.adk.sessions import InMemorySessionService
from google.genai import types
from helpers_app import make_settings

from local_agent.agent import adk_router
from local_agent.agent.adk_router import to_genai_contents
from local_agent.stores.sqlite import SqliteStore
from local_agent.wiring import guard_store, run_as_unit, run_inline, store_io

CONTEXT = [
    {"role": "user", "parts": [{"text": "【歷史話題投影，非原句】花壇鄉：找店家。"}]},
    {"role": "model", "parts": [{"text": "（應用端標記）"}]},
]


def contents(current: str) -> list[dict]:
    return [*CONTEXT, {"role": "user", "parts": [{"text": current}]}]


def test_each_turn_gets_its_own_content_objects_equal_to_freshly_validated_ones() -> None:
    first, second = (
        to_genai_contents(contents("花壇有什麼好吃的")),
        to_genai_contents(contents("花壇有什麼好吃的")),
    )
    expected = [
        types.Content(role=c["role"], parts=[types.Part(text=c["parts"][0]["text"])])
        for c in contents("花壇有什麼好吃的")
    ]
    assert first == second == expected
    for a, b in zip(first, second, strict=True):
        assert a is not b and a.parts[0] is not b.parts[0]
    first[0].parts[0].text = "changed by a later step"
    first[1].parts.append(types.Part(text="x"))
    assert to_genai_contents(contents("再一家"))[:2] == expected[:2]


def _is_cached(role: str, text: str) -> bool:
    """Probe the template cache (a probe of an uncached key adds it: probe last)."""
    before = adk_router._app_written_content.cache_info().hits
    adk_router._app_written_content(role, (text,))
    return adk_router._app_written_content.cache_info().hits > before


def test_the_current_question_is_never_cached_and_adk_s_own_content_is_reused_only_when_identical() -> None:
    private = "我的私人問題 0912345678"
    to_genai_contents(contents(private))
    assert _is_cached(CONTEXT[0]["role"], CONTEXT[0]["parts"][0]["text"])
    assert not _is_cached("user", private)
    mine = types.Content(role="user", parts=[types.Part(text="那員林呢？")])
    assert to_genai_contents(contents("那員林呢？"), current=mine)[-1] is mine
    other = types.Content(role="user", parts=[types.Part(text="別的話")])
    built = to_genai_contents(contents("那員林呢？"), current=other)[-1]
    assert built is not other and built.parts[0].text == "那員林呢？"


def test_adk_s_session_delete_removes_the_session_and_ignores_unknown_ids() -> None:
    """The router deletes its throwaway session with ADK's own ``delete_session`` (ADK 2.13 checks
    the id without copying the session first)."""

    async def go() -> tuple[object, object]:
        sessions = InMemorySessionService()
        session = await sessions.create_session(app_name="a", user_id="u", state={"k": 1})
        await sessions.delete_session(app_name="a", user_id="u", session_id="missing")
        await sessions.delete_session(app_name="nope", user_id="x", session_id="missing")
        kept = await sessions.get_session(app_name="a", user_id="u", session_id=session.id)
        await sessions.delete_session(app_name="a", user_id="u", session_id=session.id)
        gone = await sessions.get_session(app_name="a", user_id="u", session_id=session.id)
        return kept, gone

    kept, gone = asyncio.run(go())
    assert kept is not None and gone is None


def test_store_calls_run_inline_only_for_sqlite_on_the_turn_thread(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.sqlite3")
    try:
        on_thread = make_settings("http://127.0.0.1:9", tmp_path / "s.sqlite3")
        off_thread = make_settings("http://127.0.0.1:9", tmp_path / "s.sqlite3", LOCAL_TURN_THREAD="no")
        assert store_io(on_thread, store) is run_inline
        assert store_io(off_thread, store) is None  # turns on the webhook loop keep the thread hop
        assert store_io(on_thread, object()) is None  # any other store (Firestore) keeps it too
        guarded = guard_store(store, on_thread)
        io = store_io(on_thread, guarded)  # the adapter decides; behind the guard, one unit per step
        assert isinstance(io, functools.partial) and io.func is run_as_unit and io.args == (guarded,)
        assert store_io(off_thread, guarded) is None
        assert asyncio.run(run_inline(lambda a, b=0: a + b, 2, b=3)) == 5
    finally:
        store.close()
