"""The LINE webhook: ``POST /callback`` and ``GET /healthz``, built by ``create_app``.

Order of work on a request: verify ``X-Line-Signature`` over the raw body (bad or missing → 400,
nothing processed), parse with the SDK (malformed → 400, never 500), hand each event to the
per-scope dispatcher and answer 200 at once. The dispatcher drops duplicates by
``webhookEventId`` (store-backed), runs the turn, and replies with the reply token or falls back
to push with an ``X-Line-Retry-Key``. The LINE client is built in the lifespan, inside the loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
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

from ..adk_router import TurnOutcome
from ..context.context_store import ScopeKey
from ..context.errors import LocalError, ScopeError, StoreError
from ..logs import configure_logging
from ..settings import Settings
from ..wiring import build_service
from .client import LineDeliveryError, LineGateway, retry_key_for
from .dispatcher import ScopeDispatcher
from .messages import to_line_messages

log = logging.getLogger("local_agent.webhook")

MAX_BODY_BYTES = 256 * 1024


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


def _scope_of(source: Any, destination: str) -> tuple[ScopeKey, str] | None:
    user_id = getattr(source, "user_id", None)
    if isinstance(source, UserSource) and user_id:
        return ScopeKey(destination, "user", user_id, user_id), user_id
    if isinstance(source, GroupSource) and user_id and source.group_id:
        return ScopeKey(destination, "group", source.group_id, user_id), source.group_id
    if isinstance(source, RoomSource) and user_id and source.room_id:
        return ScopeKey(destination, "room", source.room_id, user_id), source.room_id
    return None


def to_inbound(event: Any, destination: str, received_at: float) -> InboundEvent | None:
    """Our view of an SDK event, or None for what LOCAL ignores (unknown types, stickers, ...)."""
    try:
        scoped = _scope_of(getattr(event, "source", None), destination)
    except ScopeError:
        return None
    if scoped is None:
        return None
    scope, reply_to = scoped
    common = dict(scope=scope, reply_to=reply_to, event_id=getattr(event, "webhook_event_id", None),
                  reply_token=getattr(event, "reply_token", None), received_at=received_at)
    if isinstance(event, MessageEvent) and isinstance(event.message, TextMessageContent):
        return InboundEvent(kind="text", text=event.message.text or "", **common)
    if isinstance(event, PostbackEvent) and event.postback is not None:
        return InboundEvent(kind="postback", data=event.postback.data or "", **common)
    if isinstance(event, FollowEvent):
        return InboundEvent(kind="follow", **common)
    return None


Observer = Callable[[InboundEvent, TurnOutcome], None]


def create_app(settings: Settings | None = None, *, clock: Callable[[], float] | None = None, store: Any = None,
               model: Any = None, measure: Any = None, configure_logs: bool = True) -> FastAPI:
    """The app factory. Settings are read here (from the environment unless given)."""
    settings = settings or Settings()
    clock = clock or time.time
    parser = WebhookParser(settings.line_channel_secret)
    validator = SignatureValidator(settings.line_channel_secret)
    observers: list[Observer] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if configure_logs:
            configure_logging(settings.local_log_level)
        wiring = await asyncio.to_thread(build_service, settings, clock=clock, store=store, model=model,
                                         measure=measure)
        gateway = await LineGateway.open(settings.line_channel_access_token, settings.line_api_host)
        dispatcher = ScopeDispatcher(max_concurrent=settings.local_max_concurrent_turns)
        app.state.wiring, app.state.gateway, app.state.dispatcher = wiring, gateway, dispatcher
        app.state.observers = observers
        log.info("service started", extra={"kind": settings.local_model, "status": settings.local_store})
        try:
            yield
        finally:
            await dispatcher.drain()
            await gateway.close()
            if store is None and hasattr(wiring.store, "close"):
                wiring.store.close()
            log.info("service stopped", extra={"count": dispatcher.completed})

    app = FastAPI(title="LOCAL Day 15", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.observers = observers
    app.state.settings = settings

    async def process(event: InboundEvent) -> None:
        wiring, gateway = app.state.wiring, app.state.gateway
        if event.event_id:
            try:
                first = await asyncio.to_thread(wiring.store.claim_event, event.event_id, now=clock())
            except StoreError:
                first = True  # cannot check: better one duplicate reply than a lost message
                log.warning("dedupe unavailable", extra={"code": "STORE_UNAVAILABLE"})
            if not first:
                log.info("duplicate event dropped", extra={"kind": event.kind})
                return
        started = time.perf_counter()
        service = wiring.service
        if event.kind == "follow":
            outcome = service.greeting()
        elif event.kind == "postback":
            outcome = await service.handle_postback(event.scope, event.data)
            if outcome is None:
                log.info("postback not ours ignored", extra={"kind": "postback"})
                return
        else:
            if event.scope.source_type == "user":
                try:
                    await gateway.show_loading(event.scope.user_id)
                except LineDeliveryError as exc:
                    log.info("loading animation not shown", extra={"status": exc.status})
            outcome = await service.handle_text(event.scope, event.text, turn_id=event.event_id)
        for observer in list(app.state.observers):
            observer(event, outcome)
        messages = to_line_messages(outcome.reply)
        if not messages:
            return
        retry_key = retry_key_for(event.event_id) if event.event_id else str(uuid.uuid4())
        try:
            how = await gateway.deliver(event.reply_token, event.reply_to, messages, retry_key,
                                        token_received_at=event.received_at, now=time.time())
        except LineDeliveryError as exc:
            log.warning("reply not delivered", extra={"status": exc.status, "code": exc.code})
            return
        log.info("turn done", extra={
            "kind": event.kind, "source_type": event.scope.source_type, "delivery": how,
            "code": outcome.error_code, "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        })

    @app.post("/callback")
    async def callback(request: Request) -> JSONResponse:
        raw = await request.body()
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
        if len(raw) > MAX_BODY_BYTES:
            return JSONResponse({"error": "body too large"}, status_code=413)
        try:
            payload = parser.parse(body, signature, as_payload=True)
        except InvalidSignatureError:
            return JSONResponse({"error": "invalid signature"}, status_code=400)
        except Exception:
            return JSONResponse({"error": "malformed webhook body"}, status_code=400)
        destination = payload.destination or "unknown"
        received_at = time.time()
        dispatcher: ScopeDispatcher = request.app.state.dispatcher
        accepted = 0
        for sdk_event in payload.events or []:
            event = to_inbound(sdk_event, destination, received_at)
            if event is None:
                log.info("event ignored", extra={"event_type": str(getattr(sdk_event, "type", "unknown"))[:40]})
                continue
            if dispatcher.submit(event.scope.storage_id, lambda e=event: process(e)):
                accepted += 1
            else:
                return JSONResponse({"error": "shutting down"}, status_code=503)
        return JSONResponse({"status": "ok", "accepted": accepted})

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        dispatcher = getattr(request.app.state, "dispatcher", None)
        return JSONResponse({"status": "ok", "pending": dispatcher.pending if dispatcher else 0,
                             "store": settings.local_store, "model": settings.local_model})

    return app


__all__ = ["InboundEvent", "LocalError", "create_app", "to_inbound"]
