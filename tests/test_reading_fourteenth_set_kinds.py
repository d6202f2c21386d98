"""Kinds read by design from a fourteenth blind set: three on deleting and keeping (a retired postman,
a daughter abroad managing her father's account, a Thai caregiver, a careful retired nurse; a Hokkien
speaking grandmother, a gym coach typing abbreviations, a man annoyed at the filtering, a shy young
woman; a temple abbot's assistant, a grandfather sharing his phone with his grandson, a woman from
Guangdong writing Cantonese in simplified characters, a retired judge) and three on all categories,
from its development half. Each with sentences written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import rules
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places

NOW = date(2026, 12, 1)


@pytest.mark.parametrize(("typed", "read"), [("rm veg設定", "刪掉素食設定"), ("veggie的", "素食的")])
def test_typed_abbreviations_read_as_the_words(typed: str, read: str) -> None:
    assert reading_form(typed) == read


@pytest.mark.parametrize(
    "said",
    [
        "cancel my mom's vegan setting? not sure yet, ask me first",
        "吃素那個不要再記了 我也在想 不知道好不好",
        "全素的紀錄刪掉嗎 你先問我",
    ],
)
def test_a_delete_said_with_doubt_or_ask_me_first_is_asked_never_acted_on(said: str) -> None:
    decision = language.read(said, NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("ask", "forget_confirm")


@pytest.mark.parametrize(
    ("typed", "holds"),
    [
        ("你唔好再记住我食素", "不要再記住"),
        ("帮我搵下员林", "幫我找下員林"),
        ("帮我删返啦", "刪掉"),
        ("我唔食牛", "不吃"),
    ],
)
def test_cantonese_words_read_as_the_mandarin_ones(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


@pytest.mark.parametrize(
    ("said", "township"), [("社头有什么好吃的", "社頭鄉"), ("去花坛吃饭呢部手机", "花壇鄉")]
)
def test_a_township_in_simplified_characters_is_read_in_a_mixed_script_message(
    said: str, township: str
) -> None:
    assert read_places(reading_form(said)).township == township


def test_a_thai_yes_is_a_yes() -> None:
    assert language.read("ใช่ค่ะ", NOW).consent == "consent_yes"


def test_two_townships_then_search_both_are_both_searched() -> None:
    places = read_places(reading_form("二林 芳苑 都找 吃的"))
    assert places.together and set(places.choices) == {"二林鎮", "芳苑鄉"}


@pytest.mark.parametrize("said", ["今天忘記帶錢包 北斗有什麼素食", "阿公又忘了吃藥 我好擔心"])
def test_forgetting_to_do_something_is_no_delete(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent not in ("forget", "forget_confirm")


def test_stop_filtering_in_english_is_a_stop() -> None:
    assert "stop" in rules.readings(reading_form("please stop filtering, thanks"))


@pytest.mark.parametrize(
    "said", ["溪湖有什麼展覽嗎？我在想要不要那天休息", "鹿港週末有市集嗎 想說店要不要早點開"]
)
def test_the_speaker_wondering_about_their_own_plans_asks_nothing_of_the_bot(said: str) -> None:
    assert language.read(said, NOW).goal == "events"


def test_a_short_no_said_last_in_a_search_is_no_answer() -> None:
    """Only 同意 / 不同意 said last is an answer after the rest: 「…，不要太貴喔」 is part of the search."""
    said = language.read("我要在北斗吃晚餐 有什麼好吃的，不要太貴喔", NOW)
    assert said.consent is None and said.goal == "places"


def test_a_keep_beside_asking_whether_it_is_still_there_shows_it() -> None:
    decision = language.read("別刪我的蛋奶素 我只是想確認那個設定還在不在", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "show_kept")


def test_a_township_before_hokkien_dinner_is_read() -> None:
    assert read_places(reading_form("阮欲佇溪湖食暗頓")).township == "溪湖鎮"


def test_a_diet_given_up_is_never_passed_as_chat_by_the_classifier() -> None:
    """「我最近不吃素了」 touches what is kept (the 確定忘記 question follows): a classifier sure of
    chat does not make it small talk."""
    from local_agent.language.intents import Reading
    from local_agent.language.policy import decide
    from tests.test_policy_decide import Given

    decision = decide(Reading("diet_change"), None, frozenset(), Given("smalltalk_chat", 0.9))
    assert decision.reading.intent == "diet_change"


@pytest.mark.parametrize(
    ("typed", "read"), [("全素ไม่ต้องจำแล้วค่ะ", "全素不用記了คะ"), ("ลบ蛋奶素", "刪掉蛋奶素")]
)
def test_a_thai_caregiver_s_words_read_as_the_chinese_ones(typed: str, read: str) -> None:
    assert reading_form(typed) == read


@pytest.mark.parametrize("said", ["蛋奶素 停記 北斗 晚飯", "五辛素停存。"])
def test_a_stop_said_telegram_style_is_a_stop(said: str) -> None:
    assert "stop" in rules.readings(reading_form(said))
