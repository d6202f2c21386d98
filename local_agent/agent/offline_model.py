"""The offline model: an ADK ``BaseLlm`` standing in for Gemini.

Deterministic. It reads only the ``LlmRequest`` it is handed — the contents the budget layer
assembled and the tool declarations — and proposes one tool call or a short text using the
rules in ``local_agent.agent.offline_rules``. It never sees the journal, the store or earlier raw text, so a
reference the budget dropped cannot be resolved. It is a stand-in, and says so in its name.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from local_agent.agent import offline_rules as intent
from local_agent.agent.instructions import today_from

OFFLINE_MODEL_NAME = "local-offline-standin"


def request_contents(llm_request: LlmRequest) -> list[dict[str, Any]]:
    """The request's contents as plain dicts (text parts only)."""
    out: list[dict[str, Any]] = []
    for content in llm_request.contents:
        texts = [p.text for p in (content.parts or []) if p.text]
        out.append({"role": content.role or "user", "parts": [{"text": "".join(texts)}]})
    return out


class OfflineModel(BaseLlm):
    """Deterministic stand-in for Gemini; see the module docstring."""

    model: str = OFFLINE_MODEL_NAME

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        tool_names = sorted(llm_request.tools_dict)
        contents = request_contents(llm_request)
        config = llm_request.config
        rules = config.system_instruction if config else None
        today = today_from(rules) if isinstance(rules, str) else None
        planned = intent.plan(contents, today) if contents else None  # its question read once
        proposal = intent.propose(contents, tool_names, today, planned)
        if proposal == {"text": intent.ASK_TOWNSHIP}:
            # Ask by running the search with no area: the tool's AREA_REQUIRED answer is the
            # question, and the turn projects as pending so the next answer can complete it.
            proposal = intent.ask_call(contents, tool_names, today, planned) or proposal
        if "function_call" in proposal:
            call = proposal["function_call"]
            part = types.Part(function_call=types.FunctionCall(name=call["name"], args=dict(call["args"])))
        else:
            part = types.Part(text=proposal["text"])
        # Usage in UTF-8 bytes of the text it read: the stand-in has no tokenizer, and says so by name.
        read = sum(len(c["parts"][0]["text"].encode("utf-8")) for c in contents)
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=read, candidates_token_count=0, total_token_count=read
        )
        yield LlmResponse(
            content=types.Content(role="model", parts=[part]), turn_complete=True, usage_metadata=usage
        )
