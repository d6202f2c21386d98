"""Kinds read by design from the seventh blind set's development half, each with sentences written for
the test (not the corpus's): eating is a verb a negation reaches, an A-not-A question negates nothing,
a question word before 都 / 也 asks nothing, a record of something else is not what is kept, a drop
said with a degree, and no more of the kept thing said as a plea or a complaint."""

from __future__ import annotations

import pytest

from local_agent.language import intents, rules
from local_agent.language.text import reading_form
from local_agent.language.townships import find_townships, read_places

_FORGET = ("forget", "forget_confirm")


def _kinds(text: str) -> set[str]:
    return {c.rule.reading for c in rules.read_clauses(reading_form(text)) if c.rule is not None}


def test_a_negation_before_eating_negates_the_eating_not_the_delete_after_it() -> None:
    assert _kinds("上班都沒時間吃全素 那個全素的設定取消") == {"delete"}
    assert intents.read("上班都沒時間吃全素 那個全素的設定取消").intent == "forget"


def test_a_negation_before_把_still_reaches_the_verb_after_the_object() -> None:
    assert _kinds("別把我吃全素的紀錄刪掉") == {"keep"}
    assert intents.read("別把我吃全素的紀錄刪掉").intent == "forget_declined"


@pytest.mark.parametrize("text", ["我的素食設定是不是要清掉", "那個全素的偏好是不是該拿掉了"])
def test_an_a_not_a_question_before_a_delete_negates_nothing(text: str) -> None:
    assert intents.read(text).intent in _FORGET


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("我現在什麼都吃", False),
        ("啥也不想吃", False),
        ("你記了我什麼", True),
        ("什麼都可以吃嗎", True),
    ],
)
def test_a_question_word_before_都_or_也_says_any(text: str, asks: bool) -> None:
    assert intents.is_question(reading_form(text)) is asks


def test_a_stop_with_any_food_after_it_is_no_question() -> None:
    assert intents.read("全素那個不用再幫我記了 我現在什麼都吃").intent == "forget"


@pytest.mark.parametrize("text", ["手機的通話紀錄要刪一刪 好麻煩", "行車記錄器滿了 要刪影片"])
def test_a_record_of_something_else_is_not_what_is_kept(text: str) -> None:
    assert not intents.has_object(reading_form(text))
    assert intents.read(text).intent != "forget"


def test_a_drop_said_with_a_degree_is_asked_about() -> None:
    assert intents.read("蛋奶素那個我看是不太需要了齁").intent == "forget_confirm"


@pytest.mark.parametrize("text", ["拜託別再一直推素的給我了", "我的偏好不用再幫我加進去了"])
def test_no_more_of_the_kept_thing_is_a_stop_asked_about(text: str) -> None:
    assert "stop" in _kinds(text)
    assert intents.read(text).intent in _FORGET


def test_no_more_of_it_for_today_is_this_search_only() -> None:
    assert "stop" not in _kinds("今天不用再找素的")


def test_a_stop_beside_a_search_is_asked_about_first() -> None:
    assert intents.read("別再給我素的了 田中有什麼吃的").intent == "forget_confirm"


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("花壇有什麼親子餐廳", "places"),  # the restaurant is asked for; 親子 says which
        ("田尾有沒有吃午餐的地方 我們想去走走", "places"),
        ("田尾有沒有親子活動 順便吃個飯", "events"),
    ],
)
def test_the_noun_asked_for_decides_places_or_events(text: str, goal: str) -> None:
    assert intents.search_goal(text) == goal


def test_what_the_bot_can_do_asked_beside_a_compliment_is_the_help_text() -> None:
    assert intents.read("請問你能做什麼 我鄰居說你很好用").intent == "help"


def test_thanks_for_a_search_done_before_asks_no_new_search() -> None:
    found = intents.read("之前你幫我找的那家素食很讚 謝謝你")
    assert (found.intent, found.talk) == ("small_talk", "thanks")


@pytest.mark.parametrize("text", ["我阿公吃全素的那個紀錄喔", "那個我吃蛋奶素的那件事"])
def test_the_kept_thing_named_alone_is_asked_what_to_do_with(text: str) -> None:
    assert intents.read(text).intent == "preference_question"


@pytest.mark.parametrize(
    "text",
    ["我鄰居叫陳和美 她說田中有一家不錯", "我乾媽張秀水推薦的那家在田中", "老師王大村說田中有市集"],
)
def test_a_persons_full_name_holds_no_township(text: str) -> None:
    assert find_townships(text) == ["田中鎮"]


def test_a_blessing_with_和美_names_no_township() -> None:
    assert find_townships("祝你們夫妻和美 田中有什麼好吃的") == ["田中鎮"]


@pytest.mark.parametrize("text", ["北斗有宵夜嗎", "上次那間是哪一家 北斗的"])
def test_a_late_meal_or_a_shop_asked_about_is_a_place_search(text: str) -> None:
    assert intents.search_goal(text) == "places"


def test_a_pause_in_voice_typing_ends_a_clause_for_the_township_asked() -> None:
    assert read_places("我兒子佇和美 我佇線西 線西有啥物好食").township == "線西鄉"


def test_a_township_said_not_to_be_searched_gives_way() -> None:
    assert read_places("幫我看芳苑 不要二林").township == "芳苑鄉"


def test_a_township_before_a_person_names_where_the_person_is_from() -> None:
    assert read_places("和美的朋友說大村那家素食很好吃 在哪").township == "大村鄉"
