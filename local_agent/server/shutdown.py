"""Knowing about SIGTERM at once, not after uvicorn's graceful wait.

uvicorn installs its SIGTERM/SIGINT handlers before the app's lifespan starts; ``ShutdownClock``
chains in front of them. On the signal it closes admission (the webhook answers 503 from that
moment) and starts the drain clock, then lets uvicorn's handler run as before. The lifespan's
drain then waits only until ``signalled_at + drain_seconds``, so uvicorn's graceful wait for
connections and the drain of accepted turns run side by side, not one after the other.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger("local_agent.shutdown")

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class ShutdownClock:
    def __init__(self, on_signal: Callable[[], None], clock: Callable[[], float] = time.monotonic) -> None:
        self._on_signal, self._clock = on_signal, clock
        self.signalled_at: float | None = None
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        """Chain in front of the current handlers (main thread only; elsewhere a no-op)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in SIGNALS:
            self._previous[sig] = signal.getsignal(sig)
            signal.signal(sig, self._handle)

    def uninstall(self) -> None:
        for sig, previous in self._previous.items():
            if signal.getsignal(sig) == self._handle:
                signal.signal(sig, previous)
        self._previous.clear()

    def _handle(self, sig: int, frame: FrameType | None) -> None:
        self.begin()
        previous = self._previous.get(sig)
        if callable(previous):
            previous(sig, frame)
        elif previous == signal.SIG_DFL and sig == signal.SIGINT:
            raise KeyboardInterrupt

    def begin(self) -> None:
        """Shutdown starts now (idempotent): refuse new work, start the drain clock."""
        if self.signalled_at is None:
            self.signalled_at = self._clock()
            self._on_signal()

    def remaining(self, budget: float) -> float:
        """Seconds left of ``budget`` counted from the signal (the whole budget if none came)."""
        if self.signalled_at is None:
            return budget
        return max(0.0, budget - (self._clock() - self.signalled_at))
