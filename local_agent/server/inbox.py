"""The durable inbox (``LOCAL_QUEUE=inprocess``): every accepted event is a store row until it is
answered, so a crash, an OOM kill or a drain cut short loses nothing.

* ``/callback`` writes a body's new events in one store write (``InboxStore.inbox_accept``, which
  is also the dedupe claim) before it answers 200; a store that fails there → 503 (LINE redelivers).
* A row holds the event sealed (``InboxSeal``: AES-256-GCM under a key derived from the channel
  secret, the event id as associated data), the chat's storage id (a hash) and the time it came:
  never the message text in clear. It is deleted once the turn is answered.
* This process holds its rows under a lease (``LOCAL_EVENT_LEASE_SECONDS``), renewed every
  ``sweep_interval``; the same sweep takes over rows whose lease lapsed: a previous process's
  (killed) or this one's released at SIGTERM, oldest first, and hands them to the dispatcher in
  order per chat. At start it runs once before the process reports ready.
* A resumed event is answered like a live one, except: older than ``AGE_LIMIT_SECONDS`` → only the
  apology that names its time (no stale search); a reply token past LINE's validity → by push with
  the event's retry key, opened by the apology (「抱歉晚回覆您 10:42 的訊息：」, never the user's
  words), at most ``RESUME_PUSHES_PER_SECOND``.
* A turn whose reply LINE did not take (unreachable, 5xx, 429 after the gateway's retries) keeps
  its sealed reply in the row (``inbox_park``); a sweep pushes it again after ``RETRY_SECONDS``,
  until the age limit. A row claimed ``MAX_ATTEMPTS`` times (a turn that kills the process each
  time) is given up, with a log line.
* A row that cannot be opened (a new channel secret, or damaged) is deleted with a log line and
  counted; an event of a chat that unfollowed after it came is dropped, not answered.

``InboxStats`` counts what happened, for the logs and ``/healthz``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from linebot.v3.messaging import Message

from local_agent.context.errors import StoreError
from local_agent.fingerprint import derive_key
from local_agent.line.inbound import InboundEvent
from local_agent.listings.dates import TAIPEI
from local_agent.server.queue import decode_event, encode_event
from local_agent.stores.guarded import GuardedStore
from local_agent.stores.ports import InboxEntry, InboxRow

log = logging.getLogger("local_agent.inbox")

AGE_LIMIT_SECONDS = 900.0  # older: answered with the apology only (docs/design.md, "staying up")
RESUME_PUSHES_PER_SECOND = 20.0  # pushes of resumed answers, per process
RETRY_SECONDS = 30.0  # a parked reply is pushed again this long after LINE refused it
MAX_ATTEMPTS = 3  # claims of one row before it is given up
CLAIM_BATCH = 200  # rows per claim
_MAGIC = b"LI1"
_KID_BYTES = 4
_NONCE_BYTES = 12

Unreadable = Literal["key_changed", "corrupt"]


class InboxUnreadable(Exception):
    """A row that cannot be opened: sealed under another key (``key_changed``) or damaged."""

    def __init__(self, reason: Unreadable) -> None:
        super().__init__(reason)
        self.reason: Unreadable = reason


class InboxSeal:
    """AES-256-GCM under a key derived from the channel secret (``fingerprint.derive_key``); a
    short key id in front tells a changed secret from a damaged row."""

    def __init__(self, channel_secret: str) -> None:
        self._aead = AESGCM(derive_key(channel_secret, "local/inbox/v1"))
        self.kid = derive_key(channel_secret, "local/inbox/kid")[:_KID_BYTES]

    def seal(self, event_id: str, payload: bytes, purpose: str = "event") -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        aad = f"{purpose}/{event_id}".encode()
        return _MAGIC + self.kid + nonce + self._aead.encrypt(nonce, payload, aad)

    def open(self, event_id: str, sealed: bytes, purpose: str = "event") -> bytes:
        head = len(_MAGIC) + _KID_BYTES + _NONCE_BYTES
        if len(sealed) <= head or not sealed.startswith(_MAGIC):
            raise InboxUnreadable("corrupt")
        if sealed[len(_MAGIC) : len(_MAGIC) + _KID_BYTES] != self.kid:
            raise InboxUnreadable("key_changed")
        nonce = sealed[head - _NONCE_BYTES : head]
        try:
            return self._aead.decrypt(nonce, sealed[head:], f"{purpose}/{event_id}".encode())
        except InvalidTag:
            raise InboxUnreadable("corrupt") from None


def apology(received_at: float) -> str:
    """The opening of an answer sent late: the time (Taiwan) of the message it answers."""
    return f"抱歉晚回覆您 {datetime.fromtimestamp(received_at, TAIPEI):%H:%M} 的訊息："


TOO_LATE = "服務剛才中斷了一陣子，請您再傳一次想找的，我馬上幫您查。"


def too_late_text(received_at: float) -> str:
    """The whole answer to an event older than the age limit (no stale search): the apology,
    then ``TOO_LATE``."""
    return apology(received_at) + TOO_LATE


@dataclass
class InboxStats:
    """What became of accepted events (thread-safe counters)."""

    accepted: int = 0
    duplicates: int = 0
    answered: int = 0
    answered_after_restart: int = 0
    failed_to_deliver: int = 0
    delivered_on_retry: int = 0
    given_up: int = 0
    dropped: int = 0
    handed_back: int = 0
    handed_over: int = 0
    already_answered: int = 0
    taken_over: int = 0
    pending: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    def report(self) -> dict[str, int]:
        with self._lock:
            return {k: v for k, v in vars(self).items() if not k.startswith("_")}


@dataclass(frozen=True)
class InboxItem:
    """One event to answer: live (just accepted) or resumed from the inbox, with the sealed
    reply's messages when a turn already ran and only its delivery is left."""

    event: InboundEvent
    resumed: bool = False
    parked: tuple[Message, ...] | None = None


