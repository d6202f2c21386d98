"""The journal after a preference change: the window carried over under the new revision through
the SafeTurn whitelist, the revision gate unchanged, and a live consent prompt's token."""

from __future__ import annotations

import pytest
from conftest import FakeClock

from local_agent.context.errors import StaleContextError
from local_agent.context.journal import ContextJournal, JournalRecord, MemoryJournalStorage, ScopeKey
from local_agent.context.projection import SafeTurn
from local_agent.context.window import ContextWindow

SCOPE = ScopeKey.for_user("U1")
TOKEN = "local:consent:v2:yes:vegetarian:0:1800000600:" + "A" * 22


@pytest.fixture
def journal(clock: FakeClock) -> ContextJournal:
    return ContextJournal(MemoryJournalStorage(), clock=clock)


def write(journal: ContextJournal, revision: int, *turns: SafeTurn) -> None:
    for turn in turns:
        journal.append(journal.read(SCOPE, revision), turn, current_revision=revision)


def test_carry_over_keeps_the_township_under_the_new_revision_and_its_age(journal, clock):
    write(journal, 0, SafeTurn("events", "鹿港鎮"), SafeTurn("places", "二林鎮"))
    written_at = journal.storage.load(SCOPE.storage_id).updated_at
    clock.advance(30)
    journal.carry_over(SCOPE, 0, 1)
    record = journal.storage.load(SCOPE.storage_id)
    assert (record.preference_revision, record.updated_at) == (1, written_at)
    assert journal.read(SCOPE, 1).window.labels() == ["鹿港鎮：查活動", "二林鎮：找店家"]
    assert journal.read(SCOPE, 0).status == "revision_mismatch"  # the gate refuses the old revision
    with pytest.raises(StaleContextError):  # a turn that read revision 0 cannot write any more
        journal.append(journal.read(SCOPE, 0), SafeTurn("places", "花壇鄉"), current_revision=1)


def test_carry_over_deletes_an_expired_or_foreign_window_and_leaves_a_newer_one(journal, clock):
    write(journal, 0, SafeTurn("places", "二林鎮"))
    clock.advance(901)
    journal.carry_over(SCOPE, 0, 1)
    assert journal.storage.load(SCOPE.storage_id) is None
    write(journal, 3, SafeTurn("places", "二林鎮"))
    journal.carry_over(SCOPE, 1, 2)  # a stale change: the window of revision 3 is newer
    assert journal.read(SCOPE, 3).window.labels() == ["二林鎮：找店家"]
    write(journal, 3, SafeTurn("places", "花壇鄉"))
    journal.carry_over(SCOPE, 2, 4)  # the window is of revision 3, not 2: it goes
    assert journal.storage.load(SCOPE.storage_id) is None


def test_an_offer_is_kept_for_its_revision_and_dropped_by_the_next_write(journal):
    write(journal, 0, SafeTurn("places", "二林鎮"))
    journal.offer(SCOPE, 0, TOKEN)
    assert journal.offered(SCOPE, 0) == TOKEN and journal.offered(SCOPE, 1) == ""
    assert journal.read(SCOPE, 0).window.labels() == ["二林鎮：找店家"]  # the window is untouched
    write(journal, 0, SafeTurn("places", "花壇鄉"))
    assert journal.offered(SCOPE, 0) == ""
    journal.offer(SCOPE, 0, TOKEN)
    journal.carry_over(SCOPE, 0, 1)
    assert journal.offered(SCOPE, 1) == "" and "offer" not in journal.storage.load(SCOPE.storage_id).to_dict()


def test_an_offer_without_a_window_starts_an_empty_record(journal):
    journal.offer(SCOPE, 0, TOKEN)
    assert journal.offered(SCOPE, 0) == TOKEN and journal.read(SCOPE, 0).window.turns == ()


@pytest.mark.parametrize("bad", ["花壇鄉", "x" * 201, "a\nb", 7, None])
def test_a_stored_offer_that_is_not_a_token_shape_is_read_as_none(bad):
    data = {"window": ContextWindow().to_dict(), "preference_revision": 0, "updated_at": 1.0, "offer": bad}
    assert JournalRecord.from_dict(data).offer == ""
