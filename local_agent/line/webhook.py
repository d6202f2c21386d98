"""The LINE webhook: ``POST /callback`` and ``GET /healthz``, built by ``create_app``.

Order of work on a request: refuse a body over 256 KiB without reading it all (413), verify
``X-Line-Signature`` over the raw body (bad or missing → 400, nothing processed), check the JSON
shape and parse with the SDK (malformed → 400, never 500), hand each event to the per-scope
dispatcher and answer 200 at once. A body not received within ``LOCAL_BODY_TIMEOUT_SECONDS`` → 408.
Before anything is accepted: a store known to be unavailable, a backlog at what the shutdown
drain can finish, a chat over its share, or a shutdown in progress → 503 (``admission.py``), so
LINE redelivers the body later. Unknown event types, non-text messages, standby-mode events,
events whose ids are not LINE-shaped and postbacks that are not ours are answered 200 and ignored.

In the background, per event and in order per scope, both bounded by ``turn_timeout``: drop
duplicates by ``webhookEventId`` (store-backed, so it holds across restarts; a store failure here
answers the apology), run the turn, and
reply with the reply token or fall back to push with an ``X-Line-Retry-Key``. A turn that fails
unexpectedly or times out still answers with a polite apology. By default (``LOCAL_TURN_THREAD``)
turns run on their own event loop in a second thread (``turn_loop.py``), so an acknowledgement
never waits behind a whole turn. The LINE client is built in the lifespan, inside the loop that
uses it; shutdown finishes the accepted turns before closing it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from linebot.v3 import WebhookParser
from linebot.v3.exceptions import InvalidSignatureError
from linebot.v3.webhook import SignatureValidator
from linebot.v3.webhooks import (
    FollowEvent,
    GroupSource,
    MessageEvent,
    PostbackEvent,
    RoomSource,
    TextMessageContent,
    UserSource,
)
from starlette.requests import ClientDisconnect

from local_agent.agent.adk_router import TurnOutcome
from local_agent.context.errors import LocalError, ScopeError, StoreError
from local_agent.context.journal import ScopeKey
from local_agent.line.admission import Admission
from local_agent.line.client import LineDeliveryError, LineGateway, new_retry_key, retry_key_for
from local_agent.line.dispatcher import ScopeDispatcher
from local_agent.line.health import health_report, probe_store
from local_agent.line.messages import to_line_messages
from local_agent.line.shutdown import ShutdownClock
from local_agent.line.turn_loop import SWITCH_INTERVAL, ThreadedDispatcher, TurnLoop
from local_agent.logs import configure_logging
from local_agent.replies.render import POLITE_FAILURE
from local_agent.replies.reply import Reply
from local_agent.settings import Settings
from local_agent.wiring import build_service

log = logging.getLogger("local_agent.webhook")

MAX_BODY_BYTES = 256 * 1024
PURGE_INTERVAL_SECONDS = 3600.0
TURN_TIMEOUT_SECONDS = 60.0  # a turn still running after this is abandoned with an apology
INTERNAL_ERROR = "INTERNAL_ERROR"


class _BodyTooLarge(Exception):
    pass


IO_THREADS_HEADROOM = 4  # turn-loop executor threads beyond one per concurrent turn


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


@dataclass(frozen=True)
class InboundEvent:
    """What the dispatcher needs of one webhook event (no SDK types past this point)."""

    kind: str  # "text" | "postback" | "follow"
    scope: ScopeKey
    reply_to: str  # user, group or room id to push to
    event_id: str | None
    reply_token: str | None
    received_at: float
    text: str = ""
    data: str = ""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _is_id(value: object) -> bool:
    """LINE ids (user, group, room, webhook event, reply token) are short printable strings
    (printable also rules out control characters and lone surrogates)."""
    return isinstance(value, str) and 0 < len(value) <= 200 and value.isprintable()


def _clean_text(value: str | None) -> str:
    """JSON may carry lone UTF-16 surrogates (``"\\ud800"``); they cannot be encoded as UTF-8
    anywhere downstream, so each becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", value or "")


