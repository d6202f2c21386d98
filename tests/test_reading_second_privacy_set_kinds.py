"""Kinds read by design from the development half of a second blind set on deleting and keeping (its
speakers: elders living alone, pharmacists and nurses managing a parent's diet, people who distrust
apps; students helping grandparents, lay Buddhists, people changing their minds), each with sentences
written for the test (not the corpus's): what the bot stored about the speaker as the thing to delete,
trusting and liking as verbs a negation reaches, 什麼 before 全部, a regret that asks to keep again, an
answer started over, a stop and a delete said together, a record of another thing, a reason said after
a remember, and a day moved to another. And from a third such set (Hokkien-speaking farmers, children
managing a parent's phone from afar, formal retired civil servants, mothers typing one-handed): no
longer keeping as a stop, a formal 若 supposing, a Zhuyin particle, 什麼就全部, 不要的 as "unwanted",
a formal question about what is kept, a numbered list, and a cross after a pictograph."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import intents, rules
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from tests.test_policy_decide import Given


def _decision(text: str) -> tuple[str, str]:
    decision = language.read(text).decision
    return decision.outcome, decision.reading.intent


def test_what_the_bot_stored_about_the_speaker_is_the_thing_to_delete() -> None:
    assert intents.has_object(reading_form("你們記了我的通通清掉"))
    assert intents.has_object(reading_form("你存了我什麼 都刪了"))
    # and asking what it stored still asks what is kept
    assert _decision("你到底存了我哪些東西") == ("act", "show_kept")


@pytest.mark.parametrize("text", ["我不相信這種App 記我吃素的資料刪掉", "我不喜歡被記 我吃全素那筆刪掉"])
def test_a_negation_before_trusting_or_liking_negates_that_verb(text: str) -> None:
    kinds = {c.rule.reading for c in rules.read_clauses(reading_form(text)) if c.rule is not None}
    assert "keep" not in kinds
    # deleted, or asked where the classifier reads it otherwise; never kept as a 「不要刪」
    assert _decision(text) in (("act", "forget"), ("ask", "forget_confirm"))


def test_a_question_word_before_全部_asks_nothing() -> None:
    assert not intents.is_question(reading_form("你存了什麼全部刪掉"))
    assert intents.is_question(reading_form("你存了什麼"))


def test_a_regret_then_a_remember_is_the_consent_prompt() -> None:
    decision = language.read("唉我後悔了 還是把全素記回去好了").decision
    assert (decision.outcome, decision.reading.intent, decision.reading.diet) == ("ask", "remember", "vegan")
    # a regret with a delete verb stays a delete
    assert language.read("我後悔記了 全素那個刪掉").decision.reading.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    ("text", "answer"),
    [("好 等一下 不要好了", "consent_no"), ("不要 呃 好啦 你記", "consent_yes"), ("好 等等", None)],
)
def test_an_answer_started_over_is_what_follows(text: str, answer: str | None) -> None:
    assert language.read(text).consent == answer


def test_a_stop_and_a_delete_said_together_act_when_the_classifier_is_sure() -> None:
    classes = frozenset({"bare_stop", "delete_verb"})
    sure = decide(Reading("forget_confirm"), None, frozenset({"stop"}), Given("delete", 0.9), classes=classes)
    assert (sure.outcome, sure.reading.intent) == ("act", "forget")
    for more, kinds in (({"third_person"}, {"stop"}), (set(), {"stop", "keep"}), ({"temporary"}, {"stop"})):
        asked = decide(
            Reading("forget_confirm"), None, frozenset(kinds), Given("delete", 0.9), classes=classes | more
        )
        assert asked.outcome == "ask"


def test_a_record_of_another_thing_holds_no_kept_record() -> None:
    assert not intents.has_object(reading_form("帳簿的紀錄清一清"))
    assert not intents.has_object(reading_form("手機的資料刪掉"))
    assert intents.has_object(reading_form("我的紀錄刪掉"))


@pytest.mark.parametrize("text", ["我食蛋奶素 你記咧 後擺就免閣講", "我吃全素 你記著 以後就不用一直講"])
def test_a_reason_said_after_a_remember_is_no_stop(text: str) -> None:
    assert intents.asks_to_remember(reading_form(text))
    # never a stop; a classifier that hears 「不用再講」 as one makes it the three-way question
    assert language.read(text).decision.reading.intent in ("remember", "preference_question")


def test_a_day_moved_to_another_is_the_day_searched() -> None:
    said = language.read("禮拜三的活動改到禮拜五 溪湖那天有什麼", date(2026, 12, 1))
    assert said.dates.window is not None and said.dates.window.start == date(2026, 12, 4)


def test_a_delete_the_classifier_reads_as_a_refusal_is_acted_on() -> None:
    # 「我是要按不同意的 你不要記我」: the rules read the delete, the classifier a 不同意; both undo it
    refused = decide(Reading("forget"), None, frozenset({"delete"}), Given("consent_no", 0.9))
    assert (refused.outcome, refused.reading.intent) == ("act", "forget")
    assert "refusal" in refused.reasons[-1]
    other = decide(Reading("forget"), None, frozenset({"delete"}), Given("other", 0.9))
    assert (other.outcome, other.reading.intent) == ("ask", "forget_confirm")


def test_no_longer_keeping_is_a_stop_and_a_formal_if_supposes() -> None:
    kinds = {
        c.rule.reading for c in rules.read_clauses(reading_form("往後請不再保存我的蛋奶素設定")) if c.rule
    }
    assert "stop" in kinds
    assert intents.supposed(reading_form("倘若我往後改吃葷 那筆紀錄就刪掉"))
    # a stop supposed and asked whether it can be done is asked about, never acted on
    assert _decision("倘若以後不再保存我吃素這件事 可以嗎") == ("ask", "forget_confirm")


def test_a_zhuyin_particle_after_a_character_is_read_as_the_particle() -> None:
    assert reading_form("對ㄚ 記吧") == reading_form("對啊 記吧")
    assert reading_form("真的ㄇ") == reading_form("真的嗎")
    assert language.read("可以ㄚ").consent == "consent_yes"
    # Zhuyin spelling a word stays Zhuyin (the reply asks for characters)
    assert language.read("ㄊㄢˊ ㄇㄚ").zhuyin


def test_a_question_word_then_就_and_全部_asks_nothing() -> None:
    assert not intents.is_question(reading_form("你存了什麼就全部清掉"))


def test_unwanted_negates_nothing() -> None:
    text = "我在問怎麼把電腦裡不要的檔案刪除 芬園有什麼吃的"
    kinds = {c.rule.reading for c in rules.read_clauses(reading_form(text)) if c.rule is not None}
    assert "keep" not in kinds
    assert language.read(text).decision.reading.intent not in ("forget", "forget_confirm")


def test_the_three_way_question_asked_of_a_sure_what_is_kept_question_shows_it() -> None:
    asked = frozenset({"question", "memory_object"})
    shown = decide(Reading("preference_question"), None, frozenset(), Given("show_kept", 0.95), classes=asked)
    assert (shown.outcome, shown.reading.intent) == ("act", "show_kept")
    said = frozenset({"memory_object"})  # no question: the three-way question stands
    kept = decide(Reading("preference_question"), None, frozenset(), Given("show_kept", 0.95), classes=said)
    assert (kept.outcome, kept.reading.intent) == ("ask", "preference_question")


def test_a_numbered_list_reads_each_item_as_a_clause() -> None:
    assert reading_form("１.全素的設定清掉 ２.溪湖有什麼活動") == reading_form(
        "全素的設定清掉，溪湖有什麼活動"
    )
    assert reading_form("12.5號有活動嗎") == "12.5號有活動嗎"  # a number with a decimal is no list item


def test_a_cross_after_a_pictograph_says_no_to_it_not_cancel() -> None:
    assert "取消" not in reading_form("朋友不吃豬🐖❌ 田尾有什麼")
    assert _decision("朋友不吃豬🐖❌ 田尾有什麼")[1] not in ("forget", "forget_confirm")
    assert "取消" in reading_form("吃素的設定 ❌")  # a cross on its own still cancels
