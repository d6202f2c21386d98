"""Signed LINE webhook bodies, for tests, the replay, the terminal chat and the benchmarks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import time
import uuid
from typing import Any

from local_agent.context.journal import ScopeKey

DESTINATION = "Ulocaldestination0000000000000000"
BOT_NAME = "LOCAL"
MENTION_PREFIX = f"@{BOT_NAME} "
_counter = itertools.count(1)


def sign(body: str | bytes, secret: str) -> str:
    raw = body.encode("utf-8") if isinstance(body, str) else body
    return base64.b64encode(hmac.new(secret.encode("utf-8"), raw, hashlib.sha256).digest()).decode("ascii")


def source(user: str | None, group: str | None = None, room: str | None = None) -> dict[str, Any]:
    """A webhook ``source``. ``user=None`` leaves ``userId`` out (a group or room member who does
    not share a profile, as LINE's schema allows)."""
    src: dict[str, Any]
    if group:
        src = {"type": "group", "groupId": group}
    elif room:
        src = {"type": "room", "roomId": room}
    else:
        src = {"type": "user"}
    if user is not None:
        src["userId"] = user
    return src


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def mention_self(text: str, *, name: str = BOT_NAME) -> tuple[str, dict[str, Any]]:
    """``(text, mention)``: the text prefixed with ``@name `` and a self mention of it, as LINE
    sends a message that mentions the bot (index and length in UTF-16 units)."""
    full = f"@{name} {text}"
    return full, {
        "mentionees": [{"index": 0, "length": utf16_len(f"@{name}"), "type": "user", "isSelf": True}]
    }


def scope_of(
    user: str | None, group: str | None = None, room: str | None = None, destination: str = DESTINATION
) -> ScopeKey:
    """The ScopeKey the webhook derives for an event whose source is ``source(user, group, room)``."""
    if user is None:
        user = "-"  # local_agent.line.events.ANONYMOUS_USER (testing may not import line/)
    if group:
        return ScopeKey(destination, "group", group, user)
    if room:
        return ScopeKey(destination, "room", room, user)
    return ScopeKey.for_user(user, destination)


def _base(kind: str, src: dict[str, Any], event_id: str | None, reply: bool = True) -> dict[str, Any]:
    n = next(_counter)
    event: dict[str, Any] = {
        "type": kind,
        "mode": "active",
        "timestamp": int(time.time() * 1000),
        "source": src,
        "webhookEventId": event_id or f"01J{uuid.uuid4().hex[:23].upper()}",
        "deliveryContext": {"isRedelivery": False},
    }
    if reply:
        event["replyToken"] = f"rt-{n}-{uuid.uuid4().hex[:12]}"
    return event


def text_event(
    user: str | None,
    text: str,
    *,
    group: str | None = None,
    room: str | None = None,
    event_id: str | None = None,
    mention: bool | dict[str, Any] = False,
) -> dict[str, Any]:
    """A text message event. ``mention=True`` sends ``@LOCAL <text>`` with a self mention; a dict
    is sent as ``message.mention`` as it is (for bad ranges)."""
    event = _base("message", source(user, group, room), event_id)
    message_id = str(next(_counter) + 10_000)
    message: dict[str, Any] = {"type": "text", "id": message_id, "quoteToken": f"quote{message_id}"}
    if mention is True:
        text, message["mention"] = mention_self(text)
    elif isinstance(mention, dict):
        message["mention"] = mention
    message["text"] = text
    event["message"] = message
    return event


def postback_event(
    user: str | None,
    data: str,
    *,
    group: str | None = None,
    room: str | None = None,
    event_id: str | None = None,
) -> dict[str, Any]:
    event = _base("postback", source(user, group, room), event_id)
    event["postback"] = {"data": data}
    return event


def follow_event(user: str, *, event_id: str | None = None) -> dict[str, Any]:
    event = _base("follow", source(user), event_id)
    event["follow"] = {"isUnblocked": False}
    return event


def unfollow_event(user: str, *, event_id: str | None = None) -> dict[str, Any]:
    """LINE sends no reply token with an unfollow."""
    return _base("unfollow", source(user), event_id, reply=False)


def join_event(
    *, group: str | None = None, room: str | None = None, event_id: str | None = None
) -> dict[str, Any]:
    """The bot was added to a group or room (the source has no userId)."""
    return _base("join", source(None, group, room), event_id)


def body(*events: dict[str, Any], destination: str = DESTINATION) -> str:
    return json.dumps({"destination": destination, "events": list(events)}, ensure_ascii=False)


def signed(secret: str, *events: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """``(body bytes, headers)`` ready to POST to ``/callback``."""
    text = body(*events)
    return text.encode("utf-8"), {"content-type": "application/json", "x-line-signature": sign(text, secret)}
