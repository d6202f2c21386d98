"""``BoundedContextPlugin``: LOCAL's bounded context layer for any ADK agent.

On every model request, whatever the session service holds, the plugin replaces the contents
ADK assembled with: the summary of older exchanges, at most ``max_exchanges`` earlier exchanges
as their app-written projections, and the current turn as it is (the user's message, then this
turn's function calls and responses, whole). It measures the whole request (system instruction +
tool declarations + contents, canonical UTF-8 JSON) with ``SessionBudget.prepare`` from the
stdlib core: over the budget, whole exchanges go oldest first, then the summary; when the current
turn, the rules and the tools alone do not fit, the model is not called and the request is
answered with an ``LlmResponse`` whose ``error_code`` is ``CURRENT_AND_RULES_EXCEED_INPUT_BUDGET``.

After the run (``after_run_callback``) the invocation's events are read as one
``FinishedExchange`` and projected by ``project`` (default: tool names and arguments); only that
text is kept, in ``store`` (memory or SQLite), under the revision ``revision(user_id)`` gave when
the turn began. A window written at another revision is never read.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from local_agent.context.errors import BudgetExceeded, LocalError, StoreError
from local_agent.context.exchanges import ExchangeWindow, Summarize, latest_projection
from local_agent.context.session_budget import BudgetResult, ByteMeasure, Measure, SessionBudget, W
from local_agent.plugin.exchange import (
    FinishedExchange,
    Project,
    checked_projection,
    default_projection,
    exchange_from_events,
)
from local_agent.plugin.store import StoredWindow, WindowStore, open_store, window_key

log = logging.getLogger("local_agent.plugin")

PLUGIN_NAME = "bounded_context"
DEFAULT_BUDGET_BYTES = 16384
DEFAULT_MAX_EXCHANGES = 2
DEFAULT_MAX_PROJECTION_CHARS = 400
STALE_REVISION = "STALE_CONTEXT_SNAPSHOT"  # the revision moved during the turn: nothing written
STORE_ROW_INVALID = "STORE_ROW_INVALID"  # a stored row that is not a window: read as no window
# Codes logged when ``summarize`` fails; the summary is then empty (the exchanges are kept).
SUMMARY_FAILED = "SUMMARY_FAILED"
REVISION_FAILED = "REVISION_FAILED"  # ``revision`` raised or gave no int: no window read or written
SUMMARY_NOT_TEXT = "SUMMARY_NOT_TEXT"
SUMMARY_TOO_LONG = "SUMMARY_TOO_LONG"
Revision = Callable[[str], int]


class PluginConfigError(LocalError, ValueError):
    """A constructor argument that cannot work; raised before the plugin exists."""

    code = "INVALID_PLUGIN_CONFIG"


def _no_revision(user_id: str) -> int:
    return 0


def guarded_summary(summarize: Summarize, max_chars: int) -> Summarize:
    """``summarize`` that never raises into ADK: a failure, a non-text or a text longer than
    ``max_chars`` gives an empty summary, its code logged (never the text)."""

    def run(summary: str, evicted: str) -> str:
        try:
            out: object = summarize(summary, evicted)
        except Exception:  # a user's callable: it may raise anything
            return _no_summary(SUMMARY_FAILED)
        if not isinstance(out, str):
            return _no_summary(SUMMARY_NOT_TEXT)
        return out if len(out) <= max_chars else _no_summary(SUMMARY_TOO_LONG)

    return run


def _no_summary(code: str) -> str:
    log.warning("summary dropped", extra={"code": code})
    return ""


def _positive_int(name: str, value: object, *, minimum: int) -> int:
    if type(value) is not int or value < minimum:
        raise PluginConfigError(f"{name} must be an int >= {minimum}")
    return value


def declaration_dict(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    """A function declaration as the canonical dict the budget measures (``parameters`` is the JSON
    Schema, whichever field ADK filled)."""
    dumped = declaration.model_dump(mode="json", exclude_none=True)
    if "parameters_json_schema" in dumped:
        dumped["parameters"] = dumped.pop("parameters_json_schema")
    return dumped


def _instruction_text(instruction: object) -> str:
    """The system instruction as one text, whichever form ADK holds it in (a text, a ``Content``,
    a ``Part``, or a list of texts and parts)."""
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        return "".join(p.text or "" for p in instruction.parts or [])
    if isinstance(instruction, types.Part):
        return instruction.text or ""
    if isinstance(instruction, list):
        return "".join(_instruction_text(item) for item in instruction)
    return ""


def request_envelope(llm_request: LlmRequest) -> dict[str, Any]:
    """System instruction and function declarations exactly as ADK will send them."""
    config = llm_request.config
    tools = [
        declaration_dict(decl)
        for tool in ((config.tools or []) if config else [])
        for decl in (getattr(tool, "function_declarations", None) or [])
    ]
    return {
        "system_instruction": _instruction_text(config.system_instruction if config else None),
        "tools": tools,
    }


def content_dict(content: types.Content) -> dict[str, Any]:
    """A content as the canonical dict the budget measures (function calls and responses as JSON)."""
    parts = [p.model_dump(mode="json", exclude_none=True) for p in content.parts or []]
    return {"role": content.role or "user", "parts": parts}


def current_start(contents: list[types.Content]) -> int:
    """Where the current turn begins: the last user content that is the person's message (text or
    other data), not a function response. 0 when there is none (all of it is the current turn)."""
    for i in range(len(contents) - 1, -1, -1):
        content = contents[i]
        parts = content.parts or []
        if content.role == "user" and parts and not any(p.function_response for p in parts):
            return i
    return 0


@functools.lru_cache(maxsize=1024)
def app_written_template(role: str, texts: tuple[str, ...]) -> types.Content:
    """A validated template for app-written context (projections, markers, summary lines): a
    bounded set of texts that repeat from turn to turn, never the current message."""
    return types.Content(role=role, parts=[types.Part(text=t) for t in texts])


def app_written_content(content: Mapping[str, Any]) -> types.Content:
    """An app-written content as genai ``Content``: a shallow copy of its cached template (its own
    ``Content`` and ``Part`` objects, about a tenth of the cost of validating new ones)."""
    template = app_written_template(content["role"], tuple(p["text"] for p in content["parts"]))
    return template.model_copy(update={"parts": [p.model_copy() for p in template.parts or []]})


@dataclass
class _Turn:
    key: str
    revision: int | None  # None: the revision could not be read, nothing is read or written
    window: ExchangeWindow
    refused: bool = False


class BoundedContextPlugin(BasePlugin):
    """Bounds every model request of an ADK app; see the module docstring and ``docs/plugin.md``.

    ``project``: one ``FinishedExchange`` → a short app-written text, or ``None`` to drop it.
    ``store``: a SQLite path, ``None`` (in memory) or a ``WindowStore``. ``revision``: ``user_id`` →
    int; a window written at another revision is never read. ``summarize``: (summary, evicted
    projection) → summary (default: the newest evicted projection). ``measure``: the whole-request
    measure (default: canonical UTF-8 bytes; a ``BytesBoundMeasure`` counts tokens only above the
    byte bound, and ``budget_bytes`` is then a limit in its unit).
    """

    def __init__(
        self,
        *,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        max_exchanges: int = DEFAULT_MAX_EXCHANGES,
        project: Project | None = None,
        store: str | Path | WindowStore | None = None,
        revision: Revision | None = None,
        summarize: Summarize | None = None,
        measure: Measure | None = None,
        max_projection_chars: int = DEFAULT_MAX_PROJECTION_CHARS,
        name: str = PLUGIN_NAME,
    ) -> None:
        super().__init__(name=name)
        limit = _positive_int("budget_bytes", budget_bytes, minimum=1)
        self.max_exchanges = _positive_int("max_exchanges", max_exchanges, minimum=0)
        self.max_projection_chars = _positive_int("max_projection_chars", max_projection_chars, minimum=1)
        for label, fn in (("project", project), ("revision", revision), ("summarize", summarize)):
            if fn is not None and not callable(fn):
                raise PluginConfigError(f"{label} must be callable or None")
        self.measure: Measure = measure if measure is not None else ByteMeasure()
        self.budget = SessionBudget(limit=limit, unit=self.measure.unit, max_turns=self.max_exchanges)
        self.project: Project = project or default_projection
        self.revision: Revision = revision or _no_revision
        self.summarize: Summarize = guarded_summary(summarize or latest_projection, self.max_projection_chars)
        self.store: WindowStore = open_store(store)
        self._turns: dict[str, _Turn] = {}

    # -- reading and writing windows ---------------------------------------------------------
    def _read(self, key: str, revision: int) -> ExchangeWindow:
        try:
            stored = self.store.load(key)
        except (StoreError, ValueError) as exc:  # unreadable: this turn goes without earlier exchanges
            log.warning("window not read", extra={"code": getattr(exc, "code", STORE_ROW_INVALID)})
            return ExchangeWindow(summarize=self.summarize)
        if stored is None or stored.revision != revision:
            return ExchangeWindow(summarize=self.summarize)
        return ExchangeWindow(stored.turns, stored.summary, self.summarize)

    def _revision(self, user_id: str) -> int | None:
        """``revision(user_id)``, or None (logged) when it raises or gives no int."""
        try:
            value: object = self.revision(user_id)
        except Exception:  # a user's callable: it may raise anything
            value = None
        if type(value) is not int:
            log.warning("revision unknown", extra={"code": REVISION_FAILED})
            return None
        return value

    def _begin(self, session_app: str, user_id: str, session_id: str, invocation_id: str) -> _Turn:
        key = window_key(session_app, user_id, session_id)
        revision = self._revision(user_id)
        window = (
            self._read(key, revision) if revision is not None else ExchangeWindow(summarize=self.summarize)
        )
        turn = _Turn(key, revision, window)
        self._turns[invocation_id] = turn
        return turn

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> types.Content | None:
        session = invocation_context.session
        self._begin(session.app_name, session.user_id, session.id, invocation_context.invocation_id)
        return None

    # -- the budget gate ---------------------------------------------------------------------
    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        turn = self._turns.get(callback_context.invocation_id)
        if turn is None:  # a runner that skipped before_run (never in ADK's Runner): read now
            session = callback_context.session
            turn = self._begin(session.app_name, session.user_id, session.id, callback_context.invocation_id)
        contents = list(llm_request.contents or [])
        tail = contents[current_start(contents) :]
        try:
            await self.bound_request(
                callback_context, llm_request, turn.window, [content_dict(c) for c in tail], tail
            )
        except BudgetExceeded as exc:
            turn.refused = True
            log.warning("model request refused", extra={"code": exc.code})
            return LlmResponse(error_code=exc.code, error_message=str(exc), turn_complete=True)
        return None

    async def prepare(
        self, callback_context: CallbackContext, window: W, current: Any, envelope: dict[str, Any]
    ) -> BudgetResult[W]:
        """Measure and trim: ``SessionBudget.prepare`` of the stdlib core. A subclass may keep its
        own record of the result (LOCAL's router keeps it on the turn)."""
        return await self.budget.prepare(window, current, envelope, self.measure)

    async def bound_request(
        self,
        callback_context: CallbackContext,
        llm_request: LlmRequest,
        window: W,
        current: Any,
        tail: Sequence[types.Content],
    ) -> BudgetResult[W]:
        """The one bounding step: measure system instruction + tools + ``window`` rendered with
        ``current``, trim it, and put the result in ``llm_request``: the app-written contents first,
        then ``tail`` (the current turn's own contents, as ``current`` renders them) untouched.
        Raises ``BudgetError`` (``BudgetExceeded``: nothing left to drop) without touching the request."""
        result = await self.prepare(callback_context, window, current, request_envelope(llm_request))
        earlier = result.contents[: len(result.contents) - len(tail)]
        llm_request.contents = [app_written_content(c) for c in earlier] + list(tail)
        return result

    # -- after the run: project the exchange, keep only that ---------------------------------
    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        turn = self._turns.pop(invocation_context.invocation_id, None)
        if turn is None or turn.refused:
            return
        session = invocation_context.session
        events = [e for e in session.events if e.invocation_id == invocation_context.invocation_id]
        exchange = exchange_from_events(events, user_id=session.user_id, session_id=session.id)
        self._keep(turn, exchange)

    def _keep(self, turn: _Turn, exchange: FinishedExchange) -> None:
        text, code = checked_projection(self.project, exchange, max_chars=self.max_projection_chars)
        if code is not None:
            log.warning("exchange dropped", extra={"code": code})
        if text is None:
            return
        revision = turn.revision
        if revision is None:  # unknown since the turn began (logged then): nothing to write under
            return
        if self._revision(exchange.user_id) != revision:
            log.warning("window not written", extra={"code": STALE_REVISION})
            return
        window = turn.window.append(text, self.max_exchanges)
        try:
            self.store.save(turn.key, StoredWindow(window.turns, window.summary, revision))
        except StoreError as exc:
            log.warning("window not written", extra={"code": exc.code})

    async def on_run_error_callback(self, *, invocation_context: InvocationContext, error: Exception) -> None:
        self._turns.pop(invocation_context.invocation_id, None)
