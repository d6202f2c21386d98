"""Kinds read by design from an eleventh blind set: three on deleting and keeping (a retired rice-mill
owner, a daughter-in-law managing her mother-in-law's account, a Filipino caregiver, an anxious retired
civil servant; an old Hokkien-speaking fisherman, a busy young father, a Hakka grandmother, a pastor's
wife; a grumpy retired schoolmaster, a teenager typing chat slang, a temple-going breakfast cook, a man
writing simplified characters) and three on all categories, from its development half. Each with
sentences written for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from bench.phrasings import FIXED_NOW
from local_agent import language
from local_agent.language import lexicon, rules
from local_agent.language.dates import read_dates
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from tests.test_policy_decide import SEARCH, Given, Spread

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("ㄅ要再幫我篩素的", "不要再幫我篩素的"),
        ("ㄅ是啦", "不是啦"),
        ("口以啊", "可以啊"),
        ("幫窩把蛋奶素刪掉", "幫我把蛋奶素刪掉"),
        ("窩要找和美的早餐", "我要找和美的早餐"),
        ("那就醬", "那就這樣"),
        ("你記ㄉ那個", "你記的那個"),
    ],
)
def test_chat_slang_spellings_read_as_the_words_they_stand_for(typed: str, read: str) -> None:
    assert reading_form(typed) == read


def test_sauce_stays_sauce() -> None:
    assert reading_form("哪裡有好吃的醬油膏") == "哪裡有好吃的醬油膏"


def test_a_stop_typed_in_chat_slang_is_a_stop() -> None:
    decision = language.read("ㄅ要再用全素篩ㄌ啦 好煩", FIXED_NOW).decision
    assert decision.reading.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("said", ["口以口以", "ได้ครับ", "ได้ค่ะ 👌", "好 你就記落去"])
def test_a_typed_yes_in_slang_thai_or_hokkien_is_a_yes(said: str) -> None:
    assert language.read(said, FIXED_NOW).consent == "consent_yes"


def test_the_speaker_starting_anew_ends_a_negation_s_reach() -> None:
    """A negation of something else, then the speaker saying what they want now: the delete after it
    is not negated (asked or acted on, never a keep)."""
    said = "手冊上也沒有寫 我現在就要取消吃素的設定"
    assert "keep" not in rules.readings(reading_form(said))
    assert language.read(said, FIXED_NOW).decision.reading.intent in ("forget", "forget_confirm")
    assert rules.readings(reading_form("我決定不要刪了")) == {"keep"}


@pytest.mark.parametrize("said", ["不要刪除我吃素的設定喔", "我決定先不要取消素食"])
def test_a_keep_in_so_many_words_is_still_no_delete(said: str) -> None:
    assert language.read(said, FIXED_NOW).decision.reading.intent == "forget_declined"


def test_a_correction_after_an_interjection_counts_though_a_later_no_denies() -> None:
    """「喔不是」 takes back what was begun; the 「不是相簿」 after it denies the other thing, and the
    delete that follows is of the kept setting."""
    said = "幫我刪一下…喔不是，不是相簿的東西，是我吃全素的那個設定，麻煩刪掉"
    assert language.read(said, FIXED_NOW).decision.reading.intent == "forget"


def test_a_record_pointed_at_is_a_thing_not_a_remembering() -> None:
    (token,) = [t for t in lexicon.tokens(reading_form("就是那個設定")) if t.word == "設定"]
    assert "remember_verb" not in token.classes and "memory_object" in token.classes
    (kept,) = [t for t in lexicon.tokens(reading_form("幫我設定全素")) if t.word == "設定"]
    assert "remember_verb" in kept.classes


@pytest.mark.parametrize("said", ["可以不要再用全素幫我過濾了嗎", "能不能別再幫我篩素食了好嗎"])
def test_a_stop_asked_politely_is_a_stop(said: str) -> None:
    decision = language.read(said, FIXED_NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")


def test_a_stop_asked_about_is_still_asked() -> None:
    decision = language.read("為什麼不要再過濾素食了呢", FIXED_NOW).decision
    assert decision.outcome == "ask"


def test_hokkien_hesitation_about_the_kept_diet_is_asked_never_acted_on() -> None:
    said = "阮食菜彼个 敢欲叫你莫閣記 毋過我嘛毋知欲按怎"
    assert "不知道要怎麼辦" in reading_form(said) and "不過" in reading_form(said)
    decision = language.read(said, FIXED_NOW).decision
    assert decision.outcome == "ask"


@pytest.mark.parametrize("said", ["那個吃素的設定幫我弄掉", "食菜彼个免矣 你共伊刣掉"])
def test_a_delete_in_other_words_or_hokkien_deletes(said: str) -> None:
    assert language.read(said, FIXED_NOW).decision.reading.intent in ("forget", "forget_confirm")


def test_another_thing_deleted_before_a_search_is_no_delete_of_the_diet() -> None:
    decision = language.read("剛剛把限動刪掉了 算了 幫我找員林的素食", FIXED_NOW).decision
    assert decision.reading.intent == "search"


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("聖誕節當天有什麼活動", date(2026, 12, 25), date(2026, 12, 25)),
        ("聖誕節那天", date(2026, 12, 25), date(2026, 12, 25)),
        ("聖誕節", date(2026, 12, 24), date(2026, 12, 25)),
        ("元旦那天開始算第二天", date(2027, 1, 2), date(2027, 1, 2)),
        ("12月19 20兩天", date(2026, 12, 19), date(2026, 12, 20)),
        ("12/19、20", date(2026, 12, 19), date(2026, 12, 20)),
        ("12月5日跟6日", date(2026, 12, 5), date(2026, 12, 6)),
        ("12月26-27日", date(2026, 12, 26), date(2026, 12, 27)),
        ("按呢後禮拜三咧", date(2026, 12, 9), date(2026, 12, 9)),
        ("what about 12/20", date(2026, 12, 20), date(2026, 12, 20)),
    ],
)
def test_dates_of_the_set_by_kind(said: str, start: date, end: date) -> None:
    window = read_dates(reading_form(said), TODAY).window
    assert window is not None and (window.start, window.end) == (start, end)


def test_an_hour_after_a_list_word_is_no_day() -> None:
    window = read_dates("12月5日到6點", TODAY).window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 5), date(2026, 12, 5))


def test_both_townships_asked_for_where_one_was_a_stop_on_the_way() -> None:
    read = read_places(reading_form("週末先去鹿港 再順便去福興 兩個地方都幫我找吃的"))
    assert read.together and set(read.choices) == {"鹿港鎮", "福興鄉"}


def test_a_japanese_name_with_its_honorific_is_no_township() -> None:
    read = read_places(reading_form("下午跟田中さん在員林喝咖啡"))
    assert (read.kind, read.township) == ("township", "員林市")


def test_english_remember_and_what_is_kept_requests() -> None:
    remembered = language.read("set my diet to 蛋奶素 permanently", FIXED_NOW).decision
    assert remembered.reading.intent == "remember"
    shown = language.read("what do you remember about me?", FIXED_NOW).decision
    assert shown.reading.intent == "show_kept"


def test_a_diet_the_service_cannot_keep_said_as_what_was_before_a_change_is_past() -> None:
    changed = language.read("以前只有初一十五吃素 現在改成天天吃全素 幫我記起來", FIXED_NOW)
    assert (changed.decision.reading.intent, changed.decision.reading.unsupported) == ("remember", None)
    kept = language.read("我初一十五吃素 幫我記起來", FIXED_NOW)
    assert kept.decision.reading.unsupported == "初一十五"


def test_refusing_what_someone_else_said_is_no_drop_of_the_diet() -> None:
    said = "同事說吃素太辛苦 要我放棄 我才不要了 員林有素食便當嗎"
    assert language.read(said, FIXED_NOW).decision.reading.intent == "search"
    assert language.read("吃素那個不要了", FIXED_NOW).decision.reading.intent == "forget_confirm"


@pytest.mark.parametrize(
    ("said", "deletes"), [("全素那個是不是該去消掉呢", True), ("週末要去消費一下", False)]
)
def test_going_to_cancel_in_one_character_is_a_delete_and_spending_is_not(said: str, deletes: bool) -> None:
    classes = {c for t in lexicon.tokens(reading_form(said)) for c in t.classes}
    assert ("delete_verb" in classes) is deletes


@pytest.mark.parametrize(
    ("confidence", "outcome"), [(0.8, ("ask", "preference_question")), (0.97, ("act", "forget"))]
)
def test_what_is_kept_asked_beside_a_delete_of_that_is_acted_on_only_when_certain(
    confidence, outcome
) -> None:
    """「你存了我什麼 那個刪掉」: the 「that」 may be what is shown or something else; keep, delete or
    look is the person's to choose unless the classifier is certain of the delete."""
    forget = Reading("forget")
    decision = decide(forget, None, frozenset({"show", "delete_that"}), Given("delete", confidence))
    assert (decision.outcome, decision.reading.intent) == outcome


