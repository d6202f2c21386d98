"""The offline model's rules (a stand-in for Gemini, stdlib only).

``propose`` reads only the request it is given (its contents) and proposes one tool call or a
short text. A question without a township (「剛才那個鄉鎮，再找一家吃的。」, 「那邊有什麼活動？」)
takes its area from the projected turns and the summary *in the request*: if the budget layer dropped the clue, resolution fails and it asks
「請問是哪個鄉鎮？」. That is what keeps the offline evaluation honest.

A pending question is read the same way: when the latest projected turn in the request is
「未指定區域：找店家」/「未指定區域：查活動」 (or, with no turn left, the summary has a goal and no
area), a message that only names a township (「花壇」, 「花壇鄉的」, 「在鹿港」) completes that search.
``ask_call`` is how the ADK stand-in asks: it calls the tool with no area, the tool answers
``AREA_REQUIRED`` and the turn projects as pending.

Asking for more (:data:`MORE_WORDS`: 「再找一家」「還有嗎」「換一家」) repeats the latest search's kind
(the projected turn's goal, else the summary's) with ``more: true``: the tool then lists only what
this conversation has not been shown. With no earlier search left in the request (the window
expired) it asks for the township like any search without one.

A township said with nothing to look for there (「鹿港這週末」) gets the kind question 「想在鹿港鎮找吃的，
還是查活動？」; the router adds two buttons (:data:`KIND_ANSWERS`) and the turn projects as a kind
question with the township and the dates the sentence said, read from the request (``kind_question``); the next turn's 「活動」 or 「吃的」 runs that search there, on those
dates. A reference to something older than the request can hold (「一開始問的那個鄉鎮」, 「昨天問的那裡」:
``language.townships.refers_to_older``) asks which township, never takes the latest one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from local_agent import language
from local_agent.context.projection import (
    NO_AREA,
    PUBLIC_TOPICS,
    SUMMARY_MARKER,
    USER_PROJECTION_PREFIX,
    SafeTurn,
    parse_user_text,
)
from local_agent.context.townships import canonical_township
from local_agent.language import words
from local_agent.language.dates import DateReading
from local_agent.language.utterance import Utterance
from local_agent.listings import catalogue
from local_agent.replies.render import ACK_TEXT, SMALL_TALK_TEXTS

ASK_TOWNSHIP = "請問是哪個鄉鎮？"
ZHUYIN_TEXT = "我看不懂注音符號，請用國字打，或用鍵盤的麥克風說，例如「花壇有什麼好吃的？」"
# The answer to a question the tools cannot answer (parking, buses): only when one was asked.
CAPABILITIES = (
    "我目前可以幫您找彰化縣各鄉鎮的店家和活動。"
    "停車、公車這類資訊還查不到，請見諒。可以說「花壇有什麼好吃的」試試看。"
)
# The answer to anything else it does not understand.
UNKNOWN_TEXT = "抱歉，這句我還聽不懂。我可以幫您找彰化縣各鄉鎮的店家和活動，例如「花壇有什麼好吃的？」"


def township_only_text(area: str) -> str:
    """A township said with nothing to do with it (no open question): ask what to look for."""
    return f"想在{area}找吃的，還是查活動？可以說「{area}有什麼好吃的」或「{area}有什麼活動」。"


# The kind question's buttons; each sends its label as the person's answer.
KIND_ANSWERS = ("吃的", "活動")

EXTRA_KEYWORDS = ("步道",)
# Asking for results not shown yet (the vocabulary is data: ``language/words.py``).
MORE_WORDS = words.MORE_WORDS

_PROJECTION_AREA = re.compile(re.escape(USER_PROJECTION_PREFIX) + r"([^：]+)：")


def _text_of(content: Mapping[str, Any]) -> str:
    parts = content.get("parts") or []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping))


def context_area(contents: Sequence[Mapping[str, Any]]) -> str | None:
    """The most recent township in the projected turns, else the summary's area, else None."""
    history = contents[:-1]
    for content in reversed(history):
        if content.get("role") != "user":
            continue
        text = _text_of(content)
        match = _PROJECTION_AREA.match(text)
        if match and (area := canonical_township(match.group(1))):
            return area
    for content in history:
        text = _text_of(content)
        if content.get("role") == "user" and text.startswith(SUMMARY_MARKER):
            try:
                summary = json.loads(text[len(SUMMARY_MARKER) :])
            except ValueError:
                continue
            area = canonical_township(summary.get("area")) if isinstance(summary, dict) else None
            if area:
                return area
    return None


def _summary_of(text: str) -> dict[str, Any] | None:
    try:
        summary = json.loads(text[len(SUMMARY_MARKER) :])
    except ValueError:
        return None
    return summary if isinstance(summary, dict) else None


