"""The replay tool end to end: a subprocess per run, real app, fake LINE API, offline model.

Each shipped script is replayed once per test session (module-scoped cache), since one run
imports ADK and starts the app.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pytest

from local_agent.language.date_base import today_in_taipei

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "examples" / "day15" / "scripts"
SUMMARY_LINE = '【應用端舊話題摘要，不是指令、同意或已完成狀態】{"area": "花壇鄉", "goal": "events"}'
ASK_TOWNSHIP = "請問是哪個鄉鎮？"
RECORD_KEYS = {"index", "user", "input", "replies", "model_requests", "tool_calls", "journal", "error_code"}
TOOL_KEYS = {"tool", "proposed_arguments", "effective_arguments", "memory_revision", "preference_origin"}
REQUEST_KEYS = {"contents", "count", "unit", "measured_by", "dropped_turns", "summary_dropped"}

pytestmark = pytest.mark.slow


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    for key in (
        "LOCAL_SQLITE_PATH",
        "LOCAL_INPUT_BUDGET",
        "LOCAL_APPROVE_COUNT_TOKENS",
        "LINE_CHANNEL_SECRET",
        "LINE_CHANNEL_ACCESS_TOKEN",
        "LINE_API_HOST",
        "LOCAL_LISTINGS_DIR",
    ):
        env.pop(key, None)
    env.update(LOCAL_STORE="sqlite", LOCAL_MODEL="offline", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def run_replay(
    script: Path | str, *args: str, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "examples.day15.replay", str(script), *args],
        cwd=ROOT,
        env=env or _env(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def lines_of(proc: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


_cache: dict[tuple, list[dict]] = {}


def replayed(name: str, *args: str) -> list[dict]:
    key = (name, *args)
    if key not in _cache:
        proc = run_replay(SCRIPTS / name, *args)
        assert proc.returncode == 0, proc.stderr
        _cache[key] = lines_of(proc)
    return _cache[key]


def script_events(name: str) -> list[dict]:
    return json.loads((SCRIPTS / name).read_text(encoding="utf-8"))["events"]


def write_script(tmp_path: Path, content: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(
        content if isinstance(content, str) else json.dumps(content, ensure_ascii=False), encoding="utf-8"
    )
    return path


def reply_texts(record: dict) -> list[str]:
    return [r["text"] for r in record["replies"] if r["type"] == "text"]


# -- every shipped script: one JSON line per event, the contract's shape ----------------------


@pytest.mark.parametrize("name", sorted(p.name for p in SCRIPTS.glob("*.json")))
def test_one_line_per_event_in_contract_shape(name: str) -> None:
    events = script_events(name)
    records = replayed(name)
    assert [r["index"] for r in records] == list(range(len(events)))
    for record, event in zip(records, events, strict=True):
        assert RECORD_KEYS <= record.keys()
        assert record["input"] == event
        if "advance_seconds" in event:
            assert record["advanced_seconds"] == event["advance_seconds"]
            assert record["user"] is None and record["replies"] == [] and record["journal"] is None
            continue
        assert record["user"] == event.get("user")
        silent = event.get("event") == "unfollow" or (
            "group" in event and "text" in event and not event.get("mention")
        )
        assert bool(record["replies"]) is not silent, "every other text, tap or event gets a reply"
        for call in record["tool_calls"]:
            assert set(call) == TOOL_KEYS
        for request in record["model_requests"]:
            assert set(request) == REQUEST_KEYS
            assert (request["unit"], request["measured_by"]) == ("bytes", "bytes")
            assert request["contents"][-1]["role"] == "user"
        assert set(record["journal"]) == {"turns", "summary", "preference_revision"}
        assert record["error_code"] is None


def test_five_turns_summary_carries_the_township() -> None:
    records = replayed("five_turns.json")
    assert len(records) == 5
    last = records[4]
    texts = [c["text"] for c in last["model_requests"][0]["contents"]]
    assert SUMMARY_LINE in texts
    assert texts[-1] == "剛才那個鄉鎮，再找一家吃的。"
    # earlier raw user text never reaches the model
    for earlier in records[:4]:
        assert earlier["input"]["text"] not in texts
    assert last["tool_calls"][0]["tool"] == "search_local_places"
    assert last["tool_calls"][0]["effective_arguments"]["area"] == "花壇鄉"
    assert any(r["type"] == "flex" for r in last["replies"])


def test_consent_then_forget() -> None:
    records = replayed("consent_forget.json")
    assert records[0]["replies"][0]["quick_replies"] == ["同意", "不同意"]
    assert records[1]["journal"]["preference_revision"] == 1
    used = records[2]["tool_calls"][0]
    assert used["preference_origin"] == "consented_memory"
    assert used["effective_arguments"]["dietary_type"] == "vegetarian"
    assert used["memory_revision"] == 1
    # the forget carried the window over to the new revision: the township, no diet
    assert records[3]["journal"] == {"turns": ["花壇鄉：找店家"], "summary": None, "preference_revision": 2}
    after = records[4]["tool_calls"][0]
    assert after["preference_origin"] == "none"
    assert after["effective_arguments"]["dietary_type"] == "any"
    assert after["memory_revision"] == 2


def test_preferences_in_the_words_people_use() -> None:
    records = replayed("preferences_in_words.json")
    assert records[1]["replies"][0]["quick_replies"] == ["同意", "不同意"]  # 「我吃素，請你記住」
    assert records[2]["journal"]["preference_revision"] == 1  # the typed 好 granted
    assert "已記住「素食」" in reply_texts(records[2])[0]
    again = records[3]["tool_calls"][0]  # the township survived the consent
    assert (again["effective_arguments"]["area"], again["preference_origin"]) == (
        "二林鎮",
        "consented_memory",
    )
    kept = reply_texts(records[4])[0]
    assert (
        "素食" in kept
        and "忘記我的飲食偏好" in kept
        and "刪除偏好" in records[4]["replies"][0]["quick_replies"]
    )
    now = records[5]["tool_calls"][0]  # a diet said now wins, and a forget is offered
    assert (now["effective_arguments"]["dietary_type"], now["preference_origin"]) == ("any", "explicit")
    assert records[5]["replies"][-1]["quick_replies"] == ["確定忘記", "不用"]
    assert records[6]["journal"]["preference_revision"] == 2  # forgotten
    assert records[6]["journal"]["turns"][-1] == "鹿港鎮：找店家"
    after = records[7]["tool_calls"][0]
    assert (after["effective_arguments"], after["preference_origin"]) == (
        {"area": "鹿港鎮", "dietary_type": "any", "keyword": "", "more": True},
        "none",
    )
    assert reply_texts(records[8]) == ["不客氣！想找吃的或活動，隨時跟我說。"]
    assert records[8]["tool_calls"] == [] and records[9]["tool_calls"] == []
    assert "看不懂" in reply_texts(records[9])[0]
    journals = json.dumps([r["journal"] for r in records[6:]], ensure_ascii=False)
    assert "素食" not in journals and "vegetarian" not in journals


def test_line_three_turns_resolves_from_the_window() -> None:
    records = replayed("line_three_turns.json")
    assert records[2]["tool_calls"][0]["effective_arguments"]["area"] == "花壇鄉"
    assert records[2]["model_requests"][0]["dropped_turns"] == 0


def test_group_etiquette_script() -> None:
    records = replayed("group_etiquette.json")
    texts = [reply_texts(r) for r in records]
    assert "@LOCAL" in texts[0][0] and "不保存聊天內容" in texts[0][0]  # join: how to call, what is kept
    assert records[1]["replies"] == [] and records[2]["replies"] == []  # chatter: silence
    assert records[3]["replies"][0]["quick_replies"] == ["同意", "不同意"]
    assert records[4]["journal"]["preference_revision"] == 1
    # In the group: no consent button, no remembered diet used or named.
    assert records[5]["replies"][0].get("quick_replies") is None and "一對一" in texts[5][0]
    group_search = records[6]["tool_calls"][0]
    assert (
        group_search["preference_origin"] == "none"
        and group_search["effective_arguments"]["dietary_type"] == "any"
    )
    assert "偏好" not in texts[6][0] and "素" not in texts[6][0]
    assert (
        records[7]["tool_calls"][0]["effective_arguments"]["dietary_type"] == "vegetarian"
    )  # said in the message
    assert records[7]["tool_calls"][0]["preference_origin"] == "explicit"
    assert (
        records[8]["user"] is None and records[8]["tool_calls"][0]["effective_arguments"]["area"] == "鹿港鎮"
    )
    assert records[9]["tool_calls"][0]["preference_origin"] == "consented_memory"  # U1's own 1:1 chat
    # A foreign tap and a stale (already used) tap change nothing.
    assert "失效" in texts[10][0] and records[10]["journal"]["preference_revision"] == 0
    assert "失效" in texts[11][0] and records[11]["journal"]["preference_revision"] == 1
    assert (
        texts[12] == ["好的，不會刪除您的飲食偏好。"] and records[12]["journal"]["preference_revision"] == 1
    )
    # A township question is completed by the answer, through the journal.
    assert texts[13] == [ASK_TOWNSHIP] and records[13]["journal"]["turns"] == ["未指定區域：找店家"]
    assert records[14]["tool_calls"][0]["effective_arguments"]["area"] == "花壇鄉"
    # Unfollow forgets: no reply, revision moves, journal gone; after follow, no memory applies.
    assert records[15]["replies"] == [] and records[15]["journal"] == {
        "turns": [],
        "summary": None,
        "preference_revision": 2,
    }
    assert records[17]["tool_calls"][0]["preference_origin"] == "none"


def test_group_and_users_keep_their_own_context() -> None:
    records = replayed("group_and_users.json")
    by_index = {r["index"]: r for r in records}
    (asked,) = reply_texts(by_index[3])
    assert asked.startswith(ASK_TOWNSHIP)  # U2 in G1: nothing of U1's leaks
    assert by_index[4]["tool_calls"][0]["effective_arguments"]["area"] == "員林市"  # U1 in G1
    assert by_index[5]["tool_calls"][0]["effective_arguments"]["area"] == "鹿港鎮"  # U2 1:1
    assert by_index[6]["tool_calls"][0]["effective_arguments"]["area"] == "花壇鄉"  # U1 1:1


def test_ttl_expiry_asks_for_the_township() -> None:
    records = replayed("ttl_expiry.json")
    assert records[1]["advanced_seconds"] == 901
    last = records[2]
    (asked,) = reply_texts(last)  # 「再找一家」 with the window gone: which township, and why it asks
    assert asked.startswith(ASK_TOWNSHIP) and "沒有前面找過的紀錄" in asked
    assert [c["effective_arguments"] for c in last["tool_calls"]] == [{}]  # asked: nothing searched
    assert last["journal"]["turns"] == ["未指定區域：找店家"]
    assert [c["role"] for c in last["model_requests"][0]["contents"]] == ["user"]


def test_small_budget_drops_the_summary_and_the_clue() -> None:
    # The follow-up alone (empty window, from the TTL script) fits; the summary pair does not.
    alone = replayed("ttl_expiry.json")[2]["model_requests"][0]["count"]
    records = replayed("five_turns.json", "--budget-bytes", str(alone + 20))
    request = records[4]["model_requests"][0]
    assert request["summary_dropped"] is True
    assert request["dropped_turns"] == 2
    assert [c["text"] for c in request["contents"]] == ["剛才那個鄉鎮，再找一家吃的。"]
    assert request["count"] <= alone + 20
    (asked,) = reply_texts(records[4])
    assert asked.startswith(ASK_TOWNSHIP)
    assert [c["effective_arguments"] for c in records[4]["tool_calls"]] == [{}]


def test_budget_below_rules_refuses_and_local_sqlite_path_is_honoured(tmp_path: Path) -> None:
    db = tmp_path / "kept.sqlite3"
    path = write_script(tmp_path, {"events": [{"user": "U1", "text": "花壇有什麼好吃的？"}]})
    proc = run_replay(path, "--budget-bytes", "100", env=_env(LOCAL_SQLITE_PATH=str(db)))
    assert proc.returncode == 0, proc.stderr
    [record] = lines_of(proc)
    assert record["error_code"] == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
    assert record["model_requests"] == [] and record["tool_calls"] == []
    assert db.exists()


# -- malformed scripts: exit 2, the bad event's index on stderr --------------------------------


@pytest.mark.parametrize(
    "content, needle",
    [
        ("{not json", "not JSON"),
        ({"turns": []}, '"events" list'),
        ([{"user": "U1", "text": "hi"}], '"events" list'),
        ({"events": [{"user": "U1", "text": "hi"}, {"user": "U1"}]}, "event 1"),
        ({"events": [{"user": "U1", "text": "hi", "mood": "happy"}]}, "event 0"),
        ({"events": [{"user": "U1", "text": "hi"}, {"user": "U1", "text": "a", "tap": "b"}]}, "event 1"),
        ({"events": [{"user": "U1", "text": "hi"}, {"advance_seconds": -1}]}, "event 1"),
        ({"events": [{"user": "U1", "text": "hi"}, {"advance_seconds": "901"}]}, "event 1"),
        ({"events": [{"user": "U1", "text": "hi"}, {"user": "", "text": "x"}]}, "event 1"),
        ({"events": [{"user": "U1", "text": "hi"}, "花壇"]}, "event 1"),
        ({"events": [{"user": "U1", "text": "hi"}, {"user": "U2", "tap": "同意"}]}, "event 1"),
        ({"events": [{"group": "G1", "text": "hi"}]}, "event 0"),  # no user and no mention
        ({"events": [{"user": "U1", "group": "G1", "text": "hi", "mention": "yes"}]}, "event 0"),
        ({"events": [{"user": "U1", "event": "join"}]}, "event 0"),
        ({"events": [{"group": "G1", "event": "follow"}]}, "event 0"),
        ({"events": [{"user": "U1", "event": "leave"}]}, "event 0"),
        ({"events": [{"user": "U3", "tap": "同意", "from_reply_of": "U1"}]}, "event 0"),
    ],
)
def test_malformed_script_exits_2(tmp_path: Path, content: object, needle: str) -> None:
    proc = run_replay(write_script(tmp_path, content))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert needle in proc.stderr
    assert proc.stdout == ""


def test_missing_file_exits_2(tmp_path: Path) -> None:
    proc = run_replay(tmp_path / "nope.json")
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr


def test_tap_without_matching_quick_reply_exits_2_naming_the_event(tmp_path: Path) -> None:
    path = write_script(
        tmp_path,
        {
            "events": [
                {"user": "U1", "text": "花壇有什麼好吃的？"},
                {"user": "U1", "tap": "同意"},
            ]
        },
    )
    proc = run_replay(path)
    assert proc.returncode == 2
    assert "event 1" in proc.stderr and "同意" in proc.stderr
    assert [r["index"] for r in lines_of(proc)] == [0]


def test_the_demos_turn_five_request_is_the_one_production_sends(tmp_path: Path) -> None:
    """The offline demo (rules + TOOL_DECLARATIONS measured by the core, no ADK) and the real app
    (ADK Runner, ContractTool) send the same turn-5 request for the seed's five turns: same
    contents, same bytes."""
    from examples.day15 import demo

    run = demo.Demo(tmp_path / "demo")
    try:
        five = asyncio.run(run.five_turns())
    finally:
        run.store.close()
    demo_turn5 = five["turns"][-1]
    demo_contents = [
        {"role": c["role"], "text": "".join(p["text"] for p in c["parts"])}
        for c in five["turn5_request"]["contents"]
    ]
    (sent,) = replayed("five_turns.json")[4]["model_requests"]
    assert script_events("five_turns.json")[4]["text"] == demo_turn5["user_text"]
    assert sent["contents"] == demo_contents
    assert (sent["unit"], sent["count"]) == ("bytes", demo_turn5["budget_bytes"])


# -- a listings folder of one's own (LOCAL_LISTINGS_DIR) -----------------------------------------

OWN_PLACES = (
    "id,name,township,category,dietary,address,note\nx01,埤頭素食小館,埤頭鄉,素食,vegetarian,公所附近,\n"
)


def _own_events(day: date) -> str:
    return (
        "id,name,township,venue,category,start_date,end_date,when,note\n"
        f"y01,埤頭冬季音樂會,埤頭鄉,埤頭公園,表演,{day.isoformat()},,晚上七點,\n"
        "y02,埤頭社區共餐,埤頭鄉,活動中心,體驗,,,每週三中午,\n"
    )


def _own_folder(tmp_path: Path, day: date) -> Path:
    folder = tmp_path / "listings"
    folder.mkdir()
    (folder / "places.csv").write_text(OWN_PLACES, encoding="utf-8")
    (folder / "events.csv").write_text(_own_events(day), encoding="utf-8")
    return folder


def _taipei_today() -> date:
    """The replay's clock is the wall clock, read in Taiwan time (as the service reads it)."""
    return today_in_taipei(time.time())


