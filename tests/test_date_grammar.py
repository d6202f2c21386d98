"""The date kinds checked against a grammar of each kind: phrases generated from numbers, months, festivals
and days, each window computed here independently (``calendar``, ``sxtwl``), not listed case by case."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

import sxtwl
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.language.dates import read_dates

DIGITS = "零一二三四五六七八九"
days = st.dates(min_value=date(2024, 1, 1), max_value=date(2032, 12, 31))


def chinese(n: int, *, nian: bool = False) -> str:
    """1..31 in Chinese numerals (廿 for the twenties when ``nian``)."""
    tens, ones = divmod(n, 10)
    head = {0: "", 1: "十", 2: "廿" if nian else "二十", 3: "三十"}[tens]
    return head + (DIGITS[ones] if ones else "")


def window(text: str, today: date) -> tuple[date, date]:
    reading = read_dates(text, today)
    assert reading.kind == "window" and reading.window is not None, (text, today, reading)
    return reading.window.start, reading.window.end


LUNAR_NAMES = {(1, 15), (5, 5), (7, 7), (7, 15), (8, 15), (9, 9)}  # 正月十五, 五月初五 … name festivals
PARTS = {"上旬": (1, 10), "中旬": (11, 20), "下旬": (21, 31), "初": (1, 5), "底": (-7, 0)}


def part_days(year: int, month: int, part: str) -> tuple[date, date]:
    last = calendar.monthrange(year, month)[1]
    low, high = PARTS[part]
    if low < 0:
        return date(year, month, last - 6), date(year, month, last)
    return date(year, month, low), date(year, month, min(high, last))


@settings(max_examples=120, deadline=None)
@given(today=days, month=st.integers(1, 12), part=st.sampled_from(sorted(PARTS)), numerals=st.booleans())
def test_a_part_of_a_named_month_keeps_that_month(today, month, part, numerals):
    year = today.year + 1
    said = chinese(month) if numerals else str(month)
    start, end = part_days(year, month, part)
    assert window(f"明年{said}月{part}", today) == (start, end)
    # a bare month: this year's while still to come, else (two months or more gone) next year's
    this = part_days(today.year, month, part)
    reading = read_dates(f"{said}月{part}", today)
    if this[1] >= today:
        assert (reading.window.start, reading.window.end) == (max(this[0], today), this[1])
    elif (today.year * 12 + today.month) - (today.year * 12 + month) >= 2:
        assert (reading.window.start, reading.window.end) == part_days(today.year + 1, month, part)
    else:
        assert reading.kind == "past" and reading.said.start == this[0]


@settings(max_examples=120, deadline=None)
@given(today=days, ahead=st.integers(1, 300), nian=st.booleans(), suffix=st.sampled_from(["日", "號", ""]))
def test_a_date_in_chinese_numerals_is_that_day(today, ahead, nian, suffix):
    day = today + timedelta(days=ahead)
    if not suffix and (day.month, day.day) in LUNAR_NAMES:
        suffix = "日"  # 七月十五 with no 日 is 中元 (the lunar 7/15) in Taiwan: the festival reading wins
    text = f"{day.year}年{chinese(day.month)}月{chinese(day.day, nian=nian)}{suffix}"
    assert window(text, today) == (day, day)


def next_lunar(today: date, month: int, dom: int, offset: int = 0) -> date:
    lunar_year = sxtwl.fromSolar(today.year, today.month, today.day).getLunarYear() - 1
    while True:
        found = sxtwl.fromLunar(lunar_year, month, dom)
        day = date(found.getSolarYear(), found.getSolarMonth(), found.getSolarDay()) + timedelta(days=offset)
        if day >= today:
            return day
        lunar_year += 1


FESTIVALS = {"端午": (5, 5), "中秋": (8, 15), "元宵": (1, 15), "七夕": (7, 7), "重陽": (9, 9)}


@settings(max_examples=120, deadline=None)
@given(
    today=days,
    name=st.sampled_from(sorted(FESTIVALS)),
    n=st.integers(1, 9),
    before=st.booleans(),
    spoken=st.booleans(),
)
def test_n_days_around_a_festival(today, name, n, before, spoken):
    offset = -n if before else n
    text = f"{name}{'前' if before else '後'}{chinese(n) if spoken else n}天"
    day = next_lunar(today, *FESTIVALS[name], offset)
    assert window(text, today) == (day, day)


@settings(max_examples=80, deadline=None)
@given(today=days, n=st.integers(1, 15), word=st.sampled_from(["大年初", "正月初", "新年第", "春節第"]))
def test_the_nth_day_of_the_new_year(today, n, word):
    text = f"{word}{chinese(n)}" + ("天" if word.endswith("第") else "")
    day = next_lunar(today, 1, n)
    assert window(text, today) == (day, day)


@settings(max_examples=120, deadline=None)
@given(today=days, index=st.integers(0, 6), word=st.sampled_from(["禮拜", "星期", "週"]))
def test_a_weekday_gone_this_week_is_said_to_be_gone(today, index, word):
    name = "一二三四五六日"[index]
    this_week = today - timedelta(days=today.weekday()) + timedelta(days=index)
    bare, this = read_dates(f"{word}{name}", today), read_dates(f"這{word}{name}", today)
    if this_week < today:
        assert bare.window.start == this_week + timedelta(weeks=1) and bare.moved_from.start == this_week
        assert bare.moved_answer and this.kind == "past" and this.said.start == this_week
    else:
        assert (bare.window.start, bare.moved_from) == (this_week, None)


@settings(max_examples=120, deadline=None)
@given(today=days, n=st.integers(1, 90), marker=st.sampled_from(["內", "之內", "以內"]), spoken=st.booleans())
def test_within_n_days(today, n, marker, spoken):
    said = str(n) if not spoken or n > 31 else chinese(n)
    assert window(f"{said}天{marker}", today) == (today, today + timedelta(days=n - 1))


def months_on(today: date, months: int, extra_days: int = 0) -> date:
    index = today.year * 12 + today.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(today.day, calendar.monthrange(year, month + 1)[1])) + timedelta(
        extra_days
    )


@settings(max_examples=80, deadline=None)
@given(today=days, n=st.integers(1, 9))
def test_halves_of_months_and_years(today, n):
    assert window(f"{chinese(n)}個半月", today) == (today, months_on(today, n, 15) - timedelta(days=1))
    assert window(f"{chinese(n)}個月內", today) == (today, months_on(today, n) - timedelta(days=1))
    assert window("半個月內", today) == (today, today + timedelta(days=14))
    later = months_on(today, 6)
    assert window("半年後", today) == (
        later.replace(day=1),
        later.replace(day=calendar.monthrange(later.year, later.month)[1]),
    )
    ago = read_dates(f"{chinese(n)}天前", today)
    assert ago.kind == "past" and ago.said.start == today - timedelta(days=n)


@settings(max_examples=40, deadline=None)
@given(today=days, month=st.sampled_from([2, 3, 4, 5, 6, 11]))
def test_a_leap_month_is_the_next_one_the_calendar_has(today, month):
    lunar_year = sxtwl.fromSolar(today.year, today.month, today.day).getLunarYear() - 1
    while True:
        if sxtwl.getRunMonth(lunar_year) == month:
            first = sxtwl.fromLunar(lunar_year, month, 1, True)
            start = date(first.getSolarYear(), first.getSolarMonth(), first.getSolarDay())
            nxt = sxtwl.fromLunar(lunar_year, month + 1, 1)
            end = date(nxt.getSolarYear(), nxt.getSolarMonth(), nxt.getSolarDay()) - timedelta(days=1)
            if end >= today:
                break
        lunar_year += 1
    assert window(f"閏{chinese(month)}月", today) == (max(start, today), end)


@settings(max_examples=60, deadline=None)
@given(
    today=days,
    word=st.sampled_from(["今天", "今日", "今仔日", "本日"]),
    month_word=st.sampled_from(["這個月", "本月", "這個月份", "當月"]),
)
def test_words_for_today_and_this_month(today, word, month_word):
    assert window(f"{word}有什麼活動", today) == (today, today)
    end = today.replace(day=calendar.monthrange(today.year, today.month)[1])
    assert window(f"{month_word}有什麼活動", today) == (today, end)


@settings(max_examples=80, deadline=None)
@given(today=days, back=st.integers(1, 400))
def test_a_date_already_gone_is_past_never_moved(today, back):
    day = today - timedelta(days=back)
    reading = read_dates(f"{day.year}年{day.month}月{day.day}日", today)
    assert reading.kind == "past" and reading.said.start == day and reading.window is None


def test_a_month_phrase_or_a_span_always_says_one_of_its_marks() -> None:
    """:func:`month_phrases` skips a sentence without a month, year, quarter or ten-day mark, and the span
    readers one without a unit: every pattern holds one, and none matches a sentence (from every date and
    phrasing corpus here) that has none."""
    import json
    from pathlib import Path

    from local_agent.language import date_spans
    from local_agent.language.date_grammar import MARKS, RULES
    from local_agent.language.dates import _arabic_dates, normalise
    from local_agent.language.text import reading_form

    spans = [getattr(date_spans, name) for name in date_spans.PATTERNS]
    assert all(not MARKS.isdisjoint(rule.pattern.pattern) for rule in RULES)
    assert all(not date_spans.UNIT_MARKS.isdisjoint(pattern.pattern) for pattern in spans)
    data = Path(__file__).resolve().parent.parent / "bench" / "data"
    said = [
        json.loads(line)["text"]
        for name in ("duckling_zh_dates", "duckling_zh_day_level", "jionlp_dates")
        for line in (data / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for line in (data / "phrasings.jsonl").read_text(encoding="utf-8").splitlines():
        said += [turn["text"] for turn in json.loads(line)["turns"] if "text" in turn]
    looked = unitless = 0
    for text in said:
        form = _arabic_dates(normalise(reading_form(text)))
        if MARKS.isdisjoint(form):
            looked += 1
            assert not any(rule.pattern.search(form) for rule in RULES), text
        if date_spans.UNIT_MARKS.isdisjoint(form):
            unitless += 1
            assert not any(pattern.search(form) for pattern in spans), text
    assert looked > 10_000 and unitless > 8_000
