"""Dates as people say them for events: the one reader of date phrases.

``read_dates(text, today)`` answers with a :class:`DateReading` whose ``kind`` is

- ``window``: a :class:`~local_agent.listings.dates.DateWindow` of Taiwan days, both ends included;
- ``past``: the phrase names a day or stretch that is already over (昨天, 上禮拜, 這週一 said on a
  Tuesday, 2025年3月3日, 今年3月 said in December, 這個月1號 said on the 5th, 2026年中秋 after it). It is
  said to be past (:data:`PAST_DATE_TEXT`, naming the day when there is one), never moved forward;
- ``invalid``: a date no calendar has (2月30日, 13月, 0/5, 農曆二月三十 in a 29-day month);
- ``out_of_range``: a lunar or solar-term date outside :data:`FIRST_YEAR` to :data:`LAST_YEAR`;
- ``unavailable``: a lunar date, but no lunar calendar installed (the bare-``python3`` demo);
- ``none``: no date at all.

What is read (the readers below, tried in this order; the first that reads the phrase answers):

- **lunar festivals** (過年/春節/新春 = 除夕 to 初五, 除夕, 元宵, 端午, 七夕, 中元, 中秋, 重陽, 媽祖生 …) and
  **days counted from one** (中秋前一天, 過年後第三天: from the festival's own day, 正月初一 for 過年);
- **any lunar month or day**: 農曆十一月十五, 臘月初八, 正月初三, 農曆七月 (the whole month), 初八 (the next
  eighth of a lunar month), 初一十五 (the nearer of the two);
- **the 24 solar terms** (立春 … 冬至; the weather-like 雨水, 小雪, 大雪, 白露, 霜降, 小滿, 小暑, 大暑 only
  beside 節氣 or 那天), through ``sxtwl`` (BSD), imported on first use;
- **written dates**: 2027-01-10, 2027年1月10日, 二零一五年三月三號, 12/5, 12月5日, 十二月十號;
  a date without a year is this year's when it is still to come or went by this month or last
  (then it is past), else next year's (「1/10」 asked in December is next January);
- **the Nth weekday of a month**: 十月第一個星期一;
- **counts ahead**: N天後 (that day), 下N天 / 後N天 (the N days after today), 未來N天 / 接下來N天
  (today and the N-1 after), the same with 週 / 個禮拜 (weeks from Monday; 未來N週 from today) and
  個月 (下三個月 = the next three whole months; 三個月後 = that month);
- **parts of a month**: 月初 (1–5), 月中 (11–20), 月底 (the last seven days), 上旬 / 中旬 / 下旬, with
  這個月 / 下個月 (下個月初); a bare 月初 or 月中 already gone is next month's;
- **今年 / 明年 / 後年 + month** (明年九月), and a year said with a festival (明年中秋, 2027年端午);
- **holidays of the solar calendar** (跨年, 元旦, 聖誕, 情人節, 婦女節, 兒童節 4/4, 愚人節, 勞動節, 父親節,
  教師節, 萬聖節, 國慶 10/10 …) and 復活節 (Easter, computed);
- **weeks and weekdays**: 這週 / 這一週 / 這禮拜 (today to Sunday), 下禮拜, 下下禮拜, 週末, 下週末, 週六
  (this week's, or next week's once it has passed), 這禮拜天 (this week's: past once gone), 下禮拜三 /
  下週週六 / 下禮拜的禮拜六 (next week's), 禮拜六禮拜天, 週休二日;
- **stretches and single days in words**: 今天, 明天, 後天, 大後天, 今晚, 今仔日, 明仔載, 這幾天, 過兩天,
  年底, 這個月 (today to its end), 下個月, 3月 (the next March), 16號 (the next 16th), 這個月12號;
- **several days in one phrase** (禮拜六跟下禮拜天, 12/5到12/8, 明天或後天): each part is read and the
  window is the span covering them all (one search, one window; the reply names the span). Parts
  that are past are dropped when others are not; a part that does not exist makes it ``invalid``; in a
  range (到, 至) a later part that would fall before the earlier one is a week later (下禮拜一到禮拜三).

Deliberately not read: times of day (下午三點), past stretches beyond saying they are past, recurring
rhythms (每週六, 每個月初一: no window), years on their own (今年, 明年: too wide for an events search),
and weather words that name a solar term without 節氣 or 那天 beside them. A year outside
:data:`FIRST_YEAR`..:data:`LAST_YEAR` (0000年, 9999/12/31) is ``out_of_range``.

Full-width digits and slashes (「１２／５」) are read as their ASCII forms; Township names that begin like
a weekday (二林, 二水) are masked first, so 「下禮拜二水」 is next week in 二水.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from datetime import date, timedelta

from local_agent.context.townships import SHORT_NAMES, TOWNSHIPS
from local_agent.language import date_calendars, date_grammar, date_spans, date_words
from local_agent.language.date_base import (
    FIRST_YEAR,
    INVALID,
    INVALID_DATE_TEXT,
    LAST_YEAR,
    NONE,
    OUT_OF_RANGE_TEXT,
    PAST_DATE_TEXT,
    UNAVAILABLE_TEXT,
    DateReading,
    Reader,
    any_of,
    number,
    today_in_taipei,
)
from local_agent.language.date_base import (
    YEAR as _YEAR,
)
from local_agent.language.date_calendars import (
    FESTIVALS,
    NIGHTS,
    SOLAR_TERMS,
    easter,
    festival,
    leap_month,
    lunar_date,
    lunar_day,
    new_year_day,
    solar_holiday,
    solar_term,
)
from local_agent.language.date_grammar import month_phrases, year_month
from local_agent.language.date_spans import count_ahead, durations
from local_agent.language.date_words import (
    YMD,
    bare_month,
    day_of_month,
    day_with_weekday,
    days_in_words,
    impossible,
    nth_weekday,
    past_words,
    week_phrase,
    weekday_reader,
    weekend,
    written,
)
from local_agent.language.patterns import quick
from local_agent.listings.dates import MAX_WINDOW_DAYS, WEEKDAYS, DateWindow, day_label

# -- normalising -------------------------------------------------------------------------------------

_SHORT_WEEKDAY = quick("(?<![禮拜])拜([一二三四五六日天])")  # Taiwanese 拜六 is 禮拜六 (not 拜拜)
_WEEKDAY_LIKE_NAMES = quick(
    "|".join(
        sorted((n for n in (*TOWNSHIPS, *SHORT_NAMES) if n[0] in "一二三四五六日天"), key=len, reverse=True)
    )
)
# A span's last day before 之間 (「十日至十二日之間」): between the two days, where 「三日之間」 alone
# is no date.
_SPAN_BETWEEN = quick("([至到~][一二兩三四五六七八九十廿卅0-9]{1,3}[日號号])之間")
_CHINESE_YEAR = quick("([零〇一二三四五六七八九]{2,4})年")
# Chinese numerals before 月 or 號/日 (「十二月十號」 is 12月10號); not 初一, 正月, 五日節, 週一, 兩日前.
_CHINESE_DATE_NUMBER = quick(
    "(?<![初正臘冬農曆週周期拜休第])([一二兩三四五六七八九十廿卅]{1,3})(?=[月號号日])(?!日節|日[前後內之以])"
)
# A day in Chinese numerals after a month in digits, with no 號 (「12月廿五」 is 12月25號).
_CHINESE_DAY_AFTER_MONTH = quick(
    "(?<![\\d])(\\d{1,2}月)([一二三四五六七八九十廿卅]{1,3})(?![月號号日天個週周星禮點点時时年旬])"
)
_DAY_OR_MONTH = re.compile("[月號号日]")
_DIGIT_DAY_AFTER_MONTH = quick("(?<![\\d])(\\d{1,2}月)(\\d{1,2})(?![\\d月號号日天個週周星禮點点時时年:：])")


def _digit_year(match: re.Match[str]) -> str:
    return "".join(str("零一二三四五六七八九".index(c)) if c != "〇" else "0" for c in match.group(1)) + "年"


# 「那再下一個禮拜呢」, 「再下個月」: the next one after the next, as 下下 says it.
_AGAIN_NEXT = quick("再下(?=一?個?(?:禮拜|星期|週|周|月))")


# 「問一下下週末」: 一下 (a moment) and then 下週末, not 下下週末 (the week after next): a pause between.
_A_MOMENT_THEN_NEXT = quick("(?<=一下)(?=下一?個?(?:禮拜|星期|週|周|月))")


# A hyphen between two days is a span (「12/19-12/20」, 「12月19-20日」), never the parts of one date
# (「2026-12-19」) nor a phone number.
_DAY_HYPHEN = quick(
    r"(?<![\d/-])(\d{1,2}/\d{1,2}|(?<=月)\d{1,2})-(\d{1,2}/\d{1,2}|\d{1,2}(?=[日號]))(?![\d/-])"
)


# Dashes and waves written between two days, as the ASCII the readers know.
_DASHES = str.maketrans({"–": "-", "‒": "-", "−": "-", "〜": "~"})
_DASH_CHARS = re.compile(f"[{''.join(map(chr, _DASHES))}]")
# A month/day and then a day alone after a span word (「12/26-27」, 「12/26到27」, 「12/26~27號」):
# the second day is the same month's; never a time (「12/5到6點」).
_SLASH_THEN_DAY = quick(r"(?<![\d/])(\d{1,2})/(\d{1,2})\s*(-|到|至|~|、|和|跟)\s*(\d{1,2})(?![\d/月點时時:])")
# The same after a month and day in words, with a list mark too (「12月19、20那兩天」, 「12月19日和20日」).
_MONTH_THEN_DAY = quick(
    r"(?<!\d)(\d{1,2})月(\d{1,2})[日號号]?\s*(-|到|至|~|、|和|跟)\s*(\d{1,2})(?![\d/月點时時:])"
)


def normalise(text: str) -> str:
    """Full-width digits, letters and slashes as ASCII (NFKC), so 「１２／５」 reads as 12/5; a hyphen
    between two days as 到 (an en dash or a wave as well), and a day alone after a month/day and a span or
    list word as that month's (12/26-27 → 12/26到12/27, 12月19、20 → 12月19日、12月20); 拜六 as
    禮拜六; 后 as 後 (a simplified 三天后); 再下個月 as 下下個月; 一下下週 as 一下 下週; years in Chinese numerals as digits (二零二七年 → 2027年); a span's 之間 as 間;
    township names that begin like a weekday masked."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_DASHES) if _DASH_CHARS.search(text) else text
    text = _SHORT_WEEKDAY.sub(r"禮拜\1", text) if "拜" in text else text
    text = text.replace("后", "後")
    text = _AGAIN_NEXT.sub("下下", text) if "再下" in text else text
    text = _A_MOMENT_THEN_NEXT.sub(" ", text) if "一下下" in text else text
    text = _SLASH_THEN_DAY.sub(lambda m: _each_day(m, "/", ""), text) if "/" in text else text
    text = _MONTH_THEN_DAY.sub(lambda m: _each_day(m, "月", "日"), text) if "月" in text else text
    text = _DAY_HYPHEN.sub(r"\1到\2", text) if "-" in text else text
    text = _CHINESE_YEAR.sub(_digit_year, text) if "年" in text else text
    text = _SPAN_BETWEEN.sub(r"\1間", text) if "之間" in text else text
    return _WEEKDAY_LIKE_NAMES.sub(lambda m: "#" * len(m.group(0)), text)


