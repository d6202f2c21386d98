"""Kinds read by design from the development half of a blind set written apart from the corpus
(batches 190-195: a retired school principal writing classical phrases, a duck farmer's wife and a
grandmother dictating Hokkien by voice, caregivers from Indonesia and the Philippines, a son managing
his parents' account from Taipei, a temple committee chairman, a man who changes his mind, among
others). Each with sentences written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import text
from local_agent.language.text import reading_form

NOW = date(2026, 12, 1)


def _decided(said: str) -> tuple[str, str]:
    decision = language.read(said, NOW).decision
    return decision.outcome, decision.reading.intent


@pytest.mark.parametrize(
    "said",
    [
        "我查某囝講伊欲停止食菜，我猶原食全素，明仔載欲去田尾揣食的",
        "阮翁講伊停掉蛋奶素，我猶原，幫我找花壇的餐廳",
    ],
)
def test_someone_else_stopping_their_own_diet_beside_the_speakers_own_still_as_before_is_the_search(
    said: str,
) -> None:
    assert _decided(said) == ("act", "search")


def test_someone_else_stopping_their_diet_with_nothing_said_of_the_speakers_is_still_a_stop() -> None:
    assert _decided("阮翁講伊欲停止食菜") != ("act", "search")


@pytest.mark.parametrize("said", ["那個素的 袂共我刪喔 我猶咧食", "全素彼个 莫共我刪掉 我閣咧食"])
def test_a_hokkien_dont_before_a_delete_keeps_it(said: str) -> None:
    assert _decided(said)[1] in ("forget_declined", "search")


def test_hokkien_words_typed_by_voice_for_i_and_you_are_read() -> None:
    assert reading_form("哩共挖記的彼个刪掉") == "你幫我記的那個刪掉"
    assert reading_form("對今仔日開始 哩攏共挖揣食菜的") == "從今天開始你都幫我找吃素的"


@pytest.mark.parametrize(
    "said",
    [
        "相簿裡的舊檔案我要清掉 不是啦 那個在電腦上 你不用管 幫我看二林這禮拜六有什麼活動",
        "我要把健身的紀錄刪掉 不關你的事啦 芬園有什麼好吃的",
    ],
)
def test_a_delete_told_to_be_none_of_the_bots_concern_beside_a_search_is_the_search(said: str) -> None:
    assert _decided(said) == ("act", "search")


@pytest.mark.parametrize(
    "said", ["我的偏好刪掉 你不用管為什麼 幫我找鹿港吃的", "素食那個刪掉 不關你的事 鹿港有什麼吃的"]
)
def test_the_preference_or_a_diet_deleted_is_the_bots_concern_whatever_else_is_said(said: str) -> None:
    assert _decided(said)[1] in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    "said", ["素食那筆紀錄還有保留的必要嗎", "敝人已不茹素，是否仍有留存之必要", "你還需要記著我吃蛋奶素嗎"]
)
def test_asking_whether_keeping_is_still_needed_is_asked_about(said: str) -> None:
    assert _decided(said) == ("ask", "forget_confirm")


@pytest.mark.parametrize("said", ["需要我幫你記住什麼嗎", "有需要幫你記下來嗎"])
def test_a_need_said_with_no_keeping_asked_is_no_stop(said: str) -> None:
    assert _decided(said)[1] != "forget_confirm"


@pytest.mark.parametrize("said", ["阿公說不要蛋奶素了 刪掉吧", "我媽講她不吃全素了，清掉"])
def test_a_bare_delete_after_a_relatives_diet_given_up_deletes_the_kept_diet(said: str) -> None:
    assert _decided(said)[1] in ("forget", "forget_confirm")


def test_a_bare_delete_after_a_relatives_remark_of_another_thing_is_not_the_diet() -> None:
    assert _decided("我朋友說他不吃素了 刪掉那張照片")[1] != "forget"


@pytest.mark.parametrize("said", ["可以把那個蛋奶素取消嗎", "能把我的素食設定刪掉嗎"])
def test_the_kept_thing_put_with_ba_in_a_polite_question_asks_it_done(said: str) -> None:
    assert _decided(said) == ("act", "forget")


@pytest.mark.parametrize("said", ["可以刪除嗎", "可以刪除我的偏好嗎"])
def test_a_delete_asked_without_naming_the_kept_thing_with_ba_is_still_asked(said: str) -> None:
    assert _decided(said) == ("ask", "forget_confirm")


def test_a_search_with_a_courtesy_after_it_is_no_yes() -> None:
    assert _decided("二林跟竹塘兩邊都幫我看有什麼好吃的 麻煩你了")[1] == "search"


@pytest.mark.parametrize("said", ["然也，同意之。", "可也"])
def test_a_classical_yes_answers_the_consent_prompt(said: str) -> None:
    assert language.read(said, NOW).consent == "consent_yes"


def test_a_remember_asked_with_the_speakers_own_poor_memory_as_the_reason_is_offered() -> None:
    decision = language.read("我吃全素 麻煩你記起來 我記性不好", NOW).decision
    assert decision.reading.intent == "remember" and decision.reading.diet == "vegan"


def test_a_delete_weighed_then_kept_as_it_is_deletes_nothing() -> None:
    decision = language.read("我本來想把全素刪掉… 算了不用 留著好了", NOW).decision
    assert decision.reading.intent == "forget_declined"


@pytest.mark.parametrize("said", ["那個全素的 我看是嘛毋免啊", "蛋奶素彼个 嘛嘸免啊"])
def test_a_hokkien_no_longer_needed_after_the_kept_diet_is_asked_about(said: str) -> None:
    assert _decided(said) == ("ask", "forget_confirm")


def test_a_return_verb_after_the_kept_diet_deletes_it() -> None:
    assert _decided("你幫我記的那個素的退掉") == ("act", "forget")


def test_townships_in_simplified_characters_asked_together_are_each_found_in_the_text() -> None:
    assert text.spellings("員林") == ("員林", "员林")
    assert text.spellings("永靖") == ("永靖",)


@pytest.mark.parametrize("said", ["where can I park near 鹿港 temple", "any resto in 員林?"])
def test_english_parking_and_resto_are_read(said: str) -> None:
    form = reading_form(said)
    assert "停車" in form or "餐廳" in form


@pytest.mark.parametrize("said", ["你記的那個蛋奶素喔 我看是免啦", "全素彼个 阮看是免"])
def test_a_hokkien_no_need_said_last_of_the_kept_diet_is_asked_never_answered_kept(said: str) -> None:
    assert _decided(said) == ("ask", "forget_confirm")


@pytest.mark.parametrize("said", ["幫我把資料清一下", "資料幫我刪一下"])
def test_a_delete_verb_softened_with_yixia_still_deletes_or_asks(said: str) -> None:
    assert _decided(said)[1] in ("forget", "forget_confirm")


def test_no_more_of_the_kept_diets_places_is_a_stop_but_not_one_shop_named() -> None:
    assert _decided("拜託別再給我推素食館了 我現在吃葷")[1] in ("forget", "forget_confirm")
    assert _decided("那家素食店不要再去了 很難吃")[1] != "forget_confirm"
