"""One conformance suite for every store adapter: SQLite (a file under tmp_path) and Firestore
(the emulator started by the ``firestore_emulator`` fixture).

Both must behave identically on the ports (journal, preferences, audit, snapshots, dedupe).
The Firestore emulator resolves transaction conflicts with a fixed 2 s lock timeout per
conflict, so its concurrency tests use fewer writers than SQLite's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from local_agent.context.errors import StaleContextError, StoreError
from local_agent.context.journal import ContextJournal, JournalRecord, ScopeKey
from local_agent.context.projection import SafeTurn
from local_agent.context.townships import TOWNSHIPS
from local_agent.context.window import ContextWindow
from local_agent.stores.ports import (
    FORGOTTEN_MARK,
    RECORD_RETENTION_SECONDS,
    AuditRow,
    InboxEntry,
    PreferenceState,
    TurnSnapshot,
)
from local_agent.stores.sqlite import SqliteStore
from local_agent.stores.usage import UsageRow

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Backend:
    name: str
    store: Any
    emulator: Any = None  # the FirestoreEmulator, for the Firestore backend

    # Concurrency sizes: (writers, appends each), number of concurrent consent changes.
    @property
    def journal_load(self) -> tuple[int, int]:
        return (8, 10) if self.name == "sqlite" else (3, 2)

    @property
    def consent_load(self) -> int:
        return 40 if self.name == "sqlite" else 3

    def require_isolation(self) -> None:
        if self.emulator is not None and not self.emulator.isolates_transactions:
            pytest.skip(
                f"{self.emulator.kind} emulator does not isolate transactions: "
                "contention cannot be tested on it"
            )


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        store = SqliteStore(tmp_path / "local.db")
        yield Backend("sqlite", store)
        store.close()
    else:
        yield Backend(
            "firestore",
            request.getfixturevalue("firestore_store"),
            request.getfixturevalue("firestore_emulator"),
        )


@pytest.fixture
def store(backend: Backend) -> Any:
    return backend.store


def turn(i: int) -> SafeTurn:
    return SafeTurn("places" if i % 2 == 0 else "events", TOWNSHIPS[i % len(TOWNSHIPS)])


def run_threads(count: int, target: Callable[[int, threading.Barrier], None], timeout: float = 120) -> None:
    """Start ``count`` threads together; re-raise the first error any of them hit."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def wrapped(i: int) -> None:
        try:
            target(i, barrier)
        except BaseException as exc:  # re-raised by the caller below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=wrapped, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "a writer thread hung"
    if errors:
        raise errors[0]


USER = ScopeKey.for_user("U1")


# -- revision gate ---------------------------------------------------------------------------
def test_window_written_under_old_revision_is_not_read_after_consent(store, clock) -> None:
    journal = ContextJournal(store, clock=clock)
    assert store.get("U1").revision == 0
    journal.append(journal.read(USER, 0), turn(0), current_revision=0)
    assert journal.read(USER, 0).status == "fresh"

    granted = store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    assert granted.revision == 1
    snap = journal.read(USER, store.get("U1").revision)
    assert (snap.status, snap.window, snap.revision) == ("revision_mismatch", ContextWindow(), 1)


def test_append_with_stale_snapshot_is_refused(store, clock) -> None:
    journal = ContextJournal(store, clock=clock)
    stale = journal.read(USER, 0)
    store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    with pytest.raises(StaleContextError) as err:
        journal.append(stale, turn(0), current_revision=store.get("U1").revision)
    assert (err.value.snapshot_revision, err.value.current_revision) == (0, 1)
    assert store.load(USER.storage_id) is None


