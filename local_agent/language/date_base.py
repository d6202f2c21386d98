"""What every date rule builds on: the reading a date phrase gets, spans of days, numbers and years."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from local_agent.language.patterns import quick
from local_agent.listings.dates import MAX_WINDOW_DAYS, TAIPEI, DateWindow

FIRST_YEAR, LAST_YEAR = 1901, 2100
DateKind = Literal["none", "window", "past", "invalid", "out_of_range", "unavailable"]
INVALID_DATE_TEXT = "這個日期不存在（例如 2月30日、13月），請再說一次日期，例如「這週末」或「12月5日」。"
OUT_OF_RANGE_TEXT = f"日期我只能查 {FIRST_YEAR} 到 {LAST_YEAR} 年的，請再說一次日期，例如「12月5日」。"
UNAVAILABLE_TEXT = "這裡查不到農曆日期，請直接說日期，例如「12月5日」。"
MOVED_TEXT = "這週的「{gone}」已經過了，幫您查下一個：「{day}」。"
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
    # A weekday said bare (禮拜一 on a Tuesday) that is already gone this week: the day gone. The
    # window is next week's, and the reply says so (:attr:`moved_answer`), never silently.
    moved_from: DateWindow | None = None

    @property
    def moved_answer(self) -> str | None:
        """「本週的「12/1（一）」已經過了，幫您查下週的」 when the day named this week is gone."""
        if self.moved_from is None or self.window is None:
            return None
        return MOVED_TEXT.format(gone=self.moved_from.label(), day=self.window.label())

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


def span_of(start: date, end: date, today: date, *, festival: bool = False) -> DateReading:
    """``start``..``end`` as a reading: past when it ended before today, else from today at the
    earliest and at most :data:`MAX_WINDOW_DAYS` long."""
    if end < today:
        return DateReading("past", festival=festival, said=DateWindow(start, end))
    start = max(start, today)
    end = min(end, start + timedelta(days=MAX_WINDOW_DAYS - 1))
    return DateReading("window", DateWindow(start, end), festival=festival)


def one_day(day: date, today: date, *, festival: bool = False) -> DateReading:
    return span_of(day, day, today, festival=festival)


def month_end(day: date) -> date:
    return (day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)


def month_start(day: date, months_ahead: int) -> date:
    index = day.year * 12 + day.month - 1 + months_ahead
    return date(index // 12, index % 12 + 1, 1)


def monday_of(today: date, weeks_ahead: int = 0) -> date:
    return today - timedelta(days=today.weekday()) + timedelta(weeks=weeks_ahead)


def exists(year: int, month: int, dom: int) -> bool:
    try:
        date(year, month, dom)
    except ValueError:
        return False
    return True


_CHINESE_DIGITS = {"一": 1, "二": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
NUMBER = "[0-9]{1,3}|[一二兩三四五六七八九十廿]{1,3}"


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


def weekday_index(char: str) -> int:
    return min("一二三四五六日天".index(char), 6)  # 日 and 天 are both Sunday


_YEAR_WORDS = {
    "今年": 0,
    "明年": 1,
    "下年": 1,
    "次年": 1,
    "隔年": 1,
    "後年": 2,
    "去年": -1,
    "前年": -2,
    "大前年": -3,
}
# A year: 2027年, ROC 116年, a two-digit 27年 (the nearer century), 今年 …; after Chinese numerals of
# years became digits (二零二七年 → 2027年).
YEAR_WORD = r"(?<![\d])\d{2,4}\s*年|大前年|今年|明年|下年|次年|隔年|後年|去年|前年"
YEAR = quick(f"({YEAR_WORD})")


def year_of(word: str, today: date) -> int:
    """The year ``word`` (a :data:`YEAR_WORD` match) names."""
    if word in _YEAR_WORDS:
        return today.year + _YEAR_WORDS[word]
    digits = int(word.rstrip("年 "))
    if len(word.rstrip("年 ")) == 3:
        return digits + 1911  # 民國 116年 is 2027
    if digits < 100:
        return min((c * 100 + digits for c in (19, 20, 21)), key=lambda y: abs(y - today.year))
    return digits


def year_said(text: str, today: date) -> int | None:
    match = YEAR.search(text)
    return None if match is None else year_of(match.group(1), today)


_GROUP_NAME = quick(r"\(\?P<\w+>")


def any_of(patterns: list[re.Pattern[str]] | tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """One pattern that matches where any of ``patterns`` does (group names dropped): a reader that
    tries many patterns in turn asks this one first and stops when it finds nothing."""
    return quick("|".join(f"(?:{_GROUP_NAME.sub('(?:', p.pattern)})" for p in patterns))
