"""The calendars behind the date rules: the lunar calendar and its festivals, the 24 solar terms
(both through ``sxtwl``, BSD, imported on first use) and the holidays of the solar calendar."""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache
from types import ModuleType

from local_agent.language.date_base import (
    FIRST_YEAR,
    INVALID,
    LAST_YEAR,
    NUMBER,
    DateReading,
    any_of,
    number,
    one_day,
    span_of,
    year_said,
)
from local_agent.language.patterns import quick

# -- the lunar calendar --------------------------------------------------------------------------


def _calendar() -> ModuleType | None:
    try:
        import sxtwl  # type: ignore[import-untyped]
    except ImportError:  # the bare demo: no lunar calendar, said so honestly
        return None
    return sxtwl


def _solar(day: object) -> date:
    return date(day.getSolarYear(), day.getSolarMonth(), day.getSolarDay())  # type: ignore[attr-defined]


def _lunar_calendar(today: date, year: int | None) -> ModuleType | DateReading:
    """The calendar, or the reading that says why there is none for these years."""
    calendar = _calendar()
    if calendar is None:
        return DateReading("unavailable", festival=True)
    if not all(FIRST_YEAR <= y <= LAST_YEAR for y in (today.year, year or today.year)):
        return DateReading("out_of_range", festival=True)
    return calendar


def _lunar_year(calendar: ModuleType, today: date) -> int:
    return int(calendar.fromSolar(today.year, today.month, today.day).getLunarYear())


@lru_cache(maxsize=2048)
def _from_lunar(calendar: ModuleType, lunar_year: int, month: int, dom: int) -> date:
    """A lunar day's solar date (the calendar's conversion takes about 1.6 ms; the days asked
    about are few — festivals, month starts — so each is converted once per process)."""
    return _solar(calendar.fromLunar(lunar_year, month, dom))


@lru_cache(maxsize=512)
def _lunar_month_days(calendar: ModuleType, lunar_year: int, month: int) -> int:
    """29 or 30 (read from the 30th day's solar date: the calendar's own month length is slow)."""
    thirtieth = _from_lunar(calendar, lunar_year, month, 1) + timedelta(days=29)
    return (
        30 if calendar.fromSolar(thirtieth.year, thirtieth.month, thirtieth.day).getLunarDay() == 30 else 29
    )


def _next_lunar(
    month: int, dom: int, today: date, year: int | None, shift: tuple[int, int] = (0, 0)
) -> DateReading:
    """The lunar ``month``/``dom`` (widened by ``shift`` days before and after) in the lunar year said,
    else its next occurrence that has not ended by today."""
    calendar = _lunar_calendar(today, year)
    if not isinstance(calendar, ModuleType):
        return calendar
    first = year if year is not None else _lunar_year(calendar, today) - 1
    for lunar_year in range(first, first + (1 if year is not None else 3)):
        if not FIRST_YEAR <= lunar_year <= LAST_YEAR:
            return DateReading("out_of_range", festival=True)
        if dom > 29 and dom > _lunar_month_days(calendar, lunar_year, month):
            return INVALID  # 農曆二月三十 in a month of 29 days
        anchor = _from_lunar(calendar, lunar_year, month, dom)
        start, end = anchor - timedelta(days=shift[0]), anchor + timedelta(days=shift[1])
        if year is not None or end >= today:
            return span_of(start, end, today, festival=True)
    return DateReading("out_of_range", festival=True)  # pragma: no cover - the next year always comes


