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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from types import ModuleType
from typing import Literal

from local_agent.context.townships import SHORT_NAMES, TOWNSHIPS
from local_agent.listings.dates import MAX_WINDOW_DAYS, TAIPEI, WEEKDAYS, DateWindow, day_label

FIRST_YEAR, LAST_YEAR = 1901, 2100
DateKind = Literal["none", "window", "past", "invalid", "out_of_range", "unavailable"]
INVALID_DATE_TEXT = "這個日期不存在（例如 2月30日、13月），請再說一次日期，例如「這週末」或「12月5日」。"
OUT_OF_RANGE_TEXT = f"日期我只能查 {FIRST_YEAR} 到 {LAST_YEAR} 年的，請再說一次日期，例如「12月5日」。"
UNAVAILABLE_TEXT = "這裡查不到農曆日期，請直接說日期，例如「12月5日」。"
PAST_DATE_TEXT = "{day}已經過了，我只查得到今天以後的活動，請說今天以後的日期，例如「這週末」或「下個月」。"


def today_in_taipei(epoch_seconds: float) -> date:
    """The calendar day in Taiwan at ``epoch_seconds`` (the service clock's reading)."""
    return datetime.fromtimestamp(epoch_seconds, TAIPEI).date()


@dataclass(frozen=True, slots=True)
class DateReading:
    kind: DateKind = "none"
    window: DateWindow | None = None
    festival: bool = False  # the window came from the lunar calendar (a festival, 初一, 臘月初八 …)
    said: DateWindow | None = None  # for ``past``: the days named, when the phrase names them

    @property
    def answer(self) -> str:
        """What to tell the person when there is no window to search."""
        if self.kind == "past":
            return PAST_DATE_TEXT.format(day=f"「{self.said.label()}」" if self.said else "那個日子")
        return {"invalid": INVALID_DATE_TEXT, "out_of_range": OUT_OF_RANGE_TEXT}.get(
            self.kind, UNAVAILABLE_TEXT
        )


NONE = DateReading()
INVALID = DateReading("invalid")
Reader = Callable[[str, date], DateReading | None]

# -- days, spans and numbers -----------------------------------------------------------------------


def _span(start: date, end: date, today: date, *, festival: bool = False) -> DateReading:
    """``start``..``end`` as a reading: past when it ended before today, else from today at the
    earliest and at most :data:`MAX_WINDOW_DAYS` long."""
    if end < today:
        return DateReading("past", festival=festival, said=DateWindow(start, end))
    start = max(start, today)
    end = min(end, start + timedelta(days=MAX_WINDOW_DAYS - 1))
    return DateReading("window", DateWindow(start, end), festival=festival)


def _day(day: date, today: date, *, festival: bool = False) -> DateReading:
    return _span(day, day, today, festival=festival)


def _month_end(day: date) -> date:
    return (day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)


