"""One finished exchange, read from the session's events, and what may be kept of it.

``FinishedExchange`` is what a ``project`` callable is handed: the user's message, the tool calls
with their arguments, responses and declared enums, and the final text. What it returns is the
only thing later requests see of that exchange; ``checked_projection`` refuses anything that is
not a short text or that repeats the user's message (the exchange is then dropped, its code logged).

The default projection carries no free text: tool names, argument names, non-string values, and a
string only where the tool's declaration gives that argument an ``enum`` (and the value is one of
them). Any other string, wherever it sits in the arguments, becomes ``TEXT_PLACEHOLDER``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.adk.events import Event

from local_agent.context.canonical import canonical_json

log = logging.getLogger("local_agent.plugin")

# Codes logged when an exchange is dropped instead of kept (never with any text).
PROJECTION_FAILED = "PROJECTION_FAILED"  # the project callable raised
PROJECTION_NOT_TEXT = "PROJECTION_NOT_TEXT"  # it returned something that is not a str or None
PROJECTION_TOO_LONG = "PROJECTION_TOO_LONG"  # longer than max_projection_chars
PROJECTION_REPEATS_USER_TEXT = "PROJECTION_REPEATS_USER_TEXT"  # it contains the user's message
# A message this short (after stripping) may appear in a projection by chance ("yes", a city name).
MIN_REPEAT_CHARS = 6
NO_TOOL = "no tool was called"
TEXT_PLACEHOLDER = "<text>"  # a string argument without a declared enum, in the default projection


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    args: Mapping[str, Any]
    response: Mapping[str, Any] | None = None
    enums: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)  # argument → declared enum


@dataclass(frozen=True, slots=True)
class FinishedExchange:
    """One invocation: what the user sent, which tools ran (in order) and the agent's final text."""

    user_text: str
    tool_calls: tuple[ToolCall, ...] = ()
    final_text: str = ""
    user_id: str = ""
    session_id: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


Project = Callable[[FinishedExchange], "str | None"]


def _no_text(value: Any) -> Any:
    if isinstance(value, str):
        return TEXT_PLACEHOLDER
    if isinstance(value, Mapping):
        return {str(k): _no_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_text(v) for v in value]
    return value


def _argument(value: Any, enum: tuple[Any, ...]) -> Any:
    if isinstance(value, str) and value in enum:
        return value
    return _no_text(value)


def default_projection(exchange: FinishedExchange) -> str:
    """The tool names and their arguments, in call order, with no free text: a string is kept only
    where the declaration gives its argument an enum (``get_weather {"city":"Taipei"}``), any other
    is ``<text>`` (``add_todo {"due_days":3,"text":"<text>"}``). Never the user's message, the tool
    responses or the model's text."""
    if not exchange.tool_calls:
        return NO_TOOL
    return "; ".join(
        f"{c.name} {canonical_json({str(k): _argument(v, c.enums.get(str(k), ())) for k, v in c.args.items()})}"
        for c in exchange.tool_calls
    )


def checked_projection(
    project: Project, exchange: FinishedExchange, *, max_chars: int
) -> tuple[str | None, str | None]:
    """(projection, None) to keep, or (None, code) when the exchange is dropped; (None, None) when
    ``project`` itself chose to drop it."""
    try:
        text = project(exchange)
    except Exception:  # a user's callable: whatever it raises drops the exchange, never the turn
        return None, PROJECTION_FAILED
    if text is None:
        return None, None
    if not isinstance(text, str):
        return None, PROJECTION_NOT_TEXT
    if len(text) > max_chars:
        return None, PROJECTION_TOO_LONG
    said = exchange.user_text.strip()
    if len(said) >= MIN_REPEAT_CHARS and said in text:
        return None, PROJECTION_REPEATS_USER_TEXT
    return text, None


def _texts(event: Event) -> list[str]:
    parts = event.content.parts if event.content else None
    return [p.text for p in parts or [] if p.text and not p.thought]


def exchange_from_events(
    events: Iterable[Event],
    *,
    user_id: str = "",
    session_id: str = "",
    enums: Mapping[str, Mapping[str, tuple[Any, ...]]] | None = None,
) -> FinishedExchange:
    """The exchange of one invocation's events: the user's text, each function call matched with its
    response (by id, else by name) and the enums its declaration gave (``enums``: tool → argument →
    values, as the requests declared them), and the agent's last text."""
    user_text, final_text = "", ""
    calls: list[tuple[str, str, Mapping[str, Any]]] = []
    responses: dict[str, Mapping[str, Any]] = {}
    for event in events:
        if event.author == "user" and not event.get_function_responses():
            user_text = user_text or "".join(_texts(event))
            continue
        for call in event.get_function_calls():
            calls.append((call.id or call.name or "", call.name or "", dict(call.args or {})))
        for response in event.get_function_responses():
            responses[response.id or response.name or ""] = dict(response.response or {})
        final_text = "".join(_texts(event)) or final_text
    declared = enums or {}
    tool_calls = tuple(
        ToolCall(name, args, responses.get(key), dict(declared.get(name, {}))) for key, name, args in calls
    )
    return FinishedExchange(user_text, tool_calls, final_text, user_id, session_id)
