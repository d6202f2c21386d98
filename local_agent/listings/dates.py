"""Date phrases in a question → a window of days in Taiwan time (UTC+8), relative to the service clock.

「今天」「明天」「後天」「這禮拜/這週」「這週末/週末」「下禮拜/下週」「下週末」「這個月」「下個月」, a weekday
(「週六」「下禮拜天」) and explicit dates (「12月5日」「12/5」「2027-01-10」) resolve to a :class:`DateWindow` of
whole days, both ends included. 「每週六」 is a rhythm, not a date: no window. Weeks run Monday to Sunday; 「這週」 is today up to this Sunday (the days already gone are of no
use to someone asking), 「這個月」 is today up to the month's last day. An explicit date without a year
is the next such day on or after today (「1/10」 asked in December means next January).

Taiwan keeps UTC+8 all year (no daylight saving), so a fixed offset is used instead of ``zoneinfo``:
a bare ``python3`` without tz data still gets the right day. Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

TAIPEI = timezone(timedelta(hours=8), "Asia/Taipei")
# A window longer than this is refused as a tool argument (a year and a day covers 「下個月」 in any month).
MAX_WINDOW_DAYS = 366
WEEKDAYS = "一二三四五六日"
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def today_in_taipei(epoch_seconds: float) -> date:
    """The calendar day in Taiwan at ``epoch_seconds`` (the service clock's reading)."""
    return datetime.fromtimestamp(epoch_seconds, TAIPEI).date()


def parse_iso_date(value: str) -> date:
    """``YYYY-MM-DD`` only (no times, no week dates); ``ValueError`` for 2026-02-30 and the like."""
    if not _ISO.match(value):
        raise ValueError(f"{value!r} is not a YYYY-MM-DD date")
    return date.fromisoformat(value)


def day_label(day: date) -> str:
    """「12/5（六）」: month/day and the weekday, as a reply shows it."""
    return f"{day.month}/{day.day}（{WEEKDAYS[day.weekday()]}）"


@dataclass(frozen=True)
class DateWindow:
    """Whole days from ``start`` to ``end``, both included, in Taiwan time."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError("a date window cannot end before it starts")

    def overlaps(self, start: date, end: date) -> bool:
        """Whether the days ``start``..``end`` share at least one day with this window."""
        return start <= self.end and end >= self.start

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def arguments(self) -> dict[str, str]:
        """The window as the event tool's arguments."""
        return {"date_from": self.start.isoformat(), "date_to": self.end.isoformat()}

    def label(self) -> str:
        """「12/5（六）」 or 「11/30（一）至 12/6（日）」; the year is added when it is not the same."""
        if self.start == self.end:
            return _with_year(self.start, self.start) + day_label(self.start)
        return f"{_with_year(self.start, self.end)}{day_label(self.start)}至 {day_label(self.end)}"

    @classmethod
    def from_arguments(cls, date_from: str, date_to: str) -> DateWindow:
        """From the tool's ISO arguments: ``date_to`` empty means the one day ``date_from``.
        ``ValueError`` (with a reason) for a missing start, a bad date, a reversed or too long window."""
        if not date_from:
            raise ValueError("date_from is required when date_to is given")
        start = parse_iso_date(date_from)
        end = parse_iso_date(date_to) if date_to else start
        if end < start:
            raise ValueError("date_to is before date_from")
        window = cls(start, end)
        if window.days > MAX_WINDOW_DAYS:
            raise ValueError(f"a window is at most {MAX_WINDOW_DAYS} days")
        return window


def _with_year(start: date, end: date) -> str:
    return "" if start.year == end.year else f"{start.year} 年 "


def _month_end(day: date) -> date:
    first_of_next = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    return first_of_next - timedelta(days=1)


def _week_of(today: date, weeks_ahead: int) -> tuple[date, date]:
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=weeks_ahead)
    return monday, monday + timedelta(days=6)


