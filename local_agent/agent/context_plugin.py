"""LOCAL's budget gate: the plugin's bounding step with LOCAL's window, as the agent's callback.

``LocalContextPlugin`` composes the plugin's one bounding step (``local_agent.plugin.bound_request``)
with LOCAL's own window and journal: the journal's ``ContextWindow`` (``SafeTurn`` projections, the
``ContextSummary`` goal + area) read in ``pipeline.begin`` under the person's preference revision
and written back in ``pipeline.finish`` (the journal's revision gate, the only one); the measure and
budget are the router's (``pipeline.prepare``). It keeps no store, turns or windows of its own.
It runs as the agent's ``before_model_callback`` (so ``adk run`` / ``web`` / ``eval`` on
``standalone_agent`` have it too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from local_agent.context.errors import BudgetError, BudgetExceeded
from local_agent.context.session_budget import BudgetResult
from local_agent.plugin import bound_request
from local_agent.replies.render import BUDGET_REFUSAL, POLITE_FAILURE

if TYPE_CHECKING:
    from local_agent.agent.adk_router import AdkRouter

MAX_MODEL_CALLS_PER_TURN = 1
ASK_AGAIN = "我沒聽清楚要查哪裡，請問是哪個鄉鎮？想找吃的還是活動？"


def content(role: str, texts: tuple[str, ...]) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=t) for t in texts])


def current_content(role: str, texts: tuple[str, ...], current: types.Content | None) -> types.Content:
    """ADK's own content for the new message when it carries exactly ``texts``, else a fresh one."""
    same = (
        current is not None and current.role == role and tuple(p.text for p in current.parts or ()) == texts
    )
    return current if same and current is not None else content(role, texts)


def text_response(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]), turn_complete=True)


class LocalContextPlugin:
    """The budget gate of LOCAL's agent. Before the shared bounding step it answers a second model
    call of a turn with a fixed question, and sets the rules sent to exactly the rules measured."""

    def __init__(self, router: AdkRouter) -> None:
        self.router = router

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        router = self.router
        state = router._state(callback_context)
        state.model_calls += 1
        if state.model_calls > MAX_MODEL_CALLS_PER_TURN:
            # A proposal that never reached TurnTools (an unknown tool name) makes ADK ask
            # the model again; the budgeted contents would hide ADK's error and the model would
            # repeat itself. One model call per turn: answer with a fixed question instead.
            state.gave_up = True
            state.app_text = ASK_AGAIN
            router._refused(state, "GATE_SECOND_CALL")
            return text_response(ASK_AGAIN)
        # The rules sent are exactly the rules measured: this replaces the identity line ADK appends.
        # A provider (``dated_instruction``: the rules + today's line) is read for this request.
        instruction = router.instruction
        llm_request.config.system_instruction = (
            instruction(callback_context) if callable(instruction) else instruction
        )
        last = llm_request.contents[-1] if llm_request.contents else None
        tail = [current_content("user", (state.current,), last)]

        async def prepare(window: Any, current: Any, envelope: dict[str, Any]) -> BudgetResult[Any]:
            # The pipeline's prepare: the result is kept on the turn (snapshots, tools, the replay).
            return await router.pipeline.prepare(state, envelope, router.measure)

        try:
            await bound_request(llm_request, state.snapshot.window, state.current, tail, prepare)
        except BudgetError as exc:
            state.error_code = exc.code
            state.app_text = BUDGET_REFUSAL if isinstance(exc, BudgetExceeded) else POLITE_FAILURE
            return text_response(state.app_text)
        return None
