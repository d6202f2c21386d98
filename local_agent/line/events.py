"""Inbound LINE events as LOCAL sees them: scope, addressing and the text with mentions removed.

Group and room etiquette starts here. In a group or room a text is ours only when one of its
``message.mention.mentionees`` is the bot (``isSelf: true``); other texts are chatter and become
``None`` (ignored: no reply, no push, no loading animation). Every mention substring is cut out
of the text by its ``index``/``length`` (UTF-16 code units, as LINE counts them) before command
matching, the model and the projection ever see it, so 「@LOCAL 說明」 is 「說明」 and a family
member's name after ``@`` never reaches a model request.

A mentionee whose range is out of the text or splits a surrogate pair is not trusted: it neither
addresses the bot nor cuts anything. A group or room event without ``source.userId`` (LINE
allows this, e.g. desktop users who have not agreed to share their profile) is still answered
when addressed, under the anonymous user ``ANONYMOUS_USER``: no personal memory, no consent.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict, TypeGuard

from linebot.v3.webhooks import (
    FollowEvent,
    GroupSource,
    JoinEvent,
    MessageEvent,
    PostbackEvent,
    RoomSource,
    TextMessageContent,
    UnfollowEvent,
    UserSource,
)

from local_agent.context.errors import ScopeError
from local_agent.context.journal import ScopeKey
from local_agent.line.inbound import ANONYMOUS_USER, MEDIA_KINDS, SHARED_SOURCES, InboundEvent, MediaKind

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _EventCommon(TypedDict):
    scope: ScopeKey
    reply_to: str
    event_id: str | None
    reply_token: str | None
    received_at: float


def is_id(value: object) -> TypeGuard[str]:
    """LINE ids (user, group, room, webhook event, reply token) are short printable strings
    (printable also rules out control characters and lone surrogates)."""
    return isinstance(value, str) and 0 < len(value) <= 200 and value.isprintable()


def clean_text(value: str | None) -> str:
    """JSON may carry lone UTF-16 surrogates (``"\\ud800"``); they cannot be encoded as UTF-8
    anywhere downstream, so each becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", value or "")


def scope_of(source: Any, destination: str) -> tuple[ScopeKey, str] | None:
    """``(scope, push target)`` of an event's source, or None when it is not LINE-shaped.
    A 1:1 source needs its user id; a group or room without one is the anonymous member."""
    user_id = getattr(source, "user_id", None)
    if isinstance(source, UserSource):
        if not is_id(user_id):
            return None
        return ScopeKey(destination, "user", user_id, user_id), user_id
    if user_id is None:
        user_id = ANONYMOUS_USER
    elif not is_id(user_id):
        return None
    if isinstance(source, GroupSource) and is_id(source.group_id):
        return ScopeKey(destination, "group", source.group_id, user_id), source.group_id
    if isinstance(source, RoomSource) and is_id(source.room_id):
        return ScopeKey(destination, "room", source.room_id, user_id), source.room_id
    return None


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def _splits_pair(units: bytes, at: int) -> bool:
    """True when UTF-16 position ``at`` falls between a high and a low surrogate."""
    if at <= 0 or at * 2 >= len(units):
        return False
    before = int.from_bytes(units[at * 2 - 2 : at * 2], "little")
    after = int.from_bytes(units[at * 2 : at * 2 + 2], "little")
    return 0xD800 <= before <= 0xDBFF and 0xDC00 <= after <= 0xDFFF


def valid_spans(text: str, mentionees: list[Any]) -> list[tuple[int, int, bool]]:
    """``(index, length, is_self)`` of the mentionees whose range is inside ``text`` (UTF-16
    units), does not split a surrogate pair and does not overlap an earlier one."""
    units = _units(text)
    size = len(units) // 2
    spans: list[tuple[int, int, bool]] = []
    for m in mentionees:
        index, length = getattr(m, "index", None), getattr(m, "length", None)
        if isinstance(index, bool) or isinstance(length, bool):
            continue
        if not isinstance(index, int) or not isinstance(length, int):
            continue
        if index < 0 or length <= 0 or index + length > size:
            continue
        if _splits_pair(units, index) or _splits_pair(units, index + length):
            continue
        if any(index < s + n and s < index + length for s, n, _ in spans):
            continue
        spans.append((index, length, getattr(m, "is_self", None) is True))
    return spans