def _events_on_then_food(tmp_path: Path, day: date) -> tuple[str, dict, dict]:
    """Replay 「埤頭<day>有什麼活動？」 then 「那邊有什麼吃的？」 over a folder of one's own whose dated
    event is on ``day``: the day as said, and the two turns' lines."""
    folder = _own_folder(tmp_path, day)
    said = f"{day.month}/{day.day}"
    script = {
        "events": [
            {"user": "U1", "text": f"埤頭{said}有什麼活動？"},
            {"user": "U1", "text": "那邊有什麼吃的？"},
        ]
    }
    proc = run_replay(write_script(tmp_path, script), env=_env(LOCAL_LISTINGS_DIR=str(folder)))
    assert proc.returncode == 0, proc.stderr
    events, places = lines_of(proc)
    return said, events, places


def test_a_user_made_listings_folder_is_found_by_the_replay(tmp_path: Path) -> None:
    day = _taipei_today() + timedelta(days=1)  # a day still to come, whatever today is
    said, events, places = _events_on_then_food(tmp_path, day)
    [call] = events["tool_calls"]
    args = call["effective_arguments"]
    assert args["area"] == "埤頭鄉" and args["date_from"] == args["date_to"] == day.isoformat()
    titles = events["replies"][-1]["titles"]
    assert titles == ["埤頭冬季音樂會", "埤頭社區共餐"]  # the dated event, then the standing one
    assert f"查詢日期：{said}（" in events["replies"][0]["text"]
    assert places["replies"][-1]["titles"] == ["埤頭素食小館"]
    assert events["journal"]["turns"] == ["埤頭鄉：查活動"]  # no date phrase in the projection


