"""The one tool contract: ADK's tools are declared by ``TOOL_DECLARATIONS`` and the router sends
exactly the rules and declarations the core measures (the demo's and the benchmarks' envelope): the
rules with today's line (``dated_rules``) at the service clock."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeClock
from google.adk.models.llm_request import LlmRequest
from google.genai import types
from helpers_app import make_settings
from pydantic import Field

from local_agent.agent.adk_router import AdkRouter, request_envelope
from local_agent.agent.adk_tools import ContractTool, contract_tools, declaration_dict
from local_agent.agent.gemini import build_count_tokens_request
from local_agent.agent.instructions import SYSTEM_INSTRUCTION, dated_rules
from local_agent.agent.offline_model import OfflineModel
from local_agent.agent.tools import TOOL_DECLARATIONS, TOOL_NAMES
from local_agent.context.journal import ScopeKey
from local_agent.context.session_budget import ByteMeasure, build_envelope
from local_agent.wiring import build_service


class EnvelopeRecordingModel(OfflineModel):
    """The offline model, keeping the rules and tools of every request it is handed."""

    envelopes: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):
        self.envelopes.append(request_envelope(llm_request))
        async for response in super().generate_content_async(llm_request, stream):
            yield response


async def _no_run(name: str, args: dict[str, Any], tool_context: Any) -> dict[str, Any]:
    raise AssertionError("not called in this test")


NOW = 1_764_547_200.0  # 2025-12-01 00:00 UTC, 08:00 in Taiwan


def _production_router(tmp_path: Path, model: OfflineModel) -> tuple[AdkRouter, Any]:
    """The router and its store, as the app builds them (offline model, SQLite, byte measure)."""
    wiring = build_service(
        make_settings("http://127.0.0.1:9", tmp_path / "x.db"),
        clock=FakeClock(NOW),
        model=model,
        measure=ByteMeasure(),
    )
    return wiring.router, wiring.store


def test_there_is_one_adk_tool_per_declaration_in_the_contracts_order() -> None:
    tools = contract_tools(_no_run)
    assert tuple(tool.name for tool in tools) == TOOL_NAMES
    assert [tool.description for tool in tools] == [d["description"] for d in TOOL_DECLARATIONS]


@pytest.mark.parametrize("declaration", TOOL_DECLARATIONS, ids=lambda d: d["name"])
def test_each_adk_declaration_is_its_contract_entry_with_the_json_schema_unchanged(
    declaration: dict[str, Any],
) -> None:
    sent = ContractTool(declaration, _no_run)._get_declaration()
    assert sent.parameters_json_schema == declaration["parameters"]
    assert sent.parameters is None
    assert declaration_dict(sent) == declaration


def test_the_declaration_handed_to_adk_is_a_copy_so_edits_do_not_stick() -> None:
    tool = ContractTool(TOOL_DECLARATIONS[0], _no_run)
    first = tool._get_declaration()
    first.name = "renamed"
    first.parameters_json_schema["properties"].clear()
    again = tool._get_declaration()
    assert declaration_dict(again) == TOOL_DECLARATIONS[0]
    assert TOOL_DECLARATIONS[0]["parameters"]["properties"], "the contract itself was not edited"


def test_a_declaration_with_an_openapi_schema_keeps_it_under_parameters() -> None:
    declaration = types.FunctionDeclaration(
        name="f", description="d", parameters=types.Schema(type=types.Type.OBJECT, properties={})
    )
    assert declaration_dict(declaration) == {
        "name": "f",
        "description": "d",
        "parameters": {"type": "OBJECT", "properties": {}},
    }


def test_the_router_sends_exactly_the_rules_and_tool_declarations_the_demo_measures(tmp_path: Path) -> None:
    model = EnvelopeRecordingModel()
    router, store = _production_router(tmp_path, model)
    try:
        outcome = asyncio.run(router.run_turn(ScopeKey.for_user("U1"), "花壇有什麼店推薦吃吃看？"))
    finally:
        store.close()
    assert outcome.error_code is None and outcome.tool_calls[0]["tool"] == "search_local_places"
    (sent,) = model.envelopes
    assert sent == build_envelope(dated_rules(NOW), TOOL_DECLARATIONS)
    assert sent["system_instruction"].startswith(SYSTEM_INSTRUCTION)
    assert "You are an agent" not in sent["system_instruction"], "ADK's identity line is not sent"


def test_the_token_count_request_declares_the_tools_as_the_router_sends_them() -> None:
    request = {**build_envelope(SYSTEM_INSTRUCTION, TOOL_DECLARATIONS), "contents": []}
    _, config = build_count_tokens_request(request, vertexai=True)
    counted = config.tools[0].function_declarations
    sent = [tool._get_declaration() for tool in contract_tools(_no_run)]
    assert counted == sent
