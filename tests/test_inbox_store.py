"""The durable inbox's contract (``InboxStore``), the same on SQLite and on the Firestore emulator:
one write per body with the dedupe claim, claims only of lapsed leases, renewals, parked replies,
release at shutdown, the unfollowed chat's rows dropped, deletion on answer and a day's retention."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_agent.stores.ports import INBOX_TTL_SECONDS, InboxEntry
from local_agent.stores.sqlite import SqliteStore

NOW = 1_800_000_000.0
LEASE = 15.0


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "sqlite":
        sqlite = SqliteStore(tmp_path / "local.db")
        yield sqlite
        sqlite.close()
    else:
        yield request.getfixturevalue("firestore_store")


def entry(n: int, chat: str = "chat-a", at: float = NOW) -> InboxEntry:
    return InboxEntry(f"event{n:04d}", chat, at + n / 1000, n, b"\x00sealed" + bytes([n % 256]))


def test_accept_claims_each_event_once_and_a_duplicate_is_not_written_again(store: Any) -> None:
    entries = [entry(1), entry(2, "chat-b"), entry(3)]
    assert store.inbox_accept(entries, holder="p1", now=NOW, lease=LEASE) == [True, True, True]
    assert store.inbox_pending() == 3
    # the same body again (LINE redelivered it), plus one new event: only the new one is written
    assert store.inbox_accept([entry(2, "chat-b"), entry(4)], holder="p2", now=NOW + 1, lease=LEASE) == [
        False,
        True,
    ]
    assert store.inbox_pending() == 4
    # the same event twice in one body is new once
    assert store.inbox_accept([entry(5), entry(5)], holder="p1", now=NOW + 1, lease=LEASE) == [True, False]
    # the inbox claim is the dedupe claim: the classic claim sees the event as taken
    assert store.claim_event("event0001", now=NOW + 2) is False


def test_answered_rows_are_deleted_and_the_event_stays_deduplicated(store: Any) -> None:
    store.inbox_accept([entry(1)], holder="p1", now=NOW, lease=LEASE)
    assert store.inbox_done("event0001", holder="p1") is True
    assert store.inbox_pending() == 0
    assert store.inbox_accept([entry(1)], holder="p1", now=NOW + 5, lease=LEASE) == [False]
    assert store.inbox_pending() == 0


def test_a_live_lease_is_not_claimed_and_a_lapsed_one_is_in_order(store: Any) -> None:
    store.inbox_accept([entry(3), entry(1), entry(2, "chat-b")], holder="dead", now=NOW, lease=LEASE)
    assert store.inbox_claim(holder="p2", now=NOW + LEASE - 1, lease=LEASE, limit=10) == []
    rows = store.inbox_claim(holder="p2", now=NOW + LEASE, lease=LEASE, limit=10)
    assert [r.entry.event_id for r in rows] == ["event0001", "event0002", "event0003"]
    assert all(r.holder == "p2" and r.attempts == 1 and r.reply == b"" for r in rows)
    assert rows[0].entry.sealed == entry(1).sealed and rows[0].entry.chat == "chat-a"
    # now p2's: a third process finds nothing until p2's lease lapses too
    assert store.inbox_claim(holder="p3", now=NOW + LEASE + 1, lease=LEASE, limit=10) == []
    again = store.inbox_claim(holder="p3", now=NOW + 2 * LEASE, lease=LEASE, limit=2)
    assert [r.attempts for r in again] == [2, 2] and len(again) == 2


def test_renewal_keeps_a_holders_rows_and_release_hands_them_over_at_once(store: Any) -> None:
    store.inbox_accept([entry(1), entry(2)], holder="p1", now=NOW, lease=LEASE)
    store.inbox_accept([entry(3)], holder="p9", now=NOW, lease=LEASE)
    assert store.inbox_renew(holder="p1", now=NOW + 10, lease=LEASE) == 2
    assert [r.entry.event_id for r in store.inbox_claim(holder="p2", now=NOW + 20, lease=LEASE, limit=9)] == [
        "event0003"
    ]
    assert store.inbox_release(holder="p1") == 2
    claimed = store.inbox_claim(holder="p2", now=NOW + 21, lease=LEASE, limit=9)
    assert [r.entry.event_id for r in claimed] == ["event0001", "event0002"]


def test_a_parked_reply_waits_for_its_retry_time_and_is_not_renewed(store: Any) -> None:
    store.inbox_accept([entry(1)], holder="p1", now=NOW, lease=LEASE)
    assert store.inbox_park("event0001", holder="other", reply=b"r", retry_at=NOW + 1) is False
    assert store.inbox_park("event0001", holder="p1", reply=b"sealed-reply", retry_at=NOW + 30) is True
    assert store.inbox_renew(holder="p1", now=NOW + 5, lease=LEASE) == 0
    assert store.inbox_claim(holder="p1", now=NOW + 29, lease=LEASE, limit=9) == []
    (row,) = store.inbox_claim(holder="p1", now=NOW + 30, lease=LEASE, limit=9)
    assert row.reply == b"sealed-reply"


def test_an_unfollowed_chat_loses_its_earlier_rows_only(store: Any) -> None:
    store.inbox_accept([entry(1), entry(2), entry(3, "chat-b")], holder="p1", now=NOW, lease=LEASE)
    assert store.inbox_drop_chat("chat-a", before=NOW + 0.0015) == 1
    assert store.inbox_pending() == 2
    rows = store.inbox_claim(holder="p2", now=NOW + LEASE, lease=LEASE, limit=9)
    assert [r.entry.event_id for r in rows] == ["event0002", "event0003"]


def test_nothing_of_the_inbox_is_claimed_after_a_day(store: Any) -> None:
    store.inbox_accept([entry(1)], holder="dead", now=NOW, lease=LEASE)
    later = NOW + INBOX_TTL_SECONDS + 1
    assert store.inbox_claim(holder="p2", now=later, lease=LEASE, limit=9) == []
    purged = store.purge_expired(later)
    if store.backend == "sqlite":  # Firestore: a TTL policy on expire_at does this
        assert purged["inbox"] == 1 and store.inbox_pending() == 0


def test_a_body_of_many_events_is_one_accept(store: Any) -> None:
    entries = [entry(n, f"chat-{n % 7}") for n in range(120)]
    assert store.inbox_accept(entries, holder="p1", now=NOW, lease=LEASE) == [True] * 120
    rows = store.inbox_claim(holder="p2", now=NOW + LEASE, lease=LEASE, limit=500)
    assert [r.entry.seq for r in rows] == list(range(120))


def test_done_deletes_only_the_holders_row(store: Any) -> None:
    """A process whose lease lapsed (a peer took the row over) cannot delete the peer's row."""
    store.inbox_accept([entry(1)], holder="slow", now=NOW, lease=LEASE)
    (taken,) = store.inbox_claim(holder="peer", now=NOW + LEASE, lease=LEASE, limit=9)
    assert store.inbox_done("event0001", holder="slow") is False
    assert store.inbox_pending() == 1
    assert store.inbox_done("event0001", holder="peer") is True
    assert store.inbox_pending() == 0
    assert store.inbox_done("event0001", holder="peer") is False  # gone: nothing to delete