def _scope_of(source: Any, destination: str) -> tuple[ScopeKey, str] | None:
    user_id = getattr(source, "user_id", None)
    if not _is_id(user_id):
        return None
    if isinstance(source, UserSource):
        return ScopeKey(destination, "user", user_id, user_id), user_id
    if isinstance(source, GroupSource) and _is_id(source.group_id):
        return ScopeKey(destination, "group", source.group_id, user_id), source.group_id
    if isinstance(source, RoomSource) and _is_id(source.room_id):
        return ScopeKey(destination, "room", source.room_id, user_id), source.room_id
    return None


def to_inbound(event: Any, destination: str, received_at: float) -> InboundEvent | None:
    """Our view of an SDK event, or None for what LOCAL ignores (unknown types, stickers, events
    whose ids are not LINE-shaped, standby-mode events, ...)."""
    if getattr(event, "mode", None) == "standby":  # EventMode is a str enum
        return None  # another module owns the chat; LINE gives no reply token and expects silence
    event_id = getattr(event, "webhook_event_id", None)
    reply_token = getattr(event, "reply_token", None)
    if not _is_id(destination) or (event_id is not None and not _is_id(event_id)):
        return None
    if reply_token is not None and not _is_id(reply_token):
        return None
    try:
        scoped = _scope_of(getattr(event, "source", None), destination)
    except ScopeError:
        return None
    if scoped is None:
        return None
    scope, reply_to = scoped
    common = dict(
        scope=scope, reply_to=reply_to, event_id=event_id, reply_token=reply_token, received_at=received_at
    )
    if isinstance(event, MessageEvent) and isinstance(event.message, TextMessageContent):
        return InboundEvent(kind="text", text=_clean_text(event.message.text), **common)
    if isinstance(event, PostbackEvent) and event.postback is not None:
        return InboundEvent(kind="postback", data=_clean_text(event.postback.data), **common)
    if isinstance(event, FollowEvent):
        return InboundEvent(kind="follow", **common)
    return None


Observer = Callable[[InboundEvent, TurnOutcome], None]


