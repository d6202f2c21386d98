"""The sample agent: one tool (``get_weather``, a lookup in a local table) and a scripted model.

``build_app`` makes the same ``LlmAgent`` three ways: on ADK's default session, with ADK's
``EventsCompactionConfig``, or with ``BoundedContextPlugin``. ``ScriptedWeatherModel`` is the
offline stand-in for Gemini: it reads only its request (a city named in the last user text → a
``get_weather`` call; a function response → one sentence from it) and records every request in
the canonical form the plugin measures.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any, Literal

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types
from pydantic import Field

from local_agent.plugin import content_dict, request_envelope

APP_NAME = "weather"
INSTRUCTION = (
    "You answer questions about today's weather in a city. Call get_weather with the city's "
    "name as the user wrote it; answer in one sentence from its result. If no city is named, ask which."
)
WEATHER: dict[str, dict[str, Any]] = {
    "Taipei": {"sky": "light rain", "high_c": 24, "low_c": 19},
    "Taichung": {"sky": "sunny", "high_c": 29, "low_c": 21},
    "Tainan": {"sky": "sunny", "high_c": 31, "low_c": 23},
    "Kaohsiung": {"sky": "humid, clouds", "high_c": 31, "low_c": 25},
    "Hualien": {"sky": "showers", "high_c": 26, "low_c": 21},
    "Changhua": {"sky": "windy, clear", "high_c": 28, "low_c": 20},
}
# The tool's declaration lists the cities (an enum), so the plugin's default projection may keep
# the city: a value from a closed list, never the user's free text.
City = Literal["Changhua", "Hualien", "Kaohsiung", "Taichung", "Tainan", "Taipei"]
ASK_CITY = "Which city would you like the weather for?"
STANDIN_SUMMARY = "[stand-in summary: a fixed text, not written by a model] The user asked about weather."
COMPACTION_INTERVAL, COMPACTION_OVERLAP = 3, 1  # the values of ADK's own documentation example


def get_weather(city: City) -> dict[str, Any]:
    """Today's weather for a city in the local table.

    Args:
        city: the city, one of the cities in the table.
    """
    found = next((name for name in WEATHER if name.lower() == city.strip().lower()), None)
    if found is None:
        return {"status": "error", "code": "UNKNOWN_CITY", "known": sorted(WEATHER)}
    return {"status": "ok", "city": found, **WEATHER[found]}


def canonical(llm_request: LlmRequest) -> dict[str, Any]:
    """A request as the plugin measures it: system instruction + tools + contents."""
    return {**request_envelope(llm_request), "contents": [content_dict(c) for c in llm_request.contents]}


def _reply(response: types.FunctionResponse) -> str:
    result = response.response or {}
    if result.get("status") != "ok":
        return "I only know the weather for " + ", ".join(result.get("known", [])) + "."
    return f"{result['city']}: {result['sky']}, {result['low_c']}–{result['high_c']} °C."


class ScriptedWeatherModel(BaseLlm):
    """Offline stand-in for the model; records each request (``record=False`` for timing runs)."""

    model: str = "scripted-weather"
    record: bool = True
    sent: list[dict[str, Any]] = Field(default_factory=list)
    calls: int = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.calls += 1
        if self.record:
            self.sent.append(canonical(llm_request))
        last = llm_request.contents[-1] if llm_request.contents else types.Content(role="user", parts=[])
        responses = [p.function_response for p in last.parts or [] if p.function_response]
        if responses:
            part = types.Part(text=_reply(responses[-1]))
        else:
            text = "".join(p.text or "" for p in last.parts or [])
            city = next((name for name in WEATHER if name.lower() in text.lower()), None)
            call = types.FunctionCall(name="get_weather", args={"city": city}) if city else None
            part = types.Part(function_call=call) if call else types.Part(text=ASK_CITY)
        yield LlmResponse(content=types.Content(role="model", parts=[part]), turn_complete=True)


class CountingSummarizer(BaseLlm):
    """Stand-in for ADK compaction's summarizer model: counts its calls, answers a fixed text."""

    model: str = "scripted-summarizer"
    summary: str = STANDIN_SUMMARY
    sent: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.sent.append(canonical(llm_request))
        content = types.Content(role="model", parts=[types.Part(text=self.summary)])
        yield LlmResponse(content=content, turn_complete=True)


def build_agent(model: BaseLlm | str) -> LlmAgent:
    return LlmAgent(name="weather_agent", model=model, instruction=INSTRUCTION, tools=[get_weather])


def build_app(
    model: BaseLlm | str,
    *,
    plugins: Sequence[BasePlugin] = (),
    summarizer: BaseLlm | None = None,
) -> App:
    """The sample app: ADK's default (no arguments), with compaction (``summarizer``), or with plugins."""
    compaction = None
    if summarizer is not None:
        compaction = EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=summarizer),
            compaction_interval=COMPACTION_INTERVAL,
            overlap_size=COMPACTION_OVERLAP,
        )
    return App(
        name=APP_NAME,
        root_agent=build_agent(model),
        plugins=list(plugins),
        events_compaction_config=compaction,
    )


_OPENERS = (
    "Good morning! What is the weather in {city} today? I want to walk to the market with my grandson ({n})",
    "hmm and {city}? my sister lives there and she always says it rains, turn {n}",
    "what should I wear, I do not know, just asking, turn number {n}",
    "Sorry, I typed with my voice. Is it hot in {city} now, should I bring an umbrella (turn {n})",
    "Thank you dear. Tell me the weather for {city}, we may drive there on Sunday, message {n}",
)


def conversation(turns: int) -> list[str]:
    """``turns`` user messages, each distinct (its number in it), about six cities in turn; the
    third of every five names no city (the model asks which)."""
    cities = sorted(WEATHER)
    return [_OPENERS[i % len(_OPENERS)].format(city=cities[i % len(cities)], n=i + 1) for i in range(turns)]
