"""ContextPipeline without ADK: begin → prepare → tools → finish, and the per-turn snapshot fields."""

from __future__ import annotations

import asyncio

import pytest

from local_agent.agent.instructions import SYSTEM_INSTRUCTION
from local_agent.agent.pipeline import ContextPipeline, redact_current
from local_agent.agent.tools import TOOL_DECLARATIONS
from local_agent.context.journal import TTL_SECONDS, ContextJournal, ScopeKey
from local_agent.context.projection import NON_PUBLIC_LABEL
from local_agent.context.session_budget import ByteMeasure, SessionBudget, build_envelope, render_contents
from local_agent.context.window import ContextSummary, ContextWindow
from local_agent.fingerprint import text_fingerprint
from local_agent.stores.sqlite import SqliteStore

SCOPE = ScopeKey.for_user("U1")
ENVELOPE = build_envelope(SYSTEM_INSTRUCTION, TOOL_DECLARATIONS)


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "p.db")
    yield s
    s.close()


@pytest.fixture
def pipeline(store, clock):
    return ContextPipeline(
        journal=ContextJournal(store, clock=clock),
        preferences=store,
        audit=store,
        snapshots=store,
        budget=SessionBudget(limit=16384),
        clock=clock,
    )


def run(pipeline, text, *, tool=None, area="花壇鄉", scope=SCOPE):
    """One turn the way the router drives it; ``tool`` None means the model answered with text."""
    state = pipeline.begin(scope, text)
    asyncio.run(pipeline.prepare(state, ENVELOPE, ByteMeasure()))
    if tool == "places":
        pipeline.tools(state).search_local_places(area=area)
    elif tool == "events":
        pipeline.tools(state).search_local_events(area=area)
    turn = pipeline.finish(state)
    return state, turn


def bytes_with(window: ContextWindow, current: str) -> int:
    return ByteMeasure().sync({**ENVELOPE, "contents": render_contents(window, current)})


def test_first_turn_snapshot_fields(pipeline, store, clock):
    text = "花壇有什麼店推薦吃吃看？"
    state, turn = run(pipeline, text, tool="places")
    (snap,) = store.snapshots(SCOPE.storage_id)
    data = snap.data
    assert (snap.scope_id, snap.turn_id, snap.at) == (SCOPE.storage_id, state.turn_id, clock())
    assert data["count"] == bytes_with(ContextWindow(), text) == state.budget.count
    assert data["unit"] == "bytes"
    assert data["counts"] == [data["count"]]
    assert (data["dropped_turns"], data["summary_dropped"]) == (0, False)
    assert data["projection"] == "花壇鄉：找店家" == turn.label
    assert data["journal_status"] == "empty"
    assert data["journal_written"] is True
    assert data["window_read"] == []
    assert (data["tool"], data["preference_origin"], data["preference_revision"]) == (
        "search_local_places",
        "none",
        0,
    )
    assert data["error_code"] is None
    assert data["contents"] == [{"role": "user", "current_text": text_fingerprint(text)}]


def test_later_turn_snapshot_reads_a_fresh_window_and_records_what_it_read(pipeline, store):
    run(pipeline, "花壇有什麼好吃的", tool="places")
    run(pipeline, "花壇有什麼活動", tool="events")
    run(pipeline, "那邊停車要不要錢？")
    data = store.snapshots(SCOPE.storage_id)[-1].data
    assert data["journal_status"] == "fresh"
    assert data["window_read"] == ["花壇鄉：找店家", "花壇鄉：查活動"]
    assert data["projection"] == NON_PUBLIC_LABEL
    assert data["tool"] is None and data["preference_origin"] is None
    assert len(data["contents"]) == 5
    assert store.journal_rows()[SCOPE.storage_id]["window"]["summary"] == {"goal": "places", "area": "花壇鄉"}


