"""Months, years and their parts as a grammar: rules whose patterns are made of tokens other rules read.

A rule is a :class:`Rule` (name, pattern, production), as Duckling writes them: its pattern mixes words
with the tokens ``<month>``, ``<year>``, ``<part>`` and ``<n>``, each expanded from one definition, and
its production turns what the tokens read into a :class:`DateReading`. So a part of a month
(上旬, 月底, 前十天, 最後五天, 第二週, 15號) is written once and works on any month reading —
這個月, 下個月, 上個月, 當月, 12月, 明年三月, 2018年10月 — and a named month keeps **that** month:

- a month with a year is that year's; 這個月 / 下個月 / 上個月 count from today;
- a bare month (三月底) is this year's while the part is still to come or ended this month or last
  (then it is past), else next year's, as a written date without a year is.

The rules are tried in :data:`RULES` order; the first whose pattern is found answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from local_agent.language.date_base import (
    INVALID,
    NUMBER,
    YEAR_WORD,
    DateReading,
    exists,
    month_end,
    month_start,
    number,
    one_day,
    span_of,
    weekday_index,
    year_of,
)
from local_agent.language.patterns import quick

_TOKENS = {
    "<year>": f"(?P<year>{YEAR_WORD})",
    "<month>": (
        f"(?:(?P<myear>{YEAR_WORD})的?)?(?<![\\d])(?P<mon>\\d{{1,2}})\\s*(?:個)?月份?"
        "|(?P<rel>這一?個?|本|今個|當|同|下下一?個?|上上一?個?|下一?個?|上一?個?)月份?"
    ),
    "<n>": f"(?P<n>{NUMBER})",
}
_WEEK = "(?:週|周|星期|禮拜)"


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    prod: Callable[[re.Match[str], date], DateReading | None]


def rule(name: str, pattern: str) -> Callable[[Callable[[re.Match[str], date], DateReading | None]], Rule]:
    """A production function as a :class:`Rule`, its ``pattern``'s tokens expanded."""
    for token, regex in _TOKENS.items():
        pattern = pattern.replace(token, f"(?:{regex})")

    def make(prod: Callable[[re.Match[str], date], DateReading | None]) -> Rule:
        return Rule(name, quick(pattern), prod)

    return make


# -- a month reading -------------------------------------------------------------------------------


def _ahead(rel: str) -> int:
    """How many months (or quarters) ``rel`` counts from this one: 下下個 2, 下個 1, 這個 0, 上上個 -2."""
    step = 1 if rel.startswith("下") else -1 if rel.startswith("上") else 0
    return step * 2 if rel[:2] in ("下下", "上上") else step


def _month_first(match: re.Match[str], today: date, part: Callable[[date], tuple[date, date]]) -> date | None:
    """The first day of the month ``<month>`` read; ``part`` (its days, from a month's first day)
    decides the year of a bare month. ``None`` when the month does not exist (13月)."""
    groups = match.groupdict()
    if groups.get("rel"):
        return month_start(today, _ahead(groups["rel"]))
    month = int(groups["mon"])
    if not 1 <= month <= 12:
        return None
    if groups.get("myear"):
        return date(year_of(groups["myear"], today), month, 1)
    first = date(today.year, month, 1)
    if part(first)[1] >= today or first >= month_start(today, -1):
        return first  # still to come, or this month's or last month's (past)
    return date(today.year + 1, month, 1)


def _on_month(
    part: Callable[[date, re.Match[str]], tuple[date, date] | None],
) -> Callable[..., DateReading | None]:
    """A production reading ``part`` of the month the match names."""

    def prod(match: re.Match[str], today: date) -> DateReading | None:
        first = _month_first(match, today, lambda f: part(f, match) or (f, f))
        days = part(first, match) if first is not None else None
        return INVALID if days is None else span_of(*days, today)

    return prod


_PARTS = {"初": (1, 5), "中": (11, 20), "上旬": (1, 10), "中旬": (11, 20), "下旬": (21, 31)}


def _named_part(first: date, match: re.Match[str]) -> tuple[date, date] | None:
    return _part_days(first, match.group("part"))


def _part_days(first: date, part: str) -> tuple[date, date]:
    end = month_end(first)
    if part in ("底", "尾", "末"):
        return end - timedelta(days=6), end
    low, high = _PARTS[part]
    return first.replace(day=low), first.replace(day=min(high, end.day))


def _first_days(first: date, match: re.Match[str]) -> tuple[date, date] | None:
    count = number(match.group("n")) or 0
    if not 1 <= count <= 31:
        return None
    end = month_end(first)
    if match.group("edge") in ("前", "頭", "首"):
        return first, min(first + timedelta(days=count - 1), end)
    return max(end - timedelta(days=count - 1), first), end


