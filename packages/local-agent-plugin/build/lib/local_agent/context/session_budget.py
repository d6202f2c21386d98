"""The budget gate: assemble the request from the window and measure the whole of it.

``SessionBudget.prepare`` keeps the newest two exchanges, measures rules + tool contract +
contents, and while over the limit drops the oldest whole exchange, then the summary. If the
rules, the tools and the current question alone do not fit it refuses with
``CURRENT_AND_RULES_EXCEED_INPUT_BUDGET``: it never cuts rules, tools or the question.

**The bytes bound (skip countTokens when it cannot matter).** ``BytesBoundMeasure`` wraps a token
measure (Gemini ``countTokens``) and answers without calling it when the request's canonical UTF-8
byte length proves the request fits:

* Gemini uses a SentencePiece vocabulary with byte fallback (published for Gemini 2.0 and the
  Gemma 3 models that share it; identity normalisation, so text is not expanded before it is cut): every token is either a vocabulary piece (one or more whole characters, so at
  least one UTF-8 byte of the text) or a byte-fallback token (exactly one byte). So a text of *b*
  UTF-8 bytes is at most *b* tokens.
* What the canonical JSON adds around the texts pays for the model's framing: each content costs
  ``{"parts":[{"text":""}],"role":"user"}`` = 36 bytes against a handful of turn-marker tokens;
  the system instruction and the tool declarations are counted in full, with their keys, quotes
  and braces. How the server renders declarations for the model is not published: that is the
  one assumption (its rendering is no longer than their JSON), and what the factor is for.
* Hence tokens <= bytes. With a safety ``factor`` f in (0, 1] the measure assumes only that a
  token covers at least f bytes on average, so tokens <= ceil(bytes / f). When that bound is
  within the limit it is returned as the figure (``measured_by = "bytes-bound"``): the count the
  budget compares is an upper bound, never an estimate from below. Above it the real counter is
  called (``measured_by = "countTokens"``) and trimming works on real counts as before.
  f = 1.0 is the proven bound and the default; f = 0 means "always count"; f > 1 would assume
  tokens longer than the proof allows, so it is refused. The bound uses the same canonical JSON
  as ``ByteMeasure``, so the offline and online figures are comparable.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, Self, TypeVar, runtime_checkable

from .canonical import canonical_json, canonical_size
from .errors import BudgetExceeded, CounterUnitMismatch, InvalidCounterResult
from .window import DEFAULT_MAX_TURNS
from .window import render_contents as render_contents
from .window import text_content as text_content

UNITS = ("bytes", "tokens")
# How a figure was obtained (snapshots and the replay record it).
MeasuredBy = Literal["bytes", "bytes-bound", "countTokens"]
MEASURED_BY_BYTES: MeasuredBy = "bytes"  # UTF-8 bytes of the canonical request (offline unit)
MEASURED_BY_BYTES_BOUND: MeasuredBy = "bytes-bound"  # an upper bound in tokens from the byte length
MEASURED_BY_COUNT_TOKENS: MeasuredBy = "countTokens"  # the model's own counter


@runtime_checkable
class Measure(Protocol):
    """Counts a whole request. ``unit`` is ``"bytes"`` or ``"tokens"``."""

    unit: str

    def __call__(self, request: Mapping[str, Any]) -> Awaitable[int]: ...


@dataclass(frozen=True)
class Measurement:
    """One figure and how it was obtained (``MEASURED_BY_*``)."""

    count: int
    measured_by: MeasuredBy


class ByteMeasure:
    """Offline measure: UTF-8 bytes of the canonical JSON of the whole request."""

    unit = "bytes"

    async def __call__(self, request: Mapping[str, Any]) -> int:
        return self.sync(request)

    def sync(self, request: Mapping[str, Any]) -> int:
        return len(canonical_json(request).encode("utf-8"))


class BytesBoundMeasure:
    """A token measure that calls ``inner`` only when the byte bound cannot show the request fits.

    See the module docstring for the argument. ``limit`` is the budget's limit in tokens;
    ``factor`` is in [0, 1] (1.0 = the proven bound, 0 = always call ``inner``). Stateless, so one
    instance serves concurrent turns. Whatever ``inner`` raises (an API error, a timeout)
    propagates: the request is never sent unmeasured.
    """

    unit = "tokens"

    def __init__(self, inner: Measure, *, limit: int, factor: float = 1.0) -> None:
        if inner.unit != "tokens":
            raise ValueError("the bytes bound wraps a measure that counts tokens")
        if type(limit) is not int or limit < 0:
            raise ValueError("limit must be a non-negative int")
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0.0 <= factor <= 1.0:
            raise ValueError("factor must be a number in [0, 1]: 1.0 is the proven bound, above it is unsafe")
        self.inner, self.limit, self.factor = inner, limit, float(factor)

    def bound(self, request: Mapping[str, Any]) -> int | None:
        """The upper bound in tokens from the byte length, or None when the factor is 0."""
        if self.factor == 0.0:
            return None
        return math.ceil(canonical_size(request) / self.factor)

    async def __call__(self, request: Mapping[str, Any]) -> int:
        return (await self.measured(request)).count

    async def measured(self, request: Mapping[str, Any]) -> Measurement:
        bound = self.bound(request)
        if bound is not None and bound <= self.limit:
            return Measurement(bound, MEASURED_BY_BYTES_BOUND)
        return Measurement(await self.inner(request), MEASURED_BY_COUNT_TOKENS)


async def measure_request(measure: Measure, request: Mapping[str, Any]) -> Measurement:
    """``measure``'s figure for ``request`` and how it was obtained: ``BytesBoundMeasure`` says;
    any other measure counted in its unit (bytes, or tokens by the model's counter). A plain class
    check: ``isinstance`` against a runtime protocol costs more than the byte measure itself."""
    if isinstance(measure, BytesBoundMeasure):
        return await measure.measured(request)
    count = await measure(request)
    return Measurement(count, MEASURED_BY_BYTES if measure.unit == "bytes" else MEASURED_BY_COUNT_TOKENS)


def build_envelope(system_instruction: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Rules and tool contract: the part of the request that is never trimmed."""
    return {"system_instruction": system_instruction, "tools": list(tools)}


class BudgetWindow(Protocol):
    """What the budget needs of a window of projected exchanges: LOCAL's ``ContextWindow``, or the
    ADK plugin's ``exchanges.ExchangeWindow``. ``render`` puts the summary pair, the exchanges and
    the current message (a text, or contents kept verbatim) in model-contents form."""

    @property
    def turns(self) -> Sequence[object]: ...

    def capped(self, max_turns: int) -> Self: ...

    def trimmed(self) -> Self | None: ...

    def render(self, current: Any) -> list[dict[str, Any]]: ...


W = TypeVar("W", bound=BudgetWindow)


@dataclass(frozen=True)
class BudgetResult(Generic[W]):
    request: dict[str, Any]
    kept: W
    count: int
    unit: str
    counts: tuple[int, ...]
    dropped_turns: int
    summary_dropped: bool
    measured_by: MeasuredBy = MEASURED_BY_BYTES  # how ``count`` was obtained
    measured: tuple[MeasuredBy, ...] = ()  # the same for each of ``counts``

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
        window: W,
        current: Any,
        envelope: Mapping[str, Any],
        measure: Measure,
    ) -> BudgetResult[W]:
        actual_unit = getattr(measure, "unit", None)
        if actual_unit != self.unit:
            raise CounterUnitMismatch(expected=self.unit, actual=actual_unit)
        kept = window.capped(self.max_turns)
        capped_drops = len(window.turns) - len(kept.turns)
        summary_dropped = False
        counts: list[int] = []
        measured: list[MeasuredBy] = []
        while True:
            request = {**envelope, "contents": kept.render(current)}
            figure = await measure_request(measure, request)
            count = figure.count
            if type(count) is not int:
                raise InvalidCounterResult(value_type=type(count).__name__)
            if count < 0:
                raise InvalidCounterResult(value_type="int", negative=True)
            counts.append(count)
            measured.append(figure.measured_by)
            if count <= self.limit:
                return BudgetResult(
                    request=request,
                    kept=kept,
                    count=count,
                    unit=self.unit,
                    counts=tuple(counts),
                    dropped_turns=len(window.turns) - len(kept.turns) - capped_drops,
                    summary_dropped=summary_dropped,
                    measured_by=figure.measured_by,
                    measured=tuple(measured),
                )
            trimmed = kept.trimmed()
            if trimmed is None:
                raise BudgetExceeded(limit=self.limit, count=count, unit=self.unit)
            if not trimmed.turns and not kept.turns:
                summary_dropped = True
            kept = trimmed
