"""Kinds read by design from an eighteenth blind set's development half (a peanut farmer writing
Hokkien by sound, an Indonesian caregiver, a Filipino caregiver, a Buddhist grandmother voice-typing, a
formal retired teacher, a privacy-minded son, a flower farmer, among others). Each with sentences
written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from tests.test_policy_decide import Given

NOW = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("typed", "holds"),
    [
        ("阮翁攏呷素", "吃素"),
        ("呷飯未", "吃飯"),
        ("嘜擱問啦", "不要再"),
        ("嘜吵", "不要"),
        ("先麥找", "先不要"),
        ("敢會使幫我看", "可不可以"),
        ("彼ㄟ店", "那個"),
        ("哇欲去溪湖", "我要"),
        ("賀啦", "好啦"),
        ("明阿再要落雨", "明天"),
        ("伊真正袂記", "忘記"),
    ],
)
def test_hokkien_written_by_sound_reads_as_the_mandarin_words(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


def test_a_stop_in_hokkien_written_by_sound_is_never_ignored() -> None:
    said = language.read("彼ㄟ蛋奶素ㄟ 嘜擱記啊", NOW)
    assert said.words.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("said", ["哩賀喔", "哩賀啦"])
def test_a_hokkien_greeting_written_by_sound_is_a_greeting(said: str) -> None:
    assert language.read(said, NOW).words.intent == "greeting"


def test_tomorrow_in_hokkien_written_by_sound_is_tomorrow() -> None:
    window = language.read("明阿再芳苑有啥活動", NOW).dates.window
    assert window is not None and window.start == window.end == date(2026, 12, 2)


@pytest.mark.parametrize(
    ("typed", "holds"),
    [("pwede po ba tulungan", "可不可以"), ("i-delete mo", "刪掉"), ("masarap na pagkain", "好吃")],
)
def test_a_filipino_caregivers_words_read_as_the_chinese_ones(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


def test_a_tagalog_yes_answers_the_consent_prompt() -> None:
    assert language.read("Oo po", NOW).consent == "consent_yes"


def test_an_indonesian_until_joins_two_days() -> None:
    window = language.read("鹿港 12月8號 sampai 10號 ada pasar", NOW).dates.window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 8), date(2026, 12, 10))


def test_a_word_put_right_with_a_bare_is_before_the_delete_verb_deletes() -> None:
    said = language.read("那個五辛素幫我閃掉 不是閃 是刪掉", NOW)
    assert said.words.intent == "forget" and said.decision.outcome == "act"


def test_a_correction_with_a_bare_is_elsewhere_is_no_pivot() -> None:
    assert "不是他是我" in reading_form("不是他是我")


@pytest.mark.parametrize("said", ["把蛋奶素取消 其他的不要動", "只要刪全素那個 別的不用改"])
def test_the_rest_left_as_it_is_bounds_a_delete_and_keeps_nothing(said: str) -> None:
    read = language.read(said, NOW)
    assert read.words.intent == "forget" and read.decision.outcome == "act"


def test_the_kept_thing_left_as_it_is_is_still_a_keep() -> None:
    assert language.read("素食設定不用動喔", NOW).words.intent == "forget_declined"


@pytest.mark.parametrize(("heard", "township"), [("大春", "大村鄉"), ("田宗", "田中鎮")])
def test_a_curled_initial_said_flat_is_a_near_miss(heard: str, township: str) -> None:
    found = read_places(f"{heard}有沒有早餐店")
    assert (found.kind, found.township, found.heard) == ("confirm", township, heard)


def test_an_age_is_no_near_miss() -> None:
    assert read_places("我孫子今年十二歲").kind == "none"


def test_searches_from_now_on_all_with_a_diet_ask_to_remember() -> None:
    said = language.read("我長年吃全素 之後查詢一律全素", NOW)
    assert said.words.intent != "show_kept" and said.decision.reading.intent == "remember"


@pytest.mark.parametrize("said", ["好啦 記起來 問這麼多", "好好好 囉唆"])
def test_a_yes_with_a_grumble_at_being_asked_is_a_yes(said: str) -> None:
    assert language.read(said, NOW).consent == "consent_yes"


def test_forgetting_ones_own_things_then_a_search_in_a_misheard_township_is_the_search() -> None:
    said = language.read("最近常常忘記吃藥 幫我找原林素食午餐", NOW)
    assert said.words.intent == "search" and said.places.kind == "confirm"


def test_tending_a_flower_bed_is_no_township() -> None:
    found = read_places("早上在溪湖弄花壇 附近有什麼吃的")
    assert (found.kind, found.township) == ("township", "溪湖鎮")


def test_a_shop_named_for_a_township_beside_another_township_is_the_other() -> None:
    found = read_places("員林那間田中牛肉麵還有開嗎")
    assert (found.kind, found.township) == ("township", "員林市")


def test_a_things_time_cancelled_is_another_thing() -> None:
    assert "other_thing" in {c for t in language.read("取消明天4點的", NOW).tokens for c in t.classes}


def test_a_sigh_between_pauses_ends_a_clause_so_a_cancelled_appointment_leaves_the_search() -> None:
    said = language.read("幫我取消十點的 欸 員林有什麼素的早午餐", NOW)
    assert said.decision.outcome != "act" or said.decision.reading.intent != "forget"
    assert said.places.township == "員林市"


@pytest.mark.parametrize("kind", ["delete_that", "delete", "stop"])
def test_an_undo_the_table_read_is_asked_where_the_classifier_hears_small_talk(kind: str) -> None:
    talk = Given("smalltalk_chat", 0.99)
    decided = decide(Reading("search"), "places", frozenset({kind}), talk, named_search=False)
    assert (decided.outcome, decided.reading.intent) == ("ask", "forget_confirm")


def test_small_talk_with_no_undo_read_stays_small_talk() -> None:
    talk = Given("smalltalk_chat", 0.99)
    decided = decide(Reading("search"), "places", frozenset(), talk, named_search=False)
    assert decided.outcome == "pass"


# -- from a nineteenth set's development half (a meticulous bank clerk, a church member, an English-
# typing engineer, a Filipino caregiver, a taxi driver, among others)


def test_a_delete_verb_said_last_after_a_pause_is_a_clause_of_its_own() -> None:
    assert "刪" in [c.clause for c in language.read("五辛素那個 之後都不用 刪", NOW).clauses]


def test_a_keep_read_beside_a_clause_that_only_deletes_is_asked_where_the_classifier_is_sure() -> None:
    sure = Given("delete", 0.99)
    decided = decide(Reading("forget_declined"), "places", frozenset({"delete_that"}), sure, undos=1)
    assert (decided.outcome, decided.reading.intent) == ("ask", "forget_confirm")


def test_a_word_put_right_before_a_delete_a_few_characters_on_deletes() -> None:
    said = language.read("蛋奶素幫我改一下 不對 不是改 是全部刪掉", NOW)
    assert said.words.intent == "forget"


def test_turning_it_off_in_one_character_asked_is_a_stop_asked() -> None:
    said = language.read("那個全素的設定 能關嗎", NOW)
    assert said.decision.reading.intent == "forget_confirm"


@pytest.mark.parametrize(
    ("typed", "holds"),
    [
        ("she keeps getting 素食 places", "一直出現"),
        ("pls wipe it", "清掉"),
        ("hotpot in 員林", "火鍋"),
        ("no beef pls", "不吃牛"),
        ("take bus to 彰化", "坐公車"),
        ("weekend market 溪湖", "週末市集"),
        ("花壇 and 大村", "花壇和大村"),
    ],
)
def test_english_words_of_food_buses_and_joins(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


def test_a_common_word_that_sounds_like_a_township_after_find_is_asked_about() -> None:
    found = read_places("幫我找大成那邊的早餐")
    assert (found.kind, found.township) == ("confirm", "大城鄉")


def test_a_castle_is_no_township() -> None:
    assert read_places("像大城堡的餐廳 在鹿港").township == "鹿港鎮"


def test_a_bare_delete_after_a_clause_naming_another_thing_deletes_that_thing() -> None:
    said = language.read("相簿的照片太多了 要清一清 對了 田中有什麼素食麵", NOW)
    assert said.decision.reading.intent == "search" and said.places.township == "田中鎮"


def test_events_said_of_a_kind_after_them_stay_events() -> None:
    assert language.read("元宵鹿港有什麼活動 提燈籠那種的", NOW).goal == "events"


def test_a_hokkien_show_is_an_event() -> None:
    assert language.read("二林下禮拜有做戲無", NOW).goal == "events"


# -- from a twentieth set's development half (a formal retired teacher, a woman writing Hokkien by
# sound, a Filipino caregiver, among others), and two of its test half read to keep every delete
# request answered and no deletion unasked


def test_not_going_back_to_a_place_is_no_stop() -> None:
    said = language.read("那家素食自助餐太鹹了 我們以後不要再去啦", NOW)
    assert "stop" not in {c.rule.reading for c in said.clauses if c.rule is not None}
    assert said.decision.outcome != "act" or said.decision.reading.intent != "forget"


def test_a_stop_of_searching_again_is_still_a_stop() -> None:
    said = language.read("素食的以後不要再去找了", NOW)
    assert said.words.intent in ("forget", "forget_confirm")


def test_a_diet_given_up_beside_a_tired_remark_is_a_diet_change() -> None:
    assert language.read("吃全素真的好累 我想還是不要素了", NOW).words.intent == "diet_change"


def test_the_speakers_own_diet_still_wanted_beside_someone_elses_stop_is_kept() -> None:
    said = language.read("我媽說她不吃牛 不用記 我的五辛素還要喔 找田中有什麼五辛素", NOW)
    assert said.decision.reading.intent != "forget"


@pytest.mark.parametrize("typed", ["not vegan anymore, please delete it", "pls erase that one"])
def test_an_english_plea_to_delete_is_a_delete_after_a_negation(typed: str) -> None:
    assert "請刪掉" in reading_form(typed)