def _month_start(day: date, months_ahead: int) -> date:
    index = day.year * 12 + day.month - 1 + months_ahead
    return date(index // 12, index % 12 + 1, 1)


def _monday(today: date, weeks_ahead: int = 0) -> date:
    return today - timedelta(days=today.weekday()) + timedelta(weeks=weeks_ahead)


def _exists(year: int, month: int, dom: int) -> bool:
    try:
        date(year, month, dom)
    except ValueError:
        return False
    return True


_CHINESE_DIGITS = {"一": 1, "二": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_NUMBER = "[0-9]{1,3}|[一二兩三四五六七八九十廿]{1,3}"


def number(word: str) -> int | None:
    """Digits, or 一 to 九十九 in Chinese numerals (十二, 二十五, 廿五, 兩), else ``None``."""
    if word.isdigit():
        return int(word)
    word = word.replace("廿", "二十")
    if "十" not in word:
        return _CHINESE_DIGITS.get(word) if len(word) == 1 else None
    tens, _, ones = word.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        return None
    value = (_CHINESE_DIGITS.get(tens, 0) if tens else 1) * 10
    return value + (_CHINESE_DIGITS.get(ones, 0) if ones else 0)


def _weekday_index(char: str) -> int:
    return min("一二三四五六日天".index(char), 6)  # 日 and 天 are both Sunday


# -- normalising -------------------------------------------------------------------------------------

_SHORT_WEEKDAY = re.compile("(?<![禮拜])拜([一二三四五六日天])")  # Taiwanese 拜六 is 禮拜六 (not 拜拜)
_WEEKDAY_LIKE_NAMES = re.compile(
    "|".join(
        sorted((n for n in (*TOWNSHIPS, *SHORT_NAMES) if n[0] in "一二三四五六日天"), key=len, reverse=True)
    )
)
_CHINESE_YEAR = re.compile("([零〇一二三四五六七八九]{4})年")
# Chinese numerals before 月 or 號/日 (「十二月十號」 is 12月10號); not 初一, 正月, 五日節, 週一.
_CHINESE_DATE_NUMBER = re.compile(
    "(?<![初正臘冬農曆週周期拜休第])([一二兩三四五六七八九十廿]{1,3})(?=[月號号日])(?!日節)"
)


def normalise(text: str) -> str:
    """Full-width digits, letters and slashes as ASCII (NFKC), so 「１２／５」 reads as 12/5; 拜六 as
    禮拜六; township names that begin like a weekday masked."""
    text = _SHORT_WEEKDAY.sub(r"禮拜\1", unicodedata.normalize("NFKC", text))
    return _WEEKDAY_LIKE_NAMES.sub(lambda m: "#" * len(m.group(0)), text)


def _arabic_dates(text: str) -> str:
    """Chinese numerals of years, months and days as digits: 「二零一五年三月三號」 → 「2015年3月3號」."""

    def year(match: re.Match[str]) -> str:
        return (
            "".join(str("零一二三四五六七八九".index(c)) if c != "〇" else "0" for c in match.group(1)) + "年"
        )

    def digits(match: re.Match[str]) -> str:
        value = number(match.group(1))
        return str(value) if value is not None else match.group(1)

    return _CHINESE_DATE_NUMBER.sub(digits, _CHINESE_YEAR.sub(year, text))


_YEAR_WORDS = {"今年": 0, "明年": 1, "下年": 1, "後年": 2, "去年": -1}
_YEAR = re.compile(r"(\d{4})\s*年|(今年|明年|下年|後年|去年)")


_YEAR_DIGITS = re.compile(r"(\d{4})\s*年")


def _years_in_range(text: str, today: date) -> bool:
    """Every year written (2027年, 2027-01-10, 二零二七年) is within :data:`FIRST_YEAR`..:data:`LAST_YEAR`."""
    text = _arabic_dates(text)
    years = [int(m.group(1)) for pattern in (_YEAR_DIGITS, _YMD) for m in pattern.finditer(text)]
    return all(FIRST_YEAR <= y <= LAST_YEAR for y in years)


def _year_said(text: str, today: date) -> int | None:
    match = _YEAR.search(text)
    if match is None:
        return None
    return int(match.group(1)) if match.group(1) else today.year + _YEAR_WORDS[match.group(2)]


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


def _lunar_month_days(calendar: ModuleType, lunar_year: int, month: int) -> int:
    """29 or 30 (read from the 30th day's solar date: the calendar's own month length is slow)."""
    thirtieth = _solar(calendar.fromLunar(lunar_year, month, 1)) + timedelta(days=29)
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
        anchor = _solar(calendar.fromLunar(lunar_year, month, dom))
        start, end = anchor - timedelta(days=shift[0]), anchor + timedelta(days=shift[1])
        if year is not None or end >= today:
            return _span(start, end, today, festival=True)
    return DateReading("out_of_range", festival=True)  # pragma: no cover - the next year always comes


# (lunar month, day, days before, days after): 過年 is 除夕 (the day before 正月初一) to 初五.
FESTIVALS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (re.compile("除夕|年三十|年夜飯"), (1, 1, 1, -1)),
    (re.compile("大年初一|正月初一|正月朔日"), (1, 1, 0, 0)),
    (re.compile("過年|春節|農曆年|農曆新年|新春"), (1, 1, 1, 4)),
    (re.compile("元宵|上元|燈節|正月十五"), (1, 15, 0, 0)),
    (re.compile("端午|端陽|五月節|五日節|肉粽節|龍舟節|五月初五"), (5, 5, 0, 0)),
    (re.compile("七夕|七娘媽生|七月初七"), (7, 7, 0, 0)),
    (re.compile("中元|普渡|鬼節|七月十五"), (7, 15, 0, 0)),
    (re.compile("中秋|八月節|八月十五"), (8, 15, 0, 0)),
    (re.compile("重陽|重九|九月初九"), (9, 9, 0, 0)),
    (re.compile("媽祖生|媽祖誕辰|媽祖聖誕|媽祖生日|三月瘋媽祖"), (3, 23, 0, 0)),
    (re.compile("土地公生|頭牙"), (2, 2, 0, 0)),
    (re.compile("臘八"), (12, 8, 0, 0)),
    (re.compile("尾牙"), (12, 16, 0, 0)),
)
# 「中秋前一天」, 「過年後第三天」, 「端午節後兩天」: days counted from the festival's own day.
_FROM_FESTIVAL = re.compile(f"^節?的?(前|後|之前|之後)第?({_NUMBER})[天日]")


def _festival(text: str, today: date) -> DateReading | None:
    year = _year_said(text, today)
    for pattern, (month, dom, before, after) in FESTIVALS:
        if match := pattern.search(text):
            if (month, dom) == (1, 1) and "今年" in text:
                year = None  # 今年過年 is the new year this year ends with: the next one
            if (offset := _FROM_FESTIVAL.match(text[match.end() :])) is not None:
                days = number(offset.group(2)) or 0
                days = -days if "前" in offset.group(1) else days
                return _next_lunar(month, dom, today, year, (-days, days))
            return _next_lunar(month, dom, today, year, (before, after))
    return None


_LUNAR_MONTH_NAMES = {"正": 1, "冬": 11, "臘": 12}
_LUNAR_DATE = re.compile(
    "(農曆|陰曆|舊曆)?(正|冬|臘|十[一二]|[一二三四五六七八九十])月"
    "(初[一二三四五六七八九十]|[二廿]十[一二三四五六七八九]?|廿[一二三四五六七八九]|三十|十[一二三四五六七八九]?"
    "|[一二三四五六七八九])?"
)


def _lunar_dom(word: str) -> int:
    return number(word[1:]) or 0 if word.startswith("初") else number(word) or 0


def _lunar_date(text: str, today: date) -> DateReading | None:
    """農曆十一月十五, 臘月初八, 正月初三, 農曆七月: a lunar month (whole) or day. Without 農曆 the month
    must be lunar by name (正, 冬, 臘) or the day say 初 (十一月十五 alone is November the 15th)."""
    for match in _LUNAR_DATE.finditer(text):
        name, dom_word = match.group(2), match.group(3)
        said_lunar = match.group(1) or name in _LUNAR_MONTH_NAMES or (dom_word or "").startswith("初")
        if not said_lunar or (dom_word is None and not (match.group(1) or name in _LUNAR_MONTH_NAMES)):
            continue
        month = _LUNAR_MONTH_NAMES.get(name) or number(name) or 0
        year = _year_said(text, today)
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
        start = _solar(calendar.fromLunar(lunar_year, month, 1))
        end = start + timedelta(days=_lunar_month_days(calendar, lunar_year, month) - 1)
        if year is not None or end >= today:
            return _span(start, end, today, festival=True)
    return DateReading("out_of_range", festival=True)  # pragma: no cover - next year's comes


_LUNAR_DAY = re.compile(
    "初一[、，,和跟或與到及]?十五|農曆(?:初[一二三四五六七八九十]|十[一二三四五六七八九]?|[二廿]十[一二三四五六七八九]?|三十)"
    "|(?<![國大正年])初[一二三四五六七八九十](?!年級|中|次|步|期|版|稿|賽|選|審)"
)


def _lunar_day(text: str, today: date) -> DateReading | None:
    """初八: the next eighth day of a lunar month; 農曆十五; 初一十五: the nearer of the two."""
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
            return _day(day, today, festival=True)
    return INVALID  # 農曆三十 in a stretch of 29-day months  # pragma: no cover


# sxtwl numbers the terms from 冬至 (0) to 大雪 (23).
SOLAR_TERMS = (
    "冬至 小寒 大寒 立春 雨水 驚蟄 春分 清明 穀雨 立夏 小滿 芒種 "
    "夏至 小暑 大暑 立秋 處暑 白露 秋分 寒露 霜降 立冬 小雪 大雪"
).split()
_WEATHER_LIKE_TERMS = frozenset("雨水 小雪 大雪 白露 霜降 小滿 小暑 大暑".split())
_SOLAR_TERM = re.compile("|".join(SOLAR_TERMS))
_TERM_CONTEXT = re.compile("節氣|那天|當天|那一天|那日")


def _solar_term(text: str, today: date) -> DateReading | None:
    """立春, 清明, 冬至 …: the next day of that solar term (this year's when a year is said)."""
    match = _SOLAR_TERM.search(text)
    if match is None or (match.group(0) in _WEATHER_LIKE_TERMS and not _TERM_CONTEXT.search(text)):
        return None
    year = _year_said(text, today)
    calendar = _lunar_calendar(today, year)
    if not isinstance(calendar, ModuleType):
        return calendar
    wanted = SOLAR_TERMS.index(match.group(0))
    for solar_year in (year,) if year is not None else (today.year, today.year + 1):
        for info in calendar.getJieQiByYear(solar_year):
            moment = calendar.JD2DD(info.jd)
            day = date(int(moment.Y), int(moment.M), int(moment.D))
            if info.jqIndex == wanted and (year is not None or day >= today):
                return _day(day, today)
    return DateReading("out_of_range")  # pragma: no cover - next year's comes


# -- written dates -------------------------------------------------------------------------------

_YMD = re.compile(r"(\d{4})\s*[-/年.]\s*(\d{1,2})\s*[-/月.]\s*(\d{1,2})\s*[日號号]?")
_MONTH_DAY = re.compile(r"(?<![\d/.])(\d{1,2})\s*(?:月\s*(\d{1,2})\s*[日號号]|/(\d{1,2}))(?![\d/])")
_MONTH = re.compile(r"(?<![\d/])(\d{1,2})\s*月份?(?![\s\d]*[日號号])(?!\d)")
_CHINESE_BAD_MONTH = re.compile("(?:十[三四五六七八九]|二十)月")


def _impossible(text: str) -> bool:
    """A written date no calendar has: 2月30日, 4/31, 13月, 十三月 (2/29 exists in a leap year)."""
    for match in _MONTH_DAY.finditer(text):
        month, dom = int(match.group(1)), int(match.group(2) or match.group(3))
        if not _exists(2028, month, dom):  # 2028 is a leap year: 2/29 is possible
            return True
    if any(not 1 <= int(m.group(1)) <= 12 for m in _MONTH.finditer(text)):
        return True
    if (ymd := _YMD.search(text)) and not _exists(*(int(g) for g in ymd.groups())):
        return True
    return bool(_CHINESE_BAD_MONTH.search(text))


def _without_year(month: int, dom: int, today: date) -> date:
    """A month and day without a year: this year's when still to come or gone this month or last
    (a day just gone is past, not next year's), else next year's. 2/29 falls to the next leap year."""
    for year in range(today.year, today.year + 12):  # 2/29 after 2096: 2104 (2100 is no leap year)
        if _exists(year, month, dom):
            day = date(year, month, dom)
            if day >= _month_start(today, -1) or year > today.year:
                return day
    return date(today.year + 1, month, dom)  # pragma: no cover - checked by _impossible


def _written(text: str, today: date) -> DateReading | None:
    """2027-01-10, 2027年1月10日, 12/5, 12月5日, 明年3月5日."""
    if match := _YMD.search(text):
        return _day(date(*(int(g) for g in match.groups())), today)
    if match := _MONTH_DAY.search(text):
        month, dom = int(match.group(1)), int(match.group(2) or match.group(3))
        year = _year_said(text, today)
        if year is not None:
            return _day(date(year, month, dom), today) if _exists(year, month, dom) else INVALID
        return _day(_without_year(month, dom, today), today)
    return None


_NTH_WEEKDAY = re.compile(
    f"(\\d{{1,2}})\\s*月(?:份)?的?第({_NUMBER})個?(?:禮拜|星期|週|周)([一二三四五六日天])"
)


def _nth_weekday(text: str, today: date) -> DateReading | None:
    """十月第一個星期一: that weekday of that month (the next such month, or of the year said)."""
    match = _NTH_WEEKDAY.search(text)
    if match is None:
        return None
    month, nth = int(match.group(1)), number(match.group(2)) or 0
    if not 1 <= month <= 12:
        return INVALID
    year = _year_said(text, today)
    for candidate in (year,) if year is not None else (today.year, today.year + 1):
        first = date(candidate, month, 1)
        day = first + timedelta(days=(_weekday_index(match.group(3)) - first.weekday()) % 7 + 7 * (nth - 1))
        if nth < 1 or day.month != month:
            return INVALID  # 十月第五個星期一 in a year that has four
        if year is not None or day >= today:
            return _day(day, today)
    return None  # pragma: no cover - next year's comes


# -- counts ahead ------------------------------------------------------------------------------------

# 下一個禮拜六 is a day and 下一個月5號 a date, not counts: the unit may not be followed by a weekday or day.
_COUNT_AHEAD = re.compile(
    f"(下|後|未來|接下來|接下去|往後)的?\\s*({_NUMBER})\\s*個?(天|日|禮拜|星期|週|周|月)"
    "(?![一二三四五六日天末初中底尾\\d])"
)
# 三個月後, but not 10月以後 (after October).
_COUNT_LATER = re.compile(
    f"(?<![第這那])({_NUMBER})\\s*(個\\s*月|個?\\s*(?:天|日|禮拜|星期|週|周))\\s*(?:之後|以後|後)"
)


def _count_ahead(text: str, today: date) -> DateReading | None:
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
            return _day(today + timedelta(days=count), today)  # 三天後: that day
        if unit == "月":
            first = _month_start(today, count)
            return _span(first, _month_end(first), today)
        monday = _monday(today, count)
        return _span(monday, monday + timedelta(days=6), today)
    return None


def _ahead_span(count: int, unit: str, today: date, from_today: bool) -> DateReading:
    if unit in "天日":
        start = today if from_today else today + timedelta(days=1)
        return _span(start, start + timedelta(days=count - 1), today)
    if unit == "月":
        if from_today:
            return _span(today, _month_start(today, count) - timedelta(days=1), today)
        return _span(_month_start(today, 1), _month_start(today, count + 1) - timedelta(days=1), today)
    start = today if from_today else _monday(today, 1)
    return _span(start, start + timedelta(weeks=count) - timedelta(days=1), today)


# -- months, parts of months, years ---------------------------------------------------------------

_DAY_OF_NAMED_MONTH = re.compile(r"(這個?|本|今個|下個?)月的?(\d{1,2})\s*[號号日]")
_MONTH_PART = re.compile("(這個?|本|今個|下個?)?月(初|中(?!旬)|底|尾)|(上|中|下)旬")


def _day_of_named_month(text: str, today: date) -> DateReading | None:
    """這個月12號, 下個月5號, 今個月廿號: a day of this or next month (past once gone)."""
    match = _DAY_OF_NAMED_MONTH.search(text)
    if match is None:
        return None
    first = _month_start(today, 1 if match.group(1).startswith("下") else 0)
    dom = int(match.group(2))
    return _day(first.replace(day=dom), today) if _exists(first.year, first.month, dom) else INVALID


def _month_part(text: str, today: date) -> DateReading | None:
    """月初 (1–5), 月中 (11–20), 月底 (the last seven days), 上旬/中旬/下旬 (1–10, 11–20, 21–end) of
    this month, of next month (下個月初), or — bare and already gone — next month's."""
    match = _MONTH_PART.search(text)
    if match is None:
        return None
    which = match.group(1) or ""
    part = match.group(2) or match.group(3) + "旬"
    start, end = _part_of(_month_start(today, 1 if which.startswith("下") else 0), part)
    if end < today and not which:
        start, end = _part_of(_month_start(today, 1), part)  # a bare 月初 already gone is next month's
    return _span(start, end, today)


_PARTS = {"初": (1, 5), "中": (11, 20), "上旬": (1, 10), "中旬": (11, 20), "下旬": (21, 31)}


def _part_of(first: date, part: str) -> tuple[date, date]:
    end = _month_end(first)
    if part in ("底", "尾"):
        return end - timedelta(days=6), end
    low, high = _PARTS[part]
    return first.replace(day=low), first.replace(day=min(high, end.day))


_YEAR_MONTH = re.compile(r"(今年|明年|下年|後年|\d{4}\s*年)的?\s*(\d{1,2})\s*月份?(?![\s\d]*[日號号])")


def _year_month(text: str, today: date) -> DateReading | None:
    """今年3月, 明年九月, 2027年5月: that whole month (past when it has ended)."""
    match = _YEAR_MONTH.search(text)
    if match is None:
        return None
    year, month = _year_said(match.group(1), today) or today.year, int(match.group(2))
    if not 1 <= month <= 12:
        return INVALID
    first = date(year, month, 1)
    return _span(first, _month_end(first), today)


def _month(text: str, today: date) -> DateReading | None:
    """3月: the next such month, from today when it is this one."""
    match = _MONTH.search(text)
    if match is None:
        return None
    month = int(match.group(1))
    first = date(today.year if month >= today.month else today.year + 1, month, 1)
    return _span(first, _month_end(first), today)


_DAY_OF_MONTH = re.compile(r"(?<![\d/月])(\d{1,2})\s*[號号日](?![\d遊游])")


def _day_of_month(text: str, today: date) -> DateReading | None:
    """「16號」: the next day with that number, this month if it is still to come, else the next
    month that has it; a day no month has (「32號」) is invalid."""
    match = _DAY_OF_MONTH.search(text)
    if match is None:
        return None
    dom = int(match.group(1))
    if not 1 <= dom <= 31:
        return INVALID
    for ahead in range(3):
        first = _month_start(today, ahead)
        if _exists(first.year, first.month, dom) and first.replace(day=dom) >= today:
            return _day(first.replace(day=dom), today)
    return INVALID  # pragma: no cover - 31 comes round within three months


# -- holidays of the solar calendar ------------------------------------------------------------------

# (pattern, (month, day, days before, days after)).
SOLAR_HOLIDAYS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (re.compile("跨年"), (12, 31, 0, 1)),
    (re.compile("元旦|新年第一天|陽曆新年"), (1, 1, 0, 0)),
    (re.compile("平安夜"), (12, 24, 0, 0)),
    (re.compile("聖誕|耶誕"), (12, 25, 1, 0)),
    (re.compile("情人節|聖瓦倫丁節"), (2, 14, 0, 0)),
    (re.compile("二二八"), (2, 28, 0, 0)),
    (re.compile("婦女節"), (3, 8, 0, 0)),
    (re.compile("愚人節"), (4, 1, 0, 0)),
    (re.compile("兒童節"), (4, 4, 0, 0)),  # Taiwan's Children's Day
    (re.compile("勞動節|勞工節"), (5, 1, 0, 0)),
    (re.compile("父親節"), (8, 8, 0, 0)),
    (re.compile("軍人節"), (9, 3, 0, 0)),
    (re.compile("教師節"), (9, 28, 0, 0)),
    (re.compile("國慶|雙十"), (10, 10, 0, 0)),  # Taiwan's National Day
    (re.compile("萬聖節"), (10, 31, 0, 0)),
)
_EASTER = re.compile("復活節|主復活日")


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


