"""Reply -> LINE messages: layout, LINE's limits, the wire form and its compact summary."""

from __future__ import annotations

import asyncio
import time

import pytest
from linebot.v3.messaging import FlexCarousel, FlexMessage, PostbackAction, TextMessage

from local_agent.line.client import LineGateway, new_retry_key
from local_agent.line.messages import (
    CHOICES_ONLY_TEXT,
    summarize_wire_messages,
    to_line_messages,
    to_wire,
)
from local_agent.replies.reply import Card, Choice, Reply, utf16_len
from local_agent.testing.fake_line_api import FakeLineApi

TOKEN = "test-channel-token"
USER = "U0123456789abcdef0123456789abcdef"

CARDS = (
    Card("鹿港老街", "鹿港鎮 · 古蹟", ("步行可達天后宮", "週末人多")),
    Card("八卦山大佛", "彰化市", ("開放時間 08:00–17:00",), kind="place"),
    Card("田尾公路花園", "", ("花季活動",), kind="event"),
)
CHOICES = (Choice("更多景點", "action=more"), Choice("附近美食", "action=food", display_text="看看附近美食"))


@pytest.fixture
def api():
    with FakeLineApi(access_token=TOKEN) as fake:
        yield fake


def send_reply(api: FakeLineApi, reply: Reply, token: str = "rt-1") -> None:
    async def go():
        async with LineGateway(TOKEN, api.base_url, timeout=2.0, backoff=0.01) as line:
            now = time.time()
            await line.deliver(token, USER, to_line_messages(reply), new_retry_key(), now, now)

    asyncio.run(go())


def test_each_text_becomes_a_text_message_in_order():
    messages = to_line_messages(Reply(texts=("第一句", "第二句")))
    assert all(isinstance(m, TextMessage) for m in messages)
    assert [m.text for m in messages] == ["第一句", "第二句"]
    assert all(m.quick_reply is None for m in messages)


def test_empty_reply_gives_no_messages():
    assert to_line_messages(Reply()) == []
    assert to_wire(Reply()) == []


def test_choices_become_postback_quick_reply_on_the_last_text():
    messages = to_line_messages(Reply(texts=("a", "b"), choices=CHOICES))
    assert messages[0].quick_reply is None
    items = messages[-1].quick_reply.items
    actions = [item.action for item in items]
    assert all(isinstance(a, PostbackAction) for a in actions)
    assert [(a.label, a.data, a.display_text) for a in actions] == [
        ("更多景點", "action=more", "更多景點"),
        ("附近美食", "action=food", "看看附近美食"),
    ]


def test_with_cards_the_carousel_comes_last_and_carries_the_quick_reply():
    # LINE shows only the last message object's quick reply
    messages = to_line_messages(Reply(texts=("找到三個地方：",), cards=CARDS, choices=CHOICES))
    assert [type(m) for m in messages] == [TextMessage, FlexMessage]
    assert messages[0].quick_reply is None
    assert [i.action.label for i in messages[-1].quick_reply.items] == ["更多景點", "附近美食"]


def test_choices_only_reply_gets_a_text_to_carry_the_quick_reply():
    [message] = to_line_messages(Reply(choices=CHOICES))
    assert message.text == CHOICES_ONLY_TEXT
    assert len(message.quick_reply.items) == 2


def test_quick_reply_is_capped_at_13_items_with_labels_of_at_most_20_characters():
    choices = tuple(Choice(f"選項{i}" + "很長的標籤文字" * 4, f"c={i}") for i in range(20))
    [message] = to_line_messages(Reply(texts=("選一個",), choices=choices))
    labels = [item.action.label for item in message.quick_reply.items]
    assert len(labels) == 13
    assert all(len(label) <= 20 for label in labels)
    assert labels[0].startswith("選項0")


def test_postback_data_longer_than_line_allows_is_refused_not_truncated():
    with pytest.raises(ValueError):
        to_line_messages(Reply(texts=("x",), choices=(Choice("ok", "d" * 301),)))


def test_carousel_is_capped_at_12_bubbles_with_bold_title_and_wrapped_lines():
    cards = tuple(Card(f"地點{i}", "副標", ("第一行", "第二行")) for i in range(20))
    [flex] = to_line_messages(Reply(cards=cards))
    assert isinstance(flex, FlexMessage) and isinstance(flex.contents, FlexCarousel)
    bubbles = flex.contents.contents
    assert len(bubbles) == 12
    title, subtitle, *lines = bubbles[0].body.contents
    assert (title.text, title.weight, title.wrap) == ("地點0", "bold", True)
    assert subtitle.text == "副標" and subtitle.wrap is True
    assert [line.text for line in lines] == ["第一行", "第二行"]
    assert all(line.wrap is True for line in lines)


