"""line/events.py: mention ranges in UTF-16 units, addressing, sources without userId."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st
from linebot.v3.webhooks import Event

from local_agent.line.events import ANONYMOUS_USER, strip_mentions, to_inbound, valid_spans
from local_agent.testing import webhooks as W
from local_agent.turns.commands import match_text_command


@dataclass
class M:
    index: object
    length: object
    is_self: object = True


def parse(event: dict):
    return to_inbound(Event.from_dict(event), W.DESTINATION, 0.0)


def test_spans_are_utf16_units_so_astral_characters_count_twice() -> None:
    text = "👵🏻@LOCAL 你好"
    assert valid_spans(text, [M(4, 6)]) == [(4, 6, True)]
    assert strip_mentions(text, [(4, 6, True)]) == "👵🏻 你好"


def test_bad_ranges_are_dropped() -> None:
    text = "😀abc"  # 😀 is units 0-1
    assert valid_spans(text, [M(1, 2)]) == []  # starts inside the surrogate pair
    assert valid_spans(text, [M(0, 1)]) == []  # ends inside it
    assert valid_spans(text, [M(0, 6)]) == []  # past the end
    assert valid_spans(text, [M(-1, 2), M(0, 0), M(True, 2), M("0", 2), M(None, 2)]) == []
    assert valid_spans(text, [M(0, 3), M(1, 3)]) == [(0, 3, True)]  # overlap: the first one wins
    assert valid_spans(text, [M(2, 1, None)]) == [(2, 1, False)]  # isSelf absent: someone else


@given(
    before=st.text(max_size=8),
    name=st.text(min_size=1, max_size=8),
    after=st.text(max_size=8),
)
def test_a_valid_mention_is_cut_exactly(before: str, name: str, after: str) -> None:
    text = f"{before}@{name}{after}"
    index = W.utf16_len(before)
    [(i, n, _)] = valid_spans(text, [M(index, W.utf16_len("@" + name))])
    assert (i, n) == (index, W.utf16_len("@" + name))
    expected = re.sub(r"[ \u3000]+", " ", f"{before} {after}").strip()
    assert strip_mentions(text, [(i, n, True)]) == expected


@given(st.text(max_size=20), st.integers(-5, 30), st.integers(-5, 30))
def test_any_range_is_either_inside_the_text_or_dropped_never_an_error(
    text: str, index: int, length: int
) -> None:
    spans = valid_spans(text, [M(index, length)])
    if spans:
        out = strip_mentions(text, spans)
        assert isinstance(out, str)


def test_group_text_without_a_self_mention_is_ignored_and_with_one_is_ours() -> None:
    assert parse(W.text_event("U1", "哈哈好啊", group="G1")) is None
    inbound = parse(W.text_event("U1", "記住我吃素", group="G1", mention=True))
    assert (inbound.kind, inbound.text, inbound.shared) == ("text", "記住我吃素", True)


def test_a_group_member_without_user_id_is_the_anonymous_user() -> None:
    inbound = parse(W.text_event(None, "說明", group="G1", mention=True))
    assert inbound.scope.user_id == ANONYMOUS_USER and inbound.anonymous
    assert parse(W.text_event(None, "說明")) is None  # a 1:1 chat always has its user


def test_join_unfollow_and_follow_are_recognised_where_they_belong() -> None:
    assert parse(W.join_event(group="G1")).kind == "join"
    assert parse(W.join_event(room="R1")).kind == "join"
    assert parse(W.unfollow_event("U1")).kind == "unfollow"
    assert parse(W.follow_event("U1")).kind == "follow"


def test_line_emoji_placeholders_are_cut_so_greetings_and_help_still_match() -> None:
    event = W.text_event("U" + "2" * 32, "早安(sun)")
    event["message"]["emojis"] = [{"index": 2, "length": 5, "productId": "5ac1bfd5", "emojiId": "001"}]
    inbound = parse(event)
    assert inbound is not None and inbound.text == "早安"
    assert match_text_command(inbound.text) == "greeting"  # answered with the help text


def test_an_emoji_and_a_mention_are_both_cut_in_a_group() -> None:
    event = W.text_event("U" + "2" * 32, "說明(love)", group="G" + "3" * 32, mention=True)
    text = event["message"]["text"]  # "@LOCAL 說明(love)"
    at = len(text.encode("utf-16-le")) // 2 - len("(love)")
    event["message"]["emojis"] = [{"index": at, "length": 6, "productId": "p", "emojiId": "e"}]
    inbound = parse(event)
    assert inbound is not None and inbound.text == "說明"
    bad = W.text_event("U" + "2" * 32, "你好(love)")
    bad["message"]["emojis"] = [{"index": 2, "length": 60, "productId": "p", "emojiId": "e"}]  # past the end
    inbound = parse(bad)
    assert inbound is not None and inbound.text == "你好(love)"  # an untrusted range cuts nothing