def _each_day(match: re.Match[str], month_mark: str, day_mark: str) -> str:
    """A month and day, a span or list word and a day alone, with the month written again for the
    second day; a dash or a wave as 到."""
    month, first, joined, second = match.groups()
    joined = "到" if joined in "-~" else joined
    return f"{month}{month_mark}{first}{day_mark}{joined}{month}{month_mark}{second}"


def _arabic_dates(text: str) -> str:
    """Chinese numerals of months and days as digits: 「2015年三月三號」 → 「2015年3月3號」, and a day
    after a month without 號: 「12月廿五」, 「1月3」 → 「12月25號」, 「1月3號」."""

    def digits(match: re.Match[str]) -> str:
        value = number(match.group(1))
        return str(value) if value is not None else match.group(1)

    def day_after(match: re.Match[str]) -> str:
        value = number(match.group(2))
        return f"{match.group(1)}{value}號" if value is not None else match.group(0)

    if _DAY_OR_MONTH.search(text) is None:
        return text  # (each pattern below ends a number with one of these)
    text = _CHINESE_DATE_NUMBER.sub(digits, text)
    return _DIGIT_DAY_AFTER_MONTH.sub(day_after, _CHINESE_DAY_AFTER_MONTH.sub(day_after, text))


_YEAR_DIGITS = quick(r"(\d{4})\s*年")


