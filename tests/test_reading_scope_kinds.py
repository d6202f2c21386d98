"""Kinds read by design from the sixth blind set's development half, each with sentences written for
the test (not the corpus's): a negation reaches only the verb after it, a delete asked for someone
else, which diet was remembered, something to be done to what is kept with no verb for it, keeping
it or not undecided, someone's forgetting remarked on before a search, a meal said in English."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import intents, rules
from local_agent.language.text import reading_form

TODAY = date(2026, 12, 1)


def _kinds(text: str) -> set[str]:
    return {c.rule.reading for c in rules.read_clauses(reading_form(text)) if c.rule is not None}


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("你不要記素食那個清掉", {"stop"}),  # 不要 reaches 記; the 清掉 after it is said plainly
        ("不要再記著，那個素食的資料撤掉", {"stop", "delete"}),
        ("不要把素食的資料清掉", {"keep"}),  # nothing between: the negation reaches the delete
        ("我不想讓你記我吃素", {"stop"}),
    ],
)
def test_a_negation_reaches_only_the_first_verb_after_it(text: str, kinds: set[str]) -> None:
    assert _kinds(text) == kinds


def test_a_stop_then_a_delete_in_one_breath_is_no_keep() -> None:
    assert intents.read("不要記 素食那個取消").intent in ("forget", "forget_confirm")
    assert intents.read("不要記 素食那個取消").intent != "forget_declined"


@pytest.mark.parametrize(
    "text",
    ["阿爸已經不吃素了 素食那個設定幫他刪掉", "這支是我媽的手機 她講免記了 幫她把全素的偏好清除"],
)
def test_a_delete_asked_for_someone_else_is_a_request(text: str) -> None:
    assert intents.read(text).intent == "forget"


def test_a_remark_that_someone_forgot_the_diet_stays_a_remark() -> None:
    assert "forgot_before" in _kinds("阿嬤說你上次忘了她吃素")
    assert intents.read("阿嬤說你上次忘了她吃素").intent == "preference_question"


@pytest.mark.parametrize(
    "text", ["我爸問你記的他是吃哪種素", "你那邊記我的資料記了什麼", "我吃全素這件你會記多久"]
)
def test_which_diet_was_remembered_is_a_what_is_kept_question(text: str) -> None:
    assert language.read(text, TODAY).intent == "show_kept"


@pytest.mark.parametrize("text", ["那個素食的設定喔 你看著辦", "我吃蛋奶素那個 你幫我處理一下"])
def test_something_to_be_done_to_what_is_kept_is_asked_three_ways(text: str) -> None:
    assert language.read(text, TODAY).intent == "preference_question"


def test_something_to_be_done_to_a_shop_is_no_question_about_what_is_kept() -> None:
    assert language.read("員林吃素的店你幫我弄一下", TODAY).intent == "search"


def test_undecided_whether_to_keep_it_is_asked_about() -> None:
    assert language.read("素食的偏好 我還在想要不要留著", TODAY).intent == "forget_confirm"


@pytest.mark.parametrize(
    ("text", "township"),
    [
        ("我媽很健忘常忘記帶鑰匙 二水有沒有素食的麵店", "二水鄉"),
        ("阿伯最近老是忘了吃藥 帶他去社頭吃素的好了 哪一間好", "社頭鄉"),
    ],
)
def test_someones_forgetting_remarked_on_before_a_search_is_the_search(text: str, township: str) -> None:
    read = language.read(text, TODAY)
    assert (read.intent, read.places.township) == ("search", township)


@pytest.mark.parametrize("text", ["dinner 埔心 有推薦的嗎", "Breakfast 北斗 哪裡好"])
def test_a_meal_said_in_english_is_a_place_search(text: str) -> None:
    read = language.read(text, TODAY)
    assert (read.intent, read.goal) == ("search", "places")


@pytest.mark.parametrize("text", ["阿伯最近很健忘 鑰匙常常忘記帶", "阮阿公常常袂記得食藥仔 真煩惱"])
def test_a_remark_on_someones_forgetting_with_no_place_named_is_no_search_and_no_preference(
    text: str,
) -> None:
    read = language.read(text, TODAY)
    assert (read.outcome, read.intent) in (
        ("pass", "small_talk"),
        ("pass", "unknown"),
    )  # small talk or the model


def test_a_question_inside_a_forgetting_asks_the_bot_nothing() -> None:
    from local_agent.language.utterance import _asks

    forgot = rules.read_clauses(reading_form("我忘記那間店叫什麼了"))
    assert not _asks(forgot)
    assert _asks(rules.read_clauses(reading_form("我忘記了，那間店叫什麼")))
