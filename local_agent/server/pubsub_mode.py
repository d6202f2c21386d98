"""``LOCAL_QUEUE=pubsub`` started and stopped: the publisher behind ``/callback`` and the leased
turns behind ``/pubsub/push`` (``pubsub_push.py``), run on the turn loop when there is one.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable

from fastapi import FastAPI

from local_agent.server.pubsub_push import LeasedTurn, PushEndpoint, PushResult
from local_agent.server.queue import PubsubPublisher, use_emulator_host
from local_agent.server.turn_side import TurnSide
from local_agent.settings import Settings

log = logging.getLogger("local_agent.webhook")


def start_queue(
    app: FastAPI, settings: Settings, side: TurnSide, clock: Callable[[], float]
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


def stop_queue(publisher: PubsubPublisher | None, leased: LeasedTurn | None) -> None:
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
