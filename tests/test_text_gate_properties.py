"""The text gate's policy as properties (docs/design.md §9), over ordinary words people and models use.

Any delete, stop or remember verb in any aspect, with any object, is refused as a claim of the kind
its verb says; the same verbs denied or asked pass; any digit but a date's is a fact; any diet word in a group or
room is refused; in a 1:1 chat a question naming the person's own diet passes, a statement of it or
a question naming another does not. And every verb the lexicon knows, said as done, is refused.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.agent import text_gate
from local_agent.language.diets import find_diet
from local_agent.language.lexicon import words_of

DELETE_VERBS = ("歸零", "清空", "刪除", "刪掉", "清除", "移除", "忘掉", "取消", "丟掉", "撤掉")
STOP_VERBS = ("停用", "暫停", "停止套用")
REMEMBER_VERBS = ("記住", "記下來", "保存", "存起來")
OTHER_VERBS = ("篩選", "過濾", "預約", "訂位", "通知")
VERBS = (
    *((v, "forget") for v in DELETE_VERBS + STOP_VERBS),
    *((v, "remember") for v in REMEMBER_VERBS),
    *((v, "") for v in OTHER_VERBS),
)
OBJECTS = ("", "您的偏好", "素食偏好", "飲食設定", "資料", "吃素的紀錄", "這個")
OPENINGS = ("", "好的，", "沒問題，", "收到！", "OK，", "嗯嗯，")
CLOSINGS = ("", "。", "！", "喔", "～", "，還需要什麼嗎？", "，請放心。")
# {o}: the object, {v}: the verb. Each says the action was (or is being) done by the bot.
DONE = (
    "已經{o}{v}了",
    "已{v}{o}",
    "已經幫您{v}{o}",
    "我已經把{o}{v}囉",
    "{o}{v}了",
    "幫您把{o}{v}好了",
    "為您{v}好了",
    "幫您{v}{o}了",
    "{o}已經{v}完成",
    "剛剛幫您{v}了",
    "我幫您把{o}{v}",
)
# The same verbs said as not done, asked, or pointed to: each passes.
NOT_DONE = (
    "還沒有幫您{v}{o}",
    "目前無法{v}{o}",
    "要我幫您{v}{o}嗎？",
    "需要{v}{o}嗎？",
    "想{v}的話，請按下面的按鈕",
    "我沒有{v}{o}",
)
DIETS = ("吃素", "素食", "全素", "蛋奶素", "五辛素", "鍋邊素", "純素")
NAMES = ("阿明", "阿華", "美玲", "志明", "春嬌")


@settings(max_examples=300, deadline=None)
@given(
    verb=st.sampled_from(VERBS),
    form=st.sampled_from(DONE),
    obj=st.sampled_from(OBJECTS),
    opening=st.sampled_from(OPENINGS),
    closing=st.sampled_from(CLOSINGS),
    chat=st.sampled_from(["user", "group", "room"]),
)
def test_any_verb_in_any_aspect_with_any_object_is_refused_as_its_claim(
    verb: tuple[str, str], form: str, obj: str, opening: str, closing: str, chat: text_gate.Chat
) -> None:
    word, about = verb
    text = opening + form.format(v=word, o=obj) + closing
    verdict = text_gate.check(text, chat=chat, said="我吃素")
    assert (verdict.code, verdict.about) == ("GATE_ACTION_CLAIM", about), text


@settings(max_examples=200, deadline=None)
@given(
    verb=st.sampled_from(VERBS),
    form=st.sampled_from(NOT_DONE),
    obj=st.sampled_from(("", "您的偏好", "飲食設定", "資料")),
    opening=st.sampled_from(OPENINGS),
)
def test_the_same_verbs_denied_asked_or_pointed_to_pass(
    verb: tuple[str, str], form: str, obj: str, opening: str
) -> None:
    text = opening + form.format(v=verb[0], o=obj)
    assert text_gate.check(text, chat="user").ok, text


@pytest.mark.parametrize(
    "word_class", ["delete_verb", "stop_verb", "remember_verb", "apply_verb", "show_verb"]
)
def test_every_verb_the_lexicon_knows_said_as_done_is_a_claim(word_class: str) -> None:
    """Not a list of claims: whatever verb the commands read, the gate reads as an action."""
    for word in words_of(word_class):
        for form in ("好的，已經{v}了", "已經幫您{v}", "我已經把您的偏好{v}囉", "為您{v}好了"):
            text = form.format(v=word)
            assert text_gate.check(text, chat="user").code == "GATE_ACTION_CLAIM", text


@settings(max_examples=200, deadline=None)
@given(
    before=st.text(alphabet="您好的花壇員林市集活動請問，。", max_size=20),
    digit=st.sampled_from("0123456789０１２３４５６７８９"),
    after=st.text(alphabet="號樓元點分鐘家人您好的", max_size=10),
    chat=st.sampled_from(["user", "group", "room"]),
)
def test_any_digit_but_a_dates_is_a_fact_and_is_refused(
    before: str, digit: str, after: str, chat: text_gate.Chat
) -> None:
    text = before + digit + after
    verdict = text_gate.check(text, chat=chat)
    assert not verdict.ok and verdict.code not in ("GATE_EMPTY", "GATE_TOO_LONG"), text


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    diet=st.sampled_from(DIETS),
    form=st.sampled_from(
        ("{n}{d}", "{n}是{d}的", "您要找{d}的店嗎？", "{n}吃{d}嗎？", "「{d}」的店我可以幫您找")
    ),
    chat=st.sampled_from(["group", "room"]),
    said=st.sampled_from(("員林有什麼好吃的", "我吃素", "我吃全素，有推薦嗎")),
)
def test_any_diet_word_in_a_group_or_room_is_refused(
    name: str, diet: str, form: str, chat: text_gate.Chat, said: str
) -> None:
    text = form.format(n=name, d=diet)
    assert text_gate.check(text, chat=chat, said=said).code in ("GATE_DIET_IN_GROUP", "GATE_OTHER_PERSON"), (
        text
    )


@settings(max_examples=200, deadline=None)
@given(
    said_diet=st.sampled_from(DIETS),
    written=st.sampled_from(DIETS),
    said_form=st.sampled_from(("我{d}", "我是{d}的，員林有什麼", "我 {d}，幫我找花壇")),
    question=st.sampled_from(("您要找{d}的店嗎？", "請問是要{d}的嗎？", "請問{d}的店要找哪個鄉鎮？")),
)
def test_a_question_naming_the_persons_own_diet_passes_in_their_chat_and_no_other(
    said_diet: str, written: str, said_form: str, question: str
) -> None:
    said = said_form.format(d=said_diet)
    verdict = text_gate.check(question.format(d=written), chat="user", said=said)
    own = find_diet(said_diet) == find_diet(written)
    assert verdict.code == (None if own else "GATE_DIET_NOT_OWN"), (said, written)
    stated = text_gate.check(f"您{written}。", chat="user", said=said)
    assert stated.code == ("GATE_DIET_NOT_ASKED" if own else "GATE_DIET_NOT_OWN")
