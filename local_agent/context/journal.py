"""ContextJournal: the short-term window per scope, behind a storage port.

Read returns an empty window when the stored preference revision differs from the user's
current one, or when the window is older than the sliding TTL (900 s; every write refreshes it).
``assert_current`` refuses to write back a window derived from a stale snapshot. Time comes in
through an injected clock; storage through a port with a transactional ``update``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from .errors import ScopeError, StaleContextError
from .exchanges import SessionWindow
from .projection import SafeTurn
from .window import DEFAULT_MAX_TURNS, EMPTY_WINDOW, ContextWindow

TTL_SECONDS = 900.0
MAX_OFFER_CHARS = 200
SourceType = Literal["user", "group", "room"]
SOURCE_TYPES: tuple[SourceType, ...] = get_args(SourceType)
# What a read found: a usable window, nothing stored, a window past its TTL, or one written under
# another preference revision.
JournalStatus = Literal["fresh", "empty", "expired", "revision_mismatch"]

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class ScopeKey:
    """Whose context this is: channel destination + source type + source id + user id.

    A group chat and a 1:1 chat of the same user are different scopes, and so are two users
    in one group.
    """

    destination: str
    source_type: SourceType
    source_id: str
    user_id: str

    def __post_init__(self) -> None:
        if self.source_type not in SOURCE_TYPES:
            raise ScopeError("source type must be user, group or room")
        for name in ("destination", "source_id", "user_id"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value or len(value) > 200:
                raise ScopeError(f"{name} must be a non-empty string of at most 200 characters")
        if self.source_type == "user" and self.source_id != self.user_id:
            raise ScopeError("a 1:1 scope's source id is its user id")

    @classmethod
    def for_user(cls, user_id: str, destination: str = "local") -> ScopeKey:
        return cls(destination, "user", user_id, user_id)

    @property
    def storage_id(self) -> str:
        """A stable id safe for any backend (no slashes, fixed length)."""
        return _storage_id(self.destination, self.source_type, self.source_id, self.user_id)


@functools.lru_cache(maxsize=4096)
def _storage_id(destination: str, source_type: str, source_id: str, user_id: str) -> str:
    """Memoised: a turn asks for its scope's id several times (journal, tools, snapshot)."""
    raw = json.dumps([destination, source_type, source_id, user_id])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]


def _offer_or_empty(value: object) -> str:
    """An offered consent token as stored: printable ASCII of bounded length, else nothing."""
    if (
        isinstance(value, str)
        and 0 < len(value) <= MAX_OFFER_CHARS
        and value.isascii()
        and value.isprintable()
    ):
        return value
    return ""


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """The window of a scope under one preference revision. ``offer`` is the signed token of a
    consent prompt still waiting for this person's answer (``turns/consent.py``; no user words):
    the next turn that writes the window drops it. ``exchanges`` are the windows of an agent that
    is not LOCAL (the ADK plugin: one record per person, one window per conversation, keyed by a
    hash of its session id); LOCAL's own records leave it empty."""

    window: ContextWindow
    preference_revision: int
    updated_at: float
    version: int = 0
    offer: str = ""
    exchanges: tuple[tuple[str, SessionWindow], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "window": self.window.to_dict(),
            "preference_revision": self.preference_revision,
            "updated_at": self.updated_at,
            "version": self.version,
        }
        if self.offer:
            data["offer"] = self.offer
        if self.exchanges:
            data["exchanges"] = {key: window.to_dict() for key, window in self.exchanges}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JournalRecord:
        return cls(
            ContextWindow.from_dict(data.get("window")),
            int(data["preference_revision"]),
            float(data["updated_at"]),
            int(data.get("version", 0)),
            _offer_or_empty(data.get("offer", "")),
            _exchanges(data.get("exchanges")),
        )


