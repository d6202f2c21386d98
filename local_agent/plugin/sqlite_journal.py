"""The journal's storage port in one SQLite file, for the plugin installed on its own.

LOCAL's own adapters (``local_agent.stores``: SQLite with every other port, Firestore) implement
the same ``JournalStorage`` port and plug into the plugin as they are; this one is the plugin's
``store="windows.sqlite3"``. A row holds a person's ``JournalRecord`` (projections, summaries,
revision, times: app-written texts only) under a hash of app and user id.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from local_agent.context.canonical import canonical_json
from local_agent.context.errors import StoreError
from local_agent.context.journal import TTL_SECONDS, JournalRecord, Mutation


class SqliteJournalStorage:
    """``JournalStorage`` in one SQLite file. Opened at construction, so a path that cannot be
    opened is a ``StoreError`` (``STORE_UNAVAILABLE``, naming the path and the cause) before the
    first turn. ``update`` runs in one ``BEGIN IMMEDIATE`` transaction."""

    def __init__(self, path: str | Path, *, ttl_seconds: float = TTL_SECONDS) -> None:
        self.path, self.ttl = str(path), ttl_seconds
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS journal (scope_id TEXT PRIMARY KEY, record TEXT NOT NULL)"
            )
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(operation="open", backend="sqlite", detail=f"{self.path}: {exc}") from exc
        self._lock = threading.Lock()

    def _fail(self, operation: str, exc: Exception) -> StoreError:
        return StoreError(operation=operation, backend="sqlite", detail=f"{self.path}: {exc}")

    def load(self, scope_id: str) -> JournalRecord | None:
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT record FROM journal WHERE scope_id = ?", (scope_id,)
                ).fetchone()
        except sqlite3.Error as exc:
            raise self._fail("load", exc) from exc
        return _record(row[0]) if row else None

    def update(self, scope_id: str, mutate: Mutation) -> JournalRecord | None:
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._db.execute(
                        "SELECT record FROM journal WHERE scope_id = ?", (scope_id,)
                    ).fetchone()
                    new = mutate(_record_or_none(row[0]) if row else None)
                    if new is None:
                        self._db.execute("DELETE FROM journal WHERE scope_id = ?", (scope_id,))
                    else:
                        self._db.execute(
                            "INSERT INTO journal (scope_id, record) VALUES (?, ?) "
                            "ON CONFLICT(scope_id) DO UPDATE SET record = excluded.record",
                            (scope_id, canonical_json(new.to_dict())),
                        )
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._fail("update", exc) from exc
        return new

    def delete(self, scope_id: str) -> None:
        try:
            with self._lock:
                self._db.execute("DELETE FROM journal WHERE scope_id = ?", (scope_id,))
        except sqlite3.Error as exc:
            raise self._fail("delete", exc) from exc

    def purge_expired(self, now: float) -> dict[str, int]:
        """Delete the records past the sliding TTL (never readable again); their count."""
        try:
            with self._lock:
                rows = self._db.execute("SELECT scope_id, record FROM journal").fetchall()
                stale = [(s,) for s, r in rows if now - float(json.loads(r)["updated_at"]) > self.ttl]
                self._db.executemany("DELETE FROM journal WHERE scope_id = ?", stale)
        except sqlite3.Error as exc:
            raise self._fail("purge", exc) from exc
        return {"journal": len(stale)}

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _record(text: str) -> JournalRecord:
    """A stored row as a record; a row that is not one is a ``ValueError`` (read as no window)."""
    try:
        return JournalRecord.from_dict(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError("a stored row is not a journal record") from exc


def _record_or_none(text: str) -> JournalRecord | None:
    """For a write: a damaged row is replaced, as if there were none."""
    try:
        return _record(text)
    except ValueError:
        return None
