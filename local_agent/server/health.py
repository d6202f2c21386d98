"""``/healthz`` and ``/livez``, and the idle store probe.

* ``GET /livez`` answers 200 while the process serves HTTP. Use it for Cloud Run's startup and
  liveness probes: a restart cannot fix an unreachable Firestore, so liveness must not depend on it.
* ``GET /healthz`` tells the truth about the store, from the outcomes of recent store calls
  (``StoreHealth``) and, when no call was made for ``PROBE_IDLE_SECONDS``, a cheap probe read:
  ``ok`` and ``degraded`` answer 200, ``unavailable`` answers 503 (monitoring and alerting; the
  webhook answers 503 to LINE at the same moment, so LINE redelivers later). While degraded or
  unavailable the probe runs every ``PROBE_RETRY_SECONDS`` so recovery shows within seconds. After SIGTERM
  it answers 503 with ``"status": "stopping"``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from local_agent.context.errors import StoreError
from local_agent.server.admission import Admission
from local_agent.server.dispatcher import Dispatcher
from local_agent.server.inbox import DurableInbox
from local_agent.server.pubsub_push import PushEndpoint
from local_agent.server.queue import QueueStats
from local_agent.settings import Settings
from local_agent.stores.guarded import GuardedStore

log = logging.getLogger("local_agent.health")

PROBE_IDLE_SECONDS = 10.0
PROBE_RETRY_SECONDS = 2.0
PROBE_TICK_SECONDS = 1.0


async def probe_store(store: GuardedStore, *, idle: float = PROBE_IDLE_SECONDS) -> None:
    """Forever: probe the store when it has been idle for ``idle`` seconds, or every
    ``PROBE_RETRY_SECONDS`` while it is unavailable. The probe runs on the store's own threads."""
    loop = asyncio.get_running_loop()
    last_state = store.health.state
    while True:
        health = store.health
        due = health.idle_for() >= (PROBE_RETRY_SECONDS if health.state != "ok" else idle)
        if due:
            try:
                await loop.run_in_executor(None, store.probe)
            except StoreError:
                pass  # recorded by the store's health
        state = health.state
        if state != last_state:
            log.warning("store health changed", extra={"store_health": state})
            last_state = state
        await asyncio.sleep(PROBE_TICK_SECONDS)


def health_report(
    store: GuardedStore | None, admission: Admission | None, *, stopping: bool, **info: Any
) -> tuple[int, dict[str, Any]]:
    """(status code, body) for ``/healthz``."""
    if store is None or admission is None:
        return 503, {"status": "starting"}
    store_report = store.health.report()
    state = store_report["state"]
    status = "stopping" if stopping else state
    code = 503 if status in ("unavailable", "stopping") else 200
    return code, {"status": status, "store": store_report, "turns": admission.report(), **info}


async def healthz(request: Request) -> JSONResponse:
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
        queue=queue_report(settings, state.queue_stats, state.push_endpoint, getattr(state, "inbox", None)),
    )
    return JSONResponse(body, status_code=code)


def queue_report(
    settings: Settings, stats: QueueStats, endpoint: PushEndpoint | None, inbox: DurableInbox | None = None
) -> dict[str, Any]:
    """The queue's side of ``/healthz``: its mode, and in pubsub mode what was published and
    pushed, the redeliveries seen and the pushes being worked on here now."""
    in_flight = endpoint.in_flight if endpoint is not None else 0
    report: dict[str, Any] = {"mode": settings.local_queue, **stats.report(), "in_flight": in_flight}
    if inbox is not None:
        report["inbox"] = inbox.report()
    return report


async def livez() -> JSONResponse:
    """200 while the process serves HTTP (Cloud Run startup and liveness probes)."""
    return JSONResponse({"status": "alive"})
