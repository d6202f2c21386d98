"""The three outcomes, through the webhook (real app, fake LINE API, SQLite): act only when sure,
ask with buttons when not, pass when the sentence is about something else. A kept diet is never
deleted by a sentence that did not ask; a stop request is never answered as a remember; small talk
gets a short fitting answer; a remember request with a search does both."""

from __future__ import annotations

import time

import pytest
from conftest import FakeClock
from helpers_app import AppHarness, first_text

from local_agent.agent.offline_rules import ASK_TOWNSHIP, UNKNOWN_TEXT
from local_agent.language import intents
from local_agent.replies.render import PREFERENCE_QUESTION, SMALL_TALK_TEXTS
from local_agent.testing import webhooks as W
from local_agent.turns.commands import FORGOTTEN, NOT_DELETED, forget_question_text

U1 = "U" + "1" * 32
G1 = "C" + "1" * 32


@pytest.fixture
def app(tmp_path):
    with AppHarness(tmp_path / "local.sqlite3", clock=FakeClock(time.time())) as harness:
        yield harness


def say(app: AppHarness, text: str, group: str | None = None):
    app.turn(W.text_event(U1, text, group=group, mention=group is not None))
    return app.outcomes[-1]


def buttons(app: AppHarness) -> dict[str, str]:
    """Quick-reply label -> what a tap sends (a postback's data, or a message action's text)."""
    messages = app.line.replies()[-1].body["messages"]
    items = (messages[-1].get("quickReply") or {}).get("items") or []
    return {i["action"]["label"]: i["action"].get("data") or i["action"].get("text", "") for i in items}


def all_text(app: AppHarness) -> str:
    return "\n".join(m.get("text", "") for m in app.line.replies()[-1].body["messages"])


def grant(app: AppHarness, text: str = "記住我吃素") -> None:
    say(app, text)
    app.turn(W.postback_event(U1, buttons(app)["同意"]))
    assert app.outcomes[-1].command == "consent_granted"


def kept(app: AppHarness) -> tuple[str, str | None]:
    state = app.store.get(U1)
    return state.consent, state.dietary_type


@pytest.mark.parametrize(
    "text",
    [
        "我吃素，不要忘記喔，上次你忘了",
        "不要刪除我的偏好喔，刪掉那張照片就好",
        "除開素食，員林還有什麼好吃的",
        "我媽說你上次忘記她吃素",
        "我女兒又忘記我吃素了",
        "阿嬤說你忘了她吃素",
        "我孫子說要刪掉偏好，但我不要",
        "你都忘記我吃素",
        "刪除素食偏好的事情我再想想",
    ],
)
def test_a_sentence_that_did_not_ask_never_deletes_the_kept_diet(app, text):
    grant(app)
    out = say(app, text)
    assert out.command != "forget" and FORGOTTEN not in all_text(app)
    assert kept(app) == ("granted", "vegetarian")


def test_apart_from_the_diet_searches_without_it(app):
    grant(app)
    out = say(app, "除開素食，員林還有什麼好吃的")
    args = out.tool_calls[-1]["effective_arguments"]
    assert (args["area"], args["dietary_type"]) == ("員林市", "any") and kept(app) == (
        "granted",
        "vegetarian",
    )


@pytest.mark.parametrize("text", ["不要刪除我的偏好喔，刪掉那張照片就好", "我吃素，不要忘記喔，上次你忘了"])
def test_a_negated_delete_beside_another_clause_keeps_it_and_says_so(app, text):
    grant(app)
    say(app, text)
    assert first_text(app.line.replies()[-1]) == NOT_DELETED


@pytest.mark.parametrize(
    "text",
    [
        "素食不要繼續套用",
        "以後不要再用素食篩選了",
        "素食偏好先暫停一下",
        "停用我的偏好",
        "不要再幫我過濾素食了",
    ],
)
def test_a_stop_request_acts_or_asks_never_keeps_applying_never_searches(app, text):
    grant(app)
    out = say(app, text)
    assert "會繼續套用" not in all_text(app) and "已經記住" not in all_text(app)
    assert out.tool_calls == [] and out.command in ("forget", "forget_confirm")
    if out.command == "forget_confirm":
        assert first_text(app.line.replies()[-1]) == forget_question_text("素食")
        assert set(buttons(app)) == {"確定忘記", "不用"} and kept(app) == ("granted", "vegetarian")
        say(app, "好")  # a typed answer to the buttons works as a tap
    assert kept(app)[0] == "forgotten"


def test_the_diet_named_delete_question_answers_typed_no(app):
    grant(app, "記住我吃全素")
    assert say(app, "可以刪除我的偏好嗎？").command == "forget_confirm"
    assert first_text(app.line.replies()[-1]) == "您是要刪除記住的「全素」嗎？"
    say(app, "不用")
    assert first_text(app.line.replies()[-1]) == NOT_DELETED and kept(app) == ("granted", "vegan")


@pytest.mark.parametrize("text", ["我媽說你上次忘記她吃素", "刪除素食偏好的事情我再想想"])
def test_an_unclear_preference_sentence_asks_three_ways_and_each_button_works(app, text):
    grant(app)
    out = say(app, text)
    assert out.tool_calls == [] and kept(app) == ("granted", "vegetarian")
    if out.command == "forget_confirm":  # (the second asks about deleting: also an ask)
        assert set(buttons(app)) == {"確定忘記", "不用"}
        return
    assert first_text(app.line.replies()[-1]) == PREFERENCE_QUESTION
    choices = buttons(app)
    assert list(choices) == ["記住", "刪除", "看看記了什麼"]
    say(app, choices["看看記了什麼"])
    assert app.outcomes[-1].command == "kept" and "素食" in all_text(app)
    say(app, choices["刪除"])
    assert app.outcomes[-1].command == "forget" and kept(app)[0] == "forgotten"
    say(app, choices["記住"])  # the diet the sentence named: the consent prompt
    assert app.outcomes[-1].command == "consent_prompt" and "同意" in buttons(app)


