"""The LINE webhook: ``POST /callback``, ``GET /healthz`` and ``GET /livez``, built by ``create_app``.

Order of work on a request: refuse a body over 256 KiB without reading it all (413), verify
``X-Line-Signature`` over the raw body (bad or missing → 400, nothing processed), check the JSON
shape and parse with the SDK (malformed → 400, never 500), hand each event to the per-scope
dispatcher and answer 200 at once. A body not received within ``LOCAL_BODY_TIMEOUT_SECONDS`` → 408.
Before anything is accepted: a store known to be unavailable, a backlog at what the process may
hold, a chat over its share, or a shutdown in progress → 503 (``admission.py``), so LINE
redelivers the body later. Unknown event types, non-text messages, standby-mode events,
events whose ids are not LINE-shaped and postbacks that are not ours are answered 200 and ignored;
so is group or room chatter that does not mention the bot (``line/events.py``).

With ``LOCAL_QUEUE=pubsub`` the accepted events are published instead (``queue.py``: 200 only
once every publish is confirmed, else 503) and run when Pub/Sub pushes them to
``POST /pubsub/push`` (``push.py``), on whichever instance receives the push.

With ``LOCAL_QUEUE=inprocess`` the admitted events are written to the durable inbox before the 200
(``inbox.py``: one store write, which is also the dedupe claim; the store failing → 503), and in the
background, per event and in order per scope, ``inbox_turn.InboxTurn`` runs the turn
(``processor.EventProcessor``) and delivers the reply, then deletes the row. A sweep renews this
process's rows and resumes lapsed ones (another process's, killed or stopped), once at start before
the process reports ready and then every third of ``LOCAL_EVENT_LEASE_SECONDS``. With
``LOCAL_INBOX=no`` the processor claims the event for dedupe and runs the turn (both inside the
turn's deadline), then delivers the reply.
By default (``LOCAL_TURN_THREAD``) turns run on their own event loop in a second thread
(``turn_loop.py``), so an acknowledgement never waits behind a whole turn. The LINE client is
built in the lifespan, inside the loop that uses it; shutdown (``shutdown.py``: SIGTERM closes
admission at once) finishes the accepted turns within ``LOCAL_DRAIN_SECONDS`` of the signal
before closing it, releases the inbox rows left (the next start answers them) and logs exactly
how many accepted events were not answered here.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from google.adk.models.base_llm import BaseLlm
from linebot.v3 import WebhookParser
from linebot.v3.exceptions import InvalidSignatureError
from linebot.v3.webhook import SignatureValidator
from starlette.requests import ClientDisconnect

from local_agent.context.errors import LocalError, StoreError
from local_agent.context.session_budget import Measure
from local_agent.line.admission import Admission
from local_agent.line.client import LineGateway, pool_size_for
from local_agent.line.dispatcher import Dispatcher, ScopeDispatcher
from local_agent.line.events import to_inbound
from local_agent.line.health import health_report, probe_store
from local_agent.line.inbox import DurableInbox, InboxItem, InboxSeal
from local_agent.line.inbox_turn import InboxTurn
from local_agent.line.processor import INTERNAL_ERROR, TURN_TIMEOUT_SECONDS, EventProcessor, InboundEvent
from local_agent.line.push import LeasedTurn, PushAuth, PushEndpoint, PushResult
from local_agent.line.queue import PubsubPublisher, QueueStats, use_emulator_host
from local_agent.line.shutdown import ShutdownClock
from local_agent.line.turn_loop import SWITCH_INTERVAL, ThreadedDispatcher, TurnLoop
from local_agent.line.wire import CALL_SECONDS, Wire
from local_agent.logs import configure_logging
from local_agent.settings import Settings, load_settings
from local_agent.stores.guarded import GuardedStore
from local_agent.stores.ports import Store
from local_agent.turns.usage import UsageRecorder
from local_agent.wiring import Wiring, build_service, warm_up

log = logging.getLogger("local_agent.webhook")
CLOUD_RUN_GRACE_SECONDS = 10.0  # Cloud Run's time from SIGTERM to SIGKILL

MAX_BODY_BYTES = 256 * 1024
PURGE_INTERVAL_SECONDS = 3600.0
IO_THREADS_HEADROOM = 4  # turn-loop executor threads beyond one per concurrent turn


class _BodyTooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The raw body, refusing (``_BodyTooLarge``) as soon as it passes ``limit`` bytes."""
    try:
        declared = int(request.headers.get("content-length", ""))
    except ValueError:
        declared = None  # absent or garbled: count while reading instead
    if declared is not None and declared > limit:
        raise _BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _well_shaped(body: str) -> bool:
    """A webhook body is an object whose ``events`` is a list of objects each with a string
    ``type``, and whose ``destination`` (if present) is a string. The SDK assumes as much."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        return False
    if "destination" in data and not isinstance(data["destination"], str):
        return False
    return all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in data["events"])


class _Refused(Exception):
    """A request the webhook answers with an error status and processes nothing of."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status, self.error = status, error

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.error}, status_code=self.status)


