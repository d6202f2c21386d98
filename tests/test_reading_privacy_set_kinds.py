"""Kinds read by design from the development half of a blind set written on deleting and keeping only,
each with sentences written for the test (not the corpus's): Taiwanese forms of letting, not wanting
and asking, knowing as a verb a negation reaches, a delete someone else did, a delete put kindly with a
tag after the verb, a place named by its diet, a request tag that makes a forgetting no remark, and a
yes said as "exactly so"."""

from __future__ import annotations

import pytest

from local_agent.language import intents, rules
from local_agent.language.text import reading_form


def _kinds(text: str) -> set[str]:
    return {c.rule.reading for c in rules.read_clauses(reading_form(text)) if c.rule is not None}


@pytest.mark.parametrize(
    ("taiwanese", "read_as"),
    [
        ("我無愛予你記", "我不要讓你記"),
        ("敢愛共素食刪掉", "要不要共素食刪掉"),
        ("以後攏揣素的", "以後都找素的"),
    ],
)
def test_taiwanese_forms_are_read_as_their_mandarin_ones(taiwanese: str, read_as: str) -> None:
    assert reading_form(taiwanese) == reading_form(read_as)


def test_a_negation_before_knowing_negates_the_knowing() -> None:
    assert "keep" not in _kinds("我也不知道要怎樣 那個全素的設定刪掉")
    assert intents.read("我也不知道要怎樣 那個全素的設定刪掉").intent in ("forget", "forget_confirm")


def test_asked_whether_to_delete_in_taiwanese_is_asked_about() -> None:
    assert intents.read("阮查某囝講免記遐濟 敢愛共全素彼个刪掉").intent == "forget_confirm"


@pytest.mark.parametrize("text", ["我同事剛剛把下午的課取消了 員林找一家吃的", "我朋友把群組刪掉了 好傷心"])
def test_a_delete_someone_else_did_asks_nothing(text: str) -> None:
    assert intents.read(text).intent not in ("forget", "forget_confirm")


@pytest.mark.parametrize("text", ["你記的那個蛋奶素 拿掉好嗎", "把我吃全素的記錄清掉好不好"])
def test_a_delete_with_a_polite_tag_after_the_verb_is_a_request(text: str) -> None:
    assert intents.read(text).intent == "forget"


def test_a_bare_question_whether_it_can_be_deleted_is_still_asked() -> None:
    assert intents.read("素食的偏好可以刪除嗎").intent == "forget_confirm"


def test_a_place_named_by_its_diet_is_no_kept_thing() -> None:
    assert not intents.has_object(reading_form("那間素食館收了"))
    assert intents.read("那間素食館收起來了 取消 換一家").intent == "search"


def test_a_request_tag_makes_a_forgetting_no_remark() -> None:
    assert "forgot_before" not in _kinds("你每次都推素的 把吃素那個記錄忘掉好嗎")
    assert intents.read("你每次都推素的 把吃素那個記錄忘掉好嗎").intent == "forget"


@pytest.mark.parametrize("text", ["對 就是這樣 記", "沒錯 就是按呢"])
def test_exactly_so_is_a_yes(text: str) -> None:
    assert intents.consent_answer(intents.bare(reading_form(text))) == "consent_yes"


@pytest.mark.parametrize(
    "text",
    [
        "孫子幫我把手機裡的相片刪了",
        "預約可以取消嗎 我那天沒空",
        "我不小心把群組刪掉了 怎麼加回來",
        "幫我把鬧鐘關掉",
    ],
)
def test_deleting_another_thing_named_asks_nothing_of_the_kept_one(text: str) -> None:
    assert intents.read(text).intent not in ("forget", "forget_confirm", "forget_declined")


def test_a_not_that_negates_nothing() -> None:
    assert "keep" not in _kinds("我不小心說錯了 那個全素的偏好刪掉")


def test_a_polite_tag_then_thanks_is_still_a_request() -> None:
    assert intents.read("你把那個全素的刪掉好嗎 謝謝你").intent == "forget"


def test_the_kept_thing_then_show_me_shows_it() -> None:
    assert intents.read("我的偏好給我看一下 我忘記設什麼了").intent == "show_kept"


@pytest.mark.parametrize("text", ["remember 我吃全素 ok?", "我吃全素 幫我 save 一下"])
def test_a_remember_in_english_words_is_a_remember(text: str) -> None:
    found = intents.read(text)
    assert (found.intent, found.diet) == ("remember", "vegan")


def test_a_remember_asked_with_a_reason_is_no_stop() -> None:
    found = intents.read("我吃全素 可以幫我記起來嗎 以後就不用再說一次")
    assert (found.intent, found.diet) == ("remember", "vegan")


@pytest.mark.parametrize("text", ["全素那個喔 我看是不要了吧", "蛋奶素那個 算了吧"])
def test_a_drop_softened_with_吧_is_asked_about(text: str) -> None:
    assert intents.read(text).intent == "forget_confirm"


def test_a_negation_before_把_reaches_only_the_first_verb_after_the_object() -> None:
    found = intents.read("不要把我吃全素的事記下來了 刪掉")
    assert found.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("text", ["全素那個就當我沒說過", "你就當作不知道我吃蛋奶素"])
def test_as_if_never_said_takes_the_kept_thing_back(text: str) -> None:
    assert intents.read(text).intent in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    "text", ["我取消了素食便當的訂單 改訂一般的", "素食展取消了 好可惜", "我把素食的食譜丟掉了"]
)
def test_a_delete_told_as_done_is_never_acted_on(text: str) -> None:
    assert intents.read(text).intent != "forget"


def test_a_delete_asked_with_a_done_ending_is_still_a_request() -> None:
    assert intents.read("素食偏好幫我取消了吧").intent == "forget"