def _years_in_range(arabic: str) -> bool:
    """Every year written (2027年, 2027-01-10, 二零二七年) is within :data:`FIRST_YEAR`..:data:`LAST_YEAR`;
    ``arabic`` is the text with its date numerals as digits (:func:`_arabic_dates`)."""
    years = [
        int(next(g for g in m.groups() if g))
        for pattern in (_YEAR_DIGITS, YMD)
        for m in pattern.finditer(arabic)
    ]
    return all(FIRST_YEAR <= y <= LAST_YEAR for y in years)


# -- the reader --------------------------------------------------------------------------------------

# The lunar readers run on the words as said (初一, 正月, 十五 are lunar there); the rest after Chinese
# numerals of dates became digits and impossible dates were refused.
LUNAR_READERS: tuple[Reader, ...] = (new_year_day, leap_month, festival, lunar_date, lunar_day, solar_term)
READERS: tuple[Reader, ...] = (
    solar_holiday,  # 12/31跨年 is the holiday's two days
    written,
    nth_weekday,
    month_phrases,  # 上月最後五天, 4月前4天: a part of a month before the counts (後五天, 前4天)
    durations,
    count_ahead,
    year_month,
    weekend,
    day_with_weekday,  # 19號星期六: the day the number names
    weekday_reader,
    week_phrase,
    days_in_words,
    bare_month,
    day_of_month,
    past_words,
)
# Every pattern one of which a reader (or ``impossible``, or the years' check) must find before it
# reads anything, as one search a module (one pattern of them all takes four times the memory to
# build): where none finds anything, no reader would read a date. A new reader's first patterns
# join its module's ``FOUND_FIRST``.
_FOUND_FIRST = (
    *(any_of(m.FOUND_FIRST) for m in (date_calendars, date_words, date_spans, date_grammar)),
    _YEAR_DIGITS,
)


