"""Dates written and said in words: written dates, weeks and weekdays, days in words, days gone."""

from __future__ import annotations

import re
from dataclasses import replace
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
    weekday_index,
    year_said,
)
from local_agent.language.patterns import quick
from local_agent.listings.dates import DateWindow

# -- written dates -------------------------------------------------------------------------------

# 2027-01-10, 2027年1月10日, 2027.1.10, 2027 1 10, 20270110.
YMD = quick(
    r"(?<!\d)(\d{4})(?:\s*[-/年.]\s*|\s+)(\d{1,2})(?:\s*[-/月.]\s*|\s+)(\d{1,2})(?!\d)\s*[日號号]?"
    r"|(?<!\d)((?:19|20)\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d)"
)
# 12月5日, 12/5, 6·30, 09-01 (two digits each side of the dash).
_MONTH_DAY = quick(
    r"(?<![\d/.\-])(?:(\d{1,2})\s*(?:月\s*(\d{1,2})\s*[日號号]|[/·](\d{1,2}))|(\d{2})-(\d{2}))(?![\d/\-])"
)
_MONTH = quick(r"(?<![\d/])(\d{1,2})\s*月份?(?![\s\d]*[日號号])(?!\d)")
_CHINESE_BAD_MONTH = quick("(?:十[三四五六七八九]|二十)月")


def _ymd(match: re.Match[str]) -> tuple[int, int, int]:
    year, month, dom = (int(g) for g in match.groups() if g is not None)
    return year, month, dom


def _md(match: re.Match[str]) -> tuple[int, int]:
    month, dom = (int(g) for g in match.groups() if g is not None)
    return month, dom


def impossible(text: str) -> bool:
    """A written date no calendar has: 2月30日, 4/31, 13月, 十三月 (2/29 exists in a leap year)."""
    for match in _MONTH_DAY.finditer(text):
        month, dom = _md(match)
        if not exists(2028, month, dom):  # 2028 is a leap year: 2/29 is possible
            return True
    if any(not 1 <= int(m.group(1)) <= 12 for m in _MONTH.finditer(text)):
        return True
    if (ymd := YMD.search(text)) and not exists(*_ymd(ymd)):
        return True
    return bool(_CHINESE_BAD_MONTH.search(text))


def _without_year(month: int, dom: int, today: date) -> date:
    """A month and day without a year: this year's when still to come or gone this month or last
    (a day just gone is past, not next year's), else next year's. 2/29 falls to the next leap year."""
    for year in range(today.year, today.year + 12):  # 2/29 after 2096: 2104 (2100 is no leap year)
        if exists(year, month, dom):
            day = date(year, month, dom)
            if day >= month_start(today, -1) or year > today.year:
                return day
    return date(today.year + 1, month, dom)  # pragma: no cover - checked by impossible


def written(text: str, today: date) -> DateReading | None:
    """2027-01-10, 2027年1月10日, 12/5, 12月5日, 明年3月5日."""
    if match := YMD.search(text):
        return one_day(date(*_ymd(match)), today)
    if match := _MONTH_DAY.search(text):
        month, dom = _md(match)
        year = year_said(text, today)
        if year is not None:
            return one_day(date(year, month, dom), today) if exists(year, month, dom) else INVALID
        return one_day(_without_year(month, dom, today), today)
    return None


_NTH_WEEKDAY = quick(f"(\\d{{1,2}})\\s*月(?:份)?的?第({NUMBER})個?(?:禮拜|星期|週|周)([一二三四五六日天])")


def nth_weekday(text: str, today: date) -> DateReading | None:
    """十月第一個星期一: that weekday of that month (the next such month, or of the year said)."""
    match = _NTH_WEEKDAY.search(text)
    if match is None:
        return None
    month, nth = int(match.group(1)), number(match.group(2)) or 0
    if not 1 <= month <= 12:
        return INVALID
    year = year_said(text, today)
    for candidate in (year,) if year is not None else (today.year, today.year + 1):
        first = date(candidate, month, 1)
        day = first + timedelta(days=(weekday_index(match.group(3)) - first.weekday()) % 7 + 7 * (nth - 1))
        if nth < 1 or day.month != month:
            return INVALID  # 十月第五個星期一 in a year that has four
        if year is not None or day >= today:
            return one_day(day, today)
    return None  # pragma: no cover - next year's comes


def bare_month(text: str, today: date) -> DateReading | None:
    """3月: the next such month, from today when it is this one."""
    match = _MONTH.search(text)
    if match is None:
        return None
    month = int(match.group(1))
    first = date(today.year if month >= today.month else today.year + 1, month, 1)
    return span_of(first, month_end(first), today)


