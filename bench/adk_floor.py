"""Two figures for ``bench.turn_overhead``: ADK's own floor per turn, and the Gemini path per turn.

* ``BareAdk``: a bare ADK agent (the installed release, 2.13) with one tool (``skip_summarization``), the same ``Runner``
  and ``InMemorySessionService``, a fresh session per turn and a trivial ``BaseLlm`` that proposes
  the tool call. No budget, no store, no journal: what any ADK turn with one tool call costs here.
  Sessions are not deleted (the cheapest ADK can do; the router must delete its own).
* ``as_installed``: the floor's turns without the A2A import mark (``adk_imports``) that the
  router sets for the whole process: ADK as shipped, retrying a failing import on every turn.
* ``gemini_path``: the real service wiring on the Gemini path (``LOCAL_MODEL=gemini-3.8-flash``,
  ``LOCAL_APPROVE_COUNT_TOKENS=yes``) against ``FakeGemini`` over loopback: per turn, the model
  round trips (generateContent + countTokens), the generateContent body bytes, the canonical request
  bytes the budget saw and the prompt tokens the fake reported (its tokens are bytes // 4 of the
  body: a stand-in figure, not Gemini's).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool, ToolContext
from google.genai import types

from local_agent.agent.adk_imports import A2A_AGENT_MODULE

FLOOR_APP = "floor"
FLOOR_USER = "floor-user"


class TrivialModel(BaseLlm):
    """Proposes one fixed tool call; reports one token of usage (as the offline model reports usage)."""

    model: str = "trivial"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        call = types.FunctionCall(name="lookup_township", args={"area": "花壇鄉"})
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=1, candidates_token_count=0, total_token_count=1
        )
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(function_call=call)]),
            turn_complete=True,
            usage_metadata=usage,
        )


async def lookup_township(area: str, tool_context: ToolContext) -> dict[str, Any]:
    """查彰化縣的鄉鎮市。

    Args:
      area: 鄉鎮市全名。
    """
    tool_context.actions.skip_summarization = True
    return {"status": "ok", "area": area}


class BareAdk:
    """The floor: one ``Runner`` reused, a fresh in-memory session per turn."""

    def __init__(self, *, prebuilt_tool: bool = True) -> None:
        self.sessions = InMemorySessionService()
        # prebuilt_tool (default): a FunctionTool built once, as the router builds its ContractTools:
        # the cheaper, stricter floor. A bare function is what ADK's quickstart passes; ADK then wraps
        # it again (signature and docstring parsed) on every model call.
        tool = FunctionTool(lookup_township) if prebuilt_tool else lookup_township
        agent = LlmAgent(name="bare", model=TrivialModel(), instruction="彰化縣在地助理。", tools=[tool])
        self.runner = Runner(app_name=FLOOR_APP, agent=agent, session_service=self.sessions)

    async def turn(self, text: str) -> int:
        """One turn; returns the number of function responses seen (1 when the tool ran)."""
        session = await self.sessions.create_session(app_name=FLOOR_APP, user_id=FLOOR_USER)
        responses = 0
        async for event in self.runner.run_async(
            user_id=FLOOR_USER,
            session_id=session.id,
            new_message=types.Content(role="user", parts=[types.Part(text=text)]),
        ):
            for part in (event.content.parts if event.content else None) or []:
                responses += part.function_response is not None
        return responses


@contextlib.contextmanager
def as_installed() -> Iterator[None]:
    """ADK exactly as installed for the turns inside: without the mark LOCAL's router sets on
    ADK's missing A2A module (``local_agent.agent.adk_imports``), so each turn retries that import."""
    missing = object()
    saved = sys.modules.pop(A2A_AGENT_MODULE, missing)
    try:
        yield
    finally:
        if saved is not missing:
            sys.modules[A2A_AGENT_MODULE] = saved  # type: ignore[assignment]


# -- the Gemini path over loopback ---------------------------------------------------------------


