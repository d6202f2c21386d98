"""More means more, suggested next steps and the township picker, through the replay path (the real
app in-process, signed webhooks, the fake LINE API); every body sent is checked against LINE's schema."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from line_schema import check_messages

from examples.day15.replay import EventResult, ReplayDriver
from local_agent.agent.tools import RESULT_LIMIT
from local_agent.context.projection import MAX_SHOWN_IDS
from local_agent.listings.loader import PLACE_COLUMNS
from local_agent.replies import navigation as nav
from local_agent.turns.service import NAV_REFUSED

U1 = "U" + "1" * 32
G1 = "C" + "1" * 32
N_YUANLIN = 13  # more than one page (RESULT_LIMIT), fewer than two

PLACES = [",".join(PLACE_COLUMNS) + ",phone"]
PLACES += [
    f"r{i:02d},員林小館{i:02d},員林市,小吃,,員林火車站附近,,04-8{i:02d}1234" for i in range(1, N_YUANLIN + 1)
]
PLACES += ["h01,花壇素食,花壇鄉,素食,vegetarian,花壇火車站附近,,"]
EVENTS = [
    "id,name,township,venue,category,start_date,end_date,when,note",
    "y01,員林市集,員林市,員林公園,市集,,,每週六上午,",
    "y02,田中馬拉松,田中鎮,田中鎮公所,運動,,,每年十一月,",  # a township with events and no places
]


@pytest.fixture
def listings(tmp_path: Path) -> Path:
    folder = tmp_path / "listings"
    folder.mkdir()
    (folder / "places.csv").write_text("\n".join(PLACES) + "\n", encoding="utf-8")
    (folder / "events.csv").write_text("\n".join(EVENTS) + "\n", encoding="utf-8")
    return folder


def run(body: Callable[[ReplayDriver], Awaitable[Any]], env: dict[str, str] | None = None) -> Any:
    async def main() -> Any:
        async with ReplayDriver.open(env=env or {}) as driver:
            return await body(driver)

    return asyncio.run(main())


def text_of(result: EventResult) -> str:
    return next(m["text"] for m in result.messages if m["type"] == "text")


def titles(result: EventResult) -> list[str]:
    flex = [m for m in result.replies if m["type"] == "flex"]
    return flex[0]["titles"] if flex else []


def labels(result: EventResult) -> list[str]:
    return [a["label"] for a in result.quick_replies]


def checked(result: EventResult) -> EventResult:
    check_messages(result.messages)
    return result


# -- more means more -------------------------------------------------------------------------------


def test_more_shows_the_next_results_then_says_there_are_no_more(listings):
    async def body(d: ReplayDriver) -> list[EventResult]:
        first = checked(await d.send_text(U1, "員林有什麼好吃的？"))
        second = checked(await d.tap(U1, "再找一家"))
        third = checked(await d.send_text(U1, "還有嗎"))
        return [first, second, third]

    first, second, third = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert len(titles(first)) == RESULT_LIMIT and "再找一家" in labels(first)
    assert text_of(second).startswith(
        f"員林市再列出 {N_YUANLIN - RESULT_LIMIT} 家（前面列過 {RESULT_LIMIT} 家）"
    )
    assert set(titles(second)).isdisjoint(titles(first))
    assert sorted(titles(first) + titles(second)) == [f"員林小館{i:02d}" for i in range(1, N_YUANLIN + 1)]
    assert second.display_text == "再找一家" and "再找一家" not in labels(second)
    assert text_of(third).startswith(f"員林市符合的店家都列過了（共 {N_YUANLIN} 家）")
    assert titles(third) == [] and "換個鄉鎮" in labels(third)
    # the window carries the ids shown (never names), in the request the budget measures
    every = ",".join(f"r{i:02d}" for i in range(1, N_YUANLIN + 1))
    sent = [c["text"] for c in third.model_requests[0]["contents"] if c["role"] == "user"]
    assert sent[-2].endswith(f"員林市：找店家。不包含當次素別，不代表同意或服務完成。已列出編號：{every}")
    assert not any("員林小館" in text for text in sent)
    assert third.tool_calls[0]["proposed_arguments"]["more"] is True


@pytest.mark.parametrize("words", ["換一家", "再找一家", "還有別的嗎"])
def test_each_way_of_asking_for_more_continues_the_list(listings, words):
    async def body(d: ReplayDriver) -> EventResult:
        await d.send_text(U1, "員林有什麼好吃的？")
        return checked(await d.send_text(U1, words))

    result = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert len(titles(result)) == N_YUANLIN - RESULT_LIMIT


def test_a_stale_more_after_the_window_expired_asks_which_township_with_a_picker(listings):
    async def body(d: ReplayDriver) -> tuple[EventResult, EventResult]:
        await d.send_text(U1, "員林有什麼好吃的？")
        d.advance(901)
        stale = checked(await d.tap(U1, "再找一家"))
        again = checked(await d.tap(U1, "員林市"))
        return stale, again

    stale, again = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert text_of(stale).startswith("請問是哪個鄉鎮？我這裡沒有前面找過的紀錄")
    assert labels(stale) == ["員林市", "花壇鄉"]  # the townships with places, one tap each (county order)
    assert stale.journal["turns"] == ["未指定區域：找店家"]  # pending: the next answer completes it
    assert text_of(again).startswith("員林市找到 10 家店家") and len(titles(again)) == RESULT_LIMIT


def test_the_shown_ids_are_bounded_and_canonical():
    from local_agent.context.projection import SafeTurn

    turn = SafeTurn("places", "員林市", shown=("r02", "r01", "r02"))
    assert turn.shown == ("r01", "r02") and turn.to_dict()["shown"] == ["r01", "r02"]
    assert SafeTurn.from_dict(turn.to_dict()) == turn
    assert "shown" not in SafeTurn("places", "員林市").to_dict()  # additive: old rows read the same
    for bad in (("員林小館",), ("r" * 33,), tuple(f"r{i}" for i in range(MAX_SHOWN_IDS + 1))):
        with pytest.raises(ValueError):
            SafeTurn("places", "員林市", shown=bad)
    with pytest.raises(ValueError):
        SafeTurn("", "", shown=("r01",))  # ids need a public goal and an area
    # from a tool result, anything that is not an id list is dropped, not projected
    assert SafeTurn.from_tool("search_local_places", "員林市", shown=["<b>x</b>"]).shown == ()


# -- suggested next steps --------------------------------------------------------------------------


def test_after_a_result_the_quick_replies_offer_next_steps(listings):
    async def body(d: ReplayDriver) -> list[EventResult]:
        places = checked(await d.send_text(U1, "員林有什麼好吃的？"))
        events = checked(await d.tap(U1, "這裡的活動"))
        back = checked(await d.tap(U1, "這裡的美食"))
        remember = checked(await d.tap(U1, "記住我吃素"))
        return [places, events, back, remember]

    places, events, back, remember = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert labels(places) == ["再找一家", "這裡的活動", "換個鄉鎮", "記住我吃素"]
    assert events.display_text == "員林市的活動" and titles(events) == ["員林市集"]
    assert labels(events) == ["這裡的美食", "換個鄉鎮"]
    assert text_of(back).startswith("員林市找到 10 家店家")
    assert remember.outcome is not None and remember.outcome.command == "consent_prompt"
    assert labels(remember) == ["同意", "不同意"]


def test_remember_is_offered_only_in_a_one_to_one_chat_with_no_kept_diet(listings):
    async def body(d: ReplayDriver) -> list[EventResult]:
        group = checked(await d.send_text(U1, "員林有什麼好吃的？", G1, mention=True))
        await d.send_text(U1, "記住我吃素")
        await d.tap(U1, "同意")
        kept = checked(await d.send_text(U1, "員林有什麼好吃的？"))
        forged = checked(await d.postback(U1, nav.remember("vegetarian"), G1))
        return [group, kept, forged]

    group, kept, forged = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert "記住我吃素" not in labels(group) and "換個鄉鎮" in labels(group)
    assert "記住我吃素" not in labels(kept)
    assert forged.outcome is not None and forged.outcome.command == "private_only"


# -- the township picker ---------------------------------------------------------------------------


def test_the_picker_reaches_every_township_with_listings_in_one_or_two_taps():
    """With the shipped snapshot (15 townships with places: more than 13), the picker groups them."""

    async def body(d: ReplayDriver) -> dict[str, Any]:
        asked = checked(await d.send_text(U1, "有什麼好吃的？"))
        reached: dict[str, Any] = {"asked": asked, "towns": {}}
        for region in labels(asked):
            step = checked(await d.tap(U1, region))
            reached["towns"][region] = labels(step)
            await d.send_text(U1, "有什麼好吃的？")
        return reached

    reached = run(body)
    from local_agent.listings.loader import shipped_listings

    listings = shipped_listings()
    with_places = {t for t in listings.covered_townships if listings.places_in(t)}
    assert len(with_places) > 13 and len(labels(reached["asked"])) <= 13
    assert text_of(reached["asked"]) == "請問是哪個鄉鎮？"
    found = [t for towns in reached["towns"].values() for t in towns]
    assert sorted(found) == sorted(with_places)
    assert all(len(towns) <= 13 for towns in reached["towns"].values())


def test_a_picker_tap_runs_the_search_and_completes_the_pending_question():
    async def body(d: ReplayDriver) -> EventResult:
        asked = await d.send_text(U1, "有什麼活動？")
        assert len(labels(asked)) == 13  # 13 townships have events: one tap each
        return checked(await d.tap(U1, "花壇鄉"))

    result = run(body)
    assert result.display_text == "花壇鄉的活動"
    assert text_of(result).startswith("花壇鄉找到") and titles(result)
    assert result.journal["turns"] == ["未指定區域：查活動", "花壇鄉：查活動"]


@pytest.mark.parametrize(
    "data,expected",
    [
        (nav.town("places", "田中鎮"), "田中鎮目前的教學快照裡沒有美食資料。"),  # events only
        (nav.town("places", "線西鄉"), "線西鄉目前的教學快照裡沒有美食資料。"),  # nothing at all
        (nav.town("places", "台北市"), NAV_REFUSED),
        (nav.PREFIX + "pick:places:9", NAV_REFUSED),
        (nav.PREFIX + "town:parking:員林市", NAV_REFUSED),
        (nav.PREFIX + "remember:bacon", NAV_REFUSED),
        (nav.PREFIX + "launch", NAV_REFUSED),
    ],
)
def test_a_picker_tap_that_cannot_be_served_gets_a_clear_answer(listings, data, expected):
    async def body(d: ReplayDriver) -> EventResult:
        return checked(await d.postback(U1, data))

    result = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert text_of(result).startswith(expected)
    assert result.model_requests == [] and result.journal["turns"] == []
    if expected != NAV_REFUSED:
        assert labels(result) == ["員林市", "花壇鄉"]  # the picker again


def test_more_after_the_window_moved_on_says_the_list_may_repeat(listings):
    """The demo's five turns: by turn 5 the ids turn 1 showed left with the two-turn window, so the
    list is not presented as new."""

    async def body(d: ReplayDriver) -> tuple[EventResult, EventResult]:
        first = checked(await d.send_text(U1, "員林有什麼好吃的？"))
        await d.send_text(U1, "員林這禮拜有什麼活動？")
        await d.send_text(U1, "那邊停車要錢嗎？")
        await d.send_text(U1, "有沒有公車可以到？")
        return first, checked(await d.send_text(U1, "剛才那個鄉鎮，再找一家吃的。"))

    first, fifth = run(body, {"LOCAL_LISTINGS_DIR": str(listings)})
    assert titles(fifth) == titles(first)  # nothing left in the request says what was shown
    assert text_of(fifth).startswith(
        f"員林市找到 {RESULT_LIMIT} 家店家（前面列過哪些我已經沒有紀錄，以下可能和之前重複）："
    )
    assert "找到" in text_of(first) and "重複" not in text_of(first)


def test_the_demo_five_turns_do_not_present_turn_one_again_as_new(tmp_path):
    from examples.day15.demo import Demo

    rows = asyncio.run(Demo(tmp_path).five_turns())["turns"]
    first, fifth = rows[0]["reply"], rows[4]["reply"]
    assert fifth.split("：", 1)[1] == first.split("：", 1)[1]  # the same places: the window no longer knows
    assert "可能和之前重複" in fifth and "可能和之前重複" not in first