def _may_name_a_date(text: str) -> bool:
    return any(pattern.search(text) for pattern in _FOUND_FIRST)


# Words joining several days in one phrase: 禮拜六跟下禮拜天, 12/5到12/8, 明天或後天.
_JOIN = quick("跟|和|或是|或者|或|還是|與|及|、|到|至|~|—+|－+")
_RANGE = quick("到|至|~|—|－")
_YEAR_PREFIX = quick(r"(\d{4}\s*年)(?:(\d{1,2})月)?")
_BARE_DAY = quick(r"^\s*(\d{1,2}|[一二三四五六七八九十廿卅]{1,3})\s*[號号日]")


def _carried(parts: list[str]) -> list[str]:
    """Later parts of a range carry the first part's year and month when they say none:
    「2017年8月11日至8月22日」, 「2018年12月九號到十五號」, 「2018年2——4月」."""
    first = _YEAR_PREFIX.search(parts[0])
    if first is None:
        return parts
    carried = [parts[0]]
    for part in parts[1:]:
        if first.group(2) and _BARE_DAY.match(part):
            part = f"{first.group(1)}{first.group(2)}月{part}"
        elif not _YEAR.search(part) and "月" in part:
            part = first.group(1) + part
        carried.append(part)
    if carried[0].rstrip().endswith(tuple("0123456789")) and carried[-1].rstrip().endswith("月"):
        carried[0] += "月"  # 2018年2——4月: the first part's unit is the last part's
    return carried


def _read_one(text: str, today: date) -> DateReading:
    arabic = _arabic_dates(text)
    if not _may_name_a_date(text) and (arabic == text or not _may_name_a_date(arabic)):
        return NONE  # (most sentences: no reader would find what it looks for first)
    return _read_each(text, arabic, today)


