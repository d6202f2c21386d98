"""No sentence that asks to delete the speaker's preference leaves it both applied and unconfirmed.

Sentences are built from the parts people combine — a lead (「好，」, 「那」), a request in any word
order (verb–object, 把/將 + object + verb, object + 不用記了, 不想讓你記得 + object), the diet named or
not, a tail (「，謝謝」, an emoji, a search after it) and voice-input spaces — and run through the
real command path (``match_text_command`` → ``static_result`` → ``Commands.handle_text``, as the
service does) after a granted vegetarian preference. Afterwards either the preference is gone
(the next search applies nothing) or the answer is the 確定忘記 / 不用 question.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.agent.pipeline import ContextPipeline
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.context.session_budget import SessionBudget
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import FORGET_YES, Commands, match_text_command, static_result
from local_agent.turns.consent import ConsentTokens

SCOPE = ScopeKey("Udest", "user", "U" + "a" * 32, "U" + "a" * 32)
LEADS = ("", "好，", "那", "好，那", "阿，", "麻煩", "拜託，", "喂，", "對了，")
SUBJECTS = ("", "你", "請你", "幫我", "你幫我", "請")
OBJECTS = (
    "我吃素的事情",
    "我的偏好",
    "我吃素的資料",
    "我的飲食偏好",
    "吃素這件事",
    "我的素食設定",
    "我吃全素的紀錄",
    "我的資料",
    "素食偏好",
    "吃素的設定",
    "阮食菜的代誌",
    "你記的東西",
)
VERBS = (
    "忘記",
    "忘掉",
    "刪掉",
    "刪除",
    "清除",
    "清掉",
    "拿掉",
    "移除",
    "取消",
    "删除",
    "消除",
    "丟掉",
    "撤掉",
    "歸零",
    "共我刪掉",
    "移掉",
    "清光",
    "拿開",
)
ENDINGS = ("", "掉", "了", "吧", "喔", "啦", "一下")
STOPS = (
    "不用記了",
    "不要再記了",
    "別記了",
    "不用再記住了",
    "不必記了",
    "不用保留",
    "毋免閣記矣",
    "莫記啊",
    "不要了",
    "通通不要",
)
STOP_LEADS = (
    "不想讓你記得",
    "以後不要記住",
    "你不用再記得",
    "不要再幫我記",
    "別再記",
    "不用還記著",
    "以後不用再管",
    "不想讓你們知道",
    "別再幫我套",
    "不要再用",
)
TAILS = ("", "，謝謝", "！", "🙏", "。", "，花壇有什麼好吃的", "，拜託")


@st.composite
def delete_requests(draw: st.DrawFn) -> str:
    obj = draw(st.sampled_from(OBJECTS))
    verb = draw(st.sampled_from(VERBS))
    form = draw(st.integers(0, 3))
    if form == 0:
        core = draw(st.sampled_from(SUBJECTS)) + verb + obj + draw(st.sampled_from(ENDINGS))
    elif form == 1:
        ba = draw(st.sampled_from(("把", "將")))
        core = draw(st.sampled_from(SUBJECTS)) + ba + obj + verb + draw(st.sampled_from(ENDINGS))
    elif form == 2:
        core = obj + draw(st.sampled_from(STOPS))
    else:
        core = draw(st.sampled_from(STOP_LEADS)) + obj.removeprefix("我的").removeprefix("我")
    text = draw(st.sampled_from(LEADS)) + core + draw(st.sampled_from(TAILS))
    spaces = draw(st.lists(st.integers(0, len(text)), max_size=3))
    for at in sorted(spaces, reverse=True):
        text = text[:at] + " " + text[at:]
    return text


@settings(max_examples=300, deadline=None)
@given(delete_requests())
def test_a_delete_request_never_leaves_the_preference_applied_and_unconfirmed(text: str) -> None:
    now = [1_800_000_000.0]
    store = SqliteStore(":memory:")
    clock = lambda: now[0]  # noqa: E731
    journal = ContextJournal(store, clock=clock)
    commands = Commands(preferences=store, journal=journal, clock=clock, tokens=ConsentTokens("secret"))
    pipeline = ContextPipeline(
        journal=journal,
        preferences=store,
        audit=store,
        snapshots=store,
        budget=SessionBudget(limit=10**6),
        clock=clock,
    )
    try:
        prompt = commands.handle_text(SCOPE, "記住我吃素")
        assert prompt is not None
        commands.handle_postback(SCOPE, prompt.reply.choices[0].data)
        kind = match_text_command(text)
        result = static_result(kind, SCOPE, text) or (
            commands.handle_text(SCOPE, text, kind) if kind else None
        )
        confirmed = result is not None and any(c.data == FORGET_YES for c in result.reply.choices)
        state = pipeline.begin(SCOPE, text)  # what a search turn with this sentence would apply
        origin = pipeline.tools(state).search_local_places(area="花壇鄉")["preference_origin"]
        assert confirmed or origin != "consented_memory", (text, kind)
        assert confirmed or store.get(SCOPE.user_id).consent == "forgotten", (text, kind)
    finally:
        store.close()
