"""Listings as files: the shipped snapshot, a user-made folder, and every bad input refused at load time."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from local_agent.listings.loader import (
    EVENT_COLUMNS,
    MAX_FILE_BYTES,
    PLACE_COLUMNS,
    SHIPPED_DIR,
    ListingsError,
    listings_from,
    load_listings,
    shipped_listings,
)

BEFORE = Path(__file__).parent / "data" / "catalogue_tuples_before_csv.json"
PLACES_HEADER = ",".join(PLACE_COLUMNS)
EVENTS_HEADER = ",".join(EVENT_COLUMNS)
GOOD_PLACE = "x01,永靖素食小館,永靖鄉,素食,vegetarian;lacto_ovo,永靖鄉公所附近,蛋奶素便當"
GOOD_EVENT = "y01,永靖花卉節,永靖鄉,永靖公園,節慶,2026-12-05,2026-12-06,兩天上午,花卉展示"


def write(folder: Path, places: list[str] | None = None, events: list[str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows_p = [PLACES_HEADER, GOOD_PLACE] if places is None else places
    rows_e = [EVENTS_HEADER, GOOD_EVENT] if events is None else events
    (folder / "places.csv").write_text("\n".join(rows_p) + "\n", encoding="utf-8")
    (folder / "events.csv").write_text("\n".join(rows_e) + "\n", encoding="utf-8")
    return folder


def refused(folder: Path) -> ListingsError:
    with pytest.raises(ListingsError) as info:
        load_listings(folder)
    return info.value


# -- the shipped snapshot --------------------------------------------------------------------------


def test_the_shipped_snapshot_loads_and_is_the_default():
    listings = shipped_listings()
    assert listings_from(None) is listings and listings_from("") is listings
    assert listings.source == "shipped teaching snapshot"
    assert load_listings(SHIPPED_DIR) == listings


def test_no_listing_was_lost_converting_the_tuples_to_csv():
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    listings = shipped_listings()
    places = {p.id: p for p in listings.places}
    events = {e.id: e for e in listings.events}
    assert len(before["places"]) == 44 and len(before["events"]) == 26
    assert set(places) == {row[0] for row in before["places"]}
    for pid, name, township, category, dietary, address, note in before["places"]:
        p = places[pid]
        assert (p.name, p.township, p.category, sorted(p.dietary), p.address_hint, p.note) == (
            name,
            township,
            category,
            dietary,
            address,
            note,
        )
    for eid, name, township, venue, when, category, note in before["events"]:
        e = events[eid]
        assert (e.name, e.township, e.venue, e.when, e.category, e.note) == (
            name,
            township,
            venue,
            when,
            category,
            note,
        )
        assert e.standing  # the tuples had no dates
    added = [e for e in listings.events if e.id not in {row[0] for row in before["events"]}]
    assert added and all(not e.standing for e in added)


def test_the_snapshot_has_dated_events_around_the_service_clock_and_some_past():
    dated = [e for e in shipped_listings().events if not e.standing]
    assert any(e.start_date and e.start_date.year == 2026 and e.start_date.month == 12 for e in dated)
    assert any(e.start_date and e.start_date.year == 2027 and e.start_date.month == 1 for e in dated)
    assert any(e.last_day and e.last_day < date(2026, 11, 1) for e in dated)


def test_the_summary_counts_per_township_and_dated_against_standing():
    summary = shipped_listings().summary()
    assert summary["places"] == 44 and summary["events"] == 40
    assert summary["dated_events"] + summary["standing_events"] == 40
    townships = summary["townships"]
    assert isinstance(townships, dict)
    assert sum(t["places"] for t in townships.values()) == 44
    assert townships["花壇鄉"]["standing"] == 3 and townships["花壇鄉"]["dated"] >= 2


# -- a user-made folder ----------------------------------------------------------------------------


def test_a_user_made_folder_with_a_new_township_loads(tmp_path):
    listings = load_listings(write(tmp_path / "mine"))
    assert listings.source == "mine"
    assert [p.township for p in listings.places] == ["永靖鄉"]
    (event,) = listings.events
    assert (event.start_date, event.end_date) == (date(2026, 12, 5), date(2026, 12, 6))
    assert listings.covered_townships == ("永靖鄉",)


def test_short_township_names_empty_end_dates_and_blank_rows_are_accepted(tmp_path):
    folder = write(
        tmp_path,
        places=[PLACES_HEADER, "x01,店,永靖,小吃,,,", ""],
        events=[
            EVENTS_HEADER,
            "y01,講座,二林,活動中心,講座,2026-12-05,,上午,",
            ",,,,,,,,",
            "y02,市集,二林,公園,市集,,,每週六,",
        ],
    )
    listings = load_listings(folder)
    assert listings.places[0].township == "永靖鄉" and listings.places[0].dietary == frozenset()
    one_day, standing = listings.events
    assert one_day.start_date == one_day.last_day == date(2026, 12, 5)
    assert standing.standing and standing.when == "每週六"


def test_columns_may_come_in_any_order(tmp_path):
    folder = write(
        tmp_path,
        places=["name,id,township,category,dietary,address,note", "店,x01,永靖鄉,小吃,,,"],
    )
    assert load_listings(folder).places[0].id == "x01"


# -- bad input: each a clear error naming file, row and column -------------------------------------


def test_a_missing_folder_or_file_is_refused(tmp_path):
    assert "not a folder" in str(refused(tmp_path / "nowhere"))
    write(tmp_path)
    (tmp_path / "events.csv").unlink()
    err = refused(tmp_path)
    assert err.file == "events.csv" and "not found" in err.message


def excel_utf8(path: Path) -> None:
    """What Excel's "CSV UTF-8" writes: a byte-order mark and CRLF line ends."""
    text = path.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\n", "\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))