def test_newer_revision_record_is_never_overwritten_by_older_append(store, clock) -> None:
    journal = ContextJournal(store, clock=clock)
    old = journal.read(USER, 0)  # a slow turn that read under revision 0
    store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    newer = journal.append(journal.read(USER, 1), turn(1), current_revision=1)
    assert (newer.preference_revision, newer.version) == (1, 1)

    # The slow turn still believes revision 0 is current: the store's transaction refuses it,
    # and the StaleContextError raised inside the transaction arrives unchanged.
    clock.advance(1)
    with pytest.raises(StaleContextError) as err:
        journal.append(old, turn(2), current_revision=0)
    assert type(err.value) is StaleContextError
    assert (err.value.snapshot_revision, err.value.current_revision) == (0, 1)
    assert store.load(USER.storage_id) == newer


def test_mutation_errors_propagate_unchanged_and_write_nothing(store) -> None:
    record = JournalRecord(ContextWindow().append(turn(0)), 0, 100.0, 1)
    store.update("scope-a", lambda _: record)

    class Boom(Exception):
        pass

    boom = Boom("no")

    def explode(current: JournalRecord | None) -> JournalRecord:
        assert current == record
        raise boom

    with pytest.raises(Boom) as err:
        store.update("scope-a", explode)
    assert err.value is boom
    with pytest.raises(ValueError, match="granting consent needs a dietary type"):
        store.set_consent("U1", consent="granted", dietary_type=None, now=1.0)
    assert store.load("scope-a") == record
    assert store.get("U1") == PreferenceState("U1")


def test_update_returning_none_deletes(store) -> None:
    record = JournalRecord(ContextWindow(), 0, 5.0, 1)
    assert store.update("scope/with odd:chars", lambda _: record) == record
    assert store.load("scope/with odd:chars") == record
    assert store.journal_rows() == {"scope/with odd:chars": record.to_dict()}
    assert store.update("scope/with odd:chars", lambda current: None) is None
    assert store.load("scope/with odd:chars") is None
    assert store.update("never-written", lambda current: None) is None
    assert store.journal_rows() == {}


# -- sliding TTL -----------------------------------------------------------------------------
def test_sliding_ttl_with_injected_clock(store, clock) -> None:
    journal = ContextJournal(store, clock=clock)
    start = clock()
    journal.append(journal.read(USER, 0), turn(0), current_revision=0)

    clock.advance(900)
    snap = journal.read(USER, 0)
    assert (snap.status, snap.window.labels()) == ("fresh", [turn(0).label])
    journal.append(snap, turn(1), current_revision=0)  # each write refreshes the TTL
    assert store.load(USER.storage_id).updated_at == start + 900

    clock.advance(900)
    snap = journal.read(USER, 0)
    assert (snap.status, snap.window.labels()) == ("fresh", [turn(0).label, turn(1).label])

    clock.advance(0.001)
    snap = journal.read(USER, 0)
    assert (snap.status, snap.window) == ("expired", ContextWindow())

    stored = journal.append(snap, turn(2), current_revision=0)  # an expired window is not reused
    assert (stored.window.labels(), stored.version, stored.updated_at) == ([turn(2).label], 3, clock())


def test_clear(store, clock) -> None:
    journal = ContextJournal(store, clock=clock)
    journal.append(journal.read(USER, 0), turn(0), current_revision=0)
    journal.clear(USER)
    assert journal.read(USER, 0).status == "empty"
    assert store.load(USER.storage_id) is None
    journal.clear(USER)  # clearing nothing is fine
    assert store.journal_rows() == {}


