"""Every store call with a deadline, on threads of its own, and a health record of the results.

``GuardedStore`` wraps any store adapter (SQLite, Firestore) and is itself a ``Store``: each
member of the protocol is written out and forwarded. Each port call runs on a ``StorePool`` thread; the caller waits at most ``deadline`` seconds and then
gets ``StoreError`` (the pool thread keeps waiting for the backend's own timeout and is reused
afterwards). So a store that hangs costs a turn at most ``deadline`` seconds per call, and it
never occupies the threads the event loop uses for name lookups of the LINE and Gemini clients.

``StoreHealth`` keeps the outcome of recent calls and answers ``ok`` / ``degraded`` /
``unavailable`` for ``/healthz`` and for the webhook's admission (503 while unavailable).

* ``unavailable``: the last ``UNAVAILABLE_AFTER`` calls in a row failed or timed out;
* ``degraded``: a failure or timeout within the last ``DEGRADED_WINDOW`` seconds;
* ``ok``: otherwise (including before any call).

Caveat: a write whose caller gave up at the deadline may still land afterwards (the backend
finishes it on the pool thread). For a single call the backends' own timeouts end first (80 % of
the deadline, see ``wiring.open_store``), so this needs a call stuck past them, e.g. a Firestore
transaction's begin/commit, which take no timeout; in a unit, the one call running when the unit's
deadline passes. The journal's revision gate keeps such a late write consistent.

A call that raises something other than ``StoreError`` (e.g. ``StaleContextError`` from a journal
mutation) reached the store and counts as a success for health. The pool's threads are daemons,
so a call stuck in a backend cannot hold the process past its shutdown.

``unit`` runs a step made of several store calls (a turn's begin, tool or finish) as one job on
the pool under one deadline: the calls inside it run on that pool thread directly, each recorded
for health as usual, so the step costs one thread hop instead of one per call, and the caller
still waits at most ``deadline`` seconds for the whole step. Once that deadline has passed (the
caller gave up, or is about to), no further call of the unit starts: each raises
``StoreDeadlineError`` instead, so a step's later writes (a finish's journal append after its
caller apologised) never land late. A call already running then finishes on its own, as in the
caveat above, and its outcome is not recorded: the caller's timeout already was, once.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from local_agent.context.errors import StoreError
from local_agent.context.journal import JournalRecord, Mutation
from local_agent.stores.ports import (
    DEDUPE_TTL_SECONDS,
    INBOX_TTL_SECONDS,
    RECORD_RETENTION_SECONDS,
    AuditRow,
    ConsentDecision,
    InboxEntry,
    InboxRow,
    LeaseOutcome,
    PreferenceState,
    Store,
    TurnSnapshot,
)
from local_agent.stores.usage import UsageRow

T = TypeVar("T")
_Job = tuple[concurrent.futures.Future[Any], Callable[[], Any]]

HealthState = Literal["ok", "degraded", "unavailable"]

_on_pool = threading.local()  # .unit: the _Unit this pool thread is running, if any

UNAVAILABLE_AFTER = 3  # consecutive failed calls
DEGRADED_WINDOW = 10.0  # seconds a failure keeps the state at degraded
PROBE_USER = "local-health-probe"  # preferences.get of this id is the idle probe


class StoreDeadlineError(StoreError):
    """The deadline passed: the caller stopped waiting (the backend may still be working), or a
    call inside a unit was not started because its unit's deadline had passed."""


class _Unit:
    """One unit in flight on a pool thread: whose it is, when its caller stops waiting, and
    whether it already has."""

    __slots__ = ("store", "ends", "abandoned")

    def __init__(self, store: GuardedStore, ends: float) -> None:
        self.store, self.ends, self.abandoned = store, ends, False

    def over(self) -> bool:
        return self.abandoned or time.monotonic() >= self.ends


class StorePoolError(RuntimeError):
    """The pool cannot run this job: it was shut down first, or no thread could be started."""


