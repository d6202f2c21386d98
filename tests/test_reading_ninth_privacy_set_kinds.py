"""Kinds read by design from a ninth blind set: three on deleting and keeping (a retired postman
writing fragments, a Christian grandmother, a Hokkien pig farmer, a granddaughter writing partly in
English; an anxious widow, a retired officer giving numbered orders, a Vietnamese caregiver, a busy
dentist; a Hakka grandfather, a strict young vegan, a tea-shop owner, a man unsure what his wife set)
and three on all categories, from its development half. Each with sentences written for the test,
not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from bench.phrasings import FIXED_NOW
from local_agent import language
from local_agent.language import lexicon, rules
from local_agent.language.diets import negated_diet
from local_agent.language.intents import Reading, match_forget
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from local_agent.language.utterance import _undo_clause
from tests.test_policy_decide import SEARCH, Given


def test_another_thing_named_beside_a_remembering_verb_is_asked_not_passed() -> None:
    """「不想讓 app 記住任何事 全部清掉」: the remembering verb speaks of what is kept."""
    other = frozenset({"other_thing"})
    passed = decide(Reading("unknown"), None, frozenset(), Given("delete", 0.99), classes=other)
    assert passed.outcome == "pass"
    asked = decide(
        Reading("unknown"), None, frozenset(), Given("delete", 0.99), classes=other | {"remember_verb"}
    )
    assert asked.reading.intent == "forget_confirm"


@pytest.mark.parametrize("said", ["pwede bang tanggalin yung vegan", "burahin mo na yung setting"])
def test_tagalog_delete_verbs_are_delete_verbs(said: str) -> None:
    classes = {cls for token in lexicon.tokens(reading_form(said)) for cls in token.classes}
    assert "delete_verb" in classes


def test_sifting_said_in_one_character_is_applying_the_diet() -> None:
    assert match_forget(reading_form("以後不用再幫我篩素的了")) in ("forget", "forget_confirm")


def test_minding_someone_else_is_no_stop_of_the_filter() -> None:
    assert match_forget(reading_form("我孫子不吃素 不用管他 照我的找")) is None
    assert match_forget(reading_form("𠊎孫仔毋食齋 毋使管佢 照𠊎个來尋")) is None  # (Hakka 佢: him)
    assert match_forget(reading_form("以後不用管我吃素了")) == "forget_confirm"


def test_a_dish_named_for_its_meat_gives_no_diet_up() -> None:
    assert negated_diet(reading_form("想去溪湖吃肉圓")) is None
    assert negated_diet(reading_form("我現在開始吃肉了")) is not None


def test_a_keep_the_table_read_beside_a_named_search_is_the_search() -> None:
    keep = frozenset({"keep"})
    found = decide(SEARCH, "places", keep, Given("delete", 0.99), named_search=True)
    assert (found.outcome, found.reading.intent) == ("pass", "search")
    said = language.read("Please don't delete my vegan setting, find me dinner in 溪湖", FIXED_NOW)
    assert said.decision.reading.intent == "search"


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("Christmas Eve 員林 any event?", date(2026, 12, 24)),
        ("lantern festival 鹿港 events", date(2027, 2, 20)),
    ],
)
def test_english_holiday_names_are_their_days(said: str, day: date) -> None:
    window = language.read(said, FIXED_NOW).dates.window
    assert window is not None and window.start <= day <= window.end


def test_the_weekend_after_next_is_two_weeks_on() -> None:
    window = language.read("溪湖下下週末有活動嗎", FIXED_NOW).dates.window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 19), date(2026, 12, 20))
    nearer = language.read("溪湖下週末有活動嗎", FIXED_NOW).dates.window
    assert nearer is not None and nearer.start == date(2026, 12, 12)


@pytest.mark.parametrize(("said", "goal"), [("二林有泰國菜嗎", "places"), ("田尾哪裡有花市", "events")])
def test_cuisines_and_a_flower_market_give_the_search_its_goal(said: str, goal: str) -> None:
    assert language.read(said, FIXED_NOW).goal == goal


def test_this_one_not_to_be_kept_beside_a_diet_for_one_search_is_asked_never_acted_on() -> None:
    decision = language.read("我今天不吃牛 找二林的午餐 這個不用記", FIXED_NOW).decision
    assert decision.outcome != "act" or decision.reading.intent != "forget"


def test_a_lasting_registration_of_a_diet_gets_the_consent_prompt() -> None:
    decision = language.read("本人吃蛋奶素 長期登記", FIXED_NOW).decision
    assert (decision.outcome, decision.reading.intent, decision.reading.diet) == (
        "ask",
        "remember",
        "lacto_ovo",
    )


@pytest.mark.parametrize(
    ("form", "where"),
    [
        ("照片跟通話紀錄都清好了,之前的資料刪掉,順便找員林的早餐", "unnamed"),  # the record may be theirs
        ("照片都清好了,素食的資料刪掉,順便找員林的早餐", "kept"),  # the diet named is the kept thing
        ("之前的資料刪掉,順便找員林的早餐", "kept"),  # no other thing: the record is the kept one
    ],
)
def test_a_record_beside_other_things_named_is_not_taken_for_the_kept_one(form: str, where: str) -> None:
    assert _undo_clause(rules.read_clauses(form)) == where
