"""The ADK side of the one tool contract: ``TOOL_DECLARATIONS`` is what the model is told.

``ContractTool`` is an ADK ``BaseTool`` declared by one entry of ``TOOL_DECLARATIONS`` (its JSON
Schema goes out as ``parameters_json_schema``, unchanged) and run by ``TurnTools.call``. So the
offline demo, the benchmarks, the replay and production all send and measure the same
declarations; ``declaration_dict`` turns what ADK puts in a request back into that canonical form.

Every run sets ``skip_summarization``: the reply is rendered by code from the tool result, so the
model is called once per turn. Arguments the declaration does not name are dropped before the
call (as ADK's ``FunctionTool`` drops unknown keyword arguments).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from google.adk.agents.llm_agent import ToolUnion
from google.adk.tools import BaseTool, ToolContext
from google.genai import types

from local_agent.agent.tools import TOOL_DECLARATIONS

# (tool name, declared arguments, ADK tool context) -> the tool's result
ToolRunner = Callable[[str, dict[str, Any], ToolContext], Awaitable[dict[str, Any]]]


class ContractTool(BaseTool):
    """One declared tool, executed through ``run``."""

    def __init__(self, declaration: Mapping[str, Any], run: ToolRunner) -> None:
        super().__init__(name=declaration["name"], description=declaration["description"])
        schema = copy.deepcopy(dict(declaration["parameters"]))
        self._declaration = types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=schema
        )
        self._schema_json = json.dumps(schema, ensure_ascii=False)
        self._parameters = frozenset(schema.get("properties", {}))
        self._run = run

    def _get_declaration(self) -> types.FunctionDeclaration:
        # A copy: ADK may edit what it is handed (e.g. name prefixes in toolsets). The validated
        # declaration copied with a schema freshly parsed from its JSON: equal to a deep copy at
        # about a third of its cost (the schema is plain JSON data).
        return self._declaration.model_copy(update={"parameters_json_schema": json.loads(self._schema_json)})

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        tool_context.actions.skip_summarization = True
        declared = {key: value for key, value in (args or {}).items() if key in self._parameters}
        return await self._run(self.name, declared, tool_context)


def contract_tools(run: ToolRunner) -> list[ToolUnion]:
    """The ADK tools, one per entry of ``TOOL_DECLARATIONS``, in its order."""
    return [ContractTool(declaration, run) for declaration in TOOL_DECLARATIONS]


def declaration_dict(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    """A function declaration as the canonical dict the core measures: ``name``, ``description``
    and ``parameters`` (the JSON Schema), as in ``TOOL_DECLARATIONS``."""
    dumped = declaration.model_dump(mode="json", exclude_none=True)
    if "parameters_json_schema" in dumped:
        dumped["parameters"] = dumped.pop("parameters_json_schema")
    return dumped


__all__ = ["ContractTool", "ToolRunner", "contract_tools", "declaration_dict"]
