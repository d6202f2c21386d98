"""The usage port: one row per answered turn, what the operator's report counts.

A row holds codes and validated values only: when, a keyed fingerprint of the person (never the
id), the chat's source type, the turn's outcome code, the search's kind, township and ISO date
window, how many results it found, and how the answer was delivered. Never the words, the
keyword, the diet or the user id. Rows expire with the audit rows and snapshots
(``RECORD_RETENTION_SECONDS``: SQLite's ``purge_expired``, Firestore's TTL policy on
``expire_at``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

# What a row records: a turn (its outcome and its first delivery), a later retry of a reply LINE
# did not take at first (its delivery only), or an unfollow (the person's data deleted).
UsageEvent = Literal["turn", "retry", "unfollow"]
# What the turn came to, decided by code from the turn's outcome (``turns/usage.py``).
Outcome = Literal[
    "answered",  # a search with results
    "found_nothing",  # a search that found nothing (the listings to add)
    "asked_back",  # which township? did you mean …? places or events?
    "not_understood",  # the words were not read (unreadable, ask again, a date not understood)
    "refused_budget",  # the request did not fit the input budget
    "refused_gate",  # a model-written text the gate refused
    "failed",  # the store, the model or the turn itself failed (the apology went out)
    "consent_granted",
    "consent_refused",
    "deleted",  # a forget was carried out (also: every unfollow row)
    "command",  # help, what is kept, the picker, greetings, small talk, …
    "talk",  # a model-written text that passed the gate (no search)
]
# How the answer reached the person: with the reply token, late by push, not taken by LINE at first
# (kept for a retry), given up (never delivered), or nothing to send.
DeliveryCode = Literal["reply", "late", "failed", "lost", "none"]
SearchKind = Literal["places", "events", ""]

USAGE_EVENTS: tuple[UsageEvent, ...] = get_args(UsageEvent)
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
DELIVERY_CODES: tuple[DeliveryCode, ...] = get_args(DeliveryCode)


@dataclass(frozen=True, slots=True)
class UsageRow:
    at: float
    event: UsageEvent
    person: str  # keyed fingerprint (``fingerprint.digest``) of the user id; "" when anonymous
    source: str  # user | group | room
    outcome: Outcome | Literal[""] = ""  # "" on a retry row
    kind: SearchKind = ""
    township: str = ""  # a canonical township, or ""
    date_from: str = ""  # ISO dates of an event search's window, or ""
    date_to: str = ""
    found: int = -1  # results of the search; -1 when no search ran
    delivery: DeliveryCode = "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "event": self.event,
            "person": self.person,
            "source": self.source,
            "outcome": self.outcome,
            "kind": self.kind,
            "township": self.township,
            "date_from": self.date_from,
            "date_to": self.date_to,
            "found": self.found,
            "delivery": self.delivery,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageRow:
        return cls(
            at=float(data["at"]),
            event=data["event"],
            person=str(data["person"]),
            source=str(data["source"]),
            outcome=data["outcome"],
            kind=data["kind"],
            township=str(data["township"]),
            date_from=str(data["date_from"]),
            date_to=str(data["date_to"]),
            found=int(data["found"]),
            delivery=data["delivery"],
        )


USAGE_COLUMNS: tuple[str, ...] = tuple(UsageRow.__dataclass_fields__)


class UsageStore(Protocol):
    def append_usage(self, row: UsageRow) -> None: ...

    def usage_rows(self, since: float, until: float) -> list[UsageRow]:
        """The rows with ``since <= at < until``, oldest first."""
        ...