# (lunar month, day, days before, days after): 過年 is 除夕 (the day before 正月初一) to 初五.
FESTIVALS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (quick("除夕|年三十|年夜飯"), (1, 1, 1, -1)),
    (quick("大年初一|正月初一|正月朔日"), (1, 1, 0, 0)),
    (quick("過年|春節|農曆年|農曆新年|新春"), (1, 1, 1, 4)),
    (quick("元宵|上元|燈節|正月十五(?![日號号])"), (1, 15, 0, 0)),
    (quick("端午|端陽|五月節|五日節|肉粽節|龍舟節|五月初五(?![日號号])"), (5, 5, 0, 0)),
    (quick("七夕|七娘媽生|七月初七(?![日號号])"), (7, 7, 0, 0)),
    (quick("中元|普渡|鬼節|七月十五(?![日號号])"), (7, 15, 0, 0)),
    (quick("中秋|八月節|八月十五(?![日號号])"), (8, 15, 0, 0)),
    (quick("重陽|重九|九月初九(?![日號号])"), (9, 9, 0, 0)),
    (quick("媽祖生|媽祖誕辰|媽祖聖誕|媽祖生日|三月瘋媽祖"), (3, 23, 0, 0)),
    (quick("土地公生|頭牙"), (2, 2, 0, 0)),
    (quick("天公生|天公誕|拜天公|玉皇大帝誕辰|玉皇上帝誕辰"), (1, 9, 0, 0)),
    (quick("觀音生|觀音誕|觀音菩薩誕辰|觀世音菩薩誕辰"), (2, 19, 0, 0)),
    (quick("關公生|關聖帝君誕辰|關帝誕辰"), (6, 24, 0, 0)),
    (quick("臘八"), (12, 8, 0, 0)),
    (quick("尾牙"), (12, 16, 0, 0)),
)
_ANY_FESTIVAL = any_of([p for p, _ in FESTIVALS])
# 「中秋前一天」, 「過年後第三天」, 「端午節後兩天」: days counted from the festival's own day.
_FROM_FESTIVAL = quick(f"^節?的?(前|後|之前|之後)第?({NUMBER})[天日]")
# 「元旦開始算第三天」, 「中秋起第二天」: the festival's own day is the first.
_COUNTED_FROM = quick(f"^節?(?:那天)?的?(?:開始算?|起算?|算起)的?第({NUMBER})[天日]")
# 「聖誕節當天」, 「中秋那一天」: the festival's own day, without the eve its span may hold (not the
# start of a count: 「那天開始算第三天」).
_ITS_OWN_DAY = quick("^節?(?:當天|當日|正日|那一?天)(?!的?(?:開始|起|算起))")


def _offset_after(rest: str) -> int | None:
    """Days from a festival's own day said right after its name (前一天 -1, 後兩天 2, 開始算第三天 2,
    當天 0), else ``None``."""
    if (offset := _FROM_FESTIVAL.match(rest)) is not None:
        days = number(offset.group(2)) or 0
        return -days if "前" in offset.group(1) else days
    if (counted := _COUNTED_FROM.match(rest)) is not None and (nth := number(counted.group(1))):
        return nth - 1
    return 0 if _ITS_OWN_DAY.match(rest) else None


def _said_offset(pattern: re.Pattern[str], text: str) -> int | None:
    """The offset said after any mention of the festival (「聖誕節的報佳音…聖誕節當天」: the second)."""
    return next(
        (
            days
            for found in pattern.finditer(text)
            if (days := _offset_after(text[found.end() :])) is not None
        ),
        None,
    )


def festival(text: str, today: date) -> DateReading | None:
    if not _ANY_FESTIVAL.search(text):
        return None
    for pattern, (month, dom, before, after) in FESTIVALS:
        if (named := pattern.search(text)) is not None:
            year = _year_of_festival(text, named.end(), today)
            if (month, dom) == (1, 1) and "今年" in text:
                year = None  # 今年過年 is the new year this year ends with: the next one
            if (days := _said_offset(pattern, text)) is not None:
                return _next_lunar(month, dom, today, year, (-days, days))
            return _next_lunar(month, dom, today, year, (before, after))
    return None


# Where a clause ends: a year said after the festival's clause is another clause's (「中秋有活動嗎 今年
# 我們社區要烤肉」: this year's plans, not this year's 中秋).
_CLAUSE_END = quick("[,，。.!！?？;；\\s]")


def _year_of_festival(text: str, end: int, today: date) -> int | None:
    """The year said before the festival, or in its own clause (明年中秋, 中秋明年的): never one said
    in a later clause."""
    after = _CLAUSE_END.search(text, end)
    return year_said(text if after is None else text[: after.start()], today)


_LUNAR_MONTH_NAMES = {"正": 1, "冬": 11, "臘": 12}
_LUNAR_DATE = quick(
    "(農曆|陰曆|舊曆)?(?:\\d{2,4}年)?(正|冬|臘|十[一二]|[一二三四五六七八九十])月"
    "(初[一二三四五六七八九十]|[二廿]十[一二三四五六七八九]?|廿[一二三四五六七八九]|三十|十[一二三四五六七八九]?"
    "|[一二三四五六七八九])?"
)


def _lunar_dom(word: str) -> int:
    return number(word[1:]) or 0 if word.startswith("初") else number(word) or 0


def lunar_date(text: str, today: date) -> DateReading | None:
    """農曆十一月十五, 臘月初八, 正月初三, 農曆七月: a lunar month (whole) or day. Without 農曆 the month
    must be lunar by name (正, 冬, 臘) or the day say 初 (十一月十五 alone is November the 15th)."""
    for match in _LUNAR_DATE.finditer(text):
        name, dom_word = match.group(2), match.group(3)
        said_lunar = match.group(1) or name in _LUNAR_MONTH_NAMES or (dom_word or "").startswith("初")
        if not said_lunar or (dom_word is None and not (match.group(1) or name in _LUNAR_MONTH_NAMES)):
            continue
        month = _LUNAR_MONTH_NAMES.get(name) or number(name) or 0
        year = year_said(text, today)
        if dom_word is None:
            return _lunar_month(month, today, year)
        return _next_lunar(month, _lunar_dom(dom_word), today, year)
    return None


