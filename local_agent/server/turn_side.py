"""The turn side: the LINE gateway and the per-chat dispatcher, built on the loop that uses them (on
the turn loop's thread when ``LOCAL_TURN_THREAD``), and closed by the stop's drain.
"""

from __future__ import annotations

import sys

from local_agent.line.client import LineGateway, pool_size_for
from local_agent.line.wire import Wire
from local_agent.server.dispatcher import Dispatcher, ScopeDispatcher
from local_agent.server.turn_loop import SWITCH_INTERVAL, ThreadedDispatcher, TurnLoop
from local_agent.settings import Settings

IO_THREADS_HEADROOM = 4  # turn-loop executor threads beyond one per concurrent turn


async def open_turn_side(settings: Settings, wire: Wire) -> tuple[LineGateway, ScopeDispatcher]:
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


class TurnSide:
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
    async def open(cls, settings: Settings, wire: Wire) -> TurnSide:
        previous_interval = sys.getswitchinterval()
        if not settings.local_turn_thread:
            return cls(*await open_turn_side(settings, wire), None, previous_interval)
        turn_loop = TurnLoop(io_threads=settings.local_max_concurrent_turns + IO_THREADS_HEADROOM).start()
        sys.setswitchinterval(SWITCH_INTERVAL)
        gateway, inner = await turn_loop.call(open_turn_side(settings, wire))
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
