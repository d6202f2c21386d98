"""Spans counted from today: N days ahead, within N days, N weeks later, half a month, N days ago.

- **ahead**: 下N天 / 後N天 (the N days after today), 未來N天 / 接下來N天 (today and the N-1 after), the
  same with 週 / 個禮拜 (weeks from Monday; 未來N週 from today) and 個月 (下三個月 = the next three
  whole months);
- **later**: N天後 (that day), N週後 (that week), N個月後 (that month); with a half (半年後, 兩個半月後,
  七年半後) the month or day it comes to;
- **within**: N天內, 半個月內, 一週之內, and a bare half (兩個半月, 半個月, 半年): today to the day it
  comes to;
- **ago**: N天前, 兩個禮拜之前, 上兩個月, 前兩天: past, the days said (never moved forward);
- **since**: 三個多月以來: the stretch up to today (today is its one day still to come).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from local_agent.language.date_base import (
    NUMBER,
    DateReading,
    monday_of,
    month_end,
    month_start,
    number,
    one_day,
    span_of,
)
from local_agent.language.patterns import quick
from local_agent.listings.dates import MAX_WINDOW_DAYS, DateWindow

# 下一個禮拜六 is a day and 下一個月5號 a date, not counts: the unit may not be followed by a weekday or day;
# 下下一個禮拜 is the week after next, no count.
_COUNT_AHEAD = quick(
    f"(?<!下)(下|後|未來|接下來|接下去|往後)的?\\s*({NUMBER})\\s*個?(天|日|禮拜|星期|週|周|月)"
    "(?![一二三四五六日天末初中底尾\\d])"
)
# 三個月後, but not 10月以後 (after October).
_COUNT_LATER = quick(
    f"(?<![第這那])({NUMBER})\\s*(個\\s*月|個?\\s*(?:天|日|禮拜|星期|週|周))\\s*(?:之後|以後|後)"
)


# Every span names a unit (天 日 週 周 星期 禮拜 月 季 年): a sentence with none is not looked at.
UNIT_MARKS = frozenset("天日週周星禮月季年")
PATTERNS = ("_COUNT_AHEAD", "_COUNT_LATER", "_WITHIN", "_LATER", "_AGO", "_LAST_N", "_SINCE", "_BARE_HALF")


def count_ahead(text: str, today: date) -> DateReading | None:
    """下三天, 未來七天, 接下來兩個禮拜, 下三個月: spans; 三天後, 三個禮拜後, 三個月後: that day,
    week or month."""
    if UNIT_MARKS.isdisjoint(text):
        return None
    if match := _COUNT_AHEAD.search(text):
        count, unit = number(match.group(2)), match.group(3)
        if not count:
            return None
        from_today = match.group(1) not in ("下", "後")
        return _ahead_span(count, unit, today, from_today)
    if match := _COUNT_LATER.search(text):
        count, unit = number(match.group(1)), match.group(2)[-1]
        if count is None:
            return None
        if unit in "天日":
            return one_day(today + timedelta(days=count), today)  # 三天後: that day
        if unit == "月":
            first = month_start(today, count)
            return span_of(first, month_end(first), today)
        monday = monday_of(today, count)
        return span_of(monday, monday + timedelta(days=6), today)
    return None


def _ahead_span(count: int, unit: str, today: date, from_today: bool) -> DateReading:
    if unit in "天日":
        start = today if from_today else today + timedelta(days=1)
        return span_of(start, start + timedelta(days=count - 1), today)
    if unit == "月":
        if from_today:
            return span_of(today, month_start(today, count) - timedelta(days=1), today)
        return span_of(month_start(today, 1), month_start(today, count + 1) - timedelta(days=1), today)
    start = today if from_today else monday_of(today, 1)
    return span_of(start, start + timedelta(weeks=count) - timedelta(days=1), today)


# -- durations with halves: within, later, ago -----------------------------------------------------

_UNIT = "(?P<unit>天|日|週|周|星期|禮拜|個?月|季度|季|年)"
# 三, 兩個半, 半個, 一個多, 七年半 (the half after the unit): an amount of a unit.
_AMOUNT = f"(?:(?P<n>{NUMBER})\\s*(?P<half>個半|個多|多個|多)?|(?P<lone>半))\\s*個?\\s*{_UNIT}(?P<after>半)?"
_WITHIN = quick(f"(?<![第這那上前\\d]){_AMOUNT}(?:之內|以內|內|裡面|裡|當中)")
_LATER = quick(f"(?<![第這那\\d]){_AMOUNT}\\s*(?:之後|以後|後)")
_AGO = quick(f"(?<![第這那\\d]){_AMOUNT}\\s*(?:之前|以前|前)(?![一二三四五六七八九十兩\\d])")
_LAST_N = quick(
    f"(?:(?<![早晚馬路線樓])上|(?<![以之年節天日])前|過去的?)(?P<n>{NUMBER})\\s*個?\\s*(?P<unit>天|日|週|周|星期|禮拜|個?月)(?!後|以後|之後)"
)
_SINCE = quick(f"{_AMOUNT}(?:以來|來)")
_BARE_HALF = quick(
    f"(?<![第這那上前\\d])(?:(?P<n>{NUMBER})\\s*(?P<half>個半)|(?P<lone>半))\\s*個?\\s*(?P<unit>月|年)(?![前後內])"
)


def _days_of(unit: str) -> int:
    return {"天": 1, "日": 1, "週": 7, "周": 7, "星期": 7, "禮拜": 7}.get(unit.lstrip("個"), 0)


def _months_of(unit: str) -> int:
    return {"月": 1, "季度": 3, "季": 3, "年": 12}.get(unit.lstrip("個"), 0)


def _amount(match: re.Match[str]) -> tuple[float, str] | None:
    """The amount a match of :data:`_AMOUNT` names, in days or months: (2.5, "月") for 兩個半月."""
    groups = match.groupdict()
    if groups.get("lone"):
        value = 0.5
    elif (value_int := number(groups["n"])) is None:
        return None
    else:
        value = value_int + (0.5 if (groups.get("half") == "個半" or groups.get("after")) else 0)
    unit = groups["unit"]
    return (value * _days_of(unit), "天") if _days_of(unit) else (value * _months_of(unit), "月")


def _ahead_of(today: date, amount: float, unit: str) -> date:
    if unit == "天":
        return today + timedelta(days=round(amount))
    whole = int(amount)
    first = month_start(today, whole)
    day = first.replace(day=min(today.day, month_end(first).day))
    return day + timedelta(days=15 if amount > whole else 0)


def durations(text: str, today: date) -> DateReading | None:
    """N天內, 半年後, 兩個半月, 兩天前, 上兩個月, 三個多月以來 (see the module docstring)."""
    if UNIT_MARKS.isdisjoint(text):
        return None
    if (match := _WITHIN.search(text) or _BARE_HALF.search(text)) and (amount := _amount(match)):
        end = _ahead_of(today, *amount) - timedelta(days=1)  # 三天內: today and the two after
        return span_of(today, min(max(end, today), today + timedelta(days=MAX_WINDOW_DAYS - 1)), today)
    if (match := _LATER.search(text)) and (amount := _amount(match)) and _not_counted_ahead(match):
        day = _ahead_of(today, *amount)
        return (
            span_of(day.replace(day=1), month_end(day), today) if amount[1] == "月" else one_day(day, today)
        )
    if (match := _AGO.search(text)) and (amount := _amount(match)):
        return _ago(today, *amount, (match.group("unit") or "").lstrip("個"))
    if match := _LAST_N.search(text):
        count = number(match.group("n")) or 0
        return _ago(
            today,
            count * (_days_of(match.group("unit")) or _months_of(match.group("unit"))),
            "天" if _days_of(match.group("unit")) else "月",
            match.group("unit").lstrip("個"),
        )
    if (match := _SINCE.search(text)) and _amount(match):
        return span_of(today, today, today)
    return None


def _not_counted_ahead(match: re.Match[str]) -> bool:
    """A half or a quarter (半年後, 兩個半月後, 三個季度後): what :func:`count_ahead` does not read."""
    return bool(match.group("half") or match.group("after") or match.group("lone")) or match.group(
        "unit"
    ).startswith("季")


def _ago(today: date, amount: float, unit: str, said: str) -> DateReading:
    """The day, week or month ``amount`` units before today: past, the days said."""
    if unit == "天":
        start = end = today - timedelta(days=round(amount))
        if said in ("週", "周", "星期", "禮拜"):
            start = monday_of(start)
            end = start + timedelta(days=6)
    else:
        start = month_start(today, -int(amount))
        end = month_end(start)
    return DateReading("past", said=DateWindow(start, end))


# What each reader here must find before it reads anything (``dates`` asks them all at once first).
FOUND_FIRST: tuple[re.Pattern[str], ...] = (
    _COUNT_AHEAD,
    _COUNT_LATER,
    _WITHIN,
    _LATER,
    _AGO,
    _LAST_N,
    _SINCE,
    _BARE_HALF,
)
