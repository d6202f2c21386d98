"""ScopeKey and ContextJournal on both storage backends here: memory and SQLite."""

from __future__ import annotations

import threading

import pytest

from local_agent.context.errors import ScopeError, StaleContextError
from local_agent.context.journal import (
    TTL_SECONDS,
    ContextJournal,
    JournalRecord,
    MemoryJournalStorage,
    ScopeKey,
)
from local_agent.context.projection import SafeTurn
from local_agent.context.window import ContextSummary, ContextWindow
from local_agent.stores.sqlite import SqliteStore

PLACES = SafeTurn("places", "花壇鄉")
EVENTS = SafeTurn("events", "花壇鄉")
OTHER = SafeTurn()

ALICE = ScopeKey.for_user("Ualice")
BOB = ScopeKey.for_user("Ubob")


# -- ScopeKey ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source_type", ["", "USER", "channel", "private", None])
def test_scope_rejects_unknown_source_type(source_type):
    with pytest.raises(ScopeError) as info:
        ScopeKey("local", source_type, "Cgroup", "Ualice")
    assert info.value.code == "INVALID_SCOPE"


@pytest.mark.parametrize(
    "destination,source_id,user_id",
    [
        ("", "Cgroup", "Ualice"),
        ("local", "", "Ualice"),
        ("local", "Cgroup", ""),
        ("local", None, "Ualice"),
        ("local", "Cgroup", 7),
        ("x" * 201, "Cgroup", "Ualice"),
    ],
)
def test_scope_rejects_empty_or_non_string_ids(destination, source_id, user_id):
    with pytest.raises(ScopeError):
        ScopeKey(destination, "group", source_id, user_id)


def test_one_to_one_scope_source_id_must_equal_user_id():
    with pytest.raises(ScopeError):
        ScopeKey("local", "user", "Ubob", "Ualice")
    scope = ScopeKey("local", "user", "Ualice", "Ualice")
    assert scope == ScopeKey.for_user("Ualice")


def test_group_and_room_scopes_may_differ_from_user_id():
    assert ScopeKey("local", "group", "Cgroup", "Ualice").source_id == "Cgroup"
    assert ScopeKey("local", "room", "Rroom", "Ualice").source_type == "room"


def test_storage_id_is_stable_fixed_length_and_slash_free():
    a = ScopeKey("local", "group", "Cgroup", "Ualice")
    b = ScopeKey("local", "group", "Cgroup", "Ualice")
    assert a.storage_id == b.storage_id
    assert len(a.storage_id) == 40
    assert all(c in "0123456789abcdef" for c in a.storage_id)
    assert "/" not in ScopeKey("a/b", "group", "c/d", "e/f").storage_id


def test_storage_id_distinguishes_group_one_to_one_users_and_destinations():
    ids = {
        ScopeKey.for_user("Ualice").storage_id,
        ScopeKey("local", "group", "Cgroup", "Ualice").storage_id,
        ScopeKey("local", "room", "Cgroup", "Ualice").storage_id,
        ScopeKey("local", "group", "Cgroup", "Ubob").storage_id,
        ScopeKey("other", "group", "Cgroup", "Ualice").storage_id,
        ScopeKey.for_user("Ualice", destination="other").storage_id,
        # Field boundaries are not ambiguous: "a|b" + "c" is not "a" + "b|c".
        ScopeKey("local", "group", "Cab", "Uc").storage_id,
        ScopeKey("local", "group", "Ca", "Ubc").storage_id,
    }
    assert len(ids) == 8


# -- ContextJournal on both backends ---------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def storage(request, tmp_path):
    if request.param == "memory":
        yield MemoryJournalStorage()
        return
    store = SqliteStore(tmp_path / "local.sqlite3")
    yield store
    store.close()


@pytest.fixture
def journal(storage, clock):
    return ContextJournal(storage, clock=clock)


def write(journal: ContextJournal, scope: ScopeKey, turn: SafeTurn, revision: int = 0) -> JournalRecord:
    snap = journal.read(scope, revision)
    return journal.append(snap, turn, current_revision=revision)


def test_ttl_is_fifteen_minutes():
    assert TTL_SECONDS == 900.0


def test_read_of_unknown_scope_is_empty(journal):
    snap = journal.read(ALICE, 0)
    assert snap.window == ContextWindow()
    assert snap.status == "empty"
    assert snap.revision == 0
    assert snap.scope == ALICE


def test_append_then_read_returns_the_window(journal, clock):
    record = write(journal, ALICE, PLACES)
    assert record.window.turns == (PLACES,)
    assert record.preference_revision == 0
    assert record.updated_at == clock.now
    assert record.version == 1
    snap = journal.read(ALICE, 0)
    assert snap.status == "fresh"
    assert snap.window.turns == (PLACES,)
    assert snap.read_at == clock.now


def test_journal_keeps_two_turns_and_absorbs_the_oldest(journal):
    for turn in (PLACES, EVENTS, OTHER, OTHER):
        record = write(journal, ALICE, turn)
    assert record.version == 4
    snap = journal.read(ALICE, 0)
    assert snap.window.turns == (OTHER, OTHER)
    assert snap.window.summary == ContextSummary("events", "花壇鄉")


def test_window_is_fresh_at_exactly_900_seconds(journal, clock):
    write(journal, ALICE, PLACES)
    clock.advance(900)
    snap = journal.read(ALICE, 0)
    assert snap.status == "fresh"
    assert snap.window.turns == (PLACES,)