def test_undecided_about_what_is_kept_is_asked_unless_something_else_is_sure() -> None:
    kept = frozenset({"memory_object"})
    unsure = decide(SEARCH, None, frozenset({"hesitant"}), Given("smalltalk_chat", 0.6), classes=kept)
    assert (unsure.outcome, unsure.reading.intent) == ("ask", "preference_question")
    searched = decide(SEARCH, "places", frozenset({"hesitant"}), Given("search_places", 0.99), classes=kept)
    assert searched.reading.intent == "search"


def test_kinds_of_small_talk_add_up() -> None:
    """A remark the classifier splits between two kinds of small talk is small talk, not a search
    that asks for a township."""
    remark = Spread({"smalltalk_visited": 0.6, "smalltalk_chat": 0.38, "search_places": 0.02})
    decision = decide(SEARCH, "places", frozenset({"visited"}), remark, named_search=False)
    assert (decision.outcome, decision.reading.intent) == ("pass", "small_talk")
    split = Spread({"smalltalk_visited": 0.4, "search_places": 0.35, "smalltalk_chat": 0.25})
    assert (
        decide(SEARCH, "places", frozenset({"visited"}), split, named_search=False).reading.intent == "search"
    )


def test_what_is_kept_agreed_on_not_surely_beside_the_words_of_a_stop_is_the_three_way_question() -> None:
    shown = Reading("show_kept")
    stop_words = frozenset({"negation", "remember_verb"})
    unsure = decide(shown, None, frozenset(), Given("show_kept", 0.5), classes=stop_words)
    assert (unsure.outcome, unsure.reading.intent) == ("ask", "preference_question")
    sure = decide(shown, None, frozenset(), Given("show_kept", 0.95), classes=stop_words)
    assert (sure.outcome, sure.reading.intent) == ("act", "show_kept")
    plain = decide(shown, None, frozenset(), Given("show_kept", 0.5), classes=frozenset({"remember_verb"}))
    assert (plain.outcome, plain.reading.intent) == ("act", "show_kept")


def test_a_festival_s_own_day_said_at_its_second_mention() -> None:
    window = read_dates(reading_form("聖誕節的音樂會聽說延期了 聖誕節當天還有什麼"), TODAY).window
    assert window is not None and (window.start, window.end) == (date(2026, 12, 25), date(2026, 12, 25))


@pytest.mark.parametrize("said", ["好啦 同一", "同一同一 謝謝"])
def test_agreeing_heard_as_its_homophone_is_a_yes(said: str) -> None:
    assert language.read(said, FIXED_NOW).consent == "consent_yes"