# -- scope isolation -------------------------------------------------------------------------
def test_scope_isolation(store, clock) -> None:
    journal = ContextJournal(store, clock=clock)
    alice, bob = ScopeKey.for_user("Ualice"), ScopeKey.for_user("Ubob")
    alice_in_group = ScopeKey("local", "group", "Cgroup1", "Ualice")
    bob_in_group = ScopeKey("local", "group", "Cgroup1", "Ubob")
    scopes = [alice, bob, alice_in_group, bob_in_group]
    assert len({s.storage_id for s in scopes}) == 4

    for i, scope in enumerate(scopes):
        journal.append(journal.read(scope, 0), turn(i), current_revision=0)
    for i, scope in enumerate(scopes):
        assert journal.read(scope, 0).window.labels() == [turn(i).label]

    journal.clear(alice_in_group)
    assert journal.read(alice_in_group, 0).status == "empty"
    assert journal.read(alice, 0).window.labels() == [turn(0).label]
    assert journal.read(bob_in_group, 0).window.labels() == [turn(3).label]

    rows = store.journal_rows()
    assert list(rows) == sorted(s.storage_id for s in (alice, bob, bob_in_group))
    assert rows[bob.storage_id] == store.load(bob.storage_id).to_dict()

    store.set_consent("Ualice", consent="granted", dietary_type="vegan", now=clock())
    assert store.get("Ubob") == PreferenceState("Ubob")


# -- consent and forget ----------------------------------------------------------------------
def test_consent_and_forget_revisions(store, clock) -> None:
    assert store.get("U1") == PreferenceState("U1", None, "none", 0, 0.0)
    t0 = clock()
    granted = store.set_consent("U1", consent="granted", dietary_type="vegan", now=t0)
    assert granted == PreferenceState("U1", "vegan", "granted", 1, t0)
    assert store.get("U1") == granted

    clock.advance(10)
    forgotten = store.set_consent("U1", consent="forgotten", dietary_type="vegan", now=clock())
    assert forgotten == PreferenceState("U1", None, "forgotten", 2, t0 + 10)
    assert store.get("U1").dietary_type is None

    clock.advance(10)
    refused = store.set_consent("U1", consent="refused", dietary_type=None, now=clock())
    assert (refused.revision, refused.consent, refused.dietary_type) == (3, "refused", None)

    store.set_consent("U2", consent="refused", dietary_type=None, now=t0)
    assert store.get("U2").revision == 1
    with pytest.raises(ValueError):
        store.set_consent("U2", consent="none", dietary_type=None, now=t0)
    assert store.preference_rows() == [
        refused.to_dict(),
        PreferenceState("U2", None, "refused", 1, t0).to_dict(),
    ]


# -- webhook dedupe --------------------------------------------------------------------------
def test_dedupe_claims_once_until_expiry(store, clock) -> None:
    now = clock()
    assert store.claim_event("ev-1", now=now) is True
    assert store.claim_event("ev-1", now=now) is False
    assert store.claim_event("ev-2", now=now) is True
    assert store.claim_event("ev-1", now=now + 86399.999) is False
    assert store.claim_event("ev-1", now=now + 86400) is True  # expire_at <= now: expired
    assert store.claim_event("ev-1", now=now + 86400) is False
    assert store.claim_event("ev/odd id", now=now, ttl=10) is True
    assert store.claim_event("ev/odd id", now=now + 9.5, ttl=10) is False
    assert store.claim_event("ev/odd id", now=now + 10, ttl=10) is True


def test_concurrent_first_claims_have_one_winner(store, clock) -> None:
    results: list[bool] = []

    def claim(_: int, barrier: threading.Barrier) -> None:
        barrier.wait(30)
        results.append(store.claim_event("ev-race", now=clock()))

    run_threads(6, claim)
    assert sorted(results) == [False] * 5 + [True]


# -- event leases (LOCAL_QUEUE=pubsub) -------------------------------------------------------
def test_a_lease_is_held_until_it_lapses_then_taken_over(store, clock) -> None:
    now = clock()
    assert store.lease_event("ev-1", holder="A", now=now, lease=10) == "claimed"
    assert store.lease_event("ev-1", holder="B", now=now + 5, lease=10) == "held"
    assert store.lease_event("ev-1", holder="A", now=now + 9, lease=10) == "claimed"  # renewed to +19
    assert store.lease_event("ev-1", holder="B", now=now + 18.9, lease=10) == "held"
    assert store.lease_event("ev-1", holder="B", now=now + 19, lease=10) == "claimed"  # A died: taken over
    assert store.finish_event("ev-1", holder="A", now=now + 20) is False  # A lost it: not A's to finish
    assert store.lease_event("ev-1", holder="A", now=now + 20, lease=10) == "held"
    assert store.lease_event("ev/odd id", holder="A", now=now, lease=10) == "claimed"


