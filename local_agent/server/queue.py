"""Where an accepted event waits for its turn: the queue seam at the LINE edge (``LOCAL_QUEUE``).

* ``inprocess`` (default): ``/callback`` writes each body's events to the store's durable inbox
  (``inbox.py``), hands them to this process's per-scope dispatcher and answers 200. One instance
  only: a second instance shares no order with it. A crash loses nothing: the next start answers
  the rows left in the inbox.
* ``pubsub``: ``/callback`` publishes one message per event to ``LOCAL_PUBSUB_TOPIC`` with the
  chat's id as ordering key and answers 200 only once every publish is confirmed, within
  ``LOCAL_PUBSUB_PUBLISH_DEADLINE_SECONDS`` (else 503: LINE redelivers the body). Pub/Sub then
  pushes each message, in order per chat, to ``POST /pubsub/push`` (``pubsub_push.py``) on any
  instance, and redelivers it until an instance answers 2xx.

The turn itself does not know which queue brought it: both end in ``EventProcessor``.

A message holds ``encode_event``'s JSON of the parsed event and nothing else: the kind, the scope
(channel, chat type, chat id, user id), the push target, the webhook event id, the reply token and
when it was received, and for a text the text with mentions cut (for a postback its data, for a
media message its kind). Not the raw LINE body: no message ids, quote tokens, emoji or mention
metadata, profile fields or delivery context.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import threading
from collections.abc import Sequence
from typing import Any, get_args

from local_agent.context.canonical import canonical_json
from local_agent.context.errors import ScopeError
from local_agent.context.journal import ScopeKey
from local_agent.line.events import is_id
from local_agent.line.inbound import EventKind, InboundEvent

log = logging.getLogger("local_agent.queue")

MESSAGE_VERSION = 1
MAX_TEXT_CHARS = 10_000  # a LINE text is at most 5,000 characters; anything longer is not ours
_KINDS: tuple[str, ...] = get_args(EventKind)


def ordering_key(event: InboundEvent) -> str:
    """The chat: a person's 1:1 chat, a group or a room. Pub/Sub delivers one key's messages in
    publish order, one at a time."""
    return event.scope.source_id


def encode_event(event: InboundEvent) -> bytes:
    """The message body: what the turn needs, nothing more (see the module docstring)."""
    scope = event.scope
    return canonical_json(
        {
            "v": MESSAGE_VERSION,
            "kind": event.kind,
            "scope": [scope.destination, scope.source_type, scope.source_id, scope.user_id],
            "reply_to": event.reply_to,
            "event_id": event.event_id,
            "reply_token": event.reply_token,
            "received_at": event.received_at,
            "text": event.text,
            "data": event.data,
            "quote_token": event.quote_token,
        }
    ).encode("utf-8")


def _optional_id(value: object) -> bool:
    return value is None or is_id(value)


def _fields_ok(body: dict[str, Any]) -> bool:
    received = body.get("received_at")
    return (
        body.get("v") == MESSAGE_VERSION
        and body.get("kind") in _KINDS
        and is_id(body.get("reply_to"))
        and _optional_id(body.get("event_id"))
        and _optional_id(body.get("reply_token"))
        and _optional_id(body.get("quote_token"))
        and isinstance(received, int | float)
        and not isinstance(received, bool)
        and math.isfinite(received)
        and all(isinstance(body.get(k), str) and len(body[k]) <= MAX_TEXT_CHARS for k in ("text", "data"))
    )


def decode_event(data: bytes) -> InboundEvent | None:
    """The event a message carries, or None when it is not one of ours (checked field by field)."""
    try:
        body = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(body, dict) or not _fields_ok(body):
        return None
    parts = body.get("scope")
    if not isinstance(parts, list) or len(parts) != 4 or not all(is_id(p) for p in parts):
        return None
    try:
        scope = ScopeKey(*parts)
    except ScopeError:
        return None
    return InboundEvent(
        kind=body["kind"],
        scope=scope,
        reply_to=body["reply_to"],
        event_id=body["event_id"],
        reply_token=body["reply_token"],
        received_at=float(body["received_at"]),
        text=body["text"],
        data=body["data"],
        quote_token=body.get("quote_token"),
    )


class QueueStats:
    """Counters for ``/healthz`` (thread-safe): publishes and their failures on the accepting side,
    pushes, redeliveries seen and their outcomes on the working side."""

    FIELDS = (
        "published",
        "publish_failures",
        "pushes",
        "redeliveries",
        "answered",
        "duplicates",
        "held_elsewhere",
        "failed",
        "refused",
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(self.FIELDS, 0)
        self._seen: dict[str, None] = {}  # recent message ids, oldest first

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counts[name] += n

    def saw(self, message_id: str, keep: int = 10_000) -> None:
        """Count a push; one whose message id came before is a redelivery (a backlog or a retry)."""
        with self._lock:
            self._counts["pushes"] += 1
            if message_id in self._seen:
                self._counts["redeliveries"] += 1
                return
            self._seen[message_id] = None
            if len(self._seen) > keep:
                self._seen.pop(next(iter(self._seen)))

    def report(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


class PubsubPublisher:
    """Publishes accepted events, one message each, ordered per chat, confirmed within a deadline.

    The client (google-cloud-pubsub, the ``pubsub`` extra) is built on the first publish; it reads
    ``PUBSUB_EMULATOR_HOST`` from the process environment."""

    def __init__(self, *, project: str, topic: str, deadline: float, stats: QueueStats) -> None:
        self.deadline, self.stats = deadline, stats
        self.topic = f"projects/{project}/topics/{topic}"
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                from google.cloud.pubsub_v1 import PublisherClient, types  # type: ignore[import-untyped]

                options = types.PublisherOptions(
                    enable_message_ordering=True,
                    # One attempt, bounded by our deadline: with message ordering the library turns any
                    # retry it is given into an endless one (deadline 2**32 s, on its commit thread, even
                    # after stop()). A failed publish is answered 503 and LINE redelivers the event.
                    retry=None,
                    timeout=self.deadline,
                )
                batching = types.BatchSettings(max_latency=0.002)
                self._client = PublisherClient(batch_settings=batching, publisher_options=options)
            return self._client

    async def publish(self, events: Sequence[InboundEvent]) -> bool:
        """True once Pub/Sub confirmed every event's message; False if any failed or the deadline
        passed (the caller answers 503; a message that lands late is deduplicated by event id)."""
        futures: list[tuple[str, Any]] = []
        try:
            client = self.client
            for event in events:
                key = ordering_key(event)
                futures.append((key, client.publish(self.topic, encode_event(event), ordering_key=key)))
            async with asyncio.timeout(self.deadline):
                await asyncio.gather(*(asyncio.wrap_future(future) for _, future in futures))
        except Exception as exc:  # no client, a timeout, or a publish failed (any API error)
            for key, future in futures:
                if future.done() and future.exception() is not None:
                    client.resume_publish(self.topic, key)  # the key is paused after a failure
            self.stats.add("publish_failures", len(events))
            log.warning("publish not confirmed, asking LINE to redeliver", extra={"code": type(exc).__name__})
            return False
        self.stats.add("published", len(events))
        return True

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is None:
            return
        try:
            client.stop()
        except Exception:  # an already stopped client
            log.info("publisher stop failed", extra={"code": "PUBLISHER_STOP"})


def use_emulator_host(host: str | None) -> None:
    """The client reads only the process environment; a value from ``.env`` reaches it here (one
    already exported wins)."""
    if host and not os.environ.get("PUBSUB_EMULATOR_HOST"):
        os.environ["PUBSUB_EMULATOR_HOST"] = host


__all__ = [
    "PubsubPublisher",
    "QueueStats",
    "decode_event",
    "encode_event",
    "ordering_key",
    "use_emulator_host",
]