def _read_each(text: str, arabic: str, today: date) -> DateReading:
    """The readers in turn (:func:`_read_one` without the one search that tells no date is there)."""
    if not _years_in_range(arabic):
        return DateReading("out_of_range")  # 0000年, 9999/12/31: no calendar day to search
    for reader in LUNAR_READERS:
        if (reading := reader(text, today)) is not None:
            # (a lunar festival's day written outside it is the lunar date: 八月十五中秋節)
            return _day_written(reading, arabic, today, outside=False) if reader is festival else reading
    text = arabic
    if impossible(text):
        return INVALID
    for reader in READERS:
        if (reading := reader(text, today)) is not None:
            return _day_written(reading, text, today, outside=True) if reader is solar_holiday else reading
    return NONE


def _day_written(reading: DateReading, text: str, today: date, outside: bool) -> DateReading:
    """A festival or holiday said with a day written out inside its span (「聖誕節12/25那天」,
    「12/24聖誕夜」), or for a solar holiday (``outside``) anywhere (「2027年1月1日元旦的活動」), is
    that day: the person named it, and the holiday describes it. A night across two days (跨年) keeps
    both when the day written is one of them."""
    span = reading.window
    if span is None or impossible(text) or (day := written(text, today)) is None or day.window is None:
        return reading
    inside = span.start <= day.window.start <= day.window.end <= span.end
    if (inside and (span.start == span.end or NIGHTS.search(text))) or not (inside or outside):
        return reading
    return replace(day, festival=reading.festival and inside)


def _several(parts: list[str], today: date, ranged: bool) -> DateReading | None:
    """Several days named in one phrase: the span covering those still to come (past ones dropped when
    any is), invalid when one does not exist; ``None`` when fewer than two parts name a day. In a range
    (到, 至) a later part that falls before the earlier one is the next week's (禮拜一到禮拜五 said on
    a Tuesday is next week's Monday to Friday)."""
    readings = [_read_one(part, today) for part in _carried([p for p in parts if p.strip()])]
    windows = [r.window for r in readings if r.window is not None]
    for i in range(1, len(windows) if ranged else 0):
        if windows[i].end < windows[i - 1].start:
            week = timedelta(weeks=1)
            windows[i] = DateWindow(windows[i].start + week, windows[i].end + week)
    if len([r for r in readings if r.kind != "none"]) < 2:
        return None
    if any(r.kind == "invalid" for r in readings):
        return INVALID
    if not windows:
        return next(r for r in readings if r.kind != "none")
    start, end = min(w.start for w in windows), max(w.end for w in windows)
    if (end - start).days >= MAX_WINDOW_DAYS:
        return next(r for r in readings if r.window is not None)
    return DateReading("window", DateWindow(start, end), festival=any(r.festival for r in readings))


def read_dates(text: str, today: date) -> DateReading:
    """The dates ``text`` names, relative to ``today`` (a Taiwan day); see the module docstring."""
    text = normalise(text)
    whole = _read_one(text, today)
    parts = _JOIN.split(text) if whole.kind != "none" else []  # no date at all: no part has one
    if len(parts) > 1 and (several := _several(parts, today, bool(_RANGE.search(text)))) is not None:
        return several
    return whole


def date_phrase_window(text: str, today: date) -> DateWindow | None:
    """The window ``text``'s date phrase means, or ``None`` (no date, a past day, one that does not
    exist): :func:`read_dates` for callers that want only a window."""
    return read_dates(text, today).window


__all__ = [
    "FESTIVALS",
    "FIRST_YEAR",
    "INVALID_DATE_TEXT",
    "LAST_YEAR",
    "OUT_OF_RANGE_TEXT",
    "PAST_DATE_TEXT",
    "SOLAR_TERMS",
    "UNAVAILABLE_TEXT",
    "WEEKDAYS",
    "DateReading",
    "DateWindow",
    "date_phrase_window",
    "day_label",
    "easter",
    "normalise",
    "number",
    "read_dates",
    "today_in_taipei",
]
