"""Real LINE conversations over the real webhook (signed bodies, SDK parser, ADK, SQLite, fake LINE
API): group etiquette, mentions, join, personal preferences, consent tokens, negation, clarifying
answers and unfollow."""

from __future__ import annotations

import copy

import pytest
from conftest import FakeClock
from helpers_app import AppHarness, first_text

from local_agent.agent.offline_rules import ASK_TOWNSHIP, township_only_text
from local_agent.replies.render import HELP_TEXT, JOIN_TEXT
from local_agent.testing import webhooks as W
from local_agent.turns.commands import (
    IN_PRIVATE_ONLY,
    NOT_DELETED,
    TAP_REFUSED,
    forget_question_text,
)

U1 = "U" + "1" * 32
U2 = "U" + "2" * 32
G1 = "C" + "1" * 32
FOOD = "花壇有什麼好吃的？"


@pytest.fixture
def clock() -> FakeClock:
    import time

    return FakeClock(time.time())


@pytest.fixture
def app(tmp_path, clock):
    with AppHarness(tmp_path / "local.sqlite3", clock=clock) as harness:
        yield harness


def last_messages(app: AppHarness) -> list[dict]:
    return app.line.replies()[-1].body["messages"]


def buttons(app: AppHarness) -> dict[str, str]:
    items = (last_messages(app)[-1].get("quickReply") or {}).get("items") or []
    return {i["action"]["label"]: i["action"]["data"] for i in items}


def grant(app: AppHarness, user: str = U1, text: str = "記住我吃素") -> str:
    app.turn(W.text_event(user, text))
    data = buttons(app)["同意"]
    app.turn(W.postback_event(user, data))
    assert app.outcomes[-1].command == "consent_granted"
    return data


def requests_count(app: AppHarness) -> int:
    return len(app.line.requests)


# -- group etiquette -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["哈哈好啊，等等見", "@阿明 晚上要不要一起去吃飯", "花壇有什麼好吃的？"])
def test_group_chatter_gets_no_reply_no_push_no_loading_and_no_turn(app: AppHarness, text: str) -> None:
    event = W.text_event(U2, text, group=G1)
    if text.startswith("@阿明"):  # a mention of another member is not a mention of the bot
        event["message"]["mention"] = {
            "mentionees": [{"index": 0, "length": 3, "type": "user", "userId": U1, "isSelf": False}]
        }
    response = app.turn(event)
    assert response.json()["accepted"] == 0
    assert app.line.requests == [] and app.outcomes == [] and app.store.journal_rows() == {}


def test_a_mentioned_group_text_is_answered_with_the_mention_removed_before_the_model(
    app: AppHarness,
) -> None:
    event = W.text_event(U2, "花壇有什麼好吃的？", group=G1, mention=True)
    assert event["message"]["text"] == "@LOCAL 花壇有什麼好吃的？"
    app.turn(event)
    outcome = app.outcomes[-1]
    assert outcome.model_requests[0]["contents"][-1]["text"] == "花壇有什麼好吃的？"
    assert outcome.tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"
    assert app.line.loadings() == []  # no loading animation outside 1:1 chats


def test_mentions_of_other_members_are_cut_out_too(app: AppHarness) -> None:
    text = "@LOCAL 跟 @阿明 說鹿港有什麼活動？"
    mention = {
        "mentionees": [
            {"index": 0, "length": 6, "type": "user", "isSelf": True},
            {"index": 9, "length": 3, "type": "user", "userId": U1},
        ]
    }
    app.turn(W.text_event(U2, text, group=G1, mention=mention))
    sent = app.outcomes[-1].model_requests[0]["contents"][-1]["text"]
    assert sent == "跟 說鹿港有什麼活動？" and "阿明" not in sent


@pytest.mark.parametrize("text", ["說明", "使用說明", "怎麼用", "help", "?", "hi", ""])
def test_help_words_after_the_mention_get_the_help_text(app: AppHarness, text: str) -> None:
    app.turn(W.text_event(U2, text, group=G1, mention=True))
    assert first_text(app.line.replies()[-1]) == HELP_TEXT


