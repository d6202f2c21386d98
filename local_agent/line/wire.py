"""The LINE calls on the wire, and when a stop lets the next one start.

A reply or push that has left for LINE may already have been taken: cancelling it cannot take it
back, and only its answer tells this process to delete the event's row. So a stop never cancels a
call on the wire; it stops *starting* them early enough that the ones started can finish before
the platform kills the process (Cloud Run: 10 s after SIGTERM):

* ``stop(drain_seconds)`` (at SIGTERM, ``LOCAL_DRAIN_SECONDS``): a call may still start until
  ``CALL_SECONDS`` before the drain's end (``send_until``); after that ``may_start`` is False and
  the gateway starts no call and no retry (``LineDeliveryError`` with ``reason="stopped"``,
  nothing sent).
* every attempt started during the stop gets at most ``CALL_SECONDS`` (``timeout``), so the last
  one has ended by the drain's end: ``wire_until``. What is left of Cloud Run's 10 s after it is
  for the rows' deletion and release (one store deadline, ``LOCAL_STORE_DEADLINE_SECONDS``).
* ``carry`` marks the running task as on the wire while a delivery runs; the dispatcher's drain
  cancels only tasks that are not (``on_the_wire``), and waits for these until ``wire_until``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

CALL_SECONDS = 2.0  # the longest a LINE call started during a stop may take


class Wire:
    def __init__(self, call_seconds: float = CALL_SECONDS) -> None:
        self.call_seconds = call_seconds
        self.send_until: float | None = None  # monotonic; None: no stop yet
        self._lock = threading.Lock()
        self._carrying: dict[asyncio.Task[object], int] = {}  # task -> nesting depth

    # -- the stop (signal handler: plain assignments only) -----------------------------------
    def stop(self, drain_seconds: float) -> None:
        if self.send_until is None:
            self.send_until = time.monotonic() + max(0.0, drain_seconds - self.call_seconds)

    @property
    def stopping(self) -> bool:
        return self.send_until is not None

    @property
    def wire_until(self) -> float | None:
        """When the last call allowed to start has ended (monotonic), once a stop began."""
        return None if self.send_until is None else self.send_until + self.call_seconds

    def may_start(self) -> bool:
        return self.send_until is None or time.monotonic() < self.send_until

    def timeout(self, default: float) -> float:
        """One attempt's timeout: ``default``, or during a stop at most ``call_seconds``."""
        return default if self.send_until is None else min(default, self.call_seconds)

    # -- the deliveries ------------------------------------------------------------------------
    @contextmanager
    def carry(self) -> Iterator[None]:
        """While the body runs, the current task is on the wire (the drain does not cancel it);
        nested uses count as one."""
        task = asyncio.current_task()
        if task is None:
            yield
            return
        with self._lock:
            self._carrying[task] = self._carrying.get(task, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                depth = self._carrying.pop(task) - 1
                if depth:
                    self._carrying[task] = depth

    def on_the_wire(self) -> set[asyncio.Task[object]]:
        with self._lock:
            return set(self._carrying)  # the keys
