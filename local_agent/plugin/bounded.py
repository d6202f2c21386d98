"""``BoundedContextPlugin``: LOCAL's bounded context layer for any ADK agent.

On every model request, whatever the session service holds, the plugin replaces what comes
before the current turn with: the summary of older exchanges and at most ``max_exchanges``
earlier exchanges as their app-written projections. The current turn is found from the
invocation (``request.current_start``) and kept whole: the person's message, then everything of
this turn (function calls and responses, other agents' "For context" contents, transfers,
workflow-agent steps, ``AgentTool`` calls). The whole request (system instruction + tool
declarations + contents, canonical UTF-8 JSON) is measured with ``SessionBudget.prepare`` of the
stdlib core: over the budget, whole exchanges go oldest first, then the summary, then this turn's
tool responses are cut to their share (``cut.py``); only when the message, the rules and the tools
alone do not fit is the model not called (an ``LlmResponse`` with ``error_code =
CURRENT_AND_RULES_EXCEED_INPUT_BUDGET``).

ADK runs plugins' ``before_model_callback`` in registration order, then the agent's own
``before_model_callback``\\ s. So that a later callback cannot push a request past the budget, the
plugin appends its final check (``final_check``) to each agent's own callbacks the first time it
sees the agent (``final_word=False`` leaves agents alone; an app may then call ``final_check``
last in its own callback). A request that grew past the budget is bounded again, with one warning.

After the run (``after_run_callback``) the invocation's events are read as one
``FinishedExchange`` and projected by ``project``; only that text is kept, in the journal's
storage port (``JournalStorage``: memory, a SQLite path, or LOCAL's SQLite and Firestore
adapters), under the revision ``revision(user_id)`` gave when the turn began, with a sliding TTL.
An ``AgentTool`` child run reads and writes no window. ``forget(user_id)`` deletes a person's
windows; ``purge()`` removes expired ones.
"""

from __future__ import annotations

import contextvars
import logging
import time
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from local_agent.context.errors import BudgetExceeded, LocalError, StoreError
from local_agent.context.exchange_journal import ExchangeJournal, ExchangeRead
from local_agent.context.exchanges import ExchangeWindow, Summarize, latest_projection
from local_agent.context.journal import TTL_SECONDS, Clock
from local_agent.context.session_budget import (
    BudgetResult,
    ByteMeasure,
    Measure,
    SessionBudget,
    measure_request,
)
from local_agent.plugin.bounding import bound_request, envelope_with, fit_responses
from local_agent.plugin.config import (
    DEFAULT_BUDGET_BYTES,
    DEFAULT_MAX_EXCHANGES,
    DEFAULT_MAX_PROJECTION_CHARS,
    PLUGIN_NAME,
    PluginConfigError,
    Revision,
    callable_or_none,
    guarded_summary,
    open_storage,
    person_key,
    positive_int,
    session_key,
    warn,
)
from local_agent.plugin.exchange import Project, checked_projection, default_projection, exchange_from_events
from local_agent.plugin.request import (
    content_dict,
    current_start,
    enum_arguments,
    resume_anchor,
    static_prefix,
)
from local_agent.plugin.turn import Turn

log = logging.getLogger("local_agent.plugin")

STALE_REVISION = "STALE_CONTEXT_SNAPSHOT"  # the revision moved during the turn: nothing written
STORE_ROW_INVALID = "STORE_ROW_INVALID"  # a stored row that is not a window: read as no window
REVISION_FAILED = "REVISION_FAILED"  # ``revision`` raised or gave no int: no window read or written
TOOL_RESPONSE_CUT = "TOOL_RESPONSE_CUT"  # this turn's tool responses were cut to fit the budget
REQUEST_GREW_AFTER_PLUGIN = "REQUEST_GREW_AFTER_PLUGIN"  # a later callback pushed it over: bounded again
# The invocation whose AgentTool is running: a run that begins under it is that tool's child run.
_AGENT_TOOL_PARENT: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "bounded_context_agent_tool_parent", default=None
)


def _no_revision(user_id: str) -> int:
    return 0


