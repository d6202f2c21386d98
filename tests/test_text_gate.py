"""The text gate's rules, one sentence at a time (docs/design.md §9): what a model-written text may
say, what it may not, and which code a refusal gets. Property tests over the ordinary verbs, aspects,
objects and diets are in ``test_text_gate_properties.py``."""

from __future__ import annotations

import pytest

from local_agent.agent import gate_words, text_gate
from local_agent.agent.offline_rules import ASK_TOWNSHIP, CAPABILITIES
from local_agent.agent.tools import PREFERENCE_CHOICES_TEXT, WHICH_DIET_TEXT

REFUSED = [
    ("好的，已經幫您刪除了", "GATE_ACTION_CLAIM", "forget"),
    ("我已經把您的偏好歸零囉", "GATE_ACTION_CLAIM", "forget"),  # the lexicon's verbs, not a list of claims
    ("好的，已經幫您清空了", "GATE_ACTION_CLAIM", "forget"),
    ("偏好都清光囉", "GATE_ACTION_CLAIM", "forget"),
    ("好的，我把您的偏好刪除。", "GATE_ACTION_CLAIM", "forget"),  # the bot says it does it: a claim
    ("我幫您把素食偏好移除", "GATE_ACTION_CLAIM", "forget"),
    ("幫您刪除偏好了嗎？", "GATE_ACTION_CLAIM", "forget"),  # 幫您…了, even asked
    ("素食篩選已為您停用", "GATE_ACTION_CLAIM", "forget"),
    ("好，先幫您暫停了", "GATE_ACTION_CLAIM", "forget"),
    ("好的，以後不記了", "GATE_ACTION_CLAIM", "forget"),  # a stop said as done
    ("沒問題已儲存", "GATE_ACTION_CLAIM", "remember"),  # 沒問題 negates nothing
    ("已經刪除了嗎？", "GATE_ACTION_CLAIM", "forget"),  # a done-marker claims, even asked
    ("好的，為您設定好了", "GATE_ACTION_CLAIM", "remember"),
    ("已經為您篩選素食的店", "GATE_ACTION_CLAIM", ""),
    ("好的，停止套用了", "GATE_ACTION_CLAIM", "forget"),  # verbs said together: the stop counts
    ("偏好已經顯示在上面了", "GATE_ACTION_CLAIM", ""),
    ("我會記住您吃全素", "GATE_ACTION_CLAIM", "remember"),  # a promise
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
    ("已經為您整理好了", "GATE_ACTION_CLAIM", ""),
    ("我幫您找到附近的店", "GATE_ACTION_CLAIM", ""),  # a search no tool ran
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
    ("我媽吃全素嗎？", "GATE_OTHER_PERSON", ""),
    ("花壇有2個市集", "GATE_NUMBER", ""),  # a count, a distance, a rating: facts no tool gave
    ("員林有三家素食店", "GATE_NUMBER", ""),
    ("走路大概五分鐘", "GATE_NUMBER", ""),
    ("評價4.5顆星", "GATE_NUMBER", ""),
    ("地址在市場旁邊", "GATE_ADDRESS", ""),
    ("這個市集免費入場", "GATE_PRICE", ""),
    ("晚上五點到九點有夜市", "GATE_HOURS", ""),
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
    "要我記住您的飲食偏好，請說「記住我吃素」，我會先問您同意。",  # a diet in a command to say
    "可以問我「花壇這週有什麼活動」。",
    "您是說12月5日嗎？",  # a date is what the person asks about, not a fact of a place
    "這個日期不存在（例如 2月30日、13月），請再說一次日期，例如「這週末」或「12月5日」。",
    "農曆節日我只能查 1901 到 2100 年的，請直接說日期，例如「12月5日」。",
    "要我幫您刪除嗎？",  # a question back
    "我可以幫您刪除，請按「確定忘記」。",  # an offer, a pointer to the button
    "想要停用的話，請按下面的按鈕。",
    "我不記得了，請再說一次鄉鎮好嗎？",
    "別忘了帶傘喔！",
    "不客氣，有需要再叫我喔。",
    "天氣變冷了，出門多穿一件外套。",
    "路上小心，再見！",
    "希望您找到喜歡的店。",
    "要我記住、刪除，還是看看記了什麼？",  # asks what was kept: no claim
    "抱歉，我查不到停車的資訊。",
    "我是在地小幫手，可以幫您找彰化的店家和活動。",
    "其他問題我還不會回答。",
    "I can ask for your consent first.",
    "好" * gate_words.MAX_CHARS,
]


@pytest.mark.parametrize("chat", ["user", "group", "room"])
@pytest.mark.parametrize(("text", "code", "about"), REFUSED)
def test_refused_texts_get_their_code(text: str, code: str, about: str, chat: text_gate.Chat) -> None:
    verdict = text_gate.check(text, chat=chat, said="我吃全素")
    assert (verdict.code, verdict.about) == (code, about)
    assert not verdict.ok


