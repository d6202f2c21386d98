"""The Gemini side of LOCAL: the ADK model, its generation config and a token measure.

* ``build_gemini_llm`` returns an ADK ``Gemini`` model for ``GEMINI_MODEL`` whose google-genai
  ``Client``s (ADK's ``client_kwargs``) are built from explicit settings (API key or Vertex project/location, optional
  ``base_url``) instead of the process environment, so tests can point it at
  ``local_agent.testing.fake_gemini.FakeGemini``.
* ``generate_config`` is the agent's ``generate_content_config``: thinking level LOW; temperature left at the model's default (Google's advice for Gemini 3).
* ``GeminiTokenMeasure`` counts a whole canonical request (rules + tool contract + contents) with
  the server's ``countTokens``; it satisfies ``local_agent.context.session_budget.Measure`` with
  ``unit = "tokens"``, with a deadline (``COUNT_TOKENS_TIMEOUT_S``): a count that fails or times
  out raises, and the turn is refused politely without sending. In the service it sits behind
  ``session_budget.BytesBoundMeasure``, so it is called only for requests the byte bound cannot
  show to fit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, cast

from google.adk.models.google_llm import Gemini
from google.genai import Client, types

from local_agent.context.canonical import canonical_json

GEMINI_MODEL = "gemini-3.8-flash"
COUNT_TOKENS_TIMEOUT_S = 5.0  # a count slower than this refuses the turn (never an unmeasured send)

__all__ = [
    "COUNT_TOKENS_TIMEOUT_S",
    "GEMINI_MODEL",
    "GeminiTokenMeasure",
    "build_count_tokens_request",
    "build_gemini_llm",
    "gemini_client_kwargs",
    "generate_config",
    "make_genai_client",
]


def make_genai_client(
    *,
    api_key: str | None,
    use_vertexai: bool,
    project: str | None,
    location: str | None,
    base_url: str | None,
    credentials: Any = None,
    headers: Mapping[str, str] | None = None,
    retry_options: types.HttpRetryOptions | None = None,
    api_version: str | None = None,
) -> Client:
    """A google-genai ``Client`` from explicit settings.

    Developer API (``use_vertexai=False``): ``api_key`` authenticates; ``project``/``location``
    are ignored (the SDK refuses them on that path). Vertex (``use_vertexai=True``): ``project`` +
    ``location`` with ``credentials`` (``google.auth`` credentials; ADC is looked up lazily on the
    first request when ``None``), or an ``api_key`` for Vertex express mode. ``base_url`` replaces
    the Google endpoint; request paths keep their usual form under it.
    """
    http_kwargs: dict[str, Any] = {}
    if base_url:
        http_kwargs["base_url"] = base_url
    if headers:
        http_kwargs["headers"] = dict(headers)
    if retry_options is not None:
        http_kwargs["retry_options"] = retry_options
    if api_version:
        http_kwargs["api_version"] = api_version
    http_options = types.HttpOptions(**http_kwargs) if http_kwargs else None
    if use_vertexai:
        return Client(
            vertexai=True,
            api_key=api_key or None,
            credentials=credentials,
            project=project or None,
            location=location or None,
            http_options=http_options,
        )
    return Client(vertexai=False, api_key=api_key or None, http_options=http_options)


def gemini_client_kwargs(
    *,
    api_key: str | None,
    use_vertexai: bool,
    project: str | None,
    location: str | None,
    credentials: Any = None,
) -> dict[str, Any]:
    """The google-genai ``Client`` arguments ADK's ``Gemini`` builds its clients with (``client_kwargs``).

    ADK 2.13 builds one client per event loop from ``client_kwargs`` and adds its own tracking
    headers, ``retry_options``, ``api_version`` and ``base_url`` (the model's field); an overridden
    ``api_client`` would instead pin one client to the model for its lifetime. The Developer API
    takes only the key (the SDK refuses project/location there); Vertex takes project, location
    and credentials (ADC when ``None``) or a key for express mode.
    """
    if not use_vertexai:
        return {"vertexai": False, "api_key": api_key or None}
    return {
        "vertexai": True,
        "api_key": api_key or None,
        "credentials": credentials,
        "project": project or None,
        "location": location or None,
    }


def build_gemini_llm(
    *,
    api_key: str | None,
    use_vertexai: bool,
    project: str | None,
    location: str | None,
    base_url: str | None,
    credentials: Any = None,
    model: str = GEMINI_MODEL,
) -> Gemini:
    """The ADK model LOCAL's agent runs on (``gemini-3.8-flash`` unless told otherwise), its
    google-genai ``Client`` built from these settings (``gemini_client_kwargs``), not the process
    environment.

    The ``Client`` is built lazily, on the first request (one per event loop). ``credentials``
    (optional) are ``google.auth`` credentials for Vertex; without them Vertex uses Application
    Default Credentials, looked up when the first request is sent.
    """
    return Gemini(
        model=model,
        base_url=base_url or None,
        client_kwargs=gemini_client_kwargs(
            api_key=api_key,
            use_vertexai=use_vertexai,
            project=project,
            location=location,
            credentials=credentials,
        ),
    )


def generate_config() -> types.GenerateContentConfig:
    """The agent's ``generate_content_config``: thinking level LOW; temperature left at the model's default (Google's advice for Gemini 3)."""
    return types.GenerateContentConfig(
        thinking_config=types.ThinkingConfig(thinking_level=types.ThinkingLevel.LOW),
    )


# --- token counting -----------------------------------------------------------------------------


def _function_declaration(decl: Mapping[str, Any]) -> types.FunctionDeclaration:
    """A canonical tool dict as the ``FunctionDeclaration`` the router sends: its ``parameters``
    (JSON Schema, as in ``TOOL_DECLARATIONS``) go in as ``parameters_json_schema``, unchanged, as
    ``adk_tools.ContractTool`` declares them."""
    fd = types.FunctionDeclaration.model_validate({k: v for k, v in decl.items() if k != "parameters"})
    if decl.get("parameters") is not None:
        fd.parameters_json_schema = decl["parameters"]
    return fd


def _contents(request: Mapping[str, Any]) -> list[types.Content]:
    return [types.Content.model_validate(dict(c)) for c in request.get("contents") or ()]


def build_count_tokens_request(
    request: Mapping[str, Any], *, vertexai: bool
) -> tuple[list[types.Content], types.CountTokensConfig | None]:
    """``(contents, config)`` for ONE ``models.count_tokens`` call that counts the whole request.

    ``request`` is the canonical request dict: ``system_instruction`` (str), ``tools`` (list of
    FunctionDeclaration JSON dicts), ``contents`` (``[{"role", "parts": [{"text"}]}]``).

    * Vertex: the real contents, with ``system_instruction`` and
      ``tools=[Tool(function_declarations=...)]`` in ``CountTokensConfig`` — the server counts
      them exactly as it would in ``generateContent``.
    * Gemini Developer API: google-genai refuses ``system_instruction``/``tools`` in
      ``count_tokens`` there, so they are carried as text instead: one leading ``user`` content
      whose parts are the system instruction and the canonical JSON of the tool declarations
      (sorted keys, no spaces, non-ASCII as is — the same text ``ByteMeasure`` counts), followed
      by the real contents; ``config`` is ``None``. This counts the same bytes of information as
      text. It is an approximation of how the server counts a system instruction and tool
      declarations, on the high side for tools (JSON punctuation and key names are counted as
      text), plus a few tokens for the extra turn's framing.
    """
    system_instruction = request.get("system_instruction") or ""
    tools = list(request.get("tools") or ())
    contents = _contents(request)
    if vertexai:
        config = types.CountTokensConfig(
            system_instruction=system_instruction or None,
            tools=[types.Tool(function_declarations=[_function_declaration(d) for d in tools])]
            if tools
            else None,
        )
        return contents, config
    lead: list[types.Part] = []
    if system_instruction:
        lead.append(types.Part(text=system_instruction))
    if tools:
        lead.append(types.Part(text=canonical_json({"tools": tools})))
    if lead:
        contents = [types.Content(role="user", parts=lead), *contents]
    return contents, None


class GeminiTokenMeasure:
    """Counts a whole canonical request in Gemini tokens with one ``countTokens`` call.

    Satisfies ``session_budget.Measure``. On Vertex (``client.vertexai``) the system instruction
    and tools go in ``CountTokensConfig``; on the Gemini Developer API they are counted as leading
    user text (see ``build_count_tokens_request``). Errors from the API (``google.genai.errors``)
    propagate; a call that takes longer than ``timeout_s`` raises ``TimeoutError``.
    """

    unit = "tokens"

    def __init__(
        self, client: Client, model: str = GEMINI_MODEL, *, timeout_s: float = COUNT_TOKENS_TIMEOUT_S
    ) -> None:
        if not timeout_s > 0:
            raise ValueError("timeout_s must be > 0")
        self.client = client
        self.model = model
        self.timeout_s = timeout_s

    @classmethod
    def from_settings(
        cls, *, model: str = GEMINI_MODEL, timeout_s: float = COUNT_TOKENS_TIMEOUT_S, **client_settings: Any
    ) -> GeminiTokenMeasure:
        """Same settings as ``build_gemini_llm`` (passed on to ``make_genai_client``)."""
        return cls(make_genai_client(**client_settings), model, timeout_s=timeout_s)

    @property
    def vertexai(self) -> bool:
        return bool(self.client.vertexai)

    async def __call__(self, request: Mapping[str, Any]) -> int:
        contents, config = build_count_tokens_request(request, vertexai=self.vertexai)
        response = await asyncio.wait_for(
            self.client.aio.models.count_tokens(
                # a list of Content is a ContentListUnion; mypy sees list[Content] vs list[ContentUnion]
                model=self.model,
                contents=cast(types.ContentListUnion, contents),
                config=config,
            ),
            timeout=self.timeout_s,
        )
        total = response.total_tokens
        if total is None:
            raise ValueError("countTokens answered without totalTokens")
        return int(total)
