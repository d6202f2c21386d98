"""How a webhook body's events are taken in, by queue mode, before the 200.

``LOCAL_QUEUE=pubsub``: published (``queue.py``), 200 only once every publish is confirmed, else
503. ``LOCAL_QUEUE=inprocess``: a place reserved for each in ``admission`` (503 for the whole body
when the store is known down, the backlog is full or a chat is over its share), then with the
durable inbox (the default) written to it before the 200 (one store write, also the dedupe claim),
and queued on its chat's queue (``dispatcher.py``). Unknown or unwanted events are logged and
ignored (``line/events.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from fastapi.responses import JSONResponse

from local_agent.context.errors import StoreError
from local_agent.line.events import to_inbound
from local_agent.line.inbound import InboundEvent
from local_agent.line.webhook_body import Refused
from local_agent.server.admission import Admission
from local_agent.server.dispatcher import Dispatcher
from local_agent.server.inbox import DurableInbox, InboxItem
from local_agent.server.inbox_turn import InboxTurn
from local_agent.server.queue import PubsubPublisher
from local_agent.server.shutdown import ShutdownClock
from local_agent.stores.guarded import GuardedStore

log = logging.getLogger("local_agent.webhook")


def inbound_events(payload: Any) -> list[InboundEvent]:
    """The payload's events that LOCAL handles; the rest are logged and ignored."""
    destination = payload.destination or "unknown"
    received_at = time.time()
    events: list[InboundEvent] = []
    for sdk_event in payload.events or []:
        try:
            event = to_inbound(sdk_event, destination, received_at)
        except Exception:  # an SDK shape we did not foresee: ignore that event, never 500
            log.warning("event not understood", extra={"code": "EVENT_IGNORED"})
            event = None
        if event is None:
            log.info("event ignored", extra={"event_type": str(getattr(sdk_event, "type", "unknown"))[:40]})
            continue
        events.append(event)
    return events


def admit(events: list[InboundEvent], store: GuardedStore, admission: Admission) -> None:
    """Reserve a place for every event of the body, or refuse the whole body with 503 before
    anything of it is claimed or run: LINE redelivers it later (with webhook redelivery turned on
    in the LINE console, see the deploy guide)."""
    if store.health.state == "unavailable":
        log.warning("store unavailable, asking LINE to redeliver", extra={"events_refused": len(events)})
        raise Refused(503, "store unavailable")
    refused = admission.admit([event.scope.storage_id for event in events])
    if refused is not None:
        log.warning(
            "not accepted, asking LINE to redeliver", extra={"code": refused, "events_refused": len(events)}
        )
        raise Refused(503, refused)


async def into_inbox(
    events: list[InboundEvent], inbox: DurableInbox, admission: Admission
) -> list[InboundEvent]:
    """Write the admitted events to the durable inbox (one store write): the new ones. A store
    that fails → 503 and nothing accepted; duplicates give their places back."""
    try:
        fresh = await inbox.accept(events)
    except StoreError as exc:
        for event in events:
            admission.release(event.scope.storage_id)
        log.warning(
            "inbox not written, asking LINE to redeliver",
            extra={"code": exc.code, "events_refused": len(events)},
        )
        raise Refused(503, "store unavailable") from None
    kept = {id(event) for event in fresh}
    for event in events:
        if id(event) not in kept:
            admission.release(event.scope.storage_id)
    return fresh


def run_live(inbox_turn: InboxTurn) -> Callable[[InboundEvent], Awaitable[None]]:
    async def run(event: InboundEvent) -> None:
        await inbox_turn.run(InboxItem(event))

    return run


def submit(
    events: list[InboundEvent],
    dispatcher: Dispatcher,
    run: Callable[[InboundEvent], Awaitable[None]],
    admission: Admission,
    *,
    durable: bool = False,
) -> JSONResponse:
    """Queue each admitted event on its scope's queue; each holds its place in ``admission`` until
    its turn ends. Once shutdown has begun the rest are refused and their places given back: 503
    (LINE redelivers), or with the inbox (``durable``) 200, as their rows stay for the next start."""
    for i, event in enumerate(events):
        scope = event.scope.storage_id
        if not dispatcher.submit(scope, partial(admission.hold, scope, partial(run, event))):
            for rest in events[i:]:
                admission.release(rest.scope.storage_id)
            if durable:
                return JSONResponse(
                    {"status": "ok", "accepted": len(events), "left_for_next_start": len(events) - i}
                )
            return JSONResponse({"error": "shutting down"}, status_code=503)
    return JSONResponse({"status": "ok", "accepted": len(events)})


async def publish(
    events: list[InboundEvent], publisher: PubsubPublisher, shutdown: ShutdownClock
) -> JSONResponse:
    """200 only once Pub/Sub confirmed every event's message; else 503 and LINE redelivers the
    body (an event whose message did land is then deduplicated by its id when pushed)."""
    if shutdown.signalled_at is not None:
        return JSONResponse({"error": "shutting down"}, status_code=503)
    if events and not await publisher.publish(events):
        return JSONResponse({"error": "not queued"}, status_code=503)
    return JSONResponse({"status": "ok", "accepted": len(events)})