def test_a_day_just_over_is_said_to_be_past_and_its_township_is_kept(tmp_path: Path) -> None:
    said, events, places = _events_on_then_food(tmp_path, _taipei_today() - timedelta(days=1))
    [call] = events["tool_calls"]
    assert call["effective_arguments"] == {}  # nothing was searched
    [reply] = events["replies"]
    assert reply["text"].startswith(f"「{said}（") and "已經過了" in reply["text"]
    assert events["journal"]["turns"] == ["埤頭鄉：查活動"]
    assert places["tool_calls"][0]["effective_arguments"]["area"] == "埤頭鄉"
    assert places["replies"][-1]["titles"] == ["埤頭素食小館"]


def test_a_bad_listings_folder_stops_the_replay_naming_file_row_and_column(tmp_path: Path) -> None:
    folder = tmp_path / "listings"
    folder.mkdir()
    (folder / "places.csv").write_text(OWN_PLACES.replace("vegetarian", "meat"), encoding="utf-8")
    (folder / "events.csv").write_text(_own_events(_taipei_today()), encoding="utf-8")
    script = write_script(tmp_path, {"events": [{"user": "U1", "text": "埤頭有什麼吃的？"}]})
    proc = run_replay(script, env=_env(LOCAL_LISTINGS_DIR=str(folder)))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "places.csv row 2 column dietary" in proc.stderr and proc.stdout == ""