def test_dropped_turns_and_summary_dropped_are_recorded_when_the_budget_is_tight(pipeline, store):
    for text, tool in (
        ("花壇有什麼好吃的", "places"),
        ("鹿港有什麼活動", "events"),
        ("員林有什麼好吃的", "places"),
    ):
        run(pipeline, text, tool=tool, area=text[:2])
    current = "剛才那個鄉鎮呢？"
    # The window is now [鹿港鎮 events, 員林市 places] + summary(places, 花壇鄉).
    one_turn = ContextWindow(
        pipeline.journal.read(SCOPE, 0).window.turns[1:], ContextSummary("events", "鹿港鎮")
    )
    pipeline.budget = SessionBudget(limit=bytes_with(one_turn, current))
    run(pipeline, current)
    data = store.snapshots(SCOPE.storage_id)[-1].data
    assert (data["dropped_turns"], data["summary_dropped"]) == (1, False)
    assert data["counts"][0] > data["count"] == data["counts"][-1] <= pipeline.budget.limit
    assert len(data["counts"]) == 2

    pipeline.budget = SessionBudget(limit=bytes_with(ContextWindow(), current))
    run(pipeline, current)
    data = store.snapshots(SCOPE.storage_id)[-1].data
    assert (data["dropped_turns"], data["summary_dropped"]) == (2, True)
    assert data["contents"] == [{"role": "user", "current_text": text_fingerprint(current)}]


def test_journal_status_after_a_forget_is_revision_mismatch(pipeline, store, clock):
    run(pipeline, "花壇有什麼好吃的", tool="places")
    store.set_consent("U1", consent="forgotten", dietary_type=None, now=clock())
    state, _ = run(pipeline, "剛才那個鄉鎮呢？")
    data = store.snapshots(SCOPE.storage_id)[-1].data
    assert data["journal_status"] == "revision_mismatch"
    assert data["window_read"] == [] and data["preference_revision"] == 1
    assert state.revision == 1


def test_journal_status_after_the_ttl_is_expired(pipeline, store, clock):
    run(pipeline, "花壇有什麼好吃的", tool="places")
    clock.advance(TTL_SECONDS + 1)
    run(pipeline, "剛才那個鄉鎮呢？")
    assert store.snapshots(SCOPE.storage_id)[-1].data["journal_status"] == "expired"


def test_a_tool_error_projects_as_non_public(pipeline, store):
    state = pipeline.begin(SCOPE, "火星有什麼好吃的")
    asyncio.run(pipeline.prepare(state, ENVELOPE, ByteMeasure()))
    assert pipeline.tools(state).search_local_places(area="火星")["code"] == "UNKNOWN_TOWNSHIP"
    assert pipeline.finish(state).label == NON_PUBLIC_LABEL


def test_a_search_outside_the_county_waits_for_a_township_of_changhua(pipeline, store):
    state = pipeline.begin(SCOPE, "台中有什麼好吃的")
    asyncio.run(pipeline.prepare(state, ENVELOPE, ByteMeasure()))
    assert pipeline.tools(state).search_local_places(area="台中市")["code"] == "OUTSIDE_COUNTY"
    turn = pipeline.finish(state)
    assert (turn.goal, turn.area, turn.is_public) == (
        "places",
        "",
        True,
    )  # pending: 「那鹿港呢」 completes it
    assert "台中" not in turn.label


def test_finish_refuses_to_append_when_the_revision_moved_during_the_turn(pipeline, store, clock):
    run(pipeline, "花壇有什麼好吃的", tool="places")
    before = store.journal_rows()[SCOPE.storage_id]
    state = pipeline.begin(SCOPE, "鹿港有什麼活動")
    asyncio.run(pipeline.prepare(state, ENVELOPE, ByteMeasure()))
    pipeline.tools(state).search_local_events(area="鹿港鎮")
    store.set_consent("U1", consent="forgotten", dietary_type=None, now=clock())
    pipeline.finish(state)  # must not raise
    assert store.journal_rows()[SCOPE.storage_id] == before
    assert store.snapshots(SCOPE.storage_id)[-1].data["journal_written"] is False


def test_a_snapshot_without_a_budget_still_fingerprints_the_current_text(pipeline, store):
    state = pipeline.begin(SCOPE, "我的電話0912345678")
    snap = pipeline.snapshot_of(state, pipeline.projection(state), journal_written=False)
    assert "contents" not in snap.data
    assert snap.data["current_text"] == text_fingerprint("我的電話0912345678")


def test_redact_current_replaces_only_the_last_content():
    contents = render_contents(ContextWindow((), ContextSummary("places", "花壇鄉")), "秘密")
    out = redact_current(contents)
    assert [c.get("text") for c in out[:-1]] == [c["parts"][0]["text"] for c in contents[:-1]]
    assert out[-1] == {"role": "user", "current_text": text_fingerprint("秘密")}
    assert redact_current([]) == []
