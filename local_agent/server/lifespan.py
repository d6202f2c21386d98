"""The app's lifespan. Start: logging, the service (store, router), the warm-up turns, admission,
the SIGTERM clock, the turn side, the processor, the queue mode, the purge and the inbox's resume
(before ready: resumed rows queue ahead of new events), then the heap frozen. Stop: the loops
cancelled, the turn side drained (``turn_side.py``, ``line/wire.py``: a LINE call on the wire is
never cancelled), the queue stopped, the inbox's unfinished rows handed to the next start, the
exact accounting line, the store closed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial

from fastapi import FastAPI
from google.adk.models.base_llm import BaseLlm

from local_agent.context.session_budget import Measure
from local_agent.line.wire import CALL_SECONDS, Wire
from local_agent.logs import configure_logging
from local_agent.server.admission import Admission
from local_agent.server.health import probe_store
from local_agent.server.inbox import DurableInbox, InboxSeal
from local_agent.server.inbox_turn import InboxTurn
from local_agent.server.processor import EventProcessor
from local_agent.server.pubsub_mode import start_queue, stop_queue
from local_agent.server.pubsub_push import PushEndpoint
from local_agent.server.shutdown import ShutdownClock
from local_agent.server.sweeps import purge_periodically, resume_at_start, sweep_periodically
from local_agent.server.turn_side import TurnSide
from local_agent.settings import Settings
from local_agent.stores.guarded import GuardedStore
from local_agent.stores.ports import Store
from local_agent.turns.usage import UsageRecorder
from local_agent.wiring import Wiring, build_service, warm_up

log = logging.getLogger("local_agent.webhook")
CLOUD_RUN_GRACE_SECONDS = 10.0  # Cloud Run's time from SIGTERM to SIGKILL


@dataclass(frozen=True)
class Lifespan:
    """Start: logging, the service (store, router), the turn side, the processor and the purge.
    Stop: the purge, then the turn side (drains accepted turns), then the store we opened."""

    settings: Settings
    clock: Callable[[], float]
    store: Store | None
    model: BaseLlm | None
    measure: Measure | None
    configure_logs: bool
    turn_timeout: float

    @asynccontextmanager
    async def __call__(self, app: FastAPI) -> AsyncIterator[None]:
        settings = self.settings
        if self.configure_logs:
            configure_logging(settings.local_log_level)
        warn_if_exit_outlasts_grace(settings)
        wiring = await asyncio.to_thread(
            build_service,
            settings,
            clock=self.clock,
            store=self.store,
            model=self.model,
            measure=self.measure,
        )
        warmed = await warm_up(settings, clock=self.clock, listings=wiring.pipeline.listings)
        durable = settings.local_queue == "inprocess" and settings.local_inbox
        admission = make_admission(settings, durable)
        endpoint: PushEndpoint | None = app.state.push_endpoint
        wire = Wire()
        shutdown = ShutdownClock(
            partial(refuse_new_work, admission, endpoint, wire, settings.local_drain_seconds)
        )
        shutdown.install()
        app.state.admission, app.state.shutdown = admission, shutdown
        side = await TurnSide.open(settings, wire)
        app.state.wiring, app.state.gateway, app.state.dispatcher = wiring, side.gateway, side.dispatcher
        app.state.processor = EventProcessor(
            service=wiring.service,
            gateway=side.gateway,
            store=wiring.store,
            clock=self.clock,
            observers=app.state.observers,
            turn_timeout=self.turn_timeout,
            usage=UsageRecorder(wiring.store, self.clock),
        )
        leased = start_queue(app, settings, side, self.clock)
        tasks = [
            asyncio.create_task(purge_periodically(wiring.store, self.clock)),
            asyncio.create_task(probe_store(wiring.store)),
        ]
        inbox = open_inbox(app, settings, wiring, self.clock) if durable else None
        if inbox is not None:
            sweep_args = (inbox, app.state.inbox_turn, side.dispatcher, admission)
            await resume_at_start(*sweep_args)  # before ready: resumed rows queue ahead of new events
            tasks.append(asyncio.create_task(sweep_periodically(*sweep_args)))
        frozen = freeze_startup_heap()
        log_started(settings, wiring, frozen, warmed)
        try:
            yield
        finally:
            shutdown.begin()  # SIGTERM usually started it already; a lifespan exit without one, here
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await side.close(shutdown.remaining(settings.local_drain_seconds))
            stop_queue(app.state.publisher, leased)
            self._finish(shutdown, admission, inbox, wiring.store, side.dispatcher.completed)

    def _finish(
        self,
        shutdown: ShutdownClock,
        admission: Admission,
        inbox: DurableInbox | None,
        store: GuardedStore,
        completed: int,
    ) -> None:
        """After the drain: hand back the inbox's unfinished rows, account, close the store."""
        shutdown.uninstall()
        released = inbox.release() if inbox is not None else 0
        account(admission, inbox, released)
        self._close_store(store)
        gc.unfreeze()  # last: the drain above still runs without full collections
        log.info("service stopped", extra={"turns_completed": completed})

    def _close_store(self, store: GuardedStore) -> None:
        if self.store is None:  # a store passed in belongs to the caller
            store.close()
        elif store is not self.store:  # only its guard is ours: free the guard's threads
            store.pool.shutdown()