_DAY_OF_MONTH = quick(r"(?<![\d/月])(\d{1,2})\s*[號号日](?![\d遊游])")


def day_of_month(text: str, today: date) -> DateReading | None:
    """「16號」: the next day with that number, this month if it is still to come, else the next
    month that has it; a day no month has (「32號」) is invalid."""
    match = _DAY_OF_MONTH.search(text)
    if match is None:
        return None
    dom = int(match.group(1))
    if not 1 <= dom <= 31:
        return INVALID
    for ahead in range(3):
        first = month_start(today, ahead)
        if exists(first.year, first.month, dom) and first.replace(day=dom) >= today:
            return one_day(first.replace(day=dom), today)
    return INVALID  # pragma: no cover - 31 comes round within three months


# 「19號星期六」, 「十九號，禮拜六」: a day of the month said with its weekday.
_DAY_THEN_WEEKDAY = quick(
    r"(?<![\d/月])(\d{1,2})\s*[號号日][,，\s(（]*(?:是|那天|那天是)?(?:禮拜|星期|週|周)[一二三四五六日天]"
)


def day_with_weekday(text: str, today: date) -> DateReading | None:
    """「19號星期六」: a day of the month with the weekday that describes it is that day (the number
    names it; the weekday alone would be this week's)."""
    match = _DAY_THEN_WEEKDAY.search(text)
    return day_of_month(match.group(1) + "號", today) if match is not None else None


# -- weeks, weekdays and days in words ---------------------------------------------------------------

_W = "(?:禮拜|星期|週|周)"
_NOT_EVERY = "(?<!每)(?<!每個)"  # 「每週六」「每個禮拜天」 are a rhythm, not a day
# 「下週週六」, 「下禮拜的禮拜六」, 「這禮拜天」, 「上週三」, 「下下週六」, 「週六」.
_LAST = "(?<![早晚馬路線樓])上"  # 上週, not 晚上週六
_WEEKDAY = quick(
    f"{_NOT_EVERY}({_LAST}一?個?|下下個?|下一?個?|這一?個?|本|今個?)?(?:{_W}的?)?{_W}([一二三四五六日天])"
)
_WEEK_PREFIX = {"上": -1, "下下": 2, "下": 1}


def weekday_reader(text: str, today: date) -> DateReading | None:
    """週六: this week's, or next week's once it has passed; 這禮拜天: this week's (past once gone);
    下禮拜三, 下週週六: next week's; 下下週六: the week after; 上週三: past."""
    match = _WEEKDAY.search(text)
    if match is None:
        return None
    prefix = (match.group(1) or "").rstrip("個").rstrip("一")
    weeks = next((n for p, n in _WEEK_PREFIX.items() if prefix.startswith(p)), 0)
    day = monday_of(today, weeks) + timedelta(days=weekday_index(match.group(2)))
    if not prefix and day < today:  # gone this week: next week's, and the reading says which day went
        return replace(one_day(day + timedelta(weeks=1), today), moved_from=DateWindow(day, day))
    return one_day(day, today)


# (pattern, what): longest and most specific first: 這週末 before 這週, 下週末 before 下週 and 週末.
_WEEK_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (quick(f"下下一?個?{_W}"), "week_after_next"),
    (quick(f"(?:下個?|下一個?){_W}(?!六日)"), "next_week"),
    (quick(f"(?:這一?個?|本|今個?){_W}"), "this_week"),
    (quick("下下一?個?月"), "month_after_next"),
    (quick("下個?月|下一個?月"), "next_month"),
    (quick("(?:這個?|本|今個)月"), "this_month"),
)


_NEXT_WEEKEND = quick(f"下個?{_W}末|下{_W}六日")
_WEEKEND_AFTER_NEXT = quick(f"下下個?{_W}末|下下{_W}六日")
_THIS_WEEKEND = quick(
    f"(?:這個?|本){_W}末|{_NOT_EVERY}(?:這個?|本)?{_W}六日|{_NOT_EVERY}(?:週末|周末)|週休二日|周休二日"
)
_BOTH_WEEKEND_DAYS = quick(f"{_NOT_EVERY}(下個?)?{_W}六[、，,跟和或到]?{_W}?[日天]")