def _weekday(text: str, today: date) -> DateWindow:
    """「週六」「禮拜天」: that day this week, or next week once it has passed; 「下週六」: next week's."""
    match = _WEEKDAY.search(text)
    assert match is not None
    wanted = min("一二三四五六日天".index(match.group(2)), 6)  # 日 and 天 are both Sunday
    day = today - timedelta(days=today.weekday()) + timedelta(days=wanted)
    if match.group(1) and match.group(1).startswith("下"):
        day += timedelta(weeks=1)
    elif day < today:
        day += timedelta(weeks=1)
    return DateWindow(day, day)


def _relative(phrase: str, today: date) -> DateWindow:
    if phrase == "today":
        return DateWindow(today, today)
    if phrase == "tomorrow":
        return DateWindow(today + timedelta(days=1), today + timedelta(days=1))
    if phrase == "day_after":
        return DateWindow(today + timedelta(days=2), today + timedelta(days=2))
    if phrase in ("this_weekend", "next_weekend"):
        _, sunday = _week_of(today, 0 if phrase == "this_weekend" else 1)
        return DateWindow(max(today, sunday - timedelta(days=1)), sunday)
    if phrase == "this_week":
        return DateWindow(today, _week_of(today, 0)[1])
    if phrase == "next_week":
        return DateWindow(*_week_of(today, 1))
    if phrase == "this_month":
        return DateWindow(today, _month_end(today))
    first_of_next = _month_end(today) + timedelta(days=1)  # next_month
    return DateWindow(first_of_next, _month_end(first_of_next))


_W = "(?:禮拜|星期|週|周)"
_NOT_EVERY = "(?<!每)(?<!每個)"  # 「每週六」「每個禮拜天」 are a rhythm, not a day
_WEEKDAY = re.compile(f"{_NOT_EVERY}(下個?|這個?|本)?{_W}([一二三四五六日天])")
# Longest and most specific first: 這週末 before 這週, 下週末 before 下週 and 週末.
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile("今天|今日"), "today"),
    (re.compile("大後天"), ""),  # not supported: never read as 後天
    (re.compile("明天|明日"), "tomorrow"),
    (re.compile("後天"), "day_after"),
    (re.compile(f"下個?{_W}末|下{_W}六日"), "next_weekend"),
    (
        re.compile(f"(?:這個?|本){_W}末|{_NOT_EVERY}(?:這個?|本)?{_W}六日|{_NOT_EVERY}(?:週末|周末)"),
        "this_weekend",
    ),
    (_WEEKDAY, "weekday"),
    (re.compile(f"下個?{_W}"), "next_week"),
    (re.compile(f"(?:這個?|本){_W}"), "this_week"),
    (re.compile("下個?月"), "next_month"),
    (re.compile("(?:這個?|本)月"), "this_month"),
)
_YMD = re.compile(r"(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})[日號号]?")
_MD = re.compile(r"(?<![\d/])(\d{1,2})(?:月(\d{1,2})[日號号]|/(\d{1,2}))(?![\d/])")


def _explicit(text: str, today: date) -> DateWindow | None:
    """A written date; ``None`` when there is none. A written date that does not exist (2/30) is not a
    window either: the search then runs without one, and says so."""
    if match := _YMD.search(text):
        try:
            day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return None
        return DateWindow(day, day)
    if match := _MD.search(text):
        month, dom = int(match.group(1)), int(match.group(2) or match.group(3))
        for year in (today.year, today.year + 1):
            try:
                day = date(year, month, dom)
            except ValueError:
                continue  # 2/29 in a common year: try the next year
            if day >= today:
                return DateWindow(day, day)
    return None


def find_date_window(text: str, today: date) -> DateWindow | None:
    """The window a question's date phrase means, or ``None`` when it names no date.
    An explicit date wins over a relative phrase (「這禮拜六 12/5」 is 12/5)."""
    explicit = _explicit(text, today)
    if explicit is not None:
        return explicit
    for pattern, phrase in _PHRASES:
        if pattern.search(text):
            if phrase == "weekday":
                return _weekday(text, today)
            return _relative(phrase, today) if phrase else None
    return None


__all__ = [
    "MAX_WINDOW_DAYS",
    "TAIPEI",
    "DateWindow",
    "day_label",
    "find_date_window",
    "parse_iso_date",
    "today_in_taipei",
]
