"""The inbox's seal and its late-answer pieces: AES-GCM under a key from the channel secret (a new
secret is told apart from a damaged row, a row cannot be moved to another event), the apology in
Taiwan time, the opening of the first text, the pace of late pushes."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

import pytest
from linebot.v3.messaging import FlexBubble, FlexMessage, TextMessage

from local_agent.listings.dates import TAIPEI
from local_agent.server.inbox import InboxSeal, InboxUnreadable, apology, too_late_text
from local_agent.server.inbox_turn import PushPacer, with_apology

SECRET = "channel-secret-0123456789abcdef"


def test_a_sealed_event_opens_only_with_its_key_and_its_event_id() -> None:
    seal = InboxSeal(SECRET)
    sealed = seal.seal("event-1", "我有糖尿病".encode())
    assert "糖尿病".encode() not in sealed
    assert seal.open("event-1", sealed) == "我有糖尿病".encode()
    assert seal.seal("event-1", b"x") != seal.seal("event-1", b"x")  # a fresh nonce each time
    with pytest.raises(InboxUnreadable) as moved:
        seal.open("event-2", sealed)
    assert moved.value.reason == "corrupt"
    with pytest.raises(InboxUnreadable) as reply:
        seal.open("event-1", sealed, "reply")
    assert reply.value.reason == "corrupt"
    with pytest.raises(InboxUnreadable) as changed:
        InboxSeal("a-new-channel-secret-000000000").open("event-1", sealed)
    assert changed.value.reason == "key_changed"
    flipped = sealed[:-1] + bytes([sealed[-1] ^ 1])
    for damaged in (flipped, b"", b"LI1", b"XX" + sealed[2:]):
        with pytest.raises(InboxUnreadable) as bad:
            seal.open("event-1", damaged)
        assert bad.value.reason == "corrupt"


def test_the_apology_names_the_messages_time_in_taiwan() -> None:
    at = datetime(2026, 12, 1, 10, 42, 30, tzinfo=TAIPEI).timestamp()
    assert apology(at) == "抱歉晚回覆您 10:42 的訊息："
    assert too_late_text(at).startswith("抱歉晚回覆您 10:42 的訊息：") and len(too_late_text(at)) < 80


def test_the_apology_opens_the_first_text_or_comes_first() -> None:
    at = datetime(2026, 12, 1, 8, 5, tzinfo=TAIPEI).timestamp()
    opened = with_apology([TextMessage(text="花壇鄉找到 4 家店家："), TextMessage(text="second")], at)
    assert [m.text for m in opened] == ["抱歉晚回覆您 08:05 的訊息：花壇鄉找到 4 家店家：", "second"]
    card = FlexMessage(altText="cards", contents=FlexBubble())
    (first, rest) = with_apology([card], at)
    assert first.text == "抱歉晚回覆您 08:05 的訊息" and rest is card
    full = [card] * 5  # LINE takes five messages at most: nothing is added to a full answer
    assert with_apology(full, at) == full


def test_late_pushes_keep_their_pace() -> None:
    pacer = PushPacer(rate=50.0)

    async def ten() -> float:
        started = time.monotonic()
        for _ in range(10):
            await pacer.wait()
        return time.monotonic() - started

    assert asyncio.run(ten()) >= 9 / 50.0 - 0.01
