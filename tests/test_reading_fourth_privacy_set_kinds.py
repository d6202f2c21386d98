"""Kinds read by design from the development half of a fourth blind set on deleting and keeping (its
speakers: a retired teacher dictating formal sentences, a motorbike mechanic in Hokkien, a mother
typing one-handed, a grandfather unsure what the bot is; a lay Buddhist fasting on the 1st and 15th,
a fruit seller at a noisy market, a woman with hearing aids, a man wary of apps; a Malaysian Chinese
son-in-law, a retired nurse, a karaoke aunt, a social worker typing for a client). Each with sentences
written for the test, not the corpus's: a person's own diet stated alone is offered to be kept, and
said beside a search it is searched with and offered in the same reply; someone else's diet, a diet of
the past or of today only is not offered."""

from __future__ import annotations

import time

import pytest
from conftest import FakeClock
from helpers_app import AppHarness

from local_agent import language
from local_agent.testing import webhooks as W
from local_agent.turns.commands import parse_postback
from tests.test_reading_policy import G1, U1, all_text, buttons, kept, say


@pytest.fixture
def app(tmp_path):
    with AppHarness(tmp_path / "local.sqlite3", clock=FakeClock(time.time())) as harness:
        yield harness


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("我是吃鍋邊素的", "pot_side"),
        ("俺吃全素", "vegan"),
        ("我吃素好幾年了", "vegetarian"),
        ("I am vegan", "vegan"),
    ],
)
def test_an_own_diet_stated_alone_is_offered_to_be_kept(text: str, diet: str) -> None:
    said = language.read(text)
    assert (said.outcome, said.intent, said.reading.diet) == ("ask", "remember", diet)


@pytest.mark.parametrize(
    "text",
    ["他同事吃全素", "我以前吃蛋奶素", "我今天吃素", "素食", "我吃素，想問一件事", "我不吃牛", "有全素的嗎"],
)
def test_someone_elses_a_past_a_todays_or_a_diet_said_before_more_is_not_offered(text: str) -> None:
    assert language.read(text).intent != "remember"


def test_the_statement_gets_the_consent_prompt_and_keeps_nothing_until_yes(app) -> None:
    say(app, "我是吃五辛素的")
    assert app.outcomes[-1].command == "consent_prompt"
    assert parse_postback(buttons(app)["同意"]) == (True, "five_pungent")
    assert kept(app) == ("none", None)
    # in a group it names no diet and points to the one-to-one chat
    say(app, "我是吃五辛素的", group=G1)
    assert "五辛素" not in all_text(app) and "同意" not in buttons(app)


def test_an_own_diet_beside_a_search_searches_with_it_and_asks_once(app) -> None:
    outcome = say(app, "我吃五辛素 幫我找溪湖的餐廳")
    searched = [c["effective_arguments"] for c in outcome.tool_calls if c.get("effective_arguments")]
    assert searched and searched[-1]["dietary_type"] == "five_pungent" and searched[-1]["area"] == "溪湖鎮"
    assert outcome.command == "consent_prompt" and parse_postback(buttons(app)["同意"]) == (
        True,
        "five_pungent",
    )
    assert kept(app) == ("none", None)
    app.turn(W.postback_event(U1, buttons(app)["同意"]))
    assert kept(app) == ("granted", "five_pungent")
    # kept already: the search alone, no prompt
    again = say(app, "我吃五辛素 幫我找鹿港的餐廳")
    assert again.command != "consent_prompt" and "同意" not in buttons(app)


def test_after_a_refusal_or_for_someone_else_the_search_asks_nothing(app) -> None:
    say(app, "我吃五辛素 幫我找溪湖的餐廳")
    app.turn(W.postback_event(U1, buttons(app)["不同意"]))
    assert kept(app)[0] == "refused"
    say(app, "我吃五辛素 幫我找二林的餐廳")
    assert "同意" not in buttons(app)
    say(app, "我爸吃全素 幫我找二林的餐廳")
    assert "同意" not in buttons(app) and kept(app)[0] == "refused"


@pytest.mark.parametrize(
    "text", ["我怕你忘記了 我還是吃全素 幫我找溪湖的店", "深怕你會忘了我吃素 二林有什麼好吃的"]
)
def test_a_worry_that_something_is_forgotten_deletes_nothing_beside_a_search(text: str) -> None:
    said = language.read(text)
    assert said.intent == "search" and "forgot_before" in {c.rule.reading for c in said.clauses if c.rule}