def test_mention_with_emoji_before_it_is_cut_by_utf16_units(app: AppHarness) -> None:
    text = "😀👵🏻 @LOCAL 鹿港有什麼活動？"
    index = len("😀👵🏻 ".encode("utf-16-le")) // 2  # 6 UTF-16 units, 4 code points
    mention = {"mentionees": [{"index": index, "length": 6, "type": "user", "isSelf": True}]}
    app.turn(W.text_event(U2, text, group=G1, mention=mention))
    assert app.outcomes[-1].model_requests[0]["contents"][-1]["text"] == "😀👵🏻 鹿港有什麼活動？"


@pytest.mark.parametrize(
    "mentionee",
    [
        {"index": 0, "length": 99, "type": "user", "isSelf": True},  # past the end
        {"index": -1, "length": 3, "type": "user", "isSelf": True},
        {"index": 0, "length": 0, "type": "user", "isSelf": True},
        {"index": 1, "length": 3, "type": "user", "isSelf": True},  # starts inside 😀's surrogate pair
    ],
    ids=["past-end", "negative", "empty", "split-pair"],
)
def test_a_self_mention_with_a_bad_range_is_not_trusted_group_stays_silent(
    app: AppHarness, mentionee: dict
) -> None:
    event = W.text_event(U2, "😀@LOCAL 花壇有什麼好吃的", group=G1, mention={"mentionees": [mentionee]})
    response = app.turn(event)
    assert response.status_code == 200 and response.json()["accepted"] == 0
    assert app.line.requests == [] and app.store.journal_rows() == {}


def test_a_bad_mention_range_in_a_one_to_one_chat_leaves_the_text_alone(app: AppHarness) -> None:
    event = W.text_event(U1, FOOD, mention={"mentionees": [{"index": 5, "length": 50, "type": "all"}]})
    app.turn(event)
    assert app.outcomes[-1].model_requests[0]["contents"][-1]["text"] == FOOD


def test_a_mentioned_message_without_user_id_is_answered_with_no_personal_memory(app: AppHarness) -> None:
    grant(app, U1)
    app.turn(W.text_event(None, "花壇有什麼好吃的", group=G1, mention=True))
    call = app.outcomes[-1].tool_calls[0]
    assert call["preference_origin"] == "none" and call["effective_arguments"]["dietary_type"] == "any"
    app.turn(W.text_event(None, "記住我吃素", group=G1, mention=True))
    assert first_text(app.line.replies()[-1]) == IN_PRIVATE_ONLY and buttons(app) == {}


def test_join_gets_one_short_introduction(app: AppHarness) -> None:
    app.turn(W.join_event(group=G1))
    (reply,) = app.line.replies()
    assert first_text(reply) == JOIN_TEXT and "@LOCAL" in JOIN_TEXT and "不保存聊天內容" in JOIN_TEXT
    assert app.line.pushes() == [] and app.line.loadings() == []


# -- preferences stay personal --------------------------------------------------------------------


def test_a_consented_diet_is_neither_applied_nor_named_in_a_group(app: AppHarness) -> None:
    grant(app, U1)
    app.turn(W.text_event(U1, FOOD, group=G1, mention=True))
    group = app.outcomes[-1]
    assert group.tool_calls[0]["preference_origin"] == "none"
    assert group.tool_calls[0]["effective_arguments"]["dietary_type"] == "any"
    assert "偏好" not in first_text(app.line.replies()[-1]) and "素" not in first_text(app.line.replies()[-1])
    app.turn(W.text_event(U1, FOOD))  # the owner's own 1:1 chat: applied and named
    assert app.outcomes[-1].tool_calls[0]["preference_origin"] == "consented_memory"
    assert "已套用您同意記住的偏好" in first_text(app.line.replies()[-1])