def create_app(
    settings: Settings | None = None,
    *,
    clock: Callable[[], float] | None = None,
    store: Any = None,
    model: Any = None,
    measure: Any = None,
    configure_logs: bool = True,
    turn_timeout: float = TURN_TIMEOUT_SECONDS,
) -> FastAPI:
    """The app factory. Settings are read here (from the environment unless given).

    ``turn_timeout`` bounds one turn (commands, model, tools; not the LINE delivery, which the
    gateway bounds): a hung model call must not block its scope's queue forever. It is kept in
    ``app.state.turn_timeout``."""
    settings = settings or Settings()
    clock = clock or time.time
    parser = WebhookParser(settings.line_channel_secret)
    validator = SignatureValidator(settings.line_channel_secret)
    observers: list[Observer] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if configure_logs:
            configure_logging(settings.local_log_level)
        wiring = await asyncio.to_thread(
            build_service, settings, clock=clock, store=store, model=model, measure=measure
        )

        async def open_turn_side() -> tuple[LineGateway, ScopeDispatcher]:
            # Built on the loop that will use them: the LINE client must live in its loop.
            gateway = await LineGateway.open(settings.line_channel_access_token, settings.line_api_host)
            return gateway, ScopeDispatcher(
                max_concurrent=settings.local_max_concurrent_turns,
                max_pending=settings.local_max_pending_turns,
            )

        admission = Admission(
            concurrency=settings.local_max_concurrent_turns,
            drain_seconds=settings.local_drain_seconds,
            ceiling=settings.local_max_pending_turns,
            per_scope_ceiling=settings.local_max_pending_per_scope,
            turn_estimate=settings.local_turn_estimate_seconds,
        )
        shutdown = ShutdownClock(admission.close)
        shutdown.install()
        app.state.admission, app.state.shutdown = admission, shutdown
        io_threads = settings.local_max_concurrent_turns + IO_THREADS_HEADROOM
        turn_loop = TurnLoop(io_threads=io_threads).start() if settings.local_turn_thread else None
        previous_interval = sys.getswitchinterval()
        if turn_loop is not None:
            sys.setswitchinterval(SWITCH_INTERVAL)
            gateway, inner = await turn_loop.call(open_turn_side())
            dispatcher: Any = ThreadedDispatcher(turn_loop, inner)
        else:
            gateway, dispatcher = await open_turn_side()
        app.state.wiring, app.state.gateway, app.state.dispatcher = wiring, gateway, dispatcher
        purger = asyncio.create_task(purge_periodically(wiring.store))
        prober = asyncio.create_task(probe_store(wiring.store))
        log.info("service started", extra={"kind": settings.local_model, "status": settings.local_store})
        try:
            yield
        finally:
            shutdown.begin()  # SIGTERM usually started it already; a lifespan exit without one, here
            purger.cancel()
            prober.cancel()
            await dispatcher.drain(shutdown.remaining(settings.local_drain_seconds))
            shutdown.uninstall()
            # Exact: accepted events whose turn did not finish (cancelled by the drain's deadline).
            log.log(
                logging.WARNING if admission.lost else logging.INFO,
                "shutdown accounting",
                extra={"count": admission.lost, "accepted": admission.accepted},
            )
            if turn_loop is not None:
                await turn_loop.call(gateway.close())
                turn_loop.stop()
                sys.setswitchinterval(previous_interval)
            else:
                await gateway.close()
            if store is None and hasattr(wiring.store, "close"):
                wiring.store.close()
            log.info("service stopped", extra={"count": dispatcher.completed})

    async def purge_periodically(store: Any) -> None:
        """Retention: drop expired journal windows, dedupe records, and audit rows and snapshots
        past 30 days, at start and then hourly (Firestore does this with TTL policies)."""
        while hasattr(store, "purge_expired"):
            try:
                counts = await asyncio.to_thread(store.purge_expired, clock())
                log.info("retention purge", extra={"count": sum(counts.values())})
            except StoreError as exc:
                log.warning("retention purge failed", extra={"code": exc.code})
            await asyncio.sleep(PURGE_INTERVAL_SECONDS)

    app = FastAPI(title="LOCAL Day 15", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.observers = observers
    app.state.settings = settings
    app.state.turn_timeout = turn_timeout

    async def turn(event: InboundEvent) -> TurnOutcome | None:
        service, gateway = app.state.wiring.service, app.state.gateway
        if event.kind == "follow":
            return service.greeting()
        if event.kind == "postback":
            outcome = await service.handle_postback(event.scope, event.data)
            if outcome is None:
                log.info("postback not ours ignored", extra={"kind": "postback"})
            return outcome
        if event.scope.source_type == "user":  # LINE shows the loading animation in 1:1 chats only
            try:
                await gateway.show_loading(event.scope.user_id)
            except LineDeliveryError as exc:
                log.info("loading animation not shown", extra={"status": exc.status})
        return await service.handle_text(event.scope, event.text, turn_id=event.event_id)

    async def deliver(event: InboundEvent, outcome: TurnOutcome, started: float) -> None:
        messages = to_line_messages(outcome.reply)
        if not messages:
            return
        retry_key = retry_key_for(event.event_id) if event.event_id else new_retry_key()
        try:
            how = await app.state.gateway.deliver(
                event.reply_token, event.reply_to, messages, retry_key, token_received_at=event.received_at
            )
        except LineDeliveryError as exc:
            log.warning("reply not delivered", extra={"status": exc.status, "code": exc.code})
            return
        log.info(
            "turn done",
            extra={
                "kind": event.kind,
                "source_type": event.scope.source_type,
                "delivery": how,
                "code": outcome.error_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )

    async def claim_then_turn(event: InboundEvent) -> TurnOutcome | None:
        """The dedupe claim and the turn, both inside the turn's deadline. A store that fails or
        times out at the claim answers the apology at once (no context is written)."""
        if event.event_id:
            try:
                first = await asyncio.to_thread(
                    app.state.wiring.store.claim_event, event.event_id, now=clock()
                )
            except StoreError as exc:
                log.warning("dedupe unavailable", extra={"code": exc.code})
                return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
            if not first:
                log.info("duplicate event dropped", extra={"kind": event.kind})
                return None
        return await turn(event)

    async def admitted(event: InboundEvent) -> None:
        """``process`` for an event that holds a place in admission; frees it when done."""
        admission: Admission = app.state.admission
        started = time.monotonic()
        try:
            await process(event)
        except asyncio.CancelledError:
            admission.abandon(event.scope.storage_id)
            raise
        except BaseException:
            admission.finish(event.scope.storage_id, time.monotonic() - started)
            raise
        admission.finish(event.scope.storage_id, time.monotonic() - started)

    async def process(event: InboundEvent) -> None:
        started = time.perf_counter()
        try:
            outcome = await asyncio.wait_for(claim_then_turn(event), app.state.turn_timeout)
        except Exception:
            # A bug or a hung turn, not a handled failure: the user still gets an apology; the
            # dispatcher logs the exception (class name only) and counts it.
            await deliver(
                event, TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=INTERNAL_ERROR), started
            )
            raise
        if outcome is None:
            return
        for observer in list(app.state.observers):
            try:
                observer(event, outcome)
            except Exception:
                log.exception("observer failed", extra={"code": "OBSERVER_FAILED"})
        await deliver(event, outcome, started)

    @app.post("/callback")
    async def callback(request: Request) -> JSONResponse:
        try:
            async with asyncio.timeout(settings.local_body_timeout_seconds):
                raw = await _read_body(request)
        except TimeoutError:
            return JSONResponse({"error": "body not received in time"}, status_code=408)
        except _BodyTooLarge:
            return JSONResponse({"error": "body too large"}, status_code=413)
        except ClientDisconnect:
            return JSONResponse({"error": "client disconnected"}, status_code=400)
        signature = request.headers.get("x-line-signature")
        if not signature:
            return JSONResponse({"error": "missing signature"}, status_code=400)
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            return JSONResponse({"error": "body is not UTF-8"}, status_code=400)
        try:
            valid = validator.validate(body, signature)
        except Exception:
            valid = False
        if not valid:
            return JSONResponse({"error": "invalid signature"}, status_code=400)
        if not _well_shaped(body):
            return JSONResponse({"error": "malformed webhook body"}, status_code=400)
        try:
            payload = parser.parse(body, signature, as_payload=True)
        except InvalidSignatureError:
            return JSONResponse({"error": "invalid signature"}, status_code=400)
        except Exception:
            return JSONResponse({"error": "malformed webhook body"}, status_code=400)
        dispatcher: ScopeDispatcher | None = getattr(request.app.state, "dispatcher", None)
        if dispatcher is None:
            return JSONResponse({"error": "not started"}, status_code=503)
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
                log.info(
                    "event ignored", extra={"event_type": str(getattr(sdk_event, "type", "unknown"))[:40]}
                )
                continue
            events.append(event)
        if not events:
            return JSONResponse({"status": "ok", "accepted": 0})
        # 503 before anything of the body is claimed or run: LINE redelivers it later (with
        # webhook redelivery turned on in the LINE console, see the deploy guide).
        if request.app.state.wiring.store.health.state == "unavailable":
            log.warning("store unavailable, asking LINE to redeliver", extra={"count": len(events)})
            return JSONResponse({"error": "store unavailable"}, status_code=503)
        admission: Admission = request.app.state.admission
        refused = admission.admit([event.scope.storage_id for event in events])
        if refused is not None:
            log.warning(
                "not accepted, asking LINE to redeliver", extra={"code": refused, "count": len(events)}
            )
            return JSONResponse({"error": refused}, status_code=503)
        for i, event in enumerate(events):
            if not dispatcher.submit(event.scope.storage_id, lambda e=event: admitted(e)):
                for rest in events[i:]:
                    admission.release(rest.scope.storage_id)
                return JSONResponse({"error": "shutting down"}, status_code=503)
        return JSONResponse({"status": "ok", "accepted": len(events)})

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        """ok / degraded (200), unavailable / stopping (503); see ``health.py``."""
        state = request.app.state
        wiring, shutdown = getattr(state, "wiring", None), getattr(state, "shutdown", None)
        dispatcher = getattr(state, "dispatcher", None)
        code, body = health_report(
            wiring.store if wiring is not None else None,
            getattr(state, "admission", None),
            stopping=shutdown is not None and shutdown.signalled_at is not None,
            pending=dispatcher.pending if dispatcher else 0,
            backend=settings.local_store,
            model=settings.local_model,
        )
        return JSONResponse(body, status_code=code)

    @app.get("/livez")
    async def livez() -> JSONResponse:
        """200 while the process serves HTTP (Cloud Run startup and liveness probes)."""
        return JSONResponse({"status": "alive"})

    return app


__all__ = ["InboundEvent", "LocalError", "create_app", "to_inbound"]