class InFlight:
    """The event ids queued or running in this process, shared by the webhook's loop (which adds
    what it accepts) and the turn loop (which removes what it finished), behind one lock.

    A sweep claims rows, then opens them: an event finished on the turn loop between the two (its
    row claimed again because a renewal failed, then deleted by its turn) must not be queued a
    second time. So each finish is stamped with a counter, and ``take`` refuses an id finished
    after the sweep's ``mark``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: set[str] = set()
        self._finished: dict[str, int] = {}  # id -> stamp of its finish, pruned at each mark
        self._stamp = 0

    def add(self, ids: Iterable[str]) -> None:
        with self._lock:
            self._ids.update(ids)

    def discard(self, event_id: str) -> None:
        with self._lock:
            if event_id in self._ids:
                self._ids.discard(event_id)
                self._stamp += 1
                self._finished[event_id] = self._stamp

    def mark(self) -> int:
        """Before a claim: the stamp a later ``take`` compares with (older finishes are forgotten)."""
        with self._lock:
            self._finished = {i: s for i, s in self._finished.items() if s > self._stamp - 10_000}
            return self._stamp

    def take(self, event_id: str, mark: int) -> bool:
        """Hold a claimed row's event here unless it is already queued or finished since ``mark``."""
        with self._lock:
            if event_id in self._ids or self._finished.get(event_id, -1) > mark:
                return False
            self._ids.add(event_id)
            return True

    def __contains__(self, event_id: object) -> bool:
        with self._lock:
            return event_id in self._ids

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids)


