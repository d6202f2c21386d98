"""The background half of the webhook: one inbound event from dedupe to delivered reply.

``EventProcessor`` is built in the app's lifespan with its collaborators (the turn service, the
LINE gateway, the store, the clock) and handed to the dispatcher one event at a time. Per event,
both inside ``turn_timeout``: drop duplicates by ``webhookEventId`` (store-backed, so it holds
across restarts) and run the turn; then tell the observers, and reply with the reply token or fall
back to push with an ``X-Line-Retry-Key``. A store that fails or times out at the dedupe claim
answers the polite apology at once (no turn runs, no context is written): the event was already
acknowledged, so LINE will not redeliver it. A turn that fails unexpectedly or times out still
answers with a polite apology, then re-raises so the dispatcher logs and counts it.

The turn by kind: ``follow`` → the help text, ``join`` → one short introduction, ``unfollow`` →
forget the person and answer nothing, ``postback`` → the commands (consent tokens, forget
buttons), ``text`` → the service. Group chatter never gets here: ``line/events.py`` drops it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from linebot.v3.messaging import Message

from local_agent.agent.adk_router import TurnOutcome
from local_agent.context.errors import StoreError
from local_agent.line.client import Delivery, LineDeliveryError, LineGateway, new_retry_key, retry_key_for
from local_agent.line.inbound import InboundEvent
from local_agent.line.messages import to_line_messages
from local_agent.replies.render import POLITE_FAILURE
from local_agent.replies.reply import Reply

if TYPE_CHECKING:
    from local_agent.stores.ports import Store
    from local_agent.stores.usage import DeliveryCode
    from local_agent.turns.service import LocalService
    from local_agent.turns.usage import UsageRecorder

log = logging.getLogger("local_agent.webhook")

TURN_TIMEOUT_SECONDS = 60.0  # a turn still running after this is abandoned with an apology
INTERNAL_ERROR = "INTERNAL_ERROR"


Observer = Callable[[InboundEvent, TurnOutcome], None]


class EventProcessor:
    """Turn, deliver and process one inbound event.

    ``observers`` is shared with the app (``app.state.observers``): each is called with the event
    and its outcome before delivery; one that raises is logged and skipped. ``turn_timeout`` bounds
    one turn (commands, model, tools; not the LINE delivery, which the gateway bounds) and may be
    changed while the app runs."""

    def __init__(
        self,
        *,
        service: LocalService,
        gateway: LineGateway,
        store: Store,
        clock: Callable[[], float],
        observers: list[Observer],
        turn_timeout: float = TURN_TIMEOUT_SECONDS,
        usage: UsageRecorder | None = None,
    ) -> None:
        self.service = service
        self.gateway = gateway
        self.store = store
        self.clock = clock
        self.observers = observers
        self.turn_timeout = turn_timeout
        self.usage = usage  # the report's row per turn (``turns/usage.py``); None records nothing

    async def process(self, event: InboundEvent) -> None:
        started = time.perf_counter()
        try:
            outcome = await asyncio.wait_for(self._claim_then_turn(event), self.turn_timeout)
        except Exception:
            # A bug or a hung turn, not a handled failure: the user still gets an apology; the
            # dispatcher logs the exception (class name only) and counts it.
            apology = TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=INTERNAL_ERROR)
            await self.deliver(event, apology, started)
            raise
        if outcome is None:
            return
        self.notify(event, outcome)
        await self.deliver(event, outcome, started)

    async def _claim_then_turn(self, event: InboundEvent) -> TurnOutcome | None:
        """The dedupe claim, then the turn (None for a duplicate). A store that fails or times out
        at the claim answers the apology (no context is written)."""
        if event.event_id:
            try:
                first = await asyncio.to_thread(self.store.claim_event, event.event_id, now=self.clock())
            except StoreError as exc:
                log.warning("dedupe unavailable", extra={"code": exc.code})
                if event.kind == "unfollow":  # forgetting twice is harmless; there is no one to tell
                    return await self.turn(event)
                return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
            if not first:
                log.info("duplicate event dropped", extra={"event_kind": event.kind})
                return None
        return await self.turn(event)

    def notify(self, event: InboundEvent, outcome: TurnOutcome) -> None:
        if self.usage is not None:
            self.usage.observe(event, outcome)
        for observer in list(self.observers):
            try:
                observer(event, outcome)
            except Exception:
                log.exception("observer failed", extra={"code": "OBSERVER_FAILED"})

    async def turn(self, event: InboundEvent) -> TurnOutcome | None:
        if event.kind == "follow":
            return self.service.greeting()
        if event.kind == "join":
            return self.service.introduction()
        if event.kind == "unfollow":  # no reply token; forget the person, answer nothing
            await self.service.unfollow(event.scope)
            if self.usage is not None:
                await self.usage.unfollowed(event)
            return None
        if event.kind == "media":
            return self.service.media_reply(event.data)
        if event.kind == "postback":
            outcome = await self.service.handle_postback(event.scope, event.data, turn_id=event.event_id)
            if outcome is None:
                log.info("postback not ours ignored", extra={"event_kind": "postback"})
            return outcome
        if event.scope.source_type == "user":  # LINE shows the loading animation in 1:1 chats only
            try:
                await self.gateway.show_loading(event.scope.user_id)
            except LineDeliveryError as exc:
                log.info("loading animation not shown", extra={"http_status": exc.status})
        return await self.service.handle_text(event.scope, event.text, turn_id=event.event_id)

    async def deliver(self, event: InboundEvent, outcome: TurnOutcome, started: float) -> bool:
        """Reply (or push once the token expired). True when LINE accepted it or there was
        nothing to send; False when LINE refused it (logged)."""
        try:
            how = await self.send(event, to_line_messages(outcome.reply))
        except LineDeliveryError as exc:
            log.warning("reply not delivered", extra={"http_status": exc.status, "code": exc.code})
            await self.record(event, "lost")
            return False
        await self.record(event, "none" if how is None else "late" if how == "push" else "reply")
        if how is not None:
            log_turn_done(event, how, outcome.error_code, started)
        return True

    async def record(self, event: InboundEvent, delivery: DeliveryCode, *, retry: bool = False) -> None:
        if self.usage is not None:
            await self.usage.delivered(event, delivery, retry=retry)

    async def send(
        self, event: InboundEvent, messages: Sequence[Message], *, resumed: bool = False
    ) -> Delivery | None:
        """Reply, or push with the event's retry key once the token expired; None when there was
        nothing to send. ``LineDeliveryError`` when LINE did not take it. The task is on the wire
        meanwhile (``wire.py``: a stop's drain does not cancel it); ``resumed``: see
        ``LineGateway.deliver``."""
        if not messages or event.kind == "unfollow":  # whoever unfollowed (or blocked) hears nothing
            return None
        retry_key = retry_key_for(event.event_id) if event.event_id else new_retry_key()
        with self.gateway.wire.carry():
            return await self.gateway.deliver(
                event.reply_token,
                event.reply_to,
                messages,
                retry_key,
                token_received_at=event.received_at,
                resumed=resumed,
            )


def log_turn_done(event: InboundEvent, how: Delivery, code: str | None, started: float) -> None:
    log.info(
        "turn done",
        extra={
            "event_kind": event.kind,
            "source_type": event.scope.source_type,
            "delivery": how,
            "code": code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )


__all__ = ["INTERNAL_ERROR", "TURN_TIMEOUT_SECONDS", "EventProcessor", "Observer", "log_turn_done"]