@pytest.mark.parametrize("text", ALLOWED)
def test_short_texts_that_claim_nothing_pass_in_the_one_to_one_chat(text: str) -> None:
    assert text_gate.check(text, chat="user", said="嗯") == text_gate.Verdict()


# (model text, the person's message) in their 1:1 chat, and the code: a diet only theirs, only asked.
DIETS_ONE_TO_ONE = [
    ("您要找全素的店嗎？", "我吃全素，員林呢", None),
    ("您要找純素的店嗎？", "我吃全素", None),  # 純素 and 全素: one diet
    ("您吃全素，要找員林的店嗎？", "我吃全素", "GATE_DIET_NOT_ASKED"),  # asked only in its second clause
    ("要找素食的嗎", "我吃素", None),  # a question without its mark
    ("想找有素食的店家嗎？", "我吃素，員林有什麼店家", None),  # a shop is no other person
    ("您吃全素。", "我吃全素", "GATE_DIET_NOT_ASKED"),  # their own, but stated
    ("您要找蛋奶素的店嗎？", "我吃全素", "GATE_DIET_NOT_OWN"),  # not the one they named
    ("要找素食的店嗎？", "員林有什麼好吃的", "GATE_DIET_NOT_OWN"),  # they named none
    ("要找全素的店嗎？", "我媽吃全素", "GATE_DIET_NOT_OWN"),  # the diet of someone else
    ("阿明吃全素，阿華吃蛋奶素", "阿明吃什麼", "GATE_DIET_NOT_OWN"),
]


@pytest.mark.parametrize(("text", "said", "code"), DIETS_ONE_TO_ONE)
def test_a_diet_is_named_in_the_one_to_one_chat_only_as_the_persons_own_and_only_asked(
    text: str, said: str, code: str | None
) -> None:
    assert text_gate.check(text, chat="user", said=said).code == code


@pytest.mark.parametrize("chat", ["group", "room"])
@pytest.mark.parametrize(
    "text", ["阿明吃全素，阿華吃蛋奶素", "您要找全素的店嗎？", "要我記住您的飲食偏好，請說「記住我吃素」。"]
)
def test_no_diet_at_all_is_named_in_a_group_or_room(text: str, chat: text_gate.Chat) -> None:
    assert text_gate.check(text, chat=chat, said="我吃全素").code == "GATE_DIET_IN_GROUP"


def test_without_a_chat_the_gate_reads_as_in_a_group() -> None:
    assert text_gate.check("您要找全素的店嗎？", said="我吃全素").code == "GATE_DIET_IN_GROUP"
    assert text_gate.check("請問是哪個鄉鎮？").ok


def test_the_persons_own_diets_are_read_from_their_message() -> None:
    assert {"vegan", "lacto_ovo"} <= text_gate.own_diets("我 吃 全素，也可以吃蛋奶素")
    assert text_gate.own_diets("我媽吃全素") == frozenset()
    assert text_gate.own_diets("我 食菜，員林有啥物好食？") == {"vegetarian"}  # Taiwanese in Han characters
    assert text_gate.own_diets("ＶＥＧＡＮ") == {"vegan"}
    assert text_gate.own_diets("員林有什麼好吃的") == frozenset()


@pytest.mark.parametrize(
    "text", [CAPABILITIES, ASK_TOWNSHIP, text_gate.FALLBACK_TEXT, PREFERENCE_CHOICES_TEXT, WHICH_DIET_TEXT]
)
def test_the_fixed_texts_the_gate_and_the_tools_answer_with_would_pass_it(text: str) -> None:
    """The offline stand-in's texts pass (its path is unchanged), and so would every replacement."""
    assert text_gate.check(text, chat="user").ok


def test_none_is_empty() -> None:
    assert text_gate.check(None).code == "GATE_EMPTY"


def test_a_ten_thousand_character_text_is_refused_quickly() -> None:
    assert text_gate.check("彰化" * 5000).code == "GATE_TOO_LONG"
    assert text_gate.check("已經刪除了" + "彰化" * 5000).code == "GATE_TOO_LONG"  # not read at all
    assert text_gate.check("已經刪除了" + "彰化" * 100).code == "GATE_ACTION_CLAIM"


def test_the_gate_reads_the_lexicon_through_its_interface_and_keeps_no_verbs_of_its_own() -> None:
    """The verbs the commands read are the gate's verbs: it names only the lexicon's interface, and
    none of the lexicon's delete, stop or remember verbs is in the gate's own words."""
    import ast
    from pathlib import Path

    from local_agent.language.lexicon import words_of

    source = Path(text_gate.__file__).read_text(encoding="utf-8")
    imported = {
        alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module == "local_agent.language.lexicon"
        for alias in node.names
    }
    assert imported <= {"WORD_CLASSES", "words_of", "classes_of", "LexiconError"}
    tables = [getattr(gate_words, name) for name in dir(gate_words) if name.isupper()]
    own = {w for table in tables if isinstance(table, tuple) for w in table if isinstance(w, str)}
    verbs = {w for c in ("delete_verb", "stop_verb", "remember_verb") for w in words_of(c) if len(w) > 1}
    assert own & verbs == set()