def test_a_finished_event_never_runs_again(store, clock) -> None:
    now = clock()
    assert store.lease_event("ev-2", holder="A", now=now, lease=10) == "claimed"
    assert store.finish_event("ev-2", holder="A", now=now + 1) is True
    for holder, at in (("A", now + 2), ("B", now + 100), ("C", now + 86000)):
        assert store.lease_event("ev-2", holder=holder, now=at, lease=10) == "done"
    assert store.finish_event("ev-2", holder="A", now=now + 3) is False
    assert store.release_event("ev-2", holder="A") is False  # a finished event stays finished
    assert store.lease_event("ev-2", holder="B", now=now + 1 + 86400, lease=10) == "claimed"  # record expired
    assert store.finish_event("ev-unknown", holder="A", now=now) is False


def test_a_released_lease_is_free_at_once(store, clock) -> None:
    now = clock()
    assert store.lease_event("ev-3", holder="A", now=now, lease=600) == "claimed"
    assert store.release_event("ev-3", holder="B") is False  # not B's
    assert store.lease_event("ev-3", holder="B", now=now + 1, lease=600) == "held"
    assert store.release_event("ev-3", holder="A") is True
    assert store.lease_event("ev-3", holder="B", now=now + 1, lease=600) == "claimed"


def test_concurrent_leases_have_one_holder(store, clock) -> None:
    results: list[str] = []

    def claim(i: int, barrier: threading.Barrier) -> None:
        barrier.wait(30)
        results.append(store.lease_event("ev-race", holder=f"h{i}", now=clock(), lease=60))

    run_threads(4, claim)
    assert sorted(results) == ["claimed"] + ["held"] * 3


# -- a consent button acts once --------------------------------------------------------------
def test_a_decision_at_a_moved_revision_changes_nothing(store, clock) -> None:
    first = store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock(), expected_revision=0)
    assert (first.revision, first.dietary_type) == (1, "vegan")
    with pytest.raises(StaleContextError):
        store.set_consent("U1", consent="refused", dietary_type=None, now=clock(), expected_revision=0)
    assert store.get("U1") == first


def test_concurrent_taps_of_one_button_have_one_winner(backend: Backend, clock) -> None:
    backend.require_isolation()
    won: list[int] = []
    refused: list[int] = []

    def tap(i: int, barrier: threading.Barrier) -> None:
        barrier.wait(30)
        try:
            consent = "granted" if i % 2 else "refused"
            diet = "vegan" if i % 2 else None
            backend.store.set_consent(
                "U1", consent=consent, dietary_type=diet, now=clock(), expected_revision=0
            )
            won.append(i)
        except StaleContextError:
            refused.append(i)

    taps = 6 if backend.name == "sqlite" else 2
    run_threads(taps, tap)
    assert (len(won), len(refused)) == (1, taps - 1)
    assert backend.store.get("U1").revision == 1


# -- concurrency -----------------------------------------------------------------------------
def test_concurrent_appends_lose_no_update(backend: Backend, clock) -> None:
    backend.require_isolation()
    writers, each = backend.journal_load
    journal = ContextJournal(backend.store, clock=clock)
    turn_of_version: dict[int, SafeTurn] = {}
    lock = threading.Lock()

    def write(w: int, barrier: threading.Barrier) -> None:
        barrier.wait(30)
        for k in range(each):
            t = turn(w * each + k)
            stored = journal.append(journal.read(USER, 0), t, current_revision=0)
            with lock:
                assert stored.version not in turn_of_version, "two appends got one version"
                turn_of_version[stored.version] = t

    run_threads(writers, write)
    total = writers * each
    final = backend.store.load(USER.storage_id)
    assert final.version == total
    assert sorted(turn_of_version) == list(range(1, total + 1))
    assert final.window.turns == (turn_of_version[total - 1], turn_of_version[total])


