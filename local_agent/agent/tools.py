"""TurnTools: the two search tools, with consented memory injected at execution time, and the
preference tool, which only proposes.

Effective arguments: an explicit value in the call > a diet the current sentence states (「今天不吃素」)
> the consented preference read from the store at this moment (1:1 chats only) > ``any``. Every execution writes an audit row. Bad input returns a
structured error the caller can show; these functions do not raise for it.

``manage_preference`` never writes a preference: it checks what the model proposed (an action, and
for ``remember`` a diet the user named in this very message) and returns it; the router then
answers with the same consent prompt, forget confirmation or "what is kept" answer as the
code-matched commands (docs/design.md §9).

``more=true`` (「再找一家」「還有嗎」「換一家」) lists only what this conversation has not been shown
yet: the listing ids the turn's window carries for the same goal and township (``shown_before``,
from the exchanges the budget kept). Every ok result carries ``shown`` (those ids and the new ones:
what the turn projects), ``more_left`` (how many further results remain) and what the reply may
offer next (``other_goal``: the township has listings of the other kind; ``suggest_memory``: a 1:1
chat with no kept diet).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from local_agent.context.projection import (
    CHOICE_CODE,
    CONFIRM_CODE,
    MAX_SHOWN_IDS,
    OUTSIDE_CODE,
    PENDING_CODE,
    TOOL_GOALS,
    WAITING_CODES,
)
from local_agent.context.townships import canonical_township
from local_agent.fingerprint import keyword_token
from local_agent.language.dates import DateReading, today_in_taipei
from local_agent.language.townships import SERVED_ONLY, read_area
from local_agent.listings import catalogue
from local_agent.listings.dates import DateWindow, parse_iso_date
from local_agent.listings.loader import Listings, shipped_listings
from local_agent.stores.ports import AuditRow, AuditStore, PreferenceOrigin, PreferenceState, PreferenceStore

SEARCH_TOOLS = ("search_local_places", "search_local_events")
PREFERENCE_TOOL = "manage_preference"
TOOL_NAMES = (*SEARCH_TOOLS, PREFERENCE_TOOL)
PREFERENCE_ACTIONS = ("remember", "forget", "show")
MAX_KEYWORD_CHARS = 30
RESULT_LIMIT = 10
# The preference tool's answers to a proposal it cannot take (fixed texts, shown as they are).
PREFERENCE_CHOICES_TEXT = (
    "飲食偏好我只能幫您記住、刪除或查看，而且都要您在一對一聊天按鈕確認。請直接說，例如「記住我吃素」。"
)
# Arguments the model got wrong (not text, not declared) or a tool it made up: the person said
# nothing wrong, so they are asked again in words that make sense to them, never told about arguments.
MALFORMED_TEXT = "抱歉，我沒聽清楚您要找什麼。請再說一次鄉鎮和想找的，例如「花壇有什麼好吃的？」"
UNKNOWN_TOOL_TEXT = "這件事我還不會幫忙。我能幫您找彰化縣的店家和活動，例如「花壇有什麼好吃的？」"
_LABELS = list(catalogue.DIETARY_TYPES.values())
UNKNOWN_DIET_TEXT = f"這種飲食習慣我還查不了。找店家時可以說{'、'.join(_LABELS[:-1])}或{_LABELS[-1]}。"
WHICH_DIET_TEXT = (
    "想讓我記住哪一種飲食偏好呢？請直接說，例如「記住我吃素」或「記住我吃全素」，我會先問您同意才記住。"
)
MORE_DESCRIPTION = "true：只列本對話還沒列過的結果"
# What a 「再找一家」 without a township means: the earlier list is gone (the window expired).
MORE_EXPIRED = "請問是哪個鄉鎮？我這裡沒有前面找過的紀錄（超過 15 分鐘沒有對話就不會記得），請選鄉鎮重新找："

# What the model is told about the tools (the canonical declarations the bytes measure counts,
# and what the offline demo sends). The ADK tools are built from these (``adk_tools.py``), so
# production sends exactly them.
TOOL_DECLARATIONS: list[dict[str, Any]] = [
    {
        "name": "search_local_places",
        "description": "查彰化縣某鄉鎮市的店家（教學快照）。area 用鄉鎮全名；dietary_type 只有使用者在本句明說時才填，否則留空。",
        "parameters": {
            "type": "object",
            "properties": {
                "area": {"type": "string", "description": "鄉鎮市全名，例如 花壇鄉"},
                "dietary_type": {"type": "string", "description": "本句明說的素別代碼，或空字串"},
                "keyword": {"type": "string", "description": "店家類型關鍵字，或空字串"},
                "more": {"type": "boolean", "description": MORE_DESCRIPTION},
            },
            "required": ["area"],
        },
    },
    {
        "name": "search_local_events",
        "description": (
            "查彰化縣某鄉鎮市的活動（教學快照）。area 用鄉鎮全名。"
            "本句說了日期（這週、12/5）才填 date_from/date_to（台灣日期，含首尾），否則留空。"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "area": {"type": "string", "description": "鄉鎮市全名，例如 花壇鄉"},
                "keyword": {"type": "string", "description": "活動類型關鍵字，或空字串"},
                "date_from": {"type": "string", "description": "YYYY-MM-DD，或空字串"},
                "date_to": {"type": "string", "description": "YYYY-MM-DD，只查一天時留空"},
                "more": {"type": "boolean", "description": MORE_DESCRIPTION},
            },
            "required": ["area"],
        },
    },
    {
        "name": PREFERENCE_TOOL,
        "description": (
            "要記住、刪除或查看使用者的飲食偏好時呼叫；只會請本人按鈕確認，不會直接存或刪。"
            "dietary_type 填本句明說的素別。"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(PREFERENCE_ACTIONS)},
                "dietary_type": {"type": "string", "enum": list(catalogue.DIETARY_TYPES)},
            },
            "required": ["action"],
        },
    },
]

# Each tool's parameter names, from its declaration (``call`` dispatches by these).
_PARAMETERS = {d["name"]: frozenset(d["parameters"]["properties"]) for d in TOOL_DECLARATIONS}


def keyword_for_audit(keyword: str, vocabulary: frozenset[str] | None = None) -> str:
    """Keywords from the listings' vocabulary (their categories; default the shipped snapshot's) are
    kept; anything else may be the user's own words, so the audit row keeps only its keyed fingerprint
    and length."""
    words = catalogue.KEYWORD_VOCABULARY if vocabulary is None else vocabulary
    if not keyword or keyword in words:
        return keyword
    return keyword_token(keyword)


def _iso_or_empty(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return value == "" or bool(parse_iso_date(value))
    except ValueError:
        return False


def _redact(arguments: dict[str, Any], vocabulary: frozenset[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if key == "keyword":
            out[key] = keyword_for_audit(value, vocabulary) if isinstance(value, str) else "#invalid"
        elif key == "area":
            out[key] = value if (value == "" or canonical_township(value)) else "#unrecognised"
        elif key == "dietary_type":
            ok = isinstance(value, str) and (
                value == "" or catalogue.normalize_dietary_type(value) != catalogue.INVALID
            )
            out[key] = value if ok else "#invalid"
        elif key in ("date_from", "date_to"):
            out[key] = value if _iso_or_empty(value) else "#invalid"
        elif key == "action":
            out[key] = value if value in PREFERENCE_ACTIONS else "#invalid"
        elif key == "more":
            out[key] = value if isinstance(value, bool) else "#invalid"
        else:
            out[key] = "#unexpected"
    return out


@dataclass
class ToolExecution:
    tool: str
    proposed_arguments: dict[str, Any]
    effective_arguments: dict[str, Any]
    memory_revision: int
    preference_origin: PreferenceOrigin
    result: dict[str, Any]
    audit: AuditRow | None = None


# Answers that ask the person something; a date window said with the question waits with it.
_ASKING = WAITING_CODES


def _window_of(date_from: Any, date_to: Any) -> tuple[DateWindow | None, bool]:
    """The event tool's window, and whether one was given but is not a valid window."""
    if not (date_from or date_to):
        return None, False
    try:
        return DateWindow.from_arguments(date_from or "", date_to or ""), False
    except (TypeError, ValueError):
        return None, True