def test_excels_csv_utf8_with_a_bom_and_crlf_loads_as_the_same_listings(tmp_path):
    plain = load_listings(write(tmp_path / "plain"))
    folder = write(tmp_path / "excel")
    excel_utf8(folder / "places.csv")
    excel_utf8(folder / "events.csv")
    assert (folder / "places.csv").read_bytes().startswith(b"\xef\xbb\xbfid,")
    loaded = load_listings(folder)
    assert (loaded.places, loaded.events) == (plain.places, plain.events)
    assert loaded.places[0].id == "x01" and loaded.events[0].note == "花卉展示"


def test_a_bom_in_one_file_hides_none_of_either_files_problems(tmp_path):
    bad_place = "x02,永靖小吃,台北市,小吃,,,"
    bad_event = "x01,永靖燈會,永靖鄉,公園,節慶,2026-02-30,,每晚,"
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE, bad_place], events=[EVENTS_HEADER, bad_event])
    excel_utf8(tmp_path / "places.csv")
    problems = refused(tmp_path).problems
    assert [(p.file, p.row, p.column) for p in problems] == [
        ("places.csv", 3, "township"),
        ("events.csv", 2, "start_date"),
        ("events.csv", 2, "id"),
    ]
    assert "2026-02-30" in problems[1].message and "duplicate id" in problems[2].message


def test_an_excel_cp950_big5_export_is_refused_naming_row_and_cell(tmp_path):
    write(tmp_path)
    text = "\n".join([EVENTS_HEADER, GOOD_EVENT, "y02,彰化燈會,彰化市,公園,節慶,,,每晚,"]) + "\n"
    (tmp_path / "events.csv").write_bytes(text.encode("cp950"))
    err = refused(tmp_path)
    # The header is ASCII; the first Big5 byte is in row 2's name (the second cell).
    assert (err.file, err.row, err.column) == ("events.csv", 2, "#2")
    assert "CP950/Big5" in err.message and "CSV UTF-8" in err.message
    assert str(err).startswith("events.csv row 2 column #2: ")