def _nth_week(first: date, match: re.Match[str]) -> tuple[date, date] | None:
    """The Nth week of a month: weeks run Monday to Sunday from the month's first Monday."""
    nth = number(match.group("n")) or 0
    monday = first + timedelta(days=(7 - first.weekday()) % 7 + 7 * (nth - 1))
    return (monday, monday + timedelta(days=6)) if nth >= 1 and monday.month == first.month else None


def _day_of(first: date, match: re.Match[str]) -> tuple[date, date] | None:
    dom = int(match.group("dom"))
    if not exists(first.year, first.month, dom):
        return None
    return first.replace(day=dom), first.replace(day=dom)


_PART = "(?P<part>上旬|中旬|下旬|初(?![一二三四五六七八九十\\d])|中(?!旬|午|秋|元)|底|尾|末)"
_REL_MONTH = "(?P<rel>這一?個?|本|今個|當|同|下下一?個?|上上一?個?|下一?個?|上一?個?)月份?"
MONTH_PART = rule("month part", f"(?:<month>)的?月?{_PART}")(_on_month(_named_part))
MONTH_EDGE_DAYS = rule("first or last days of a month", "(?:<month>)的?(?P<edge>前|頭|首|最後)<n>天")(
    _on_month(_first_days)
)
MONTH_NTH_WEEK = rule("Nth week of a month", f"(?:<month>)的?第<n>個?{_WEEK}(?![一二三四五六日天末])")(
    _on_month(_nth_week)
)


def _nth_weekday(first: date, match: re.Match[str]) -> tuple[date, date] | None:
    """The Nth given weekday of a month (下個月第二個禮拜六); the Nth weekend is its Saturday and the
    Sunday after; the last (最後一個) is counted back from the month's end."""
    weekday = 5 if match.group("wd") is None else weekday_index(match.group("wd"))
    end = month_end(first)
    if match.group("last"):
        day = end - timedelta(days=(end.weekday() - weekday) % 7)
    else:
        nth = number(match.group("n")) or 0
        day = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
        if nth < 1 or day.month != first.month:
            return None  # (a fifth Saturday in a month of four)
    return day, day + timedelta(days=1 if match.group("wd") is None else 0)


MONTH_NTH_WEEKDAY = rule(
    "Nth weekday or weekend of a month",
    f"(?:<month>)的?(?:第<n>|(?P<last>最後一?))個?(?:{_WEEK}(?P<wd>[一二三四五六日天])|週末|周末)",
)(_on_month(_nth_weekday))
DAY_OF_REL_MONTH = rule("day of this, next or last month", f"{_REL_MONTH}的?(?P<dom>\\d{{1,2}})\\s*[號号日]")(
    _on_month(_day_of)
)


@rule(
    "bare month part",
    "(?<![\\d年])(?:月(?P<part>初|中|底|尾)(?![一二三四五六七八九十旬])|(?P<ten>上|中|下)旬)",
)
def BARE_MONTH_PART(match: re.Match[str], today: date) -> DateReading:  # noqa: N802 - a rule, named as one
    """月初, 月底, 下旬 with no month: this month's, or next month's once gone."""
    part = match.group("part") or match.group("ten") + "旬"
    for ahead in (0, 1):
        first = month_start(today, ahead)
        days = _part_days(first, part)
        if days[1] >= today:
            return span_of(*days, today)
    return span_of(*_part_days(month_start(today, 1), part), today)


