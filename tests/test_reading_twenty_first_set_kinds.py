"""Kinds read by design from the development halves of three blind sets written apart from the corpus
(batches 172-177, 178-183 and 184-189: an oyster farmer's wife speaking Hokkien, a fisherman, a nurse
minding doctors' advice, caregivers from Indonesia, Vietnam and the Philippines, a granddaughter typing
in slang, a temple caretaker in Buddhist phrases, a retired soldier, among others). Each with sentences
written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language.diets import find_diet
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from local_agent.language.utterance import Context

NOW = date(2026, 12, 1)


@pytest.mark.parametrize(
    "said", ["我鄰居說他想把他的素食設定刪掉 要怎麼弄", "阿伯打算把他的全素紀錄取消 他問你怎麼用"]
)
def test_a_third_person_wanting_to_delete_their_own_record_is_asked_never_acted_on(said: str) -> None:
    decision = language.read(said, NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("ask", "forget_confirm")


def test_a_third_persons_wish_passed_on_with_a_request_for_them_is_their_delete() -> None:
    decision = language.read("我媽想把她的素食刪掉 麻煩幫她刪", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")


@pytest.mark.parametrize("said", ["阿公說他吃全素的那筆請你忘掉", "我女兒說她那個蛋奶素叫你忘記"])
def test_the_bot_asked_to_forget_after_a_third_person_is_a_delete_not_their_forgetting(said: str) -> None:
    decision = language.read(said, NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")


def test_the_bot_forgetting_told_by_a_third_person_is_still_no_delete() -> None:
    assert language.read("我媽說你上次忘了她吃素", NOW).decision.reading.intent != "forget"


def test_a_delete_verb_said_last_after_a_pause_with_a_particle_is_a_clause_of_its_own() -> None:
    assert reading_form("蛋奶素不要 刪除喔") == "蛋奶素不要,刪除喔"
    decision = language.read("蛋奶素不要 刪除喔", NOW).decision
    assert decision.reading.intent in ("forget", "forget_confirm")  # (never 「不會刪除」)


def test_a_year_said_in_a_later_clause_is_not_the_festivals() -> None:
    later = language.read("中秋節田中有活動嗎 今年我們社區要烤肉", NOW).dates
    before = language.read("明年中秋節田中有活動嗎", NOW).dates
    assert later.window is not None and later.window.start == date(2027, 9, 15)
    assert before.window is not None and before.window.start == date(2027, 9, 15)
    assert language.read("2026年中秋節田中有活動嗎", NOW).dates.kind == "past"


def test_a_diet_named_beside_a_record_of_another_kind_is_still_offered_to_keep() -> None:
    decision = language.read("以後我爸用這支手機的帳號查餐廳 都幫他篩蛋奶素好嗎", NOW).decision
    assert (decision.reading.intent, decision.reading.diet) == ("remember", "lacto_ovo")


@pytest.mark.parametrize("said", ["呃…應該還好吧 好 就這樣吧", "嗯 沒問題吧 好啊"])
def test_a_yes_said_last_after_reassuring_oneself_answers_the_prompt(said: str) -> None:
    assert language.read(said, NOW, Context(asked="consent")).consent == "consent_yes"


@pytest.mark.parametrize("said", ["你會給別人看嗎 好", "嗯 再想想 好"])
def test_a_yes_after_a_question_or_a_hesitation_is_no_answer(said: str) -> None:
    assert language.read(said, NOW, Context(asked="consent")).consent != "consent_yes"


@pytest.mark.parametrize(("said", "diet"), [("我吃五新素", "five_pungent"), ("阿嬤吃過邊素", "pot_side")])
def test_a_diet_written_by_its_sound_is_that_diet(said: str, diet: str) -> None:
    assert find_diet(said) == diet


def test_an_english_question_whether_it_remembers_asks_what_is_kept() -> None:
    decision = language.read("do you remember my dad is vegan or not?", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "show_kept")


def test_forgetting_blamed_on_age_beside_a_search_is_the_search() -> None:
    read = language.read("人老了都忘記 先幫我找二水有素食的店", NOW)
    assert read.decision.reading.intent == "search"
    assert read.diet.code == "vegetarian"


def test_someone_elses_diet_changed_beside_the_speakers_own_as_before_keeps_the_kept_diet() -> None:
    read = language.read("我兒子說他不吃五辛素了 改吃葷 我照舊 幫我找社頭的", NOW)
    assert read.decision.reading.intent == "search"
    assert read.diet.code is None  # (the kept diet applies, not 「any」)


def test_farming_in_the_fields_is_not_the_township_tianzhong() -> None:
    place = read_places("阮阿爸佇田中種稻 我欲去二水食飯")
    assert (place.kind, place.township) == ("township", "二水鄉")


@pytest.mark.parametrize(
    ("said", "goal"),
    [("二林 minggu ini ada acara?", "events"), ("溪湖 có nhà hàng ngon không", "places")],
)
def test_a_caregivers_words_for_events_and_eateries_ask_that_search(said: str, goal: str) -> None:
    assert language.read(said, NOW).goal == goal


@pytest.mark.parametrize("said", ["賀賀 安捏丟賀啦", "善哉 應允"])
def test_a_hokkien_slang_or_buddhist_yes_answers_the_prompt(said: str) -> None:
    assert language.read(said, NOW, Context(asked="consent")).consent == "consent_yes"


def test_a_formal_lasting_wish_to_go_by_the_diet_is_offered_to_keep() -> None:
    decision = language.read("弟子茹素多年 日後查詢餐館一律以此為準 感恩", NOW).decision
    assert (decision.reading.intent, decision.reading.diet) == ("remember", "vegetarian")


def test_another_thing_told_as_already_undone_before_a_diet_search_deletes_nothing() -> None:
    decision = language.read("回診的提醒已取消 二水有素食嗎", NOW).decision
    assert decision.reading.intent != "forget"


def test_a_clause_starts_at_besides_after_a_pause() -> None:
    assert reading_form("素食那個刪掉 另外明天二林有活動嗎") == "素食那個刪掉,另外明天二林有活動嗎"


def test_dining_in_formal_words_asks_for_places() -> None:
    assert language.read("今日欲往芬園覓一處用膳", NOW).goal == "places"


@pytest.mark.parametrize(
    "said",
    [
        "my daughter stop her vegan, but I still the same. 員林 lunch please",
        "我女婿取消他的全素了 我照樣 幫我找員林的午餐",
    ],
)
def test_someone_else_stopping_their_own_diet_beside_the_speakers_as_before_is_the_search(said: str) -> None:
    read = language.read(said, NOW)
    assert read.decision.reading.intent == "search"
    assert read.diet.code is None  # (the kept diet applies)


def test_someone_else_stopping_their_diet_alone_is_still_read_as_before() -> None:
    assert language.read("我女婿取消他的全素了", NOW).decision.reading.intent in ("forget", "forget_confirm")


def test_a_forgetting_asked_of_the_bot_with_a_particle_after_a_relayed_remark_is_a_delete() -> None:
    decision = language.read("我兒子說不要再幫我記素食了 他說我要多吃肉 你就把它忘掉吧", NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")


def test_a_never_mind_beside_a_diet_searched_for_says_no_diet_given_up() -> None:
    # 算了 drops the errand before it; the diet is what the search after it looks for, so nothing
    # tells a diet given up (which, with a sure undo, would let a delete act)
    from local_agent.language import lexicon, rules
    from local_agent.language.utterance import _diet_ended

    def ended(said: str) -> bool:
        form = reading_form(said)
        return _diet_ended(form, lexicon.tokens(form), rules.read_clauses(form))

    assert not ended("我想退掉明天在鹿港訂的包廂 算了我等等自己去講 你幫我找鹿港另一間素食就好")
    assert ended("素食那個算了 我現在什麼都吃")
