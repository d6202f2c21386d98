"""The Gemini path end to end against a local fake endpoint: real google-genai, real ADK.

``FakeGemini`` (local_agent/testing/fake_gemini.py) listens on 127.0.0.1 and speaks the REST paths
google-genai 2.34.0 sends; nothing here needs the network. No pytest-asyncio: ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import google.oauth2.credentials
import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import Client, errors, types

from local_agent.agent.gemini import (
    GEMINI_MODEL,
    GeminiTokenMeasure,
    build_count_tokens_request,
    build_gemini_llm,
    generate_config,
)
from local_agent.context.canonical import canonical_json
from local_agent.testing.fake_gemini import DEFAULT_TEXT, FakeGemini, fake_token_count

pytestmark = pytest.mark.filterwarnings("ignore:.*EXPERIMENTAL.*:UserWarning")

INSTRUCTION = "你是彰化縣的在地助理 LOCAL，只回答彰化縣的事。"
DEV_PATH = f"/v1beta/models/{GEMINI_MODEL}"
VERTEX_PATH = f"/v1beta1/projects/demo-project/locations/asia-east1/publishers/google/models/{GEMINI_MODEL}"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "lookup_township",
        "description": "查詢彰化縣的鄉鎮市。",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "鄉鎮市名"}},
            "required": ["name"],
        },
    }
]
REQUEST: dict[str, Any] = {
    "system_instruction": INSTRUCTION,
    "tools": TOOLS,
    "contents": [
        {"role": "user", "parts": [{"text": "鹿港有什麼好吃的？"}]},
        {"role": "model", "parts": [{"text": "蚵仔煎和麵線糊。"}]},
        {"role": "user", "parts": [{"text": "那員林呢？"}]},
    ],
}


def static_credentials() -> google.oauth2.credentials.Credentials:
    """A bearer token that never expires and never refreshes: Vertex auth without network."""
    return google.oauth2.credentials.Credentials(token="test-token")


def run_one_turn(llm: Any, text: str) -> tuple[list[str], list[Any]]:
    """One user message through a real ADK Runner; returns (tool calls seen, final texts)."""
    tool_calls: list[str] = []

    def lookup_township(name: str) -> dict:
        """查詢彰化縣的鄉鎮市。"""
        tool_calls.append(name)
        return {"name": name, "county": "彰化縣"}

    agent = LlmAgent(
        name="local",
        model=llm,
        instruction=INSTRUCTION,
        generate_content_config=generate_config(),
        tools=[lookup_township],
    )

    async def go() -> list[str]:
        sessions = InMemorySessionService()
        runner = Runner(app_name="local-test", agent=agent, session_service=sessions)
        session = await sessions.create_session(app_name="local-test", user_id="u1")
        texts: list[str] = []
        try:
            async for event in runner.run_async(
                user_id="u1",
                session_id=session.id,
                new_message=types.Content(role="user", parts=[types.Part(text=text)]),
            ):
                if event.content and event.content.parts:
                    texts.extend(p.text for p in event.content.parts if p.text)
        finally:
            await runner.close()
            await llm.api_client.aio.aclose()
        return texts

    return tool_calls, asyncio.run(go())


SCRIPT = [
    {"function_call": {"name": "lookup_township", "args": {"name": "鹿港鎮"}}},
    {"text": "鹿港鎮在彰化縣西北。"},
]


def assert_first_generate_body(body: dict[str, Any]) -> None:
    system_text = "".join(p["text"] for p in body["systemInstruction"]["parts"])
    assert INSTRUCTION in system_text
    decls = [d for tool in body["tools"] for d in tool.get("functionDeclarations", [])]
    assert [d["name"] for d in decls] == ["lookup_township"]
    assert decls[0]["description"] == "查詢彰化縣的鄉鎮市。"
    # google-genai 2.34.0 passes nested config objects through pydantic's field names, so the
    # wire key inside thinkingConfig is snake_case (protobuf JSON accepts both spellings).
    assert body["generationConfig"]["thinkingConfig"] == {"thinking_level": "LOW"}
    assert "temperature" not in body["generationConfig"]
    assert body["contents"][-1] == {"role": "user", "parts": [{"text": "鹿港在哪裡？"}]}


# --- (a) Gemini Developer API ------------------------------------------------------------------


def test_developer_api_agent_turn_goes_through_fake() -> None:
    with FakeGemini(script=SCRIPT) as fake:
        llm = build_gemini_llm(
            api_key="test-key", use_vertexai=False, project=None, location=None, base_url=fake.base_url
        )
        assert llm.model == GEMINI_MODEL
        tool_calls, texts = run_one_turn(llm, "鹿港在哪裡？")
        reqs = fake.generate_requests

    assert tool_calls == ["鹿港鎮"]  # ADK executed the scripted function call
    assert texts[-1] == "鹿港鎮在彰化縣西北。"
    assert [r.path for r in reqs] == [f"{DEV_PATH}:generateContent"] * 2
    assert all(r.model == GEMINI_MODEL and not r.vertex and r.status == 200 for r in reqs)
    assert reqs[0].headers["x-goog-api-key"] == "test-key"
    assert "authorization" not in reqs[0].headers
    assert_first_generate_body(reqs[0].body)
    # The second call carries the tool result back.
    second = reqs[1].body["contents"]
    assert second[-2]["parts"][0]["functionCall"] == {"name": "lookup_township", "args": {"name": "鹿港鎮"}}
    assert second[-1]["parts"][0]["functionResponse"]["response"] == {"name": "鹿港鎮", "county": "彰化縣"}


# --- (b) Vertex AI -----------------------------------------------------------------------------


def test_vertex_agent_turn_uses_vertex_path() -> None:
    with FakeGemini(script=SCRIPT) as fake:
        llm = build_gemini_llm(
            api_key=None,
            use_vertexai=True,
            project="demo-project",
            location="asia-east1",
            base_url=fake.base_url,
            credentials=static_credentials(),
        )
        tool_calls, texts = run_one_turn(llm, "鹿港在哪裡？")
        reqs = fake.generate_requests

    assert tool_calls == ["鹿港鎮"]
    assert texts[-1] == "鹿港鎮在彰化縣西北。"
    assert [r.path for r in reqs] == [f"{VERTEX_PATH}:generateContent"] * 2
    first = reqs[0]
    assert first.vertex and (first.project, first.location, first.api_version) == (
        "demo-project",
        "asia-east1",
        "v1beta1",
    )
    assert first.headers["authorization"] == "Bearer test-token"
    assert "x-goog-api-key" not in first.headers
    assert_first_generate_body(first.body)


# --- (c) GeminiTokenMeasure --------------------------------------------------------------------


def test_token_measure_vertex_counts_with_config_fields() -> None:
    with FakeGemini() as fake:
        measure = GeminiTokenMeasure.from_settings(
            api_key=None,
            use_vertexai=True,
            project="demo-project",
            location="asia-east1",
            base_url=fake.base_url,
            credentials=static_credentials(),
        )
        assert measure.unit == "tokens"

        async def go() -> int:
            try:
                return await measure(REQUEST)
            finally:
                await measure.client.aio.aclose()

        count = asyncio.run(go())
        (rec,) = fake.count_requests

    assert rec.path == f"{VERTEX_PATH}:countTokens"
    body = rec.body
    assert body["systemInstruction"]["parts"] == [{"text": INSTRUCTION}]
    decls = body["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in decls] == ["lookup_township"]
    assert decls[0]["description"] == "查詢彰化縣的鄉鎮市。"
    assert len(body["contents"]) == 3
    assert body["contents"][-1] == {"role": "user", "parts": [{"text": "那員林呢？"}]}
    assert type(count) is int
    assert count == fake_token_count(body) == rec.response["totalTokens"]


def test_token_measure_developer_api_counts_rules_and_tools_as_text() -> None:
    with FakeGemini() as fake:
        client = Client(api_key="test-key", http_options=types.HttpOptions(base_url=fake.base_url))
        measure = GeminiTokenMeasure(client, GEMINI_MODEL)

        async def go() -> int:
            try:
                return await measure(REQUEST)
            finally:
                await client.aio.aclose()

        count = asyncio.run(go())
        (rec,) = fake.count_requests

    assert rec.path == f"{DEV_PATH}:countTokens"
    body = rec.body
    assert "systemInstruction" not in body and "tools" not in body
    lead, *rest = body["contents"]
    assert lead["role"] == "user"
    assert lead["parts"][0] == {"text": INSTRUCTION}
    assert lead["parts"][1] == {"text": canonical_json({"tools": TOOLS})}
    assert json.loads(lead["parts"][1]["text"]) == {"tools": TOOLS}
    assert rest == REQUEST["contents"]
    assert type(count) is int
    assert count == fake_token_count(body) == rec.response["totalTokens"]


def test_token_measure_propagates_api_errors() -> None:
    with FakeGemini() as fake:
        fake.fail_next(429)
        client = Client(api_key="test-key", http_options=types.HttpOptions(base_url=fake.base_url))
        measure = GeminiTokenMeasure(client)

        async def go() -> tuple[BaseException | None, int]:
            try:
                try:
                    await measure(REQUEST)
                except errors.APIError as exc:
                    failed: BaseException | None = exc
                else:
                    failed = None
                return failed, await measure(REQUEST)
            finally:
                await client.aio.aclose()

        failed, count = asyncio.run(go())
        statuses = [r.status for r in fake.count_requests]

    assert isinstance(failed, errors.ClientError) and failed.code == 429
    assert statuses == [429, 200]
    assert count > 0


# --- pure helpers ------------------------------------------------------------------------------


def test_build_count_tokens_request_shapes() -> None:
    contents, config = build_count_tokens_request(REQUEST, vertexai=False)
    assert config is None
    assert [c.role for c in contents] == ["user", "user", "model", "user"]
    assert [p.text for p in contents[0].parts] == [INSTRUCTION, canonical_json({"tools": TOOLS})]

    contents, config = build_count_tokens_request(REQUEST, vertexai=True)
    assert [c.role for c in contents] == ["user", "model", "user"]
    assert config is not None and config.system_instruction == INSTRUCTION
    (decl,) = config.tools[0].function_declarations
    assert decl.name == "lookup_township"

    # Plain JSON schema the SDK's Schema type refuses still goes through, unchanged.
    odd = {
        **TOOLS[0],
        "parameters": {**TOOLS[0]["parameters"], "additionalProperties": False, "$comment": "x"},
    }
    _, config = build_count_tokens_request({**REQUEST, "tools": [odd]}, vertexai=True)
    (decl,) = config.tools[0].function_declarations
    assert decl.parameters is None and decl.parameters_json_schema == odd["parameters"]

    # Nothing to lead with: only the real contents.
    bare = {"system_instruction": "", "tools": [], "contents": REQUEST["contents"]}
    contents, config = build_count_tokens_request(bare, vertexai=False)
    assert len(contents) == 3 and config is None
    contents, config = build_count_tokens_request(bare, vertexai=True)
    assert config.system_instruction is None and config.tools is None


def test_generate_config() -> None:
    config = generate_config()
    assert config.temperature is None
    assert config.thinking_config.thinking_level == types.ThinkingLevel.LOW
    assert config.tools is None and config.system_instruction is None


# --- the fake itself ---------------------------------------------------------------------------


def test_fake_script_responder_default_and_faults() -> None:
    seen: list[dict[str, Any]] = []

    def responder(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        return {"function_call": {"name": "echo", "args": {"n": len(seen)}}}

    with FakeGemini(script=[{"text": "第一"}], responder=responder) as fake, FakeGemini() as plain:
        client = Client(api_key="k", http_options=types.HttpOptions(base_url=fake.base_url))
        plain_client = Client(api_key="k", http_options=types.HttpOptions(base_url=plain.base_url))

        async def go() -> list[Any]:
            out: list[Any] = []
            try:
                out.append((await client.aio.models.generate_content(model=GEMINI_MODEL, contents="a")).text)
                r = await client.aio.models.generate_content(model=GEMINI_MODEL, contents="b")
                out.append(r.function_calls[0].args)
                fake.fail_next(503, times=2)
                for _ in range(2):
                    with pytest.raises(errors.ServerError) as info:
                        await client.aio.models.generate_content(model=GEMINI_MODEL, contents="c")
                    out.append(info.value.code)
                r = await plain_client.aio.models.generate_content(model=GEMINI_MODEL, contents="d")
                out.append((r.text, r.usage_metadata.prompt_token_count > 0))
                chunks = [
                    c.text
                    async for c in await plain_client.aio.models.generate_content_stream(
                        model=GEMINI_MODEL, contents="e"
                    )
                ]
                out.append(chunks)
            finally:
                await client.aio.aclose()
                await plain_client.aio.aclose()
            return out

        out = asyncio.run(go())
        statuses = [r.status for r in fake.requests]
        stream_req = plain.requests[-1]

    assert out == ["第一", {"n": 1}, 503, 503, (DEFAULT_TEXT, True), [DEFAULT_TEXT]]
    assert statuses == [200, 200, 503, 503]
    assert len(seen) == 1 and seen[0]["contents"][0]["parts"] == [{"text": "b"}]
    assert stream_req.action == "streamGenerateContent" and stream_req.query == {"alt": ["sse"]}


def test_fake_unknown_path_is_404_and_recorded() -> None:
    import urllib.error
    import urllib.request

    with FakeGemini() as fake:
        req = urllib.request.Request(fake.base_url + "v1beta/files", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=5)
        assert info.value.code == 404
        (rec,) = fake.requests
    assert rec.action is None and rec.status == 404 and rec.body == {}
    with pytest.raises(RuntimeError):
        _ = fake.base_url