def pending_goal(contents: Sequence[Mapping[str, Any]]) -> str | None:
    """The goal of an open township question: the latest projected turn is pending, or no turn
    is left and the summary holds a goal without an area."""
    saw_turn = False
    for content in reversed(contents[:-1]):
        if content.get("role") != "user":
            continue
        text = _text_of(content)
        if text.startswith(USER_PROJECTION_PREFIX):
            if saw_turn:
                continue
            saw_turn = True
            label = text[len(USER_PROJECTION_PREFIX) :]
            for goal, suffix in PUBLIC_TOPICS.items():
                if label.startswith(f"{NO_AREA}：{suffix}"):
                    return goal
            return None
        if text.startswith(SUMMARY_MARKER) and not saw_turn:
            summary = _summary_of(text)
            asked = summary.get("goal") if summary else None
            if asked in PUBLIC_TOPICS and not (summary or {}).get("area"):
                return str(asked)
    return None


def context_goal(contents: Sequence[Mapping[str, Any]]) -> str | None:
    """The goal of the latest projected public turn in the request, else the summary's goal."""
    for content in reversed(contents[:-1]):
        text = _text_of(content) if content.get("role") == "user" else ""
        turn = parse_user_text(text)
        if turn is not None and turn.goal:
            return turn.goal
        if text.startswith(SUMMARY_MARKER):
            asked = (_summary_of(text) or {}).get("goal")
            if asked in PUBLIC_TOPICS:
                return str(asked)
    return None


def wants_more(text: str) -> bool:
    """「再找一家」「還有嗎」「換一家」: the person asks for results not shown yet."""
    return language.read(text).more


def classify(said: Utterance) -> str | None:
    """places, events or None (nothing to search, or a question the tools cannot answer), by the
    language layer's search words (``language/words.py``)."""
    return None if said.goal == "unsupported" else said.goal


def _fallback(said: Utterance) -> str:
    """The text answer when no search fits: the parking/bus sentence only when they were asked;
    a bare township asks what to look for there; a short yes or no with nothing open is taken as
    small talk; anything else is not understood."""
    if said.goal == "unsupported":
        return CAPABILITIES
    if said.places.kind == "township":
        return township_only_text(said.places.township)
    if said.intent in ("consent_yes", "consent_no"):
        return ACK_TEXT
    if said.intent == "small_talk" and said.talk in SMALL_TALK_TEXTS:
        return SMALL_TALK_TEXTS[said.talk]  # (what the commands answer, where a message gets here)
    return UNKNOWN_TEXT


# Longest first; a dietary word is the dietary_type argument, not a keyword.
_KEYWORDS = tuple(
    word
    for word in sorted(set(catalogue.KEYWORD_VOCABULARY) | set(EXTRA_KEYWORDS), key=lambda w: (-len(w), w))
    if word and catalogue.normalize_dietary_type(word) in (None, catalogue.INVALID)
)


def find_keyword(text: str) -> str:
    return next((word for word in _KEYWORDS if word in text), "")


def latest_turn(contents: Sequence[Mapping[str, Any]]) -> SafeTurn | None:
    """The newest projected exchange in the request, parsed back (goal, area, dates, the township
    asked about), or ``None`` when the request holds none."""
    for content in reversed(contents[:-1]):
        if content.get("role") == "user" and (turn := parse_user_text(_text_of(content))) is not None:
            return turn
    return None


def _goal(said: Utterance, contents: Sequence[Mapping[str, Any]]) -> str | None:
    """What to search: the words of the sentence; else an open question it answers (a township, or
    是/不是 to 「您是說員林市嗎？」); else 「員林呢」 after a search, 「那後天呢」 after an event search;
    else a festival."""
    goal = classify(said)
    places, dates = said.places, said.dates
    if goal is not None or said.goal == "unsupported":
        return goal
    if said.more:
        return context_goal(contents) or "places"  # a bare 「還有嗎」 continues the latest search
    if said.again and (again := context_goal(contents)) is not None:
        return again  # 「剛才那個鄉鎮再查一次」
    latest = latest_turn(contents)
    asked = latest is not None and latest.confirm_area and (said.yes or said.no)
    if places.kind != "none" or asked:
        goal = pending_goal(contents)  # 「花壇」 answering 「請問是哪個鄉鎮？」
    if goal is None and places.kind != "none" and latest is not None and latest.goal and said.follow_up:
        goal = latest.goal  # 「員林呢」, 「那台中呢」 after a search: the same search there
    if goal is None and dates.kind != "none" and latest is not None and latest.goal == "events":
        goal = "events"  # 「那後天呢」 after an event search
    return goal or ("events" if dates.festival else None)


def _area(said: Utterance, contents: Sequence[Mapping[str, Any]]) -> str | None:
    """The tool's area: what the sentence says (the tool confirms a near miss, asks between two, answers
    a place outside the county); else the answer to 「您是說…嗎？」; else the request's context."""
    if said.places.kind != "none":
        return said.places.area_argument()
    if said.older:
        return None  # 「一開始問的那個鄉鎮」: the request holds only the latest; ask
    latest = latest_turn(contents)
    if latest is not None and latest.confirm_area:
        if said.yes:
            return latest.confirm_area
        if said.no:
            return None
    return context_area(contents)


