"""Kinds read by design from the development half of a blind set written apart from the corpus
(batches 196-201: a betel-nut stall owner, a Thai caregiver, a Hakka-speaking grandmother, an oyster
farmer, a retired civil servant writing like an official letter, a Myanmar-born wife, a lay Buddhist
disciple, a husband and wife sharing one phone, a nephew managing his uncle's account, among others).
Each with sentences written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import intents
from local_agent.language.text import reading_form

NOW = date(2026, 12, 1)


def _decided(said: str) -> tuple[str, str]:
    decision = language.read(said, NOW).decision
    return decision.outcome, decision.reading.intent


def _answer(said: str) -> str | None:
    return intents.consent_answer(intents.bare(reading_form(said)))


@pytest.mark.parametrize(
    "said",
    [
        "她講好 會使",  # he / she, in Hokkien typed by voice
        "伊講可以 就按呢",
        "剛才問過我爸了，他點頭說好",  # the nod relayed, after the speaker asked
        "udah tanya kakek, dia bilang boleh",  # an Indonesian caregiver relaying the grandfather
        "好哇!! 就是這個",  # a doubled yes with exclamation marks
    ],
)
def test_a_yes_relayed_from_him_or_her_or_said_with_exclamations_is_a_yes(said: str) -> None:
    assert _answer(said) == "consent_yes"


@pytest.mark.parametrize("said", ["他說不要", "她講毋免啦"])
def test_a_no_relayed_from_him_or_her_is_a_no(said: str) -> None:
    assert _answer(said) == "consent_no"


@pytest.mark.parametrize("said", ["他說好吃", "她說她要再想想", "他點頭說好累喔"])
def test_what_he_or_she_said_that_is_no_answer_stays_none(said: str) -> None:
    assert _answer(said) is None


@pytest.mark.parametrize(
    "said",
    [
        "老師問我要不要把蛋奶素刪除 嗯 算了 先留著",  # a delete weighed as a question, then dropped
        "素的那個要刪掉嗎... 算了算了 先留著好了",
    ],
)
def test_a_delete_then_dropped_and_kept_deletes_nothing(said: str) -> None:
    assert _decided(said)[1] not in ("forget", "forget_confirm")


def test_a_delete_said_then_dropped_with_nothing_kept_after_is_not_read_as_kept() -> None:
    assert _decided("把素食刪掉 算了 還是刪掉好了")[1] in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    "said",
    [
        "原本要叫你把五辛素拿掉，後來想想還是不動好了，二林有什麼吃的",
        "本來想清掉那個素食設定 算了 先不動 芳苑有素食嗎",
    ],
)
def test_a_delete_weighed_then_kept_beside_a_township_is_the_search(said: str) -> None:
    outcome, intent = _decided(said)
    assert intent == "search" and outcome != "ask"


@pytest.mark.parametrize(
    "said",
    [
        "外婆的全素紀錄請刪除，她說不想讓你們存她的東西",
        "請把阿公的蛋奶素資料刪掉 他說不要你們記他的事",
    ],
)
def test_a_delete_of_the_kept_thing_beside_a_relatives_stop_is_asked_never_ignored(said: str) -> None:
    assert _decided(said)[1] in ("forget", "forget_confirm")


def test_a_relatives_stop_alone_is_still_asked() -> None:
    assert _decided("阿公說別人的不要記") != ("act", "forget")


@pytest.mark.parametrize(
    "said",
    [
        "我先前託您記下的蛋奶素，現在想請您撤除，麻煩了",  # what was kept told, then the delete
        "本人日前請貴處登記之全素偏好，今已不需，敬請刪除",
    ],
)
def test_the_kept_thing_described_then_a_delete_in_the_next_clause_is_the_delete(said: str) -> None:
    assert _decided(said) == ("act", "forget")


@pytest.mark.parametrize("said", ["毋好再記我的素食了", "全素彼个毋好再記"])
def test_a_hakka_or_hokkien_dont_again_before_remembering_is_a_stop(said: str) -> None:
    assert reading_form(said).count("不要再") == 1
    assert _decided(said)[1] in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    "said",
    [
        "我媽說她不吃素了 我還是一樣 找社頭的餐廳",
        "我姊最近不吃蛋奶素了 我跟以前一樣 幫我找田中吃的",
    ],
)
def test_someone_elses_diet_changed_beside_the_speaker_the_same_as_before_is_the_search(said: str) -> None:
    u = language.read(said, NOW)
    assert (u.decision.outcome, u.decision.reading.intent) == ("act", "search")
    assert u.diet.code is None  # the search takes what is kept


@pytest.mark.parametrize("said", ["那芳苑再幫她查一次", "再替他找一次"])
def test_the_last_search_asked_again_for_someone_is_asked_again(said: str) -> None:
    assert language.read(said, NOW).again


def test_a_life_on_the_buses_told_before_a_question_about_the_bot_is_that_question() -> None:
    u = language.read("我年輕時在客運公司開了二十年車。請問你是哪裡開發的？", NOW)
    assert u.decision.reading.intent != "unsupported"


@pytest.mark.parametrize("said", ["員林有公車嗎？謝謝你喔", "二林有什麼好吃的，附近好停車嗎"])
def test_buses_or_parking_asked_in_the_last_question_stay_unsupported(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent == "unsupported"


def test_two_days_in_chinese_numerals_with_between_after_them_are_the_span() -> None:
    window = language.read("這個月二十日至廿二日之間 員林有活動嗎", NOW).dates.window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 20), date(2026, 12, 22))


def test_a_span_within_n_days_is_still_read_as_one() -> None:
    window = language.read("三日之內 員林有活動嗎", NOW).dates.window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 1), date(2026, 12, 3))


@pytest.mark.parametrize(("said", "day"), [("今晡日", date(2026, 12, 1)), ("明晡日", date(2026, 12, 2))])
def test_hakka_today_and_tomorrow_are_read(said: str, day: date) -> None:
    window = language.read(f"田尾{said}有冇活動", NOW).dates.window
    assert window is not None and (window.start, window.end) == (day, day)


@pytest.mark.parametrize("said", ["崙背有什麼好吃的", "下禮拜去后里 那邊有啥活動"])
def test_townships_of_the_neighbouring_counties_are_outside(said: str) -> None:
    assert language.read(said, NOW).places.kind == "outside"


def test_a_township_said_again_after_a_correction_word_gives_way_to_the_one_after() -> None:
    places = language.read("我要去 田尾 嗯 不是 田尾 是 溪州 吃 飯", NOW).places
    assert (places.kind, places.township) == ("township", "溪州鄉")


@pytest.mark.parametrize("said", ["素食刪掉算了 留著也沒用", "那個全素的清掉算了"])
def test_a_delete_with_just_do_it_or_keeping_called_useless_is_still_a_delete(said: str) -> None:
    assert _decided(said)[1] in ("forget", "forget_confirm")


def test_a_classical_is_there_asked_with_a_courtesy_after_a_remark_is_the_search() -> None:
    u = language.read("昨日把手機裡的舊簡訊都刪了，唉。另請教溪湖可有清淡的館子，勞煩您。", NOW)
    assert u.decision.reading.intent == "search"
    assert "complaint" not in {c for t in u.tokens for c in t.classes}  # (勞煩 is a courtesy)


@pytest.mark.parametrize(
    "said",
    ["你記下的全素很準，對了我想刪除一個聯絡人", "我先前請您記下的鍋邊素沒問題，另外想請您刪除我的電話號碼"],
)
def test_the_kept_thing_praised_then_something_else_deleted_deletes_nothing_unasked(said: str) -> None:
    assert _decided(said) != ("act", "forget")


@pytest.mark.parametrize(
    "said",
    ["把全素刪掉 不需要了 留著也是多餘", "把素食刪掉 不要了 留著佔空間", "蛋奶素那個刪掉吧算了沒必要留著"],
)
def test_keeping_called_useless_or_negated_after_a_delete_leaves_the_delete(said: str) -> None:
    assert _decided(said) == ("act", "forget")


def test_a_delete_dropped_then_kept_with_more_said_after_the_keeping_is_asked() -> None:
    assert _decided("五辛素的設定刪掉吧，算了，留著浪費空間") == ("ask", "forget_confirm")


@pytest.mark.parametrize("said", ["沒有！不同意", "不是!!不同意"])
def test_a_refusal_after_an_exclamation_is_still_a_no(said: str) -> None:
    assert _answer(said) == "consent_no"


def test_a_bus_asked_then_whether_the_bot_knows_stays_unsupported() -> None:
    assert language.read("員林有公車嗎？你們知道嗎", NOW).decision.reading.intent == "unsupported"


def test_n_days_before_between_alone_is_no_date() -> None:
    assert language.read("三日之間 員林有活動嗎", NOW).dates.window is None


@pytest.mark.parametrize("said", ["全素的刪除功能在哪", "刪除蛋奶素要按哪裡", "我的五辛素刪掉會怎樣"])
def test_asking_where_or_what_happens_on_deleting_is_asked_never_acted_on(said: str) -> None:
    assert _decided(said) == ("ask", "forget_confirm")