def test_unbalanced_quotes_are_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE, 'x02,"未結束的引號,永靖鄉,小吃,,,'])
    err = refused(tmp_path)
    assert err.file == "places.csv" and err.row is not None and err.row >= 3
    assert "malformed CSV" in err.message


def test_a_quote_inside_an_unquoted_cell_is_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, 'x02,店"名,永靖鄉,小吃,,,'])
    # The csv module reads a stray quote in the middle of a cell literally; it holds no tag or control
    # character, so it is kept as written.
    assert load_listings(tmp_path).places[0].name == '店"名'


@pytest.mark.parametrize("row", ["x02,店,永靖鄉,小吃,,", "x02,店,永靖鄉,小吃,,,,extra"])
def test_a_wrong_number_of_cells_is_refused(tmp_path, row):
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE, row])
    err = refused(tmp_path)
    assert (err.file, err.row) == ("places.csv", 3) and "the header has 7" in err.message


def test_a_50_mb_file_is_refused_by_its_size_before_reading(tmp_path):
    write(tmp_path)
    big = tmp_path / "events.csv"
    with big.open("r+b") as f:  # sparse: 50 MB on paper, nothing parsed
        f.truncate(50 * 1024 * 1024)
    err = refused(tmp_path)
    assert err.file == "events.csv" and f"{MAX_FILE_BYTES:,}" in err.message and "not read" in err.message


@pytest.mark.parametrize("bad", ["市集\x07", "市\x1b[31m集", "市\u0085集"])
def test_a_control_character_is_refused(tmp_path, bad):
    write(tmp_path, events=[EVENTS_HEADER, f"y01,{bad},永靖鄉,公園,市集,,,每週六,"])
    err = refused(tmp_path)
    assert (err.file, err.row, err.column) == ("events.csv", 2, "name") and "control character" in err.message


def test_a_line_break_inside_a_quoted_cell_is_refused(tmp_path):
    write(tmp_path, events=[EVENTS_HEADER, 'y01,"兩行\n名稱",永靖鄉,公園,市集,,,每週六,'])
    err = refused(tmp_path)
    assert err.column == "name" and "U+000A" in err.message


@pytest.mark.parametrize("bad", ["<b>市集</b>", "市集<script>alert(1)</script>", "<img src=x>"])
def test_an_html_tag_is_refused(tmp_path, bad):
    write(tmp_path, places=[PLACES_HEADER, f"x01,{bad},永靖鄉,小吃,,,"])
    err = refused(tmp_path)
    assert (err.row, err.column) == (2, "name") and "HTML tag" in err.message


def test_a_less_than_sign_that_is_no_tag_is_kept(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, "x01,店,永靖鄉,小吃,,,價格 < 100 元"])
    assert load_listings(tmp_path).places[0].note == "價格 < 100 元"


def test_a_cell_longer_than_a_card_shows_is_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, f"x01,{'長' * 41},永靖鄉,小吃,,,"])
    err = refused(tmp_path)
    assert err.column == "name" and "at most 40" in err.message


@pytest.mark.parametrize(
    ("start", "end", "column", "words"),
    [
        ("2026-02-30", "", "start_date", "2026-02-30"),
        ("2026-12-05", "2026-13-01", "end_date", "2026-13-01"),
        ("2026/12/05", "", "start_date", "YYYY-MM-DD"),
        ("12月5日", "", "start_date", "YYYY-MM-DD"),
        ("2026-12-06", "2026-12-05", "end_date", "before start_date"),
        ("", "2026-12-05", "start_date", "without start_date"),
        ("2026-01-01", "2027-06-01", "end_date", "366"),
    ],
)
def test_bad_or_reversed_dates_are_refused(tmp_path, start, end, column, words):
    write(tmp_path, events=[EVENTS_HEADER, f"y01,節,永靖鄉,公園,節慶,{start},{end},上午,"])
    err = refused(tmp_path)
    assert (err.file, err.row, err.column) == ("events.csv", 2, column) and words in err.message