@pytest.mark.parametrize(
    "text",
    ["我吃全素 我兒子說可以叫你記下來", "我是吃蛋奶素的 你要幫我記起來嗎", "阮食菜 你會當共我記起來無"],
)
def test_a_diet_told_then_a_remember_verb_asked_is_the_consent_prompt(text: str) -> None:
    said = language.read(text)  # (the consent prompt is itself a question: nothing is kept yet)
    assert said.intent == "remember" and said.reading.diet in ("vegetarian", "vegan", "lacto_ovo")


def test_what_is_kept_read_beside_a_stop_with_a_sure_delete_is_asked() -> None:
    said = language.read("不用再記我吃什麼了啦 那個全部幫我拿掉")
    assert said.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("text", ["幫我把病人的飲食日誌刪掉", "阿伯的飲食衛教單可以丟了"])
def test_diet_documents_are_other_records_never_deleted_as_the_kept_diet(text: str) -> None:
    assert language.read(text).decision.reading.intent != "forget"


@pytest.mark.parametrize("text", ["吃素的設定幫我砍掉", "把那個全素的砍了啦"])
def test_chopping_it_off_is_a_delete(text: str) -> None:
    assert language.read(text).intent in ("forget", "forget_confirm")


def test_a_refusal_meant_and_a_wrong_press_taken_back_in_hokkien_deletes() -> None:
    said = language.read("歹勢 揤毋著 我本來欲揤不同意 你共取消")
    assert said.intent in ("forget", "forget_confirm")
    assert language.read("剛剛按錯了 我要按的是不同意 幫我取消").intent in ("forget", "forget_confirm")


@pytest.mark.parametrize("text", ["同以 同以", "ok can", "嗯對 你記下來沒關係"])
def test_a_typed_yes_in_a_homophone_in_english_or_with_its_fine(text: str) -> None:
    assert language.read(text).consent == "consent_yes"


def test_a_yes_then_a_remark_to_someone_else_answers_the_live_prompt(app) -> None:
    say(app, "我吃全素 可以幫我記嗎")
    assert "同意" in buttons(app)
    say(app, "好啦好啦 老闆這個高麗菜怎麼賣")
    assert kept(app) == ("granted", "vegan")


def test_a_yes_then_a_remark_about_a_diet_is_no_answer_split_off() -> None:
    assert language.read("好 但是我媽吃蛋奶素").answer_first is None
    assert language.read("好 今天好冷").answer_first is not None


def test_a_delete_then_asked_what_is_kept_is_both(app) -> None:
    say(app, "記住我吃蛋奶素")
    app.turn(W.postback_event(U1, buttons(app)["同意"]))
    outcome = say(app, "幫我把吃蛋奶素的刪掉 然後跟我說你現在還存了哪些")
    assert outcome.command == "forget" and kept(app)[1] is None
    assert "沒有記住" in all_text(app)


@pytest.mark.parametrize(
    "text", ["煩請告知本人目前所登記之飲食偏好為何", "不是要你刪啦 我是問你有幫我存什麼"]
)
def test_what_is_kept_asked_formally_or_beside_a_keep_shows_it(text: str) -> None:
    assert language.read(text).intent == "show_kept"


def test_a_yes_with_the_keeping_said_again_and_a_remark_answers_the_live_prompt(app) -> None:
    say(app, "我是吃蛋奶素的 可以幫我記嗎")
    say(app, "好啊 記啦 我孫子回來了")
    assert kept(app) == ("granted", "lacto_ovo")


@pytest.mark.parametrize("text", ["做得 做得", "好的 麻煩你 感謝主"])
def test_a_hakka_yes_and_a_blessing_after_a_yes(text: str) -> None:
    said = language.read(text)
    assert said.consent == "consent_yes" or (said.answer_first and said.answer_first.consent == "consent_yes")


def test_an_app_deleted_beside_a_named_search_is_the_search() -> None:
    said = language.read("我把那個購物app刪了 幫我找溪湖的麵店")
    assert said.intent == "search" and said.places.township == "溪湖鎮"
