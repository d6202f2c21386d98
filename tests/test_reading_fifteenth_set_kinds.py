"""Kinds read by design from a fifteenth blind set: three on deleting and keeping (a Hokkien speaking
rice farmer, his Vietnamese daughter-in-law, a grandson typing for his grandmother, a formal retired
teacher; an oyster farmer's wife, a day-care nurse typing for several elders, a terse engineer, an
impatient old man; a temple volunteer, a Filipino caregiver, a hesitant grandmother, a son managing
his mother's account from afar) and three on all categories, from its development half; and from a
sixteenth set's (a Hokkien-writing railway worker and his family, a careful lawyer, a Hakka
grandmother, a tour-bus driver, a temple committee member, among others) and a seventeenth's (Hokkien
written by sound, voice homophones). Each with sentences written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import intents, rules
from local_agent.language.diets import unsupported_diet
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from local_agent.listings.catalogue import find_dietary_type

NOW = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("typed", "holds"),
    [
        ("bà nội ăn chay, ngày mai tìm 鹿港 ăn trưa", "明天"),
        ("ăn tối 在員林", "晚餐"),
        ("besok ke 二林", "明天"),
        ("蛋奶素 tidak perlu lagi", "不需要了"),
        ("sige po", "好"),
    ],
)
def test_a_caregivers_words_for_days_meals_and_yes_read_as_the_chinese_ones(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


@pytest.mark.parametrize("said", ["vâng", "được", "iya", "boleh"])
def test_a_caregivers_yes_answers_the_consent_prompt(said: str) -> None:
    assert language.read(said, NOW).consent == "consent_yes"


@pytest.mark.parametrize(("said", "answer"), [("我爸說可以", "consent_yes"), ("阿公講毋免", "consent_no")])
def test_a_relatives_answer_relayed_is_that_answer(said: str, answer: str) -> None:
    assert language.read(said, NOW).consent == answer


def test_a_yes_after_saying_the_buttons_are_hard_to_tap_is_a_yes() -> None:
    assert language.read("這個按鈕我按不到啦 好 你記下來", NOW).consent == "consent_yes"


def test_a_yes_with_the_keeping_then_a_search_with_a_diet_splits_the_answer_off() -> None:
    said = language.read("好啊好啊 那你記著 然後幫我找溪湖的全素午餐", NOW)
    assert said.answer_first is not None and said.answer_first.consent == "consent_yes"


def test_a_yes_that_keeps_a_diet_named_in_its_own_clause_is_not_split_off() -> None:
    assert language.read("好 記住我吃五辛素 順便找員林", NOW).answer_first is None


@pytest.mark.parametrize("said", ["我孫子說你早晚會忘記我吃素", "你肯定會忘了我吃全素啦 哈哈 找北斗的素食"])
def test_a_prediction_that_the_bot_will_forget_is_no_delete(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent not in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    "said",
    ["剛剛把相簿的截圖刪光了 田尾有素食麵嗎", "不小心把LINE的聊天記錄清掉 芬園素食早餐推薦一下"],
)
def test_another_thing_put_before_a_delete_verb_with_a_diet_after_it_is_no_delete(said: str) -> None:
    decision = language.read(said, NOW).decision
    assert decision.reading.intent not in ("forget", "forget_confirm")
    assert decision.outcome != "ask"


def test_another_thing_deleted_then_the_diet_deleted_too_is_still_asked_or_acted_on() -> None:
    decision = language.read("把照片刪掉 素食也刪掉", NOW).decision
    assert decision.reading.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("said", ["快取清掉之後 我的素食設定還在嗎", "App 清除之後 偏好還會在吧"])
def test_whether_it_is_still_there_after_a_delete_is_never_acted_on_as_one(said: str) -> None:
    assert "keep" in rules.readings(reading_form(said))
    assert language.read(said, NOW).decision.reading.intent != "forget"


def test_whether_it_is_still_there_after_a_delete_beside_a_search_is_the_search() -> None:
    decision = language.read("快取清掉之後 吃素的設定還在嗎 順便找鹿港午餐", NOW).decision
    assert decision.outcome != "ask" and decision.reading.intent == "search"


def test_whether_the_kept_thing_is_still_there_shows_it() -> None:
    assert language.read("換新手機以後 我的素食設定還在嗎", NOW).decision.reading.intent == "show_kept"


@pytest.mark.parametrize("said", ["不要把我吃素的資料弄不見", "你可以把我全素那個銷掉嗎"])
def test_losing_and_cancelling_in_other_words(said: str) -> None:
    reading = rules.readings(reading_form(said))
    assert reading & {"keep", "delete"}


def test_cancelling_in_hokkien_deletes() -> None:
    assert "delete" in rules.readings(reading_form("我食菜彼个共我銷掉"))


@pytest.mark.parametrize("said", ["我之前有叫你記我吃什麼嗎", "我敢捌共你講我食啥物"])
def test_whether_the_speaker_ever_told_what_they_eat_shows_what_is_kept(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent == "show_kept"


@pytest.mark.parametrize(("said", "code"), [("我不吃牛奶也不吃蛋 純素", "vegan"), ("我不吃牛肉", "no_beef")])
def test_milk_is_no_beef(said: str, code: str) -> None:
    assert find_dietary_type(said) == code


def test_no_milk_is_no_unsupported_diet() -> None:
    assert unsupported_diet(reading_form("我牛奶不喝 不吃牛奶")) is None


@pytest.mark.parametrize(
    "said",
    ["那邊週末有沒有活動 吃完想去散步", "二林有沒有打年糕之類的活動", "阮欲去溪湖的市仔"],
)
def test_events_asked_beside_eating_words_are_events(said: str) -> None:
    assert intents.goal_of(reading_form(said)) == "events"


def test_a_restaurant_asked_is_still_places() -> None:
    assert intents.goal_of(reading_form("鹿港有什麼素食餐廳")) == "places"


def test_a_township_right_after_called_is_a_name() -> None:
    places = read_places(reading_form("我最喜歡的棒球選手叫二林 對了花壇有什麼好吃的"))
    assert places.township == "花壇鄉"


def test_a_day_told_in_a_remark_is_not_part_of_the_days_asked() -> None:
    said = language.read("今天早上下大雨，我們好累。請問鹿港下週末有什麼活動？", NOW)
    assert said.dates.window is not None
    assert (said.dates.window.start, said.dates.window.end) == (date(2026, 12, 12), date(2026, 12, 13))


def test_today_and_tomorrow_asked_together_stay_both() -> None:
    said = language.read("今天跟明天，員林有活動嗎", NOW)
    assert said.dates.window is not None and said.dates.window.start == NOW


def test_a_caregivers_phrase_stays_one_clause_of_the_search() -> None:
    assert "ăn trưa" in intents.search_part("不要記我吃素 幫我找北斗 ăn trưa")


@pytest.mark.parametrize(
    ("said", "days"),
    [
        ("下個月第一個週末", (date(2027, 1, 2), date(2027, 1, 3))),
        ("這個月最後一個週末", (date(2026, 12, 26), date(2026, 12, 27))),
        ("下個月第二個禮拜六", (date(2027, 1, 9), date(2027, 1, 9))),
        ("12月的第一個周末", (date(2026, 12, 5), date(2026, 12, 6))),
        ("下下個月最後一個星期天", (date(2027, 2, 28), date(2027, 2, 28))),
    ],
)
def test_the_nth_or_last_weekend_or_weekday_of_a_month(said: str, days: tuple[date, date]) -> None:
    window = language.read(f"員林{said}有活動嗎", NOW).dates.window
    assert window is not None and (window.start, window.end) == days


def test_a_fifth_saturday_in_a_month_of_four_is_no_day() -> None:
    assert language.read("12月第五個禮拜六 鹿港有活動嗎", NOW).dates.kind == "invalid"


@pytest.mark.parametrize("said", ["可以一直記著我吃蛋奶素嗎", "能不能幫我媽永遠記住她吃素"])
def test_asking_whether_it_can_keep_remembering_asks_to_remember(said: str) -> None:
    # (the table reads the wish, ``remember_asked_ahead``: a remember is the consent prompt either way,
    # acted on or asked, and stores nothing before a yes)
    decision = language.read(said, NOW).decision
    assert decision.reading.intent == "remember" and decision.reading.diet is not None


def test_asking_whether_it_still_remembers_is_what_is_kept() -> None:
    assert language.read("你還一直記著我吃素嗎", NOW).decision.reading.intent == "show_kept"


def test_a_question_mark_beside_a_township_names_the_search() -> None:
    decision = language.read("溪州 any good 午餐? my mom like 米糕", NOW).decision
    assert decision.reading.intent == "search"


def test_a_search_after_a_pause_beside_a_keep_is_searched_too() -> None:
    assert language.read("嗯 那就留著 幫我找溪湖的素食", NOW).also_searches


@pytest.mark.parametrize(
    ("typed", "holds"), [("same place any market?", "同一個地方"), ("over there 呢", "那邊")]
)
def test_english_words_for_the_place_before(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


def test_wiping_the_record_clean_deletes() -> None:
    assert "delete" in rules.readings(reading_form("把我的資料清乾淨"))


def test_a_neighbours_name_holding_a_township_is_a_name() -> None:
    assert read_places(reading_form("阮厝邊林芳苑招我去食 溪湖佗一間較好")).township == "溪湖鎮"


def test_a_courtesy_after_other_words_ends_a_negations_reach() -> None:
    assert "delete" in rules.readings(reading_form("爸爸手機看不清楚 麻煩幫他把蛋奶素的設定刪掉"))


def test_a_courtesy_right_after_the_negation_is_still_negated() -> None:
    assert "keep" in rules.readings(reading_form("不用麻煩你刪除我吃素的紀錄"))


def test_a_complaint_about_always_being_given_the_diet_is_asked_never_kept_again() -> None:
    decision = language.read("每次都找素的每次都素的 很煩耶", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("ask", "preference_question")


def test_a_diet_in_a_remark_about_others_is_small_talk_where_chat_and_nothing_add_up() -> None:
    decision = language.read("我表妹她們吃全素的讀書會又要聚餐了 好熱鬧", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("pass", "small_talk")


@pytest.mark.parametrize(
    ("typed", "holds"),
    [
        ("鱠擱幫我篩素的", "不要再"),
        ("你母通刪喔", "不要"),
        ("安捏就好", "這樣"),
        ("不要在幫我過率了", "不要再幫我過濾"),
    ],
)
def test_hokkien_written_by_sound_and_voice_homophones_read_as_the_words_they_stand_for(
    typed: str, holds: str
) -> None:
    assert holds in reading_form(typed)


def test_a_stop_in_hokkien_written_by_sound_is_a_stop() -> None:
    assert "stop" in rules.readings(reading_form("素的莫擱揀啊"))


def test_from_now_on_no_longer_for_someone_is_a_stop() -> None:
    assert "stop" in rules.readings(reading_form("以後不用幫他找素的了"))


def test_what_is_kept_asked_beside_a_stop_the_table_read_is_asked() -> None:
    decision = language.read("你之前都找什麼素的 不要再這樣找了 也不要再記", NOW).decision
    assert decision.outcome == "ask" or decision.reading.intent == "forget"


def test_a_systems_records_cleared_beside_a_search_is_the_search() -> None:
    decision = language.read("公司系統今天清除舊資料，幫我找員林的便當", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("pass", "search")
