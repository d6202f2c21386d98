"""Kinds read by design, each with sentences written for the test (not the corpus's): a correction
said without a pause, a hedged delete or stop, a flowerbed, a township passed on the way, two
townships offered as alternatives."""

from __future__ import annotations

import pytest

from local_agent import language
from local_agent.language import intents, lexicon, townships
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


# -- kinds read by the policy and the word lists -------------------------------------------------------


def _consent(text: str) -> str | None:
    return intents.consent_answer(intents.bare(reading_form(text)))


@pytest.mark.parametrize(("text", "answer"), [("嗯 那你記吧", "consent_yes"), ("Yep thanks", "consent_yes")])
def test_a_yes_particle_with_the_keeping_verb_and_an_english_yes_with_courtesy_are_yeses(
    text, answer
) -> None:
    assert _consent(text) == answer
    assert _consent("你記吧") is None  # the verb alone still asks nothing of the prompt


def test_a_diet_explained_by_what_it_allows_negates_no_diet() -> None:
    assert language.read("我是吃蛋奶素的 蛋跟奶都可以吃 幫我記起來").diet.code == "lacto_ovo"
    assert language.read("我現在什麼都可以吃了").diet.code == "any"


def test_a_lasting_wish_asked_kindly_is_a_remember() -> None:
    assert intents.read("以後找吃的都幫我挑蛋奶素的好不好").intent == "remember"
    assert intents.read("以後都會有素食的嗎").intent != "remember"  # a real question stays one


def test_greetings_said_one_after_another_are_a_greeting() -> None:
    assert intents.small_talk(reading_form("午安喔 呷飽未")) == "greeting"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("鹿港老街那邊有車位嗎", "unsupported"),
        ("二水有什麼好吃的 另外想問哪裡停車", "search"),  # by the way: the search stays the request
        ("這次不用找素的 田中有什麼好吃的", "search"),  # for now only: no stop
        ("我爸常常忘記他自己吃素 幫他找北斗的素食", "search"),
    ],
)
def test_asides_and_remarks_leave_the_search_the_request(text: str, intent: str) -> None:
    assert language.read(text).decision.reading.intent == intent


def test_a_courtesy_and_a_self_correction_are_no_complaint() -> None:
    for text in ("麻煩你了", "我打錯了"):
        assert all("complaint" not in t.classes for t in lexicon.tokens(reading_form(text)))


def test_a_remember_of_a_record_the_service_never_keeps_asks_nothing() -> None:
    assert language.read("幫我記住我家地址").decision.outcome == "pass"


def test_a_question_that_goes_on_past_a_pause_asks_about_the_delete() -> None:
    # 是不是可以 / 有沒有辦法 opens a question the delete in the next clause still belongs to
    assert intents.read("請問一下喔 是不是可以把蛋奶素的 那個 清掉").intent == "forget_confirm"
    assert intents.read("蛋奶素的那個設定，幫我清掉").intent == "forget"


def test_a_stop_passed_on_from_someone_else_is_asked_about() -> None:
    assert intents.read("我是他兒子 我爸說他吃素的事以後不用記").intent == "forget_confirm"
    # the speaker asks it too: a request
    assert intents.read("我爸說他吃素的事以後不用記 麻煩幫他刪掉").intent == "forget"


def test_a_remark_on_a_visit_with_no_place_named_is_small_talk() -> None:
    said = language.read("前天你介紹的那家素食麵很好吃 我先生也說讚")
    assert said.decision.reading.intent in ("small_talk", "thanks")
    assert language.read("前天去的那家很好吃 二林還有類似的嗎").decision.reading.intent == "search"


@pytest.mark.parametrize("text", ["元旦員林有升旗典禮嗎", "二林下個月有路跑嗎"])
def test_event_words_of_more_kinds_ask_for_events(text: str) -> None:
    assert language.read(text).goal == "events"
