"""The background loops: the inbox's sweep (renew this process's rows, resume lapsed ones, once at
start before ready and then every third of the lease) and the hourly retention purge.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial

from local_agent.context.errors import StoreError
from local_agent.server.admission import Admission
from local_agent.server.dispatcher import Dispatcher
from local_agent.server.inbox import DurableInbox
from local_agent.server.inbox_turn import InboxTurn
from local_agent.stores.ports import Store

log = logging.getLogger("local_agent.webhook")
PURGE_INTERVAL_SECONDS = 3600.0


async def sweep(
    inbox: DurableInbox, inbox_turn: InboxTurn, dispatcher: Dispatcher, admission: Admission
) -> int:
    """Renew this process's inbox rows and take over the lapsed ones (a previous process's): each
    is queued on its chat's queue, oldest first, holding a place in ``admission`` (never refused:
    it was accepted before). ``StoreError`` when the store cannot be reached."""
    items = await inbox.sweep(admission.room())
    for item in items:
        scope = item.event.scope.storage_id
        admission.admit([scope], force=True)
        if not dispatcher.submit(scope, partial(admission.hold, scope, partial(inbox_turn.run, item))):
            admission.release(scope)
            inbox.left(item.event)
    if items:
        log.info(
            "inbox rows resumed", extra={"events_resumed": len(items), "inbox_pending": inbox.stats.pending}
        )
    return len(items)


async def resume_at_start(
    inbox: DurableInbox, inbox_turn: InboxTurn, dispatcher: Dispatcher, admission: Admission
) -> None:
    try:
        await sweep(inbox, inbox_turn, dispatcher, admission)
    except StoreError as exc:
        log.warning("inbox resume failed at start; serving new events, retrying", extra={"code": exc.code})


async def sweep_periodically(
    inbox: DurableInbox, inbox_turn: InboxTurn, dispatcher: Dispatcher, admission: Admission
) -> None:
    while True:
        await asyncio.sleep(inbox.sweep_interval)
        try:
            await sweep(inbox, inbox_turn, dispatcher, admission)
        except StoreError as exc:
            log.warning("inbox sweep failed, retrying", extra={"code": exc.code})


async def purge_periodically(store: Store, clock: Callable[[], float]) -> None:
    """Retention: drop expired journal windows, dedupe records, and audit rows and snapshots
    past 30 days, at start and then hourly (Firestore does this with TTL policies)."""
    while True:
        try:
            counts = await asyncio.to_thread(store.purge_expired, clock())
            log.info("retention purge", extra={"rows_purged": sum(counts.values())})
        except StoreError as exc:
            log.warning("retention purge failed", extra={"code": exc.code})
        await asyncio.sleep(PURGE_INTERVAL_SECONDS)
