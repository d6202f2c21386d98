"""SQLite adapters (stdlib ``sqlite3``) for every store port: journal, preferences, audit,
per-turn snapshots and webhook dedupe.

WAL mode, every value bound with ``?``, one ``BEGIN IMMEDIATE`` transaction per logical write,
so concurrent writers (threads or processes sharing the file) serialize instead of losing updates.
No raw user text is ever written here: the rows hold projections, counts, hashes and arguments.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from local_agent.context.canonical import canonical_json
from local_agent.context.errors import StoreError
from local_agent.context.journal import TTL_SECONDS, JournalRecord, Mutation
from local_agent.stores.ports import (
    DEDUPE_TTL_SECONDS,
    INBOX_TTL_SECONDS,
    RECORD_RETENTION_SECONDS,
    AuditRow,
    ConsentDecision,
    EventLease,
    InboxEntry,
    InboxRow,
    LeaseOutcome,
    PreferenceState,
    TurnSnapshot,
    finished_lease,
    forgotten_arguments,
    next_lease,
    next_preference,
    releasable,
)
from local_agent.stores.usage import USAGE_COLUMNS, UsageRow

CLOSE_WAIT_SECONDS = 5.0  # close() waits at most this long for statements running on other threads

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    scope_id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS preferences (
    user_id TEXT PRIMARY KEY,
    dietary_type TEXT,
    consent TEXT NOT NULL,
    revision INTEGER NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    proposed_arguments TEXT NOT NULL,
    memory_revision INTEGER NOT NULL,
    effective_arguments TEXT NOT NULL,
    preference_origin TEXT NOT NULL,
    status TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_scope ON audit (scope_id, id);
CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
CREATE TABLE IF NOT EXISTS snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    at REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS snapshots_scope ON snapshots (scope_id, id);
CREATE INDEX IF NOT EXISTS snapshots_at ON snapshots (at);
CREATE TABLE IF NOT EXISTS webhook_events (
    event_id TEXT PRIMARY KEY,
    expire_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_events_expiry ON webhook_events (expire_at);
CREATE TABLE IF NOT EXISTS event_leases (
    event_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    lease_until REAL NOT NULL,
    done INTEGER NOT NULL,
    expire_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS event_leases_expiry ON event_leases (expire_at);
CREATE TABLE IF NOT EXISTS inbox (
    event_id TEXT PRIMARY KEY,
    chat TEXT NOT NULL,
    received_at REAL NOT NULL,
    seq INTEGER NOT NULL,
    sealed BLOB NOT NULL,
    reply BLOB NOT NULL,
    holder TEXT NOT NULL,
    lease_until REAL NOT NULL,
    attempts INTEGER NOT NULL,
    expire_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS inbox_lease ON inbox (lease_until);
CREATE INDEX IF NOT EXISTS inbox_chat ON inbox (chat, received_at);
CREATE TABLE IF NOT EXISTS usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    event TEXT NOT NULL,
    person TEXT NOT NULL,
    source TEXT NOT NULL,
    outcome TEXT NOT NULL,
    kind TEXT NOT NULL,
    township TEXT NOT NULL,
    date_from TEXT NOT NULL,
    date_to TEXT NOT NULL,
    found INTEGER NOT NULL,
    delivery TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_at ON usage (at);
"""


