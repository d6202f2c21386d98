"""ContextWindow (at most two whole projected exchanges) and ContextSummary (goal + area)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .projection import PUBLIC_TOPICS, SUMMARY_ACK, SUMMARY_MARKER, SafeTurn
from .townships import canonical_township

DEFAULT_MAX_TURNS = 2


@dataclass(frozen=True, slots=True)
class ContextSummary:
    """What is left of evicted exchanges: the latest public goal and the last known area.

    ``absorb`` is deterministic and calls no model: a public turn sets the goal and the area;
    a non-public turn keeps the previous area (and goal). A pending turn (goal, no area) sets
    its goal with no area when no area is known: the summary then says a township question is
    still open; a known area is kept instead (a clue is never erased by a question).
    """

    goal: str = ""
    area: str = ""

    def __post_init__(self) -> None:
        if self.goal and self.goal not in PUBLIC_TOPICS:
            raise ValueError("summary goal must be a public topic or empty")
        if self.area and canonical_township(self.area) != self.area:
            raise ValueError("summary area must be a canonical township name or empty")

    def absorb(self, turn: SafeTurn) -> ContextSummary:
        if not turn.is_public:
            return self
        if turn.is_pending and self.area:
            return self  # a pending question never erases a known area (the reference clue)
        return ContextSummary(turn.goal, turn.area)

    @property
    def is_empty(self) -> bool:
        return not self.goal and not self.area

    def to_json(self) -> str:
        """Canonical one-line JSON, keys sorted: ``{"area": "花壇鄉", "goal": "events"}``."""
        return json.dumps({"area": self.area, "goal": self.goal}, ensure_ascii=False, sort_keys=True)

    def to_dict(self) -> dict[str, str]:
        return {"goal": self.goal, "area": self.area}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ContextSummary:
        data = data or {}
        return cls(str(data.get("goal", "")), str(data.get("area", "")))


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """Whole projected exchanges, oldest first, plus the summary of those evicted."""

    turns: tuple[SafeTurn, ...] = ()
    summary: ContextSummary = ContextSummary()

    def append(self, turn: SafeTurn, max_turns: int = DEFAULT_MAX_TURNS) -> ContextWindow:
        """Add a turn; exchanges beyond ``max_turns`` are absorbed into the summary, oldest first."""
        if max_turns < 0:
            raise ValueError("max_turns must be >= 0")
        turns = (*self.turns, turn)
        summary = self.summary
        while len(turns) > max_turns:
            summary = summary.absorb(turns[0])
            turns = turns[1:]
        return ContextWindow(turns, summary)

    def to_dict(self) -> dict[str, Any]:
        return {"turns": [t.to_dict() for t in self.turns], "summary": self.summary.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ContextWindow:
        data = data or {}
        turns = tuple(SafeTurn.from_dict(t) for t in data.get("turns", ()))
        return cls(turns, ContextSummary.from_dict(data.get("summary")))

    def labels(self) -> list[str]:
        return [t.label for t in self.turns]

    # -- what ``SessionBudget.prepare`` asks of a window (``session_budget.BudgetWindow``) --------
    def capped(self, max_turns: int) -> ContextWindow:
        """The newest ``max_turns`` exchanges; older ones absorbed into the summary."""
        kept = ContextWindow((), self.summary)
        for turn in self.turns:
            kept = kept.append(turn, max_turns)
        return kept

    def trimmed(self) -> ContextWindow | None:
        return trim_oldest(self)

    def render(self, current: str) -> list[dict[str, Any]]:
        return render_contents(self, current)


EMPTY_WINDOW = ContextWindow()


def trim_oldest(window: ContextWindow) -> ContextWindow | None:
    """One step of budget degradation, or ``None`` when nothing is left to drop.

    Drops the oldest whole exchange (absorbing it, so its clue survives in the summary line);
    once no exchange is left, drops the summary.
    """
    if window.turns:
        return ContextWindow(window.turns[1:], window.summary.absorb(window.turns[0]))
    if not window.summary.is_empty:
        return ContextWindow((), ContextSummary())
    return None


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
