"""``listings.toml``: a folder's own notice in replies and help; the shipped snapshot keeps its teaching
notice; a folder without the file never says 「教學快照」; bad metadata is refused with the key named."""

from __future__ import annotations

import tomllib
from datetime import date
from pathlib import Path

import pytest

from local_agent.agent.tools import TurnTools
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.listings import catalogue
from local_agent.listings.loader import (
    SHIPPED_DIR,
    ListingsError,
    check_listings,
    load_listings,
    shipped_listings,
)
from local_agent.listings.meta import META_FILE, NO_DATE_LINE, ListingsMeta
from local_agent.replies.render import HELP_TEXT, SHIPPED_HELP_LINE, help_text, render_tool_result
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import Commands

TEACHING = "教學快照"
NOON_2026_11_30 = 1_796_011_200.0  # 2026-11-30T12:00:00+08:00


def own_folder(tmp_path: Path, toml: str | None = None) -> Path:
    folder = tmp_path / "office"
    folder.mkdir(parents=True)
    for name in ("places.csv", "events.csv"):
        (folder / name).write_text((SHIPPED_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    if toml is not None:
        (folder / META_FILE).write_text(toml, encoding="utf-8")
    return folder


def tools_for(listings, store: SqliteStore) -> TurnTools:
    return TurnTools(
        preferences=store,
        audit=store,
        clock=lambda: NOON_2026_11_30,
        user_id="U1",
        scope_id="scope-U1",
        listings=listings,
    )


@pytest.fixture
def store(tmp_path: Path):
    s = SqliteStore(tmp_path / "local.sqlite3")
    yield s
    s.close()


def test_the_shipped_snapshot_carries_its_teaching_notice_in_its_own_listings_toml():
    raw = tomllib.loads((SHIPPED_DIR / META_FILE).read_text(encoding="utf-8"))
    meta = shipped_listings().meta
    assert meta.present and meta.notice == raw["notice"] == catalogue.SNAPSHOT_NOTICE
    assert meta.as_of == date(2026, 11, 30) and meta.office == raw["office"]
    assert meta.help_line == SHIPPED_HELP_LINE and HELP_TEXT == help_text(meta.help_line)
    assert shipped_listings().notice == catalogue.SNAPSHOT_NOTICE


def test_a_folder_without_listings_toml_gets_a_neutral_line_and_never_the_teaching_notice(tmp_path, store):
    listings = load_listings(own_folder(tmp_path))
    assert listings.meta == ListingsMeta() and listings.notice == NO_DATE_LINE
    tools = tools_for(listings, store)
    for result in (
        tools.search_local_places(area="花壇鄉"),
        tools.search_local_places(area="埤頭鄉"),  # nothing found
        tools.search_local_events(area="鹿港鎮"),
        tools.search_local_events(area="埤頭鄉", date_from="2026-12-05", date_to="2026-12-06"),
    ):
        text = render_tool_result(result).texts[0]
        assert TEACHING not in text and text.count(NO_DATE_LINE) == 1, text
    assert TEACHING not in help_text(listings.meta.help_line)


def test_an_offices_notice_and_date_reach_replies_and_help_once(tmp_path, store):
    toml = (
        'office = "埤頭鄉公所"\nnotice = "店家與活動以現場公告為準，出發前請再確認。"\nas_of = 2026-11-20\n'
    )
    listings = load_listings(own_folder(tmp_path, toml))
    notice = "店家與活動以現場公告為準，出發前請再確認。"
    assert listings.notice == notice
    assert listings.meta.help_line == f"資料：埤頭鄉公所，2026-11-20 更新。{notice}"
    empty = render_tool_result(tools_for(listings, store).search_local_places(area="埤頭鄉")).texts[0]
    assert empty == f"埤頭鄉沒有找到符合的店家。\n{notice}"
    journal = ContextJournal(store, clock=lambda: NOON_2026_11_30)
    commands = Commands(
        preferences=store,
        journal=journal,
        clock=lambda: NOON_2026_11_30,
        help_text=help_text(listings.meta.help_line),
    )
    reply = commands.handle_text(ScopeKey("dest", "user", "U1", "U1"), "說明")
    assert reply is not None and reply.reply.texts[0].endswith(f"資料：埤頭鄉公所，2026-11-20 更新。{notice}")
    assert TEACHING not in reply.reply.texts[0]


def test_only_a_date_gives_a_dated_neutral_line(tmp_path):
    listings = load_listings(own_folder(tmp_path, 'as_of = "2026-11-20"\n'))
    assert listings.notice == "資料更新至 2026-11-20，出發前請再確認。"
    assert listings.meta.help_line == listings.notice


def test_the_shipped_nothing_found_reply_says_the_teaching_notice_once(store):
    text = render_tool_result(tools_for(shipped_listings(), store).search_local_places(area="埤頭鄉")).texts[
        0
    ]
    assert text.count(TEACHING) == 1 and text.endswith(catalogue.SNAPSHOT_NOTICE)


@pytest.mark.parametrize(
    "toml, column, words",
    [
        ('office = "X"\ncolour = "blue"\n', "colour", "unknown key"),
        ("[office]\nname = 1\n", "office", "write a quoted string"),
        ("notice = 3\n", "notice", "write a quoted string"),
        ('as_of = "2026-02-30"\n', "as_of", "is not a date"),
        ("as_of = 2026-11-20T10:00:00\n", "as_of", "is not a date"),
        ('notice = "a\\nb"\n', "notice", "control character"),
        ('notice = "<b>hi</b>"\n', "notice", "HTML tag"),
        (f'office = "{"長" * 41}"\n', "office", "at most 40"),
    ],
)
def test_bad_metadata_is_refused_naming_the_key(tmp_path, toml, column, words):
    listings, problems = check_listings(own_folder(tmp_path, toml))
    assert listings is None and len(problems) == 1
    assert (problems[0].file, problems[0].column) == (META_FILE, column) and words in problems[0].message
    assert problems[0].row == (2 if column == "colour" else 1)  # the line that sets the key
    assert problems[0].allowed


def test_metadata_that_is_not_toml_is_refused_with_its_line(tmp_path):
    folder = own_folder(tmp_path, 'office = "X"\nnotice = \n')
    with pytest.raises(ListingsError) as info:
        load_listings(folder)
    assert (info.value.file, info.value.row) == (META_FILE, 2) and "not valid TOML" in info.value.message


def test_metadata_saved_with_a_bom_and_crlf_reads_the_same(tmp_path):
    plain = load_listings(own_folder(tmp_path / "plain", 'office = "花壇鄉公所"\r\nas_of = 2026-11-20\r\n'))
    folder = own_folder(tmp_path / "bom")
    (folder / META_FILE).write_bytes(
        b"\xef\xbb\xbf" + 'office = "花壇鄉公所"\r\nas_of = 2026-11-20\r\n'.encode()
    )
    assert load_listings(folder).meta == plain.meta and plain.meta.office == "花壇鄉公所"