def _solar_holiday(text: str, today: date) -> DateReading | None:
    year = _year_said(text, today)
    years = (year,) if year is not None else (today.year - 1, today.year, today.year + 1)
    if _EASTER.search(text):
        for candidate in years:
            if year is not None or easter(candidate) >= today:
                return _day(easter(candidate), today)
    for pattern, (month, dom, before, after) in SOLAR_HOLIDAYS:
        if pattern.search(text):
            for candidate in years:
                anchor = date(candidate, month, dom)
                start, end = anchor - timedelta(days=before), anchor + timedelta(days=after)
                if year is not None or end >= today:
                    return _span(start, end, today)
    return None


# -- weeks, weekdays and days in words ---------------------------------------------------------------

_W = "(?:禮拜|星期|週|周)"
_NOT_EVERY = "(?<!每)(?<!每個)"  # 「每週六」「每個禮拜天」 are a rhythm, not a day
# 「下週週六」, 「下禮拜的禮拜六」, 「這禮拜天」, 「上週三」, 「下下週六」, 「週六」.
_LAST = "(?<![早晚馬路線樓])上"  # 上週, not 晚上週六
_WEEKDAY = re.compile(
    f"{_NOT_EVERY}({_LAST}一?個?|下下個?|下一?個?|這一?個?|本|今個?)?(?:{_W}的?)?{_W}([一二三四五六日天])"
)
_WEEK_PREFIX = {"上": -1, "下下": 2, "下": 1}


