"""Preferences in the words people use, through the webhook (real app, fake LINE API, SQLite):
delete requests in any order, remember requests, typed consent answers, what is kept, a diet said
now, the township surviving a preference change, diet labels, small talk and unreadable input."""

from __future__ import annotations

import json
import time

import pytest
from conftest import FakeClock
from helpers_app import AppHarness, first_text

from local_agent.agent.offline_rules import CAPABILITIES, UNKNOWN_TEXT
from local_agent.language import words
from local_agent.replies.render import (
    ACK_TEXT,
    BUDGET_REFUSAL,
    HELP_TEXT,
    IN_PRIVATE_ONLY,
    SMALL_TALK_TEXTS,
    THANKS_TEXT,
    UNREADABLE_TEXT,
)
from local_agent.testing import webhooks as W
from local_agent.turns.commands import (
    EXPIRED_PROMPT,
    FORGET_QUESTION,
    FORGOTTEN,
    NO_LIVE_PROMPT,
    NOT_DELETED,
    NOTHING_TO_FORGET,
    TAP_HINT,
    forget_question_text,
)

U1 = "U" + "1" * 32
U2 = "U" + "2" * 32
G1 = "C" + "1" * 32
FOOD = "花壇有什麼好吃的？"
DIET_WORDS = ("vegetarian", "vegan", "吃素", "素食", "全素")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(time.time())


@pytest.fixture
def app(tmp_path, clock):
    with AppHarness(tmp_path / "local.sqlite3", clock=clock) as harness:
        yield harness


def say(app: AppHarness, text: str, user: str = U1, group: str | None = None):
    app.turn(W.text_event(user, text, group=group, mention=group is not None))
    return app.outcomes[-1]


def buttons(app: AppHarness) -> dict[str, str]:
    messages = app.line.replies()[-1].body["messages"]
    items = (messages[-1].get("quickReply") or {}).get("items") or []
    return {i["action"]["label"]: i["action"]["data"] for i in items}


def all_text(app: AppHarness) -> str:
    return "\n".join(m.get("text", "") for m in app.line.replies()[-1].body["messages"])


def grant(app: AppHarness, user: str = U1) -> None:
    say(app, "記住我吃素", user)
    app.turn(W.postback_event(user, buttons(app)["同意"]))
    assert app.outcomes[-1].command == "consent_granted"


def applied(app: AppHarness, user: str = U1) -> str:
    """The preference origin of a fresh search in the person's 1:1 chat."""
    return say(app, FOOD, user).tool_calls[0]["preference_origin"]


def stored(app: AppHarness) -> str:
    store = app.store
    rows = (store.journal_rows(), store.preference_rows(), store.snapshots(), store.audit_rows())
    return json.dumps(rows, ensure_ascii=False, default=lambda o: getattr(o, "__dict__", str(o)))


# -- delete requests -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "好，那你把我吃素的事情忘記掉",
        "把我吃素的資料刪掉",
        "你把我的偏好忘記",
        "我吃素的事不用記了",
        "取消吃素",
        "不想讓你記得我吃素",
        "删除我的偏好",
        "可以把我吃素的資料刪掉嗎？",
    ],
)
def test_a_clear_delete_request_forgets_and_the_next_search_applies_nothing(app, text):
    grant(app)
    out = say(app, text)
    assert out.command == "forget" and first_text(app.line.replies()[-1]) == FORGOTTEN
    assert app.store.get(U1).consent == "forgotten"
    assert applied(app) == "none"
    assert "已套用您同意記住的偏好" not in all_text(app)


@pytest.mark.parametrize("text", ["全部刪掉", "可以刪除我的偏好嗎？", "忘了吧"])
def test_an_unclear_delete_request_asks_and_the_confirmation_forgets(app, text):
    grant(app)
    assert say(app, text).command == "forget_confirm"
    assert first_text(app.line.replies()[-1]) == forget_question_text("素食") and set(buttons(app)) == {
        "確定忘記",
        "不用",
    }
    assert app.store.get(U1).consent == "granted"  # nothing happens before the answer
    app.turn(W.postback_event(U1, buttons(app)["確定忘記"]))
    assert app.outcomes[-1].command == "forget" and applied(app) == "none"


def test_a_negated_delete_request_keeps_the_preference(app):
    grant(app)
    say(app, "別把我的偏好刪掉")
    assert first_text(app.line.replies()[-1]) == NOT_DELETED
    assert applied(app) == "consented_memory"


@pytest.mark.parametrize("text", ["你不會忘記我吃素吧", "我不想取消吃素"])
def test_a_question_or_a_negated_wish_to_delete_keeps_the_preference(app, text):
    grant(app)
    assert say(app, text).command == "forget_declined"
    assert first_text(app.line.replies()[-1]) == NOT_DELETED
    assert app.store.get(U1).consent == "granted" and applied(app) == "consented_memory"


