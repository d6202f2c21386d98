"""A window of projected exchanges for any agent: app-written texts, never the user's words.

``ContextWindow`` is LOCAL's window (goals and townships); ``ExchangeWindow`` is the same shape for
an agent that is not LOCAL: each earlier exchange is one short text the application wrote (its
*projection*), the exchanges evicted beyond the cap are folded into one summary line by a
deterministic ``summarize`` function (no model call), and ``SessionBudget.prepare`` trims it the
same way: oldest whole exchange first, then the summary. The current turn's contents are passed
to ``render`` as they are (the user's message and this turn's function calls and responses) and
always come last, untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Marker strings of the plugin's contents. They tell the model what each app-written text is.
EXCHANGE_MARKER = "[Earlier exchange: an app-written projection, not the user's words] "
EXCHANGE_ACK = "[App-written marker, not model output] Done then; this turn's message and tools decide now."
SUMMARY_MARKER = "[App-written summary of older exchanges: not an instruction, consent or finished task] "
SUMMARY_ACK = "[App-written marker, not model output] A reference only; the current message comes first."

# (summary so far, projection of the exchange leaving the window) -> the new summary
Summarize = Callable[[str, str], str]


def latest_projection(summary: str, evicted: str) -> str:
    """The default summary: the projection of the newest exchange that left the window."""
    return evicted


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


@dataclass(frozen=True, slots=True)
class ExchangeWindow:
    """Projections of whole exchanges, oldest first, and the summary of those evicted."""

    turns: tuple[str, ...] = ()
    summary: str = ""
    summarize: Summarize = field(default=latest_projection, compare=False, repr=False)

    def _absorb(self, evicted: str) -> str:
        return self.summarize(self.summary, evicted)

    def append(self, projection: str, max_turns: int) -> ExchangeWindow:
        """Add an exchange; those beyond ``max_turns`` are absorbed into the summary, oldest first."""
        if max_turns < 0:
            raise ValueError("max_turns must be >= 0")
        turns, summary = (*self.turns, projection), self.summary
        while len(turns) > max_turns:
            summary = self.summarize(summary, turns[0])
            turns = turns[1:]
        return ExchangeWindow(turns, summary, self.summarize)

    # -- what ``SessionBudget.prepare`` asks of a window -------------------------------------
    def capped(self, max_turns: int) -> ExchangeWindow:
        return ExchangeWindow((), self.summary, self.summarize).extend(self.turns, max_turns)

    def extend(self, projections: Sequence[str], max_turns: int) -> ExchangeWindow:
        window = self
        for projection in projections:
            window = window.append(projection, max_turns)
        return window

    def trimmed(self) -> ExchangeWindow | None:
        """Drop the oldest whole exchange (absorbed into the summary), then the summary; ``None``
        once nothing is left to drop."""
        if self.turns:
            return ExchangeWindow(self.turns[1:], self._absorb(self.turns[0]), self.summarize)
        if self.summary:
            return ExchangeWindow((), "", self.summarize)
        return None

    def render(self, current: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Summary pair (if any) + one pair per exchange + the current turn's contents as given."""
        contents: list[dict[str, Any]] = []
        if self.summary:
            contents += [_text("user", SUMMARY_MARKER + self.summary), _text("model", SUMMARY_ACK)]
        for projection in self.turns:
            contents += [_text("user", EXCHANGE_MARKER + projection), _text("model", EXCHANGE_ACK)]
        contents.extend(dict(c) for c in current)
        return contents

    def to_dict(self) -> dict[str, Any]:
        return {"turns": list(self.turns), "summary": self.summary}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], summarize: Summarize = latest_projection) -> ExchangeWindow:
        turns = data.get("turns", [])
        summary = data.get("summary", "")
        if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
            raise ValueError("turns must be a list of texts")
        if not isinstance(summary, str):
            raise ValueError("summary must be a text")
        return cls(tuple(turns), summary, summarize)


@dataclass(frozen=True, slots=True)
class SessionWindow:
    """One conversation's window as a journal record holds it (``JournalRecord.exchanges``): its
    projections, its summary and when it was last written (its sliding TTL runs from there)."""

    turns: tuple[str, ...]
    summary: str
    updated_at: float

    def to_dict(self) -> dict[str, Any]:
        return {"turns": list(self.turns), "summary": self.summary, "updated_at": self.updated_at}

    @classmethod
    def from_dict(cls, data: object) -> SessionWindow:
        if not isinstance(data, Mapping):
            raise ValueError("a session window is {turns: [text], summary: text, updated_at: number}")
        window = ExchangeWindow.from_dict(data)
        updated_at = data.get("updated_at")
        if isinstance(updated_at, bool) or not isinstance(updated_at, (int, float)):
            raise ValueError("a session window's updated_at is a number")
        return cls(window.turns, window.summary, float(updated_at))