class _Receiver:
    """``POST /callback``: verify, parse and hand events to the dispatcher, then answer at once."""

    def __init__(self, channel_secret: str, body_timeout: float) -> None:
        self.parser = WebhookParser(channel_secret)
        self.validator = SignatureValidator(channel_secret)
        self.body_timeout = body_timeout

    async def callback(self, request: Request) -> JSONResponse:
        try:
            payload = self._parse(*await self._verified_body(request))
            state = request.app.state
            dispatcher: Dispatcher | None = getattr(state, "dispatcher", None)
            if dispatcher is None:
                raise _Refused(503, "not started")
            events = _inbound_events(payload)
            publisher: PubsubPublisher | None = state.publisher
            if publisher is not None:  # LOCAL_QUEUE=pubsub: durable, ordered per chat, any instance
                return await _publish(events, publisher, state.shutdown)
            if events:
                _admit(events, state.wiring.store, state.admission)
            inbox: DurableInbox | None = state.inbox
            if inbox is None:
                return _submit(events, dispatcher, state.processor.process, state.admission)
            if events:
                events = await _into_inbox(events, inbox, state.admission)
            return _submit(events, dispatcher, _run_live(state.inbox_turn), state.admission, durable=True)
        except _Refused as refusal:
            return refusal.response()

    async def _verified_body(self, request: Request) -> tuple[str, str]:
        """The UTF-8 body and its signature, once the signature is checked."""
        try:
            async with asyncio.timeout(self.body_timeout):
                raw = await _read_body(request)
        except TimeoutError:
            raise _Refused(408, "body not received in time") from None
        except _BodyTooLarge:
            raise _Refused(413, "body too large") from None
        except ClientDisconnect:
            raise _Refused(400, "client disconnected") from None
        signature = request.headers.get("x-line-signature")
        if not signature:
            raise _Refused(400, "missing signature")
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused(400, "body is not UTF-8") from None
        try:
            valid = self.validator.validate(body, signature)
        except Exception:
            valid = False
        if not valid:
            raise _Refused(400, "invalid signature")
        return body, signature

    def _parse(self, body: str, signature: str) -> Any:
        if not _well_shaped(body):
            raise _Refused(400, "malformed webhook body")
        try:
            return self.parser.parse(body, signature, as_payload=True)
        except InvalidSignatureError:
            raise _Refused(400, "invalid signature") from None
        except Exception:
            raise _Refused(400, "malformed webhook body") from None


def _inbound_events(payload: Any) -> list[InboundEvent]:
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


def _admit(events: list[InboundEvent], store: GuardedStore, admission: Admission) -> None:
    """Reserve a place for every event of the body, or refuse the whole body with 503 before
    anything of it is claimed or run: LINE redelivers it later (with webhook redelivery turned on
    in the LINE console, see the deploy guide)."""
    if store.health.state == "unavailable":
        log.warning("store unavailable, asking LINE to redeliver", extra={"events_refused": len(events)})
        raise _Refused(503, "store unavailable")
    refused = admission.admit([event.scope.storage_id for event in events])
    if refused is not None:
        log.warning(
            "not accepted, asking LINE to redeliver", extra={"code": refused, "events_refused": len(events)}
        )
        raise _Refused(503, refused)


