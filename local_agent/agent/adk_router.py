"""ADK router: one fresh, stateless ADK session per turn, with the budget gate in front of the model.

The ``LlmAgent``'s ``before_model_callback`` throws away whatever contents ADK assembled and puts
in what ``SessionBudget.prepare`` produced from the journal, measured over the *whole* request
(system instruction + tool declarations + contents). The tools are ``TurnTools`` behind ADK
function tools that set ``skip_summarization``, so the model is called once per turn and the
reply is rendered by code from the tool result.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import ToolContext
from google.genai import types

from local_agent.agent.instructions import SYSTEM_INSTRUCTION
from local_agent.agent.pipeline import ContextPipeline, TurnState, flat_contents
from local_agent.context.errors import BudgetError, BudgetExceeded, LocalError, StoreError
from local_agent.context.journal import ScopeKey
from local_agent.context.session_budget import Measure
from local_agent.replies.render import BUDGET_REFUSAL, POLITE_FAILURE, render_tool_result
from local_agent.replies.reply import Reply

log = logging.getLogger("local_agent.router")

APP_NAME = "local"
TURN_KEY = "local_turn_id"
ADK_USER = "local-turn"  # every per-turn ADK session belongs to this one throwaway user
MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"
MAX_MODEL_CALLS_PER_TURN = 1
ASK_AGAIN = "我沒聽清楚要查哪裡，請問是哪個鄉鎮？想找吃的還是活動？"


@dataclass
class TurnOutcome:
    """What one turn produced, for the LINE edge, the replay and the tests."""

    reply: Reply
    error_code: str | None = None
    model_requests: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    projection: str | None = None
    command: str | None = None


def request_envelope(llm_request: LlmRequest) -> dict[str, Any]:
    """Rules and tool contract exactly as ADK will send them, as a canonical dict."""
    config = llm_request.config
    instruction = config.system_instruction if config else None
    if isinstance(instruction, types.Content):
        instruction = "".join(p.text or "" for p in instruction.parts or [])
    tools: list[dict[str, Any]] = []
    for tool in (config.tools or []) if config else []:
        for decl in getattr(tool, "function_declarations", None) or []:
            tools.append(decl.model_dump(mode="json", exclude_none=True))
    return {"system_instruction": instruction or "", "tools": tools}


def to_genai_contents(contents: list[dict[str, Any]]) -> list[types.Content]:
    return [
        types.Content(role=c["role"], parts=[types.Part(text=p["text"]) for p in c["parts"]])
        for c in contents
    ]


class AdkRouter:
    """Runs the model part of a turn through the real ADK ``Runner``."""

    def __init__(
        self,
        *,
        pipeline: ContextPipeline,
        model: BaseLlm,
        measure: Measure,
        generate_content_config: types.GenerateContentConfig | None = None,
        instruction: str | Callable[[Any], str] = SYSTEM_INSTRUCTION,
        io: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        self.pipeline, self.model, self.measure = pipeline, model, measure
        self._turns: dict[str, TurnState] = {}
        self._io = io or asyncio.to_thread
        self.sessions = InMemorySessionService()
        self.agent = LlmAgent(
            name="local_router",
            model=model,
            instruction=instruction,
            tools=[self._places_tool(), self._events_tool()],
            before_model_callback=self._before_model,
            generate_content_config=generate_content_config,
        )
        self.runner = Runner(app_name=APP_NAME, agent=self.agent, session_service=self.sessions)

    # -- tools (ADK function tools; the docstrings are the declarations the model sees) ------
    def _state(self, ctx: CallbackContext | ToolContext) -> TurnState:
        return self._turns[ctx.state[TURN_KEY]]

    def _places_tool(self):
        router = self

        async def search_local_places(
            area: str = "", dietary_type: str = "", keyword: str = "", tool_context: ToolContext = None
        ) -> dict:
            """查彰化縣某鄉鎮市的店家（教學快照）。

            Args:
              area: 鄉鎮市全名，例如 花壇鄉。
              dietary_type: 使用者本句明說的素別，否則留空；已同意的偏好由後端套用。
              keyword: 店家類型關鍵字，或留空。
            """
            tool_context.actions.skip_summarization = True
            state = router._state(tool_context)
            tools = router.pipeline.tools(state)
            return await router._io(tools.search_local_places, area, dietary_type, keyword)

        return search_local_places

    def _events_tool(self):
        router = self

        async def search_local_events(
            area: str = "",
            keyword: str = "",
            date_from: str = "",
            date_to: str = "",
            tool_context: ToolContext = None,
        ) -> dict:
            """查彰化縣某鄉鎮市的活動（教學快照）。

            Args:
              area: 鄉鎮市全名，例如 花壇鄉。
              keyword: 活動類型關鍵字，或留空。
              date_from: 使用者本句說了日期才填：台灣日期 YYYY-MM-DD（含），否則留空。
              date_to: 台灣日期 YYYY-MM-DD（含），只查一天時留空。
            """
            tool_context.actions.skip_summarization = True
            state = router._state(tool_context)
            tools = router.pipeline.tools(state)
            return await router._io(tools.search_local_events, area, keyword, date_from, date_to)

        return search_local_events

    # -- the budget gate -------------------------------------------------------------------
    async def _before_model(
        self, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        state = self._state(callback_context)
        state.extra["model_calls"] = state.extra.get("model_calls", 0) + 1
        if state.extra["model_calls"] > MAX_MODEL_CALLS_PER_TURN:
            # A proposal that never reached TurnTools (missing argument, unknown tool) makes ADK ask
            # the model again; the budgeted contents would hide ADK's error and the model would
            # repeat itself. One model call per turn: answer with a fixed question instead.
            state.extra["gave_up"] = True
            return LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text=ASK_AGAIN)]), turn_complete=True
            )
        envelope = request_envelope(llm_request)
        try:
            result = await self.pipeline.prepare(state, envelope, self.measure)
        except BudgetError as exc:
            state.error_code = exc.code
            text = BUDGET_REFUSAL if isinstance(exc, BudgetExceeded) else POLITE_FAILURE
            return LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text=text)]), turn_complete=True
            )
        llm_request.contents = to_genai_contents(result.contents)
        return None

    # -- one turn --------------------------------------------------------------------------
    async def run_turn(self, scope: ScopeKey, text: str, *, turn_id: str | None = None) -> TurnOutcome:
        try:
            state = await self._io(self.pipeline.begin, scope, text, turn_id=turn_id)
        except StoreError as exc:
            log.warning("turn not started", extra={"code": exc.code})
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
        # Throwaway sessions share one fixed ADK user id: ADK's in-memory service keeps a dict per
        # user id even after the session is deleted, so per-scope ids would grow without bound.
        session = await self.sessions.create_session(
            app_name=APP_NAME, user_id=ADK_USER, state={TURN_KEY: state.turn_id}
        )
        self._turns[state.turn_id] = state
        reply: Reply | None = None
        try:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for event in self.runner.run_async(
                user_id=ADK_USER, session_id=session.id, new_message=message
            ):
                for part in (event.content.parts if event.content else None) or []:
                    if part.function_response is not None and isinstance(
                        part.function_response.response, dict
                    ):
                        reply = render_tool_result(part.function_response.response)
                    elif part.text and not part.thought and event.author != "user":
                        reply = reply or Reply(texts=(part.text,))
        except StoreError as exc:
            state.error_code = exc.code
            return TurnOutcome(
                Reply(texts=(POLITE_FAILURE,)),
                error_code=exc.code,
                model_requests=self._model_requests(state),
            )
        except LocalError as exc:
            state.error_code = exc.code
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
        except Exception:  # the model or its transport failed: answer politely, no journal write
            log.warning("model call failed", extra={"code": MODEL_UNAVAILABLE})
            state.error_code = MODEL_UNAVAILABLE
            await self._record_failed_turn(state)
            return TurnOutcome(
                Reply(texts=(POLITE_FAILURE,)),
                error_code=MODEL_UNAVAILABLE,
                model_requests=self._model_requests(state),
            )
        finally:
            self._turns.pop(state.turn_id, None)
            await self.sessions.delete_session(app_name=APP_NAME, user_id=ADK_USER, session_id=session.id)
        if state.extra.get("gave_up") and reply is None:
            reply = Reply(texts=(ASK_AGAIN,))
        if state.error_code is not None:
            # Refused by the budget: nothing was sent, nothing is written to the journal; the
            # snapshot still records what was measured and why it was refused.
            await self._record_failed_turn(state)
            return TurnOutcome(
                reply or Reply(texts=(BUDGET_REFUSAL,)),
                error_code=state.error_code,
                model_requests=self._model_requests(state),
                tool_calls=self._tool_calls(state),
            )
        try:
            turn = await self._io(self.pipeline.finish, state)
        except StoreError as exc:
            return TurnOutcome(
                Reply(texts=(POLITE_FAILURE,)),
                error_code=exc.code,
                model_requests=self._model_requests(state),
                tool_calls=self._tool_calls(state),
            )
        if reply is None:
            reply = Reply(texts=("請再說一次好嗎？",))
        if reply.error_code and not state.error_code:
            error_code = reply.error_code
        else:
            error_code = None
        return TurnOutcome(
            reply,
            error_code=error_code,
            model_requests=self._model_requests(state),
            tool_calls=self._tool_calls(state),
            projection=turn.label,
        )

    async def _record_failed_turn(self, state: TurnState) -> None:
        """Best effort: a snapshot of a turn that did not complete (error code, counts, no text)."""
        try:
            snap = self.pipeline.snapshot_of(state, self.pipeline.projection(state), journal_written=False)
            await self._io(self.pipeline.snapshots.append_snapshot, snap)
        except LocalError:
            log.warning("snapshot of a failed turn not stored", extra={"code": state.error_code})

    @staticmethod
    def _model_requests(state: TurnState) -> list[dict[str, Any]]:
        if state.budget is None:
            return []
        b = state.budget
        return [
            {
                "contents": flat_contents(b.contents),
                "count": b.count,
                "unit": b.unit,
                "dropped_turns": b.dropped_turns,
                "summary_dropped": b.summary_dropped,
            }
        ]

    @staticmethod
    def _tool_calls(state: TurnState) -> list[dict[str, Any]]:
        if state.tools is None:
            return []
        return [
            {
                "tool": e.tool,
                "proposed_arguments": e.audit.proposed_arguments if e.audit else {},
                "effective_arguments": e.audit.effective_arguments if e.audit else {},
                "memory_revision": e.memory_revision,
                "preference_origin": e.preference_origin,
                "status": e.result.get("status"),
            }
            for e in state.tools.executions
        ]
