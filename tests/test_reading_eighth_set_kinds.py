"""Kinds read by design from the development half of a blind set whose speakers were coastal families,
spouses from Southeast Asia writing plain Chinese, commuters and impatient shop owners, each with
sentences written for the test (not the corpus's): a yes or no typed in Indonesian or Vietnamese, the
Hokkien 袂食 as 「does not eat」, a mistake taken back with a delete, a township taken back after an
interjection, a workplace read like a home, a correction after a search keeping its goal, and a day
said after a correction replacing the one before it."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.agent import offline_rules
from local_agent.context.projection import SafeTurn
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from tests.test_intent import call_of, contents_for
from tests.test_policy_decide import Given

TUESDAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("iya boleh", "consent_yes"),
        ("ya 可以啦", "consent_yes"),
        ("vâng được", "consent_yes"),
        ("tidak usah", "consent_no"),
        ("không 不要", "consent_no"),
    ],
)
def test_a_yes_or_no_typed_in_indonesian_or_vietnamese_answers_the_prompt(text: str, answer: str) -> None:
    assert language.read(text).consent == answer


def test_an_unknown_foreign_word_beside_a_yes_particle_is_no_yes() -> None:
    # 「nggak ya」 is an Indonesian no: a word the lexicon lacks never turns into a yes
    assert language.read("nggak ya").consent != "consent_yes"


def test_hokkien_袂食_is_read_as_does_not_eat() -> None:
    assert reading_form("阮阿爸袂食牛肉") == reading_form("我阿爸不吃牛肉")
    said = language.read("阮阿爸袂食牛肉 二林有啥物通食")
    assert said.diet.code == "no_beef" and said.places.township == "二林鎮"


def test_a_mistake_taken_back_with_a_delete_is_acted_on_when_both_readers_agree() -> None:
    decision = language.read("歹勢 我按錯了 那個取消掉").decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")
    classes = frozenset({"undo_phrase", "delete_verb"})
    that = frozenset({"delete_that"})
    sure = decide(Reading("forget_confirm"), None, that, Given("delete", 0.9), classes=classes)
    assert (sure.outcome, sure.reading.intent) == ("act", "forget")
    middling = decide(Reading("forget_confirm"), None, that, Given("delete", 0.6), classes=classes)
    assert (middling.outcome, middling.reading.intent) == ("ask", "forget_confirm")
    waiting = decide(
        Reading("forget_confirm"), None, that, Given("delete", 0.9), classes=classes | {"temporary"}
    )
    assert waiting.outcome == "ask"


@pytest.mark.parametrize("text", ["我按錯了 不是要刪掉的", "按錯了 要不要刪掉", "按錯了 先不要刪"])
def test_a_mistake_with_a_kept_wait_or_question_is_not_acted_on(text: str) -> None:
    assert language.read(text).decision.outcome != "act"


def test_a_township_taken_back_after_an_interjection_gives_way_to_the_next() -> None:
    assert read_places(reading_form("二林 啊不是 芳苑 有什麼吃的")).township == "芳苑鄉"
    # without the interjection a 不是 before the second township denies it: asked which
    assert read_places("員林，不是埔心").kind == "choice"


def test_where_someone_works_is_read_like_where_they_live() -> None:
    both = read_places(reading_form("我住田中 在社頭上班 想吃點東西"))
    assert both.kind == "choice" and set(both.choices) == {"田中鎮", "社頭鄉"}
    assert read_places(reading_form("我在二水上班 附近有什麼吃的")).township == "二水鄉"
    asked = read_places(reading_form("我住田中 工作在社頭 社頭有什麼好吃的"))
    assert asked.township == "社頭鄉"


@pytest.mark.parametrize("text", ["不對 是二林啦", "我打錯字 應該是芳苑"])
def test_a_correction_after_a_search_runs_the_same_search_in_the_corrected_township(text: str) -> None:
    assert language.read(text).follow_up
    tool, args = call_of(offline_rules.propose(contents_for(text, [SafeTurn("events", "北斗鎮")])))
    assert (tool, args["area"]) == ("search_local_events", language.read(text).places.township)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("二水禮拜五有活動嗎 啊我是說禮拜六", date(2026, 12, 5)),
        ("社頭後天的活動 不對啦 是明天", date(2026, 12, 2)),
        ("溪州12月9號 喔不是 10號的活動", date(2026, 12, 10)),
    ],
)
def test_a_day_said_after_a_correction_replaces_the_day_before_it(text: str, day: date) -> None:
    window = language.read(text, TUESDAY).dates.window
    assert window is not None and (window.start, window.end) == (day, day)


def test_a_bare_不是_before_a_day_denies_that_day() -> None:
    window = language.read("芳苑下禮拜二的活動，不是這禮拜", TUESDAY).dates.window
    assert window is not None and window.start == date(2026, 12, 8)
