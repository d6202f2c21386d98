"""A second event loop, in its own thread, where turns run.

The webhook's loop only verifies, parses and acknowledges; ADK turns are CPU-heavy Python, and on
one loop an acknowledgement would wait behind whole turns. With turns on their own loop the two
threads share the interpreter by time slices, so an ack waits at most a few slices, not a turn.
The app shortens the slice to ``SWITCH_INTERVAL`` (1 ms instead of Python's 5 ms) while it runs:
measured in ``bench.webhook_load`` at an offered 200 requests/s, ack p99 fell from 118 ms to 39–51 ms (runs on a quiet 2-core machine)
with no loss of completed turns per second.

``ThreadedDispatcher`` offers the ``ScopeDispatcher`` surface to the webhook's loop and forwards
every call to the turn loop (``call_soon_threadsafe`` keeps submission order).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from local_agent.line.wire import Wire
from local_agent.server.dispatcher import Job, ScopeDispatcher

T = TypeVar("T")

SWITCH_INTERVAL = 0.001  # seconds; see the module docstring


class TurnLoop:
    def __init__(self, name: str = "local-turns", *, io_threads: int | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        if io_threads is not None:
            # The loop's default executor serves ``to_thread`` hops of turns and the name lookups
            # of the LINE/Gemini clients. Store work itself runs on the store's own threads with a
            # deadline; sizing this pool above the number of concurrent turns keeps threads free
            # for name lookups even while every turn waits on the store.
            self.loop.set_default_executor(
                concurrent.futures.ThreadPoolExecutor(io_threads, thread_name_prefix=f"{name}-io")
            )
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> TurnLoop:
        self._thread.start()
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the turn loop and await its result from another loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self, timeout: float = 10.0) -> None:
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)


class ThreadedDispatcher:
    """The dispatcher as the webhook's loop sees it; the real one lives on the turn loop."""

    def __init__(self, turn_loop: TurnLoop, inner: ScopeDispatcher) -> None:
        self.turn_loop, self.inner = turn_loop, inner
        self.closed = False
        self._lock = threading.Lock()
        self._handing_over = 0  # submitted here, not yet queued on the turn loop

    def submit(self, scope: str, job: Job) -> bool:
        if self.closed:
            return False
        with self._lock:
            self._handing_over += 1
        self.turn_loop.loop.call_soon_threadsafe(self._hand_over, scope, job)
        return True

    def _hand_over(self, scope: str, job: Job) -> None:
        try:
            self.inner.submit(scope, job)
        finally:
            with self._lock:
                self._handing_over -= 1

    @property
    def pending(self) -> int:
        return self.inner.pending + self._handing_over

    def has_room(self, n: int = 1) -> bool:
        return self.pending + n <= self.inner.max_pending

    async def wait_idle(self, timeout: float | None = None) -> bool:
        return await self.turn_loop.call(self.inner.wait_idle(timeout))

    async def drain(self, timeout: float = 8.0, wire: Wire | None = None) -> bool:
        # Refuse new work at once; the drain itself runs after every submission already queued
        # on the turn loop (call_soon_threadsafe is FIFO), so nothing accepted is dropped.
        self.closed = True
        return await self.turn_loop.call(self.inner.drain(timeout, wire))

    # Plain reads of the turn loop's counters.
    @property
    def completed(self) -> int:
        return self.inner.completed

    @property
    def failures(self) -> int:
        return self.inner.failures

    @property
    def active_scopes(self) -> int:
        return self.inner.active_scopes
