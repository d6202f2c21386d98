"""Kinds read by design from a nineteenth blind set's development half (a farmer's widow voice-typing
Hokkien, a son managing his mother's account, Indonesian and Filipino caregivers, a retired teacher, a
taxi driver, a northern veteran, a night-shift nurse, a temple committee member, among others). Each
with sentences written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language.diets import find_diet
from local_agent.language.intents import goal_of
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from local_agent.language.utterance import Context

NOW = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("said", "diet"),
    [
        ("下次你還會記得我吃蛋奶素嗎", "lacto_ovo"),
        ("能不能幫我永遠記著我吃全素", "vegan"),
        ("你以後會不會記得我媽吃五辛素", "five_pungent"),
        ("有沒有辦法讓你記住我吃鍋邊素呢", "pot_side"),
    ],
)
def test_asking_whether_the_bot_will_keep_a_diet_from_now_on_is_a_remember(said: str, diet: str) -> None:
    decision = language.read(said, NOW).decision
    assert (decision.reading.intent, decision.reading.diet) == ("remember", diet)


@pytest.mark.parametrize("said", ["你記得我吃素嗎", "你還一直記著我吃素嗎", "你記了我吃哪一種素"])
def test_asking_what_it_remembers_now_is_still_what_is_kept(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent == "show_kept"


@pytest.mark.parametrize(
    "said",
    ["鑰匙不知道放哪我都忘記了溪湖有什麼素的麵", "兒子叫我把手機照片刪一刪啦員林哪裡有素食早餐"],
)
def test_another_thing_forgotten_or_deleted_before_a_diet_search_is_that_search(said: str) -> None:
    read = language.read(said, NOW)
    assert read.decision.reading.intent == "search"
    assert read.diet.code == "vegetarian"


@pytest.mark.parametrize("said", ["刪掉員林有什麼素食", "請幫我忘記溪湖有什麼素的麵"])
def test_a_bare_delete_before_a_diet_search_is_still_asked(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent in ("forget", "forget_confirm")


def test_someone_else_giving_up_their_diet_beside_the_speakers_kept_as_before_is_the_search() -> None:
    read = language.read("我先生說他不吃全素了 我還是照舊 幫我找北斗的餐廳", NOW)
    assert read.decision.reading.intent == "search"
    assert read.diet.code is None  # (the kept diet applies)
    assert not read.diet.lasting  # (nothing to offer to forget)


@pytest.mark.parametrize("said", ["她不吃素了", "我女兒說她不要再吃蛋奶素了"])
def test_someone_else_giving_up_their_diet_alone_is_asked(said: str) -> None:
    # (the account may be theirs, typed by kin: whether to forget the kept diet is asked)
    assert language.read(said, NOW).decision.reading.intent in ("forget_confirm", "diet_change")


def test_a_moment_then_next_week_is_next_week() -> None:
    window = language.read("想請教一下下禮拜芬園有什麼活動", NOW).dates.window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 7), date(2026, 12, 13))


def test_the_week_after_next_is_still_read() -> None:
    window = language.read("下下禮拜芬園有什麼活動", NOW).dates.window
    assert window is not None and window.start == date(2026, 12, 14)


@pytest.mark.parametrize(("said", "day"), [("今兒個", 1), ("明兒個", 2), ("明兒", 2), ("後兒個", 3)])
def test_northern_day_words_are_read(said: str, day: int) -> None:
    window = language.read(f"{said}田尾有什麼活動", NOW).dates.window
    assert window is not None and window.start == window.end == date(2026, 12, day)


@pytest.mark.parametrize("answer", ["成", "成 你記吧", "成啊"])
def test_a_northern_yes_answers_a_consent_prompt(answer: str) -> None:
    assert language.read(answer, NOW, Context(asked="consent")).consent == "consent_yes"


def test_a_northern_no_is_no() -> None:
    assert language.read("不成", NOW, Context(asked="consent")).consent == "consent_no"


@pytest.mark.parametrize(
    ("said", "diet"),
    [
        ("我媽吃素 雞蛋跟奶可以", "lacto_ovo"),
        ("吃素啦 蛋 牛奶 ok", "lacto_ovo"),
        ("吃素 蛋奶沒關係", "lacto_ovo"),
        ("吃素 不吃蛋奶", "vegetarian"),
        ("吃素 蛋和奶都不行", "vegetarian"),
        ("素食 想喝奶茶", "vegetarian"),
    ],
)
def test_eggs_and_milk_allowed_beside_vegetarian_is_lacto_ovo(said: str, diet: str) -> None:
    assert find_diet(reading_form(said)) == diet


def test_a_plan_changed_to_another_township_searches_the_new_one() -> None:
    assert read_places(reading_form("本來要去二林 後來改去竹塘 竹塘有什麼吃的")).township == "竹塘鄉"


def test_forgot_said_after_a_question_is_why_it_is_asked() -> None:
    assert language.read("我之前有設定什麼嗎，忘記了", NOW).decision.reading.intent == "show_kept"


def test_a_diet_searched_for_says_nothing_of_the_speakers_own() -> None:
    assert language.read("幫我找溪湖的餐廳 要有素食的", NOW).own_diet is None
    assert language.read("我吃五辛素 幫我找鹿港的店", NOW).own_diet == "five_pungent"


def test_a_surname_after_kin_is_a_persons_name_not_a_township() -> None:
    assert read_places(reading_form("我孫女林田中說大村有好吃的")).township == "大村鄉"


def test_hokkien_is_there_food_reads_as_a_places_search() -> None:
    assert goal_of(reading_form("有食的無")) == "places"


def test_worship_held_somewhere_is_an_event() -> None:
    assert goal_of(reading_form("大後日埔鹽有拜拜無")) == "events"
    assert language.read("好 拜拜", NOW).decision.reading.intent == "small_talk"


def test_an_english_food_word_is_matched_whole() -> None:
    assert goal_of(reading_form("cleaned the photos on my phone")) is None
    assert goal_of(reading_form("any pho in 員林")) == "places"


@pytest.mark.parametrize("said", ["以後不用每次都這樣篩素的", "其實不要每一次都給我全素的"])
def test_no_longer_every_time_is_a_stop(said: str) -> None:
    assert language.read(said, NOW).words.intent in ("forget", "forget_confirm")


def test_not_asking_every_time_is_no_stop() -> None:
    assert language.read("不用每次都問我", NOW).words.intent not in ("forget", "forget_confirm")


@pytest.mark.parametrize("said", ["怕你們會把我吃素的紀錄刪除", "就怕會被清掉蛋奶素的設定"])
def test_a_delete_feared_as_what_may_happen_deletes_nothing(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent not in ("forget", "forget_confirm")


@pytest.mark.parametrize("answer", ["嗯…好 不對 先不要", "好啊 不對 再等等 下次再說"])
def test_a_yes_taken_back_is_no_yes(answer: str) -> None:
    assert language.read(answer, NOW, Context(asked="consent")).consent != "consent_yes"


def test_a_yes_said_again_after_a_restart_is_a_yes() -> None:
    assert language.read("好 不對 好", NOW, Context(asked="consent")).consent == "consent_yes"


def test_a_bare_stop_of_the_diet_named_before_it_is_acted_on() -> None:
    assert language.read("那個吃全素的 莫記啊啦", NOW).decision.reading.intent == "forget"


def test_hokkien_vegetarian_food_is_a_diet() -> None:
    assert find_diet(reading_form("阮食菜食的")) == "vegetarian"


@pytest.mark.parametrize(
    ("said", "read"), [("把前陣子記的吃素忘掉", "forget"), ("你上次把我吃素的事忘了", "other")]
)
def test_a_past_word_inside_what_ba_puts_first_is_no_forgetting_told(said: str, read: str) -> None:
    intent = language.read(said, NOW).decision.reading.intent
    assert (intent in ("forget", "forget_confirm")) == (read == "forget")


@pytest.mark.parametrize("said", ["全素是阿公的習慣 你幫他留意著", "我們家吃五辛素 之後找店請多注意"])
def test_a_diet_to_be_watched_out_for_is_a_wish_to_keep_it(said: str) -> None:
    assert language.read(said, NOW).decision.reading.intent == "remember"