def test_a_diet_said_in_the_group_message_filters_that_turn_only(app: AppHarness) -> None:
    app.turn(W.text_event(U2, "花壇有素食嗎", group=G1, mention=True))
    call = app.outcomes[-1].tool_calls[0]
    assert (call["preference_origin"], call["effective_arguments"]["dietary_type"]) == (
        "explicit",
        "vegetarian",
    )
    assert app.store.get(U2).revision == 0


@pytest.mark.parametrize("text", ["記住我吃素", "忘記我的飲食偏好", "你會不會忘記我的飲食偏好？"])
def test_personal_commands_in_a_group_point_to_the_one_to_one_chat_and_change_nothing(
    app: AppHarness, text: str
) -> None:
    grant(app, U1)
    app.turn(W.text_event(U1, text, group=G1, mention=True))
    assert first_text(app.line.replies()[-1]) == IN_PRIVATE_ONLY and buttons(app) == {}
    assert app.store.get(U1).consent == "granted" and app.store.get(U1).revision == 1


# -- the consent token ------------------------------------------------------------------------------


def test_a_tap_by_someone_else_changes_nothing(app: AppHarness) -> None:
    app.turn(W.text_event(U1, "記住我吃素"))
    data = buttons(app)["同意"]
    app.turn(W.postback_event(U2, data))  # U2 sends U1's button data in U2's own chat
    assert first_text(app.line.replies()[-1]) == TAP_REFUSED
    app.turn(W.postback_event(U2, data, group=G1))  # ... or in a group
    assert first_text(app.line.replies()[-1]) == IN_PRIVATE_ONLY
    assert app.store.get(U2).revision == 0 and app.store.get(U1).revision == 0


def test_a_button_works_once_and_not_after_a_forget(app: AppHarness) -> None:
    data = grant(app, U1)
    app.turn(W.postback_event(U1, data))  # replayed tap: the revision moved
    assert first_text(app.line.replies()[-1]) == TAP_REFUSED and app.store.get(U1).revision == 1
    app.turn(W.text_event(U1, "忘記我的飲食偏好"))
    app.turn(W.postback_event(U1, data))
    assert first_text(app.line.replies()[-1]) == TAP_REFUSED
    pref = app.store.get(U1)
    assert (pref.consent, pref.dietary_type, pref.revision) == ("forgotten", None, 2)


def test_an_expired_button_changes_nothing(app: AppHarness, clock: FakeClock) -> None:
    app.turn(W.text_event(U1, "記住我吃素"))
    data = buttons(app)["同意"]
    clock.advance(602)
    app.turn(W.postback_event(U1, data))
    assert first_text(app.line.replies()[-1]) == TAP_REFUSED and app.store.get(U1).revision == 0


def test_tampered_truncated_and_old_style_data_change_nothing(app: AppHarness) -> None:
    app.turn(W.text_event(U1, "記住我吃素"))
    data = buttons(app)["同意"]
    prefix, mac = data.rsplit(":", 1)
    head, expires = prefix.rsplit(":", 1)
    variants = [
        data.replace(":vegetarian:", ":vegan:"),
        data.replace(":yes:", ":no:"),
        f"{head}:{int(expires) + 3600}:{mac}",
        data[:-1],
        data[:-1] + ("A" if data[-1] != "A" else "B"),
        "local:consent:yes:vegetarian",
        "local:consent:v2:yes:vegetarian",
    ]
    for bad in variants:
        app.turn(W.postback_event(U1, bad))
        assert first_text(app.line.replies()[-1]) == TAP_REFUSED, bad
    assert app.store.get(U1).revision == 0 and app.store.get(U1).consent == "none"
    assert app.store.audit_rows() == []


# -- commands that understand negation ------------------------------------------------------------


@pytest.mark.parametrize("text", ["不要忘記我的飲食偏好喔", "不要刪除我的飲食偏好", "別清除我的偏好"])
def test_negated_forget_keeps_the_preference(app: AppHarness, text: str) -> None:
    grant(app, U1)
    app.turn(W.text_event(U1, text))
    assert first_text(app.line.replies()[-1]) == NOT_DELETED
    assert app.store.get(U1).consent == "granted" and app.store.get(U1).revision == 1