def weekend(text: str, today: date) -> DateReading | None:
    """週末, 這週末, 週休二日, 禮拜六禮拜天: this week's Saturday and Sunday; 下週末, 下週六日: next week's;
    下下週末: the week after's."""
    if _WEEKEND_AFTER_NEXT.search(text):
        return _relative("weekend_after_next", today)
    if _NEXT_WEEKEND.search(text):
        return _relative("next_weekend", today)
    if match := _BOTH_WEEKEND_DAYS.search(text):
        return _relative("next_weekend" if match.group(1) else "this_weekend", today)
    return _relative("this_weekend", today) if _THIS_WEEKEND.search(text) else None


def week_phrase(text: str, today: date) -> DateReading | None:
    for pattern, phrase in _WEEK_PHRASES:
        if pattern.search(text):
            return _relative(phrase, today)
    return None


def _relative(phrase: str, today: date) -> DateReading:
    sunday = monday_of(today) + timedelta(days=6)
    weekends = {"this_weekend": 0, "next_weekend": 1, "weekend_after_next": 2}
    if phrase in weekends:
        end = sunday + timedelta(weeks=weekends[phrase])
        return span_of(end - timedelta(days=1), end, today)
    if phrase == "this_week":
        return span_of(today, sunday, today)
    if phrase in ("next_week", "week_after_next"):
        monday = monday_of(today, 1 if phrase == "next_week" else 2)
        return span_of(monday, monday + timedelta(days=6), today)
    first = month_start(today, {"this_month": 0, "next_month": 1}.get(phrase, 2))
    return span_of(first, month_end(first), today)


# Single days in words: (pattern, days from today).
_DAYS: tuple[tuple[re.Pattern[str], int], ...] = (
    (quick("大大後天"), 4),
    (quick("大後天|大後日"), 3),
    (quick("今天|今日|今晚|今仔日|今日仔|本日|今兒個?"), 0),
    (quick("明天|明日|明仔載|明仔再|明仔日|聽日|明兒個?"), 1),
    (quick("後天|(?<![今明大])後日|後兒個"), 2),
)
# Stretches of days said in words: (pattern, first day from today, last day from today).
_FEW_DAYS: tuple[tuple[re.Pattern[str], int, int], ...] = (
    (quick("過兩天|過幾天|再過兩天|過兩三天"), 1, 3),
    (quick("這幾天|這兩天|這兩三天|最近幾天|近幾天|這陣子"), 0, 6),
)
_YEAR_END = quick("年底|年尾|歲末")


def days_in_words(text: str, today: date) -> DateReading | None:
    """這幾天, 過兩天, 年底, 今天, 明天, 後天, 大後天, 今晚, 明仔載, 明兒個."""
    for pattern, first, last in _FEW_DAYS:
        if pattern.search(text):
            return span_of(today + timedelta(days=first), today + timedelta(days=last), today)
    if _YEAR_END.search(text):
        return span_of(date(today.year, 12, 1), date(today.year, 12, 31), today)
    for pattern, days in _DAYS:
        if pattern.search(text):
            return one_day(today + timedelta(days=days), today)
    return None


# 「昨天」, 「上禮拜」, 「上個月」, 「去年」: days already gone (only when nothing else is named).
_PAST_WORDS: tuple[tuple[re.Pattern[str], int], ...] = (
    (quick("大前天"), -3),
    (quick("昨天|昨日|昨晚|尋日|昨昏"), -1),
    (quick("前天|(?<![以之])前日"), -2),
)
_PAST_STRETCHES = quick(f"{_LAST}個?{_W}|{_LAST}一?個?月|去年")


def past_words(text: str, today: date) -> DateReading | None:
    for pattern, days in _PAST_WORDS:
        if pattern.search(text):
            return one_day(today + timedelta(days=days), today)
    if _PAST_STRETCHES.search(text):
        return DateReading("past")
    return None


# What each reader here, and ``impossible``, must find before it reads anything (``dates`` asks them
# all at once first).
FOUND_FIRST: tuple[re.Pattern[str], ...] = (
    YMD,
    _MONTH_DAY,
    _MONTH,
    _CHINESE_BAD_MONTH,
    _NTH_WEEKDAY,
    _DAY_OF_MONTH,
    _DAY_THEN_WEEKDAY,
    _WEEKDAY,
    *(pattern for pattern, _ in _WEEK_PHRASES),
    _NEXT_WEEKEND,
    _WEEKEND_AFTER_NEXT,
    _THIS_WEEKEND,
    _BOTH_WEEKEND_DAYS,
    *(pattern for pattern, _ in _DAYS),
    *(pattern for pattern, _, _ in _FEW_DAYS),
    _YEAR_END,
    *(pattern for pattern, _ in _PAST_WORDS),
    _PAST_STRETCHES,
)
