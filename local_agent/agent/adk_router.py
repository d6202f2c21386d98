"""ADK router: one fresh, stateless ADK session per turn, with the budget gate in front of the model.

The ``LlmAgent``'s ``before_model_callback`` (``LocalContextPlugin``: the ADK plugin of
``local_agent.plugin`` configured with LOCAL's window) throws away whatever contents ADK assembled and
puts in what ``SessionBudget.prepare`` produced from the journal, measured over the *whole* request
(system instruction + tool declarations + contents). The rules sent are the router's instruction
alone (the gate sets them, replacing the identity line ADK appends). The tools are ``TurnTools``
behind ``adk_tools.ContractTool``, declared by ``TOOL_DECLARATIONS`` (the same declarations the
demo and the benchmarks measure) and setting ``skip_summarization``, so the model is called once
per turn and the reply is rendered by code from the tool result.

The model proposes, the code decides: ``manage_preference`` results are answered by the
``PreferenceDesk`` (the commands' bound consent prompt, forget confirmation or "what is kept"
answer; nothing is written), and a text the model wrote reaches the chat only through
``text_gate`` (refused texts are replaced, their code logged and counted in the snapshot).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import ToolContext
from google.genai import types

from local_agent import language
from local_agent.agent import offline_rules, text_gate
from local_agent.agent.adk_imports import skip_missing_a2a
from local_agent.agent.adk_tools import contract_tools
from local_agent.agent.context_plugin import ASK_AGAIN as ASK_AGAIN
from local_agent.agent.context_plugin import MAX_MODEL_CALLS_PER_TURN as MAX_MODEL_CALLS_PER_TURN
from local_agent.agent.context_plugin import LocalContextPlugin as LocalContextPlugin
from local_agent.agent.context_plugin import current_content as _current_content
from local_agent.agent.instructions import SYSTEM_INSTRUCTION
from local_agent.agent.pipeline import ContextPipeline, TurnState, flat_contents
from local_agent.agent.tools import PREFERENCE_CHOICES_TEXT, PREFERENCE_TOOL, TOOL_NAMES
from local_agent.context.errors import LocalError, StoreError
from local_agent.context.journal import ScopeKey
from local_agent.context.session_budget import Measure
from local_agent.language.utterance import Utterance
from local_agent.plugin.request import app_written_content, app_written_template
from local_agent.plugin.request import request_envelope as request_envelope  # the envelope measured
from local_agent.replies.render import POLITE_FAILURE, render_tool_result
from local_agent.replies.reply import Choice, CommandName, Reply

log = logging.getLogger("local_agent.router")

APP_NAME = "local"
TURN_KEY = "local_turn_id"
ADK_USER = "local-turn"  # every per-turn ADK session belongs to this one throwaway user
MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"


@dataclass
class TurnOutcome:
    """What one turn produced, for the LINE edge, the replay and the tests."""

    reply: Reply
    error_code: str | None = None
    model_requests: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    projection: str | None = None  # the projected turn's label, when the journal was written
    command: CommandName | None = None
    gate_code: str | None = None  # the text gate's refusal code, when a model-written text was refused


# The plugin's cache of app-written templates (projections, markers, summary lines).
_app_written_content = app_written_template


def to_genai_contents(
    contents: list[dict[str, Any]], *, current: types.Content | None = None
) -> list[types.Content]:
    """The budgeted contents as genai ``Content``. Everything before the current question is
    app-written and repeats from turn to turn: each is a shallow copy of a cached template (its
    own ``Content`` and ``Part`` objects, about a tenth of the cost of validating new ones). The
    current question (the user's text, last) is never cached: ``current`` (the content ADK built
    for the new message) is reused when it carries exactly that text, else it is built fresh."""
    out = [app_written_content(c) for c in contents[:-1]]
    if contents:
        out.append(
            _current_content(contents[-1]["role"], tuple(p["text"] for p in contents[-1]["parts"]), current)
        )
    return out


class PreferenceDesk(Protocol):
    """Answers a checked preference proposal with the commands' own bound replies (the consent
    prompt with signed buttons, the forget confirmation, the "what is kept" answer; in a group or
    room the 1:1-only pointer). Built in ``wiring`` from ``turns``; reads the store, never writes."""

    def offer(self, scope: ScopeKey, action: str, dietary_type: str) -> tuple[Reply, CommandName | None]: ...


class _NoDesk:
    """The answer when no desk was wired (benchmarks, bare routers): what LOCAL can do, no buttons."""

    def offer(self, scope: ScopeKey, action: str, dietary_type: str) -> tuple[Reply, CommandName | None]:
        return Reply(texts=(PREFERENCE_CHOICES_TEXT,)), None


@dataclass
class _Heard:
    """What one ADK run produced: the model's text parts and our tools' results, in order."""

    texts: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)

    def add(self, part: types.Part, author: str | None) -> None:
        response = part.function_response
        if response is not None:
            result = response.response
            if isinstance(result, dict) and response.name in TOOL_NAMES and "status" in result:
                self.results.append(result)
        elif part.text is not None and not part.thought and author != "user":
            self.texts.append(part.text)


class TextCommand(Protocol):
    """Answers a text command without the model (``LocalService.command``), or None."""

    async def __call__(self, scope: ScopeKey, said: Utterance) -> TurnOutcome | None: ...


def reply_content(reply: Reply) -> types.Content:
    """A reply as one model message for a chat window that shows text only: its texts, then one line
    per card (title, subtitle, first line)."""
    lines = list(reply.texts)
    for card in reply.cards:
        lines.append("・" + "｜".join(x for x in (card.title, card.subtitle, *card.lines[:1]) if x))
    return types.Content(role="model", parts=[types.Part(text="\n".join(lines))])


def kind_reply(area: str) -> Reply:
    """「想在鹿港鎮找吃的，還是查活動？」 with a button for each answer (a tap sends it as text)."""
    choices = tuple(Choice(a, a, a, sends_text=True) for a in offline_rules.KIND_ANSWERS)
    return Reply(texts=(offline_rules.township_only_text(area),), choices=choices)


class _Invocations:
    """Begin and finish a turn around one ADK invocation of ``AdkRouter.standalone_agent``."""

    def __init__(
        self, router: AdkRouter, scope_of: Callable[[str, str], ScopeKey], command: TextCommand | None
    ):
        self.router, self.scope_of, self.command = router, scope_of, command

    async def begin(self, callback_context: CallbackContext) -> types.Content | None:
        content = callback_context.user_content
        text = "".join(p.text or "" for p in (content.parts or []) if not p.thought) if content else ""
        scope = self.scope_of(callback_context.user_id, callback_context.session.id)
        router = self.router
        said = language.read(text, router.pipeline.clock())  # read once: the command and the turn
        if self.command is not None:
            answered = await self.command(scope, said)
            if answered is not None:
                return reply_content(answered.reply)
        try:
            state = await router._io(
                router.pipeline.begin, scope, said, turn_id=callback_context.invocation_id
            )
        except StoreError as exc:
            log.warning("turn not started", extra={"code": exc.code})
            return reply_content(Reply(texts=(POLITE_FAILURE,)))
        router._turns[state.turn_id] = state
        callback_context.state[TURN_KEY] = state.turn_id
        return None

    async def finish(self, callback_context: CallbackContext) -> types.Content | None:
        router = self.router
        state = router._turns.pop(str(callback_context.state.get(TURN_KEY, "")), None)
        if state is None or state.turn_id != callback_context.invocation_id:
            return None
        heard = _Heard()
        for event in callback_context.session.events:
            if event.invocation_id == state.turn_id and event.author != "user" and event.content:
                for part in event.content.parts or []:
                    heard.add(part, event.author)
        reply, _command = await router._decide(state, heard)
        if state.error_code is not None:
            await router._failure(state, state.error_code, reply, record=True)
        else:
            try:
                await router._io(router.pipeline.finish, state)
            except StoreError as exc:
                return reply_content((await router._failure(state, exc.code)).reply)
        return reply_content(reply)


class AdkRouter:
    """Runs the model part of a turn through the real ADK ``Runner``."""

    def __init__(
        self,
        *,
        pipeline: ContextPipeline,
        model: BaseLlm,
        measure: Measure,
        generate_content_config: types.GenerateContentConfig | None = None,
        instruction: str | Callable[[ReadonlyContext], str] = SYSTEM_INSTRUCTION,
        io: Callable[..., Awaitable[Any]] | None = None,
        desk: PreferenceDesk | None = None,
    ) -> None:
        self.pipeline, self.model, self.measure = pipeline, model, measure
        self.desk: PreferenceDesk = desk or _NoDesk()
        self.instruction = instruction
        self._turns: dict[str, TurnState] = {}
        self._io = io or asyncio.to_thread
        # ADK's own in-memory sessions: since 2.13 its delete checks the id without copying the
        # session first, so a throwaway per-turn session costs nothing to remove.
        self.sessions = InMemorySessionService()
        skip_missing_a2a()  # ADK would otherwise retry a failing optional import on every turn
        self.agent = LlmAgent(
            name="local_router",
            model=model,
            instruction=instruction,
            tools=contract_tools(self._run_tool),
            before_model_callback=self._before_model,
            generate_content_config=generate_content_config,
        )
        self.runner = Runner(app_name=APP_NAME, agent=self.agent, session_service=self.sessions)
        self.context = LocalContextPlugin(self)

    # -- tools (built from TOOL_DECLARATIONS; see adk_tools.py) -----------------------------
    def _state(self, ctx: CallbackContext | ToolContext) -> TurnState:
        return self._turns[ctx.state[TURN_KEY]]

    async def _run_tool(self, name: str, args: dict[str, Any], tool_context: ToolContext) -> dict[str, Any]:
        tools = self.pipeline.tools(self._state(tool_context))
        return await self._io(tools.call, name, args)

    # -- the budget gate: LocalContextPlugin (the plugin configured with LOCAL's window) ---------
    async def _before_model(
        self, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        return await self.context.before_model_callback(
            callback_context=callback_context, llm_request=llm_request
        )

    # -- ADK's own tools (adk run / web / eval) ----------------------------------------------
    def standalone_agent(
        self,
        *,
        name: str,
        scope_of: Callable[[str, str], ScopeKey],
        command: TextCommand | None = None,
    ) -> LlmAgent:
        """The same agent — model, rules, tools, budget gate — for a runner that is not this router's
        (ADK's ``adk run``, ``adk web``, ``adk eval``). Each ADK invocation begins a turn from its user
        message in the scope ``scope_of(ADK user id, ADK session id)``, and ends with the reply the code decides (a tool
        result rendered, as on LINE); a text ``command`` answers without the model. The ADK session's own
        history is never sent: the gate replaces it with the journal's budgeted contents."""
        turns = _Invocations(self, scope_of, command)
        return LlmAgent(
            name=name,
            description="LOCAL: places and events in Changhua County, with the Day 15 context layer",
            model=self.model,
            instruction=self.instruction,
            tools=contract_tools(self._run_tool),
            before_agent_callback=turns.begin,
            before_model_callback=self._before_model,
            after_agent_callback=turns.finish,
            generate_content_config=self.agent.generate_content_config,
        )

    # -- one turn --------------------------------------------------------------------------
    async def run_turn(
        self, scope: ScopeKey, said: str | Utterance, *, turn_id: str | None = None
    ) -> TurnOutcome:
        """One model turn for ``said`` (the message's ``Utterance``, or an app-written question read
        here once)."""
        try:
            state = await self._io(self.pipeline.begin, scope, said, turn_id=turn_id)
        except StoreError as exc:
            log.warning("turn not started", extra={"code": exc.code})
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
        try:
            heard = await self._run_agent(state, state.current)
            reply, command = await self._decide(state, heard)
        except LocalError as exc:
            return await self._failure(state, exc.code)
        except Exception:  # the model or its transport failed: answer politely, no journal write
            log.warning("model call failed", extra={"code": MODEL_UNAVAILABLE})
            return await self._failure(state, MODEL_UNAVAILABLE, record=True)
        if state.error_code is not None:
            # Refused by the budget: nothing was sent, nothing is written to the journal; the
            # snapshot still records what was measured and why it was refused.
            return await self._failure(state, state.error_code, reply, record=True)
        try:
            turn = await self._io(self.pipeline.finish, state)
        except StoreError as exc:
            return await self._failure(state, exc.code)
        outcome = self._outcome(state, reply, reply.error_code or None, projection=turn.label)
        outcome.command = command
        return outcome

    async def _decide(self, state: TurnState, heard: _Heard) -> tuple[Reply, CommandName | None]:
        """The reply, decided by code: a tool result of this turn (the preference tool's through the
        desk), else the app's own fixed text, else the model's text if the text gate lets it pass."""
        if heard.results:
            if "".join(heard.texts).strip():
                self._refused(state, "GATE_BESIDE_TOOL")  # its words are dropped: the result answers
            result = heard.results[-1]
            if result.get("tool") == PREFERENCE_TOOL and result.get("status") == "ok":
                return await self._offer(state, str(result["action"]), str(result.get("dietary_type") or ""))
            return render_tool_result(result), None
        if state.app_text is not None:
            return Reply(texts=(state.app_text,)), None
        text = "".join(heard.texts)
        asked = self.pipeline.kind_question(state, text)
        if asked is not None:  # the kind question, with its buttons; it projects with the dates
            return kind_reply(asked.area), None
        verdict = text_gate.check(text, chat=state.scope.source_type, said=state.said)
        if verdict.code is None:
            return Reply(texts=(text.strip(),)), None
        self._refused(state, verdict.code)
        if verdict.about == "forget":
            return await self._offer(state, "forget", "")
        if verdict.about == "remember":
            return await self._offer(state, "remember", state.said.diet.named or "")
        return Reply(texts=(text_gate.FALLBACK_TEXT,)), None

    async def _offer(self, state: TurnState, action: str, diet: str) -> tuple[Reply, CommandName | None]:
        reply, command = await self._io(self.desk.offer, state.scope, action, diet)
        return reply, command

    @staticmethod
    def _refused(state: TurnState, code: str) -> None:
        """A model-written text not sent: its code logged and counted, never its words."""
        state.gate_codes.append(code)
        log.warning("model text refused", extra={"code": code})

    async def _run_agent(self, state: TurnState, text: str) -> _Heard:
        """One pass of the ADK Runner over a throwaway session: what the model wrote and our tools
        returned."""
        # Throwaway sessions share one fixed ADK user id: ADK's in-memory service keeps a dict per
        # user id even after the session is deleted, so per-scope ids would grow without bound.
        session = await self.sessions.create_session(
            app_name=APP_NAME, user_id=ADK_USER, state={TURN_KEY: state.turn_id}
        )
        self._turns[state.turn_id] = state
        heard = _Heard()
        try:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for event in self.runner.run_async(
                user_id=ADK_USER, session_id=session.id, new_message=message
            ):
                if event.author == "user":
                    continue
                for part in (event.content.parts if event.content else None) or []:
                    heard.add(part, event.author)
        finally:
            self._turns.pop(state.turn_id, None)
            await self.sessions.delete_session(app_name=APP_NAME, user_id=ADK_USER, session_id=session.id)
        return heard

    async def _failure(
        self, state: TurnState, code: str, reply: Reply | None = None, *, record: bool = False
    ) -> TurnOutcome:
        """The one way a started turn fails: ``code`` on the state and the outcome, a polite reply
        unless given, what was measured and run so far, and (``record``) a snapshot of the turn."""
        state.error_code = code
        if record:
            await self._record_failed_turn(state)
        return self._outcome(state, reply or Reply(texts=(POLITE_FAILURE,)), code)

    def _outcome(
        self, state: TurnState, reply: Reply, error_code: str | None, projection: str | None = None
    ) -> TurnOutcome:
        return TurnOutcome(
            reply,
            error_code=error_code,
            model_requests=self._model_requests(state),
            tool_calls=self._tool_calls(state),
            projection=projection,
            gate_code=state.gate_codes[-1] if state.gate_codes else None,
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
                "measured_by": b.measured_by,
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
                "code": e.result.get("code"),  # an error's code (the usage rows count asks back)
                "found": len(e.result.get("items") or ()),
            }
            for e in state.tools.executions
        ]