class StorePool:
    """Up to ``threads`` daemon threads that run blocking store calls (``submit`` -> Future).

    The thread that went idle last takes the next job (a stack of idle threads, each with its own
    inbox, rather than one queue all threads wait on). A turn's steps arrive one at a time, so the
    same thread, still warm in the CPU's caches, runs them one after another instead of a
    different, cold thread each time (measured: ``bench.turn_overhead``). Threads start when first
    needed; a job that finds all of them busy waits in a FIFO backlog (so does one for which the
    system has no new thread, while another thread lives; with none, it fails with
    ``StorePoolError``).

    After ``shutdown`` idle threads exit, a busy one exits once the backlog queued before it is
    empty, and a job submitted later fails at once with ``StorePoolError``. A thread that dies
    outside a job (a future's done-callback raising ``SystemExit``) gives up its place and hands
    back the job it held, so no job is lost with it.
    """

    def __init__(self, threads: int, name: str = "local-store") -> None:
        if threads < 1:
            raise ValueError("threads must be >= 1")
        self.size, self._name = threads, name
        self._lock = threading.Lock()
        self._threads: set[threading.Thread] = set()
        self._started = 0  # threads ever started: each gets a new name
        self._idle: list[queue.SimpleQueue[_Job | None]] = []  # the last one went idle last
        self._backlog: deque[_Job] = deque()
        self._closed = False

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._dispatch((future, fn))
        return future

    def _dispatch(self, job: _Job) -> None:
        with self._lock:
            if self._closed:
                failure = StorePoolError("the store's pool is shut down")
            elif self._idle:
                self._idle.pop().put(job)  # under the lock: a dying thread's inbox is drained under it
                return
            elif len(self._threads) < self.size:
                inbox: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
                inbox.put(job)
                thread = threading.Thread(
                    target=self._work, args=(inbox,), name=f"{self._name}-{self._started}", daemon=True
                )
                try:
                    thread.start()
                except RuntimeError:  # the system has no thread to give
                    if not self._threads:
                        failure = StorePoolError("no thread could be started for the store's pool")
                    else:
                        self._backlog.append(job)  # a living thread will take it
                        return
                else:
                    self._threads.add(thread)
                    self._started += 1
                    return
            else:
                self._backlog.append(job)
                return
        # Outside the lock: a done-callback may submit again.
        if job[0].set_running_or_notify_cancel():
            job[0].set_exception(failure)

    def _work(self, inbox: queue.SimpleQueue[_Job | None]) -> None:
        held: _Job | None = inbox.get()  # the job this thread was started for
        try:
            while held is not None:
                future, fn = held
                held = None
                run = future.set_running_or_notify_cancel()  # False: cancelled while it waited
                result: Any = None
                error: BaseException | None = None
                if run:
                    try:
                        result = fn()
                    except BaseException as exc:  # handed to the waiting caller
                        error = exc
                # Listed idle (or handed the next job) before the caller hears back, so that the
                # caller's next job finds this thread rather than starting another.
                idle = False
                with self._lock:
                    if self._backlog:
                        held = self._backlog.popleft()
                    elif not self._closed:
                        self._idle.append(inbox)
                        idle = True
                if run:
                    if error is None:
                        future.set_result(result)
                    else:
                        future.set_exception(error)
                del future, fn, result, error  # nothing of a finished job stays referenced while idle
                if idle:
                    held = inbox.get()
        except BaseException:
            self._retire(inbox, held)
            raise
        with self._lock:
            self._threads.discard(threading.current_thread())

    def _retire(self, inbox: queue.SimpleQueue[_Job | None], held: _Job | None) -> None:
        """This thread is dying outside a job: free its place and hand its jobs to the others."""
        orphans = [held] if held is not None else []
        with self._lock:
            self._threads.discard(threading.current_thread())
            if inbox in self._idle:
                self._idle.remove(inbox)
            while not inbox.empty():
                item = inbox.get_nowait()
                if item is not None:
                    orphans.append(item)
        for job in orphans:
            self._dispatch(job)

    def shutdown(self) -> None:
        """Let idle threads exit; a thread stuck in a call is a daemon and dies with the process."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            for inbox in idle:
                inbox.put(None)


class StoreHealth:
    """Thread-safe record of recent store call outcomes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._consecutive_failures = 0
        self._last_failure: float | None = None
        self._last_call: float | None = None
        self._latencies: deque[float] = deque(maxlen=100)
        self.calls = 0
        self.failures = 0
        self.timeouts = 0

    def record(self, ok: bool, seconds: float, *, timed_out: bool = False) -> None:
        with self._lock:
            now = self._clock()
            self.calls += 1
            self._last_call = now
            self._latencies.append(seconds)
            if ok:
                self._consecutive_failures = 0
            else:
                self.failures += 1
                self.timeouts += int(timed_out)
                self._consecutive_failures += 1
                self._last_failure = now

    @property
    def state(self) -> HealthState:
        with self._lock:
            if self._consecutive_failures >= UNAVAILABLE_AFTER:
                return "unavailable"
            if self._last_failure is not None and self._clock() - self._last_failure < DEGRADED_WINDOW:
                return "degraded"
            return "ok"

    def idle_for(self) -> float:
        """Seconds since the last call (infinite before the first)."""
        with self._lock:
            return float("inf") if self._last_call is None else self._clock() - self._last_call

    def report(self) -> dict[str, Any]:
        state = self.state
        with self._lock:
            ordered = sorted(self._latencies)
            p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] if ordered else None
            return {
                "state": state,
                "consecutive_failures": self._consecutive_failures,
                "calls": self.calls,
                "failures": self.failures,
                "timeouts": self.timeouts,
                "p95_ms": None if p95 is None else round(p95 * 1000, 1),
            }


