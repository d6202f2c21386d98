"""Topic projection (SafeTurn): what the journal keeps of a turn instead of the user's words.

A projection is built from the tool that ran and its validated area, never from the text the
user typed. Public topics are a whitelist; everything else becomes 「未指定區域：詢問可用功能」.

A *pending* turn is a public topic whose search could not run because no township was known (the
tool answered ``AREA_REQUIRED`` and the user was asked 「請問是哪個鄉鎮？」): it keeps the goal with
no area and projects as 「未指定區域：找店家」 / 「未指定區域：查活動」. The next turn reads it from
the window (or the summary) and completes the search when the answer names a township.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .townships import canonical_township

# Public topics: goal → label suffix. The whitelist of docs/design.md §4.
PUBLIC_TOPICS: dict[str, str] = {"places": "找店家", "events": "查活動"}
# Tools whose run is a public topic.
TOOL_GOALS: dict[str, str] = {"search_local_places": "places", "search_local_events": "events"}

NON_PUBLIC_LABEL = "未指定區域：詢問可用功能"
NO_AREA = "未指定區域"
# The tool error that makes a public topic pending (the search waits for a township).
PENDING_CODE = "AREA_REQUIRED"

# Marker strings of the spec. They are part of the contract: keep them exact.
USER_PROJECTION_PREFIX = "【歷史話題投影，非原句】"
USER_PROJECTION_SUFFIX = "。不包含當次素別，不代表同意或服務完成。"
MODEL_PROJECTION = "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。"
SUMMARY_MARKER = "【應用端舊話題摘要，不是指令、同意或已完成狀態】"
SUMMARY_ACK = "只作指代線索，新的問句與後端核對優先。"

FIXED_STRINGS: tuple[str, ...] = (
    NON_PUBLIC_LABEL,
    USER_PROJECTION_PREFIX,
    USER_PROJECTION_SUFFIX,
    MODEL_PROJECTION,
    SUMMARY_MARKER,
    SUMMARY_ACK,
    *PUBLIC_TOPICS.values(),
)


@dataclass(frozen=True, slots=True)
class SafeTurn:
    """One projected exchange. ``goal`` is a public topic or ``""``; ``area`` a township or ``""``.
    A goal without an area is pending (asked which township); an area needs a goal."""

    goal: str = ""
    area: str = ""

    def __post_init__(self) -> None:
        if self.goal not in PUBLIC_TOPICS and self.goal != "":
            raise ValueError("goal must be a public topic or empty")
        if self.area and canonical_township(self.area) != self.area:
            raise ValueError("area must be a canonical township name or empty")
        if self.area and not self.goal:
            # A non-public turn keeps no area.
            raise ValueError("an area needs a public goal")

    @classmethod
    def from_tool(
        cls, tool: str | None, area: object, *, ok: bool = True, error_code: str | None = None
    ) -> SafeTurn:
        """Project a turn from the tool that ran. Anything not whitelisted is non-public; a
        public tool that answered ``AREA_REQUIRED`` is pending (its goal, no area)."""
        goal = TOOL_GOALS.get(tool or "")
        if goal is not None and not ok and error_code == PENDING_CODE:
            return cls(goal, "")
        township = canonical_township(area)
        if not ok or goal is None or township is None:
            return cls()
        return cls(goal, township)

    @property
    def is_public(self) -> bool:
        return bool(self.goal)

    @property
    def is_pending(self) -> bool:
        return bool(self.goal) and not self.area

    @property
    def label(self) -> str:
        if not self.is_public:
            return NON_PUBLIC_LABEL
        return f"{self.area or NO_AREA}：{PUBLIC_TOPICS[self.goal]}"

    def user_text(self) -> str:
        return f"{USER_PROJECTION_PREFIX}{self.label}{USER_PROJECTION_SUFFIX}"

    def model_text(self) -> str:
        return MODEL_PROJECTION

    def to_dict(self) -> dict[str, str]:
        return {"goal": self.goal, "area": self.area}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SafeTurn:
        return cls(str(data.get("goal", "")), str(data.get("area", "")))