def _weekday(text: str, today: date) -> DateReading | None:
    """週六: this week's, or next week's once it has passed; 這禮拜天: this week's (past once gone);
    下禮拜三, 下週週六: next week's; 下下週六: the week after; 上週三: past."""
    match = _WEEKDAY.search(text)
    if match is None:
        return None
    prefix = (match.group(1) or "").rstrip("個").rstrip("一")
    weeks = next((n for p, n in _WEEK_PREFIX.items() if prefix.startswith(p)), 0)
    day = _monday(today, weeks) + timedelta(days=_weekday_index(match.group(2)))
    if not prefix and day < today:
        day += timedelta(weeks=1)
    return _day(day, today)


# (pattern, what): longest and most specific first: 這週末 before 這週, 下週末 before 下週 and 週末.
_WEEK_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(f"下下個?{_W}"), "week_after_next"),
    (re.compile(f"(?:下個?|下一個?){_W}(?!六日)"), "next_week"),
    (re.compile(f"(?:這一?個?|本|今個?){_W}"), "this_week"),
    (re.compile("下個?月|下一個?月"), "next_month"),
    (re.compile("(?:這個?|本|今個)月"), "this_month"),
)


_NEXT_WEEKEND = re.compile(f"下個?{_W}末|下{_W}六日")
_THIS_WEEKEND = re.compile(
    f"(?:這個?|本){_W}末|{_NOT_EVERY}(?:這個?|本)?{_W}六日|{_NOT_EVERY}(?:週末|周末)|週休二日|周休二日"
)
_BOTH_WEEKEND_DAYS = re.compile(f"{_NOT_EVERY}(下個?)?{_W}六[、，,跟和或到]?{_W}?[日天]")