def _lunar_month(month: int, today: date, year: int | None) -> DateReading:
    calendar = _lunar_calendar(today, year)
    if not isinstance(calendar, ModuleType):
        return calendar
    first = year if year is not None else _lunar_year(calendar, today)
    for lunar_year in (first, first + 1):
        start = _from_lunar(calendar, lunar_year, month, 1)
        end = start + timedelta(days=_lunar_month_days(calendar, lunar_year, month) - 1)
        if year is not None or end >= today:
            return span_of(start, end, today, festival=True)
    return DateReading("out_of_range", festival=True)  # pragma: no cover - next year's comes


_LUNAR_DAY = quick(
    "初一[、，,和跟或與到及]?十五|農曆(?:初[一二三四五六七八九十]|十[一二三四五六七八九]?|[二廿]十[一二三四五六七八九]?|三十)"
    "|(?<![國大正年])初[一二三四五六七八九十](?!年級|中|次|步|期|版|稿|賽|選|審)"
    # 十五 said bare, no number before it and no 號 nor unit after it (「十五那天」, 「十五 欲去拜拜」):
    # the lunar month's fifteenth, as 初一 is its first (「十二月十五」, 「十五號」, 「十五個人」 are not, nor
    # the 十五 of 「初一跟十五」, read whole above)
    "|(?<![0-9０-９一二三四五六七八九十百千萬兩月第、，,和跟或與到及])十五(?![0-9０-９一二三四五六七八九號日個分秒塊元歲人位名年天點次號樓趟碗份張公度%])"
)


def lunar_day(text: str, today: date) -> DateReading | None:
    """初八: the next eighth day of a lunar month; 農曆十五 or 十五 said bare; 初一十五: the nearer of the
    two."""
    match = _LUNAR_DAY.search(text)
    if match is None:
        return None
    calendar = _lunar_calendar(today, None)
    if not isinstance(calendar, ModuleType):
        return calendar
    said = match.group(0)
    if "初一" in said and "十五" in said:
        wanted = {1, 15}
    else:
        wanted = {_lunar_dom(said.removeprefix("農曆"))}
    for ahead in range(60):
        day = today + timedelta(days=ahead)
        if calendar.fromSolar(day.year, day.month, day.day).getLunarDay() in wanted:
            return one_day(day, today, festival=True)
    return INVALID  # 農曆三十 in a stretch of 29-day months  # pragma: no cover


# sxtwl numbers the terms from 冬至 (0) to 大雪 (23).
SOLAR_TERMS = (
    "冬至 小寒 大寒 立春 雨水 驚蟄 春分 清明 穀雨 立夏 小滿 芒種 "
    "夏至 小暑 大暑 立秋 處暑 白露 秋分 寒露 霜降 立冬 小雪 大雪"
).split()
_WEATHER_LIKE_TERMS = frozenset("雨水 小雪 大雪 白露 霜降 小滿 小暑 大暑".split())
_SOLAR_TERM = quick("|".join(SOLAR_TERMS))
_TERM_CONTEXT = quick("節氣|那天|當天|那一天|那日")


def solar_term(text: str, today: date) -> DateReading | None:
    """立春, 清明, 冬至 …: the next day of that solar term (this year's when a year is said)."""
    match = _SOLAR_TERM.search(text)
    if match is None or (match.group(0) in _WEATHER_LIKE_TERMS and not _TERM_CONTEXT.search(text)):
        return None
    year = year_said(text, today)
    calendar = _lunar_calendar(today, year)
    if not isinstance(calendar, ModuleType):
        return calendar
    wanted = SOLAR_TERMS.index(match.group(0))
    for solar_year in (year,) if year is not None else (today.year, today.year + 1):
        for info in calendar.getJieQiByYear(solar_year):
            moment = calendar.JD2DD(info.jd)
            day = date(int(moment.Y), int(moment.M), int(moment.D))
            if info.jqIndex == wanted and (year is not None or day >= today):
                return one_day(day, today)
    return DateReading("out_of_range")  # pragma: no cover - next year's comes


# -- holidays of the solar calendar ------------------------------------------------------------------

