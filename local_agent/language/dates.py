"""Dates as people say them: festivals of the lunar calendar, months, and dates that do not exist.

``read_dates(text, today)`` answers with a :class:`DateReading`:

- ``window``: a :class:`~local_agent.listings.dates.DateWindow` of Taiwan days. Besides everything
  ``listings/dates.py`` reads (今天, 這週末, 下個月, 12/5, …) it reads
  the lunar festivals — 過年/春節 (除夕 to 初五), 除夕, 大年初一, 元宵, 端午, 七夕, 中元, 中秋, 重陽 — and
  初一 / 十五 (the next first or fifteenth of a lunar month; 「初一十五」 is the nearer of the two), 大後天,
  今晚, the Taiwanese 今仔日 / 明仔載 / 後日, a month on its own (「3月」: the next such month, from today when it is this one), and a day of the month on its own (「16號」: the next day with that number), and 「下下禮拜」 (the week after next). A festival is its next
  occurrence that has not ended by today, or the one of a year said with it (「2027年中秋」).
  It also reads the holidays of the solar calendar (跨年, 元旦, 聖誕節, 情人節, 國慶 …), stretches said
  in words (這幾天, 過兩天, 月底, 月初, 年底, 禮拜六禮拜天, 週休二日), and months and days in Chinese
  numerals (「十二月十號」). Township names that begin like a weekday (二林, 二水) are masked first.
- ``invalid``: a date that does not exist (2月30日, 13月, 0/5): the person is told so, nothing is searched.
- ``out_of_range``: a festival outside the years the calendar is trusted for (:data:`FIRST_YEAR` to
  :data:`LAST_YEAR`).
- ``unavailable``: a festival, but no lunar calendar installed (the bare-``python3`` demo).
- ``none``: no date at all.

Full-width digits and slashes (「１２／５」) are read as their ASCII forms. The lunar calendar is
``sxtwl`` (BSD), imported on first use.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta
from types import ModuleType
from typing import Literal

from local_agent.context.townships import SHORT_NAMES, TOWNSHIPS
from local_agent.listings.dates import DateWindow, find_date_window

FIRST_YEAR, LAST_YEAR = 1901, 2100
DateKind = Literal["none", "window", "invalid", "out_of_range", "unavailable"]
INVALID_DATE_TEXT = "這個日期不存在（例如 2月30日、13月），請再說一次日期，例如「這週末」或「12月5日」。"
OUT_OF_RANGE_TEXT = f"農曆節日我只能查 {FIRST_YEAR} 到 {LAST_YEAR} 年的，請直接說日期，例如「12月5日」。"
UNAVAILABLE_TEXT = "這裡查不到農曆日期，請直接說日期，例如「12月5日」。"


@dataclass(frozen=True, slots=True)
class DateReading:
    kind: DateKind = "none"
    window: DateWindow | None = None
    festival: bool = False  # the window came from a festival or 初一/十五

    @property
    def answer(self) -> str:
        """What to tell the person when there is no window to search."""
        return {"invalid": INVALID_DATE_TEXT, "out_of_range": OUT_OF_RANGE_TEXT}.get(
            self.kind, UNAVAILABLE_TEXT
        )


# (lunar month, day, days before, days after): 過年 is 除夕 (the day before 正月初一) to 初五.
FESTIVALS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (re.compile("除夕|年三十|年夜飯"), (1, 1, 1, -1)),
    (re.compile("大年初一|正月初一"), (1, 1, 0, 0)),
    (re.compile("過年|春節|農曆年|農曆新年"), (1, 1, 1, 4)),
    (re.compile("元宵|上元|燈節|正月十五"), (1, 15, 0, 0)),
    (re.compile("端午|端陽|五月節|五日節|肉粽節|龍舟節|五月初五"), (5, 5, 0, 0)),
    (re.compile("七夕|七娘媽生|七月初七"), (7, 7, 0, 0)),
    (re.compile("中元|普渡|鬼節|七月十五"), (7, 15, 0, 0)),
    (re.compile("中秋|八月節|八月十五"), (8, 15, 0, 0)),
    (re.compile("重陽|重九|九月初九"), (9, 9, 0, 0)),
    (re.compile("媽祖生|媽祖誕辰|媽祖聖誕|媽祖生日|三月瘋媽祖"), (3, 23, 0, 0)),
    (re.compile("土地公生|頭牙"), (2, 2, 0, 0)),
    (re.compile("尾牙"), (12, 16, 0, 0)),
)
_FIRST_AND_FIFTEENTH = re.compile("初一[、，,和跟或與到及]?十五|農曆十五|(?<![國大正])初一(?!年級)")
# Days the listings' phrases leave out: 大後天, tonight, and the Taiwanese words for today and tomorrow.
_MORE_DAYS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile("大後天|大後日"), 3),
    (re.compile("今晚|今天晚上|今仔日|今日仔"), 0),
    (re.compile("明仔載|明仔再|明仔日"), 1),
    (re.compile("(?<![今明大])後日"), 2),
)
_YEAR = re.compile(r"(\d{4})\s*年")
_MONTH_DAY = re.compile(r"(?<![\d/])(\d{1,2})\s*(?:月\s*(\d{1,2})\s*[日號号]|/(\d{1,2}))(?![\d/])")
_MONTH = re.compile(r"(?<![\d/])(\d{1,2})\s*月(?!\s*\d)")
_CHINESE_BAD_MONTH = re.compile("(?:十[三四五六七八九]|二十)月")
# Holidays of the solar calendar: (pattern, month, day, days before, days after).
SOLAR_HOLIDAYS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (re.compile("跨年"), (12, 31, 0, 1)),
    (re.compile("元旦|新年第一天"), (1, 1, 0, 0)),
    (re.compile("平安夜"), (12, 24, 0, 0)),
    (re.compile("聖誕|耶誕"), (12, 25, 1, 0)),
    (re.compile("情人節"), (2, 14, 0, 0)),
    (re.compile("二二八"), (2, 28, 0, 0)),
    (re.compile("兒童節"), (4, 4, 0, 0)),
    (re.compile("勞動節"), (5, 1, 0, 0)),
    (re.compile("父親節"), (8, 8, 0, 0)),
    (re.compile("教師節"), (9, 28, 0, 0)),
    (re.compile("國慶|雙十"), (10, 10, 0, 0)),
)
# Stretches of days said in words: (pattern, first day from today, last day from today).
_FEW_DAYS: tuple[tuple[re.Pattern[str], int, int], ...] = (
    (re.compile("過兩天|過幾天|再過兩天|過兩三天"), 1, 3),
    (re.compile("這幾天|這兩天|這兩三天|最近幾天|近幾天|這陣子"), 0, 6),
)
# 「月底」, 「年底」, 「月初」: the end or start of this month (next month's start once it has passed).
_MONTH_END = re.compile("(?:這個?|本)?月底|月尾")
_YEAR_END = re.compile("年底|年尾|歲末")
_MONTH_START = re.compile("(下個?)?月初")
# 「禮拜六禮拜天」, 「週六日」, 「週休二日」: both days of the weekend.
_BOTH_WEEKEND_DAYS = re.compile(
    "(下個?)?(?:禮拜|星期|週|周)六[、，,跟和或到]?(?:禮拜|星期|週|周)?[日天]|週休二日|周休二日"
)
# Chinese numerals before 月 or 號/日 (「十二月十號」 is 12月10號); not 初一, 正月, 五日節.
_CHINESE_DATE_NUMBER = re.compile(
    "(?<![初正臘農週期拜休])([一二兩三四五六七八九十]{1,3})(?=[月號号日])(?!日節)"
)
_CHINESE_DIGITS = {"一": 1, "二": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# 「下下禮拜」, 「下下週六」: the week after next, or a day in it.
_WEEK_AFTER_NEXT = re.compile("下下個?(?:禮拜|星期|週|周)([一二三四五六日天])?")
# Township names that begin with a weekday's character (二林, 二水) are masked before dates are read,
# so 「下禮拜二水有活動嗎」 is next week in 二水, not next Tuesday.
_WEEKDAY_LIKE_NAMES = re.compile(
    "|".join(
        sorted((n for n in (*TOWNSHIPS, *SHORT_NAMES) if n[0] in "一二三四五六日天"), key=len, reverse=True)
    )
)
# A day of this or next month: 「這個月12號」, 「下個月5號」.
_DAY_OF_NAMED_MONTH = re.compile(r"(這個?|本|下個?)月(\d{1,2})\s*[號号日]")
# A day of the month on its own: 「16號」, 「那20日呢」 (not 「3日遊」, not part of 12月16號 or 12/16).
_DAY_OF_MONTH = re.compile(r"(?<![\d/月])(\d{1,2})\s*[號号日](?![\d遊游])")


# The Taiwanese 「拜六」, 「拜一」 are 禮拜六, 禮拜一 (not 拜拜).
_SHORT_WEEKDAY = re.compile("(?<![禮拜])拜([一二三四五六日天])")


def normalise(text: str) -> str:
    """Full-width digits, letters and slashes as ASCII (NFKC), so 「１２／５」 reads as 12/5; 拜六 as
    禮拜六."""
    return _SHORT_WEEKDAY.sub(r"禮拜\1", unicodedata.normalize("NFKC", text))


def _calendar() -> ModuleType | None:
    try:
        import sxtwl  # type: ignore[import-untyped]
    except ImportError:  # the bare demo: no lunar calendar, said so honestly
        return None
    return sxtwl


def _solar(day: object) -> date:
    return date(day.getSolarYear(), day.getSolarMonth(), day.getSolarDay())  # type: ignore[attr-defined]


def _festival_window(lunar_year: int, rule: tuple[int, int, int, int], calendar: ModuleType) -> DateWindow:
    month, dom, before, after = rule
    anchor = _solar(calendar.fromLunar(lunar_year, month, dom))
    return DateWindow(anchor - timedelta(days=before), anchor + timedelta(days=after))


def _next_festival(rule: tuple[int, int, int, int], today: date, year: int | None) -> DateReading:
    calendar = _calendar()
    if calendar is None:
        return DateReading("unavailable", festival=True)
    years = [year] if year is not None else [today.year - 1, today.year, today.year + 1]
    if not all(FIRST_YEAR <= y <= LAST_YEAR for y in years):
        return DateReading("out_of_range", festival=True)
    for lunar_year in years:
        window = _festival_window(lunar_year, rule, calendar)
        if year is not None or window.end >= today:
            start = window.start if year is not None else max(window.start, today)
            return DateReading("window", DateWindow(start, window.end), festival=True)
    return DateReading("out_of_range", festival=True)  # pragma: no cover - the next year always qualifies


def _first_or_fifteenth(which: str, today: date) -> DateReading:
    calendar = _calendar()
    if calendar is None:
        return DateReading("unavailable", festival=True)
    if not FIRST_YEAR <= today.year <= LAST_YEAR:
        return DateReading("out_of_range", festival=True)
    wanted = {1, 15} if "初一" in which and "十五" in which else ({15} if "十五" in which else {1})
    for ahead in range(31):
        day = today + timedelta(days=ahead)
        if calendar.fromSolar(day.year, day.month, day.day).getLunarDay() in wanted:
            return DateReading("window", DateWindow(day, day), festival=True)
    return DateReading("out_of_range", festival=True)  # pragma: no cover - a lunar month is ≤ 30 days


def _exists(year: int, month: int, dom: int) -> bool:
    try:
        date(year, month, dom)
    except ValueError:
        return False
    return True


def _impossible(text: str) -> bool:
    """A written date no calendar has: 2月30日, 4/31, 13月, 十三月 (2/29 exists in a leap year)."""
    for match in _MONTH_DAY.finditer(text):
        month, dom = int(match.group(1)), int(match.group(2) or match.group(3))
        if not _exists(2028, month, dom):  # 2028 is a leap year: 2/29 is possible
            return True
    if any(not 1 <= int(m.group(1)) <= 12 for m in _MONTH.finditer(text)):
        return True
    return bool(_CHINESE_BAD_MONTH.search(text))


def _month(text: str, today: date) -> DateReading | None:
    match = _MONTH.search(text)
    if match is None:
        return None
    month = int(match.group(1))
    year = today.year if month >= today.month else today.year + 1
    first = date(year, month, 1)
    last = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
    return DateReading("window", DateWindow(max(first, today), last))


def _chinese_number(word: str) -> int | None:
    """一 to 九十九 in Chinese numerals (十二, 二十五, 三十一), else None."""
    if "十" not in word:
        return _CHINESE_DIGITS.get(word) if len(word) == 1 else None
    tens, _, ones = word.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        return None
    value = (_CHINESE_DIGITS.get(tens, 0) if tens else 1) * 10
    return value + (_CHINESE_DIGITS.get(ones, 0) if ones else 0)


def _arabic_dates(text: str) -> str:
    """Chinese numerals of months and days as digits: 「十二月十號」 → 「12月10號」."""

    def digits(match: re.Match[str]) -> str:
        number = _chinese_number(match.group(1))
        return str(number) if number is not None else match.group(1)

    return _CHINESE_DATE_NUMBER.sub(digits, text)


def _solar_holiday(text: str, today: date) -> DateReading | None:
    for pattern, (month, dom, before, after) in SOLAR_HOLIDAYS:
        if pattern.search(text):
            for year in (today.year - 1, today.year, today.year + 1):
                anchor = date(year, month, dom)
                start, end = anchor - timedelta(days=before), anchor + timedelta(days=after)
                if end >= today:
                    return DateReading("window", DateWindow(max(start, today), end))
    return None


def _month_end(day: date) -> date:
    return (day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)


def _stretch(text: str, today: date) -> DateReading | None:
    """这幾天, 過兩天, 月底, 月初, 年底, 禮拜六禮拜天: a few days said in words."""
    for pattern, first, last in _FEW_DAYS:
        if pattern.search(text):
            return DateReading(
                "window", DateWindow(today + timedelta(days=first), today + timedelta(days=last))
            )
    if match := _BOTH_WEEKEND_DAYS.search(text):
        saturday = today + timedelta(days=(5 - today.weekday()) % 7 + (7 if match.group(1) else 0))
        return DateReading("window", DateWindow(max(today, saturday), saturday + timedelta(days=1)))
    if _MONTH_END.search(text):
        end = _month_end(today)
        return DateReading("window", DateWindow(max(today, end - timedelta(days=6)), end))
    if _YEAR_END.search(text):
        end = date(today.year, 12, 31)
        return DateReading("window", DateWindow(max(today, date(today.year, 12, 1)), end))
    if match := _MONTH_START.search(text):
        start = today.replace(day=1)
        if match.group(1) or today.day > 5:
            start = _month_end(today) + timedelta(days=1)
        return DateReading("window", DateWindow(max(today, start), start + timedelta(days=4)))
    return None


def _week_after_next(text: str, today: date) -> DateReading | None:
    match = _WEEK_AFTER_NEXT.search(text)
    if match is None:
        return None
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=2)
    if match.group(1):
        day = monday + timedelta(days=min("一二三四五六日天".index(match.group(1)), 6))
        return DateReading("window", DateWindow(day, day))
    return DateReading("window", DateWindow(monday, monday + timedelta(days=6)))


def _day_of_named_month(text: str, today: date) -> DateReading | None:
    match = _DAY_OF_NAMED_MONTH.search(text)
    if match is None:
        return None
    first = today.replace(day=1)
    if match.group(1).startswith("下"):
        first = _month_end(today) + timedelta(days=1)
    if not _exists(first.year, first.month, int(match.group(2))):
        return DateReading("invalid")
    day = first.replace(day=int(match.group(2)))
    return DateReading("window", DateWindow(day, day)) if day >= today else DateReading("invalid")


def _day_of_month(text: str, today: date) -> DateReading | None:
    """「16號」: the next day with that number, this month if it is still to come, else the next
    month that has it; a day no month has (「32號」) is invalid."""
    match = _DAY_OF_MONTH.search(text)
    if match is None:
        return None
    dom = int(match.group(1))
    if not 1 <= dom <= 31:
        return DateReading("invalid")
    year, month = today.year, today.month
    for _ in range(3):
        if _exists(year, month, dom) and date(year, month, dom) >= today:
            day = date(year, month, dom)
            return DateReading("window", DateWindow(day, day))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return DateReading("invalid")  # pragma: no cover - 31 comes round within three months


def _festival(text: str, today: date) -> DateReading | None:
    year_match = _YEAR.search(text)
    year = int(year_match.group(1)) if year_match else None
    for pattern, rule in FESTIVALS:
        if pattern.search(text):
            return _next_festival(rule, today, year)
    if match := _FIRST_AND_FIFTEENTH.search(text):
        return _first_or_fifteenth(match.group(0), today)
    return None


def read_dates(text: str, today: date) -> DateReading:
    """The dates ``text`` names, relative to ``today`` (a Taiwan day); see the module docstring."""
    text = _WEEKDAY_LIKE_NAMES.sub(lambda m: "#" * len(m.group(0)), normalise(text))
    if (festival := _festival(text, today)) is not None:
        return festival
    text = _arabic_dates(text)
    if _impossible(text):
        return DateReading("invalid")
    for reader in (_day_of_named_month, _solar_holiday, _week_after_next, _stretch):
        if (reading := reader(text, today)) is not None:
            return reading
    for pattern, days in _MORE_DAYS:
        if pattern.search(text):
            day = today + timedelta(days=days)
            return DateReading("window", DateWindow(day, day))
    window = find_date_window(text, today)
    if window is not None:
        return DateReading("window", window)
    return _month(text, today) or _day_of_month(text, today) or DateReading()


__all__ = [
    "FESTIVALS",
    "FIRST_YEAR",
    "INVALID_DATE_TEXT",
    "LAST_YEAR",
    "OUT_OF_RANGE_TEXT",
    "UNAVAILABLE_TEXT",
    "DateReading",
    "normalise",
    "read_dates",
]
