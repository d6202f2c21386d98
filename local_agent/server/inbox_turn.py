"""One inbox item from its turn to its deleted row (``LOCAL_QUEUE=inprocess``): the turn, the reply
(opened by the apology when it goes out late), then the row deleted, or its reply parked for a
push once LINE answers again. See ``inbox.py`` for the inbox itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from linebot.v3.messaging import Message, TextMessage

from local_agent.agent.adk_router import TurnOutcome
from local_agent.line.client import LineDeliveryError
from local_agent.line.inbound import InboundEvent
from local_agent.line.messages import to_line_messages
from local_agent.replies.render import POLITE_FAILURE
from local_agent.replies.reply import Reply
from local_agent.server.inbox import (
    AGE_LIMIT_SECONDS,
    RESUME_PUSHES_PER_SECOND,
    TOO_LATE,
    DurableInbox,
    InboxItem,
    apology,
)
from local_agent.server.processor import INTERNAL_ERROR, EventProcessor, log_turn_done

log = logging.getLogger("local_agent.inbox")

MAX_MESSAGES = 5  # LINE takes at most five messages per reply or push
QUOTED_APOLOGY = "抱歉晚回覆了："  # the opening of a late answer that quotes the message it answers


class PushPacer:
    """At most ``rate`` late answers per second leave this process (LINE's rate limits)."""

    def __init__(self, rate: float = RESUME_PUSHES_PER_SECOND) -> None:
        self.interval = 1.0 / rate
        self._next = 0.0

    async def wait(self) -> None:
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


def with_apology(messages: Sequence[Message], received_at: float, quote: str | None = None) -> list[Message]:
    """The messages opened by a short apology. With the ``quoteToken`` LINE gave the message they
    answer, the first text quotes it (LINE shows that message above the answer) and the apology
    is 「抱歉晚回覆了：」; without one the apology names the message's time instead."""
    opening = QUOTED_APOLOGY if quote else apology(received_at)
    quoted = {"quoteToken": quote} if quote else {}
    first = messages[0] if messages else None
    if isinstance(first, TextMessage):
        opened = TextMessage.from_dict({**first.to_dict(), "text": opening + first.text, **quoted})
        return [opened, *messages[1:]]
    if len(messages) < MAX_MESSAGES:
        return [TextMessage.from_dict({"type": "text", "text": opening.rstrip("："), **quoted}), *messages]
    return list(messages)


@dataclass
class InboxTurn:
    processor: EventProcessor
    inbox: DurableInbox
    pacer: PushPacer = field(default_factory=PushPacer)

    async def run(self, item: InboxItem) -> None:
        event = item.event
        if self.inbox.unfollowed_after(event):
            log.info("event of an unfollowed chat dropped", extra={"event_kind": event.kind})
            self.inbox.stats.add(dropped=1)
            await self.inbox.done(event)
            return
        if self.processor.gateway.wire.stopping:  # a stop starts no turn: the row goes to the next owner
            self.inbox.left(event, handed_over=True)
            return
        started = time.perf_counter()
        try:
            messages, code, failure = await self._answer(item)
            await self._deliver(item, messages, code, started)
        except asyncio.CancelledError:  # the drain's deadline, nothing on the wire: the row stays
            self.inbox.left(event, handed_over=True)
            raise
        except Exception:  # not a LINE refusal (a bug): retried later, not renewed until a restart
            await self.inbox.hand_back(event)
            raise
        if failure is not None:
            raise failure  # the dispatcher logs and counts it (the apology went out)

    async def _answer(self, item: InboxItem) -> tuple[list[Message], str | None, Exception | None]:
        """(messages to send, error code, the exception a failed turn raised)."""
        event = item.event
        if item.parked is not None:
            return list(item.parked), None, None
        if item.resumed and event.kind != "unfollow" and self._age(event) > AGE_LIMIT_SECONDS:
            return to_line_messages(Reply(texts=(TOO_LATE,))), "INBOX_TOO_OLD", None
        failure: Exception | None = None
        try:
            outcome = await asyncio.wait_for(self.processor.turn(event), self.processor.turn_timeout)
        except Exception as exc:  # a bug or a hung turn: the user still gets an apology
            outcome, failure = TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=INTERNAL_ERROR), exc
        if event.kind == "unfollow":
            chat = event.scope.storage_id
            self.inbox.forget_chat(chat, event.received_at)
            await self.inbox.drop_chat(chat, event.received_at)
            return [], None, failure
        if outcome is None:
            return [], None, failure
        if failure is None:
            self.processor.notify(event, outcome)
        return to_line_messages(outcome.reply), outcome.error_code, failure

    @staticmethod
    def _age(event: InboundEvent) -> float:
        """Seconds since the event came, on the wall clock its ``received_at`` was read from (the
        gateway judges a reply token's age on the same clock)."""
        return time.time() - event.received_at

    async def _deliver(
        self, item: InboxItem, messages: list[Message], code: str | None, started: float
    ) -> None:
        event = item.event
        if not messages or event.kind == "unfollow":
            self.inbox.stats.add(answered=1)
            await self.processor.record(event, "none")
            await self.inbox.done(event)
            return
        if item.parked is not None:  # a retry goes by push, with the event's retry key
            event = dataclasses.replace(event, reply_token=None)
        late = self._age(event) >= self.processor.gateway.reply_token_max_age
        if late:
            await self.pacer.wait()
        sent = messages
        if late or item.resumed:  # a late, resumed or handed-over answer quotes what it answers
            sent = with_apology(messages, event.received_at, event.quote_token)
        with self.processor.gateway.wire.carry():  # the call and the row's deletion: one step
            try:
                how = await self.processor.send(event, sent, resumed=item.resumed)
            except LineDeliveryError as exc:
                await self._undelivered(event, messages, exc, retry=item.parked is not None)
                return
            self.inbox.stats.add(
                answered=int(how != "already"),
                already_answered=int(how == "already"),
                answered_after_restart=int(item.resumed and item.parked is None and how != "already"),
                delivered_on_retry=int(item.parked is not None),
            )
            await self.inbox.done(event)
            await self.processor.record(
                event, "late" if late or how == "push" else "reply", retry=item.parked is not None
            )
        if how is not None:
            log_turn_done(event, how, code, started)

    async def _undelivered(
        self, event: InboundEvent, messages: list[Message], exc: LineDeliveryError, *, retry: bool = False
    ) -> None:
        """LINE did not take the reply: keep it for a later push while that can still help. During
        a stop the row goes to the next owner as it is (it decides by the reply token, which an
        attempt that may have reached LINE has used)."""
        if exc.reason == "stopped" or (exc.retryable and self.processor.gateway.wire.stopping):
            self.inbox.left(event, handed_over=True)
            return
        self.inbox.stats.add(failed_to_deliver=1)
        if exc.retryable and self._age(event) < AGE_LIMIT_SECONDS and await self.inbox.park(event, messages):
            log.warning(
                "reply not delivered, kept for a retry by push",
                extra={"http_status": exc.status, "code": exc.code},
            )
            await self.processor.record(event, "failed", retry=retry)
            return
        log.warning("reply not delivered, given up", extra={"http_status": exc.status, "code": exc.code})
        self.inbox.stats.add(given_up=1)
        await self.processor.record(event, "lost", retry=retry)
        await self.inbox.done(event)
