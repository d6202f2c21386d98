"""Storage ports besides the journal's (which lives in ``local_agent.context.journal``).

Each port is small and synchronous; the adapters are sibling modules named after their technology
(``stores/sqlite.py``, ``stores/firestore.py``). The service calls them from a worker thread.
Every read-modify-write is one transaction in the adapter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

CONSENT_STATES = ("none", "granted", "refused", "forgotten")
PREFERENCE_ORIGINS = ("explicit", "consented_memory", "none")
DEDUPE_TTL_SECONDS = 86400.0
# Audit rows and per-turn snapshots are evidence for inspection, kept 30 days then deleted
# (SQLite: ``purge_expired``; Firestore: a TTL policy on ``expire_at``).
RECORD_RETENTION_SECONDS = 30 * 86400.0


@dataclass(frozen=True, slots=True)
class PreferenceState:
    """A user's consented dietary preference. ``revision`` only ever grows."""

    user_id: str
    dietary_type: str | None = None
    consent: str = "none"
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
    preference_origin: str
    status: str
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
        self, user_id: str, *, consent: str, dietary_type: str | None, now: float
    ) -> PreferenceState:
        """Record a consent decision atomically with a revision bump.

        ``granted`` stores ``dietary_type``; ``refused`` and ``forgotten`` store none."""
        ...


class AuditStore(Protocol):
    def append_audit(self, row: AuditRow) -> None: ...

    def audit_rows(self, scope_id: str | None = None) -> list[AuditRow]: ...


class SnapshotStore(Protocol):
    def append_snapshot(self, snap: TurnSnapshot) -> None: ...

    def snapshots(self, scope_id: str | None = None) -> list[TurnSnapshot]: ...


class DedupeStore(Protocol):
    def claim_event(self, event_id: str, *, now: float, ttl: float = DEDUPE_TTL_SECONDS) -> bool:
        """Create-if-absent. True when this call claimed the event (first delivery)."""
        ...


def next_preference(
    state: PreferenceState, *, consent: str, dietary_type: str | None, now: float
) -> PreferenceState:
    """The pure transition every adapter applies inside its transaction."""
    if consent not in CONSENT_STATES or consent == "none":
        raise ValueError("consent must be granted, refused or forgotten")
    if consent == "granted" and not dietary_type:
        raise ValueError("granting consent needs a dietary type")
    stored = dietary_type if consent == "granted" else None
    return PreferenceState(state.user_id, stored, consent, state.revision + 1, now)