async def _into_inbox(
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
        raise _Refused(503, "store unavailable") from None
    kept = {id(event) for event in fresh}
    for event in events:
        if id(event) not in kept:
            admission.release(event.scope.storage_id)
    return fresh


def _run_live(inbox_turn: InboxTurn) -> Callable[[InboundEvent], Awaitable[None]]:
    async def run(event: InboundEvent) -> None:
        await inbox_turn.run(InboxItem(event))

    return run


def _submit(
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


async def _sweep(
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


async def _resume_at_start(
    inbox: DurableInbox, inbox_turn: InboxTurn, dispatcher: Dispatcher, admission: Admission
) -> None:
    try:
        await _sweep(inbox, inbox_turn, dispatcher, admission)
    except StoreError as exc:
        log.warning("inbox resume failed at start; serving new events, retrying", extra={"code": exc.code})


async def _sweep_periodically(
    inbox: DurableInbox, inbox_turn: InboxTurn, dispatcher: Dispatcher, admission: Admission
) -> None:
    while True:
        await asyncio.sleep(inbox.sweep_interval)
        try:
            await _sweep(inbox, inbox_turn, dispatcher, admission)
        except StoreError as exc:
            log.warning("inbox sweep failed, retrying", extra={"code": exc.code})


async def _publish(
    events: list[InboundEvent], publisher: PubsubPublisher, shutdown: ShutdownClock
) -> JSONResponse:
    """200 only once Pub/Sub confirmed every event's message; else 503 and LINE redelivers the
    body (an event whose message did land is then deduplicated by its id when pushed)."""
    if shutdown.signalled_at is not None:
        return JSONResponse({"error": "shutting down"}, status_code=503)
    if events and not await publisher.publish(events):
        return JSONResponse({"error": "not queued"}, status_code=503)
    return JSONResponse({"status": "ok", "accepted": len(events)})


async def _open_turn_side(settings: Settings, wire: Wire) -> tuple[LineGateway, ScopeDispatcher]:
    # Built on the loop that will use them: the LINE client must live in its loop.
    gateway = await LineGateway.open(
        settings.line_channel_access_token,
        settings.line_api_host,
        pool_size=pool_size_for(settings.local_max_concurrent_turns),
        wire=wire,
    )
    return gateway, ScopeDispatcher(
        max_concurrent=settings.local_max_concurrent_turns, max_pending=settings.local_max_pending_turns
    )


class _TurnSide:
    """The LINE gateway and the dispatcher, on the turn loop's thread when ``LOCAL_TURN_THREAD``."""

    def __init__(
        self,
        gateway: LineGateway,
        dispatcher: Dispatcher,
        turn_loop: TurnLoop | None,
        previous_interval: float,
    ) -> None:
        self.gateway, self.dispatcher, self.turn_loop = gateway, dispatcher, turn_loop
        self.previous_interval = previous_interval

    @classmethod
    async def open(cls, settings: Settings, wire: Wire) -> _TurnSide:
        previous_interval = sys.getswitchinterval()
        if not settings.local_turn_thread:
            return cls(*await _open_turn_side(settings, wire), None, previous_interval)
        turn_loop = TurnLoop(io_threads=settings.local_max_concurrent_turns + IO_THREADS_HEADROOM).start()
        sys.setswitchinterval(SWITCH_INTERVAL)
        gateway, inner = await turn_loop.call(_open_turn_side(settings, wire))
        return cls(gateway, ThreadedDispatcher(turn_loop, inner), turn_loop, previous_interval)

    async def close(self, drain_seconds: float) -> None:
        """Finish the accepted turns; after ``drain_seconds`` cancel what is left except the LINE
        calls on the wire, which end by the wire's last moment (``wire.py``); then close the LINE
        client (on its own loop)."""
        self.gateway.wire.stop(drain_seconds)  # a lifespan exit without SIGTERM stops here
        await self.dispatcher.drain(drain_seconds, self.gateway.wire)
        if self.turn_loop is None:
            await self.gateway.close()
            return
        await self.turn_loop.call(self.gateway.close())
        self.turn_loop.stop()
        sys.setswitchinterval(self.previous_interval)


async def _purge_periodically(store: Store, clock: Callable[[], float]) -> None:
    """Retention: drop expired journal windows, dedupe records, and audit rows and snapshots
    past 30 days, at start and then hourly (Firestore does this with TTL policies)."""
    while True:
        try:
            counts = await asyncio.to_thread(store.purge_expired, clock())
            log.info("retention purge", extra={"rows_purged": sum(counts.values())})
        except StoreError as exc:
            log.warning("retention purge failed", extra={"code": exc.code})
        await asyncio.sleep(PURGE_INTERVAL_SECONDS)


@dataclass(frozen=True)
class _Lifespan:
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
        admission = _admission(settings, durable)
        endpoint: PushEndpoint | None = app.state.push_endpoint
        wire = Wire()
        shutdown = ShutdownClock(
            partial(_refuse_new_work, admission, endpoint, wire, settings.local_drain_seconds)
        )
        shutdown.install()
        app.state.admission, app.state.shutdown = admission, shutdown
        side = await _TurnSide.open(settings, wire)
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
        leased = _start_queue(app, settings, side, self.clock)
        tasks = [
            asyncio.create_task(_purge_periodically(wiring.store, self.clock)),
            asyncio.create_task(probe_store(wiring.store)),
        ]
        inbox = _open_inbox(app, settings, wiring, self.clock) if durable else None
        if inbox is not None:
            sweep_args = (inbox, app.state.inbox_turn, side.dispatcher, admission)
            await _resume_at_start(*sweep_args)  # before ready: resumed rows queue ahead of new events
            tasks.append(asyncio.create_task(_sweep_periodically(*sweep_args)))
        frozen = freeze_startup_heap()
        _log_started(settings, wiring, frozen, warmed)
        try:
            yield
        finally:
            shutdown.begin()  # SIGTERM usually started it already; a lifespan exit without one, here
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await side.close(shutdown.remaining(settings.local_drain_seconds))
            _stop_queue(app.state.publisher, leased)
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
        _account(admission, inbox, released)
        self._close_store(store)
        gc.unfreeze()  # last: the drain above still runs without full collections
        log.info("service stopped", extra={"turns_completed": completed})

    def _close_store(self, store: GuardedStore) -> None:
        if self.store is None:  # a store passed in belongs to the caller
            store.close()
        elif store is not self.store:  # only its guard is ours: free the guard's threads
            store.pool.shutdown()


def _admission(settings: Settings, durable: bool) -> Admission:
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


def _open_inbox(app: FastAPI, settings: Settings, wiring: Wiring, clock: Callable[[], float]) -> DurableInbox:
    """The durable inbox and the runner of its items (``LOCAL_QUEUE=inprocess``, ``LOCAL_INBOX``)."""
    inbox = DurableInbox(
        store=wiring.store,
        seal=InboxSeal(settings.line_channel_secret),
        lease=settings.local_event_lease_seconds,
        clock=clock,
    )
    app.state.inbox, app.state.inbox_turn = inbox, InboxTurn(app.state.processor, inbox)
    return inbox


def _refuse_new_work(
    admission: Admission, endpoint: PushEndpoint | None, wire: Wire, drain_seconds: float
) -> None:
    """At SIGTERM (in a signal handler): no more events accepted, no more pushes or turns started,
    and no LINE call starts after ``drain_seconds`` (``wire.py``)."""
    admission.close()
    wire.stop(drain_seconds)
    if endpoint is not None:
        endpoint.close()


def _start_queue(
    app: FastAPI, settings: Settings, side: _TurnSide, clock: Callable[[], float]
) -> LeasedTurn | None:
    """With ``LOCAL_QUEUE=pubsub``: the publisher for ``/callback`` and the leased turns behind
    ``/pubsub/push`` (run on the turn loop when there is one)."""
    endpoint: PushEndpoint | None = app.state.push_endpoint
    if endpoint is None:
        return None
    assert settings.google_cloud_project is not None  # Settings refuses pubsub without one
    use_emulator_host(settings.pubsub_emulator_host)
    app.state.publisher = PubsubPublisher(
        project=settings.google_cloud_project,
        topic=settings.local_pubsub_topic,
        deadline=settings.local_pubsub_publish_deadline_seconds,
        stats=app.state.queue_stats,
    )
    worker = LeasedTurn(
        processor=app.state.processor,
        store=app.state.wiring.store,
        lease=settings.local_event_lease_seconds,
        instance=uuid.uuid4().hex[:12],
        clock=clock,
    )
    turn_loop = side.turn_loop

    async def run_on_turns(work: Awaitable[PushResult]) -> PushResult:
        if turn_loop is None:
            return await work
        return await turn_loop.call(_awaited(work))

    endpoint.start(worker, run_on_turns)
    return worker


async def _awaited(work: Awaitable[PushResult]) -> PushResult:
    return await work


def _stop_queue(publisher: PubsubPublisher | None, leased: LeasedTurn | None) -> None:
    """Unfinished pushes get no 2xx (Pub/Sub redelivers them); their leases are given back so
    the next instance need not wait for them to lapse."""
    if leased is not None:
        released = leased.release_all()
        log.log(
            logging.WARNING if released else logging.INFO,
            "leases given back",
            extra={"leases_released": released},
        )
    if publisher is not None:
        publisher.close()


def _log_started(settings: Settings, wiring: Wiring, frozen: int, warmed: float) -> None:
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


def _account(admission: Admission, inbox: DurableInbox | None, released: int) -> None:
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


async def _healthz(request: Request) -> JSONResponse:
    """ok / degraded (200), unavailable / stopping / starting (503); see ``health.py``."""
    state = request.app.state
    settings: Settings = state.settings
    wiring, shutdown = getattr(state, "wiring", None), getattr(state, "shutdown", None)
    dispatcher: Dispatcher | None = getattr(state, "dispatcher", None)
    code, body = health_report(
        wiring.store if wiring is not None else None,
        getattr(state, "admission", None),
        stopping=shutdown is not None and shutdown.signalled_at is not None,
        pending=dispatcher.pending if dispatcher else 0,
        backend=settings.local_store,
        model=settings.local_model,
        queue=_queue_report(settings, state.queue_stats, state.push_endpoint, getattr(state, "inbox", None)),
    )
    return JSONResponse(body, status_code=code)


def _queue_report(
    settings: Settings, stats: QueueStats, endpoint: PushEndpoint | None, inbox: DurableInbox | None = None
) -> dict[str, Any]:
    """The queue's side of ``/healthz``: its mode, and in pubsub mode what was published and
    pushed, the redeliveries seen and the pushes being worked on here now."""
    in_flight = endpoint.in_flight if endpoint is not None else 0
    report: dict[str, Any] = {"mode": settings.local_queue, **stats.report(), "in_flight": in_flight}
    if inbox is not None:
        report["inbox"] = inbox.report()
    return report


async def _livez() -> JSONResponse:
    """200 while the process serves HTTP (Cloud Run startup and liveness probes)."""
    return JSONResponse({"status": "alive"})


def create_app(
    settings: Settings | None = None,
    *,
    clock: Callable[[], float] | None = None,
    store: Store | None = None,
    model: BaseLlm | None = None,
    measure: Measure | None = None,
    configure_logs: bool = True,
    turn_timeout: float = TURN_TIMEOUT_SECONDS,
) -> FastAPI:
    """The app factory. Settings are read here (from the environment unless given).

    ``turn_timeout`` bounds one turn (commands, model, tools; not the LINE delivery, which the
    gateway bounds): a hung model call must not block its scope's queue forever. It is kept in
    ``app.state.processor.turn_timeout`` once the app has started. Settings that do not validate
    raise ``SettingsError`` naming every problem."""
    settings = settings or load_settings()
    if configure_logs:  # here, before uvicorn's first server line, so every line is JSON
        configure_logging(settings.local_log_level)
    lifespan = _Lifespan(settings, clock or time.time, store, model, measure, configure_logs, turn_timeout)
    app = FastAPI(title="LOCAL Day 15", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.observers = []
    app.state.settings = settings
    app.state.queue_stats = QueueStats()
    app.state.publisher = None
    app.state.push_endpoint = None
    app.state.inbox = app.state.inbox_turn = None
    app.post("/callback")(
        _Receiver(settings.line_channel_secret, settings.local_body_timeout_seconds).callback
    )
    if settings.local_queue == "pubsub":
        endpoint = PushEndpoint(
            PushAuth(settings), app.state.queue_stats, settings.local_max_concurrent_turns
        )
        app.state.push_endpoint = endpoint
        app.post("/pubsub/push")(endpoint.push)
    app.get("/healthz")(_healthz)
    app.get("/livez")(_livez)
    return app


__all__ = ["INTERNAL_ERROR", "TURN_TIMEOUT_SECONDS", "InboundEvent", "LocalError", "create_app", "to_inbound"]