def test_a_claim_past_the_batch_takes_the_oldest_rows_whatever_their_leases(store: Any) -> None:
    """More lapsed rows than one claim takes: the claim is the oldest by arrival, not by lease, so
    a chat's later message is never claimed before its earlier one."""
    total, batch = 250, 200
    for n in range(
        total
    ):  # later messages' leases lapsed earlier (accepted by a process with a slower clock)
        store.inbox_accept([entry(n, f"chat-{n % 3}")], holder="dead", now=NOW - n, lease=LEASE)
    rows = store.inbox_claim(holder="p2", now=NOW + LEASE, lease=LEASE, limit=batch)
    assert [r.entry.seq for r in rows] == list(range(batch))
    rest = store.inbox_claim(holder="p2", now=NOW + LEASE, lease=LEASE, limit=batch)
    assert [r.entry.seq for r in rest] == list(range(batch, total))


def test_a_row_handed_back_is_nobodys_not_renewed_and_claimable_at_its_retry_time(store: Any) -> None:
    store.inbox_accept([entry(1), entry(2)], holder="p1", now=NOW, lease=LEASE)
    assert store.inbox_hand_back("event0001", holder="other", retry_at=NOW + 30) is False
    assert store.inbox_hand_back("event0001", holder="p1", retry_at=NOW + 30) is True
    assert store.inbox_renew(holder="p1", now=NOW + 20, lease=LEASE) == 1  # only event0002
    assert store.inbox_claim(holder="p2", now=NOW + 29, lease=LEASE, limit=9) == []
    (row,) = store.inbox_claim(holder="p2", now=NOW + 30, lease=LEASE, limit=9)
    assert row.entry.event_id == "event0001" and row.attempts == 1