@pytest.mark.parametrize(
    "text", ["以後找店不要再幫我過濾素食", "你不用再記我吃什麼了", "不想被你記住吃素", "那個偏好不要了"]
)
def test_asking_to_stop_remembering_or_filtering_forgets_or_asks_never_offers_to_remember(app, text):
    grant(app)
    out = say(app, text)
    assert out.command in ("forget", "forget_confirm") and "同意" not in buttons(app)
    if out.command == "forget_confirm":
        assert first_text(app.line.replies()[-1]) == forget_question_text("素食")
        app.turn(W.postback_event(U1, buttons(app)["確定忘記"]))
    assert app.store.get(U1).consent == "forgotten" and applied(app) == "none"


def test_dont_forget_my_diet_keeps_a_remembered_one_and_otherwise_asks_to_remember_it(app):
    say(app, "別忘了我吃素喔")
    assert set(buttons(app)) == {"同意", "不同意"} and app.store.get(U1).consent == "none"
    app.turn(W.postback_event(U1, buttons(app)["同意"]))
    say(app, "別忘了我吃素喔")
    assert first_text(app.line.replies()[-1]) == NOT_DELETED and applied(app) == "consented_memory"


# -- remember requests and typed answers ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["我吃素，請你記住", "你記一下，阿伯吃素", "幫我記起來我吃全素"])
def test_a_remember_request_in_any_order_gets_the_consent_prompt(app, text):
    assert say(app, text).command == "consent_prompt"
    assert set(buttons(app)) == {"同意", "不同意"}
    assert app.store.get(U1).consent == "none"


@pytest.mark.parametrize("typed", ["同意", "好", "可以", "ＯＫ", "好喔！"])
def test_a_typed_yes_right_after_the_prompt_grants_like_the_button(app, typed):
    say(app, "我吃素，請你記住")
    assert say(app, typed).command == "consent_granted"
    assert app.store.get(U1).dietary_type == "vegetarian" and applied(app) == "consented_memory"


def test_a_typed_no_refuses_and_a_second_typed_yes_finds_no_live_prompt(app):
    say(app, "記住我吃素")
    assert say(app, "不要").command == "consent_refused"
    assert say(app, "同意").command == "consent_hint"
    assert first_text(app.line.replies()[-1]) == NO_LIVE_PROMPT
    assert app.store.get(U1).consent == "refused"


def test_a_drop_with_nothing_waiting_and_a_diet_kept_asks_whether_to_forget(app):
    # 「之前那個不要了」 reads as a no; with no question waiting and a diet kept, it is asked about
    grant(app)
    assert say(app, "之前那個不要了").command == "forget_confirm"
    assert set(buttons(app)) == {"確定忘記", "不用"} and app.store.get(U1).dietary_type == "vegetarian"


def test_a_drop_answering_a_live_prompt_stays_a_no_and_with_nothing_kept_asks_nothing(app):
    say(app, "記住我吃素")
    assert say(app, "之前那個不要了").command == "consent_refused"
    assert say(app, "之前那個不要了").command != "forget_confirm"


def test_a_typed_yes_after_the_prompt_expired_changes_nothing(app, clock):
    say(app, "記住我吃素")
    clock.advance(601)
    assert say(app, "好").command == "consent_hint"
    assert first_text(app.line.replies()[-1]) == EXPIRED_PROMPT
    assert app.store.get(U1).consent == "none"


def test_a_typed_yes_after_another_turn_is_small_talk(app):
    say(app, "記住我吃素")
    say(app, FOOD)  # the person moved on: the prompt is no longer waiting
    out = say(app, "好")
    assert out.command is None and out.tool_calls == [] and first_text(app.line.replies()[-1]) == ACK_TEXT
    assert app.store.get(U1).consent == "none"


def test_a_typed_yes_of_someone_else_grants_nobody(app):
    say(app, "記住我吃素", U1)
    say(app, "同意", U2)
    assert app.store.get(U1).consent == "none" and app.store.get(U2).consent == "none"
    say(app, "同意", U1, group=G1)  # the owner, but in a group
    assert first_text(app.line.replies()[-1]) == IN_PRIVATE_ONLY
    assert app.store.get(U1).consent == "none"


def test_an_unclear_answer_to_a_live_prompt_gets_a_hint_and_the_buttons_again(app):
    say(app, "記住我吃素")
    assert say(app, "考慮一下").command == "consent_prompt"
    assert first_text(app.line.replies()[-1]).startswith(TAP_HINT) and set(buttons(app)) == {"同意", "不同意"}
    assert say(app, "同意").command == "consent_granted"