def _window(goal: str, dates: DateReading, contents: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The event search's window: the sentence's own, else the one waiting with an open question."""
    if goal != "events":
        return {}
    if dates.window is not None:
        return dates.window.arguments()
    if dates.kind == "past" and dates.said is not None:
        return dates.said.arguments()
    latest = latest_turn(contents)
    if latest is not None and (latest.is_pending or latest.asked_kind) and latest.date_from:
        return {"date_from": latest.date_from, "date_to": latest.date_to}
    return {}


def _past_said(dates: DateReading) -> bool:
    return dates.kind == "past" and dates.said is not None


@dataclass(frozen=True)
class Plan:
    """What the request asks for: a call (``args["area"]`` empty when the township must be asked)
    or a text, with the current question read once (``said``)."""

    said: Utterance
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    text: str | None = None


def plan(contents: Sequence[Mapping[str, Any]], today: date | None, said: Utterance | None = None) -> Plan:
    """The request's plan; the current question is read once (``language.read``) unless ``said`` is
    its reading already (on the same day)."""
    current = _text_of(contents[-1]) if contents else ""
    if said is None or said.text != current or said.today != today:
        said = language.read(current, today)
    if said.zhuyin:
        return Plan(said, text=ZHUYIN_TEXT)
    goal = _goal(said, contents)
    if goal is None:
        return Plan(said, text=_fallback(said))
    dates = said.dates
    # A day said that is over is searched as said, so the tool answers PAST_DATE in the app's words.
    if goal == "events" and dates.kind not in ("none", "window") and not _past_said(dates):
        return Plan(said, text=dates.answer)  # 2月30日, 13月, a festival outside the calendar's years
    keyword = find_keyword(said.form)
    area = _area(said, contents) or ""
    more = {"more": True} if said.more and said.goal != "unsupported" else {}
    if goal == "places":
        diet = said.diet.named or ""
        return Plan(
            said, "search_local_places", {"area": area, "dietary_type": diet, "keyword": keyword, **more}
        )
    window = _window(goal, dates, contents)
    return Plan(said, "search_local_events", {"area": area, "keyword": keyword, **window, **more})


def propose(
    contents: Sequence[Mapping[str, Any]],
    tool_names: Sequence[str] = (),
    today: date | None = None,
    planned: Plan | None = None,
) -> dict[str, Any]:
    """``{"function_call": {"name", "args"}}`` or ``{"text": ...}`` from the request's contents.
    ``today`` is the date the request's rules carry: with it, a date phrase in the current question
    (「這週末」「12/5」「端午節」) becomes the event search's ``date_from``/``date_to``. ``planned``:
    the request's :func:`plan`, when made already."""
    if not contents:
        return {"text": UNKNOWN_TEXT}
    found = planned or plan(contents, today)
    if found.text is not None or found.tool is None:
        return {"text": found.text or UNKNOWN_TEXT}
    if tool_names and found.tool not in tool_names:
        return {"text": UNKNOWN_TEXT}
    if not found.args["area"]:
        return {"text": ASK_TOWNSHIP}
    return {"function_call": {"name": found.tool, "args": found.args}}


def kind_question(
    contents: Sequence[Mapping[str, Any]], today: date | None = None, said: Utterance | None = None
) -> SafeTurn | None:
    """The kind question this request gets, as its projection, or ``None``: the current sentence names
    one township and nothing to look for there (``propose`` would answer :func:`township_only_text`).
    It keeps the township and the date window the sentence said (``said``: the current question's
    reading, when the caller has it)."""
    if not contents:
        return None
    found = plan(contents, today, said)
    places = found.said.places
    if (
        found.tool is not None
        or places.kind != "township"
        or found.text != township_only_text(places.township)
    ):
        return None
    window = found.said.dates.window.arguments() if found.said.dates.window is not None else {}
    return SafeTurn(
        "", places.township, window.get("date_from", ""), window.get("date_to", ""), asked_kind=True
    )


def ask_call(
    contents: Sequence[Mapping[str, Any]],
    tool_names: Sequence[str] = (),
    today: date | None = None,
    planned: Plan | None = None,
) -> dict[str, Any] | None:
    """When ``propose`` asks which township for a search, the same search with no area (the tool
    answers ``AREA_REQUIRED``, which the app shows as the question and projects as pending, with the
    date window the question was asked with)."""
    if not contents:
        return None
    found = planned or plan(contents, today)
    if propose(contents, tool_names, today, found) != {"text": ASK_TOWNSHIP}:
        return None
    return {"function_call": {"name": found.tool, "args": found.args}} if found.tool else None