class SqliteStore:
    """All LOCAL stores in one SQLite file. Safe to share between threads and processes."""

    backend = "sqlite"

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 30000) -> None:
        self.path = str(path)
        self._uri = False
        if self.path == ":memory:":
            # One private in-memory database shared by every thread's connection.
            self.path = f"file:local-memory-{id(self)}?mode=memory&cache=shared"
            self._uri = True
        else:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(operation="init", backend=self.backend) from exc
        self._busy = busy_timeout_ms
        self._local = threading.local()
        self._all: dict[int, sqlite3.Connection] = {}  # every open connection, by id
        self._lock = threading.Lock()
        # Connections a statement is running on, by id: close() waits for them, never closing one
        # under a running statement (CPython's sqlite3 crashes the process if it does).
        self._in_use: dict[int, int] = {}
        self._idle = threading.Condition(self._lock)
        # A statement waits for locks at most the busy timeout, so it has ended by then, or is stuck.
        self.close_wait = min(CLOSE_WAIT_SECONDS, self._busy / 1000 + 1.0)
        try:
            self._conn().executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise StoreError(operation="init", backend=self.backend) from exc

    # -- plumbing -------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy / 1000,
                isolation_level=None,
                check_same_thread=False,
                uri=self._uri,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            # Freed space is zeroed: a forgotten diet does not linger in a page's free bytes.
            conn.execute("PRAGMA secure_delete = ON")
            self._local.conn = conn
            with self._lock:
                self._all[id(conn)] = conn
        return conn

    @contextmanager
    def _tx(
        self, operation: str, *, write: bool = True, single: bool = False
    ) -> Iterator[sqlite3.Connection]:
        """A write transaction, or one autocommit statement: a read (``write=False``; every read
        here is a single SELECT, which SQLite runs on one consistent snapshot) or a
        ``single``-statement write (one INSERT is atomic on its own). Those need no BEGIN/COMMIT
        of their own: two statements fewer each, six per turn."""
        explicit = write and not single
        try:
            db = self._acquire()
        except sqlite3.Error as exc:
            raise StoreError(operation=operation, backend=self.backend) from exc
        try:
            try:
                if explicit:
                    db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(operation=operation, backend=self.backend) from exc
            try:
                yield db
            except sqlite3.Error as exc:
                self._rollback(db)
                raise StoreError(operation=operation, backend=self.backend) from exc
            except BaseException:
                self._rollback(db)
                raise
            else:
                if not explicit:
                    return
                try:
                    db.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._rollback(db)
                    raise StoreError(operation=operation, backend=self.backend) from exc
        finally:
            self._release(db)

    def _acquire(self) -> sqlite3.Connection:
        """This thread's connection, marked in use until ``_release`` (opened outside the lock;
        if ``close`` closed it in between, the thread opens a fresh one)."""
        while True:
            db = self._conn()
            with self._lock:
                if id(db) in self._all:
                    self._in_use[id(db)] = self._in_use.get(id(db), 0) + 1
                    return db

    def _release(self, db: sqlite3.Connection) -> None:
        with self._lock:
            left = self._in_use.pop(id(db)) - 1
            if left:
                self._in_use[id(db)] = left
            else:
                self._idle.notify_all()

    @staticmethod
    def _rollback(db: sqlite3.Connection) -> None:
        if db.in_transaction:
            db.execute("ROLLBACK")

    def close(self) -> None:
        """Close every thread's connection; a later call opens a fresh one. A statement still
        running on another thread (a purge or probe the caller stopped waiting for) finishes
        first: up to ``close_wait`` seconds, after which a connection still in use is left open
        rather than closed under it."""
        with self._idle:
            self._local = threading.local()  # from here on, each thread opens a fresh connection
            closing = dict(self._all)
            self._idle.wait_for(lambda: self._in_use.keys().isdisjoint(closing), timeout=self.close_wait)
            for key, conn in closing.items():
                # not in use, and not closed meanwhile by a close() that overlapped this one
                if key not in self._in_use and self._all.get(key) is conn:
                    conn.close()
                    del self._all[key]

    # -- journal (JournalStorage) ---------------------------------------------------------
    def load(self, scope_id: str) -> JournalRecord | None:
        with self._tx("journal.load", write=False) as db:
            row = db.execute("SELECT record FROM journal WHERE scope_id = ?", (scope_id,)).fetchone()
        return JournalRecord.from_dict(json.loads(row[0])) if row else None

    def update(self, scope_id: str, mutate: Mutation) -> JournalRecord | None:
        with self._tx("journal.update") as db:
            row = db.execute("SELECT record FROM journal WHERE scope_id = ?", (scope_id,)).fetchone()
            new = mutate(JournalRecord.from_dict(json.loads(row[0])) if row else None)
            if new is None:
                db.execute("DELETE FROM journal WHERE scope_id = ?", (scope_id,))
            else:
                db.execute(
                    "INSERT INTO journal (scope_id, record) VALUES (?, ?) "
                    "ON CONFLICT(scope_id) DO UPDATE SET record = excluded.record",
                    (scope_id, canonical_json(new.to_dict())),
                )
        return new

    def delete(self, scope_id: str) -> None:
        with self._tx("journal.delete") as db:
            db.execute("DELETE FROM journal WHERE scope_id = ?", (scope_id,))

    def journal_rows(self) -> dict[str, dict[str, Any]]:
        with self._tx("journal.dump", write=False) as db:
            rows = db.execute("SELECT scope_id, record FROM journal ORDER BY scope_id").fetchall()
        return {scope: json.loads(record) for scope, record in rows}

    # -- preferences (PreferenceStore) ----------------------------------------------------
    @staticmethod
    def _pref_row(db: sqlite3.Connection, user_id: str) -> PreferenceState:
        row = db.execute(
            "SELECT dietary_type, consent, revision, updated_at FROM preferences WHERE user_id = ?",
            (user_id,),
        ).fetchone()
        if row is None:
            return PreferenceState(user_id)
        return PreferenceState(user_id, row[0], row[1], int(row[2]), float(row[3]))

    def get(self, user_id: str) -> PreferenceState:
        with self._tx("preferences.get", write=False) as db:
            return self._pref_row(db, user_id)

    def set_consent(
        self,
        user_id: str,
        *,
        consent: ConsentDecision,
        dietary_type: str | None,
        now: float,
        expected_revision: int | None = None,
    ) -> PreferenceState:
        with self._tx("preferences.set_consent") as db:
            new = next_preference(
                self._pref_row(db, user_id),
                consent=consent,
                dietary_type=dietary_type,
                now=now,
                expected_revision=expected_revision,
            )
            db.execute(
                "INSERT INTO preferences (user_id, dietary_type, consent, revision, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(user_id) DO UPDATE SET dietary_type = excluded.dietary_type, "
                "consent = excluded.consent, revision = excluded.revision, updated_at = excluded.updated_at",
                (user_id, new.dietary_type, new.consent, new.revision, new.updated_at),
            )
        return new

    def preference_rows(self) -> list[dict[str, Any]]:
        with self._tx("preferences.dump", write=False) as db:
            rows = db.execute(
                "SELECT user_id, dietary_type, consent, revision, updated_at FROM preferences ORDER BY user_id"
            ).fetchall()
        return [PreferenceState(r[0], r[1], r[2], int(r[3]), float(r[4])).to_dict() for r in rows]

    # -- audit (AuditStore) ---------------------------------------------------------------
    def append_audit(self, row: AuditRow) -> None:
        with self._tx("audit.append", single=True) as db:
            db.execute(
                "INSERT INTO audit (scope_id, turn_id, tool, proposed_arguments, memory_revision, "
                "effective_arguments, preference_origin, status, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.scope_id,
                    row.turn_id,
                    row.tool,
                    canonical_json(row.proposed_arguments),
                    row.memory_revision,
                    canonical_json(row.effective_arguments),
                    row.preference_origin,
                    row.status,
                    row.at,
                ),
            )

    def forget_audited_memory(self, scope_id: str) -> int:
        with self._tx("audit.forget") as db:
            rows = db.execute(
                "SELECT id, effective_arguments FROM audit WHERE scope_id = ? AND preference_origin = ?",
                (scope_id, "consented_memory"),
            ).fetchall()
            changed = 0
            for row_id, effective in rows:
                scrubbed = forgotten_arguments(effective)
                if scrubbed is not None:
                    db.execute("UPDATE audit SET effective_arguments = ? WHERE id = ?", (scrubbed, row_id))
                    changed += 1
        self._truncate_wal()
        return changed

    def _truncate_wal(self) -> None:
        """Best effort after a forget: copy the WAL into the database and truncate it, so the old
        page images that still hold the forgotten values leave the disk (a reader still on them
        makes this a no-op until the next checkpoint)."""
        try:
            with self._tx("audit.forget", write=False) as db:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except StoreError:
            pass

    def audit_rows(self, scope_id: str | None = None) -> list[AuditRow]:
        sql = (
            "SELECT scope_id, turn_id, tool, proposed_arguments, memory_revision, effective_arguments, "
            "preference_origin, status, at FROM audit"
        )
        args: tuple[str, ...] = ()
        if scope_id is not None:
            sql += " WHERE scope_id = ?"
            args = (scope_id,)
        with self._tx("audit.read", write=False) as db:
            rows = db.execute(sql + " ORDER BY id", args).fetchall()
        return [
            AuditRow(
                scope_id=r[0],
                turn_id=r[1],
                tool=r[2],
                proposed_arguments=json.loads(r[3]),
                memory_revision=int(r[4]),
                effective_arguments=json.loads(r[5]),
                preference_origin=r[6],
                status=r[7],
                at=float(r[8]),
            )
            for r in rows
        ]

    # -- snapshots (SnapshotStore) --------------------------------------------------------
    def append_snapshot(self, snap: TurnSnapshot) -> None:
        with self._tx("snapshots.append", single=True) as db:
            db.execute(
                "INSERT INTO snapshots (scope_id, turn_id, at, data) VALUES (?, ?, ?, ?)",
                (snap.scope_id, snap.turn_id, snap.at, canonical_json(snap.data)),
            )

    def snapshots(self, scope_id: str | None = None) -> list[TurnSnapshot]:
        sql = "SELECT scope_id, turn_id, at, data FROM snapshots"
        args: tuple[str, ...] = ()
        if scope_id is not None:
            sql += " WHERE scope_id = ?"
            args = (scope_id,)
        with self._tx("snapshots.read", write=False) as db:
            rows = db.execute(sql + " ORDER BY id", args).fetchall()
        return [TurnSnapshot(r[0], r[1], float(r[2]), json.loads(r[3])) for r in rows]

    # -- usage (UsageStore) ---------------------------------------------------------------
    def append_usage(self, row: UsageRow) -> None:
        data = row.to_dict()
        values = tuple(data[c] for c in USAGE_COLUMNS)  # the columns in the statement's order
        with self._tx("usage.append", single=True) as db:
            db.execute(
                "INSERT INTO usage (at, event, person, source, outcome, kind, township, date_from,"
                " date_to, found, delivery) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )

    def usage_rows(self, since: float, until: float) -> list[UsageRow]:
        with self._tx("usage.read", write=False) as db:
            rows = db.execute(
                "SELECT at, event, person, source, outcome, kind, township, date_from, date_to, found,"
                " delivery FROM usage WHERE at >= ? AND at < ? ORDER BY at, id",
                (since, until),
            ).fetchall()
        return [UsageRow(*r) for r in rows]

    # -- retention ------------------------------------------------------------------------
    def purge_expired(self, now: float, *, retention: float = RECORD_RETENTION_SECONDS) -> dict[str, int]:
        """Delete what has outlived its use: audit rows, snapshots and usage rows older than ``retention``,
        journal windows past the sliding TTL (never readable again) and expired dedupe records.
        One transaction; returns the number of rows deleted per table."""
        with self._tx("purge") as db:
            counts = {
                "audit": db.execute("DELETE FROM audit WHERE at < ?", (now - retention,)).rowcount,
                "snapshots": db.execute("DELETE FROM snapshots WHERE at < ?", (now - retention,)).rowcount,
                "usage": db.execute("DELETE FROM usage WHERE at < ?", (now - retention,)).rowcount,
                "webhook_events": db.execute(
                    "DELETE FROM webhook_events WHERE expire_at <= ?", (now,)
                ).rowcount,
                "event_leases": db.execute("DELETE FROM event_leases WHERE expire_at <= ?", (now,)).rowcount,
                "inbox": db.execute("DELETE FROM inbox WHERE expire_at <= ?", (now,)).rowcount,
            }
            stale = [
                scope
                for scope, record in db.execute("SELECT scope_id, record FROM journal")
                if float(json.loads(record)["updated_at"]) < now - TTL_SECONDS
            ]
            rows = [(scope,) for scope in stale]
            db.executemany("DELETE FROM journal WHERE scope_id = ?", rows)
            counts["journal"] = len(stale)
        return counts

    # -- webhook dedupe (DedupeStore) -----------------------------------------------------
    def claim_event(self, event_id: str, *, now: float, ttl: float = DEDUPE_TTL_SECONDS) -> bool:
        with self._tx("dedupe.claim") as db:
            # Expired claims (this event's included) go first; a live claim makes the insert a no-op.
            db.execute("DELETE FROM webhook_events WHERE expire_at <= ?", (now,))
            inserted = db.execute(
                "INSERT OR IGNORE INTO webhook_events (event_id, expire_at) VALUES (?, ?)",
                (event_id, now + ttl),
            )
            return inserted.rowcount == 1

    # -- event leases (LeaseStore) --------------------------------------------------------
    @staticmethod
    def _lease_row(db: sqlite3.Connection, event_id: str) -> EventLease | None:
        row = db.execute(
            "SELECT holder, lease_until, done, expire_at FROM event_leases WHERE event_id = ?", (event_id,)
        ).fetchone()
        return None if row is None else EventLease(row[0], float(row[1]), bool(row[2]), float(row[3]))

    @staticmethod
    def _put_lease(db: sqlite3.Connection, event_id: str, lease: EventLease) -> None:
        db.execute(
            "INSERT INTO event_leases (event_id, holder, lease_until, done, expire_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(event_id) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until, "
            "done = excluded.done, expire_at = excluded.expire_at",
            (event_id, lease.holder, lease.lease_until, int(lease.done), lease.expire_at),
        )

    def lease_event(
        self, event_id: str, *, holder: str, now: float, lease: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> LeaseOutcome:
        with self._tx("lease.claim") as db:
            outcome, new = next_lease(
                self._lease_row(db, event_id), holder=holder, now=now, lease=lease, ttl=ttl
            )
            if new is not None:
                self._put_lease(db, event_id, new)
        return outcome

    def finish_event(
        self, event_id: str, *, holder: str, now: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> bool:
        with self._tx("lease.finish") as db:
            new = finished_lease(self._lease_row(db, event_id), holder=holder, now=now, ttl=ttl)
            if new is not None:
                self._put_lease(db, event_id, new)
        return new is not None

    def release_event(self, event_id: str, *, holder: str) -> bool:
        with self._tx("lease.release") as db:
            mine = releasable(self._lease_row(db, event_id), holder=holder)
            if mine:
                db.execute("DELETE FROM event_leases WHERE event_id = ?", (event_id,))
        return mine

    # -- the durable inbox (InboxStore) ---------------------------------------------------
    def inbox_accept(
        self,
        entries: Sequence[InboxEntry],
        *,
        holder: str,
        now: float,
        lease: float,
        ttl: float = INBOX_TTL_SECONDS,
    ) -> list[bool]:
        fresh: list[bool] = []
        with self._tx("inbox.accept") as db:
            db.execute("DELETE FROM webhook_events WHERE expire_at <= ?", (now,))
            for entry in entries:
                claimed = db.execute(
                    "INSERT OR IGNORE INTO webhook_events (event_id, expire_at) VALUES (?, ?)",
                    (entry.event_id, now + DEDUPE_TTL_SECONDS),
                ).rowcount
                if claimed == 1:
                    db.execute(
                        "INSERT OR REPLACE INTO inbox (event_id, chat, received_at, seq, sealed, reply, "
                        "holder, lease_until, attempts, expire_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            entry.event_id,
                            entry.chat,
                            entry.received_at,
                            entry.seq,
                            entry.sealed,
                            b"",
                            holder,
                            now + lease,
                            0,
                            now + ttl,
                        ),
                    )
                fresh.append(claimed == 1)
        return fresh

    def inbox_claim(self, *, holder: str, now: float, lease: float, limit: int) -> list[InboxRow]:
        with self._tx("inbox.claim") as db:
            rows = db.execute(
                "SELECT event_id, chat, received_at, seq, sealed, reply, attempts FROM inbox "
                "WHERE lease_until <= ? AND expire_at > ? ORDER BY received_at, seq LIMIT ?",
                (now, now, max(0, limit)),
            ).fetchall()
            taken = [(holder, now + lease, r[0]) for r in rows]
            db.executemany(
                "UPDATE inbox SET holder = ?, lease_until = ?, attempts = attempts + 1 WHERE event_id = ?",
                taken,
            )
        return [
            InboxRow(
                InboxEntry(r[0], r[1], float(r[2]), int(r[3]), bytes(r[4])),
                holder,
                now + lease,
                int(r[6]) + 1,
                bytes(r[5]),
            )
            for r in rows
        ]

    def inbox_renew(self, *, holder: str, now: float, lease: float) -> int:
        with self._tx("inbox.renew", single=True) as db:
            return int(
                db.execute(
                    "UPDATE inbox SET lease_until = ? WHERE holder = ? AND reply = ? AND lease_until > 0",
                    (now + lease, holder, b""),
                ).rowcount
            )

    def inbox_park(self, event_id: str, *, holder: str, reply: bytes, retry_at: float) -> bool:
        with self._tx("inbox.park", single=True) as db:
            changed = db.execute(
                "UPDATE inbox SET reply = ?, lease_until = ? WHERE event_id = ? AND holder = ?",
                (reply, retry_at, event_id, holder),
            ).rowcount
        return bool(changed)

    def inbox_done(self, event_id: str, *, holder: str) -> bool:
        with self._tx("inbox.done", single=True) as db:
            deleted = db.execute(
                "DELETE FROM inbox WHERE event_id = ? AND holder = ?", (event_id, holder)
            ).rowcount
        return bool(deleted)

    def inbox_hand_back(self, event_id: str, *, holder: str, retry_at: float) -> bool:
        with self._tx("inbox.hand_back", single=True) as db:
            changed = db.execute(
                "UPDATE inbox SET holder = '', lease_until = ? WHERE event_id = ? AND holder = ?",
                (retry_at, event_id, holder),
            ).rowcount
        return bool(changed)

    def inbox_release(self, *, holder: str) -> int:
        with self._tx("inbox.release", single=True) as db:
            return int(
                db.execute(
                    "UPDATE inbox SET lease_until = 0 WHERE holder = ? AND reply = ?", (holder, b"")
                ).rowcount
            )

    def inbox_drop_chat(self, chat: str, *, before: float) -> int:
        with self._tx("inbox.drop_chat", single=True) as db:
            return int(
                db.execute("DELETE FROM inbox WHERE chat = ? AND received_at < ?", (chat, before)).rowcount
            )

    def inbox_pending(self) -> int:
        with self._tx("inbox.pending", write=False) as db:
            return int(db.execute("SELECT COUNT(*) FROM inbox").fetchone()[0])
