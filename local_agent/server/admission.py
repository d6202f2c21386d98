"""Admission: never acknowledge more turns than the service can keep, and never let one chat take
the whole backlog.

The webhook asks ``admit`` before it answers 200; each accepted event holds a place until its
turn finishes (``finish``). Two bounds:

* **global**. With the durable inbox (``durable``, the default of ``LOCAL_QUEUE=inprocess``) an
  accepted event survives a SIGTERM or a crash as a store row, so the bound is what this process
  may hold in memory: ``LOCAL_MAX_PENDING_TURNS`` (each waiting event costs its parsed event and
  its queued job, about 1.5 KiB for a short text and at most about 12 KiB for a 5,000-character
  one: 2,000 places are 3 MiB typically, 24 MiB at worst). A burst of hundreds at a cold start is
  accepted at once. Without the inbox (``LOCAL_INBOX=no``), what the shutdown drain can finish:
  ``pending <= max(concurrency, drain_seconds * rate)``, where ``rate`` is the measured
  completion rate while turns were queued (turns finished per second of busy time, over the last
  ``WINDOW`` completions), before any such measurement ``concurrency / turn_estimate`` (turns
  overlap: a Gemini turn waits on the network), capped by ``LOCAL_MAX_PENDING_TURNS``;
* **per scope**: a scope's turns run one after another; at most ``LOCAL_MAX_PENDING_PER_SCOPE``
  of them may wait (without the inbox also at most ``max(1, drain_seconds / p90 turn
  duration)``). A body with an event beyond its scope's cap is answered 503 as a whole (nothing
  of it is claimed or run), so LINE redelivers it later; other chats keep their room.

A body is judged whole: one that alone exceeds a bound is still accepted when nothing (of the
whole service, or of that scope) is pending, so no body is refused forever; bodies are small
(256 KiB at most, a handful of events in practice), so this overshoots a bound by one body at most.
Events resumed from the inbox take their places by force (they were accepted before).

``close`` (at SIGTERM) refuses everything after it. ``lost`` is the exact number of accepted
events whose turn did not finish (read after the drain; with the inbox they stay in it).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

WINDOW = 200  # recent turns used for the estimates


class Admission:
    def __init__(
        self,
        *,
        concurrency: int,
        drain_seconds: float,
        ceiling: int,
        per_scope_ceiling: int,
        turn_estimate: float,
        durable: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.durable = durable
        self.concurrency, self.drain_seconds = concurrency, drain_seconds
        self.ceiling, self.per_scope_ceiling, self.turn_estimate = ceiling, per_scope_ceiling, turn_estimate
        self._clock = clock
        self._lock = threading.Lock()
        self._per_scope: Counter[str] = Counter()
        self._durations: deque[float] = deque(maxlen=WINDOW)
        self._busy_gaps: deque[float] = deque(maxlen=WINDOW)
        self._last_mark: float | None = None  # start of the current busy stretch or last completion
        self.pending = 0
        self.accepted = 0
        self.finished = 0
        self.rejected = 0
        self.closed = False

    # -- estimates ---------------------------------------------------------------------------
    def _turn_p90(self) -> float:
        if not self._durations:
            return self.turn_estimate
        ordered = sorted(self._durations)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]

    def _rate(self) -> float:
        if len(self._busy_gaps) >= 10 and sum(self._busy_gaps) > 0:
            return len(self._busy_gaps) / sum(self._busy_gaps)
        return self.concurrency / self.turn_estimate  # until measured: turns overlap

    def limits(self) -> tuple[int, int]:
        """(global, per-scope) caps on accepted-but-unfinished turns, as they stand now."""
        with self._lock:
            return self._limits()

    def _limits(self) -> tuple[int, int]:
        if self.durable:
            return self.ceiling, self.per_scope_ceiling
        total = max(self.concurrency, math.floor(self.drain_seconds * self._rate()))
        per_scope = max(1, math.floor(self.drain_seconds / max(self._turn_p90(), 1e-3)))
        return min(self.ceiling, total), min(self.per_scope_ceiling, per_scope)

    # -- the webhook's side ------------------------------------------------------------------
    def room(self) -> int:
        """Places left under the global bound (what a resume may take)."""
        with self._lock:
            return max(0, self._limits()[0] - self.pending)

    def admit(self, scopes: Sequence[str], *, force: bool = False) -> str | None:
        """Reserve one place per event (scopes may repeat), or return why not: ``shutting down``,
        ``busy`` (global bound) or ``scope busy`` (a chat over its own bound). All or nothing.
        ``force``: take the places whatever the bounds (events resumed from the inbox)."""
        with self._lock:
            if force:
                self._take(Counter(scopes))
                return None
            if self.closed:
                self.rejected += len(scopes)
                return "shutting down"
            total, per_scope = self._limits()
            if self.pending and self.pending + len(scopes) > total:
                self.rejected += len(scopes)
                return "busy"
            wanted = Counter(scopes)
            if any(self._per_scope[s] and self._per_scope[s] + n > per_scope for s, n in wanted.items()):
                self.rejected += len(scopes)
                return "scope busy"
            self._take(wanted)
            return None

    def _take(self, wanted: Counter[str]) -> None:
        if self.pending == 0:
            self._last_mark = self._clock()
        n = sum(wanted.values())
        self.pending += n
        self.accepted += n
        self._per_scope.update(wanted)

    def release(self, scope: str) -> None:
        """Give back a place that was reserved but never handed to the dispatcher."""
        with self._lock:
            self._leave(scope)
            self.accepted -= 1

    # -- the turn's side ---------------------------------------------------------------------
    async def hold(self, scope: str, work: Callable[[], Awaitable[None]]) -> None:
        """Run an admitted event's ``work``; its place is freed when the work ends. Work cancelled
        (by the shutdown drain's deadline) is ``abandon``ed: it stays counted as lost."""
        started = time.monotonic()
        try:
            await work()
        except asyncio.CancelledError:
            self.abandon(scope)
            raise
        except BaseException:
            self.finish(scope, time.monotonic() - started)
            raise
        self.finish(scope, time.monotonic() - started)

    def finish(self, scope: str, seconds: float) -> None:
        """A turn of ``scope`` finished after ``seconds`` of work (its place is free again)."""
        with self._lock:
            now = self._clock()
            self.finished += 1
            self._durations.append(seconds)
            if self._last_mark is not None:
                self._busy_gaps.append(now - self._last_mark)
            self._leave(scope)
            self._last_mark = now if self.pending else None

    def abandon(self, scope: str) -> None:
        """A turn that was cancelled (shutdown): its place is freed, it stays counted as lost."""
        with self._lock:
            self._leave(scope)
            if not self.pending:
                self._last_mark = None

    def _leave(self, scope: str) -> None:
        self.pending -= 1
        self._per_scope[scope] -= 1
        if self._per_scope[scope] <= 0:
            del self._per_scope[scope]

    # -- shutdown ------------------------------------------------------------------------------
    def close(self) -> None:
        # No lock: called from a signal handler, which may interrupt a holder of the lock.
        self.closed = True

    @property
    def lost(self) -> int:
        with self._lock:
            return self.accepted - self.finished

    def report(self) -> dict[str, Any]:
        with self._lock:
            total, per_scope = self._limits()
            return {
                "pending": self.pending,
                "limit": total,
                "per_scope_limit": per_scope,
                "accepted": self.accepted,
                "finished": self.finished,
                "rejected": self.rejected,
            }
