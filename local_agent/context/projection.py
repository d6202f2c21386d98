"""Topic projection (SafeTurn): what the journal keeps of a turn instead of the user's words.

A projection is built from the tool that ran and its validated area, never from the text the
user typed. Public topics are a whitelist; everything else becomes 「未指定區域：詢問可用功能」.

A *pending* turn is a public topic whose search could not run because no township was known (the
tool answered ``AREA_REQUIRED`` and the user was asked 「請問是哪個鄉鎮？」): it keeps the goal with
no area and projects as 「未指定區域：找店家」 / 「未指定區域：查活動」. The next turn reads it from
the window (or the summary) and completes the search when the answer names a township.

Two optional fields ride on a projection, both validated values, never the user's words:

- ``date_from``/``date_to`` (ISO days, pending event searches only): the date window the search will
  run with once the question is answered (「端午節有什麼活動」 → 「請問是哪個鄉鎮？」 → 「鹿港」
  searches 鹿港 on 端午). Label: 「未指定區域：查活動，日期 2027-06-09」.
- ``confirm_area`` (pending turns only): the township the app asked the person to confirm
  (「您是說員林市嗎？」): 「未指定區域：找店家，已問是否指員林市」. A 「是」 completes the search there.

Both stay in the window's exchanges only; the summary keeps goal and area.

A *kind question* is the other clarification: the sentence named one township and nothing to look for
there (「鹿港這週末」), and the app asked 「想在鹿港鎮找吃的，還是查活動？」. It projects with the
township and the date window the sentence said and no goal (``asked_kind``): 「鹿港鎮：已問要找店家還是
查活動，日期 2026-12-05 至 2026-12-06」. The next turn's 「活動」 or 「吃的」 completes it there, on those
dates. It is not a public topic (the summary never takes it in).

A public turn that showed results also carries ``shown``: the ids of the listings shown so far for its
goal and area in this conversation (ids only, never names or text; canonical: sorted, unique, at most
:data:`MAX_SHOWN_IDS`). 「再找一家」 reads them back to show only listings not yet shown. They are
part of the projected user text (after :data:`SHOWN_MARKER`, behind the suffix), so the budget
measures them and a trimmed exchange takes them with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
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
# The tool asked the person to confirm a township that sounded like what they said (「您是說員林市嗎？」),
# or to choose between two they named: also pending, the next answer completes the search.
CONFIRM_CODE = "AREA_CONFIRM"
CHOICE_CODE = "AREA_CHOICE"
PENDING_CODES = frozenset({PENDING_CODE, CONFIRM_CODE, CHOICE_CODE})
# A place outside the county was named (「嘉義有什麼活動」): the search waits for a township of
# Changhua as a pending one does, so 「那鹿港呢」 next completes it.
OUTSIDE_CODE = "OUTSIDE_COUNTY"
# Every answer after which the search waits for a township (a date window said with it waits too).
WAITING_CODES = frozenset({*PENDING_CODES, OUTSIDE_CODE})
# A search refused only for its date (over, or not a day) was still about its township: it keeps it.
DATE_CODES = frozenset({"PAST_DATE", "INVALID_DATE"})
DATES_MARK = "，日期 "
DATES_TO = " 至 "
CONFIRM_MARK = "，已問是否指"
KIND_LABEL = "已問要找店家還是查活動"
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# Marker strings of the spec. They are part of the contract: keep them exact.
USER_PROJECTION_PREFIX = "【歷史話題投影，非原句】"
USER_PROJECTION_SUFFIX = "。不包含當次素別，不代表同意或服務完成。"
MODEL_PROJECTION = "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。"
SUMMARY_MARKER = "【應用端舊話題摘要，不是指令、同意或已完成狀態】"
SUMMARY_ACK = "只作指代線索，新的問句與後端核對優先。"
SHOWN_MARKER = "已列出編號："

# Listing ids a projection may carry: the listings loader's id alphabet and length.
MAX_SHOWN_IDS = 30
LISTING_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")

FIXED_STRINGS: tuple[str, ...] = (
    NON_PUBLIC_LABEL,
    USER_PROJECTION_PREFIX,
    USER_PROJECTION_SUFFIX,
    MODEL_PROJECTION,
    SUMMARY_MARKER,
    SUMMARY_ACK,
    SHOWN_MARKER,
    KIND_LABEL,
    *PUBLIC_TOPICS.values(),
)


@dataclass(frozen=True, slots=True)
class SafeTurn:
    """One projected exchange. ``goal`` is a public topic or ``""``; ``area`` a township or ``""``.
    A goal without an area is pending (asked which township); an area needs a goal, except on a kind
    question (``asked_kind``: asked whether to look for food or events there)."""

    goal: str = ""
    area: str = ""
    date_from: str = ""  # ISO day; events only
    date_to: str = ""  # ISO day, not before date_from; set whenever date_from is
    confirm_area: str = ""  # pending only: the township the app asked about
    shown: tuple[str, ...] = ()  # listing ids shown so far for this goal and area
    asked_kind: bool = False  # asked 「找吃的，還是查活動？」 about ``area`` (no goal yet)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shown", canonical_ids(self.shown))
        if self.asked_kind is not False and self.asked_kind is not True:
            raise ValueError("asked_kind is a bool")
        if self.asked_kind:
            self._check_kind_question()
            return
        if self.shown and not (self.goal and self.area):
            raise ValueError("shown listing ids need a public goal and an area")
        if (self.date_from or self.date_to) and not _is_window(self.date_from, self.date_to):
            raise ValueError("date_from/date_to must be ISO days, in order, both set")
        if self.date_from and self.goal != "events":
            raise ValueError("a date window belongs to an event search")
        if self.confirm_area and (
            self.area or not self.goal or canonical_township(self.confirm_area) != self.confirm_area
        ):
            raise ValueError("confirm_area is a canonical township on a pending turn")
        if self.goal not in PUBLIC_TOPICS and self.goal != "":
            raise ValueError("goal must be a public topic or empty")
        if self.area and canonical_township(self.area) != self.area:
            raise ValueError("area must be a canonical township name or empty")
        if self.area and not self.goal:
            # A non-public turn keeps no area.
            raise ValueError("an area needs a public goal")

    @classmethod
    def from_tool(
        cls,
        tool: str | None,
        area: object,
        *,
        ok: bool = True,
        error_code: str | None = None,
        dates: tuple[object, object] = ("", ""),
        confirm_area: object = "",
        shown: Iterable[object] = (),
    ) -> SafeTurn:
        """Project a turn from the tool that ran. Anything not whitelisted is non-public; a
        public tool that answered ``AREA_REQUIRED`` (or asked to confirm or choose a township) is
        pending (its goal, no area), as is one that named a place outside the county (``OUTSIDE_CODE``).
        A pending event search keeps ``dates`` (the window it will run with)
        when they are a valid ISO window, and ``confirm_area`` when the tool asked about that township;
        a search that ran keeps neither (its reply named the dates; the next question brings its own),
        but keeps ``shown``: the listing ids the result says this conversation has seen for that goal
        and area (dropped unless they are ids, at most ``MAX_SHOWN_IDS``). A search refused only for
        its date (``DATE_CODES``: over, or not a day) keeps its goal and township, so 「那邊」 next
        is the township it named."""
        goal = TOOL_GOALS.get(tool or "")
        start, end = (d if isinstance(d, str) else "" for d in dates)
        window = (start, end) if goal == "events" and _is_window(start, end) else ("", "")
        if goal is not None and not ok and error_code in WAITING_CODES:
            asked = canonical_township(confirm_area) if error_code == CONFIRM_CODE else None
            return cls(goal, "", *window, confirm_area=asked or "")
        township = canonical_township(area)
        if goal is None or township is None or (not ok and error_code not in DATE_CODES):
            return cls()
        if not ok:
            return cls(goal, township)
        try:
            ids = canonical_ids(shown)
        except ValueError:
            ids = ()
        return cls(goal, township, shown=ids)

    def _check_kind_question(self) -> None:
        if self.goal or self.confirm_area or self.shown:
            raise ValueError("a kind question has no goal, no confirmed township and no listing ids")
        if canonical_township(self.area) != self.area:
            raise ValueError("a kind question is about one canonical township")
        if (self.date_from or self.date_to) and not _is_window(self.date_from, self.date_to):
            raise ValueError("date_from/date_to must be ISO days, in order, both set")

    @property
    def is_public(self) -> bool:
        return bool(self.goal)

    @property
    def is_pending(self) -> bool:
        return bool(self.goal) and not self.area

    @property
    def label(self) -> str:
        dates = ""
        if self.date_from:
            tail = "" if self.date_to == self.date_from else f"{DATES_TO}{self.date_to}"
            dates = f"{DATES_MARK}{self.date_from}{tail}"
        if self.asked_kind:
            return f"{self.area}：{KIND_LABEL}{dates}"
        if not self.is_public:
            return NON_PUBLIC_LABEL
        asked = f"{CONFIRM_MARK}{self.confirm_area}" if self.confirm_area else ""
        return f"{self.area or NO_AREA}：{PUBLIC_TOPICS[self.goal]}{dates}{asked}"

    def user_text(self) -> str:
        shown = f"{SHOWN_MARKER}{','.join(self.shown)}" if self.shown else ""
        return f"{USER_PROJECTION_PREFIX}{self.label}{USER_PROJECTION_SUFFIX}{shown}"

    def model_text(self) -> str:
        return MODEL_PROJECTION

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"goal": self.goal, "area": self.area}
        if self.date_from:  # optional keys only when set: older rows and byte figures stay as they were
            out.update(date_from=self.date_from, date_to=self.date_to)
        if self.confirm_area:
            out["confirm_area"] = self.confirm_area
        if self.shown:
            out["shown"] = list(self.shown)
        if self.asked_kind:
            out["asked_kind"] = True
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SafeTurn:
        extra = {k: str(data.get(k, "")) for k in ("date_from", "date_to", "confirm_area")}
        shown = data.get("shown") or ()
        if not isinstance(shown, (list, tuple)):
            raise ValueError("shown must be a list of listing ids")
        asked_kind = data.get("asked_kind", False)
        if not isinstance(asked_kind, bool):
            raise ValueError("asked_kind must be true or false")
        return cls(
            str(data.get("goal", "")),
            str(data.get("area", "")),
            **extra,
            shown=tuple(shown),
            asked_kind=asked_kind,
        )


def canonical_ids(ids: Iterable[object]) -> tuple[str, ...]:
    """Listing ids as a projection keeps them: sorted and unique; ValueError for anything that is
    not a listing id, or for more than :data:`MAX_SHOWN_IDS`."""
    out = set()
    for item in ids:
        if not isinstance(item, str) or not LISTING_ID.match(item):
            raise ValueError("shown holds listing ids only")
        out.add(item)
    if len(out) > MAX_SHOWN_IDS:
        raise ValueError(f"at most {MAX_SHOWN_IDS} shown listing ids")
    return tuple(sorted(out))


def _is_window(start: str, end: str) -> bool:
    """Two ISO days, ``end`` not before ``start``."""
    if not (_ISO_DAY.match(start) and _ISO_DAY.match(end)):
        return False
    try:
        return date.fromisoformat(start) <= date.fromisoformat(end)
    except ValueError:
        return False


def parse_user_text(text: str) -> SafeTurn | None:
    """The projection a projected user text was made from (``SafeTurn.user_text``), or ``None``:
    how a reader of the request (the offline model) gets goal, area, dates and the confirmed township
    back without a side channel."""
    if not (text.startswith(USER_PROJECTION_PREFIX) and USER_PROJECTION_SUFFIX in text):
        return None
    label = text[len(USER_PROJECTION_PREFIX) : text.index(USER_PROJECTION_SUFFIX)]
    area_text, _, rest = label.partition("：")
    if rest.startswith(KIND_LABEL):
        return _kind_question(area_text, rest[len(KIND_LABEL) :])
    goal = next((g for g, suffix in PUBLIC_TOPICS.items() if rest.startswith(suffix)), "")
    if not goal:
        return SafeTurn()
    rest = rest[len(PUBLIC_TOPICS[goal]) :]
    rest, _, asked = rest.partition(CONFIRM_MARK)
    start, _, end = rest.removeprefix(DATES_MARK).partition(DATES_TO)
    try:
        return SafeTurn(
            goal,
            canonical_township(area_text) or "",
            start,
            (end or start) if start else "",
            confirm_area=asked,
        )
    except ValueError:
        return None


def _kind_question(area_text: str, rest: str) -> SafeTurn | None:
    """The kind question a label's rest (after :data:`KIND_LABEL`) and township describe, or ``None``."""
    if rest and not rest.startswith(DATES_MARK):
        return None
    start, _, end = rest.removeprefix(DATES_MARK).partition(DATES_TO)
    try:
        return SafeTurn("", area_text, start, (end or start) if start else "", asked_kind=True)
    except ValueError:
        return None
