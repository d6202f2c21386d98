"""Storage ports, and ``Store``: everything one adapter provides.

The journal's port, ``JournalStorage``, lives in ``local_agent.context.journal`` (the core
imports nothing from here); ``Store`` includes it. Each port is small and synchronous; the
adapters are the sibling modules ``sqlite`` (``SqliteStore``) and ``firestore``
(``FirestoreStore``), and each satisfies ``Store`` (``wiring.open_store`` returns either as one,
so mypy checks it). The service calls them from a worker thread. Every read-modify-write is one
transaction in the adapter.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

from local_agent.context.canonical import canonical_json
from local_agent.context.errors import StaleContextError
from local_agent.context.journal import JournalStorage
from local_agent.stores.usage import UsageStore

# A user's consent to remembering a dietary preference. "none" = never asked or never answered.
ConsentState = Literal["none", "granted", "refused", "forgotten"]
# What a consent command records (every decision bumps the preference revision).
ConsentDecision = Literal["granted", "refused", "forgotten"]
# Where a tool execution's dietary type came from: said in this turn, remembered with consent, or none.
PreferenceOrigin = Literal["explicit", "consented_memory", "none"]
# An audit row's status: the tool ran ("ok") or refused its arguments ("error").
AuditStatus = Literal["ok", "error"]

CONSENT_STATES: tuple[ConsentState, ...] = get_args(ConsentState)
CONSENT_DECISIONS: tuple[ConsentDecision, ...] = get_args(ConsentDecision)
PREFERENCE_ORIGINS: tuple[PreferenceOrigin, ...] = get_args(PreferenceOrigin)
DEDUPE_TTL_SECONDS = 86400.0
# Audit rows, per-turn snapshots and usage rows (``stores/usage.py``) are kept 30 days then deleted
# (SQLite: ``purge_expired``; Firestore: a TTL policy on ``expire_at``).
RECORD_RETENTION_SECONDS = 30 * 86400.0
# What a forget leaves of a remembered diet in the audit rows that used it.
FORGOTTEN_MARK = "#forgotten"
# What a push worker's claim on an event found: it is now this holder's (new, its own, or a
# lapsed claim taken over), another holder's live claim, or an event already answered.
LeaseOutcome = Literal["claimed", "held", "done"]


def forgotten_arguments(stored: str) -> str | None:
    """An audit row's stored effective arguments (canonical JSON) with the diet replaced by
    ``FORGOTTEN_MARK``, or None when a forget already replaced it (nothing to write)."""
    arguments = json.loads(stored)
    if arguments.get("dietary_type") == FORGOTTEN_MARK:
        return None
    return canonical_json({**arguments, "dietary_type": FORGOTTEN_MARK})


@dataclass(frozen=True, slots=True)
class PreferenceState:
    """A user's consented dietary preference. ``revision`` only ever grows."""

    user_id: str
    dietary_type: str | None = None
    consent: ConsentState = "none"
    revision: int = 0
    updated_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "dietary_type": self.dietary_type,
            "consent": self.consent,
            "revision": self.revision,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One tool execution: what the model proposed and what actually ran."""

    scope_id: str
    tool: str
    proposed_arguments: dict[str, Any]
    effective_arguments: dict[str, Any]
    memory_revision: int
    preference_origin: PreferenceOrigin
    status: AuditStatus
    at: float
    turn_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope_id": self.scope_id,
            "turn_id": self.turn_id,
            "tool": self.tool,
            "proposed_arguments": dict(self.proposed_arguments),
            "memory_revision": self.memory_revision,
            "effective_arguments": dict(self.effective_arguments),
            "preference_origin": self.preference_origin,
            "status": self.status,
            "at": self.at,
        }


@dataclass(frozen=True, slots=True)
class TurnSnapshot:
    """What the model saw on one turn (QTable's 'context snapshot'), with no raw user text:
    the current user text is replaced by its SHA-256 and length."""

    scope_id: str
    turn_id: str
    at: float
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"scope_id": self.scope_id, "turn_id": self.turn_id, "at": self.at, "data": self.data}


class PreferenceStore(Protocol):
    def get(self, user_id: str) -> PreferenceState: ...

    def set_consent(
        self,
        user_id: str,
        *,
        consent: ConsentDecision,
        dietary_type: str | None,
        now: float,
        expected_revision: int | None = None,
    ) -> PreferenceState:
        """Record a consent decision atomically with a revision bump.

        ``granted`` stores ``dietary_type``; ``refused`` and ``forgotten`` store none. With
        ``expected_revision`` (a consent button's), the decision is recorded only while the
        revision is still that one, in the same transaction; otherwise ``StaleContextError`` and
        nothing changes: a button acts at most once, whichever instance sees the tap."""
        ...


class AuditStore(Protocol):
    def append_audit(self, row: AuditRow) -> None: ...

    def audit_rows(self, scope_id: str | None = None) -> list[AuditRow]: ...

    def forget_audited_memory(self, scope_id: str) -> int:
        """In every audit row of ``scope_id`` whose diet came from consented memory, the diet
        becomes ``FORGOTTEN_MARK`` (the rest of the row stays as evidence). Returns the rows changed."""
        ...


class SnapshotStore(Protocol):
    def append_snapshot(self, snap: TurnSnapshot) -> None: ...

    def snapshots(self, scope_id: str | None = None) -> list[TurnSnapshot]: ...


class DedupeStore(Protocol):
    def claim_event(self, event_id: str, *, now: float, ttl: float = DEDUPE_TTL_SECONDS) -> bool:
        """Create-if-absent. True when this call claimed the event (first delivery)."""
        ...


@dataclass(frozen=True, slots=True)
class EventLease:
    """A claim on one event (``LOCAL_QUEUE=pubsub``): who works on it and until when, or that it
    was answered. The record itself is kept until ``expire_at`` (a day), then purged."""

    holder: str
    lease_until: float
    done: bool
    expire_at: float


class LeaseStore(Protocol):
    """Dedupe as a lease: a finished event never runs twice; a claim whose holder died (stopped
    renewing) is taken over once ``lease_until`` has passed. Each call is one transaction."""

    def lease_event(
        self, event_id: str, *, holder: str, now: float, lease: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> LeaseOutcome:
        """Claim, renew (same holder) or take over (lapsed) the event's lease until ``now + lease``."""
        ...

    def finish_event(
        self, event_id: str, *, holder: str, now: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> bool:
        """Mark the event answered, if ``holder`` still holds it (False: taken over or unknown)."""
        ...

    def release_event(self, event_id: str, *, holder: str) -> bool:
        """Give up ``holder``'s unfinished claim at once (the next delivery need not wait)."""
        ...


def next_lease(
    current: EventLease | None, *, holder: str, now: float, lease: float, ttl: float
) -> tuple[LeaseOutcome, EventLease | None]:
    """The pure lease transition every adapter applies in its transaction: the outcome and the
    record to write (None: write nothing)."""
    if current is not None and current.expire_at <= now:
        current = None  # purged in all but name
    if current is not None and current.done:
        return "done", None
    if current is not None and current.holder != holder and current.lease_until > now:
        return "held", None
    return "claimed", EventLease(holder, now + lease, False, now + ttl)


def finished_lease(current: EventLease | None, *, holder: str, now: float, ttl: float) -> EventLease | None:
    """The record that marks the event answered by ``holder``, or None when it is not theirs."""
    if current is None or current.done or current.holder != holder:
        return None
    return EventLease(holder, current.lease_until, True, now + ttl)


def releasable(current: EventLease | None, *, holder: str) -> bool:
    """Whether ``holder`` may drop this claim (its own, not finished)."""
    return current is not None and not current.done and current.holder == holder


# Nothing from the inbox outlives a day: a row unanswered that long is purged with the dedupe records.
INBOX_TTL_SECONDS = 86400.0


@dataclass(frozen=True, slots=True)
class InboxEntry:
    """One accepted webhook event as the inbox keeps it until it is answered (``LOCAL_QUEUE=inprocess``).

    ``sealed`` is the event encrypted by the LINE edge (``server/inbox.py``): the store never sees
    the message text. ``chat`` and ``received_at``/``seq`` give the order per chat."""

    event_id: str
    chat: str
    received_at: float
    seq: int
    sealed: bytes


@dataclass(frozen=True, slots=True)
class InboxRow:
    """An inbox row as claimed: the entry, who holds it until when, how many times it was claimed,
    and the sealed reply of a turn that ran but could not be delivered (``b""``: none yet)."""

    entry: InboxEntry
    holder: str
    lease_until: float
    attempts: int
    reply: bytes = b""


class InboxStore(Protocol):
    """The durable inbox: every accepted event is a row until it is answered, so a crash loses
    nothing. Rows are held by one process at a time through a lease, like ``LeaseStore``'s."""

    def inbox_accept(
        self,
        entries: Sequence[InboxEntry],
        *,
        holder: str,
        now: float,
        lease: float,
        ttl: float = INBOX_TTL_SECONDS,
    ) -> list[bool]:
        """One write for a whole webhook body: per entry, claim its event id (the dedupe claim, kept a
        day) and, when new, write its row held by ``holder`` until ``now + lease``. True per new entry."""
        ...

    def inbox_claim(self, *, holder: str, now: float, lease: float, limit: int) -> list[InboxRow]:
        """Take over at most ``limit`` rows whose lease has lapsed (oldest first): each is then
        ``holder``'s until ``now + lease`` and its ``attempts`` grows by one."""
        ...

    def inbox_renew(self, *, holder: str, now: float, lease: float) -> int:
        """Extend every row ``holder`` holds without a parked reply; returns how many."""
        ...

    def inbox_park(self, event_id: str, *, holder: str, reply: bytes, retry_at: float) -> bool:
        """Keep the sealed ``reply`` of a turn LINE did not take, claimable again at ``retry_at``."""
        ...

    def inbox_done(self, event_id: str, *, holder: str) -> bool:
        """Delete the row while ``holder`` holds it: the event is answered (or given up). False when
        the row is gone or another process took it over (its lease had lapsed)."""
        ...

    def inbox_hand_back(self, event_id: str, *, holder: str, retry_at: float) -> bool:
        """Give one of ``holder``'s rows up (its turn failed before anything was sent): nobody's,
        not renewed, claimable again at ``retry_at``. False when it is not ``holder``'s."""
        ...

    def inbox_release(self, *, holder: str) -> int:
        """Give up every row ``holder`` holds at once (shutdown): the next start takes them without
        waiting for the lease. Returns how many."""
        ...

    def inbox_drop_chat(self, chat: str, *, before: float) -> int:
        """Delete the rows of ``chat`` received before ``before`` (the chat unfollowed)."""
        ...

    def inbox_pending(self) -> int:
        """Rows in the inbox (answered events are deleted at once, so these are unanswered)."""
        ...


class Store(
    JournalStorage,
    PreferenceStore,
    AuditStore,
    SnapshotStore,
    UsageStore,
    DedupeStore,
    LeaseStore,
    InboxStore,
    Protocol,
):
    """Every port in one backend, plus its lifecycle and the inspection the demo and replay print."""

    backend: str  # "sqlite" | "firestore": named in StoreError and in logs

    def purge_expired(self, now: float, *, retention: float = RECORD_RETENTION_SECONDS) -> dict[str, int]:
        """Delete what is past its retention; rows deleted per table (``{}`` where the backend's own
        TTL policies do it)."""
        ...

    def close(self) -> None: ...

    def journal_rows(self) -> dict[str, dict[str, Any]]: ...

    def preference_rows(self) -> list[dict[str, Any]]: ...


def next_preference(
    state: PreferenceState,
    *,
    consent: ConsentDecision,
    dietary_type: str | None,
    now: float,
    expected_revision: int | None = None,
) -> PreferenceState:
    """The pure transition every adapter applies inside its transaction."""
    if expected_revision is not None and state.revision != expected_revision:
        raise StaleContextError(snapshot_revision=expected_revision, current_revision=state.revision)
    if consent not in CONSENT_DECISIONS:  # callers outside mypy's reach (e.g. a bad postback)
        raise ValueError("consent must be granted, refused or forgotten")
    if consent == "granted" and not dietary_type:
        raise ValueError("granting consent needs a dietary type")
    stored = dietary_type if consent == "granted" else None
    return PreferenceState(state.user_id, stored, consent, state.revision + 1, now)
