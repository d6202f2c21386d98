"""Channel-neutral replies and the code-written rendering of tool results (LINE limits kept)."""

from __future__ import annotations

import pytest

from local_agent.context.journal import ScopeKey
from local_agent.listings import catalogue
from local_agent.listings.meta import NO_DATE_LINE
from local_agent.replies.render import consent_choices, render_tool_result
from local_agent.replies.reply import (
    MAX_CARDS,
    MAX_CHOICES,
    MAX_TEXT_UTF16,
    Card,
    Choice,
    Reply,
    clip_utf16,
    utf16_len,
)
from local_agent.turns.consent import ConsentTokens

EMOJI = "\U0001f35c"  # 🍜, outside the BMP: two UTF-16 units


def place(i: int, township: str = "花壇鄉") -> dict:
    return {
        "id": f"p{i:03d}",
        "name": f"店家{i}",
        "township": township,
        "category": "小吃",
        "dietary": ["vegetarian"],
        "address_hint": "火車站附近",
        "note": "說明",
        "snapshot": True,
    }


def places_result(n: int, **extra) -> dict:
    return {
        "status": "ok",
        "tool": "search_local_places",
        "area": "花壇鄉",
        "dietary_type": "any",
        "keyword": "",
        "preference_origin": "none",
        "memory_revision": 0,
        "items": [place(i) for i in range(n)],
        "notice": catalogue.SNAPSHOT_NOTICE,
        **extra,
    }


def assert_valid_utf16(text: str) -> None:
    text.encode("utf-16-le")  # raises on a lone surrogate
    text.encode("utf-8")


# -- Reply limits --------------------------------------------------------------------------------------


def test_a_reply_keeps_at_most_twelve_cards():
    cards = tuple(Card(title=f"c{i}") for i in range(20))
    assert MAX_CARDS == 12
    assert Reply(cards=cards).cards == cards[:12]


def test_a_reply_keeps_at_most_thirteen_choices():
    choices = tuple(Choice(label=f"選{i}", data=f"d{i}") for i in range(20))
    assert MAX_CHOICES == 13
    assert Reply(choices=choices).choices == choices[:13]


def test_a_long_text_is_clipped_to_five_thousand_utf16_units():
    reply = Reply(texts=("好" * 6000,))
    (text,) = reply.texts
    assert utf16_len(text) <= MAX_TEXT_UTF16 == 5000
    assert text.endswith("…") and text.startswith("好" * 4000)


@pytest.mark.parametrize("prefix", ["", "a", "好" * 3])
def test_clipping_never_splits_an_emoji_surrogate_pair(prefix):
    text = prefix + EMOJI * 3000  # about 6000 units
    clipped = clip_utf16(text)
    assert utf16_len(clipped) <= 5000
    assert_valid_utf16(clipped)
    body = clipped[len(prefix) : -1]
    assert body == EMOJI * len(body) and clipped.endswith("…")


def test_clipping_at_the_exact_boundary_drops_a_pair_that_would_straddle_it():
    text = "a" * 4998 + EMOJI + "b"  # 5001 units
    clipped = clip_utf16(text)
    assert utf16_len(clipped) <= 5000
    assert EMOJI not in clipped and clipped == "a" * 4998 + "…"


def test_a_text_exactly_at_the_limit_is_kept_whole():
    text = "a" * 4998 + EMOJI  # exactly 5000 units
    assert clip_utf16(text) == text
    assert Reply(texts=(text,)).texts == (text,)


def test_empty_texts_are_dropped():
    assert Reply(texts=("", "嗨", "")).texts == ("嗨",)


def test_utf16_len_counts_astral_characters_as_two():
    assert utf16_len("a好" + EMOJI) == 4


# -- rendering tool results ----------------------------------------------------------------------------


def test_a_places_result_with_many_items_renders_at_most_twelve_cards_and_the_notice():
    reply = render_tool_result(places_result(20))
    assert len(reply.cards) == 12
    assert catalogue.SNAPSHOT_NOTICE in reply.texts[0]
    assert reply.texts[0].startswith("花壇鄉") and "20" in reply.texts[0].split("\n")[0]
    assert len(reply.alt_text) <= 400 and reply.alt_text.startswith("花壇鄉店家：")


@pytest.mark.parametrize(
    "result",
    [
        places_result(0),
        {
            "status": "ok",
            "tool": "search_local_events",
            "area": "鹿港鎮",
            "keyword": "",
            "items": [],
            "notice": catalogue.SNAPSHOT_NOTICE,
        },
        {
            "status": "ok",
            "tool": "search_local_events",
            "area": "鹿港鎮",
            "keyword": "",
            "items": [
                {
                    "name": "導覽",
                    "township": "鹿港鎮",
                    "category": "導覽",
                    "when": "週日",
                    "venue": "老街",
                    "note": "",
                }
            ],
        },
    ],
)
def test_every_successful_result_ends_with_its_notice_once_even_without_items(result):
    reply = render_tool_result(result)
    notice = result.get("notice") or NO_DATE_LINE  # a result without one: the neutral line, never 教學快照
    assert reply.texts[0].endswith("\n" + notice) and reply.texts[0].count(notice) == 1
    if not result["items"]:
        assert reply.cards == () and reply.alt_text == ""


def test_a_consented_preference_is_named_in_the_reply():
    reply = render_tool_result(
        places_result(1, dietary_type="vegetarian", preference_origin="consented_memory")
    )
    head = reply.texts[0].split("\n")[0]
    assert head.startswith("花壇鄉（素食") and "已套用您同意記住的偏好" in head


def test_an_error_result_renders_its_message_and_code():
    reply = render_tool_result(
        {"status": "error", "code": "UNKNOWN_TOWNSHIP", "message": "彰化縣沒有這個鄉鎮"}
    )
    assert reply.texts == ("彰化縣沒有這個鄉鎮",) and reply.error_code == "UNKNOWN_TOWNSHIP"
    assert reply.cards == ()


def test_real_catalogue_results_render_real_cards():
    items = [catalogue.place_to_dict(p) for p in catalogue.search_places("花壇鄉", "vegetarian", "")]
    reply = render_tool_result(places_result(0, items=items, dietary_type="vegetarian"))
    assert [c.title for c in reply.cards] == [i["name"] for i in items]
    assert all(c.kind == "place" and c.subtitle.startswith("花壇鄉") for c in reply.cards)


def test_consent_choices_are_within_quick_reply_limits():
    tokens, scope = ConsentTokens("secret"), ScopeKey("U" + "f" * 32, "group", "C" + "f" * 32, "U" + "f" * 32)
    yes, no = (
        tokens.issue(scope, agree=a, dietary_type="five_pungent", revision=10**11, now=4e9)
        for a in (True, False)
    )
    choices = consent_choices(yes, no)
    assert [c.label for c in choices] == ["同意", "不同意"]
    assert all(len(c.label) <= 20 and len(c.data) <= 300 for c in choices)
