"""ExchangeWindow (the core's window for an agent that is not LOCAL) under SessionBudget.prepare."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from local_agent.context.errors import BudgetExceeded
from local_agent.context.exchanges import EXCHANGE_MARKER, SUMMARY_MARKER, ExchangeWindow
from local_agent.context.session_budget import ByteMeasure, SessionBudget

ENVELOPE = {"system_instruction": "rules", "tools": [{"name": "get_weather", "description": "d"}]}
CURRENT = [{"role": "user", "parts": [{"text": "what now?"}]}]


def _texts(contents):
    return [p["text"] for c in contents for p in c["parts"] if "text" in p]


def test_append_keeps_the_newest_and_folds_the_oldest_into_the_summary():
    window = ExchangeWindow().append("a", 2).append("b", 2).append("c", 2)
    assert window.turns == ("b", "c") and window.summary == "a"
    joined = ExchangeWindow(summarize=lambda summary, evicted: (summary + "|" + evicted).strip("|"))
    assert joined.extend(["a", "b", "c", "d"], 1) == ExchangeWindow(("d",), "a|b|c")
    with pytest.raises(ValueError):
        window.append("d", -1)


def test_trimmed_drops_the_oldest_exchange_then_the_summary_then_nothing():
    steps, window = [], ExchangeWindow(("b", "c"), "a")
    while window is not None:
        steps.append((window.turns, window.summary))
        window = window.trimmed()
    assert steps == [(("b", "c"), "a"), (("c",), "b"), ((), "c"), ((), "")]


def test_render_puts_the_summary_pair_the_exchange_pairs_then_the_current_contents_as_given():
    contents = ExchangeWindow(("b",), "a").render(CURRENT)
    assert [c["role"] for c in contents] == ["user", "model", "user", "model", "user"]
    assert _texts(contents)[0] == SUMMARY_MARKER + "a" and _texts(contents)[2] == EXCHANGE_MARKER + "b"
    assert contents[-1] == CURRENT[0] and contents[-1] is not CURRENT[0]


def test_from_dict_round_trips_and_refuses_what_is_not_text():
    window = ExchangeWindow(("b", "c"), "a")
    assert ExchangeWindow.from_dict(window.to_dict()) == window
    for bad in ({"turns": "b"}, {"turns": [1]}, {"summary": 3}):
        with pytest.raises(ValueError):
            ExchangeWindow.from_dict(bad)


@given(
    projections=st.lists(st.text(min_size=1, max_size=40), max_size=8),
    max_turns=st.integers(0, 3),
    limit=st.integers(0, 1500),
)
def test_the_budget_holds_and_keeps_the_newest_exchanges(projections, max_turns, limit):
    window = ExchangeWindow().extend(projections, max_turns)
    budget = SessionBudget(limit=limit, max_turns=max_turns)
    try:
        result = asyncio.run(budget.prepare(window, CURRENT, ENVELOPE, ByteMeasure()))
    except BudgetExceeded:
        floor = {**ENVELOPE, "contents": ExchangeWindow().render(CURRENT)}
        assert ByteMeasure().sync(floor) > limit  # refused only when nothing else could be dropped
        return
    assert result.count == ByteMeasure().sync(result.request) <= limit
    kept = result.kept.turns
    assert kept == window.turns[len(window.turns) - len(kept) :]  # a suffix: the newest stay
    assert len(kept) <= max_turns
    assert result.contents[-1] == CURRENT[0]
    if result.summary_dropped:
        assert kept == ()  # the summary goes only once every exchange has gone
