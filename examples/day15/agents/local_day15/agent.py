"""``root_agent``: the production agent, for ADK's own tools.

    adk run examples/day15/agents/local_day15 "花壇有什麼素食"
    adk web examples/day15/agents
    adk eval examples/day15/agents/local_day15 examples/day15/agents/local_day15/day15.evalset.json

It is built as the service builds it (``wiring.build_service``): the same rules, tool declarations,
budget gate and tools, the offline stand-in model unless ``LOCAL_MODEL`` names Gemini (with its key or
Vertex settings, as for the service), and the Day 15 context — journal, preferences, audit rows,
snapshots — in a SQLite file of its own, ``var/adk-local-day15.sqlite3`` under the repository (never the
service's ``LOCAL_SQLITE_PATH``). What differs from the LINE path is in ``docs/design.md``: one ADK user
id is one person (their consented preference), each ADK session is a chat of its own (its own journal
scope: an eval case or ADK web's "New Session" starts empty), and ADK's chat window shows no consent
buttons.

The clock: an ADK session whose state holds ``local_day15_now`` (ISO-8601 with its offset; the evalset's
cases carry it) runs its invocations at that instant; ``LOCAL_DAY15_NOW`` overrides it for the whole
process and gives the process a fresh temporary SQLite file instead; otherwise the real time.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.genai import types

from local_agent.context.journal import ScopeKey
from local_agent.listings.problems import ListingsError, exit_on_listings_error
from local_agent.settings import SettingsError, exit_on_settings_error, load_settings
from local_agent.wiring import build_service

ROOT = Path(__file__).resolve().parents[4]
DATABASE = ROOT / "var" / "adk-local-day15.sqlite3"
DESTINATION = "adk-local-day15"  # the scope's destination: ADK's chats never share LINE's journal
NOW_VARIABLE = "LOCAL_DAY15_NOW"
NOW_STATE = "local_day15_now"  # an ADK session's own clock (session state; the evalset sets it)

# The instant of the invocation running in this context (None: the real time). Set at the start of
# each invocation from its session's state; a step on a worker thread (asyncio.to_thread) sees it too.
_session_now: ContextVar[float | None] = ContextVar("local_day15_session_now", default=None)


def instant(value: str, name: str = NOW_VARIABLE) -> float:
    """``value`` (ISO-8601 with a UTC offset) as epoch seconds; ValueError naming where it came from."""
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not ISO-8601 (e.g. 2026-11-30T12:00:00+08:00)") from None
    if moment.utcoffset() is None:
        raise ValueError(f"{name}={value!r} has no UTC offset (add e.g. +08:00)")
    return moment.timestamp()


def fixed_clock(value: str) -> Callable[[], float]:
    """The clock stopped at ``value`` (ISO-8601 with a UTC offset); ValueError naming the variable."""
    epoch = instant(value)
    return lambda: epoch


def session_clock() -> float:
    """The running invocation's session clock (``local_day15_now``), else the real time."""
    pinned = _session_now.get()
    return time.time() if pinned is None else pinned


async def read_session_clock(callback_context: CallbackContext) -> types.Content | None:
    """Before each invocation: pin this context's clock to the session's ``local_day15_now`` (or
    unpin it). A value that is not ISO-8601 with an offset stops the invocation with ValueError."""
    value = callback_context.state.get(NOW_STATE)
    _session_now.set(None if value in (None, "") else instant(str(value), f"state {NOW_STATE}"))
    return None


def scope_of(user_id: str, session_id: str) -> ScopeKey:
    """One ADK user id is one person; each of their ADK sessions is a 1:1 chat of its own (its own
    journal), while a consented preference stays the person's."""
    return ScopeKey(f"{DESTINATION}/{session_id}", "user", user_id, user_id)


def _database(fixed: bool) -> Path:
    if not fixed:
        DATABASE.parent.mkdir(parents=True, exist_ok=True)
        return DATABASE
    folder = tempfile.TemporaryDirectory(prefix="adk-local-day15-")
    atexit.register(folder.cleanup)
    return Path(folder.name) / "context.sqlite3"


def build_root_agent(*, database: Path | None = None) -> LlmAgent:
    """The agent; ``database`` (default: ``var/`` or, under ``LOCAL_DAY15_NOW``, a temporary file)
    is where its context lives."""
    now = os.environ.get(NOW_VARIABLE, "").strip()
    clock = fixed_clock(now) if now else session_clock
    settings = load_settings(
        # No LINE channel here: a key of this process's own for the fingerprints of audit rows.
        LINE_CHANNEL_SECRET=secrets.token_hex(16),
        LINE_CHANNEL_ACCESS_TOKEN="adk-tools-no-line-channel",
        LOCAL_STORE="sqlite",
        LOCAL_SQLITE_PATH=str(database or _database(bool(now))),
        # each turn step on a worker thread of its own (asyncio.to_thread), which carries the
        # invocation's session clock; the guard's pool threads would not
        LOCAL_TURN_THREAD="no",
    )
    wiring = build_service(settings, clock=clock)
    agent = wiring.router.standalone_agent(
        name="local_day15", scope_of=scope_of, command=wiring.service.command
    )
    # the session's clock is read first, before the turn begins (ADK runs a list of callbacks in order)
    agent.before_agent_callback = [read_session_clock, *_callbacks(agent.before_agent_callback)]
    return agent


def _callbacks(value: Any) -> list[Any]:
    return [] if value is None else list(value) if isinstance(value, list) else [value]


def _root_agent() -> LlmAgent:
    """The agent, or — for a listings folder the service would refuse, or settings that do not
    validate — the same one-line-per-problem report on stderr and exit 2 as the service gives,
    instead of a traceback from inside ADK's loader. ``adk web`` loads the agent inside a request
    (where SystemExit only fails that request), so there the process ends at once after the report."""
    try:
        return build_root_agent()
    except (SettingsError, ListingsError) as exc:
        _exit_with_report(exc)


def _exit_with_report(exc: SettingsError | ListingsError) -> NoReturn:
    try:
        if isinstance(exc, SettingsError):
            exit_on_settings_error(exc, "adk")
        exit_on_listings_error(exc, "adk")
    except SystemExit:
        if threading.current_thread() is threading.main_thread() and not _in_event_loop():
            raise  # adk run, adk eval: the CLI ends with status 2
        sys.stdout.flush()
        os._exit(2)  # adk web: a request is loading the agent; end the server, not only the request


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


root_agent = _root_agent()