def _weekend(text: str, today: date) -> DateReading | None:
    """週末, 這週末, 週休二日, 禮拜六禮拜天: this week's Saturday and Sunday; 下週末, 下週六日: next week's."""
    if _NEXT_WEEKEND.search(text):
        return _relative("next_weekend", today)
    if match := _BOTH_WEEKEND_DAYS.search(text):
        return _relative("next_weekend" if match.group(1) else "this_weekend", today)
    return _relative("this_weekend", today) if _THIS_WEEKEND.search(text) else None


def _week_phrase(text: str, today: date) -> DateReading | None:
    for pattern, phrase in _WEEK_PHRASES:
        if pattern.search(text):
            return _relative(phrase, today)
    return None


def _relative(phrase: str, today: date) -> DateReading:
    sunday = _monday(today) + timedelta(days=6)
    if phrase in ("this_weekend", "next_weekend"):
        end = sunday + timedelta(weeks=0 if phrase == "this_weekend" else 1)
        return _span(end - timedelta(days=1), end, today)
    if phrase == "this_week":
        return _span(today, sunday, today)
    if phrase in ("next_week", "week_after_next"):
        monday = _monday(today, 1 if phrase == "next_week" else 2)
        return _span(monday, monday + timedelta(days=6), today)
    first = _month_start(today, 0 if phrase == "this_month" else 1)
    return _span(first, _month_end(first), today)


