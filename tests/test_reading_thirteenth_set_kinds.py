"""Kinds read by design from a thirteenth blind set: three on deleting and keeping (a retired hairdresser,
a son-in-law managing his father-in-law's account, a Vietnamese caregiver, a former bank auditor; an
elderly rice farmer writing Hokkien, a young office worker mixing English, a strict vegan grandmother,
a man whose wife keeps changing diets; a retired army cook, a Malaysian student, a polite widow, a man
dictating while driving) and three on all categories, from its development half. Each with sentences
written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import lexicon, rules
from local_agent.language.dates import read_dates
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("said", ["我把舊的資料夾都丟掉了", "客人的資料簿我早就清掉了", "明天的聚餐取消了"])
def test_a_thing_holding_records_or_a_plan_deleted_is_another_thing(said: str) -> None:
    assert not {"delete", "delete_that"} & rules.readings(reading_form(said))


def test_the_setting_left_as_it_is_is_a_keep() -> None:
    assert "keep" in rules.readings(reading_form("我的設定維持原狀就好"))


def test_no_need_to_keep_it_in_a_formal_register_is_asked_or_acted_on() -> None:
    decision = language.read("本人之素食登記，已無保留之必要", TODAY).decision
    assert decision.reading.intent in ("forget", "forget_confirm")


def test_english_diets_and_not_wanting_read_as_the_chinese_words() -> None:
    assert "不想要全素" in reading_form("i don't want vegan anymore")
    assert "素食" in reading_form("vegetarian food in 員林")


@pytest.mark.parametrize(
    "said",
    [
        "重新安裝會不會把我的素食設定也清掉",
        "我怕換手機以後你那邊記的吃素也刪掉",
        "孫子要幫我清手機 我怕連你記的也清掉",
    ],
)
def test_a_worry_that_it_will_be_deleted_is_a_wish_to_keep_it(said: str) -> None:
    assert rules.readings(reading_form(said)) == {"keep"}
    assert language.read(said, TODAY).decision.outcome != "act"


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("你們不會拿去賣吧? 好啦 同意", "consent_yes"),
        ("會公開給別人看嗎? 不同意", "consent_no"),
        ("可以隨時刪的話就同意", "consent_yes"),
        ("ok đồng ý", "consent_yes"),
        ("我可以同意嗎?", None),
        ("同意了會怎樣, 我再想想", None),
    ],
)
def test_an_answer_said_after_a_worry_or_a_condition_is_that_answer(said: str, answer: str | None) -> None:
    assert language.read(said, TODAY).consent == answer


def test_a_correction_naming_its_own_diet_is_the_diet_kept() -> None:
    decision = language.read("之前設成五辛素 不對啦 我吃蛋奶素 幫我記蛋奶素", TODAY).decision
    assert decision.reading.intent == "remember" and decision.reading.diet == "lacto_ovo"


def test_what_someone_eats_asked_then_whether_it_is_kept_is_what_is_kept() -> None:
    assert rules.readings(reading_form("我爸吃什麼 你還記得嗎")) == {"show"}


def test_a_remember_verb_describing_the_kept_thing_after_its_de_names_a_record() -> None:
    found = lexicon.tokens(reading_form("之前設定的素食"))
    assert all("remember_verb" not in t.classes for t in found)
    assert any("remember_verb" in t.classes for t in lexicon.tokens(reading_form("設定我吃素")))


def test_the_filter_named_as_the_clause_before_s_topic_is_the_delete_s_object() -> None:
    clauses = rules.read_clauses(reading_form("之前那個素食篩選，麻煩現在幫我取消掉"))
    assert clauses[-1].rule is not None and clauses[-1].rule.reading == "delete"


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("next month 鹿港 有什麼活動", date(2027, 1, 1), date(2027, 1, 31)),
        ("員林 concert in february", date(2027, 2, 1), date(2027, 2, 28)),
        ("只要19日（星期六）那天", date(2026, 12, 19), date(2026, 12, 19)),
    ],
)
def test_english_months_and_a_weekday_in_brackets(said: str, start: date, end: date) -> None:
    reading = read_dates(reading_form(said), TODAY)
    assert reading.window is not None and (reading.window.start, reading.window.end) == (start, end)


def test_a_township_s_name_in_quotes_names_a_shop_beside_the_township_asked_for() -> None:
    places = read_places(reading_form("溪湖那家「田尾花卉」怎麼去"))
    assert (places.kind, places.township) == ("township", "溪湖鎮")
    alone = read_places(reading_form("「鹿港」有什麼好吃的"))
    assert (alone.kind, alone.township) == ("township", "鹿港鎮")


@pytest.mark.parametrize("said", ["我想去旗山吃香蕉冰", "三義有什麼木雕展", "恆春那邊有什麼好吃的"])
def test_well_known_towns_outside_the_county_are_outside(said: str) -> None:
    assert read_places(reading_form(said)).kind == "outside"


@pytest.mark.parametrize("said", ["北斗有冇粄條", "二水有客家菜嗎", "員林哪裡有湯圓"])
def test_hakka_dishes_ask_for_places(said: str) -> None:
    assert language.read(said, TODAY).goal == "places"