def test_concurrent_consent_changes_each_bump_revision(backend: Backend, clock) -> None:
    backend.require_isolation()
    changes = backend.consent_load
    revisions: list[int] = []

    threads = min(changes, 8)
    per_thread = changes // threads
    assert threads * per_thread == changes

    def change(i: int, barrier: threading.Barrier) -> None:
        barrier.wait(30)
        for k in range(per_thread):
            consent = ("granted", "refused", "forgotten")[(i + k) % 3]
            state = backend.store.set_consent("U1", consent=consent, dietary_type="vegan", now=clock())
            revisions.append(state.revision)

    run_threads(threads, change)
    assert sorted(revisions) == list(range(1, changes + 1))
    assert backend.store.get("U1").revision == changes


# -- audit and snapshots ---------------------------------------------------------------------
AUDIT = [
    AuditRow(
        scope_id="s1",
        turn_id="t1",
        tool="search_local_places",
        proposed_arguments={"area": "鹿港", "dietary": "vegan"},
        effective_arguments={"area": "鹿港鎮", "dietary": None, "limits": [1, 2.5, True]},
        memory_revision=1,
        preference_origin="consented_memory",
        status="ok",
        at=200.5,
    ),
    AuditRow(
        scope_id="s2",
        turn_id="t2",
        tool="search_local_events",
        proposed_arguments={},
        effective_arguments={"nested": {"a": {"b": ["x", "y"]}}},
        memory_revision=0,
        preference_origin="none",
        status="error",
        at=100.25,
    ),
    AuditRow(
        scope_id="s1",
        turn_id="t3",
        tool="search_local_events",
        proposed_arguments={"area": "員林"},
        effective_arguments={"area": "員林市"},
        memory_revision=2,
        preference_origin="explicit",
        status="ok",
        at=150.0,
    ),
]

SNAPSHOTS = [
    TurnSnapshot(
        "s1",
        "t1",
        300.0,
        {
            "contents": [["user", "sha256:ab12", 14], ["model", "投影"]],
            "budget": {"limit": 4096, "used": 1234.5},
            "empty": {},
            "none": None,
        },
    ),
    TurnSnapshot("s2", "t2", 10.0, {}),
    TurnSnapshot("s1", "t3", 299.0, {"summary": {"goal": "events", "area": "花壇鄉"}, "turns": []}),
]


def test_audit_round_trip_keeps_insertion_order(store) -> None:
    for row in AUDIT:
        store.append_audit(row)
    assert [r.to_dict() for r in store.audit_rows()] == [r.to_dict() for r in AUDIT]
    assert [r.to_dict() for r in store.audit_rows("s1")] == [AUDIT[0].to_dict(), AUDIT[2].to_dict()]
    assert store.audit_rows("nobody") == []
    assert store.audit_rows() == AUDIT


def test_a_forget_replaces_the_remembered_diet_in_its_chat_s_audit_rows_only(store) -> None:
    def row(scope: str, turn: str, diet: str, origin: str) -> AuditRow:
        args = {"area": "花壇鄉", "dietary_type": diet, "keyword": ""}
        proposed = {**args, "dietary_type": ""}
        return AuditRow(
            scope_id=scope,
            turn_id=turn,
            tool="search_local_places",
            proposed_arguments=proposed,
            memory_revision=1,
            effective_arguments=args,
            preference_origin=origin,
            status="ok",
            at=1.0,
        )

    rows = [
        row("mine", "t1", "vegetarian", "consented_memory"),
        row("mine", "t2", "vegan", "explicit"),  # said in that sentence, not remembered
        row("other", "t3", "vegetarian", "consented_memory"),
        row("mine", "t4", "vegetarian", "consented_memory"),
    ]
    for r in rows:
        store.append_audit(r)
    assert store.forget_audited_memory("mine") == 2
    assert store.forget_audited_memory("mine") == 0  # again: nothing left to replace
    assert store.forget_audited_memory("nobody") == 0
    after = {r.turn_id: r for r in store.audit_rows()}
    assert after["t1"].effective_arguments == {**rows[0].effective_arguments, "dietary_type": FORGOTTEN_MARK}
    assert after["t4"].effective_arguments["dietary_type"] == FORGOTTEN_MARK
    assert after["t2"] == rows[1] and after["t3"] == rows[2]
    # The rest of each row stays as the evidence of what ran (revision, origin, proposal, status).
    assert after["t1"].to_dict() | {"effective_arguments": None} == rows[0].to_dict() | {
        "effective_arguments": None
    }