# Single days in words: (pattern, days from today).
_DAYS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile("大後天|大後日"), 3),
    (re.compile("今天|今日|今晚|今仔日|今日仔"), 0),
    (re.compile("明天|明日|明仔載|明仔再|明仔日|聽日"), 1),
    (re.compile("後天|(?<![今明大])後日"), 2),
)
# Stretches of days said in words: (pattern, first day from today, last day from today).
_FEW_DAYS: tuple[tuple[re.Pattern[str], int, int], ...] = (
    (re.compile("過兩天|過幾天|再過兩天|過兩三天"), 1, 3),
    (re.compile("這幾天|這兩天|這兩三天|最近幾天|近幾天|這陣子"), 0, 6),
)
_YEAR_END = re.compile("年底|年尾|歲末")


def _days_in_words(text: str, today: date) -> DateReading | None:
    """這幾天, 過兩天, 年底, 今天, 明天, 後天, 大後天, 今晚, 明仔載."""
    for pattern, first, last in _FEW_DAYS:
        if pattern.search(text):
            return _span(today + timedelta(days=first), today + timedelta(days=last), today)
    if _YEAR_END.search(text):
        return _span(date(today.year, 12, 1), date(today.year, 12, 31), today)
    for pattern, days in _DAYS:
        if pattern.search(text):
            return _day(today + timedelta(days=days), today)
    return None


