"""Kinds read by design, each with sentences written for the test (not the corpus's): a correction
said without a pause, a hedged delete or stop, a flowerbed, a township passed on the way, two
townships offered as alternatives."""

from __future__ import annotations

import pytest

from local_agent.language import intents, townships
from local_agent.language.text import reading_form


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("我不是要問活動我是要你把全素的設定拿掉", "我不是要問活動,我是要你把全素的設定拿掉"),
        ("不是查吃的而是查二水的活動", "不是查吃的,而是查二水的活動"),
        ("是不是要刪除", "是不是要刪除"),  # an A-not-A question holds no correction
        ("我不是要你刪除", "我不是要你刪除"),  # no pivot: nothing to split
    ],
)
def test_a_correction_said_without_a_pause_is_two_clauses(text: str, form: str) -> None:
    assert reading_form(text) == form


def test_the_correction_is_what_is_asked() -> None:
    assert intents.read("我不是要問活動我是要你把全素的設定拿掉").intent == "forget"
    assert intents.read("我不是要你刪除").intent == "forget_declined"


@pytest.mark.parametrize(
    "text",
    ["素食的設定應該可以刪掉了吧", "好像不用再幫我記蛋奶素了", "那個吃素的紀錄可能要清掉喔"],
)
def test_a_hedged_delete_or_stop_is_asked_about_first(text: str) -> None:
    assert intents.read(text).intent == "forget_confirm"


def test_a_hedge_in_another_clause_leaves_a_plain_delete_a_request() -> None:
    assert intents.read("我應該會開始吃肉，吃素的設定幫我刪掉").intent == "forget"


@pytest.mark.parametrize(
    ("text", "township"),
    [
        ("今天在修剪花壇好累 溪湖有什麼好吃的", "溪湖鎮"),
        ("學校的花壇很漂亮 二林最近有什麼活動", "二林鎮"),
        ("花壇有什麼好吃的", "花壇鄉"),
    ],
)
def test_a_flowerbed_is_no_township(text: str, township: str) -> None:
    reading = townships.read_places(text)
    assert (reading.kind, reading.township) == ("township", township)


def test_a_township_passed_on_the_way_is_not_where_the_search_goes() -> None:
    reading = townships.read_places("我們等一下路過埔鹽 中午在永靖吃 有什麼推薦")
    assert (reading.kind, reading.township) == ("township", "永靖鄉")


@pytest.mark.parametrize("text", ["要去田中還是二水比較好玩", "社頭或是田尾有什麼活動"])
def test_two_townships_offered_as_alternatives_are_asked_between(text: str) -> None:
    assert townships.read_places(text).kind == "choice"