class BoundedContextPlugin(BasePlugin):
    """Bounds every model request of an ADK app; see the module docstring and ``docs/plugin.md``.

    ``budget_bytes`` (positional or keyword): the limit of the whole request. ``project``: one
    ``FinishedExchange`` → a short app-written text, or ``None`` to keep nothing (default: no free
    text, ``default_projection``). ``store``: ``None`` (in memory), a SQLite path, or any
    ``JournalStorage``. ``revision``: ``user_id`` → int; a window written at another revision is
    never read. ``summarize``: (summary, evicted projection) → summary. ``measure``: the
    whole-request measure (default canonical UTF-8 bytes). ``ttl_seconds``: a window unwritten for
    this long reads as empty (sliding). ``final_word``: install the final budget check on agents.
    """

    def __init__(
        self,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        *,
        max_exchanges: int = DEFAULT_MAX_EXCHANGES,
        project: Project | None = None,
        store: str | Path | Any = None,
        revision: Revision | None = None,
        summarize: Summarize | None = None,
        measure: Measure | None = None,
        max_projection_chars: int = DEFAULT_MAX_PROJECTION_CHARS,
        ttl_seconds: float = TTL_SECONDS,
        clock: Clock = time.time,
        final_word: bool = True,
        name: str = PLUGIN_NAME,
    ) -> None:
        super().__init__(name=name)
        limit = positive_int("budget_bytes", budget_bytes, minimum=1)
        self.max_exchanges = positive_int("max_exchanges", max_exchanges, minimum=0)
        self.max_projection_chars = positive_int("max_projection_chars", max_projection_chars, minimum=1)
        for label, fn in (("project", project), ("revision", revision), ("summarize", summarize)):
            callable_or_none(label, fn)
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, (int, float)) or ttl_seconds <= 0:
            raise PluginConfigError(f"ttl_seconds must be a number > 0, got {ttl_seconds!r}")
        self.measure: Measure = measure if measure is not None else ByteMeasure()
        self.budget = SessionBudget(limit=limit, unit=self.measure.unit, max_turns=self.max_exchanges)
        self.project: Project = project or default_projection
        self.revision: Revision = revision or _no_revision
        self.summarize: Summarize = guarded_summary(summarize or latest_projection, self.max_projection_chars)
        self.store = open_storage(store, ttl_seconds=float(ttl_seconds))
        self.journal = ExchangeJournal(
            self.store, clock=clock, ttl_seconds=float(ttl_seconds), summarize=self.summarize
        )
        self.final_word = final_word
        self._turns: dict[str, Turn] = {}
        self._warned_growth = False

    # -- windows: read at the start, deleted on request, purged after their TTL ---------------
    def forget(self, user_id: str) -> None:
        """Delete every window of ``user_id`` (every app and session of this store), e.g. when the
        person asks to be forgotten. Raises ``StoreError`` when the store fails."""
        self.journal.forget(person_key(self.name, user_id))

    def purge(self, now: float | None = None) -> int:
        """Delete the windows past their TTL; how many records went. The store must have
        ``purge_expired(now)`` (the plugin's memory and SQLite stores and LOCAL's SQLite store do; a
        Firestore TTL policy on ``expire_at`` does it there)."""
        purge = getattr(self.store, "purge_expired", None)
        if not callable(purge):
            raise PluginConfigError(f"the store {type(self.store).__name__} has no purge_expired(now)")
        counts = purge(self.journal.clock() if now is None else now)
        return int(counts.get("journal", 0)) if isinstance(counts, dict) else 0

    def _read(self, person: str, session: str, revision: int) -> ExchangeRead:
        try:
            return self.journal.read(person, session, revision)
        except (
            StoreError,
            ValueError,
            KeyError,
            TypeError,
        ) as exc:  # unreadable: this turn goes without earlier exchanges
            warn("window not read", getattr(exc, "code", STORE_ROW_INVALID))
            return ExchangeRead(ExchangeWindow(summarize=self.summarize), revision, "empty")

    def _revision(self, user_id: str) -> int | None:
        """``revision(user_id)``, or None (logged) when it raises or gives no int."""
        try:
            value: object = self.revision(user_id)
        except Exception:  # a user's callable: it may raise anything
            value = None
        if type(value) is not int:
            warn("revision unknown", REVISION_FAILED)
            return None
        return value

    def _begin(self, context: InvocationContext) -> Turn:
        session = context.session
        person, conversation = (
            person_key(self.name, session.user_id),
            session_key(session.app_name, session.id),
        )
        child = _AGENT_TOOL_PARENT.get() is not None
        revision = None if child else self._revision(session.user_id)
        read = self._read(person, conversation, revision) if revision is not None else None
        turn = Turn(person, conversation, read, child=child, resumed=resume_anchor(context))
        self._turns[context.invocation_id] = turn
        return turn

    def _turn(self, callback_context: CallbackContext) -> Turn:
        turn = self._turns.get(callback_context.invocation_id)
        # A runner that skipped before_run (never ADK's Runner): read now.
        return turn if turn is not None else self._begin(callback_context._invocation_context)

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> types.Content | None:
        self._begin(invocation_context)
        return None

    # -- AgentTool child runs: marked while the tool runs ---------------------------------------
    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        if isinstance(tool, AgentTool):
            _AGENT_TOOL_PARENT.set(tool_context.invocation_id)
        return None

    async def after_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: dict[str, Any]
    ) -> dict[str, Any] | None:
        if isinstance(tool, AgentTool):
            _AGENT_TOOL_PARENT.set(None)
        return None

    async def on_tool_error_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any] | None:
        if isinstance(tool, AgentTool):
            _AGENT_TOOL_PARENT.set(None)
        return None

    # -- the budget gate -----------------------------------------------------------------------
    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        turn = self._turn(callback_context)
        turn.enums.update(enum_arguments(llm_request))
        if self.final_word:
            self._install_final_check(callback_context._invocation_context.agent)
        return await self._gate(turn, callback_context, llm_request)

    async def _gate(
        self, turn: Turn, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        try:
            await self.bound(turn, callback_context.user_content, llm_request)
        except BudgetExceeded as exc:
            turn.refused = True
            warn("model request refused", exc.code, str(exc))
            return LlmResponse(error_code=exc.code, error_message=str(exc), turn_complete=True)
        return None

    async def _prepare(
        self, window: ExchangeWindow, current: Any, envelope: dict[str, Any]
    ) -> BudgetResult[ExchangeWindow]:
        return await self.budget.prepare(window, current, envelope, self.measure)

    async def bound(
        self, turn: Turn, user_content: types.Content | None, llm_request: LlmRequest
    ) -> BudgetResult[ExchangeWindow]:
        """Replace what precedes the current turn with the window, trimmed to the budget; cut this
        turn's tool responses to their share when that is not enough. Raises ``BudgetExceeded``."""
        contents = list(llm_request.contents or [])
        k = static_prefix(llm_request)
        prefix, rest = contents[:k], contents[k:]
        tail = rest[current_start(rest, turn.resumed or user_content) :]
        window = turn.read.window if turn.read is not None else ExchangeWindow(summarize=self.summarize)
        try:
            return await bound_request(
                llm_request, window, [content_dict(c) for c in tail], tail, self._prepare, prefix=prefix
            )
        except BudgetExceeded:
            fitted = fit_responses(llm_request, tail, self.budget.limit, prefix)
            if fitted is None:
                raise
        cut, count = fitted
        warn("tool responses cut to fit the budget", TOOL_RESPONSE_CUT, f"{count} cut")
        return await bound_request(
            llm_request, window, [content_dict(c) for c in cut], cut, self._prepare, prefix=prefix
        )

    # -- the final word: the agent's own last before_model_callback ----------------------------
    def _install_final_check(self, agent: object) -> None:
        if not isinstance(agent, LlmAgent):
            return
        callbacks = agent.before_model_callback
        listed = list(callbacks) if isinstance(callbacks, list) else ([callbacks] if callbacks else [])
        if self.final_check not in listed:
            agent.before_model_callback = [*listed, self.final_check]

    async def final_check(
        self, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """The budget checked once more as the request will be sent. A request that a later
        callback (a plugin registered after this one, the agent's own callback) grew past the
        budget is bounded again, with a warning the first time; refused if even that cannot fit.
        Installed on every agent by default; an app with ``final_word=False`` may call it last in
        its own ``before_model_callback``."""
        turn = self._turns.get(callback_context.invocation_id)
        if turn is None or turn.refused:
            return None
        request = {
            **envelope_with(llm_request, ()),
            "contents": [content_dict(c) for c in llm_request.contents],
        }
        figure = await measure_request(self.measure, request)
        if figure.count <= self.budget.limit:
            return None
        if not self._warned_growth:
            self._warned_growth = True
            detail = f"{figure.count} {self.budget.unit} after the plugin, budget {self.budget.limit}"
            warn(
                "a callback after the plugin grew the request past the budget; bounded again",
                REQUEST_GREW_AFTER_PLUGIN,
                detail,
            )
        return await self._gate(turn, callback_context, llm_request)

    # -- after the run: project the exchange, keep only that -----------------------------------
    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        turn = self._turns.pop(invocation_context.invocation_id, None)
        if turn is None or turn.refused or turn.child or turn.read is None:
            return
        session = invocation_context.session
        events = [e for e in session.events if e.invocation_id == invocation_context.invocation_id]
        exchange = exchange_from_events(
            events, user_id=session.user_id, session_id=session.id, enums=turn.enums
        )
        text, code = checked_projection(self.project, exchange, max_chars=self.max_projection_chars)
        if code is not None:
            warn("exchange dropped", code)
        if text is not None:
            self._keep(turn, turn.read, exchange.user_id, text)

    def _keep(self, turn: Turn, read: ExchangeRead, user_id: str, text: str) -> None:
        if self._revision(user_id) != read.revision:
            warn("window not written", STALE_REVISION)
            return
        try:
            self.journal.append(turn.person, turn.session, read, text, max_turns=self.max_exchanges)
        except (LocalError, ValueError) as exc:  # the store failed, or a newer revision is stored
            warn("window not written", getattr(exc, "code", STORE_ROW_INVALID))

    async def on_run_error_callback(self, *, invocation_context: InvocationContext, error: Exception) -> None:
        self._turns.pop(invocation_context.invocation_id, None)
