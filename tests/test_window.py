"""ContextWindow (two whole exchanges), ContextSummary (goal + area) and trim_oldest."""

from __future__ import annotations

import json

import pytest

from local_agent.context.projection import SafeTurn
from local_agent.context.window import ContextSummary, ContextWindow, trim_oldest

PLACES_HUATAN = SafeTurn("places", "花壇鄉")
EVENTS_HUATAN = SafeTurn("events", "花壇鄉")
PLACES_LUKANG = SafeTurn("places", "鹿港鎮")
EVENTS_YUANLIN = SafeTurn("events", "員林市")
NON_PUBLIC = SafeTurn()


def build(*turns: SafeTurn) -> ContextWindow:
    window = ContextWindow()
    for turn in turns:
        window = window.append(turn)
    return window


def test_empty_window_has_no_turns_and_an_empty_summary():
    window = ContextWindow()
    assert window.turns == ()
    assert window.summary.is_empty
    assert window.labels() == []


def test_append_keeps_up_to_two_whole_exchanges_without_summarizing():
    window = build(PLACES_HUATAN, EVENTS_HUATAN)
    assert window.turns == (PLACES_HUATAN, EVENTS_HUATAN)
    assert window.summary.is_empty


def test_third_append_absorbs_the_oldest_exchange_into_the_summary():
    window = build(PLACES_HUATAN, EVENTS_YUANLIN, NON_PUBLIC)
    assert window.turns == (EVENTS_YUANLIN, NON_PUBLIC)
    assert window.summary == ContextSummary("places", "花壇鄉")


def test_window_never_exceeds_two_turns_however_long_the_conversation():
    window = ContextWindow()
    sequence = [
        PLACES_HUATAN,
        NON_PUBLIC,
        EVENTS_YUANLIN,
        PLACES_LUKANG,
        NON_PUBLIC,
        NON_PUBLIC,
        EVENTS_HUATAN,
    ]
    for i, turn in enumerate(sequence):
        window = window.append(turn)
        assert len(window.turns) == min(i + 1, 2)
        assert window.turns == tuple(sequence[max(0, i - 1) : i + 1])


def test_append_is_pure_and_leaves_the_original_window_untouched():
    window = build(PLACES_HUATAN, EVENTS_HUATAN)
    window.append(NON_PUBLIC)
    assert window.turns == (PLACES_HUATAN, EVENTS_HUATAN)
    assert window.summary.is_empty


def test_append_with_custom_cap_and_negative_cap_rejected():
    window = ContextWindow().append(PLACES_HUATAN, 1).append(EVENTS_YUANLIN, 1)
    assert window.turns == (EVENTS_YUANLIN,)
    assert window.summary == ContextSummary("places", "花壇鄉")
    zero = ContextWindow().append(EVENTS_YUANLIN, 0)
    assert zero.turns == ()
    assert zero.summary == ContextSummary("events", "員林市")
    with pytest.raises(ValueError):
        ContextWindow().append(PLACES_HUATAN, -1)


def test_summary_latest_public_goal_wins():
    summary = ContextSummary().absorb(PLACES_HUATAN).absorb(EVENTS_YUANLIN)
    assert summary == ContextSummary("events", "員林市")
    assert summary.absorb(PLACES_LUKANG) == ContextSummary("places", "鹿港鎮")


def test_summary_non_public_turn_keeps_previous_goal_and_area():
    summary = ContextSummary("events", "花壇鄉")
    assert summary.absorb(NON_PUBLIC) == summary
    assert summary.absorb(NON_PUBLIC).absorb(NON_PUBLIC) == ContextSummary("events", "花壇鄉")


def test_summary_of_only_non_public_turns_stays_empty():
    window = build(NON_PUBLIC, NON_PUBLIC, NON_PUBLIC, NON_PUBLIC)
    assert window.summary.is_empty
    assert window.turns == (NON_PUBLIC, NON_PUBLIC)


def test_seed_conversation_leaves_events_in_huatan_as_the_summary():
    # Seed §4: 1 places 花壇 → 2 events 花壇 → 3 parking → 4 bus → (turn 5 reads this window)
    window = build(
        SafeTurn.from_tool("search_local_places", "花壇"),
        SafeTurn.from_tool("search_local_events", "花壇"),
        SafeTurn.from_tool("search_parking", "花壇"),
        SafeTurn.from_tool(None, None),
    )
    assert window.summary.to_dict() == {"goal": "events", "area": "花壇鄉"}
    assert window.summary.to_json() == '{"area": "花壇鄉", "goal": "events"}'
    assert window.turns == (NON_PUBLIC, NON_PUBLIC)
    assert window.labels() == ["未指定區域：詢問可用功能", "未指定區域：詢問可用功能"]


def test_summary_to_json_is_sorted_and_keeps_chinese_unescaped():
    text = ContextSummary("places", "彰化市").to_json()
    assert text == '{"area": "彰化市", "goal": "places"}'
    assert json.loads(text) == {"area": "彰化市", "goal": "places"}


@pytest.mark.parametrize("goal,area", [("parking", "花壇鄉"), ("places", "花壇"), ("", "花壇鄉我的電話0912")])
def test_summary_rejects_non_whitelisted_goal_or_non_canonical_area(goal, area):
    with pytest.raises(ValueError):
        ContextSummary(goal, area)


def test_window_to_dict_from_dict_round_trip():
    window = build(PLACES_HUATAN, EVENTS_YUANLIN, NON_PUBLIC)
    data = window.to_dict()
    assert data == {
        "turns": [{"goal": "events", "area": "員林市"}, {"goal": "", "area": ""}],
        "summary": {"goal": "places", "area": "花壇鄉"},
    }
    assert ContextWindow.from_dict(json.loads(json.dumps(data))) == window
    assert ContextWindow.from_dict(None) == ContextWindow()


def test_trim_oldest_drops_turn_then_turn_then_summary_then_nothing():
    window = build(PLACES_HUATAN, EVENTS_YUANLIN, PLACES_LUKANG)
    assert window.turns == (EVENTS_YUANLIN, PLACES_LUKANG)
    assert window.summary == ContextSummary("places", "花壇鄉")

    first = trim_oldest(window)
    assert first is not None
    assert first.turns == (PLACES_LUKANG,)
    # The dropped exchange's clue survives in the summary line.
    assert first.summary == ContextSummary("events", "員林市")

    second = trim_oldest(first)
    assert second is not None
    assert second.turns == ()
    assert second.summary == ContextSummary("places", "鹿港鎮")

    third = trim_oldest(second)
    assert third is not None
    assert third.turns == ()
    assert third.summary.is_empty

    assert trim_oldest(third) is None


def test_trim_oldest_of_non_public_turns_keeps_previous_summary():
    window = build(EVENTS_HUATAN, NON_PUBLIC, NON_PUBLIC)
    trimmed = trim_oldest(window)
    assert trimmed is not None
    assert trimmed.turns == (NON_PUBLIC,)
    assert trimmed.summary == ContextSummary("events", "花壇鄉")


def test_trim_oldest_of_empty_window_is_none():
    assert trim_oldest(ContextWindow()) is None


def test_summary_records_a_pending_question_only_when_no_area_is_known():
    pending = SafeTurn("places", "")
    assert ContextSummary().absorb(pending) == ContextSummary("places", "")
    assert ContextSummary("events", "花壇鄉").absorb(pending) == ContextSummary("events", "花壇鄉")
    assert ContextSummary("places", "").absorb(SafeTurn("events", "鹿港鎮")) == ContextSummary(
        "events", "鹿港鎮"
    )