# Preference turns for the Gemini path: what a model following the rules answers (the preference
# tool), and one that does not (a false deletion claim, which the text gate refuses).
PREFERENCE_ANSWERS: dict[str, dict[str, Any]] = {
    "把我吃素的資料刪掉": {"function_call": {"name": "manage_preference", "args": {"action": "forget"}}},
    "我吃素，幫我記著": {
        "function_call": {
            "name": "manage_preference",
            "args": {"action": "remember", "dietary_type": "vegetarian"},
        }
    },
    "你存了我哪些資料？": {"function_call": {"name": "manage_preference", "args": {"action": "show"}}},
    "我的偏好幫我清一清": {"text": "好的，已經幫您刪除了。"},
}


def _propose(body: dict[str, Any]) -> dict[str, Any]:
    """The fake's answer: what the offline rules would propose for the request Gemini received
    (for a preference turn, ``PREFERENCE_ANSWERS``)."""
    from local_agent.agent import offline_rules
    from local_agent.agent.tools import SEARCH_TOOLS

    contents = [
        {
            "role": c.get("role", "user"),
            "parts": [{"text": "".join(p.get("text", "") for p in c.get("parts", []))}],
        }
        for c in body.get("contents") or []
    ]
    current = contents[-1]["parts"][0]["text"] if contents else ""
    if current in PREFERENCE_ANSWERS:
        return PREFERENCE_ANSWERS[current]
    return offline_rules.propose(contents, SEARCH_TOOLS)


def gemini_path(
    texts: list[str], *, factor: float, line_url: str = "http://127.0.0.1:9"
) -> list[dict[str, Any]]:
    """Run ``texts`` as one user's turns through the service's Gemini wiring; one row per turn."""
    from bench._common import SECRET, TOKEN
    from local_agent.context.journal import ScopeKey
    from local_agent.settings import Settings
    from local_agent.testing.fake_gemini import FakeGemini
    from local_agent.wiring import build_service

    scope = ScopeKey("Ubenchdestination", "user", "U" + "9" * 32, "U" + "9" * 32)
    rows: list[dict[str, Any]] = []
    with FakeGemini(responder=_propose) as fake, tempfile.TemporaryDirectory(prefix="bench-gemini-") as tmp:
        settings = Settings(
            LINE_CHANNEL_SECRET=SECRET,
            LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
            LINE_API_HOST=line_url,
            LOCAL_SQLITE_PATH=str(Path(tmp) / "gemini.sqlite3"),
            LOCAL_STORE="sqlite",
            LOCAL_MODEL="gemini-3.8-flash",
            GOOGLE_API_KEY="bench-key-not-real",
            LOCAL_GEMINI_BASE_URL=fake.base_url,
            LOCAL_APPROVE_COUNT_TOKENS=True,
            LOCAL_COUNT_TOKENS_BYTES_FACTOR=factor,
        )
        wiring = build_service(settings)

        async def run() -> None:
            try:
                for n, text in enumerate(texts, start=1):
                    before = len(fake.requests)
                    outcome = await wiring.router.run_turn(scope, text)
                    new = fake.requests[before:]
                    generates = [r for r in new if r.action == "generateContent"]
                    request = outcome.model_requests[0] if outcome.model_requests else {}
                    rows.append(
                        {
                            "turn": n,
                            "generate": len(generates),
                            "count": sum(r.action == "countTokens" for r in new),
                            "body_bytes": sum(len(r.raw) for r in generates),
                            "budget_figure": request.get("count"),
                            "measured_by": request.get("measured_by"),
                            "reported_prompt_tokens": sum(
                                (r.response or {}).get("usageMetadata", {}).get("promptTokenCount", 0)
                                for r in generates
                            ),
                            "error_code": outcome.error_code,
                            "gate_code": outcome.gate_code,
                        }
                    )
            finally:
                llm: Any = wiring.router.model  # ADK Gemini on this path
                await llm.api_client.aio.aclose()
                inner = getattr(wiring.router.measure, "inner", None)
                if inner is not None:
                    await inner.client.aio.aclose()

        asyncio.run(run())
        wiring.store.close()
    return rows