@dataclass
class DurableInbox:
    store: GuardedStore
    seal: InboxSeal
    lease: float
    clock: Callable[[], float] = time.time
    holder: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    retry_seconds: float = RETRY_SECONDS
    stats: InboxStats = field(default_factory=InboxStats)
    in_flight: InFlight = field(default_factory=InFlight)  # event ids queued or running here
    undeleted: set[str] = field(default_factory=set)  # answered here, deletion not confirmed (turn loop)
    unfollowed: dict[str, float] = field(default_factory=dict)  # chat -> when it unfollowed

    @property
    def sweep_interval(self) -> float:
        return max(0.2, min(5.0, self.lease / 3))

    # -- the webhook's side ----------------------------------------------------------------
    async def accept(self, events: Sequence[InboundEvent]) -> list[InboundEvent]:
        """Write the body's events (one store write); the new ones, in order. ``StoreError``: none
        was accepted. Events without an id (LINE always sends one) are accepted as they are."""
        keyed = list({e.event_id: e for e in events if e.event_id}.values())  # one per id
        entries = [
            InboxEntry(
                e.event_id or "",
                e.scope.storage_id,
                e.received_at,
                i,
                self.seal.seal(e.event_id or "", encode_event(e)),
            )
            for i, e in enumerate(keyed)
        ]
        fresh = await asyncio.to_thread(
            self.store.inbox_accept, entries, holder=self.holder, now=self.clock(), lease=self.lease
        )
        new_ids = {entry.event_id for entry, is_new in zip(entries, fresh, strict=True) if is_new}
        accepted: list[InboundEvent] = []
        for event in events:  # in the body's order, each id once
            if not event.event_id:
                accepted.append(event)
            elif event.event_id in new_ids:
                new_ids.discard(event.event_id)
                accepted.append(event)
        self.in_flight.add(e.event_id for e in accepted if e.event_id)
        self.stats.add(accepted=len(accepted), duplicates=len(events) - len(accepted))
        if len(accepted) < len(events):
            log.info("duplicate event dropped", extra={"events_dropped": len(events) - len(accepted)})
        return accepted

    # -- the turn's side ---------------------------------------------------------------------
    async def done(self, event: InboundEvent) -> None:
        """Delete the answered event's row (a failed delete is retried by the next sweep). A row
        another process took over meanwhile (this one's lease lapsed) is left to it, logged."""
        if not event.event_id:
            return
        try:
            mine = await asyncio.to_thread(self.store.inbox_done, event.event_id, holder=self.holder)
        except StoreError as exc:
            self.undeleted.add(event.event_id)
            log.warning("inbox row not deleted yet", extra={"code": exc.code})
        else:
            if not mine:
                self.stats.add(taken_over=1)
                log.warning(
                    "answered row was taken over by another process", extra={"code": "INBOX_TAKEN_OVER"}
                )
        self.in_flight.discard(event.event_id)

    async def hand_back(self, event: InboundEvent) -> None:
        """A turn that failed without sending anything (not a LINE refusal): its row is nobody's
        again, for a sweep to try after ``retry_seconds`` (at most ``MAX_ATTEMPTS`` claims)."""
        if not event.event_id:
            return
        try:
            await asyncio.to_thread(
                self.store.inbox_hand_back,
                event.event_id,
                holder=self.holder,
                retry_at=self.clock() + self.retry_seconds,
            )
        except StoreError as exc:
            log.warning("failed row not handed back; its lease lapses", extra={"code": exc.code})
        self.stats.add(handed_back=1)
        self.in_flight.discard(event.event_id)

    async def park(self, event: InboundEvent, messages: Sequence[Message]) -> bool:
        """Keep the reply LINE did not take, for a push after ``RETRY_SECONDS``."""
        if not event.event_id:
            return False
        payload = json.dumps([m.to_dict() for m in messages], ensure_ascii=False).encode("utf-8")
        sealed = self.seal.seal(event.event_id, payload, "reply")
        try:
            parked = await asyncio.to_thread(
                self.store.inbox_park,
                event.event_id,
                holder=self.holder,
                reply=sealed,
                retry_at=self.clock() + self.retry_seconds,
            )
        except StoreError as exc:
            log.warning("undelivered reply not kept", extra={"code": exc.code})
            parked = False
        self.in_flight.discard(event.event_id)
        return parked

    def left(self, event: InboundEvent, *, handed_over: bool = False) -> None:
        """The event was not finished here (shutdown): its row stays for the next owner (released
        at exit). ``handed_over``: counted as such (a stop that did not answer it)."""
        if handed_over:
            self.stats.add(handed_over=1)
        if event.event_id:
            self.in_flight.discard(event.event_id)

    def forget_chat(self, chat: str, at: float) -> None:
        self.unfollowed[chat] = max(at, self.unfollowed.get(chat, 0.0))

    def unfollowed_after(self, event: InboundEvent) -> bool:
        """Whether the event's chat unfollowed after the event came (it is then dropped)."""
        at = self.unfollowed.get(event.scope.storage_id)
        return at is not None and event.kind != "unfollow" and at > event.received_at

    async def drop_chat(self, chat: str, before: float) -> int:
        try:
            dropped = await asyncio.to_thread(self.store.inbox_drop_chat, chat, before=before)
        except StoreError as exc:
            log.warning("unfollowed chat's inbox rows not dropped", extra={"code": exc.code})
            return 0
        self.stats.add(dropped=dropped)
        return dropped

    # -- the sweep ---------------------------------------------------------------------------
    async def sweep(self, room: int) -> list[InboxItem]:
        """Renew this process's rows, retry unconfirmed deletions, then take over at most ``room``
        lapsed rows: the items to run, in order (opened; unreadable rows deleted and counted).
        ``StoreError`` when the store cannot be reached (the caller retries later)."""
        now = self.clock()
        await asyncio.to_thread(self.store.inbox_renew, holder=self.holder, now=now, lease=self.lease)
        for event_id in list(self.undeleted):
            await asyncio.to_thread(self.store.inbox_done, event_id, holder=self.holder)
            self.undeleted.discard(event_id)
        mark = self.in_flight.mark()
        rows = await asyncio.to_thread(
            self.store.inbox_claim,
            holder=self.holder,
            now=now,
            lease=self.lease,
            limit=min(room, CLAIM_BATCH),
        )
        items = [item for row in rows if (item := await self._open(row, mark)) is not None]
        self.stats.pending = await asyncio.to_thread(self.store.inbox_pending)
        return items

    async def _open(self, row: InboxRow, mark: int) -> InboxItem | None:
        event_id = row.entry.event_id
        if not self.in_flight.take(event_id, mark):  # queued here, or finished since the claim began
            return None
        try:
            event = decode_event(self.seal.open(event_id, row.entry.sealed))
            if event is None:
                raise InboxUnreadable("corrupt")
            parked = self._parked(event_id, row.reply) if row.reply else None
        except InboxUnreadable as exc:
            log.warning("inbox row unreadable, dropped", extra={"code": f"INBOX_{exc.reason.upper()}"})
            await self._drop(event_id, dropped=1)
            return None
        if row.attempts > MAX_ATTEMPTS:
            log.error("inbox row given up after repeated attempts", extra={"attempts": row.attempts})
            await self._drop(event_id, given_up=1)
            return None
        return InboxItem(event, resumed=True, parked=parked)

    def _parked(self, event_id: str, reply: bytes) -> tuple[Message, ...]:
        try:
            data = json.loads(self.seal.open(event_id, reply, "reply").decode("utf-8"))
            return tuple(Message.from_dict(m) for m in data)
        except (ValueError, TypeError, AttributeError):
            raise InboxUnreadable("corrupt") from None

    async def _drop(self, event_id: str, **counts: int) -> None:
        self.stats.add(**counts)
        try:
            await asyncio.to_thread(self.store.inbox_done, event_id, holder=self.holder)
        except StoreError:
            self.undeleted.add(event_id)
        self.in_flight.discard(event_id)

    def release(self) -> int:
        """At shutdown (blocking, bounded by the store's deadline): hand this process's unfinished
        rows to the next start at once."""
        try:
            return self.store.inbox_release(holder=self.holder)
        except StoreError as exc:
            log.warning("inbox rows not released; they lapse on their own", extra={"code": exc.code})
            return 0

    def report(self) -> dict[str, Any]:
        return self.stats.report()