def test_a_standing_event_needs_its_when(tmp_path):
    write(tmp_path, events=[EVENTS_HEADER, "y01,節,永靖鄉,公園,節慶,,,,"])
    assert refused(tmp_path).column == "when"


def test_duplicate_ids_are_refused_within_and_across_files(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE, GOOD_PLACE.replace("永靖素食小館", "別家")])
    err = refused(tmp_path)
    assert (err.file, err.row, err.column) == ("places.csv", 3, "id") and "places.csv row 2" in err.message
    write(tmp_path, events=[EVENTS_HEADER, GOOD_EVENT.replace("y01", "x01")])
    err = refused(tmp_path)
    assert (err.file, err.row, err.column) == ("events.csv", 2, "id") and "duplicate" in err.message


def test_an_id_with_spaces_or_symbols_is_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE.replace("x01", "x 01")])
    assert refused(tmp_path).column == "id"


def test_an_unknown_township_is_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE.replace("永靖鄉", "台中市")])
    err = refused(tmp_path)
    assert (err.row, err.column) == (2, "township") and "26 townships" in err.message


def test_an_unknown_diet_code_is_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER, GOOD_PLACE.replace("vegetarian;lacto_ovo", "vegetarian;素食")])
    err = refused(tmp_path)
    assert (err.row, err.column) == (2, "dietary") and "'素食'" in err.message


@pytest.mark.parametrize("column", ["township", "note"])
def test_a_missing_column_is_refused(tmp_path, column):
    header = [c for c in PLACE_COLUMNS if c != column]
    write(tmp_path, places=[",".join(header), "x01,店,永靖鄉,小吃,,"[: len(header)]])
    err = refused(tmp_path)
    assert (err.file, err.row, err.column) == ("places.csv", 1, column) and "missing" in err.message


def test_an_unknown_or_repeated_column_is_refused(tmp_path):
    write(tmp_path, places=[PLACES_HEADER + ",fax", GOOD_PLACE + ",04-1234"])
    assert (refused(tmp_path).column, refused(tmp_path).row) == ("fax", 1)
    write(tmp_path, places=[PLACES_HEADER + ",note", GOOD_PLACE + ",again"])
    assert "twice" in refused(tmp_path).message


def test_an_empty_required_cell_is_refused(tmp_path):
    write(tmp_path, events=[EVENTS_HEADER, "y01,節,永靖鄉,,節慶,,,每週六,"])
    err = refused(tmp_path)
    assert (err.row, err.column) == (2, "venue") and "empty" in err.message


def test_empty_files_are_refused(tmp_path):
    write(tmp_path)
    (tmp_path / "places.csv").write_text("", encoding="utf-8")
    assert refused(tmp_path).file == "places.csv"
    write(tmp_path, places=[PLACES_HEADER], events=[EVENTS_HEADER])
    assert "nothing to serve" in refused(tmp_path).message


def test_nothing_is_returned_when_a_late_row_is_bad(tmp_path):
    rows = [EVENTS_HEADER] + [GOOD_EVENT.replace("y01", f"y{i:02d}") for i in range(1, 30)]
    rows.append("y99,節,永靖鄉,公園,節慶,2026-02-30,,上午,")
    write(tmp_path, events=rows)
    err = refused(tmp_path)
    assert err.row == 31 and err.column == "start_date"


def test_the_per_township_index_holds_exactly_that_townships_records():
    listings = shipped_listings()
    for township in ("花壇鄉", "鹿港鎮", "埤頭鄉"):
        assert listings.places_in(township) == tuple(p for p in listings.places if p.township == township)
        assert listings.events_in(township) == tuple(e for e in listings.events if e.township == township)
    assert listings.events_in("埤頭鄉") == () and listings.places_in("not a township") == ()
