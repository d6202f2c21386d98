"""Windows of Taiwan days (UTC+8) and ISO dates: the value types the listings and the tools share.

A :class:`DateWindow` is whole days, both ends included; ``parse_iso_date`` reads ``YYYY-MM-DD`` (the
listings file's dates and the tools' arguments); :data:`MAX_WINDOW_DAYS` bounds a window. Reading date
*phrases* (「這週末」, 「農曆十一月十五」) is the language wing's, in ``local_agent/language/dates.py``: the
listings sit below it and never read people's words.

Taiwan keeps UTC+8 all year (no daylight saving), so a fixed offset is used instead of ``zoneinfo``:
a bare ``python3`` without tz data still gets the right day. Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta, timezone

TAIPEI = timezone(timedelta(hours=8), "Asia/Taipei")
# A window longer than this is refused as a tool argument (a year and a day covers 「下個月」 in any month).
MAX_WINDOW_DAYS = 366
WEEKDAYS = "一二三四五六日"
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


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


__all__ = ["MAX_WINDOW_DAYS", "TAIPEI", "WEEKDAYS", "DateWindow", "day_label", "parse_iso_date"]
