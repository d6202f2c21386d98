"""Background work after the webhook has answered 200: in order per scope, bounded overall.

Each scope gets a queue and at most one worker, which exits when its queue is empty (so 10,000
idle scopes cost nothing). A global semaphore bounds concurrent turns. ``drain`` waits for
in-flight and queued work at shutdown. A job that raises is logged and never kills the worker.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from local_agent.line.wire import Wire

log = logging.getLogger("local_agent.dispatcher")

Job = Callable[[], Awaitable[None]]


class Dispatcher(Protocol):
    """What the webhook uses: a ``ScopeDispatcher``, or a ``ThreadedDispatcher`` in front of one."""

    @property
    def pending(self) -> int: ...

    @property
    def completed(self) -> int: ...

    @property
    def failures(self) -> int: ...

    def submit(self, scope: str, job: Job) -> bool: ...

    def has_room(self, n: int = 1) -> bool: ...

    async def wait_idle(self, timeout: float | None = None) -> bool: ...

    async def drain(self, timeout: float = 8.0, wire: Wire | None = None) -> bool: ...


class ScopeDispatcher:
    def __init__(self, *, max_concurrent: int = 32, max_pending: int = 2000) -> None:
        self.max_pending = max_pending
        self._queues: dict[str, asyncio.Queue[Job]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._slots = asyncio.Semaphore(max_concurrent)
        self._idle = asyncio.Event()
        self._idle.set()
        self._pending = 0
        self.closed = False
        self.failures = 0
        self.completed = 0

    def submit(self, scope: str, job: Job) -> bool:
        if self.closed:
            return False
        queue = self._queues.get(scope)
        if queue is None:
            queue = self._queues[scope] = asyncio.Queue()
        queue.put_nowait(job)
        self._pending += 1
        self._idle.clear()
        if scope not in self._workers:
            self._workers[scope] = asyncio.create_task(self._work(scope, queue))
        return True

    async def _work(self, scope: str, queue: asyncio.Queue[Job]) -> None:
        try:
            while not queue.empty():
                job = queue.get_nowait()
                try:
                    async with self._slots:
                        await job()
                    self.completed += 1
                except asyncio.CancelledError:
                    raise
                except Exception:
                    self.failures += 1
                    log.exception("background job failed", extra={"code": "JOB_FAILED"})
                finally:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.set()
        finally:
            self._workers.pop(scope, None)
            if queue.empty():
                self._queues.pop(scope, None)

    def has_room(self, n: int = 1) -> bool:
        """Whether ``n`` more jobs fit under ``max_pending`` (backpressure: the webhook answers 503
        and LINE redelivers; the store-backed dedupe keeps any already-accepted event single)."""
        return self._pending + n <= self.max_pending

    @property
    def pending(self) -> int:
        return self._pending

    @property
    def active_scopes(self) -> int:
        return len(self._workers)

    async def wait_idle(self, timeout: float | None = None) -> bool:
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        except TimeoutError:
            return False

    async def drain(self, timeout: float = 8.0, wire: Wire | None = None) -> bool:
        """Stop taking work and wait for what was accepted; after ``timeout`` cancel what is left,
        except the work on the wire (a LINE call sent: ``wire.py``), which is awaited until the
        wire's last call has ended, and cancelled only if it is still running then."""
        self.closed = True
        if wire is not None and wire.send_until is not None:  # no turn can send after it
            timeout = min(timeout, max(0.0, wire.send_until - time.monotonic()))
        done = await self.wait_idle(timeout)
        if done:
            return True
        unfinished = self._pending  # read before the cancelled jobs count themselves down
        carrying = wire.on_the_wire() if wire is not None else set()
        for task in list(self._workers.values()):
            if task not in carrying:
                task.cancel()
        until = wire.wire_until if wire is not None else None
        rest = [t for t in self._workers.values() if t in carrying]
        if rest and until is not None:
            await asyncio.wait(rest, timeout=max(0.0, until - time.monotonic()))
        for task in list(self._workers.values()):
            task.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)
        log.warning(
            "shutdown cut unfinished turns",
            extra={"turns_dropped": unfinished, "turns_on_the_wire": len(rest)},
        )
        return False