def test_snapshot_round_trip_keeps_insertion_order(store) -> None:
    for snap in SNAPSHOTS:
        store.append_snapshot(snap)
    assert [s.to_dict() for s in store.snapshots()] == [s.to_dict() for s in SNAPSHOTS]
    assert store.snapshots("s1") == [SNAPSHOTS[0], SNAPSHOTS[2]]
    assert store.snapshots("nobody") == []


USAGE = [
    UsageRow(100.0, "turn", "p1", "user", "answered", "places", "花壇鄉", found=3, delivery="reply"),
    UsageRow(
        100.0, "turn", "p2", "group", "found_nothing", "events", "鹿港鎮", "2026-12-05", "2026-12-06", 0
    ),
    UsageRow(50.0, "unfollow", "p1", "user", "deleted"),
    UsageRow(200.0, "retry", "", "room", delivery="late"),
]


def test_usage_rows_round_trip_in_time_order_within_the_period(store) -> None:
    for row in USAGE:
        store.append_usage(row)
    assert store.usage_rows(0, 1000) == [USAGE[2], USAGE[0], USAGE[1], USAGE[3]]
    assert store.usage_rows(100, 200) == [USAGE[0], USAGE[1]]  # since inclusive, until exclusive
    assert store.usage_rows(201, 300) == []


def test_close_then_use_again(store, clock) -> None:
    store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    store.close()
    assert store.get("U1").revision == 1


# -- Firestore specifics ---------------------------------------------------------------------
@pytest.mark.firestore
def test_firestore_documents_carry_expire_at(firestore_store, firestore_project, clock) -> None:
    from google.cloud import firestore

    journal = ContextJournal(firestore_store, clock=clock)
    journal.append(journal.read(USER, 0), turn(0), current_revision=0)
    firestore_store.claim_event("ev-ttl", now=clock())
    client = firestore.Client(project=firestore_project)
    doc = client.collection("local_journal").document(USER.storage_id).get().to_dict()
    assert doc["expire_at"] == datetime.fromtimestamp(clock() + 900, tz=UTC)
    assert doc["expire_at"].tzinfo is not None
    event = client.collection("local_webhook_events").document("ev-ttl").get().to_dict()
    assert event["expire_at"] == datetime.fromtimestamp(clock() + 86400, tz=UTC)

    clock.advance(30)
    journal.append(journal.read(USER, 0), turn(1), current_revision=0)
    doc = client.collection("local_journal").document(USER.storage_id).get().to_dict()
    assert doc["expire_at"] == datetime.fromtimestamp(clock() + 900, tz=UTC)

    firestore_store.append_audit(
        AuditRow(
            scope_id="s",
            tool="search_local_places",
            proposed_arguments={},
            effective_arguments={},
            memory_revision=0,
            preference_origin="none",
            status="ok",
            at=clock(),
        )
    )
    firestore_store.append_snapshot(TurnSnapshot("s", "t", clock(), {"count": 1}))
    for collection in ("local_audit", "local_snapshots"):
        (row,) = [d.to_dict() for d in client.collection(collection).stream()]
        assert row["expire_at"] == datetime.fromtimestamp(clock() + RECORD_RETENTION_SECONDS, tz=UTC)