def test_empty_subtitle_and_lines_are_left_out_of_the_bubble():
    [flex] = to_line_messages(Reply(cards=(Card("只有標題"),)))
    assert [c.text for c in flex.contents.contents[0].body.contents] == ["只有標題"]


def test_alt_text_defaults_to_the_titles_and_fits_400_characters():
    [flex] = to_line_messages(Reply(cards=CARDS))
    assert flex.alt_text == "鹿港老街、八卦山大佛、田尾公路花園"
    long_cards = tuple(Card("很長的名字" * 20) for _ in range(12))
    [flex] = to_line_messages(Reply(cards=long_cards))
    assert 0 < len(flex.alt_text) <= 400


def test_explicit_alt_text_is_used_and_clipped():
    [flex] = to_line_messages(Reply(cards=CARDS, alt_text="彰化景點推薦"))
    assert flex.alt_text == "彰化景點推薦"
    [flex] = to_line_messages(Reply(cards=CARDS, alt_text="長" * 500))
    assert len(flex.alt_text) == 400


def test_at_most_five_messages_with_extra_texts_merged_into_the_last_text_slot():
    texts = tuple(f"段落{i}" for i in range(8))
    messages = to_line_messages(Reply(texts=texts, cards=CARDS, choices=CHOICES))
    assert len(messages) == 5
    assert [type(m) for m in messages] == [TextMessage] * 4 + [FlexMessage]
    assert [m.text for m in messages[:3]] == ["段落0", "段落1", "段落2"]
    assert messages[3].text == "\n\n".join(f"段落{i}" for i in range(3, 8))
    assert messages[-1].quick_reply is not None
    assert len(to_line_messages(Reply(texts=texts))) == 5


def test_merged_texts_stay_within_5000_utf16_units():
    texts = tuple("😀" * 2000 for _ in range(7))  # surrogate pairs: 4000 units each
    messages = to_line_messages(Reply(texts=texts))
    assert len(messages) == 5
    assert all(utf16_len(m.text) <= 5000 for m in messages)


def test_to_wire_is_exactly_what_the_sdk_sends(api):
    reply = Reply(texts=("找到三個地方：",), cards=CARDS, choices=CHOICES)
    send_reply(api, reply)
    [recorded] = api.replies()
    assert recorded.body["messages"] == to_wire(reply)
    assert to_wire(reply)[1]["contents"]["contents"][0]["body"]["contents"][0]["weight"] == "bold"


def test_limits_are_respected_end_to_end_by_the_fake_api(api):
    reply = Reply(
        texts=tuple("長" * 6000 for _ in range(7)),
        cards=tuple(Card(f"地點{i}", "副標", ("說明",)) for i in range(20)),
        choices=tuple(Choice(f"選項{i}" * 10, f"c={i}") for i in range(20)),
    )
    send_reply(api, reply)
    [recorded] = api.replies()  # accepted: 200
    messages = recorded.body["messages"]
    assert len(messages) == 5
    assert all(utf16_len(m["text"]) <= 5000 for m in messages if m["type"] == "text")
    assert len(messages[-1]["contents"]["contents"]) == 12
    assert len(messages[-1]["quickReply"]["items"]) == 13


def test_summarize_wire_messages_round_trip(api):
    reply = Reply(texts=("找到三個地方：", "要看更多嗎？"), cards=CARDS, choices=CHOICES)
    send_reply(api, reply)
    [recorded] = api.replies()
    assert summarize_wire_messages(recorded.body["messages"]) == [
        {"type": "text", "text": "找到三個地方："},
        {"type": "text", "text": "要看更多嗎？"},
        {
            "type": "flex",
            "alt_text": "鹿港老街、八卦山大佛、田尾公路花園",
            "titles": ["鹿港老街", "八卦山大佛", "田尾公路花園"],
            "quick_replies": ["更多景點", "附近美食"],
        },
    ]
    assert summarize_wire_messages(to_wire(Reply(texts=("好",), choices=CHOICES))) == [
        {"type": "text", "text": "好", "quick_replies": ["更多景點", "附近美食"]}
    ]


def test_summarize_handles_a_single_bubble_and_other_message_types():
    wire = [
        {
            "type": "flex",
            "altText": "一個",
            "contents": {
                "type": "bubble",
                "body": {"type": "box", "layout": "vertical", "contents": [{"type": "text", "text": "單一"}]},
            },
        },
        {"type": "sticker", "packageId": "446", "stickerId": "1988"},
    ]
    assert summarize_wire_messages(wire) == [
        {"type": "flex", "alt_text": "一個", "titles": ["單一"]},
        {"type": "sticker"},
    ]
