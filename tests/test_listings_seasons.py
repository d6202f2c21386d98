"""Seasonal standing events: the optional ``months`` column of ``events.csv``, checked at load time and
honoured by every event search (a dated question, and an undated one by the service's clock)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from conftest import FakeClock

from examples.day15 import listings as cli
from local_agent.agent.tools import TurnTools
from local_agent.listings.catalogue import months_of, search_events
from local_agent.listings.dates import DateWindow
from local_agent.listings.loader import EVENT_COLUMNS, PLACE_COLUMNS, ListingsError, load_listings
from local_agent.stores.sqlite import SqliteStore

HEADER = ",".join((*EVENT_COLUMNS, "months"))
PLACES = ",".join(PLACE_COLUMNS) + "\nx01,永靖素食小館,永靖鄉,素食,vegetarian,公所附近,便當\n"


def folder(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "places.csv").write_text(PLACES, encoding="utf-8")
    (tmp_path / "events.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return tmp_path


def event(months: str, *, id: str = "y01", dates: str = ",") -> str:
    return f"{id},永靖荔枝採果,永靖鄉,果園,體驗,{dates},產季週末,採荔枝,{months}"


def taiwan_noon(day: date) -> float:
    return datetime(day.year, day.month, day.day, 4, 0, tzinfo=UTC).timestamp()


# -- the column -----------------------------------------------------------------------------------


def test_months_read_as_a_set_and_empty_or_absent_means_all_year(tmp_path):
    listings = load_listings(
        folder(tmp_path, event("6;7;8"), event("", id="y02"), event(" 12 ; 1 ", id="y03"))
    )
    assert [e.months for e in listings.events] == [frozenset({6, 7, 8}), frozenset(), frozenset({12, 1})]
    without = load_listings(folder(tmp_path / "old", event("")[: -len(",")], header=",".join(EVENT_COLUMNS)))
    assert without.events[0].months == frozenset()


@pytest.mark.parametrize(
    ("cell", "says"),
    [
        ("0", "'0' is not a month (write 1 to 12)"),
        ("13", "'13' is not a month (write 1 to 12)"),
        ("6;6", "month 6 is given twice"),
        ("六月", "'六月' is not a month (write 1 to 12)"),
        ("6-8", "'6-8' is not a month (write 1 to 12)"),
    ],
)
def test_a_bad_months_cell_is_refused_naming_row_and_column(tmp_path, cell, says):
    with pytest.raises(ListingsError) as info:
        load_listings(folder(tmp_path, event(cell)))
    (problem,) = info.value.problems
    assert (problem.file, problem.row, problem.column, problem.message) == ("events.csv", 2, "months", says)
    assert "1-12" in problem.allowed


def test_months_on_a_dated_event_is_refused(tmp_path):
    with pytest.raises(ListingsError) as info:
        load_listings(folder(tmp_path, event("12", dates="2026-12-05,2026-12-06")))
    assert info.value.column == "months" and "has dates" in info.value.message


def test_listings_check_reports_every_bad_months_cell_in_one_run(tmp_path, capsys):
    rows = [event(m, id=f"y{i}") for i, m in enumerate(("0", "13", "6;6", "六月"))]
    assert cli.main(["check", str(folder(tmp_path, *rows))]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "listings check failed: 4 problems"
    assert [line.split(":")[0] for line in err[1:]] == [
        f"  events.csv row {row} column months" for row in (2, 3, 4, 5)
    ]


# -- the search -----------------------------------------------------------------------------------


def test_the_months_a_window_touches():
    assert months_of(DateWindow(date(2026, 12, 28), date(2027, 1, 3))) == {12, 1}
    assert months_of(DateWindow(date(2026, 1, 1), date(2026, 12, 31))) == set(range(1, 13))


def test_a_dated_question_lists_a_seasonal_event_only_in_its_months(tmp_path):
    events = load_listings(folder(tmp_path, event("6;7"), event("", id="y02"))).events
    june = DateWindow(date(2026, 6, 6), date(2026, 6, 7))
    december = DateWindow(date(2026, 12, 5), date(2026, 12, 6))
    across = DateWindow(date(2026, 5, 30), date(2026, 6, 2))
    assert [e.id for e in search_events("永靖鄉", "", events=events, window=june)] == ["y01", "y02"]
    assert [e.id for e in search_events("永靖鄉", "", events=events, window=december)] == ["y02"]
    assert [e.id for e in search_events("永靖鄉", "", events=events, window=across)] == ["y01", "y02"]


def test_an_undated_question_goes_by_todays_month(tmp_path):
    events = load_listings(folder(tmp_path, event("6;7"), event("", id="y02"))).events
    assert [e.id for e in search_events("永靖鄉", "", events=events, today=date(2026, 12, 1))] == ["y02"]
    assert [e.id for e in search_events("永靖鄉", "", events=events, today=date(2026, 7, 31))] == [
        "y01",
        "y02",
    ]


@pytest.mark.parametrize(
    ("day", "township", "name", "shown"),
    [
        (date(2026, 12, 1), "鹿港鎮", "鹿港端午龍舟體驗", False),
        (date(2026, 6, 10), "鹿港鎮", "鹿港端午龍舟體驗", True),
        (date(2026, 12, 1), "花壇鄉", "花壇茉莉花田導覽", False),
        (date(2026, 8, 1), "花壇鄉", "花壇茉莉花田導覽", True),
    ],
)
def test_the_shipped_snapshot_by_the_services_clock(tmp_path, day, township, name, shown):
    store = SqliteStore(tmp_path / "s.db")
    try:
        tools = TurnTools(
            preferences=store, audit=store, clock=FakeClock(taiwan_noon(day)), user_id="U1", scope_id="s"
        )
        undated = tools.search_local_events(township, "")
        window = tools.search_local_events(township, "", day.isoformat())
    finally:
        store.close()
    for result in (undated, window):
        assert result["status"] == "ok"
        assert (name in [item["name"] for item in result["items"]]) is shown
