"""GuardedStore: a deadline on every store call, its own threads, and an honest health record."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from local_agent.context.errors import StaleContextError, StoreError
from local_agent.stores.guarded import (
    UNAVAILABLE_AFTER,
    GuardedStore,
    StoreDeadlineError,
    StoreHealth,
    StorePool,
)
from local_agent.stores.sqlite import SqliteStore


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Hanging:
    """A backend whose calls block until released (like a Firestore call without a deadline)."""

    backend = "hanging"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.threads: list[str] = []

    def get(self, user_id: str) -> str:
        self.threads.append(threading.current_thread().name)
        self.release.wait(10)
        return user_id

    def claim_event(self, event_id: str, *, now: float, ttl: float = 86400.0) -> bool:
        raise StoreError(operation="dedupe.claim", backend=self.backend)

    def update(self, scope_id: str, mutate: object) -> None:
        raise StaleContextError(snapshot_revision=1, current_revision=2)


def guarded(inner: object, deadline: float = 0.3, clock: Clock | None = None) -> GuardedStore:
    return GuardedStore(
        inner, deadline=deadline, pool=StorePool(2), health=StoreHealth(clock or time.monotonic)
    )


def test_a_hanging_call_ends_at_the_deadline_with_store_error_on_a_store_thread() -> None:
    inner = Hanging()
    store = guarded(inner, deadline=1.0)  # room for the pool thread to start on a loaded machine
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        store.get("u")
    assert 0.95 < time.monotonic() - started < 10
    assert caught.value.code == "STORE_UNAVAILABLE" and "deadline" in caught.value.operation
    assert inner.threads and inner.threads[0].startswith("local-store")
    assert store.health.report()["timeouts"] == 1
    inner.release.set()


def test_health_goes_degraded_then_unavailable_and_back_to_ok_after_recovery() -> None:
    clock = Clock()
    inner = Hanging()
    store = guarded(inner, deadline=5.0, clock=clock)  # only the failing calls fail
    assert store.health.state == "ok"
    with pytest.raises(StoreError):
        store.claim_event("e", now=0.0)
    assert store.health.state == "degraded"
    for _ in range(UNAVAILABLE_AFTER - 1):
        with pytest.raises(StoreError):
            store.claim_event("e", now=0.0)
    assert store.health.state == "unavailable"
    inner.release.set()
    assert store.get("u") == "u"  # the store answers again
    assert store.health.state == "degraded"  # a recent failure is still shown
    clock.now += 11
    assert store.health.state == "ok"


def test_an_error_of_the_data_not_of_the_store_counts_as_a_healthy_call() -> None:
    store = guarded(Hanging())
    with pytest.raises(StaleContextError):
        store.update("s", None)
    assert store.health.state == "ok" and store.health.report()["calls"] == 1


def test_the_backend_name_and_every_call_reach_the_adapter(tmp_path: Path) -> None:
    inner = SqliteStore(tmp_path / "s.sqlite3")
    store = guarded(inner, deadline=2.0)
    assert store.backend == inner.backend
    assert store.claim_event("evt", now=1.0) is True
    assert store.claim_event("evt", now=2.0) is False
    store.probe()
    assert store.health.report()["calls"] == 3
    store.close()


def test_pool_threads_are_daemons_so_a_stuck_call_cannot_hold_the_exit() -> None:
    inner = Hanging()
    store = guarded(inner)
    with pytest.raises(StoreError):
        store.get("u")
    stuck = [t for t in threading.enumerate() if t.name.startswith("local-store")]
    assert stuck and all(t.daemon for t in stuck)
    inner.release.set()


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        StorePool(0)
    with pytest.raises(ValueError):
        GuardedStore(object(), deadline=0, pool=StorePool(1), health=StoreHealth())


def _thread_name() -> str:
    return threading.current_thread().name


def _pool_threads(prefix: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(prefix + "-")]


def test_jobs_that_come_one_at_a_time_run_on_one_warm_thread() -> None:
    pool = StorePool(4, name="one-warm")
    names = [pool.submit(_thread_name).result(timeout=5) for _ in range(50)]
    assert set(names) == {"one-warm-0"}  # the thread is listed idle before its caller hears back
    assert [t.name for t in _pool_threads("one-warm")] == ["one-warm-0"]  # no other thread started
    pool.shutdown()


def test_the_thread_that_went_idle_last_takes_the_next_job() -> None:
    pool = StorePool(3, name="last-idle")
    first, second = threading.Event(), threading.Event()
    a = pool.submit(lambda: (first.wait(10), _thread_name())[1])
    b = pool.submit(lambda: (second.wait(10), _thread_name())[1])
    first.set()
    assert a.result(timeout=5) == "last-idle-0"
    second.set()
    assert b.result(timeout=5) == "last-idle-1"
    assert pool.submit(_thread_name).result(timeout=5) == "last-idle-1"  # idle last, chosen first
    assert len(_pool_threads("last-idle")) == 2  # the third thread was never needed
    pool.shutdown()


def test_jobs_that_find_every_thread_busy_wait_in_order_and_a_cancelled_one_never_runs() -> None:
    pool = StorePool(1, name="backlog")
    gate, ran = threading.Event(), []
    blocker = pool.submit(lambda: gate.wait(10))
    waiting = [pool.submit(lambda i=i: ran.append(i)) for i in range(4)]
    assert waiting[2].cancel()  # still in the backlog: cancellable, and then skipped
    gate.set()
    assert blocker.result(timeout=5) is True
    for future in (waiting[0], waiting[1], waiting[3]):
        future.result(timeout=5)
    assert ran == [0, 1, 3]
    assert [t.name for t in _pool_threads("backlog")] == ["backlog-0"]
    pool.shutdown()


def test_shutdown_ends_idle_threads_at_once_and_a_busy_one_after_the_backlog() -> None:
    pool = StorePool(2, name="closing")
    gate, ran = threading.Event(), []
    busy = pool.submit(lambda: gate.wait(10))
    assert pool.submit(_thread_name).result(timeout=5) == "closing-1"  # now idle
    pool.shutdown()
    threads = {t.name: t for t in _pool_threads("closing")}
    threads["closing-1"].join(timeout=5)
    assert not threads["closing-1"].is_alive() and threads["closing-0"].is_alive()
    waiting = pool.submit(lambda: ran.append("waiting"))  # no idle thread, none may start: backlog
    gate.set()
    assert busy.result(timeout=5) is True
    waiting.result(timeout=5)  # the busy thread ran what waited, then exited
    threads["closing-0"].join(timeout=5)
    assert ran == ["waiting"] and not _pool_threads("closing")


class Counting:
    """A backend that answers at once and notes the thread each call ran on."""

    backend = "counting"

    def __init__(self) -> None:
        self.threads: list[str] = []

    def get(self, user_id: str) -> str:
        self.threads.append(threading.current_thread().name)
        return user_id

    def claim_event(self, event_id: str, *, now: float, ttl: float = 86400.0) -> bool:
        self.threads.append(threading.current_thread().name)
        raise StoreError(operation="dedupe.claim", backend=self.backend)


def test_a_unit_runs_its_calls_on_its_own_pool_thread_and_records_each_for_health() -> None:
    inner = Counting()
    store = guarded(inner, deadline=5.0)  # every call here answers: none may time out under load
    caller = threading.current_thread().name
    unit_threads: list[str] = []

    def step(user: str) -> tuple[str, str, str]:
        unit_threads.append(threading.current_thread().name)
        nested = store.unit("inner", lambda: store.get(user + "!"))  # a unit inside a unit: no hop
        return store.get(user), store.get(user), nested

    assert store.unit("turn.begin", step, "u") == ("u", "u", "u!")
    (here,) = unit_threads
    assert here.startswith("local-store") and here != caller
    assert inner.threads == [here, here, here]  # every call ran on the unit's thread: no further hop
    assert store.health.report()["calls"] == 3 and store.health.state == "ok"

    # The unit's marker does not outlive it: on a one-thread pool, the next job sees none.
    single = GuardedStore(inner, deadline=5.0, pool=StorePool(1), health=StoreHealth())
    assert single.unit("turn.tool", lambda: single._unit() is not None) is True
    assert single.pool.submit(single._unit).result(timeout=5) is None

    with pytest.raises(StoreError):  # a failing call inside a unit is a failure for health
        store.unit("turn.finish", lambda: store.claim_event("e", now=0.0))
    assert store.health.report()["failures"] == 1 and store.health.state == "degraded"


def test_after_a_unit_s_deadline_no_further_call_starts_and_the_timeout_is_recorded_once() -> None:
    inner = Hanging()
    store = guarded(inner, deadline=1.0)  # room for the unit's job to start on a loaded machine
    finished = threading.Event()
    outcome: list[object] = []

    def step() -> None:
        try:
            store.get("a")  # hangs past the deadline
            store.get("b")  # must never start: the caller has given up
        except StoreError as exc:
            outcome.append(exc)
        finally:
            finished.set()

    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        store.unit("turn.finish", step)
    assert 0.95 < time.monotonic() - started < 10
    assert caught.value.operation == "turn.finish (deadline)"
    inner.release.set()  # the running call ends on its own ...
    assert finished.wait(5)
    assert len(inner.threads) == 1  # ... and the next call of the abandoned unit never reached the store
    assert isinstance(outcome[0], StoreDeadlineError) and outcome[0].operation == "preferences.get (deadline)"
    report = store.health.report()
    assert (report["calls"], report["timeouts"], report["failures"]) == (1, 1, 1)  # once, by the caller


def test_health_sees_units_that_time_out_like_calls_that_time_out() -> None:
    inner = Hanging()
    store = guarded(inner, deadline=0.2)
    for _ in range(UNAVAILABLE_AFTER):
        with pytest.raises(StoreError):
            store.unit("turn.begin", lambda: store.get("slow"))
    inner.release.set()
    time.sleep(0.2)  # the abandoned calls finish; their late outcomes are not recorded
    assert store.health.state == "unavailable"
    assert store.health.report()["consecutive_failures"] == UNAVAILABLE_AFTER
