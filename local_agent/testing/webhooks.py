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
_counter = itertools.count(1)


def sign(body: str | bytes, secret: str) -> str:
    raw = body.encode("utf-8") if isinstance(body, str) else body
    return base64.b64encode(hmac.new(secret.encode("utf-8"), raw, hashlib.sha256).digest()).decode("ascii")


def source(user: str, group: str | None = None, room: str | None = None) -> dict[str, Any]:
    if group:
        return {"type": "group", "groupId": group, "userId": user}
    if room:
        return {"type": "room", "roomId": room, "userId": user}
    return {"type": "user", "userId": user}


def scope_of(
    user: str, group: str | None = None, room: str | None = None, destination: str = DESTINATION
) -> ScopeKey:
    """The ScopeKey the webhook derives for an event whose source is ``source(user, group, room)``."""
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
    user: str, text: str, *, group: str | None = None, room: str | None = None, event_id: str | None = None
) -> dict[str, Any]:
    event = _base("message", source(user, group, room), event_id)
    event["message"] = {"type": "text", "id": str(next(_counter) + 10_000), "quoteToken": "q", "text": text}
    return event


def postback_event(
    user: str, data: str, *, group: str | None = None, event_id: str | None = None
) -> dict[str, Any]:
    event = _base("postback", source(user, group), event_id)
    event["postback"] = {"data": data}
    return event


def follow_event(user: str, *, event_id: str | None = None) -> dict[str, Any]:
    event = _base("follow", source(user), event_id)
    event["follow"] = {"isUnblocked": False}
    return event


def body(*events: dict[str, Any], destination: str = DESTINATION) -> str:
    return json.dumps({"destination": destination, "events": list(events)}, ensure_ascii=False)


def signed(secret: str, *events: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """``(body bytes, headers)`` ready to POST to ``/callback``."""
    text = body(*events)
    return text.encode("utf-8"), {"content-type": "application/json", "x-line-signature": sign(text, secret)}