def test_window_expires_just_after_900_seconds(journal, clock):
    write(journal, ALICE, PLACES)
    clock.advance(900.001)
    snap = journal.read(ALICE, 0)
    assert snap.status == "expired"
    assert snap.window == ContextWindow()


def test_ttl_slides_with_every_write(journal, clock):
    write(journal, ALICE, PLACES)
    clock.advance(800)
    write(journal, ALICE, EVENTS)
    clock.advance(800)  # 1600 s after the first write, 800 s after the last
    snap = journal.read(ALICE, 0)
    assert snap.status == "fresh"
    assert snap.window.turns == (PLACES, EVENTS)


def test_reading_does_not_refresh_the_ttl(journal, clock):
    write(journal, ALICE, PLACES)
    clock.advance(600)
    journal.read(ALICE, 0)
    clock.advance(301)
    assert journal.read(ALICE, 0).status == "expired"


def test_append_after_expiry_starts_a_fresh_window(journal, clock):
    for turn in (PLACES, EVENTS, OTHER):
        write(journal, ALICE, turn)
    clock.advance(901)
    record = write(journal, ALICE, OTHER)
    assert record.window.turns == (OTHER,)
    assert record.window.summary.is_empty
    assert journal.read(ALICE, 0).window == ContextWindow((OTHER,))


def test_revision_mismatch_reads_empty(journal):
    write(journal, ALICE, PLACES, revision=0)
    snap = journal.read(ALICE, 1)
    assert snap.status == "revision_mismatch"
    assert snap.window == ContextWindow()
    assert snap.revision == 1
    # An older revision is not readable either.
    write(journal, BOB, PLACES, revision=3)
    assert journal.read(BOB, 2).window == ContextWindow()


def test_assert_current_refuses_a_stale_snapshot(journal):
    snap = journal.read(ALICE, 1)
    journal.assert_current(snap, 1)
    with pytest.raises(StaleContextError) as info:
        journal.assert_current(snap, 2)
    assert info.value.code == "STALE_CONTEXT_SNAPSHOT"
    assert info.value.snapshot_revision == 1 and info.value.current_revision == 2


def test_append_with_a_stale_snapshot_writes_nothing(journal, storage):
    write(journal, ALICE, PLACES, revision=1)
    snap = journal.read(ALICE, 1)
    with pytest.raises(StaleContextError):
        journal.append(snap, EVENTS, current_revision=2)
    record = storage.load(ALICE.storage_id)
    assert record is not None and record.window.turns == (PLACES,) and record.version == 1


def test_old_revision_turn_never_overwrites_a_newer_revision_record(journal, storage):
    old_snap = journal.read(ALICE, 1)
    write(journal, ALICE, EVENTS, revision=2)  # a newer turn wrote under revision 2 meanwhile
    with pytest.raises(StaleContextError):
        journal.append(old_snap, PLACES, current_revision=1)
    record = storage.load(ALICE.storage_id)
    assert record.preference_revision == 2
    assert record.window.turns == (EVENTS,)


def test_append_under_a_new_revision_replaces_the_old_window(journal):
    for turn in (PLACES, EVENTS, OTHER):
        write(journal, ALICE, turn, revision=0)
    record = write(journal, ALICE, OTHER, revision=1)
    assert record.window == ContextWindow((OTHER,))
    assert record.preference_revision == 1
    assert journal.read(ALICE, 0).status == "revision_mismatch"


def test_clear_removes_the_scope_only(journal, storage):
    write(journal, ALICE, PLACES)
    write(journal, BOB, EVENTS)
    journal.clear(ALICE)
    assert journal.read(ALICE, 0).status == "empty"
    assert storage.load(ALICE.storage_id) is None
    assert journal.read(BOB, 0).window.turns == (EVENTS,)
    journal.clear(ALICE)  # idempotent


def test_group_context_never_reaches_the_one_to_one_chat(journal):
    group = ScopeKey("local", "group", "Cfamily", "Ualice")
    bob_in_group = ScopeKey("local", "group", "Cfamily", "Ubob")
    write(journal, group, PLACES)
    assert journal.read(ALICE, 0).status == "empty"
    assert journal.read(bob_in_group, 0).status == "empty"
    assert journal.read(group, 0).window.turns == (PLACES,)


def test_state_reports_labels_summary_and_status(journal):
    for turn in (PLACES, EVENTS, OTHER):
        write(journal, ALICE, turn, revision=4)
    assert journal.state(ALICE, 4) == {
        "turns": ["花壇鄉：查活動", "未指定區域：詢問可用功能"],
        "summary": {"goal": "places", "area": "花壇鄉"},
        "preference_revision": 4,
        "status": "fresh",
    }
    assert journal.state(ALICE, 5)["turns"] == []
    assert journal.state(ALICE, 5)["status"] == "revision_mismatch"


def test_concurrent_appends_to_one_scope_lose_no_update(journal, storage):
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(10):
                write(journal, ALICE, OTHER)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert storage.load(ALICE.storage_id).version == 40


def test_sqlite_journal_survives_reopen_and_stores_no_raw_text(tmp_path, clock):
    path = tmp_path / "j.sqlite3"
    store = SqliteStore(path)
    write(ContextJournal(store, clock=clock), ALICE, SafeTurn.from_tool("search_local_places", "花壇"))
    store.close()
    reopened = SqliteStore(path)
    try:
        snap = ContextJournal(reopened, clock=clock).read(ALICE, 0)
        assert snap.window.turns == (PLACES,)
        rows = reopened.journal_rows()
        assert list(rows) == [ALICE.storage_id]
        assert set(rows[ALICE.storage_id]) == {"window", "preference_revision", "updated_at", "version"}
    finally:
        reopened.close()
