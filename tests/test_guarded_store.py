"""GuardedStore: a deadline on every store call, its own threads, and an honest health record."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from local_agent.context.errors import StaleContextError, StoreError
from local_agent.stores.guarded import UNAVAILABLE_AFTER, GuardedStore, StoreHealth, StorePool
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
    store = guarded(inner)
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        store.get("u")
    assert 0.25 < time.monotonic() - started < 2.0
    assert caught.value.code == "STORE_UNAVAILABLE" and "deadline" in caught.value.operation
    assert inner.threads and inner.threads[0].startswith("local-store")
    assert store.health.report()["timeouts"] == 1
    inner.release.set()


def test_health_goes_degraded_then_unavailable_and_back_to_ok_after_recovery() -> None:
    clock = Clock()
    inner = Hanging()
    store = guarded(inner, clock=clock)
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


def test_a_unit_runs_its_calls_on_one_store_thread_and_records_each_for_health() -> None:
    inner = Counting()
    store = guarded(inner)
    caller = threading.current_thread().name

    def step(user: str) -> tuple[str, str, str]:
        nested = store.unit("inner", lambda: store.get(user + "!"))  # a unit inside a unit: no hop
        return store.get(user), store.get(user), nested

    assert store.unit("turn.begin", step, "u") == ("u", "u", "u!")
    assert len(inner.threads) == 3 and len(set(inner.threads)) == 1
    assert inner.threads[0].startswith("local-store") and inner.threads[0] != caller
    assert store.health.report()["calls"] == 3 and store.health.state == "ok"
    assert store.get("after") == "after"  # the thread forgot the unit: a later call is a plain call
    assert store.health.report()["calls"] == 4

    with pytest.raises(StoreError):  # a failing call inside a unit is a failure for health
        store.unit("turn.finish", lambda: store.claim_event("e", now=0.0))
    assert store.health.report()["failures"] == 1 and store.health.state == "degraded"


def test_a_unit_that_hangs_ends_at_one_deadline_for_all_of_its_calls() -> None:
    inner = Hanging()
    store = guarded(inner, deadline=0.3)
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        store.unit("turn.finish", lambda: (store.get("a"), store.get("b")))
    assert 0.25 < time.monotonic() - started < 2.0
    assert caught.value.operation == "turn.finish (deadline)"
    assert store.health.report()["timeouts"] == 1
    inner.release.set()