# (pattern, (month, day, days before, days after)).
SOLAR_HOLIDAYS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (quick("跨年"), (12, 31, 0, 1)),
    (quick("元旦|陽曆新年|新曆新年"), (1, 1, 0, 0)),
    (quick("平安夜"), (12, 24, 0, 0)),
    (quick("(?:聖誕|耶誕)(?!紅|花)"), (12, 25, 1, 0)),  # (聖誕紅, 聖誕花: the poinsettia, a plant)
    (quick("情人節|聖瓦倫丁節"), (2, 14, 0, 0)),
    (quick("二二八"), (2, 28, 0, 0)),
    (quick("婦女節"), (3, 8, 0, 0)),
    (quick("愚人節"), (4, 1, 0, 0)),
    (quick("兒童節"), (4, 4, 0, 0)),  # Taiwan's Children's Day
    (quick("勞動節|勞工節"), (5, 1, 0, 0)),
    (quick("父親節"), (8, 8, 0, 0)),
    (quick("軍人節"), (9, 3, 0, 0)),
    (quick("教師節"), (9, 28, 0, 0)),
    (quick("國慶|雙十"), (10, 10, 0, 0)),  # Taiwan's National Day
    (quick("萬聖節"), (10, 31, 0, 0)),
)
_EASTER = quick("復活節|主復活日")
# A holiday that is one night across two days (跨年): a day written with it is the night's first, and
# the night keeps both days.
NIGHTS = quick("跨年")


def easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


_ANY_SOLAR_HOLIDAY = any_of([_EASTER, *(p for p, _ in SOLAR_HOLIDAYS)])


def solar_holiday(text: str, today: date) -> DateReading | None:
    if not _ANY_SOLAR_HOLIDAY.search(text):
        return None
    year = year_said(text, today)
    years = (year,) if year is not None else (today.year - 1, today.year, today.year + 1)
    if _EASTER.search(text):
        for candidate in years:
            if year is not None or easter(candidate) >= today:
                return one_day(easter(candidate), today)
    for pattern, (month, dom, before, after) in SOLAR_HOLIDAYS:
        if pattern.search(text):
            if (days := _said_offset(pattern, text)) is not None:
                before, after = -days, days  # 元旦開始算第三天: that one day
            for candidate in years:
                anchor = date(candidate, month, dom)
                start, end = anchor - timedelta(days=before), anchor + timedelta(days=after)
                if year is not None or end >= today:
                    return span_of(start, end, today)
    return None


# -- the new year's Nth day, leap months -------------------------------------------------------------

_NEW_YEAR_DAY = quick(f"(?:大年|正月|新正|新年|過年|春節)(?:初|的?第)({NUMBER})天?")


def new_year_day(text: str, today: date) -> DateReading | None:
    """大年初十, 新年第三天, 春節第二天: the Nth day of the lunar new year (正月初N), the next one."""
    match = _NEW_YEAR_DAY.search(text)
    if match is None or not 1 <= (nth := number(match.group(1)) or 0) <= 30:
        return None
    return _next_lunar(1, nth, today, year_said(text, today))


_LEAP = quick(
    "閏(十[一二]|[一二三四五六七八九十]|\\d{1,2})月"
    "(初[一二三四五六七八九十]|[二廿]十[一二三四五六七八九]?|廿[一二三四五六七八九]|三十|十[一二三四五六七八九]?"
    "|[一二三四五六七八九]|\\d{1,2})?"
)


def leap_month(text: str, today: date) -> DateReading | None:
    """閏六月, 農曆閏六月初一: the next leap month of that number (or its day), through the calendar;
    a leap month no year between :data:`FIRST_YEAR` and :data:`LAST_YEAR` has is out of range."""
    match = _LEAP.search(text)
    if match is None:
        return None
    calendar = _lunar_calendar(today, None)
    if not isinstance(calendar, ModuleType):
        return calendar
    month = number(match.group(1)) or 0
    dom = (number(match.group(2).removeprefix("初")) or 0) if match.group(2) else 0
    for lunar_year in range(_lunar_year(calendar, today) - 1, LAST_YEAR + 1):
        if calendar.getRunMonth(lunar_year) != month:
            continue
        first = _solar(calendar.fromLunar(lunar_year, month, 1, True))
        thirtieth = first + timedelta(days=29)
        length = (
            30
            if calendar.fromSolar(thirtieth.year, thirtieth.month, thirtieth.day).getLunarDay() == 30
            else 29
        )
        start, end = (
            (first, first + timedelta(days=length - 1)) if not dom else (first + timedelta(days=dom - 1),) * 2
        )
        if dom > length:
            return INVALID
        if end >= today:
            return span_of(start, end, today, festival=True)
    return DateReading("out_of_range", festival=True)


# What each reader here must find before it reads anything (``dates`` asks them all at once first).
FOUND_FIRST: tuple[re.Pattern[str], ...] = (
    _NEW_YEAR_DAY,
    _LEAP,
    _ANY_FESTIVAL,
    _LUNAR_DATE,
    _LUNAR_DAY,
    _SOLAR_TERM,
    _ANY_SOLAR_HOLIDAY,
)