def test_a_diet_that_cannot_be_remembered_gets_an_honest_answer_and_nothing_is_stored(app):
    before = stored(app)
    assert say(app, "幫我記住我吃早齋").command == "unsupported_diet"
    text = first_text(app.line.replies()[-1])
    assert "早齋" in text and "全素" in text and buttons(app) == {}
    assert say(app, "記住我不吃牛肉").command == "unsupported_diet"
    assert stored(app) == before


# -- what is kept ------------------------------------------------------------------------------------------


def test_what_is_kept_names_the_diet_and_how_to_delete_it_in_the_private_chat_only(app):
    assert say(app, "你記得我什麼？").command == "kept"
    assert "沒有記住" in first_text(app.line.replies()[-1])
    grant(app)
    say(app, "你還記得我吃素嗎")
    text = first_text(app.line.replies()[-1])
    assert "素食" in text and "忘記我的飲食偏好" in text and "刪除偏好" in buttons(app)
    say(app, "你記得我什麼？", group=G1)
    assert first_text(app.line.replies()[-1]) == IN_PRIVATE_ONLY and "素食」" not in all_text(app)
    app.turn(W.postback_event(U1, (say(app, "你記得我什麼？") and buttons(app))["刪除偏好"]))
    assert app.outcomes[-1].command == "forget"


# -- a diet said now ------------------------------------------------------------------------------------------


def test_a_diet_said_now_wins_and_a_lasting_change_is_offered_as_a_forget(app):
    grant(app)
    out = say(app, "我現在沒有吃素了，二林有什麼吃的")
    call = out.tool_calls[0]
    assert (call["effective_arguments"]["dietary_type"], call["preference_origin"]) == ("any", "explicit")
    assert "這次不套用您記住的飲食偏好" in all_text(app) and FORGET_QUESTION in all_text(app)
    assert set(buttons(app)) == {"確定忘記", "不用"}
    assert app.store.get(U1).consent == "granted"  # offered, not done
    out = say(app, "今天不吃素，二林有什麼吃的")
    assert out.tool_calls[0]["effective_arguments"]["dietary_type"] == "any"
    assert all(
        data.startswith("local:nav:") for data in buttons(app).values()
    )  # next steps, no forget question
    assert applied(app) == "consented_memory"  # only that turn


def test_a_plea_to_drop_the_diet_asks_to_forget_it_by_name(app):
    grant(app)
    out = say(app, "吃素那件事就算了吧")  # no delete verb: read as a delete, and asked about
    assert first_text(app.line.replies()[-1]) == forget_question_text("素食") and "確定忘記" in buttons(app)
    assert out.model_requests == [] and out.command == "forget_confirm"
    assert app.store.get(U1).consent == "granted"  # nothing happens before the tap


def test_a_lasting_change_alone_asks_to_forget(app):
    grant(app)
    say(app, "我現在沒有吃素了")
    text = first_text(app.line.replies()[-1])  # the diet named, and whether to delete it asked
    assert "「素食」" in text and "刪除" in text and "確定忘記" in buttons(app)
    assert app.store.get(U1).consent == "granted"


# -- the township survives a preference change ---------------------------------------------------------------


@pytest.mark.parametrize("change", ["忘記我吃素", "grant"])
def test_a_preference_change_keeps_the_township_and_no_diet_word(app, change):
    if change == "grant":
        say(app, "二林有什麼好吃的")
        grant(app)
    else:
        grant(app)
        say(app, "二林有什麼好吃的")
        say(app, change)
    out = say(app, "剛才那個鄉鎮，再找一家吃的。")
    assert out.tool_calls and out.tool_calls[0]["effective_arguments"]["area"] == "二林鎮"
    journal = json.dumps(app.store.journal_rows(), ensure_ascii=False)
    assert not any(w in journal for w in DIET_WORDS)


def test_a_forget_makes_the_persons_group_window_unreadable(app):
    grant(app)
    say(app, "二林有什麼好吃的", group=G1)
    say(app, "忘記我吃素")
    assert app.journal(U1, G1)["turns"] == []


# -- diet labels ---------------------------------------------------------------------------------------------


def test_a_vegetarian_preference_labels_a_place_with_five_pungent(app):
    grant(app)
    say(app, "鹿港有什麼好吃的")
    text = all_text(app)
    assert "五辛素，含蔥蒜" in text
    flex = next(m for m in app.line.replies()[-1].body["messages"] if m["type"] == "flex")
    assert "五辛素，含蔥蒜" in json.dumps(flex, ensure_ascii=False)


# -- small talk, fallback, bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["謝謝", "好，謝謝你喔", "感恩🙏"])
def test_thanks_get_a_short_answer_and_nothing_is_stored(app, text):
    before = stored(app)
    say(app, text)
    assert first_text(app.line.replies()[-1]) == THANKS_TEXT and stored(app) == before


