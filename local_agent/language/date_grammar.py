"""Counts and parts: spans counted from today, parts of a month, a year's months."""

from __future__ import annotations

import re
from datetime import date, timedelta

from local_agent.language.date_base import (
    INVALID,
    NUMBER,
    DateReading,
    exists,
    monday_of,
    month_end,
    month_start,
    number,
    one_day,
    span_of,
    year_said,
)

# -- counts ahead ------------------------------------------------------------------------------------

# 下一個禮拜六 is a day and 下一個月5號 a date, not counts: the unit may not be followed by a weekday or day.
_COUNT_AHEAD = re.compile(
    f"(下|後|未來|接下來|接下去|往後)的?\\s*({NUMBER})\\s*個?(天|日|禮拜|星期|週|周|月)"
    "(?![一二三四五六日天末初中底尾\\d])"
)
# 三個月後, but not 10月以後 (after October).
_COUNT_LATER = re.compile(
    f"(?<![第這那])({NUMBER})\\s*(個\\s*月|個?\\s*(?:天|日|禮拜|星期|週|周))\\s*(?:之後|以後|後)"
)


def count_ahead(text: str, today: date) -> DateReading | None:
    """下三天, 未來七天, 接下來兩個禮拜, 下三個月: spans; 三天後, 三個禮拜後, 三個月後: that day,
    week or month."""
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


# -- months, parts of months, years ---------------------------------------------------------------

_DAY_OF_NAMED_MONTH = re.compile(r"(這個?|本|今個|下個?)月的?(\d{1,2})\s*[號号日]")
_MONTH_PART = re.compile("(這個?|本|今個|下個?)?月(初|中(?!旬)|底|尾)|(上|中|下)旬")


def day_of_named_month(text: str, today: date) -> DateReading | None:
    """這個月12號, 下個月5號, 今個月廿號: a day of this or next month (past once gone)."""
    match = _DAY_OF_NAMED_MONTH.search(text)
    if match is None:
        return None
    first = month_start(today, 1 if match.group(1).startswith("下") else 0)
    dom = int(match.group(2))
    return one_day(first.replace(day=dom), today) if exists(first.year, first.month, dom) else INVALID


def month_part(text: str, today: date) -> DateReading | None:
    """月初 (1–5), 月中 (11–20), 月底 (the last seven days), 上旬/中旬/下旬 (1–10, 11–20, 21–end) of
    this month, of next month (下個月初), or — bare and already gone — next month's."""
    match = _MONTH_PART.search(text)
    if match is None:
        return None
    which = match.group(1) or ""
    part = match.group(2) or match.group(3) + "旬"
    start, end = _part_of(month_start(today, 1 if which.startswith("下") else 0), part)
    if end < today and not which:
        start, end = _part_of(month_start(today, 1), part)  # a bare 月初 already gone is next month's
    return span_of(start, end, today)


_PARTS = {"初": (1, 5), "中": (11, 20), "上旬": (1, 10), "中旬": (11, 20), "下旬": (21, 31)}


def _part_of(first: date, part: str) -> tuple[date, date]:
    end = month_end(first)
    if part in ("底", "尾"):
        return end - timedelta(days=6), end
    low, high = _PARTS[part]
    return first.replace(day=low), first.replace(day=min(high, end.day))


_YEAR_MONTH = re.compile(r"(今年|明年|下年|後年|\d{4}\s*年)的?\s*(\d{1,2})\s*月份?(?![\s\d]*[日號号])")


def year_month(text: str, today: date) -> DateReading | None:
    """今年3月, 明年九月, 2027年5月: that whole month (past when it has ended)."""
    match = _YEAR_MONTH.search(text)
    if match is None:
        return None
    year, month = year_said(match.group(1), today) or today.year, int(match.group(2))
    if not 1 <= month <= 12:
        return INVALID
    first = date(year, month, 1)
    return span_of(first, month_end(first), today)
