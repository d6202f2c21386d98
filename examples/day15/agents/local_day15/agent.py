"""``root_agent``: the production agent, for ADK's own tools.

    adk run examples/day15/agents/local_day15 "花壇有什麼素食"
    adk web examples/day15/agents
    LOCAL_DAY15_NOW=2026-11-30T12:00:00+08:00 adk eval examples/day15/agents/local_day15 \\
        examples/day15/agents/local_day15/day15.evalset.json

It is built as the service builds it (``wiring.build_service``): the same rules, tool declarations,
budget gate and tools, the offline stand-in model unless ``LOCAL_MODEL`` names Gemini (with its key or
Vertex settings, as for the service), and the Day 15 context — journal, preferences, audit rows,
snapshots — in a SQLite file of its own, ``var/adk-local-day15.sqlite3`` under the repository (never the
service's ``LOCAL_SQLITE_PATH``). What differs from the LINE path is in ``docs/design.md``: one ADK user
id is one 1:1 chat, and ADK's chat window shows no consent buttons.

``LOCAL_DAY15_NOW`` (ISO-8601 with its offset) fixes the service clock at that instant and gives the
process a fresh temporary SQLite file instead, so a run reproduces (the evalset is recorded that way).
"""

from __future__ import annotations

import atexit
import os
import secrets
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from google.adk.agents import LlmAgent

from local_agent.context.journal import ScopeKey
from local_agent.settings import load_settings
from local_agent.wiring import build_service

ROOT = Path(__file__).resolve().parents[4]
DATABASE = ROOT / "var" / "adk-local-day15.sqlite3"
DESTINATION = "adk-local-day15"  # the scope's destination: ADK's chats never share LINE's journal
NOW_VARIABLE = "LOCAL_DAY15_NOW"


def fixed_clock(value: str) -> Callable[[], float]:
    """The clock stopped at ``value`` (ISO-8601 with a UTC offset); ValueError naming the variable."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{NOW_VARIABLE}={value!r} is not ISO-8601 (e.g. 2026-11-30T12:00:00+08:00)"
        ) from None
    if moment.utcoffset() is None:
        raise ValueError(f"{NOW_VARIABLE}={value!r} has no UTC offset (add e.g. +08:00)")
    epoch = moment.timestamp()
    return lambda: epoch


def scope_of(user_id: str) -> ScopeKey:
    """One ADK user id is one 1:1 chat."""
    return ScopeKey(DESTINATION, "user", user_id, user_id)


def _database(fixed: bool) -> Path:
    if not fixed:
        DATABASE.parent.mkdir(parents=True, exist_ok=True)
        return DATABASE
    folder = tempfile.TemporaryDirectory(prefix="adk-local-day15-")
    atexit.register(folder.cleanup)
    return Path(folder.name) / "context.sqlite3"


def build_root_agent() -> LlmAgent:
    now = os.environ.get(NOW_VARIABLE, "").strip()
    clock = fixed_clock(now) if now else time.time
    settings = load_settings(
        # No LINE channel here: a key of this process's own for the fingerprints of audit rows.
        LINE_CHANNEL_SECRET=secrets.token_hex(16),
        LINE_CHANNEL_ACCESS_TOKEN="adk-tools-no-line-channel",
        LOCAL_STORE="sqlite",
        LOCAL_SQLITE_PATH=str(_database(bool(now))),
    )
    wiring = build_service(settings, clock=clock)
    return wiring.router.standalone_agent(
        name="local_day15", scope_of=scope_of, command=wiring.service.command
    )


root_agent = build_root_agent()