class GuardedStore:
    """A ``Store`` whose every call is bounded by ``deadline`` seconds and run on ``pool``.

    Each member of ``stores.ports.Store`` is spelled out (same parameters as the adapters), so
    mypy checks the wrapper against the protocol like any adapter."""

    backend: str  # the inner adapter's

    def __init__(self, inner: Store, *, deadline: float, pool: StorePool, health: StoreHealth) -> None:
        if deadline <= 0:
            raise ValueError("deadline must be > 0")
        self.inner, self.deadline, self.pool, self.health = inner, deadline, pool, health
        self.backend = inner.backend

    def call(self, operation: str, fn: Callable[[], T]) -> T:
        unit = self._unit()
        if unit is not None:  # inside a unit: already on the pool, under the unit's deadline
            if unit.over():
                raise StoreDeadlineError(operation=f"{operation} (deadline)", backend=self.backend)
            return self._recorded(fn, unit=unit)
        started = time.monotonic()
        future = self.pool.submit(fn)
        return self._recorded(lambda: self._wait(operation, future), started)

    def unit(self, operation: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` as one job on the pool: the store calls it makes run there
        without a further hop, and the caller waits at most ``deadline`` seconds for all of them
        (then ``StoreError``; no further call of the unit starts after that)."""
        if self._unit() is not None:
            return fn(*args, **kwargs)
        started = time.monotonic()
        unit = _Unit(self, started + self.deadline)

        def job() -> T:
            outer = getattr(_on_pool, "unit", None)
            _on_pool.unit = unit
            try:
                return fn(*args, **kwargs)
            finally:
                _on_pool.unit = outer

        future = self.pool.submit(job)
        try:
            return self._wait(operation, future)
        except StoreDeadlineError:  # the calls inside record their own outcomes; this records the wait
            unit.abandoned = True
            self.health.record(False, time.monotonic() - started, timed_out=True)
            raise

    def _unit(self) -> _Unit | None:
        """The unit of this store that this thread (a pool thread) is running, if any."""
        unit: _Unit | None = getattr(_on_pool, "unit", None)
        return unit if unit is not None and unit.store is self else None

    def _wait(self, operation: str, future: concurrent.futures.Future[T]) -> T:
        try:
            return future.result(timeout=self.deadline)
        except StorePoolError:  # e.g. called after close(): refused at once, not after the deadline
            raise StoreError(operation=f"{operation} (pool)", backend=self.backend) from None
        except concurrent.futures.TimeoutError:
            future.cancel()  # still queued: never runs; already running: finishes on its own
            raise StoreDeadlineError(operation=f"{operation} (deadline)", backend=self.backend) from None

    def _recorded(self, fn: Callable[[], T], started: float | None = None, *, unit: _Unit | None = None) -> T:
        """``fn()``, its outcome recorded for health: a ``StoreError`` is a failure (a deadline a
        timeout); anything else that it raises reached the store. Inside a unit whose caller
        gave up, nothing is recorded (its timeout was)."""
        started = time.monotonic() if started is None else started
        try:
            result = fn()
        except StoreError as exc:
            self._record(unit, False, started, timed_out=isinstance(exc, StoreDeadlineError))
            raise
        except BaseException:
            self._record(unit, True, started)
            raise
        self._record(unit, True, started)
        return result

    def _record(self, unit: _Unit | None, ok: bool, started: float, *, timed_out: bool = False) -> None:
        if unit is None or not unit.abandoned:
            self.health.record(ok, time.monotonic() - started, timed_out=timed_out)

    def probe(self) -> None:
        """A cheap read that tells whether the store answers (the idle health probe)."""
        self.get(PROBE_USER)

    def close(self) -> None:
        """Free the pool's idle threads, then close the adapter (SQLite's waits for a statement
        still running on a pool thread, e.g. a purge whose caller has gone)."""
        self.pool.shutdown()
        self.inner.close()

    # -- JournalStorage -------------------------------------------------------------------------
    def load(self, scope_id: str) -> JournalRecord | None:
        return self.call("journal.load", lambda: self.inner.load(scope_id))

    def update(self, scope_id: str, mutate: Mutation) -> JournalRecord | None:
        return self.call("journal.update", lambda: self.inner.update(scope_id, mutate))

    def delete(self, scope_id: str) -> None:
        self.call("journal.delete", lambda: self.inner.delete(scope_id))

    # -- PreferenceStore ------------------------------------------------------------------------
    def get(self, user_id: str) -> PreferenceState:
        return self.call("preferences.get", lambda: self.inner.get(user_id))

    def set_consent(
        self,
        user_id: str,
        *,
        consent: ConsentDecision,
        dietary_type: str | None,
        now: float,
        expected_revision: int | None = None,
    ) -> PreferenceState:
        return self.call(
            "preferences.set_consent",
            lambda: self.inner.set_consent(
                user_id,
                consent=consent,
                dietary_type=dietary_type,
                now=now,
                expected_revision=expected_revision,
            ),
        )

    # -- AuditStore, SnapshotStore --------------------------------------------------------------
    def append_audit(self, row: AuditRow) -> None:
        self.call("audit.append", lambda: self.inner.append_audit(row))

    def forget_audited_memory(self, scope_id: str) -> int:
        return self.call("audit.forget", lambda: self.inner.forget_audited_memory(scope_id))

    def audit_rows(self, scope_id: str | None = None) -> list[AuditRow]:
        return self.call("audit.rows", lambda: self.inner.audit_rows(scope_id))

    def append_snapshot(self, snap: TurnSnapshot) -> None:
        self.call("snapshots.append", lambda: self.inner.append_snapshot(snap))

    def snapshots(self, scope_id: str | None = None) -> list[TurnSnapshot]:
        return self.call("snapshots.rows", lambda: self.inner.snapshots(scope_id))

    # -- UsageStore -----------------------------------------------------------------------------
    def append_usage(self, row: UsageRow) -> None:
        self.call("usage.append", lambda: self.inner.append_usage(row))

    def usage_rows(self, since: float, until: float) -> list[UsageRow]:
        return self.call("usage.rows", lambda: self.inner.usage_rows(since, until))

    # -- DedupeStore ----------------------------------------------------------------------------
    def claim_event(self, event_id: str, *, now: float, ttl: float = DEDUPE_TTL_SECONDS) -> bool:
        return self.call("dedupe.claim", lambda: self.inner.claim_event(event_id, now=now, ttl=ttl))

    # -- LeaseStore -----------------------------------------------------------------------------
    def lease_event(
        self, event_id: str, *, holder: str, now: float, lease: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> LeaseOutcome:
        return self.call(
            "lease.claim",
            lambda: self.inner.lease_event(event_id, holder=holder, now=now, lease=lease, ttl=ttl),
        )

    def finish_event(
        self, event_id: str, *, holder: str, now: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> bool:
        return self.call(
            "lease.finish", lambda: self.inner.finish_event(event_id, holder=holder, now=now, ttl=ttl)
        )

    def release_event(self, event_id: str, *, holder: str) -> bool:
        return self.call("lease.release", lambda: self.inner.release_event(event_id, holder=holder))

    # -- InboxStore -----------------------------------------------------------------------------
    def inbox_accept(
        self,
        entries: Sequence[InboxEntry],
        *,
        holder: str,
        now: float,
        lease: float,
        ttl: float = INBOX_TTL_SECONDS,
    ) -> list[bool]:
        return self.call(
            "inbox.accept",
            lambda: self.inner.inbox_accept(entries, holder=holder, now=now, lease=lease, ttl=ttl),
        )

    def inbox_claim(self, *, holder: str, now: float, lease: float, limit: int) -> list[InboxRow]:
        return self.call(
            "inbox.claim", lambda: self.inner.inbox_claim(holder=holder, now=now, lease=lease, limit=limit)
        )

    def inbox_renew(self, *, holder: str, now: float, lease: float) -> int:
        return self.call("inbox.renew", lambda: self.inner.inbox_renew(holder=holder, now=now, lease=lease))

    def inbox_park(self, event_id: str, *, holder: str, reply: bytes, retry_at: float) -> bool:
        return self.call(
            "inbox.park",
            lambda: self.inner.inbox_park(event_id, holder=holder, reply=reply, retry_at=retry_at),
        )

    def inbox_done(self, event_id: str, *, holder: str) -> bool:
        return self.call("inbox.done", lambda: self.inner.inbox_done(event_id, holder=holder))

    def inbox_hand_back(self, event_id: str, *, holder: str, retry_at: float) -> bool:
        return self.call(
            "inbox.hand_back",
            lambda: self.inner.inbox_hand_back(event_id, holder=holder, retry_at=retry_at),
        )

    def inbox_release(self, *, holder: str) -> int:
        return self.call("inbox.release", lambda: self.inner.inbox_release(holder=holder))

    def inbox_drop_chat(self, chat: str, *, before: float) -> int:
        return self.call("inbox.drop_chat", lambda: self.inner.inbox_drop_chat(chat, before=before))

    def inbox_pending(self) -> int:
        return self.call("inbox.pending", self.inner.inbox_pending)

    # -- retention and inspection ---------------------------------------------------------------
    def purge_expired(self, now: float, *, retention: float = RECORD_RETENTION_SECONDS) -> dict[str, int]:
        return self.call("purge", lambda: self.inner.purge_expired(now, retention=retention))

    def journal_rows(self) -> dict[str, dict[str, Any]]:
        return self.call("journal.dump", self.inner.journal_rows)

    def preference_rows(self) -> list[dict[str, Any]]:
        return self.call("preferences.dump", self.inner.preference_rows)
