"""GuardedStore: a deadline on every store call, its own threads, and an honest health record."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from local_agent.context.errors import StaleContextError, StoreError
from local_agent.stores.guarded import (
    UNAVAILABLE_AFTER,
    GuardedStore,
    StoreDeadlineError,
    StoreHealth,
    StorePool,
    StorePoolError,
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


def _pool_threads(prefix: str) -> dict[str, threading.Thread]:
    return {t.name: t for t in threading.enumerate() if t.name.startswith(prefix + "-")}


@pytest.fixture
def pools() -> Iterator[Callable[..., StorePool]]:
    """``StorePool`` factory; every pool made is shut down after the test, pass or fail."""
    made: list[StorePool] = []

    def make(threads: int, name: str) -> StorePool:
        made.append(StorePool(threads, name=name))
        return made[-1]

    yield make
    for pool in made:
        pool.shutdown()


def test_jobs_that_come_one_at_a_time_run_on_one_warm_thread(pools) -> None:
    pool = pools(4, "one-warm")
    names = [pool.submit(_thread_name).result(timeout=5) for _ in range(50)]
    assert set(names) == {"one-warm-0"}
    assert list(_pool_threads("one-warm")) == ["one-warm-0"]  # no other thread started


def test_a_thread_is_listed_idle_before_its_caller_hears_back(pools) -> None:
    # The done-callback runs on the worker inside set_result, i.e. the moment the caller would
    # wake: a job submitted there must find the same thread idle, not start a second one.
    pool = pools(4, "ordered")
    gate, nested = threading.Event(), []
    first = pool.submit(lambda: (gate.wait(10), _thread_name())[1])
    first.add_done_callback(lambda _: nested.append(pool.submit(_thread_name)))
    gate.set()
    assert first.result(timeout=5) == "ordered-0"
    deadline = time.monotonic() + 5
    while not nested and time.monotonic() < deadline:
        time.sleep(0.01)
    assert nested and nested[0].result(timeout=5) == "ordered-0"


def test_the_thread_that_went_idle_last_takes_the_next_job(pools) -> None:
    pool = pools(3, "last-idle")
    first, second = threading.Event(), threading.Event()
    a = pool.submit(lambda: (first.wait(10), _thread_name())[1])
    b = pool.submit(lambda: (second.wait(10), _thread_name())[1])
    first.set()
    assert a.result(timeout=5) == "last-idle-0"
    second.set()
    assert b.result(timeout=5) == "last-idle-1"
    assert pool.submit(_thread_name).result(timeout=5) == "last-idle-1"  # idle last, chosen first
    assert len(_pool_threads("last-idle")) == 2  # the third thread was never needed


def test_jobs_that_find_every_thread_busy_wait_in_order_and_a_cancelled_one_never_runs(pools) -> None:
    pool = pools(1, "backlog")
    gate, ran = threading.Event(), []
    blocker = pool.submit(lambda: gate.wait(10))
    waiting = [pool.submit(lambda i=i: ran.append(i)) for i in range(4)]
    assert waiting[2].cancel()  # still in the backlog: cancellable, and then skipped
    gate.set()
    assert blocker.result(timeout=5) is True
    for future in (waiting[0], waiting[1], waiting[3]):
        future.result(timeout=5)
    assert ran == [0, 1, 3]
    assert list(_pool_threads("backlog")) == ["backlog-0"]


def test_shutdown_ends_idle_threads_at_once_a_busy_one_after_the_backlog_and_refuses_new_jobs(
    pools,
) -> None:
    pool = pools(2, "closing")
    gate, ran = threading.Event(), []
    busy = pool.submit(lambda: gate.wait(10))
    assert pool.submit(_thread_name).result(timeout=5) == "closing-1"  # now idle
    queued = pool.submit(lambda: ran.append("queued"))  # taken by the idle thread
    queued.result(timeout=5)
    behind = [pool.submit(lambda: gate.wait(10)), pool.submit(lambda: ran.append("backlog"))]
    threads = _pool_threads("closing")  # both busy now, the last job in the backlog
    pool.shutdown()
    late = pool.submit(lambda: ran.append("late"))
    with pytest.raises(StorePoolError):  # at once, not at the caller's deadline
        late.result(timeout=0)
    gate.set()
    assert busy.result(timeout=5) is True and behind[0].result(timeout=5) is True
    behind[1].result(timeout=5)  # what was queued before the shutdown still ran
    for thread in threads.values():
        thread.join(timeout=5)
    assert ran == ["queued", "backlog"] and not _pool_threads("closing")


def test_a_closed_store_refuses_calls_at_once_with_store_error(tmp_path: Path) -> None:
    store = GuardedStore(
        SqliteStore(tmp_path / "x.db"), deadline=30.0, pool=StorePool(2), health=StoreHealth()
    )
    assert store.get("u").revision == 0
    store.close()
    started = time.monotonic()
    with pytest.raises(StoreError, match="pool"):
        store.get("u")
    with pytest.raises(StoreError):
        store.unit("turn.begin", lambda: store.get("u"))
    assert time.monotonic() - started < 10  # far inside the 30 s deadline: never waited for it


def test_when_no_thread_can_be_started_a_job_waits_for_a_living_one_or_fails_clearly(
    pools, monkeypatch
) -> None:
    real_start = threading.Thread.start

    def no_thread(self: threading.Thread) -> None:
        if self.name.startswith("no-thread-"):
            raise RuntimeError("can't start new thread")
        real_start(self)

    pool = pools(3, "no-thread")
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    with pytest.raises(StorePoolError):  # no thread at all: a clear error, not a hang
        pool.submit(_thread_name).result(timeout=5)
    monkeypatch.setattr(threading.Thread, "start", real_start)
    gate = threading.Event()
    busy = pool.submit(lambda: (gate.wait(10), _thread_name())[1])
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    waiting = pool.submit(_thread_name)  # no second thread to be had: waits for the living one
    gate.set()
    assert busy.result(timeout=5) == "no-thread-0" and waiting.result(timeout=5) == "no-thread-0"
    assert list(_pool_threads("no-thread")) == ["no-thread-0"]
    # The failed starts took no place: with threads to be had again, the pool grows as before.
    monkeypatch.setattr(threading.Thread, "start", real_start)
    gate.clear()
    held = pool.submit(lambda: gate.wait(10))
    assert pool.submit(_thread_name).result(timeout=5) == "no-thread-1"
    gate.set()
    assert held.result(timeout=5) is True


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the SystemExit
def test_a_thread_that_dies_outside_a_job_hands_back_its_jobs_and_its_place(pools) -> None:
    pool = pools(1, "dying")
    gate = threading.Event()
    first = pool.submit(lambda: gate.wait(10))
    dying = _pool_threads("dying")["dying-0"]
    waiting = pool.submit(_thread_name)  # in the backlog: the dying thread takes it before it dies
    first.add_done_callback(lambda _: sys.exit())  # runs on the worker, outside the job
    gate.set()
    assert first.result(timeout=5) is True
    assert waiting.result(timeout=5) == "dying-1"  # handed back, run by a new thread
    assert pool.submit(_thread_name).result(timeout=5) == "dying-1"
    dying.join(timeout=5)
    assert list(_pool_threads("dying")) == ["dying-1"]


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
