"""Date phrases → a window of Taiwan days relative to the service clock (through the one reader,
``language.dates``); the window type, ISO dates and windowed event search of the listings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from local_agent.language.dates import date_phrase_window, today_in_taipei
from local_agent.listings.catalogue import Event, search_events
from local_agent.listings.dates import MAX_WINDOW_DAYS, DateWindow, parse_iso_date
from local_agent.listings.loader import shipped_listings

MONDAY = date(2026, 11, 30)  # the service clock's day in these tests: a Monday


def window(text: str, today: date = MONDAY) -> tuple[str, str] | None:
    found = date_phrase_window(text, today)
    return (found.start.isoformat(), found.end.isoformat()) if found else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("花壇今天有什麼活動", ("2026-11-30", "2026-11-30")),
        ("明天呢", ("2026-12-01", "2026-12-01")),
        ("後天有活動嗎", ("2026-12-02", "2026-12-02")),
        ("這禮拜有什麼活動", ("2026-11-30", "2026-12-06")),
        ("這週有什麼活動", ("2026-11-30", "2026-12-06")),
        ("這個星期", ("2026-11-30", "2026-12-06")),
        ("這週末去哪", ("2026-12-05", "2026-12-06")),
        ("週末有市集嗎", ("2026-12-05", "2026-12-06")),
        ("下禮拜有什麼", ("2026-12-07", "2026-12-13")),
        ("下週呢", ("2026-12-07", "2026-12-13")),
        ("下週末", ("2026-12-12", "2026-12-13")),
        ("這個月還有活動嗎", ("2026-11-30", "2026-11-30")),
        ("下個月有什麼", ("2026-12-01", "2026-12-31")),
        ("12月5日有活動嗎", ("2026-12-05", "2026-12-05")),
        ("12月5號", ("2026-12-05", "2026-12-05")),
        ("12/5 有活動嗎", ("2026-12-05", "2026-12-05")),
        ("1/10 呢", ("2027-01-10", "2027-01-10")),  # already past this year: next year
        ("2027-01-16 田尾", ("2027-01-16", "2027-01-16")),
        ("這禮拜六 12/12", ("2026-12-12", "2026-12-12")),  # an explicit date wins
    ],
)
def test_date_phrases_resolve_to_a_window_relative_to_today(text, expected):
    assert window(text) == expected


@pytest.mark.parametrize("text", ["花壇有什麼活動", "2/30 有活動嗎", "13/5", "電話 0912/345"])
def test_no_date_or_an_impossible_one_gives_no_window(text):
    assert window(text) is None


def test_weekends_and_weeks_from_other_days():
    saturday, sunday = date(2026, 12, 5), date(2026, 12, 6)
    assert window("這週末", saturday) == ("2026-12-05", "2026-12-06")
    assert window("週末", sunday) == ("2026-12-06", "2026-12-06")  # the days gone are no use
    assert window("這禮拜", sunday) == ("2026-12-06", "2026-12-06")
    assert window("下週", sunday) == ("2026-12-07", "2026-12-13")
    assert window("下個月", date(2026, 12, 20)) == ("2027-01-01", "2027-01-31")
    assert window("這個月", date(2027, 2, 3)) == ("2027-02-03", "2027-02-28")
    assert window("2/29", date(2027, 3, 1)) == ("2028-02-29", "2028-02-29")


def test_today_is_the_taiwan_day_of_the_service_clock():
    # 16:30 UTC on Nov 30 is already Dec 1 in Taiwan (UTC+8, no daylight saving).
    late = datetime(2026, 11, 30, 16, 30, tzinfo=UTC).timestamp()
    assert today_in_taipei(late) == date(2026, 12, 1)
    assert today_in_taipei(late - 3600) == date(2026, 11, 30)


def test_the_window_label_names_the_days_searched():
    assert DateWindow(date(2026, 12, 5), date(2026, 12, 5)).label() == "12/5（六）"
    assert DateWindow(date(2026, 11, 30), date(2026, 12, 6)).label() == "11/30（一）至 12/6（日）"
    assert DateWindow(date(2026, 12, 31), date(2027, 1, 1)).label() == "2026 年 12/31（四）至 1/1（五）"


def test_window_arguments_round_trip_and_bad_ones_are_refused():
    w = DateWindow(date(2026, 12, 5), date(2026, 12, 6))
    assert DateWindow.from_arguments(**w.arguments()) == w
    assert DateWindow.from_arguments("2026-12-05", "") == DateWindow(date(2026, 12, 5), date(2026, 12, 5))
    for start, end in [
        ("", "2026-12-05"),
        ("2026-02-30", ""),
        ("2026-12-06", "2026-12-05"),
        ("tomorrow", ""),
        ("2026-01-01", "2027-06-01"),
    ]:
        with pytest.raises(ValueError):
            DateWindow.from_arguments(start, end)
    with pytest.raises(ValueError):
        parse_iso_date("2026-1-5")


def test_a_week_window_on_the_snapshot_finds_dated_events_then_standing_ones():
    events = shipped_listings().events
    found = search_events("花壇鄉", "", events=events, window=DateWindow(MONDAY, date(2026, 12, 6)))
    assert [e.name for e in found if not e.standing] == ["花壇長青健康講座", "花壇茉莉花季踩街"]
    # the summer jasmine-field tour (months 6;7;8) is not among the standing ones in December
    assert [e.standing for e in found] == [False, False, True, True]


def test_an_event_that_ended_is_not_offered_without_a_window():
    names = [e.name for e in search_events("花壇鄉", "", events=shipped_listings().events, today=MONDAY)]
    assert "花壇秋收感恩市集" not in names and "花壇冬至湯圓共煮" in names


# -- property: every event returned for a window overlaps it or is standing ----------------------

_days = st.dates(min_value=date(2026, 1, 1), max_value=date(2027, 12, 31))


@st.composite
def events(draw: st.DrawFn) -> Event:
    ident = draw(st.integers(0, 999))
    if draw(st.booleans()):
        return Event(f"s{ident}", "常態", "花壇鄉", "廣場", "每週六", "市集", "")
    start = draw(_days)
    length = draw(st.integers(0, 60))
    end = start + timedelta(days=length) if length else None
    return Event(f"d{ident}", "有日期", "花壇鄉", "廣場", "", "市集", "", start, end)


@st.composite
def windows(draw: st.DrawFn) -> DateWindow:
    start = draw(_days)
    return DateWindow(start, start + timedelta(days=draw(st.integers(0, MAX_WINDOW_DAYS - 1))))


@given(st.lists(events(), max_size=25, unique_by=lambda e: e.id), windows())
def test_every_event_returned_for_a_window_overlaps_it_or_is_standing(pool, win):
    found = search_events("花壇鄉", "", limit=100, events=pool, window=win)
    for event in found:
        assert event.standing or (
            event.start_date is not None and event.start_date <= win.end and event.last_day >= win.start
        )
    # and nothing that overlaps is left out, dated ones first
    expected = {e.id for e in pool if e.standing or e.overlaps(win)}
    assert {e.id for e in found} == expected
    flags = [e.standing for e in found]
    assert flags == sorted(flags)


@given(st.text(max_size=30), st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)))
def test_any_question_gives_no_window_or_one_that_starts_no_earlier_than_today(text, today):
    """A past day is said to be past (no window), so every window starts today or later."""
    found = date_phrase_window(text, today)
    if found is not None:
        assert today <= found.start <= found.end and found.days <= MAX_WINDOW_DAYS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("週六有活動嗎", "2026-12-05"),
        ("禮拜天呢", "2026-12-06"),
        ("星期五晚上", "2026-12-04"),
        ("下週六", "2026-12-12"),
        ("下禮拜天", "2026-12-13"),
        ("週一有什麼", "2026-12-07"),  # Monday has passed on a Wednesday: next Monday
    ],
)
def test_a_weekday_is_that_day_this_week_or_next_once_it_has_passed(text, expected):
    wednesday = date(2026, 12, 2)
    assert window(text, wednesday) == (expected, expected)


@pytest.mark.parametrize("text", ["每週六的市集", "每個禮拜天", "每週末有什麼活動"])
def test_every_saturday_is_a_rhythm_not_a_date(text):
    assert window(text) is None
