"""The app factory: ``POST /callback`` (``receiver.py``), ``POST /pubsub/push`` with
``LOCAL_QUEUE=pubsub`` (``pubsub_push.py``), ``GET /healthz`` and ``GET /livez`` (``health.py``),
and the lifespan (``lifespan.py``).

Order of work on a request: the body read and checked (``line/webhook_body.py``: 413 over 256 KiB,
408 when slow, 400 for a missing or bad signature or a malformed body, never 500); before
anything is accepted, a store known to be unavailable, a backlog at what the process may hold, a
chat over its share, or a shutdown in progress → 503 (``admission.py``), so LINE redelivers the
body later; then the events are taken in by the queue mode (``intake.py``) and the 200 answered.
Unknown event types, non-text messages, standby-mode events, events whose ids are not LINE-shaped,
postbacks that are not ours and group chatter that does not mention the bot are answered 200 and
ignored (``line/events.py``).

With ``LOCAL_QUEUE=inprocess`` (the default) the events are written to the durable inbox before the
200 and, in the background, per event and in order per chat, ``inbox_turn.InboxTurn`` runs the turn
(``processor.EventProcessor``), delivers the reply and deletes the row; ``sweeps.py`` renews and
resumes rows. With ``LOCAL_INBOX=no`` the processor claims the event for dedupe and runs the turn.
With ``LOCAL_QUEUE=pubsub`` the events are published and run when Pub/Sub pushes them, on whichever
instance receives the push. Turns run on their own event loop in a second thread by default
(``turn_loop.py``), so an acknowledgement never waits behind a whole turn. Shutdown:
``shutdown.py`` (SIGTERM closes admission at once) and ``lifespan.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from fastapi import FastAPI
from google.adk.models.base_llm import BaseLlm

from local_agent.context.session_budget import Measure
from local_agent.logs import configure_logging
from local_agent.server.health import healthz, livez
from local_agent.server.lifespan import Lifespan
from local_agent.server.processor import TURN_TIMEOUT_SECONDS
from local_agent.server.pubsub_push import PushAuth, PushEndpoint
from local_agent.server.queue import QueueStats
from local_agent.server.receiver import Receiver
from local_agent.settings import Settings, load_settings
from local_agent.stores.ports import Store


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
    lifespan = Lifespan(settings, clock or time.time, store, model, measure, configure_logs, turn_timeout)
    app = FastAPI(title="LOCAL Day 15", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.observers = []
    app.state.settings = settings
    app.state.queue_stats = QueueStats()
    app.state.publisher = None
    app.state.push_endpoint = None
    app.state.inbox = app.state.inbox_turn = None
    app.post("/callback")(
        Receiver(settings.line_channel_secret, settings.local_body_timeout_seconds).callback
    )
    if settings.local_queue == "pubsub":
        endpoint = PushEndpoint(
            PushAuth(settings), app.state.queue_stats, settings.local_max_concurrent_turns
        )
        app.state.push_endpoint = endpoint
        app.post("/pubsub/push")(endpoint.push)
    app.get("/healthz")(healthz)
    app.get("/livez")(livez)
    return app


__all__ = ["create_app"]