@rule("this month", "(?:當|本)月份?(?![的\\d初中底尾末])")
def THIS_MONTH(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """當月, 本月份: this month, from today."""
    first = month_start(today, 0)
    return span_of(first, month_end(first), today)


# -- years, their parts, quarters and weeks ----------------------------------------------------------


def _year(match: re.Match[str], today: date) -> int:
    word = match.groupdict().get("year")
    return year_of(word, today) if word else today.year


@rule("part of a year", "<year>的?年?(?P<ypart>初|伊始|底|末|尾|上半年?|下半年?)")
def YEAR_PART(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """明年初 (January and February), 19年底 (December), 2022年伊始 (January), 上半年, 下半年."""
    year, part = _year(match, today), match.group("ypart")
    spans = {"初": (1, 2), "伊始": (1, 1), "底": (12, 12), "末": (12, 12), "尾": (12, 12)}
    low, high = spans.get(part, (1, 6) if part.startswith("上") else (7, 12))
    return span_of(date(year, low, 1), month_end(date(year, high, 1)), today)


@rule("months counted in a year", "<year>的?(?P<edge>前|頭|首|後|最後|第)(?:<n>)?個?月")
def YEAR_MONTHS(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """2022年前十一個月, 2005年首月, 二零二一年後三月, 70年第8個月."""
    year, edge = _year(match, today), match.group("edge")
    count = number(match.group("n")) if match.group("n") else 1
    if count is None or not 1 <= count <= 12:
        return INVALID
    if edge == "第":
        first = date(year, count, 1)
        return span_of(first, month_end(first), today)
    low, high = (1, count) if edge in ("前", "頭", "首") else (13 - count, 12)
    return span_of(date(year, low, 1), month_end(date(year, high, 1)), today)


@rule("Nth week of a year", f"<year>的?第<n>個?{_WEEK}(?![一二三四五六日天])")
def YEAR_WEEK(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """今年第三十七個星期, 21年第一個禮拜: weeks from the year's first Monday."""
    year, nth = _year(match, today), number(match.group("n")) or 0
    first = date(year, 1, 1)
    monday = first + timedelta(days=(7 - first.weekday()) % 7 + 7 * (nth - 1))
    return span_of(monday, monday + timedelta(days=6), today) if 1 <= nth <= 53 else INVALID


_QUARTER = "(?:季度|季)"


def _quarter_days(year: int, quarter: int, part: str | None) -> tuple[date, date]:
    first = date(year, 3 * quarter - 2, 1)
    last = month_end(date(year, 3 * quarter, 1))
    if part == "初":
        return first, month_end(first)
    if part in ("末", "底"):
        return last.replace(day=1), last
    return first, last


@rule(
    "a quarter",
    "(?:<year>的?)?(?:第(?P<q>[1-4一二三四])個?季度?|(?P<q2>[1-4一二三四]|首)個?季度|[Qq](?P<qq>[1-4])(?:季度?)?)"
    "(?P<qpart>初|末|底)?(?![後前內以之])",
)
def QUARTER(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """一季度, 2022年首季度, Q1, 2013年一季度末: that quarter (a bare one is the next not yet over)."""
    word = match.group("q") or match.group("q2") or match.group("qq")
    quarter = 1 if word == "首" else number(word) or 1
    if match.groupdict().get("year"):
        return span_of(*_quarter_days(_year(match, today), quarter, match.group("qpart")), today)
    for year in (today.year, today.year + 1):
        days = _quarter_days(year, quarter, match.group("qpart"))
        if days[1] >= today:
            return span_of(*days, today)
    return span_of(*_quarter_days(today.year + 1, quarter, match.group("qpart")), today)


@rule("this, next or last quarter", f"(?P<rel>這一?個?|本|下一?個?|上一?個?){_QUARTER}(?P<qpart>初|末|底)?")
def REL_QUARTER(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """本季度, 上個季度, 上季度末, 下一季."""
    ahead = _ahead(match.group("rel"))
    index = today.year * 4 + (today.month - 1) // 3 + ahead
    return span_of(*_quarter_days(index // 4, index % 4 + 1, match.group("qpart")), today)


@rule("quarters counted in a year", f"(?:<year>的?)?(?P<edge>前|頭)<n>個?{_QUARTER}")
def YEAR_QUARTERS(match: re.Match[str], today: date) -> DateReading:  # noqa: N802
    """今年前三季度, 2021年前兩個季度."""
    count = number(match.group("n")) or 1
    year = _year(match, today)
    return span_of(date(year, 1, 1), _quarter_days(year, min(count, 4), None)[1], today)


_YEAR_MONTH = quick(f"({YEAR_WORD})的?\\s*(\\d{{1,2}})\\s*月份?(?![\\s\\d]*[日號号])")


def year_month(text: str, today: date) -> DateReading | None:
    """今年3月, 明年九月, 2027年5月: that whole month (past when it has ended)."""
    match = _YEAR_MONTH.search(text)
    if match is None:
        return None
    year, month = year_of(match.group(1), today), int(match.group(2))
    if not 1 <= month <= 12:
        return INVALID
    first = date(year, month, 1)
    return span_of(first, month_end(first), today)


RULES: tuple[Rule, ...] = (
    MONTH_NTH_WEEKDAY,
    MONTH_NTH_WEEK,
    MONTH_EDGE_DAYS,
    DAY_OF_REL_MONTH,
    MONTH_PART,
    YEAR_WEEK,
    YEAR_MONTHS,
    YEAR_QUARTERS,
    QUARTER,
    REL_QUARTER,
    YEAR_PART,
    BARE_MONTH_PART,
    THIS_MONTH,
)


# Every rule's pattern says one of these (a month, a year, a quarter, a ten-day part): a sentence
# with none of them is not looked at.
MARKS = frozenset("月年季旬Qq")


def month_phrases(text: str, today: date) -> DateReading | None:
    """The first rule of :data:`RULES` whose pattern ``text`` holds, read."""
    if MARKS.isdisjoint(text):
        return None
    for one in RULES:
        if (match := one.pattern.search(text)) is not None and (
            reading := one.prod(match, today)
        ) is not None:
            return reading
    return None


# What each reader here must find before it reads anything (``dates`` asks them all at once first).
FOUND_FIRST: tuple[re.Pattern[str], ...] = (*(one.pattern for one in RULES), _YEAR_MONTH)

__all__ = ["FOUND_FIRST", "MARKS", "RULES", "Rule", "month_phrases", "one_day", "rule", "year_month"]