def test_a_question_about_forgetting_asks_before_acting(app: AppHarness) -> None:
    grant(app, U1)
    app.turn(W.text_event(U1, "你會不會忘記我的飲食偏好？"))
    assert first_text(app.line.replies()[-1]) == forget_question_text("素食")
    choices = buttons(app)
    assert list(choices) == ["確定忘記", "不用"] and app.store.get(U1).consent == "granted"
    app.turn(W.postback_event(U1, choices["不用"]))
    assert app.store.get(U1).consent == "granted"
    app.turn(W.postback_event(U1, choices["確定忘記"]))
    assert app.store.get(U1).consent == "forgotten"


def test_a_sentence_that_only_mentions_remembering_is_no_command(app: AppHarness) -> None:
    app.turn(W.text_event(U1, "記得那家素食店在哪嗎"))
    # a search without a township: the question and the township picker, no consent button
    assert app.outcomes[-1].command is None and all(
        d.startswith("local:nav:pick:") for d in buttons(app).values()
    )
    assert app.store.get(U1).revision == 0


# -- clarifying answers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "town"), [("花壇", "花壇鄉"), ("花壇鄉的", "花壇鄉"), ("在鹿港", "鹿港鎮")]
)
def test_the_township_answer_completes_the_pending_search(app: AppHarness, answer: str, town: str) -> None:
    app.turn(W.text_event(U1, "我想吃東西"))
    assert first_text(app.line.replies()[-1]) == ASK_TOWNSHIP
    assert app.journal(U1)["turns"] == ["未指定區域：找店家"]
    app.turn(W.text_event(U1, answer))
    call = app.outcomes[-1].tool_calls[0]
    assert (call["tool"], call["effective_arguments"]["area"]) == ("search_local_places", town)
    # the answer's raw text went to the model only as the current question
    assert all(answer not in c["text"] for c in app.outcomes[-1].model_requests[0]["contents"][:-1])


def test_a_pending_event_question_completes_in_a_group_too(app: AppHarness) -> None:
    app.turn(W.text_event(U2, "有什麼活動", group=G1, mention=True))
    app.turn(W.text_event(U2, "鹿港", group=G1, mention=True))
    assert app.outcomes[-1].tool_calls[0]["tool"] == "search_local_events"


def test_a_pending_question_expires_with_the_journal(app: AppHarness, clock: FakeClock) -> None:
    app.turn(W.text_event(U1, "我想吃東西"))
    clock.advance(901)
    app.turn(W.text_event(U1, "花壇"))
    answer = first_text(app.line.replies()[-1])
    assert answer == township_only_text("花壇鄉") and app.outcomes[-1].tool_calls == []


# -- unfollow forgets ---------------------------------------------------------------------------------


def test_unfollow_forgets_the_person_and_follow_starts_clean(app: AppHarness) -> None:
    grant(app, U1)
    app.turn(W.text_event(U1, FOOD))
    app.turn(W.text_event(U1, FOOD, group=G1, mention=True))
    before = requests_count(app)
    unfollow = W.unfollow_event(U1)
    app.turn(unfollow)
    app.turn(copy.deepcopy(unfollow))  # a redelivery is dropped by dedupe
    assert requests_count(app) == before  # nothing sent
    pref = app.store.get(U1)
    assert (pref.consent, pref.dietary_type, pref.revision) == ("forgotten", None, 2)
    assert W.scope_of(U1).storage_id not in app.store.journal_rows()
    assert app.journal(U1, G1)["turns"] == []  # the group window is unreadable under the new revision
    app.turn(W.follow_event(U1))
    assert first_text(app.line.replies()[-1]) == HELP_TEXT
    app.turn(W.text_event(U1, FOOD))
    assert app.outcomes[-1].tool_calls[0]["preference_origin"] == "none"
