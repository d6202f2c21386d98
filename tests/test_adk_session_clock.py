"""The ADK agent package's clock: an ADK session's state ``local_day15_now`` (what the evalset's cases
carry) sets the instant of its invocations, ``LOCAL_DAY15_NOW`` overrides it for the process, and a value
that is not ISO-8601 with an offset is refused with a message naming where it came from."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from examples.day15 import evalset as E
from examples.day15.agents.local_day15.agent import NOW_STATE, build_root_agent, instant

CHRISTMAS_EVE = "2026-12-24T12:00:00+08:00"  # a Thursday: 「這週」 is the rest of it, 12-24 .. 12-27
WEEKLY = "花壇這週有什麼活動？"


def _week_asked(tmp_path: Path, state: tuple[tuple[str, str], ...]) -> dict:
    agent = build_root_agent(database=tmp_path / "context.sqlite3")
    (invocation,) = asyncio.run(E.run_case(agent, E.Case("clock", "eval-clock", (WEEKLY,), state)))
    assert invocation.intermediate_data is not None
    from google.adk.evaluation.eval_case import get_all_tool_calls

    (call,) = get_all_tool_calls(invocation.intermediate_data)
    return dict(call.args or {})


def test_a_session_s_state_sets_the_clock_of_its_invocations(tmp_path, monkeypatch):
    monkeypatch.delenv("LOCAL_DAY15_NOW", raising=False)
    args = _week_asked(tmp_path, ((NOW_STATE, CHRISTMAS_EVE),))
    assert (args["date_from"], args["date_to"]) == ("2026-12-24", "2026-12-27")
    assert _week_asked(tmp_path, ((NOW_STATE, E.NOW),))["date_from"] == "2026-11-30"


def test_the_variable_overrides_the_session_s_clock(tmp_path, monkeypatch):
    monkeypatch.setenv("LOCAL_DAY15_NOW", E.NOW)
    args = _week_asked(tmp_path, ((NOW_STATE, CHRISTMAS_EVE),))
    assert args["date_from"] == "2026-11-30"


def test_a_session_clock_that_is_not_an_instant_stops_the_invocation_with_its_name(tmp_path, monkeypatch):
    monkeypatch.delenv("LOCAL_DAY15_NOW", raising=False)
    with pytest.raises(ValueError, match="state local_day15_now='next week' is not ISO-8601"):
        _week_asked(tmp_path, ((NOW_STATE, "next week"),))


def test_an_instant_needs_iso_8601_and_an_offset():
    assert instant("2026-11-30T12:00:00+08:00") == 1796011200.0
    with pytest.raises(ValueError, match="LOCAL_DAY15_NOW='2026-11-30T12:00:00' has no UTC offset"):
        instant("2026-11-30T12:00:00")
    with pytest.raises(ValueError, match="LOCAL_DAY15_NOW='tomorrow' is not ISO-8601"):
        instant("tomorrow")
