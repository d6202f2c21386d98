"""The "what is kept" answer: what LOCAL keeps about the person asking, read from the store now.

Channel-neutral: a ``Reply``. Personal, so only in the person's 1:1 chat; in a group or room the
answer is the same 1:1-only pointer the preference commands give. Reads, never writes; a kept diet
comes with a 刪除偏好 button (the forget button's postback).
"""

from __future__ import annotations

from local_agent.context.journal import ScopeKey
from local_agent.listings import catalogue
from local_agent.replies.render import FORGET_NO, FORGET_YES, IN_PRIVATE_ONLY
from local_agent.replies.reply import Choice, Reply
from local_agent.stores.ports import PreferenceStore

KEPT_CONTEXT = (
    "聊天原文我不保存。為了接得上話，只記最近兩個話題（哪個鄉鎮、找店家或查活動），"
    "15 分鐘沒說話就失效；查詢紀錄只存不含原文的指紋，30 天後刪除。"
)
NOTHING_KEPT = "我目前沒有記住您的飲食偏好。想設定，請說「記住我吃素」，我會先問您同意。"


def kept_reply(preferences: PreferenceStore, scope: ScopeKey) -> Reply:
    """What is kept about ``scope``'s user: the consented diet (if any) and the context rules."""
    if scope.source_type != "user":
        return Reply(texts=(IN_PRIVATE_ONLY,))
    state = preferences.get(scope.user_id)
    if state.consent == "granted" and state.dietary_type in catalogue.DIETARY_TYPES:
        label = catalogue.dietary_label(state.dietary_type)
        diet = (
            f"您同意我記住的飲食偏好是「{label}」，只在這個一對一聊天找店家時套用；"
            "說「忘記我的飲食偏好」就會刪除。"
        )
        delete = (Choice("刪除偏好", FORGET_YES, "刪除我的飲食偏好"), Choice("保留", FORGET_NO, "保留"))
        return Reply(texts=(diet + "\n" + KEPT_CONTEXT,), choices=delete)
    return Reply(texts=(NOTHING_KEPT + "\n" + KEPT_CONTEXT,))
