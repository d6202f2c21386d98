"""The budget gate: assemble the request from the window and measure the whole of it.

``SessionBudget.prepare`` keeps the newest two exchanges, measures rules + tool contract +
contents, and while over the limit drops the oldest whole exchange, then the summary. If the
rules, the tools and the current question alone do not fit it refuses with
``CURRENT_AND_RULES_EXCEED_INPUT_BUDGET``: it never cuts rules, tools or the question.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .canonical import canonical_json
from .errors import BudgetExceeded, CounterUnitMismatch, InvalidCounterResult
from .projection import SUMMARY_ACK, SUMMARY_MARKER
from .window import DEFAULT_MAX_TURNS, ContextWindow, trim_oldest

UNITS = ("bytes", "tokens")


@runtime_checkable
class Measure(Protocol):
    """Counts a whole request. ``unit`` is ``"bytes"`` or ``"tokens"``."""

    unit: str

    def __call__(self, request: Mapping[str, Any]) -> Awaitable[int]: ...


class ByteMeasure:
    """Offline measure: UTF-8 bytes of the canonical JSON of the whole request."""

    unit = "bytes"

    async def __call__(self, request: Mapping[str, Any]) -> int:
        return self.sync(request)

    def sync(self, request: Mapping[str, Any]) -> int:
        return len(canonical_json(request).encode("utf-8"))


def text_content(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def render_contents(window: ContextWindow, current: str) -> list[dict[str, Any]]:
    """Summary pair (if any) + projected exchanges + the current user text, as model contents."""
    contents: list[dict[str, Any]] = []
    if not window.summary.is_empty:
        contents.append(text_content("user", SUMMARY_MARKER + window.summary.to_json()))
        contents.append(text_content("model", SUMMARY_ACK))
    for turn in window.turns:
        contents.append(text_content("user", turn.user_text()))
        contents.append(text_content("model", turn.model_text()))
    contents.append(text_content("user", current))
    return contents


def build_envelope(system_instruction: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Rules and tool contract: the part of the request that is never trimmed."""
    return {"system_instruction": system_instruction, "tools": list(tools)}


@dataclass(frozen=True)
class BudgetResult:
    request: dict[str, Any]
    kept: ContextWindow
    count: int
    unit: str
    counts: tuple[int, ...]
    dropped_turns: int
    summary_dropped: bool

    @property
    def contents(self) -> list[dict[str, Any]]:
        contents: list[dict[str, Any]] = self.request["contents"]
        return contents


MeasureFn = Callable[[Mapping[str, Any]], Awaitable[int]]


class SessionBudget:
    """A per-request input budget in one unit, with the window's turn cap."""

    def __init__(self, *, limit: int, unit: str = "bytes", max_turns: int = DEFAULT_MAX_TURNS) -> None:
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}")
        if type(limit) is not int or limit < 0:
            raise ValueError("limit must be a non-negative int")
        if type(max_turns) is not int or max_turns < 0:
            raise ValueError("max_turns must be a non-negative int")
        self.limit, self.unit, self.max_turns = limit, unit, max_turns

    async def prepare(
        self,
        window: ContextWindow,
        current: str,
        envelope: Mapping[str, Any],
        measure: Measure,
    ) -> BudgetResult:
        actual_unit = getattr(measure, "unit", None)
        if actual_unit != self.unit:
            raise CounterUnitMismatch(expected=self.unit, actual=actual_unit)
        kept = ContextWindow((), window.summary)
        for turn in window.turns:
            kept = kept.append(turn, self.max_turns)
        capped_drops = len(window.turns) - len(kept.turns)
        summary_dropped = False
        counts: list[int] = []
        while True:
            request = {**envelope, "contents": render_contents(kept, current)}
            count = await measure(request)
            if type(count) is not int:
                raise InvalidCounterResult(value_type=type(count).__name__)
            if count < 0:
                raise InvalidCounterResult(value_type="int", negative=True)
            counts.append(count)
            if count <= self.limit:
                return BudgetResult(
                    request=request,
                    kept=kept,
                    count=count,
                    unit=self.unit,
                    counts=tuple(counts),
                    dropped_turns=len(window.turns) - len(kept.turns) - capped_drops,
                    summary_dropped=summary_dropped,
                )
            trimmed = trim_oldest(kept)
            if trimmed is None:
                raise BudgetExceeded(limit=self.limit, count=count, unit=self.unit)
            if not trimmed.turns and not kept.turns:
                summary_dropped = True
            kept = trimmed
