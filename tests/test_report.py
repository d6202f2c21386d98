"""The operator's usage report (``examples/day15/report.py``) on a week of replayed traffic: its
counts equal counts computed here with SQL of our own from the same rows; found-nothing searches
appear with their township; the PNGs open and their Chinese labels render (no missing glyph); no id,
fingerprint or words reach any output; counts behind fewer than five people are masked."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import random
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from examples.day15 import report as cli
from examples.day15.replay import load_script, parse_now, replay
from examples.day15.report_counts import DAY_MEASURES, MASK, MIN_PEOPLE, TAIWAN, Cell, build
from local_agent.stores.sqlite import SqliteStore
from local_agent.stores.usage import UsageRow

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("five_turns", "consent_forget", "places_and_dates", "group_and_users", "preferences_in_words")
FIRST, LAST = date(2026, 11, 24), date(2026, 11, 30)  # the scripts run on 11-30
# What the generated people say: (the turns, in order). A tap is {"tap": label}.
CONVERSATIONS: tuple[tuple[object, ...], ...] = (
    ("花壇有什麼好吃的？",),
    ("鹿港這週末有什麼活動？",),
    ("芳苑有什麼活動？",),
    ("有什麼好吃的？",),
    ("員林有什麼好吃的？", "謝謝"),
    ("記住我吃素", {"tap": "同意"}),
    ("ㄅㄆㄇㄈ",),
)
NOTHING_DAY = date(2026, 11, 27)  # everyone that day asks 芳苑 for events: a found-nothing not masked
SMALL_DAY = date(2026, 11, 25)  # three people: every count of that day is masked


def person_id(rng: random.Random) -> str:
    return "U" + "".join(rng.choice("0123456789abcdef") for _ in range(32))


def generated_week(rng: random.Random) -> tuple[list[dict], list[str], list[str]]:
    """A script over seven days (the clock moved to noon of each), its user ids and its words."""
    events: list[dict] = []
    ids: list[str] = []
    words: list[str] = []
    for offset in range(7):
        day = FIRST + timedelta(days=offset)
        events.append({"now": f"{day.isoformat()}T09:00:00+08:00"})
        people = 3 if day == SMALL_DAY else 6 + offset % 3
        for _ in range(people):
            user = person_id(rng)
            ids.append(user)
            said = (CONVERSATIONS[2],) if day == NOTHING_DAY else (rng.choice(CONVERSATIONS),)
            for turn in said[0]:
                if isinstance(turn, dict):
                    events.append({"user": user, **turn})
                else:
                    events.append({"user": user, "text": turn})
                    words.append(str(turn))
            events.append({"advance_seconds": 60})
    return events, ids, words


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("week")
    database = folder / "local.sqlite3"
    patch = pytest.MonkeyPatch()
    patch.setenv("LOCAL_SQLITE_PATH", str(database))
    patch.chdir(folder)  # no .env here
    events, ids, words = generated_week(random.Random(15))
    lines: list[dict] = []
    try:
        asyncio.run(replay(events, out=lines.append, now=parse_now(events[0]["now"])))
        for name in SCRIPTS:
            script = load_script(ROOT / "examples/day15/scripts" / f"{name}.json")
            raw = json.loads((ROOT / "examples/day15/scripts" / f"{name}.json").read_text("utf-8"))
            asyncio.run(replay(script, out=lines.append, now=parse_now(raw["now"])))
            ids += sorted({e["user"] for e in script if "user" in e})
            words += [e["text"] for e in script if "text" in e]
        out = folder / "out"
        stdout, stderr = io.StringIO(), io.StringIO()
        argv = ["--since", FIRST.isoformat(), "--until", LAST.isoformat(), "--out", str(out)]
        with redirect_stdout(stdout), redirect_stderr(stderr):
            code = cli.main([*argv, "--now", "2026-12-01T10:00:00+08:00"])
    finally:
        patch.undo()
    return {
        "db": database,
        "out": out,
        "stdout": stdout.getvalue(),
        "stderr": stderr.getvalue(),
        "code": code,
        "ids": ids,
        "words": words,
    }


def _csv(out: Path) -> list[dict[str, str]]:
    with (out / "report.csv").open(encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def _masked(count: int, people: int) -> str:
    return str(count) if count == 0 or people >= MIN_PEOPLE else MASK


# Our own reading of the rows, in SQL: which rows each day measure counts.
DAY_SQL = {
    "turns": "event = 'turn'",
    "searches": "event = 'turn' AND kind != ''",
    "late": "delivery = 'late'",
    "delivery_failed": "event = 'turn' AND delivery = 'failed'",
    "lost": "delivery = 'lost'",
}


def _sql_day_counts(db: Path) -> dict[tuple[str, str], str]:
    day = "date(at + 8 * 3600, 'unixepoch')"
    found: dict[tuple[str, str], str] = {}
    with sqlite3.connect(db) as con:
        for measure in DAY_MEASURES:
            where = DAY_SQL.get(measure, f"outcome = '{measure}'")
            if measure == "people":
                sql = (
                    f"SELECT {day}, COUNT(DISTINCT NULLIF(person, '')), COUNT(DISTINCT NULLIF(person, ''))"
                    " FROM usage WHERE event = 'turn' GROUP BY 1"
                )
            else:
                sql = f"SELECT {day}, COUNT(*), COUNT(DISTINCT NULLIF(person, '')) FROM usage WHERE {where} GROUP BY 1"
            for d, count, people in con.execute(sql):
                found[(d, measure)] = _masked(count, people)
    return found


@pytest.mark.slow
def test_the_report_s_day_counts_equal_our_own_sql_on_the_same_rows(week):
    assert week["code"] == 0, week["stderr"]
    expected = _sql_day_counts(week["db"])
    shown = {(r["day"], r["measure"]): r["value"] for r in _csv(week["out"]) if r["section"] == "day"}
    days = {(FIRST + timedelta(days=i)).isoformat() for i in range(7)}
    assert {d for d, _ in shown} == days
    for (d, measure), value in shown.items():
        assert value == expected.get((d, measure), "0"), (d, measure)
    assert shown[(NOTHING_DAY.isoformat(), "found_nothing")] not in ("0", MASK)
    assert int(shown[(LAST.isoformat(), "turns")]) > 30  # the scripts and the mix on the last day


@pytest.mark.slow
def test_a_found_nothing_search_appears_with_its_township_and_small_counts_are_masked(week):
    rows = _csv(week["out"])
    nothing = {
        (r["township"], r["kind"], r["dates"]): r["value"] for r in rows if r["section"] == "found_nothing"
    }
    with sqlite3.connect(week["db"]) as con:
        count, people = con.execute(
            "SELECT COUNT(*), COUNT(DISTINCT person) FROM usage WHERE outcome = 'found_nothing'"
            " AND township = '芳苑鄉' AND kind = 'events' AND date_from = ''"
        ).fetchone()
    assert people >= MIN_PEOPLE and nothing[("芳苑鄉", "查活動", "不限日期")] == str(count)
    assert f"芳苑鄉 查活動 不限日期：{count}" in week["stdout"]
    small = [r["value"] for r in rows if r["section"] == "day" and r["day"] == SMALL_DAY.isoformat()]
    assert set(small) <= {MASK, "0"} and MASK in small


@pytest.mark.slow
def test_no_id_fingerprint_or_words_in_any_output(week):
    with sqlite3.connect(week["db"]) as con:
        fingerprints = {p for (p,) in con.execute("SELECT DISTINCT person FROM usage") if p}
    assert fingerprints
    outputs = [week["stdout"], week["stderr"]]
    outputs += [p.read_text("utf-8-sig") for p in week["out"].glob("*.csv")]
    pngs = [p.read_bytes() for p in week["out"].glob("*.png")]
    long_ids = [i for i in week["ids"] if len(i) > 8]
    assert len(long_ids) > 30
    for secret in [*long_ids, *fingerprints, *(w for w in week["words"] if len(w) >= 4)]:
        assert all(secret not in text for text in outputs), secret
        assert all(secret.encode("utf-8") not in png for png in pngs), secret


@pytest.mark.slow
def test_the_pngs_open_and_their_chinese_labels_render(week):
    from PIL import Image

    names = sorted(p.name for p in week["out"].glob("*.png"))
    assert names == ["found_nothing.png", "townships.png", "turns.png"]
    for name in names:
        with Image.open(week["out"] / name) as image:
            image.verify()
        with Image.open(week["out"] / name) as image:
            assert image.width >= 600 and image.height >= 300
            assert len(image.convert("RGB").getcolors(1 << 20) or ()) > 20  # bars, text: not blank


def test_a_missing_glyph_is_an_error_not_a_picture_with_boxes(tmp_path):
    from examples.day15 import report_charts

    dejavu = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    if not dejavu.is_file():
        pytest.skip("no font without CJK glyphs on this machine")
    report = build([UsageRow(day_at(LAST), "turn", "p", "user", "talk")], FIRST, LAST)
    with pytest.raises(report_charts.MissingGlyph):
        report_charts.draw_all(report, tmp_path, str(dejavu))


def day_at(day: date, hour: int = 12) -> float:
    return datetime(day.year, day.month, day.day, hour, tzinfo=TAIWAN).timestamp()


def test_cells_mask_fewer_than_five_people_but_not_zero_or_anonymous_only_rows():
    assert Cell().shown == 0
    cell = Cell()
    for person in ["a", "b", "c", "d", "d", "d"]:
        cell.add(person)
    assert cell.shown == MASK and cell.shown_people == MASK
    cell.add("e")
    assert cell.shown == 7 and cell.shown_people == 5
    anonymous = Cell()
    for _ in range(9):
        anonymous.add("")
    assert anonymous.shown == MASK  # group members without an id are nobody we can count


def test_days_are_taiwan_days_and_the_period_is_checked():
    late_utc = datetime(2026, 11, 24, 17, 0, tzinfo=TAIWAN).timestamp()  # 09:00 UTC
    just_after_midnight = datetime(2026, 11, 25, 0, 5, tzinfo=TAIWAN).timestamp()  # 16:05 UTC the day before
    report = build(
        [
            UsageRow(late_utc, "turn", "p", "user", "talk"),
            UsageRow(just_after_midnight, "turn", "q", "user", "talk"),
        ],
        FIRST,
        LAST,
    )
    assert report.cell(date(2026, 11, 24), "turns").count == 1
    assert report.cell(date(2026, 11, 25), "turns").count == 1
    now = day_at(LAST)
    assert cli.period(None, None, now) == (LAST - timedelta(days=6), LAST)
    with pytest.raises(cli.PeriodError, match="after"):
        cli.period("2026-11-30", "2026-11-01", now)
    with pytest.raises(cli.PeriodError, match="YYYY-MM-DD"):
        cli.period("30/11", None, now)
    with pytest.raises(cli.PeriodError, match="at most 31"):
        cli.period("2026-01-01", "2026-11-30", now)


def test_the_report_reads_the_store_s_rows_in_the_period_only(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    for i in range(6):
        store.append_usage(
            UsageRow(day_at(LAST), "turn", f"p{i}", "user", "found_nothing", "places", "花壇鄉", found=0)
        )
    store.append_usage(UsageRow(day_at(LAST + timedelta(days=1)), "turn", "late", "user", "talk"))
    store.append_usage(UsageRow(day_at(LAST), "retry", "p1", "user", delivery="failed"))
    report = cli.read_report(store, FIRST, LAST)
    assert report.cell(LAST, "turns").count == 6 and report.cell(LAST, "found_nothing").shown == 6
    assert report.cell(LAST, "delivery_failed").count == 0  # a retry failing again is not a new failure
    assert report.nothing[("花壇鄉", "places", "", "")].shown == 6
    store.close()


def test_a_missing_database_is_a_clear_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOCAL_SQLITE_PATH", str(tmp_path / "nothing-here.sqlite3"))
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as done, redirect_stderr(stderr):
        cli.main(["--no-charts"])
    assert done.value.code == 2
    assert (
        stderr.getvalue().splitlines()[-1]
        == f"report: no database at LOCAL_SQLITE_PATH={tmp_path / 'nothing-here.sqlite3'}"
    )
