"""The text gate's rules, one sentence at a time (docs/design.md §9): what a model-written text may
say, what it may not, and which code a refusal gets."""

from __future__ import annotations

import pytest

from local_agent.agent import gate_words, text_gate
from local_agent.agent.offline_rules import ASK_TOWNSHIP, CAPABILITIES
from local_agent.agent.tools import PREFERENCE_CHOICES_TEXT, WHICH_DIET_TEXT

REFUSED = [
    ("好的，已經幫您刪除了", "GATE_ACTION_CLAIM", "forget"),
    ("您的飲食偏好已清除。", "GATE_ACTION_CLAIM", "forget"),
    ("好 的 ， 我 記 住 了", "GATE_ACTION_CLAIM", "remember"),  # spaced out
    ("沒問題，已儲存。", "GATE_ACTION_CLAIM", "remember"),
    ("好的，已幫您刪除飲食偏好。", "GATE_ACTION_CLAIM", "forget"),  # words between 已 and the verb
    ("我已經把您的偏好刪除。", "GATE_ACTION_CLAIM", "forget"),
    ("收到，已為您取消", "GATE_ACTION_CLAIM", "forget"),
    ("我已經幫您記住您吃素", "GATE_ACTION_CLAIM", "remember"),
    ("好的，已為您記錄。", "GATE_ACTION_CLAIM", "remember"),
    ("好的，記下來了！", "GATE_ACTION_CLAIM", "remember"),  # a verb and a done-ending
    ("已經幫您存好了", "GATE_ACTION_CLAIM", "remember"),
    ("好的，以後會幫您留意素食", "GATE_ACTION_CLAIM", "remember"),  # a promise to keep it
    ("OK, I will remember that you are vegan.", "GATE_ACTION_CLAIM", "remember"),
    ("我已幫您撥打電話給店家", "GATE_ACTION_CLAIM", ""),
    ("已幫您預約明天中午兩位。", "GATE_ACTION_CLAIM", ""),
    ("訂好了，請準時到。", "GATE_ACTION_CLAIM", ""),
    ("我已通知店家。", "GATE_ACTION_CLAIM", ""),
    ("訊息已傳送給醫院。", "GATE_ACTION_CLAIM", ""),
    ("Done, I have deleted it.", "GATE_ACTION_CLAIM", "forget"),
    ("OK, Remembered: vegan.", "GATE_ACTION_CLAIM", "remember"),
    ("Table booked for two.", "GATE_ACTION_CLAIM", ""),
    ("I have sent the message.", "GATE_ACTION_CLAIM", ""),
    ("電話：04-7238595", "GATE_PHONE", ""),
    ("手機 0912 345 678", "GATE_PHONE", ""),
    ("打 +886-4-7238595 問", "GATE_PHONE", ""),
    ("撥7238595就可以", "GATE_PHONE", ""),
    ("請看 https://example.com", "GATE_LINK", ""),
    ("官網 www.changhua.gov.tw 有寫", "GATE_LINK", ""),
    ("LINE 搜尋 line.me/R/ti/p/@abc", "GATE_LINK", ""),
    ("寫信到 a.b@example.org", "GATE_EMAIL", ""),
    ("在中正路二段", "GATE_ADDRESS", ""),
    ("地址是民族路 35 號", "GATE_ADDRESS", ""),
    ("在三民街5巷裡面", "GATE_ADDRESS", ""),
    ("營業時間是中午到晚上", "GATE_HOURS", ""),
    ("11:00 開門", "GATE_HOURS", ""),
    ("下午5點以後人少", "GATE_HOURS", ""),
    ("週一公休", "GATE_HOURS", ""),
    ("一份 60 元", "GATE_PRICE", ""),
    ("大概一百元左右", "GATE_PRICE", ""),
    ("一碗五十塊錢", "GATE_PRICE", ""),
    ("大家的偏好我可以列給你", "GATE_OTHER_PERSON", ""),
    ("她吃蛋奶素。", "GATE_OTHER_PERSON", ""),
    ("其他人的飲食我都知道", "GATE_OTHER_PERSON", ""),
    ("", "GATE_EMPTY", ""),
    (" \n\t　", "GATE_EMPTY", ""),
    ("好" * (gate_words.MAX_CHARS + 1), "GATE_TOO_LONG", ""),
    ("一\n二\n三\n四\n五", "GATE_TOO_LONG", ""),
]

ALLOWED = [
    "停車的資訊我還查不到，請見諒。",
    "請問是哪個鄉鎮？",
    "我沒辦法幫您預約，請直接聯絡店家。",
    "我無法幫您訂位。",
    "還沒有幫您刪除，要刪除請按「確定忘記」。",  # a negation between 已/還 and the verb
    "您可以請我記下來，我會先問您同意。",
    "目前已經無法線上預約，請見諒。",  # a negation between 已經 and the verb
    "可以和家人一塊去逛逛。",
    "您已經說過花壇了，要找吃的還是活動？",
    "要我記住您的飲食偏好，請說「記住我吃素」，我會先問您同意。",
    "12月5號那週花壇有市集，可以問我「花壇這週有什麼活動」。",
    "其他問題我還不會回答。",
    "I can ask for your consent first.",
    "好" * gate_words.MAX_CHARS,
]


@pytest.mark.parametrize(("text", "code", "about"), REFUSED)
def test_refused_texts_get_their_code(text: str, code: str, about: str) -> None:
    verdict = text_gate.check(text)
    assert (verdict.code, verdict.about) == (code, about)
    assert not verdict.ok


@pytest.mark.parametrize("text", ALLOWED)
def test_short_texts_that_claim_nothing_pass(text: str) -> None:
    assert text_gate.check(text) == text_gate.Verdict()


@pytest.mark.parametrize(
    "text", [CAPABILITIES, ASK_TOWNSHIP, text_gate.FALLBACK_TEXT, PREFERENCE_CHOICES_TEXT, WHICH_DIET_TEXT]
)
def test_the_fixed_texts_the_gate_and_the_tools_answer_with_would_pass_it(text: str) -> None:
    """The offline stand-in's texts pass (its path is unchanged), and so would every replacement."""
    assert text_gate.check(text).ok


def test_none_is_empty() -> None:
    assert text_gate.check(None).code == "GATE_EMPTY"


def test_a_ten_thousand_character_text_is_refused_quickly() -> None:
    assert text_gate.check("彰化" * 5000).code == "GATE_TOO_LONG"