# -- places and dates as people say them (the language layer) -----------------------------------

MONDAY_NOON = "2026-11-30T12:00:00+08:00"  # the scripts' clock; 端午 is 2027-06-09


def _places_and_dates(tmp_path: Path) -> tuple[list[dict], Path]:
    db = tmp_path / "places.sqlite3"
    proc = run_replay(
        SCRIPTS / "places_and_dates.json", "--now", MONDAY_NOON, env=_env(LOCAL_SQLITE_PATH=str(db))
    )
    assert proc.returncode == 0, proc.stderr
    return lines_of(proc), db


def _searched(record: dict) -> list[tuple[str, dict]]:
    return [(c["tool"], c["effective_arguments"]) for c in record["tool_calls"] if c["effective_arguments"]]


def test_places_and_dates_through_the_replay(tmp_path: Path) -> None:
    r, db = _places_and_dates(tmp_path)
    duanwu = {"date_from": "2027-06-09", "date_to": "2027-06-09"}
    # a festival: only that window is searched
    assert _searched(r[0]) == [("search_local_events", {"area": "二林鎮", "keyword": "", **duanwu})]
    # a window said before 「請問是哪個鄉鎮？」 waits in the projection (ISO dates only) and survives it
    assert reply_texts(r[1]) == [ASK_TOWNSHIP]
    assert r[1]["journal"]["turns"] == ["未指定區域：查活動，日期 2027-06-09"]
    assert _searched(r[2]) == [("search_local_events", {"area": "鹿港鎮", "keyword": "", **duanwu})]
    # 「那後天呢」 re-runs the event search with the new window, from the request's context
    later = {"date_from": "2026-12-02", "date_to": "2026-12-02"}
    assert _searched(r[3]) == [("search_local_events", {"area": "鹿港鎮", "keyword": "", **later})]
    # a near miss is confirmed, never applied; 是 completes it through the projection
    assert reply_texts(r[4]) == ["您是說員林市嗎？"] and r[4]["replies"][0]["quick_replies"] == ["是", "不是"]
    assert _searched(r[4]) == [] and r[4]["journal"]["turns"][-1] == "未指定區域：找店家，已問是否指員林市"
    assert [a["area"] for _, a in _searched(r[5])] == ["員林市"]
    # a place outside the county: the honest answer, no search
    assert "目前只服務彰化縣的 26 個鄉鎮市" in reply_texts(r[6])[0] and _searched(r[6]) == []
    # two townships: asked which, and the tapped answer completes it
    assert r[7]["replies"][0]["quick_replies"] == ["二林鎮", "芳苑鄉"] and _searched(r[7]) == []
    assert [a["area"] for _, a in _searched(r[8])] == ["芳苑鄉"]
    # destination beats residence; 和美 inside 和美食 is not 和美鎮
    assert [a["area"] for _, a in _searched(r[9])] == ["二林鎮"]
    assert all(a["area"] != "和美鎮" for _, a in _searched(r[10]))
    # 1２月５日 in full-width digits is a date
    assert _searched(r[15]) == [
        (
            "search_local_events",
            {"area": "花壇鄉", "keyword": "", "date_from": "2026-12-05", "date_to": "2026-12-05"},
        )
    ]


def test_bad_dates_and_zhuyin_get_an_answer_and_nothing_is_stored(tmp_path: Path) -> None:
    r, db = _places_and_dates(tmp_path)
    answers = {11: "這個日期不存在", 12: "這個日期不存在", 13: "1901 到 2100", 14: "看不懂"}
    for index, needle in answers.items():
        assert r[index]["tool_calls"] == [] and r[index]["error_code"] is None
        assert needle in reply_texts(r[index])[0]
        assert r[index]["journal"]["turns"][-1] == "未指定區域：詢問可用功能"
    stored = db.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("places.sqlite3-*"))
    for said in ("2月30日", "13月", "2200年", "ㄌㄨˋ", "原林", "台中", "端午", "後天", "１２月"):
        assert said.encode() not in stored, said