def test_the_three_way_answers_typed_alone_still_work(app):
    grant(app)
    say(app, "看看記了什麼")
    assert app.outcomes[-1].command == "kept"
    say(app, "記住")
    assert app.outcomes[-1].command == "help" and "記住我吃素" in all_text(app)
    say(app, "刪除")  # answers the kept answer's 刪除偏好 button, still live
    assert app.outcomes[-1].command == "forget" and kept(app)[0] == "forgotten"


def test_delete_typed_alone_asks_first(app):
    grant(app)
    say(app, "刪除")
    assert app.outcomes[-1].command == "forget_confirm" and set(buttons(app)) == {"確定忘記", "不用"}
    say(app, "確定")
    assert app.outcomes[-1].command == "forget" and kept(app)[0] == "forgotten"


def test_the_three_way_question_in_a_group_points_to_the_private_chat(app):
    out = say(app, "我媽說你上次忘記她吃素", group=G1)
    assert out.command == "private_only" and buttons(app) == {}


@pytest.mark.parametrize(
    ("text", "talk"),
    [
        ("感謝你的幫忙", "thanks"),
        ("你幫了大忙", "thanks"),
        ("掰掰", "goodbye"),
        ("好，先這樣，再見", "goodbye"),
        ("你們很爛", "complaint"),
        ("你搞錯了啦", "complaint"),
        ("這個很好用", "compliment"),
        ("我最近腰痠", "health"),
        ("今天好熱", "weather"),
        ("你是機器人嗎", "bot_question"),
        ("你會講台語嗎", "bot_question"),
        ("上次去那家很好吃", "visited"),
    ],
)
def test_small_talk_gets_a_short_fitting_answer(app, text, talk):
    grant(app)
    out = say(app, text)
    answer = all_text(app)
    assert out.tool_calls == [] and answer == SMALL_TALK_TEXTS[talk]
    assert not any(w in answer for w in ("停車", "公車", "聽不懂", ASK_TOWNSHIP)) and answer != UNKNOWN_TEXT
    assert kept(app) == ("granted", "vegetarian")


def test_a_comment_with_a_question_about_a_place_still_searches(app):
    out = say(app, "上次去員林那家很好吃，員林還有什麼好吃的")
    assert out.tool_calls and out.tool_calls[-1]["effective_arguments"]["area"] == "員林市"


@pytest.mark.parametrize(
    ("text", "area", "diet"),
    [
        ("記住我吃素，幫我找員林好吃的", "員林市", "vegetarian"),
        ("我吃全素請記住，順便看鹿港有什麼吃的", "鹿港鎮", "vegan"),
    ],
)
def test_a_remember_request_with_a_search_searches_first_then_asks_consent(app, text, area, diet):
    out = say(app, text)
    args = out.tool_calls[-1]["effective_arguments"]
    assert (args["area"], args["dietary_type"]) == (area, diet)  # what the sentence itself says
    texts = [m.get("text", "") for m in app.line.replies()[-1].body["messages"] if m.get("type") == "text"]
    assert texts[-1].startswith("要我記住您的飲食偏好") and "同意" in buttons(app)
    assert kept(app) == ("none", None)  # nothing kept before consent
    say(app, "好")  # the prompt's token is kept after the search: a typed answer works
    assert app.outcomes[-1].command == "consent_granted" and kept(app) == ("granted", diet)


@pytest.mark.parametrize(
    ("answer", "agreed"), [("好啊 那順便找二林的素食", True), ("不用了，幫我找二林的素食就好", False)]
)
def test_a_typed_answer_then_a_search_answers_the_prompt_and_searches(app, answer, agreed):
    say(app, "記住我吃素")
    assert "同意" in buttons(app)
    out = say(app, answer)
    assert out.command == ("consent_granted" if agreed else "consent_refused")
    assert kept(app) == (("granted", "vegetarian") if agreed else ("refused", None))
    assert out.tool_calls and out.tool_calls[-1]["effective_arguments"]["area"] == "二林鎮"
    texts = all_text(app)
    assert ("已記住" in texts) == agreed and ("不會記住" in texts) == (not agreed)


def test_a_yes_then_a_search_with_no_prompt_or_a_delete_question_live_only_searches(app):
    out = say(app, "好啊 那順便找二林的素食")  # nothing asked: a search
    assert out.command is None and kept(app) == ("none", None) and out.tool_calls
    grant(app)
    say(app, "全部刪掉")  # the 確定忘記 question is live; a yes in the first clause is not taken for it here
    out = say(app, "好 順便找二林的素食")
    assert kept(app) == ("granted", "vegetarian")  # a yes split off a search answers no delete question
    assert out.command is None and out.tool_calls[-1]["effective_arguments"]["area"] == "二林鎮"


def test_every_stop_or_delete_request_in_the_rules_examples_is_never_ignored():
    from local_agent.language import rules

    for rule in rules.TABLE:
        if rule.reading not in ("delete", "stop"):
            continue
        for sentence in rule.matches:
            got = intents.read(sentence).intent
            assert got in ("forget", "forget_confirm", "preference_question"), (rule.name, sentence, got)