def test_the_parking_sentence_only_answers_parking(app):
    say(app, "我孫子下禮拜天要回來看我")  # news of the day: a short answer and no search
    assert first_text(app.line.replies()[-1]) in (SMALL_TALK_TEXTS["chat"], UNKNOWN_TEXT)
    say(app, "花壇附近哪裡可以停車")
    assert first_text(app.line.replies()[-1]) == CAPABILITIES


def test_a_taiwanese_flavoured_question_searches(app):
    out = say(app, "阮欲去和美，有啥物好食？")
    assert out.tool_calls[0]["effective_arguments"]["area"] == "和美鎮"


@pytest.mark.parametrize("text", ["😀", "ㄏㄚˇ ㄉㄧㄝ", "🙏🙏", "！？…"])
def test_unreadable_input_gets_a_clear_answer_and_nothing_is_stored(app, text):
    grant(app)
    before = stored(app)
    say(app, text)
    assert first_text(app.line.replies()[-1]) == UNREADABLE_TEXT and stored(app) == before


@pytest.mark.parametrize("text", ["", "   ", "同" * 5000, "忘記" + "😀" * 4000])
def test_empty_and_huge_messages_are_answered_and_keep_the_preference(app, text):
    grant(app)
    response = app.turn(W.text_event(U1, text))
    assert response.status_code == 200
    answer = first_text(app.line.replies()[-1])
    assert answer in (HELP_TEXT, BUDGET_REFUSAL, UNKNOWN_TEXT, FORGET_QUESTION, forget_question_text("素食"))
    assert app.store.get(U1).consent == "granted"


def test_consent_words_are_listed_once():
    assert not set(words.CONSENT_YES) & set(words.CONSENT_NO)


@pytest.mark.parametrize(
    "text,area",
    [
        ("吃素的不用記了，幫我找員林好吃的", "員林市"),
        ("幫我把素食偏好刪掉，然後看看鹿港有什麼好吃的", "鹿港鎮"),
    ],
)
def test_a_delete_with_a_search_forgets_and_then_searches_without_the_diet(app, text, area):
    grant(app)
    out = say(app, text)
    assert out.command == "forget" and app.store.get(U1).consent == "forgotten"
    assert first_text(app.line.replies()[-1]) == FORGOTTEN
    call = out.tool_calls[-1]
    assert call["effective_arguments"]["area"] == area
    assert call["effective_arguments"]["dietary_type"] == "any"  # the diet it asked to forget is not applied


def test_a_stop_with_a_search_and_nothing_kept_says_so_and_searches(app):
    out = say(app, "吃素那個好像不用再記了吧 先幫我找二林的店")  # (hedged: a question, were anything kept)
    assert out.command == "kept" and first_text(app.line.replies()[-1]) == NOTHING_TO_FORGET
    assert out.tool_calls[-1]["effective_arguments"]["area"] == "二林鎮"
    assert app.store.get(U1).consent != "granted"


def test_remember_again_with_a_search_says_it_is_kept_and_searches_with_it(app):
    grant(app)
    out = say(app, "素食繼續幫我記著喔，和美有什麼早餐")
    assert out.command == "already_kept" and "已經記住" in first_text(app.line.replies()[-1])
    assert out.tool_calls[-1]["effective_arguments"]["area"] == "和美鎮"
    assert out.tool_calls[-1]["preference_origin"] == "consented_memory"
    assert "同意" not in buttons(app)


# -- townships asked for together ----------------------------------------------------------------------


def test_townships_asked_for_together_are_each_searched_in_one_reply(app):
    out = say(app, "二水和田中的素食都幫我查一下")
    searched = [c["effective_arguments"]["area"] for c in out.tool_calls]
    assert searched == ["二水鄉", "田中鎮"]
    assert all(c["effective_arguments"].get("dietary_type") == "vegetarian" for c in out.tool_calls)
    texts = [m.get("text", "") for m in app.line.replies()[-1].body["messages"]]
    assert any("二水鄉" in t for t in texts) and any("田中鎮" in t for t in texts)  # one reply, both


def test_townships_written_in_simplified_characters_asked_for_together_are_each_searched(app):
    out = say(app, "员林跟溪湖下礼拜都有什么活动")
    searched = [c["effective_arguments"]["area"] for c in out.tool_calls]
    assert searched == ["員林市", "溪湖鎮"]


def test_townships_offered_as_alternatives_are_still_asked_between(app):
    out = say(app, "田中還是二水 哪邊有好吃的")
    assert all(not c["effective_arguments"] for c in out.tool_calls)  # no search ran
    assert "哪一個鄉鎮" in first_text(app.line.replies()[-1])
