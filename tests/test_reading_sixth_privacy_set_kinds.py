"""Kinds read by design from the development half of a sixth blind set on deleting and keeping and
two on all categories (their speakers: a retired principal writing formal requests, a father
voice-typing while driving, a Hokkien fish vendor, a woman going back to eating meat; a grandson
managing his grandmother's account, an elderly man answering with stories, a Hakka-speaking woman,
a privacy-minded lawyer; a Thai woman mixing three languages, a cranky retiree, a temple volunteer
eating vegetarian on some days, a woman typing simplified characters), and from four of its
test-half delete requests that neither forgot nor asked. Each with sentences written for the test,
not the corpus's."""

from __future__ import annotations

import time

import pytest
from conftest import FakeClock
from helpers_app import AppHarness

from local_agent import language
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.townships import corrected_tail
from tests.test_policy_decide import Given
from tests.test_reading_policy import all_text, buttons, grant, kept, say


@pytest.fixture
def app(tmp_path):
    with AppHarness(tmp_path / "local.sqlite3", clock=FakeClock(time.time())) as harness:
        yield harness


@pytest.mark.parametrize(
    "text",
    [
        "幫我存起來我吃全素 不對不對 是把全素那筆清掉",
        "全素那個留著吧 啊不是不是 還是清掉好了",
    ],
)
def test_after_a_correction_what_follows_it_decides(app, text: str) -> None:
    grant(app, "記住我吃全素")
    say(app, text)
    assert kept(app) == ("forgotten", None)


def test_a_warning_not_to_get_it_wrong_corrects_nothing() -> None:
    assert corrected_tail("記住我女兒吃素別給我搞錯") is None
    assert corrected_tail("你不要再弄錯了我吃素") is None
    assert corrected_tail("禮拜六不對不對禮拜天") == "禮拜天"


def test_the_wrong_tap_said_before_a_stop_is_no_correction_of_it(app) -> None:
    grant(app, "記住我吃蛋奶素")
    say(app, "唉 按錯了 那個別記 清掉")
    assert kept(app) == ("forgotten", None)


@pytest.mark.parametrize("text", ["我又不是和尚 把那個素的設定給我清掉", "我早就不是小孩了 吃素那筆幫我刪了"])
def test_denying_being_someone_negates_no_delete_after_it(app, text: str) -> None:
    grant(app)
    say(app, text)
    assert kept(app) == ("forgotten", None)


def test_a_delete_read_inside_a_search_is_asked_never_acted_on(app) -> None:
    grant(app)
    say(app, "忘了明天要去領包裹 先幫我找鹿港素的晚餐")
    assert kept(app) == ("granted", "vegetarian")
    assert "確定忘記" in buttons(app) or app.outcomes[-1].tool_calls


def test_a_delete_in_its_own_clause_beside_a_search_does_both(app) -> None:
    grant(app)
    outcome = say(app, "吃素那筆不用再記了 順便查一下花壇有什麼好吃的")
    assert kept(app) == ("forgotten", None)
    assert [c["tool"] for c in outcome.tool_calls] == ["search_local_places"]


@pytest.mark.parametrize(
    "text",
    [
        "最近都在想蛋奶素還要不要繼續 也不曉得要不要讓你記著 你覺得呢",
        "阿姊講我食齋食到無力 恁樣你記个那个係愛留還係毋留 我也毋知",
    ],
)
def test_wondering_whether_to_keep_it_gets_the_three_way_question(app, text: str) -> None:
    grant(app, "記住我吃蛋奶素")
    say(app, text)
    assert kept(app) == ("granted", "lacto_ovo")
    asked = buttons(app)
    assert {"記住", "刪除", "看看記了什麼"} <= set(asked) or any(":forget:" in v for v in asked.values())


def test_a_contrast_of_two_deletes_is_asked_never_answered_not_deleted(app) -> None:
    grant(app)
    say(app, "幫我刪 毋係啦 毋係刪訊息 係刪你記个吃素")
    assert kept(app) == ("granted", "vegetarian")
    assert "確定忘記" in buttons(app)


def test_a_plain_keep_is_still_no_delete_question() -> None:
    for text in ("不用幫我刪除偏好", "別把我吃素的資料刪掉"):
        assert language.read(text).intent == "forget_declined", text


def test_hakka_not_and_so_read_as_mandarin() -> None:
    assert language.read("毋係啦").form == language.read("不是啦").form
    assert language.read("恁樣就好").form == language.read("這樣就好").form


@pytest.mark.parametrize(
    ("text", "diet"),
    [("往後找店一律幫我找全素的", "vegan"), ("from now on 蛋奶素 only please", "lacto_ovo")],
)
def test_from_now_on_with_a_diet_asks_for_consent(app, text: str, diet: str) -> None:
    say(app, text)
    assert "同意" in buttons(app)
    assert kept(app)[0] != "granted"
    assert language.read(text).diet.code == diet


def test_from_now_on_without_the_diet_is_a_stop() -> None:
    assert language.read("往後都不要照全素找了").intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("text", ["你敢知影阮阿母食啥物", "你記𠊎麼个 講分𠊎聽"])
def test_what_is_kept_asked_in_hokkien_or_hakka_shows_it(text: str) -> None:
    assert language.read(text).intent == "show_kept"


def test_asked_what_is_kept_with_ones_own_forgetting_shows_it() -> None:
    assert language.read("我是不是設定過哪一種素？自己也忘了").intent == "show_kept"


def test_a_japanese_yes_answers_the_live_prompt(app) -> None:
    say(app, "記住我吃蛋奶素")
    say(app, "はい")
    assert kept(app) == ("granted", "lacto_ovo")


@pytest.mark.parametrize("text", ["Kaohsiung 有什麼 night market 推", "台南 有沒有 jazz 表演 下禮拜"])
def test_a_place_outside_named_with_unknown_words_gets_the_county_answer(app, text: str) -> None:
    outcome = say(app, text)
    assert outcome.tool_calls == [] or all(not c.get("effective_arguments") for c in outcome.tool_calls)
    said = all_text(app)
    assert "彰化" in said and ("只" in said or "僅" in said), said  # the county answer, not 「聽不懂」


def test_from_now_on_beside_a_negation_a_sure_stop_reader_reads_is_asked(app) -> None:
    # the rules read a remember; a classifier sure of a stop makes it the three-way question
    remember = Reading("remember", diet="vegan")
    sure = decide(remember, None, frozenset({"remember"}), Given("stop", 0.9), "vegan")
    assert (sure.outcome, sure.reading.intent) == ("ask", "preference_question")
    grant(app, "記住我吃全素")
    say(app, "往後找店一律幫我篩全素 不必每次提醒")
    assert kept(app) == ("granted", "vegan")  # whatever the classifier reads, nothing is undone


def test_withdrawing_consent_in_english_deletes(app) -> None:
    grant(app)
    say(app, "I'd like to withdraw the 素食 preference, thanks")
    assert kept(app) == ("forgotten", None)


def test_an_undo_both_readers_agree_on_only_middlingly_is_asked() -> None:
    unsure = decide(Reading("forget"), None, frozenset({"delete"}), Given("delete", 0.56))
    assert (unsure.outcome, unsure.reading.intent) == ("ask", "forget_confirm")
    sure = decide(Reading("forget"), None, frozenset({"delete"}), Given("delete", 0.9))
    assert (sure.outcome, sure.reading.intent) == ("act", "forget")
