"""The request as the plugin reads and rewrites it: the envelope measured, the current turn, the
app-written contents put before it.

The current turn is found from the invocation, not from the roles of the contents: it begins at
the invocation's own ``user_content`` (the person's message, found in the request as ADK itself
finds it, by equality), and everything after it is this turn's material kept whole: this turn's
function calls and responses, ADK's "For context" contents of other agents (a transfer, a
``SequentialAgent``/``ParallelAgent``/``LoopAgent`` step), ``AgentTool`` calls. A long-running
tool's resume (the invocation's content is a function response) begins at the model content that
made the call it answers, so the earlier message that led to the call is left to its projection.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from google.adk.agents.invocation_context import InvocationContext
from google.adk.models.llm_request import LlmRequest
from google.genai import types


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


def declarations(llm_request: LlmRequest) -> list[dict[str, Any]]:
    config = llm_request.config
    return [
        declaration_dict(decl)
        for tool in ((config.tools or []) if config else [])
        for decl in (getattr(tool, "function_declarations", None) or [])
    ]


def request_envelope(llm_request: LlmRequest) -> dict[str, Any]:
    """System instruction and function declarations exactly as ADK will send them."""
    config = llm_request.config
    return {
        "system_instruction": _instruction_text(config.system_instruction if config else None),
        "tools": declarations(llm_request),
    }


def enum_arguments(llm_request: LlmRequest) -> dict[str, dict[str, tuple[Any, ...]]]:
    """For each declared tool, the arguments whose declaration gives an ``enum``, with its values."""
    out: dict[str, dict[str, tuple[Any, ...]]] = {}
    for decl in declarations(llm_request):
        properties = (decl.get("parameters") or {}).get("properties") or {}
        enums = {
            str(arg): tuple(schema["enum"])
            for arg, schema in properties.items()
            if isinstance(schema, Mapping) and isinstance(schema.get("enum"), list)
        }
        if enums:
            out[str(decl.get("name", ""))] = enums
    return out


def content_dict(content: types.Content) -> dict[str, Any]:
    """A content as the canonical dict the budget measures (function calls and responses as JSON)."""
    parts = [p.model_dump(mode="json", exclude_none=True) for p in content.parts or []]
    return {"role": content.role or "user", "parts": parts}


def _response_ids(content: types.Content) -> set[str]:
    """The ids and names a content's function responses answer (ADK strips its own ``adk-`` ids
    from requests, so a call is matched by id where it has one, else by name)."""
    return {
        key
        for p in content.parts or []
        if p.function_response
        for key in (p.function_response.id, p.function_response.name)
        if key
    }


def _calls_any(content: types.Content, ids: set[str]) -> bool:
    return content.role == "model" and any(
        p.function_call and (p.function_call.id in ids or p.function_call.name in ids)
        for p in content.parts or []
    )


def resume_anchor(context: InvocationContext) -> types.Content | None:
    """The function response an invocation was resumed with (a long-running tool's answer), or
    None. ADK resumes the invocation that made the call: its ``user_content`` is still the earlier
    message, so the current turn is anchored on the response instead."""
    events = context.session.events
    last = events[-1] if events else None
    if last is None or last.author != "user" or not last.get_function_responses():
        return None
    began = any(e.invocation_id == context.invocation_id for e in events[:-1])
    return last.content if began and last.invocation_id == context.invocation_id else None


def static_prefix(llm_request: LlmRequest) -> int:
    """How many leading contents are ADK's static-instruction prefix (instruction contents placed
    before the history for context caching): rules, kept in front and never trimmed."""
    end = getattr(llm_request, "_static_instruction_prefix_end_index", None)
    return end if type(end) is int and 0 < end <= len(llm_request.contents or []) else 0


def current_start(contents: Sequence[types.Content], user_content: types.Content | None) -> int:
    """Where the current turn begins in ``contents`` (``user_content``: the invocation's own).

    The last content equal to ``user_content`` (the person's message); for a resume whose content
    is a function response, the model content that made the call it answers. When neither is in
    the request (an agent with ``include_contents='none'``, a runner without an invocation
    content), every content is the current turn's: 0."""
    if user_content is None:
        return 0
    ids = _response_ids(user_content)
    for i in range(len(contents) - 1, -1, -1):
        content = contents[i]
        if (ids and _calls_any(content, ids)) or (not ids and content == user_content):
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