def _error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"status": "error", "code": code, "message": message, **extra}


def _date_error(bad: bool, window: DateWindow | None, today: date, township: str) -> dict[str, Any] | None:
    """A window that is not one (INVALID_DATE) or is over (PAST_DATE, as the date reader says it);
    the township goes with the error, so the turn keeps it."""
    if bad:
        text = "這個日期我看不懂，請換個說法，例如「這週末」或「12月5日」。"
        return _error("INVALID_DATE", text, argument="date_from", area=township)
    if window is not None and window.end < today:
        text = DateReading("past", said=window).answer
        return _error("PAST_DATE", text, argument="date_from", area=township)
    return None


def _more_error(more: Any) -> dict[str, Any] | None:
    if isinstance(more, bool):
        return None
    return _error("INVALID_ARGUMENT", "more 必須是 true 或 false。", argument="more")


@dataclass
class TurnTools:
    """The tools of one turn, bound to its user and scope."""

    preferences: PreferenceStore
    audit: AuditStore
    clock: Callable[[], float]
    user_id: str
    scope_id: str
    turn_id: str = ""
    # False in a group or room: consented memory is personal and is applied (and named) only in
    # its owner's 1:1 chat; there a search uses only what the message itself says.
    personal: bool = True
    # The diet the user's current message names (``catalogue.find_dietary_type``), or None: the only
    # diet ``manage_preference`` may offer to remember, whatever the model proposed.
    named_diet: str | None = None
    executions: list[ToolExecution] = field(default_factory=list)
    listings: Listings = field(default_factory=shipped_listings)
    # The diet the current sentence states (``language.diets.diet_said``): a code, ``any`` for
    # 「不吃素」, or None. It beats the remembered one for this turn.
    said_diet: str | None = None
    # (goal, township) -> listing ids this conversation has been shown (from the turn's window)
    shown_before: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    # township -> (date_from, date_to): the dates a kind question of the turn before waits with
    # (「鹿港這週末」 → 「想在鹿港鎮找吃的，還是查活動？」); an event search there without dates uses them.
    waiting_dates: dict[str, tuple[str, str]] = field(default_factory=dict)

    # -- helpers ---------------------------------------------------------------------------
    def _record(
        self,
        tool: str,
        proposed: dict[str, Any],
        effective: dict[str, Any],
        revision: int,
        origin: PreferenceOrigin,
        result: dict[str, Any],
    ) -> dict[str, Any]:
        row = AuditRow(
            scope_id=self.scope_id,
            turn_id=self.turn_id,
            tool=tool,
            proposed_arguments=_redact(proposed, self.listings.keyword_vocabulary),
            effective_arguments=_redact(effective, self.listings.keyword_vocabulary),
            memory_revision=revision,
            preference_origin=origin,
            status=result["status"],
            at=self.clock(),
        )
        self.audit.append_audit(row)
        self.executions.append(ToolExecution(tool, proposed, effective, revision, origin, result, row))
        return result

    # -- tools -----------------------------------------------------------------------------
    def _common(self, proposed: dict[str, Any]) -> tuple[str, str, dict[str, Any] | None]:
        """Checks both tools share: text arguments, a known township, a short keyword.
        Returns ``(township, keyword, error)``."""
        for name, value in proposed.items():
            if value is not None and not isinstance(value, str):
                return "", "", _error("INVALID_ARGUMENT", MALFORMED_TEXT, argument=name)
        township, err = self._township(proposed["area"])
        if township is None:
            return "", "", err
        kw = (proposed.get("keyword") or "").strip()
        if len(kw) > MAX_KEYWORD_CHARS:
            return "", "", _error("INVALID_ARGUMENT", "關鍵字太長了，請說短一點。", argument="keyword")
        return township, kw, None

    def search_local_places(
        self, area: Any = "", dietary_type: Any = "", keyword: Any = "", more: Any = False
    ) -> dict[str, Any]:
        tool = "search_local_places"
        proposed = {"area": area, "dietary_type": dietary_type, "keyword": keyword}
        pref = self.preferences.get(self.user_id)  # consent as it stands at execution time
        revision = pref.revision
        township, kw, err = self._common(proposed)
        if more is not False:  # only a "more" call carries it, so other audit rows read as before
            proposed["more"] = more
        err = err or _more_error(more)
        if err:
            return self._record(tool, proposed, {}, revision, "none", self._asked(tool, err, more))
        explicit = catalogue.normalize_dietary_type(dietary_type or "")
        if explicit == catalogue.INVALID:
            return self._record(
                tool,
                proposed,
                {},
                revision,
                "none",
                _error(
                    "INVALID_DIETARY_TYPE",
                    UNKNOWN_DIET_TEXT,
                    argument="dietary_type",
                    choices=sorted(catalogue.DIETARY_TYPES),
                ),
            )
        diet, origin = self._diet(explicit, pref)
        effective: dict[str, Any] = {"area": township, "dietary_type": diet, "keyword": kw}
        pool = self.listings.places_in(township)
        found = [
            catalogue.place_to_dict(p)
            for p in catalogue.search_places(township, diet, kw, limit=len(pool), places=pool)
        ]
        items, paging = self._page(tool, township, found, more is True)
        kept = pref.consent == "granted" and bool(pref.dietary_type)
        result = {
            "status": "ok",
            "tool": tool,
            "area": township,
            "dietary_type": diet,
            "keyword": kw,
            "preference_origin": origin,
            "memory_revision": revision,
            "items": items,
            "notice": self.listings.notice,
            **paging,
            # a 1:1 chat where nothing is kept and the person has not said no
            "suggest_memory": self.personal and not kept and pref.consent != "refused",
        }
        if more is True:
            effective["more"] = True
        if origin == "explicit" and diet == catalogue.ANY and self._remembered(pref):
            result["memory_set_aside"] = True  # 「今天不吃素」: the remembered diet waits this turn
        return self._record(tool, proposed, effective, revision, origin, result)

    def _remembered(self, pref: PreferenceState) -> str | None:
        return pref.dietary_type if self.personal and pref.consent == "granted" else None

    def _diet(self, explicit: str | None, pref: PreferenceState) -> tuple[str, PreferenceOrigin]:
        """explicit (the call) > said in this sentence > consented memory (1:1 only) > any; a generic
        vegetarian said or called is the kept kind of vegetarian, where one is kept.
        A sentence that says no diet now (「我現在沒有吃素了」) sets the memory aside this turn."""
        remembered = self._remembered(pref)
        if explicit or (self.said_diet and (self.said_diet != catalogue.ANY or remembered)):
            said = explicit or self.said_diet or catalogue.ANY
            if said == "vegetarian" and remembered in catalogue.VEGETARIAN_FAMILY - {"vegetarian"}:
                # 「找素食」 from someone who keeps 全素: the kept kind of vegetarian is what they eat
                return remembered, "consented_memory"
            return said, "explicit"
        if remembered:
            return remembered, "consented_memory"
        return catalogue.ANY, "none"

    def _page(
        self, tool: str, township: str, found: list[dict[str, Any]], more: bool
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The results to show (``RESULT_LIMIT`` at most; with ``more``, only ids not shown before)
        and the paging fields of the result."""
        goal = TOOL_GOALS[tool]
        before = self.shown_before.get((goal, township), ()) if more else ()
        fresh = [item for item in found if item["id"] not in before]
        page = fresh[: min(RESULT_LIMIT, max(0, MAX_SHOWN_IDS - len(before)))]
        other = self.listings.events_in(township) if goal == "places" else self.listings.places_in(township)
        return page, {
            "more": more,
            "shown_before": len(before),
            "shown": sorted({*before, *(item["id"] for item in page)}),
            "more_left": len(fresh) - len(page),
            "other_goal": bool(other),
        }

    def _asked(self, tool: str, err: dict[str, Any], more: Any) -> dict[str, Any]:
        """An error result; a missing township also carries the townships a picker offers (those
        with listings of this kind), and for 「再找一家」 says the earlier list is gone."""
        if err.get("code") not in ("AREA_REQUIRED", "UNKNOWN_TOWNSHIP"):
            return err
        goal = TOOL_GOALS[tool]
        towns = self.listings.covered_townships
        having = [
            t
            for t in towns
            if (self.listings.places_in(t) if goal == "places" else self.listings.events_in(t))
        ]
        out = {**err, "picker": goal, "townships": having}
        if more is True and err["code"] == "AREA_REQUIRED":
            out["message"] = MORE_EXPIRED
        return out

    def search_local_events(
        self, area: Any = "", keyword: Any = "", date_from: Any = "", date_to: Any = "", more: Any = False
    ) -> dict[str, Any]:
        """Events in ``area``; with ``date_from`` (and ``date_to``, inclusive, Taiwan days) only the dated
        events that have a day in that window, then the standing ones. Without a window, dated events
        already over by today (the service clock, Taiwan time) are left out."""
        tool = "search_local_events"
        proposed = {"area": area, "keyword": keyword}
        if date_from or date_to:  # only a windowed call carries the window, so others read as before
            proposed.update(date_from=date_from, date_to=date_to)
        revision = self.preferences.get(self.user_id).revision
        window, bad_date = _window_of(date_from, date_to)
        township, kw, err = self._common(proposed)
        if more is not False:
            proposed["more"] = more
        err = err or _more_error(more)
        if err:
            if window is not None and err.get("code") in _ASKING:
                err.update(window.arguments())  # the window waits with the question (projection)
            return self._record(tool, proposed, {}, revision, "none", self._asked(tool, err, more))
        if window is None and not bad_date and township in self.waiting_dates:
            window, _ = _window_of(*self.waiting_dates[township])  # 「活動」 answering the kind question
        today = today_in_taipei(self.clock())
        error = _date_error(bad_date, window, today, township)
        if error:
            return self._record(tool, proposed, {}, revision, "none", error)
        pool = self.listings.events_in(township)
        found = [
            catalogue.event_to_dict(e)
            for e in catalogue.search_events(
                township, kw, limit=len(pool), events=pool, window=window, today=today
            )
        ]
        items, paging = self._page(tool, township, found, more is True)
        effective: dict[str, Any] = {"area": township, "keyword": kw}
        if window is not None:
            effective.update(window.arguments())
        if more is True:
            effective["more"] = True
        result = {
            "status": "ok",
            "tool": tool,
            "area": township,
            "keyword": kw,
            "preference_origin": "none",
            "memory_revision": revision,
            "items": items,
            "notice": self.listings.notice,
            **paging,
        }
        if window is not None:
            result.update(window.arguments(), dates_label=window.label())
        return self._record(tool, proposed, effective, revision, "none", result)

    def manage_preference(self, action: Any = "", dietary_type: Any = "") -> dict[str, Any]:
        """What the model asks for about the person's dietary preference, checked; never a write.

        ``remember`` offers only the diet the user's own message names (``named_diet``); forget and
        show take no diet. In a group or room the answer is the 1:1-only pointer, whatever was asked
        (``personal`` False). The caller renders the result with the commands' bound replies."""
        tool = PREFERENCE_TOOL
        proposed: dict[str, Any] = {"action": action}
        if dietary_type not in ("", None):
            proposed["dietary_type"] = dietary_type
        revision = self.preferences.get(self.user_id).revision
        if not isinstance(action, str) or action not in PREFERENCE_ACTIONS:
            error = _error("UNKNOWN_ACTION", PREFERENCE_CHOICES_TEXT, argument="action")
            return self._record(tool, proposed, {}, revision, "none", error)
        diet = ""
        if action == "remember" and self.personal:
            if self.named_diet not in catalogue.DIETARY_TYPES:
                error = _error("DIET_NOT_NAMED", WHICH_DIET_TEXT, argument="dietary_type")
                return self._record(tool, proposed, {}, revision, "none", error)
            diet = str(self.named_diet)
        effective = {"action": action, **({"dietary_type": diet} if diet else {})}
        result = {
            "status": "ok",
            "tool": tool,
            "action": action,
            "dietary_type": diet,
            "personal": self.personal,
            "preference_origin": "none",
            "memory_revision": revision,
        }
        return self._record(tool, proposed, effective, revision, "none", result)

    @staticmethod
    def _township(area: Any) -> tuple[str | None, dict[str, Any] | None]:
        """The area read like the user's words (``language/townships.py``): a township; or a question
        (which one? did you mean …?); or the honest answer for a place outside the county."""
        if not isinstance(area, str) or not area.strip():
            return None, _error(PENDING_CODE, "請問是哪個鄉鎮？", argument="area")
        reading = read_area(area)
        if reading.kind == "township":
            return reading.township, None
        if reading.kind == "confirm":
            ask = f"您是說{reading.township}嗎？"
            return None, _error(
                CONFIRM_CODE, ask, argument="area", suggestion=reading.township, choices=["是", "不是"]
            )
        if reading.kind == "choice":
            ask = f"您要查哪一個鄉鎮：{'還是'.join(reading.choices)}？"
            return None, _error(CHOICE_CODE, ask, argument="area", choices=list(reading.choices))
        if reading.kind == "outside":
            text = f"{SERVED_ONLY}，{reading.outside}的店家和活動我查不到。可以問彰化縣的鄉鎮，例如「鹿港有什麼好吃的」。"
            return None, _error(OUTSIDE_CODE, text, argument="area", place=reading.outside)
        return None, _error("UNKNOWN_TOWNSHIP", "彰化縣沒有這個鄉鎮，請再說一次鄉鎮名稱。", argument="area")

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Dispatch by name (what a model's function call names). Unknown tools are an error result."""
        allowed = _PARAMETERS.get(name)
        if allowed is None:
            return _error("UNKNOWN_TOOL", UNKNOWN_TOOL_TEXT)
        if not isinstance(args, dict) or set(args) - allowed:
            return _error("INVALID_ARGUMENT", MALFORMED_TEXT)
        return getattr(self, name)(**args)