def strip_mentions(text: str, spans: list[tuple[int, int, bool]]) -> str:
    """``text`` without the given UTF-16 spans, whitespace around the cuts tidied."""
    units = _units(text)
    out = bytearray()
    at = 0
    for index, length, _ in sorted(spans):
        out += units[at * 2 : index * 2]
        out += " ".encode("utf-16-le")
        at = index + length
    out += units[at * 2 :]
    stripped = bytes(out).decode("utf-16-le", "surrogatepass")
    return re.sub(r"[ \u3000]+", " ", stripped).strip()


def addressed_text(message: Any) -> tuple[str, bool]:
    """``(text without mentions and LINE emoji, the bot is mentioned)`` of a text message.

    A LINE emoji stands in the text as a placeholder such as ``(love)`` at the ``index``/``length``
    its ``emojis`` entry gives; it is cut like a mention, so 「早安(sun)」 is the greeting 「早安」."""
    raw = message.text or ""
    mention = getattr(message, "mention", None)
    marks = list(getattr(mention, "mentionees", None) or []) + list(getattr(message, "emojis", None) or [])
    spans = valid_spans(raw, marks) if marks else []
    text = strip_mentions(raw, spans) if spans else raw
    return clean_text(text), any(is_self for _, _, is_self in spans)


def media_kind(message: Any) -> MediaKind | None:
    """The kind of a non-text message LOCAL answers (the SDK's own ``type`` field), else None."""
    kind = getattr(message, "type", None)
    return next((k for k in MEDIA_KINDS if k == kind), None)


def location_text(message: Any) -> str:
    """A shared location read as what the user would have typed: its title and address (「花壇鄉
    中山路…」 can answer 「請問是哪個鄉鎮？」). Empty when LINE sent neither."""
    parts = (getattr(message, "title", None), getattr(message, "address", None))
    return clean_text(" ".join(p.strip() for p in parts if isinstance(p, str) and p.strip()))


def _from_message(message: Any, common: _EventCommon, shared: bool) -> InboundEvent | None:
    if isinstance(message, TextMessageContent):
        text, mentioned = addressed_text(message)
        if shared and not mentioned:
            return None  # chatter between members: not for us
        quote = getattr(message, "quote_token", None)
        return InboundEvent(kind="text", text=text, quote_token=quote if is_id(quote) else None, **common)
    if shared:
        return None  # a voice message, sticker or photo in a group cannot mention the bot
    # In a 1:1 chat every message gets an answer; a shared location's address is read as text.
    kind = media_kind(message)
    if kind == "location" and (where := location_text(message)):
        return InboundEvent(kind="text", text=where, **common)
    return None if kind is None else InboundEvent(kind="media", data=kind, **common)


def to_inbound(event: Any, destination: str, received_at: float) -> InboundEvent | None:
    """Our view of an SDK event, or None for what LOCAL ignores (unknown types, events whose ids
    are not LINE-shaped, standby-mode events, group chatter not addressed to the bot, non-text
    messages in a group or room)."""
    if getattr(event, "mode", None) == "standby":  # EventMode is a str enum
        return None  # another module owns the chat; LINE gives no reply token and expects silence
    event_id = getattr(event, "webhook_event_id", None)
    reply_token = getattr(event, "reply_token", None)
    if not is_id(destination) or (event_id is not None and not is_id(event_id)):
        return None
    if reply_token is not None and not is_id(reply_token):
        return None
    try:
        scoped = scope_of(getattr(event, "source", None), destination)
    except ScopeError:
        return None
    if scoped is None:
        return None
    scope, reply_to = scoped
    common = _EventCommon(
        scope=scope, reply_to=reply_to, event_id=event_id, reply_token=reply_token, received_at=received_at
    )
    shared = scope.source_type in SHARED_SOURCES
    if isinstance(event, MessageEvent):
        return _from_message(event.message, common, shared)
    if isinstance(event, PostbackEvent) and event.postback is not None:
        return InboundEvent(kind="postback", data=clean_text(event.postback.data), **common)
    if isinstance(event, FollowEvent) and not shared:
        return InboundEvent(kind="follow", **common)
    if isinstance(event, UnfollowEvent) and not shared:
        return InboundEvent(kind="unfollow", **common)
    if isinstance(event, JoinEvent) and shared:
        return InboundEvent(kind="join", **common)
    return None


__all__ = [
    "ANONYMOUS_USER",
    "InboundEvent",
    "addressed_text",
    "is_id",
    "location_text",
    "media_kind",
    "scope_of",
    "strip_mentions",
    "to_inbound",
]