def test_sqlite_purge_drops_only_what_outlived_its_use(tmp_path, clock) -> None:
    store = SqliteStore(tmp_path / "purge.db")
    journal = ContextJournal(store, clock=clock)
    old_scope, fresh_scope = ScopeKey.for_user("Uold"), ScopeKey.for_user("Ufresh")
    journal.append(journal.read(old_scope, 0), turn(0), current_revision=0)
    store.claim_event("ev-old", now=clock(), ttl=60)
    store.lease_event("ev-leased", holder="A", now=clock(), lease=10, ttl=60)
    store.inbox_accept(
        [InboxEntry("ev-inbox", "s", clock(), 0, b"sealed")], holder="A", now=clock(), lease=10
    )
    store.append_audit(
        AuditRow(
            scope_id="s",
            tool="search_local_places",
            proposed_arguments={},
            effective_arguments={},
            memory_revision=0,
            preference_origin="none",
            status="ok",
            at=clock(),
        )
    )
    store.append_snapshot(TurnSnapshot("s", "old", clock(), {}))
    clock.advance(RECORD_RETENTION_SECONDS + 1)
    journal.append(journal.read(fresh_scope, 0), turn(1), current_revision=0)
    store.append_snapshot(TurnSnapshot("s", "new", clock(), {}))
    store.append_usage(UsageRow(clock() - RECORD_RETENTION_SECONDS - 1, "turn", "p", "user", "talk"))
    store.append_usage(UsageRow(clock(), "turn", "p", "user", "talk"))
    counts = store.purge_expired(clock())
    assert counts == {
        "audit": 1,
        "snapshots": 1,
        "usage": 1,
        "webhook_events": 2,
        "event_leases": 1,
        "inbox": 1,
        "journal": 1,
    }
    assert [s.turn_id for s in store.snapshots()] == ["new"] and store.audit_rows() == []
    assert set(store.journal_rows()) == {fresh_scope.storage_id}
    assert [r.at for r in store.usage_rows(0, clock() + 1)] == [clock()]
    assert store.purge_expired(clock()) == {
        "audit": 0,
        "snapshots": 0,
        "usage": 0,
        "webhook_events": 0,
        "event_leases": 0,
        "inbox": 0,
        "journal": 0,
    }
    store.close()


@pytest.mark.firestore
def test_firestore_exhausted_transaction_retries_become_store_error(
    firestore_emulator, firestore_project
) -> None:
    if not firestore_emulator.isolates_transactions:
        pytest.skip(f"{firestore_emulator.kind} emulator does not isolate transactions")
    from local_agent.stores.firestore import FirestoreStore

    store = FirestoreStore(project=firestore_project, max_attempts=1)
    record = JournalRecord(ContextWindow(), 0, 1.0, 1)
    outcomes: list[object] = []

    def write(_: int, barrier: threading.Barrier) -> None:
        def mutate(current: JournalRecord | None) -> JournalRecord:
            barrier.wait(30)  # both transactions have read the document: one must abort
            return record

        try:
            outcomes.append(store.update("contended", mutate))
        except StoreError as exc:
            outcomes.append(exc)

    try:
        run_threads(2, write)
    finally:
        store.close()
    # Two transactions that both read before either writes: at least one is aborted. Depending on
    # timing the emulator aborts one (the other commits) or, when each waits on the other's lock
    # past its 2 s timeout, both; with one attempt allowed, every abort must surface as StoreError.
    errors = [o for o in outcomes if isinstance(o, StoreError)]
    assert len(outcomes) == 2 and len(errors) >= 1 and len(errors) + outcomes.count(record) == 2, outcomes
    assert {(e.operation, e.backend) for e in errors} == {("journal.update", "firestore")}


