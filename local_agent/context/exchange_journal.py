"""ExchangeJournal: the windows of an agent that is not LOCAL, in the journal's storage port.

One ``JournalRecord`` per person (its scope id a hash of the plugin's name and the user id) holds that person's
conversations, each an ``ExchangeWindow`` of projections under a hash of app and session id. The gate
is the journal's own (``window_status``): a window written at another revision is never read, one
older than the sliding TTL (900 s by default; every write refreshes it) reads as empty, and every
write drops the person's expired conversations. ``forget`` deletes the person's record, so all of
their windows go in one delete; an adapter's ``purge_expired`` removes records past the TTL.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import StaleContextError
from .exchanges import ExchangeWindow, SessionWindow, Summarize, latest_projection
from .journal import (
    TTL_SECONDS,
    Clock,
    JournalRecord,
    JournalStatus,
    JournalStorage,
    window_status,
)
from .window import EMPTY_WINDOW


@dataclass(frozen=True, slots=True)
class ExchangeRead:
    """What a turn read: the usable window, under which revision, and the gate's verdict."""

    window: ExchangeWindow
    revision: int
    status: JournalStatus


class ExchangeJournal:
    def __init__(
        self,
        storage: JournalStorage,
        *,
        clock: Clock,
        ttl_seconds: float = TTL_SECONDS,
        summarize: Summarize = latest_projection,
    ) -> None:
        self.storage, self.clock, self.ttl, self.summarize = storage, clock, ttl_seconds, summarize

    def _usable(self, record: JournalRecord | None, session: str, revision: int, now: float) -> ExchangeRead:
        found = dict(record.exchanges).get(session) if record is not None else None
        if record is None or found is None:
            return ExchangeRead(ExchangeWindow(summarize=self.summarize), revision, "empty")
        status = window_status(record.preference_revision, found.updated_at, revision, now, self.ttl)
        if status != "fresh":
            return ExchangeRead(ExchangeWindow(summarize=self.summarize), revision, status)
        return ExchangeRead(ExchangeWindow(found.turns, found.summary, self.summarize), revision, status)

    def read(self, person: str, session: str, revision: int) -> ExchangeRead:
        return self._usable(self.storage.load(person), session, revision, self.clock())

    def append(
        self, person: str, session: str, read: ExchangeRead, projection: str, *, max_turns: int
    ) -> JournalRecord:
        """Add one exchange's projection to the window ``read`` found, under its revision. A record
        of a newer revision is never overwritten (``StaleContextError``); the person's other
        conversations are kept while fresh at this revision, the rest dropped."""
        revision = read.revision

        def mutate(record: JournalRecord | None) -> JournalRecord:
            now = self.clock()
            if record is not None and record.preference_revision > revision:
                raise StaleContextError(
                    snapshot_revision=revision, current_revision=record.preference_revision
                )
            base = self._usable(record, session, revision, now).window
            window = base.append(projection, max_turns)
            kept = _fresh_others(record, session, revision, now, self.ttl)
            mine = SessionWindow(window.turns, window.summary, now)
            version = (record.version + 1) if record is not None else 1
            return JournalRecord(
                EMPTY_WINDOW, revision, now, version, exchanges=tuple(sorted((*kept, (session, mine))))
            )

        stored = self.storage.update(person, mutate)
        assert stored is not None
        return stored

    def forget(self, person: str) -> None:
        """Delete every window of this person (every conversation) in one delete."""
        self.storage.delete(person)


def _fresh_others(
    record: JournalRecord | None, session: str, revision: int, now: float, ttl: float
) -> list[tuple[str, SessionWindow]]:
    if record is None:
        return []
    stored = record.preference_revision
    return [
        (key, w)
        for key, w in record.exchanges
        if key != session and window_status(stored, w.updated_at, revision, now, ttl) == "fresh"
    ]
