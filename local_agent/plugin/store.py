"""Where the plugin keeps each conversation's window: in memory, or in one SQLite file.

A row holds the window (projections and summary: app-written texts only), the revision it was
written at, and a version. The key is a SHA-256 of app, user and session ids, so the file holds no
ids either. Any object with ``load`` and ``save`` (``WindowStore``) can stand in, e.g. a Firestore
collection.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from local_agent.context.canonical import canonical_json
from local_agent.context.errors import StoreError


@dataclass(frozen=True, slots=True)
class StoredWindow:
    """A window as stored: its projections, its summary and the revision it was written at."""

    turns: tuple[str, ...]
    summary: str
    revision: int

    def to_json(self) -> str:
        return canonical_json({"turns": list(self.turns), "summary": self.summary, "revision": self.revision})

    @classmethod
    def from_json(cls, text: str) -> StoredWindow:
        data: Any = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a stored window is a JSON object")
        turns, summary, revision = data.get("turns"), data.get("summary"), data.get("revision")
        if not (
            isinstance(turns, list)
            and all(isinstance(t, str) for t in turns)
            and isinstance(summary, str)
            and type(revision) is int
        ):
            raise ValueError("a stored window is {turns: [text], summary: text, revision: int}")
        return cls(tuple(turns), summary, revision)


def window_key(app_name: str, user_id: str, session_id: str) -> str:
    """A fixed-length key for one conversation (no ids stored as they are)."""
    raw = json.dumps([app_name, user_id, session_id])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]


class WindowStore(Protocol):
    """The plugin's storage port."""

    def load(self, key: str) -> StoredWindow | None: ...

    def save(self, key: str, window: StoredWindow) -> None: ...


class MemoryWindowStore:
    """In-process windows (``store=None``): gone when the process ends. Thread-safe."""

    def __init__(self) -> None:
        self._rows: dict[str, StoredWindow] = {}
        self._lock = threading.Lock()

    def load(self, key: str) -> StoredWindow | None:
        with self._lock:
            return self._rows.get(key)

    def save(self, key: str, window: StoredWindow) -> None:
        with self._lock:
            self._rows[key] = window

    def __len__(self) -> int:
        return len(self._rows)


class SqliteWindowStore:
    """Windows in one SQLite file (``store="windows.sqlite3"``). Opened at construction, so a path
    that cannot be opened is a ``StoreError`` (``STORE_UNAVAILABLE``) before the first turn."""

    def __init__(self, path: str | Path) -> None:
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS plugin_windows (key TEXT PRIMARY KEY, body TEXT NOT NULL)"
            )
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(operation="open", backend="sqlite") from exc
        self._lock = threading.Lock()

    def load(self, key: str) -> StoredWindow | None:
        try:
            with self._lock:
                row = self._db.execute("SELECT body FROM plugin_windows WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise StoreError(operation="load", backend="sqlite") from exc
        return StoredWindow.from_json(str(row[0])) if row else None

    def save(self, key: str, window: StoredWindow) -> None:
        try:
            with self._lock:
                self._db.execute(
                    "INSERT INTO plugin_windows (key, body) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET body = excluded.body",
                    (key, window.to_json()),
                )
        except sqlite3.Error as exc:
            raise StoreError(operation="save", backend="sqlite") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_store(store: str | Path | WindowStore | None) -> WindowStore:
    """``None`` → in memory; a path → SQLite; anything with ``load``/``save`` → itself."""
    if store is None:
        return MemoryWindowStore()
    if isinstance(store, (str, Path)):
        return SqliteWindowStore(store)
    if callable(getattr(store, "load", None)) and callable(getattr(store, "save", None)):
        return store
    raise TypeError("store must be None, a SQLite path, or an object with load() and save()")