class _Unavailable:
    """A client whose every call fails the way google.api_core reports an outage."""

    def __init__(self, exc: Exception) -> None:
        self.exc, self.project = exc, "stub"

    def collection(self, name: str) -> _Unavailable:
        return self

    def document(self, doc_id: str) -> _Unavailable:
        return self

    def where(self, **_: object) -> _Unavailable:
        return self

    def _fail(self, *args: object, **kwargs: object):
        raise self.exc

    get = create = set = delete = stream = transaction = _fail


@pytest.mark.parametrize("error", ["ServiceUnavailable", "DeadlineExceeded", "RetryError", "Aborted"])
def test_firestore_api_errors_become_store_error(error: str) -> None:
    pytest.importorskip("google.cloud.firestore")
    from google.api_core import exceptions

    from local_agent.stores.firestore import FirestoreStore

    exc = (
        exceptions.RetryError("gave up", None)
        if error == "RetryError"
        else getattr(exceptions, error)("down")
    )
    store = FirestoreStore(project="stub", client=_Unavailable(exc))
    calls = {
        "journal.load": lambda: store.load("s"),
        "journal.update": lambda: store.update("s", lambda r: r),
        "journal.delete": lambda: store.delete("s"),
        "journal.dump": store.journal_rows,
        "preferences.get": lambda: store.get("U1"),
        "preferences.set_consent": lambda: store.set_consent(
            "U1", consent="refused", dietary_type=None, now=1.0
        ),
        "preferences.dump": store.preference_rows,
        "audit.append": lambda: store.append_audit(AUDIT[0]),
        "audit.read": lambda: store.audit_rows("s1"),
        "snapshots.append": lambda: store.append_snapshot(SNAPSHOTS[0]),
        "snapshots.read": store.snapshots,
        "dedupe.claim": lambda: store.claim_event("ev", now=1.0),
    }
    for operation, call in calls.items():
        with pytest.raises(StoreError) as err:
            call()
        assert (err.value.operation, err.value.backend) == (operation, "firestore")
        assert err.value.__cause__ is exc


def test_firestore_is_imported_only_by_its_adapter() -> None:
    code = (
        "import sys, local_agent, local_agent.stores.ports, local_agent.stores.sqlite, local_agent.stores.firestore\n"
        "bad = sorted(m for m in sys.modules if m.startswith('google.cloud.firestore'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "local_agent").rglob("*.py")
        if p.relative_to(ROOT).as_posix() != "local_agent/stores/firestore.py"
        and (
            "google.cloud.firestore" in (text := p.read_text(encoding="utf-8"))
            or "from google.cloud import firestore" in text
        )
    ]
    assert offenders == []


@pytest.mark.firestore
def test_firestore_emulator_host_from_a_dot_env_file_reaches_the_client(
    firestore_emulator, firestore_project, tmp_path, monkeypatch
) -> None:
    """The Firestore client reads only the process environment; the setting (e.g. from ``.env``)
    is handed on by ``open_store`` unless the environment already has one."""
    from local_agent.settings import Settings
    from local_agent.wiring import open_store

    env_file = tmp_path / ".env"
    env_file.write_text(
        "LINE_CHANNEL_SECRET=0123456789abcdef-real-channel-secret\n"
        "LINE_CHANNEL_ACCESS_TOKEN=real-access-token-ABCDEFGHIJKLMNOP\n"
        f"LOCAL_STORE=firestore\nGOOGLE_CLOUD_PROJECT={firestore_project}\n"
        f"FIRESTORE_EMULATOR_HOST={firestore_emulator.endpoint}\n"
    )
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", "recorded-so-monkeypatch-restores-it")
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST")
    for name in ("LOCAL_STORE", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=env_file)
    assert settings.firestore_emulator_host == firestore_emulator.endpoint
    store = open_store(settings)
    try:
        assert os.environ["FIRESTORE_EMULATOR_HOST"] == firestore_emulator.endpoint
        store.append_audit(AUDIT[0])  # reaches the emulator, not a real project
        assert store.audit_rows(AUDIT[0].scope_id) == [AUDIT[0]]
    finally:
        store.close()