def make_admission(settings: Settings, durable: bool) -> Admission:
    """Without the inbox the backlog is what the stop can still answer: a turn may start its LINE
    call only until ``CALL_SECONDS`` before the drain's end (``wire.py``), so that is its window."""
    window = (
        settings.local_drain_seconds if durable else max(0.0, settings.local_drain_seconds - CALL_SECONDS)
    )
    return Admission(
        concurrency=settings.local_max_concurrent_turns,
        drain_seconds=window,
        ceiling=settings.local_max_pending_turns,
        per_scope_ceiling=settings.local_max_pending_per_scope,
        turn_estimate=settings.local_turn_estimate_seconds,
        durable=durable,
    )


def open_inbox(app: FastAPI, settings: Settings, wiring: Wiring, clock: Callable[[], float]) -> DurableInbox:
    """The durable inbox and the runner of its items (``LOCAL_QUEUE=inprocess``, ``LOCAL_INBOX``)."""
    inbox = DurableInbox(
        store=wiring.store,
        seal=InboxSeal(settings.line_channel_secret),
        lease=settings.local_event_lease_seconds,
        clock=clock,
    )
    app.state.inbox, app.state.inbox_turn = inbox, InboxTurn(app.state.processor, inbox)
    return inbox


def refuse_new_work(
    admission: Admission, endpoint: PushEndpoint | None, wire: Wire, drain_seconds: float
) -> None:
    """At SIGTERM (in a signal handler): no more events accepted, no more pushes or turns started,
    and no LINE call starts after ``drain_seconds`` (``wire.py``)."""
    admission.close()
    wire.stop(drain_seconds)
    if endpoint is not None:
        endpoint.close()


def log_started(settings: Settings, wiring: Wiring, frozen: int, warmed: float) -> None:
    """The startup line: which model, store and listings serve, the request budget, the frozen
    heap, how long the warm-up turns took."""
    listings = wiring.pipeline.listings
    log.info(
        "service started",
        extra={
            "model": settings.local_model,
            "store": settings.local_store,
            "listings_source": listings.source,
            "listings_rows": len(listings.places) + len(listings.events),
            "budget": settings.input_budget,
            "budget_unit": settings.budget_unit,
            "heap_objects_frozen": frozen,
            "warm_up_ms": round(warmed * 1000, 1),
        },
    )


def warn_if_exit_outlasts_grace(settings: Settings) -> bool:
    """Warn (once, at startup) when the drain plus one store deadline does not fit Cloud Run's
    10 s from SIGTERM to SIGKILL: a turn cancelled at the drain's end may still wait that long on
    the store, and the kill would then cut the exit short. Other hosts may allow more, so this is
    a warning, not a refusal. Returns whether it warned."""
    exit_seconds = settings.local_drain_seconds + settings.local_store_deadline_seconds
    if exit_seconds < CLOUD_RUN_GRACE_SECONDS:
        return False
    log.warning(
        "LOCAL_DRAIN_SECONDS + LOCAL_STORE_DEADLINE_SECONDS is not under Cloud Run's 10 s grace",
        extra={"exit_ms": round(exit_seconds * 1000)},
    )
    return True


def freeze_startup_heap() -> int:
    """Collect once, then keep every object alive after startup (modules, ADK's and pydantic's
    schemas, the listings, the agent) out of the cyclic collector's sight (``gc.freeze``).

    The collector's full (oldest-generation) pass otherwise walks that whole heap every so often
    while holding the interpreter: 77 ms on the benchmark machine, enough to stall every ack and
    turn in flight. After the freeze it walks only what turns allocate (6 ms there). Objects are
    still freed by reference counting as usual; the lifespan's exit unfreezes them. Returns the
    number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def account(admission: Admission, inbox: DurableInbox | None, released: int) -> None:
    """Exact: accepted events whose turn did not finish (cancelled by the drain's deadline). With
    the inbox they are not lost: their rows stay (``released`` handed over at once) and the next
    start answers them; the line also carries the inbox's delivery counts."""
    unfinished = admission.lost
    if inbox is None:
        log.log(
            logging.WARNING if unfinished else logging.INFO,
            "shutdown accounting",
            extra={"events_lost": unfinished, "events_accepted": admission.accepted},
        )
        return
    counts = {f"events_{k}": v for k, v in inbox.report().items()}
    log.log(
        logging.WARNING if unfinished else logging.INFO,
        "shutdown accounting",
        extra={
            "events_lost": 0,
            "events_left_in_inbox": unfinished + inbox.stats.handed_over,
            "inbox_rows_released": released,
            **counts,
        },
    )