# 「昨天」, 「上禮拜」, 「上個月」, 「去年」: days already gone (only when nothing else is named).
_PAST_WORDS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile("大前天"), -3),
    (re.compile("昨天|昨日|昨晚"), -1),
    (re.compile("前天|(?<![以之])前日"), -2),
)
_PAST_STRETCHES = re.compile(f"{_LAST}個?{_W}|{_LAST}一?個?月|去年")


def _past_words(text: str, today: date) -> DateReading | None:
    for pattern, days in _PAST_WORDS:
        if pattern.search(text):
            return _day(today + timedelta(days=days), today)
    if _PAST_STRETCHES.search(text):
        return DateReading("past")
    return None


# -- the reader --------------------------------------------------------------------------------------

# The lunar readers run on the words as said (初一, 正月, 十五 are lunar there); the rest after Chinese
# numerals of dates became digits and impossible dates were refused.
LUNAR_READERS: tuple[Reader, ...] = (_festival, _lunar_date, _lunar_day, _solar_term)
READERS: tuple[Reader, ...] = (
    _solar_holiday,  # 12/31跨年 is the holiday's two days
    _written,
    _nth_weekday,
    _count_ahead,
    _day_of_named_month,
    _month_part,
    _year_month,
    _weekend,
    _weekday,
    _week_phrase,
    _days_in_words,
    _month,
    _day_of_month,
    _past_words,
)
# Words joining several days in one phrase: 禮拜六跟下禮拜天, 12/5到12/8, 明天或後天.
_JOIN = re.compile("跟|和|或是|或者|或|還是|與|及|、|到|至|~")
_RANGE = re.compile("到|至|~")


def _read_one(text: str, today: date) -> DateReading:
    if not _years_in_range(text, today):
        return DateReading("out_of_range")  # 0000年, 9999/12/31: no calendar day to search
    for reader in LUNAR_READERS:
        if (reading := reader(text, today)) is not None:
            return reading
    text = _arabic_dates(text)
    if _impossible(text):
        return INVALID
    for reader in READERS:
        if (reading := reader(text, today)) is not None:
            return reading
    return NONE


def _several(parts: list[str], today: date, ranged: bool) -> DateReading | None:
    """Several days named in one phrase: the span covering those still to come (past ones dropped when
    any is), invalid when one does not exist; ``None`` when fewer than two parts name a day. In a range
    (到, 至) a later part that falls before the earlier one is the next week's (禮拜一到禮拜五 said on
    a Tuesday is next week's Monday to Friday)."""
    readings = [_read_one(part, today) for part in parts if part.strip()]
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