def _exchanges(value: object) -> tuple[tuple[str, SessionWindow], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ValueError("a record's exchanges are {session key: window}")
    return tuple((str(key), SessionWindow.from_dict(window)) for key, window in sorted(value.items()))


def window_status(
    stored_revision: int, updated_at: float, revision: int, now: float, ttl: float
) -> JournalStatus:
    """The one gate on every stored window (LOCAL's and the plugin's): written at another
    preference revision → ``revision_mismatch``; older than the sliding TTL → ``expired``."""
    if stored_revision != revision:
        return "revision_mismatch"
    if now - updated_at > ttl:
        return "expired"
    return "fresh"


Mutation = Callable[[JournalRecord | None], JournalRecord | None]


class JournalStorage(Protocol):
    """Storage port. ``update`` applies a pure mutation atomically (a transaction or a
    compare-and-set retried on conflict) and returns what was stored (``None`` = deleted)."""

    def load(self, scope_id: str) -> JournalRecord | None: ...

    def update(self, scope_id: str, mutate: Mutation) -> JournalRecord | None: ...

    def delete(self, scope_id: str) -> None: ...


class MemoryJournalStorage:
    """In-process storage for tests and the demo's comparisons. Thread-safe."""

    def __init__(self, *, ttl_seconds: float = TTL_SECONDS) -> None:
        self._rows: dict[str, JournalRecord] = {}
        self._lock = threading.Lock()
        self.ttl = ttl_seconds

    def load(self, scope_id: str) -> JournalRecord | None:
        with self._lock:
            return self._rows.get(scope_id)

    def update(self, scope_id: str, mutate: Mutation) -> JournalRecord | None:
        with self._lock:
            new = mutate(self._rows.get(scope_id))
            if new is None:
                self._rows.pop(scope_id, None)
            else:
                self._rows[scope_id] = new
            return new

    def delete(self, scope_id: str) -> None:
        with self._lock:
            self._rows.pop(scope_id, None)

    def purge_expired(self, now: float) -> dict[str, int]:
        """Delete the records past the sliding TTL (never readable again); their count."""
        with self._lock:
            stale = [key for key, record in self._rows.items() if now - record.updated_at > self.ttl]
            for key in stale:
                del self._rows[key]
        return {"journal": len(stale)}

    def __len__(self) -> int:
        return len(self._rows)


@dataclass(frozen=True, slots=True)
class JournalSnapshot:
    """What a turn read: the usable window and the revision it was read under."""

    scope: ScopeKey
    window: ContextWindow
    revision: int
    status: JournalStatus
    read_at: float


class ContextJournal:
    def __init__(
        self,
        storage: JournalStorage,
        *,
        clock: Clock,
        ttl_seconds: float = TTL_SECONDS,
        max_turns: int = DEFAULT_MAX_TURNS,
    ) -> None:
        self.storage, self.clock, self.ttl, self.max_turns = storage, clock, ttl_seconds, max_turns

    def _usable(
        self, record: JournalRecord | None, revision: int, now: float
    ) -> tuple[ContextWindow, JournalStatus]:
        if record is None:
            return EMPTY_WINDOW, "empty"
        status = window_status(record.preference_revision, record.updated_at, revision, now, self.ttl)
        return (record.window if status == "fresh" else EMPTY_WINDOW), status

    def read(self, scope: ScopeKey, current_revision: int) -> JournalSnapshot:
        now = self.clock()
        window, status = self._usable(self.storage.load(scope.storage_id), current_revision, now)
        return JournalSnapshot(scope, window, current_revision, status, now)

    @staticmethod
    def assert_current(snapshot: JournalSnapshot, current_revision: int) -> None:
        if snapshot.revision != current_revision:
            raise StaleContextError(snapshot_revision=snapshot.revision, current_revision=current_revision)

    def append(self, snapshot: JournalSnapshot, turn: SafeTurn, *, current_revision: int) -> JournalRecord:
        """Append ``turn`` under the revision the turn read at its start.

        Refuses when the preference revision moved since (``StaleContextError``). Inside the
        storage transaction, the stored window is reused only if it is still usable for this
        revision; a newer-revision record is never overwritten by an older turn.
        """
        self.assert_current(snapshot, current_revision)
        revision = snapshot.revision

        def mutate(record: JournalRecord | None) -> JournalRecord:
            now = self.clock()
            if record is not None and record.preference_revision > revision:
                raise StaleContextError(
                    snapshot_revision=revision, current_revision=record.preference_revision
                )
            base, _ = self._usable(record, revision, now)
            version = (record.version + 1) if record is not None else 1
            return JournalRecord(base.append(turn, self.max_turns), revision, now, version)

        stored = self.storage.update(snapshot.scope.storage_id, mutate)
        assert stored is not None
        return stored

    def clear(self, scope: ScopeKey) -> None:
        self.storage.delete(scope.storage_id)

    def carry_over(self, scope: ScopeKey, old_revision: int, new_revision: int) -> JournalRecord | None:
        """After a preference change (a forget, a consent answer): the window read under
        ``old_revision`` is projected again, field by field through ``SafeTurn``'s whitelist, and
        stored under ``new_revision``, so the township stays while nothing of the preference does.
        A window of any other revision, or past its TTL, is deleted; a newer one is left alone.
        Its age is kept: a preference change does not make the window live longer."""

        def mutate(record: JournalRecord | None) -> JournalRecord | None:
            if record is None:
                return None
            if record.preference_revision >= new_revision:
                return record
            window, status = self._usable(record, old_revision, self.clock())
            if status != "fresh":
                return None
            again = ContextWindow.from_dict(window.to_dict())
            return JournalRecord(again, new_revision, record.updated_at, record.version + 1)

        return self.storage.update(scope.storage_id, mutate)

    def offer(self, scope: ScopeKey, revision: int, token: str) -> None:
        """Keep a consent prompt's signed token for the person's typed answer (「同意」). The
        window is kept as it is (and its age); an unusable one is replaced by an empty window."""
        kept = _offer_or_empty(token)

        def mutate(record: JournalRecord | None) -> JournalRecord | None:
            if record is not None and record.preference_revision > revision:
                return record
            window, status = self._usable(record, revision, self.clock())
            if record is not None and status == "fresh":
                return JournalRecord(window, revision, record.updated_at, record.version + 1, kept)
            version = record.version + 1 if record is not None else 1
            return JournalRecord(EMPTY_WINDOW, revision, self.clock(), version, kept)

        self.storage.update(scope.storage_id, mutate)

    def offered(self, scope: ScopeKey, revision: int) -> str:
        """The consent token offered under ``revision`` and not yet answered, else ""."""
        record = self.storage.load(scope.storage_id)
        if record is None or record.preference_revision != revision:
            return ""
        return record.offer

    def state(self, scope: ScopeKey, current_revision: int) -> dict[str, Any]:
        """The scope's journal as the replay prints it: usable turns, summary, revision."""
        snap = self.read(scope, current_revision)
        return {
            "turns": snap.window.labels(),
            "summary": snap.window.summary.to_dict() if not snap.window.summary.is_empty else None,
            "preference_revision": current_revision,
            "status": snap.status,
        }
