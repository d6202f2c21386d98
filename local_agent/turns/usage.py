"""What each turn came to, recorded for the operator's report (``examples/day15/report.py``).

``outcome_of`` reads a ``TurnOutcome`` into a ``UsageRow`` by code: the outcome code, the search's
kind, canonical township, ISO date window and result count — never the words, the keyword, the
diet or an id. ``UsageRecorder`` is what the LINE edge calls: ``observe`` when a turn ends (the
processor's observers' moment; no I/O), ``delivered`` once its answer reached LINE or did not
(one store write per turn, on a worker thread, best effort: a store that fails loses the row, never
the answer), ``unfollowed`` when a person's data is deleted. A turn delivered without having been
observed (it raised or timed out, and the apology went out) is recorded as ``failed``.

Per turn: one small row (about 200 bytes in SQLite) and one write after the delivery; in memory,
the rows of the turns between ``observe`` and ``delivered`` (at most ``MAX_PENDING``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from local_agent.agent.adk_router import ASK_AGAIN, TurnOutcome
from local_agent.context.errors import BudgetExceeded, LocalError
from local_agent.context.journal import ScopeKey
from local_agent.context.projection import CHOICE_CODE, CONFIRM_CODE, KIND_LABEL, PENDING_CODE
from local_agent.context.townships import TOWNSHIPS
from local_agent.fingerprint import digest
from local_agent.stores.usage import DeliveryCode, Outcome, SearchKind, UsageEvent, UsageRow, UsageStore

log = logging.getLogger("local_agent.usage")

SEARCH_KINDS: dict[str, SearchKind] = {"search_local_places": "places", "search_local_events": "events"}
# Tool answers that ask the person something back (which township? did you mean …?).
ASKING_CODES = frozenset({PENDING_CODE, CONFIRM_CODE, CHOICE_CODE, "UNKNOWN_TOWNSHIP"})
COMMAND_OUTCOMES: dict[str, Outcome] = {
    "consent_granted": "consent_granted",
    "consent_refused": "consent_refused",
    "forget": "deleted",
    "unreadable": "not_understood",
}
ANONYMOUS = "-"
MAX_PENDING = 10_000  # observed turns not yet delivered (a turn cut at shutdown is never delivered)


def person_of(user_id: str) -> str:
    """The keyed fingerprint a usage row keeps for a person ("" for a group member without id)."""
    return "" if user_id == ANONYMOUS else digest("usage/person:" + user_id, 24)


def _search_fields(call: dict[str, Any]) -> dict[str, Any]:
    kind = SEARCH_KINDS[call["tool"]]
    effective = call.get("effective_arguments") or {}
    township = effective.get("area") if effective.get("area") in TOWNSHIPS else ""
    fields: dict[str, Any] = {"kind": kind, "township": township}
    if call.get("status") == "ok":
        fields["found"] = int(call.get("found") or 0)
        fields["outcome"] = "answered" if fields["found"] else "found_nothing"
        fields["date_from"] = str(effective.get("date_from") or "")
        fields["date_to"] = str(effective.get("date_to") or "")
    else:
        fields["outcome"] = "asked_back" if call.get("code") in ASKING_CODES else "not_understood"
    return fields


def _without_search(outcome: TurnOutcome) -> dict[str, Any]:
    if outcome.command is not None:
        return {"outcome": COMMAND_OUTCOMES.get(outcome.command, "command")}
    if ASK_AGAIN in outcome.reply.texts:
        return {"outcome": "not_understood"}
    label = outcome.projection or ""
    if label.endswith(KIND_LABEL):  # 「鹿港鎮：已問要找店家還是查活動」: the kind question
        township = label.split("：", 1)[0]
        return {"outcome": "asked_back", "township": township if township in TOWNSHIPS else ""}
    return {"outcome": "talk"}


def outcome_of(outcome: TurnOutcome) -> dict[str, Any]:
    """The usage fields of one turn's outcome (``outcome`` and, for a search, its fields)."""
    if outcome.error_code == BudgetExceeded.code:
        return {"outcome": "refused_budget"}
    if outcome.error_code is not None:
        return {"outcome": "failed"}
    if outcome.gate_code is not None:
        return {"outcome": "refused_gate"}
    searches = [c for c in outcome.tool_calls if c.get("tool") in SEARCH_KINDS]
    if searches:
        return _search_fields(searches[-1])
    return _without_search(outcome)


class _Event(Protocol):
    @property
    def scope(self) -> ScopeKey: ...

    @property
    def event_id(self) -> str | None: ...

    @property
    def received_at(self) -> float: ...


def _key(event: _Event) -> str:
    return event.event_id or f"{event.scope.storage_id}@{event.received_at!r}"


class UsageRecorder:
    def __init__(self, store: UsageStore, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        self._pending: OrderedDict[str, UsageRow] = OrderedDict()

    def _row(self, inbound: _Event, kind_of_row: UsageEvent, **fields: Any) -> UsageRow:
        scope = inbound.scope
        person, source = person_of(scope.user_id), scope.source_type
        return UsageRow(at=self.clock(), event=kind_of_row, person=person, source=source, **fields)

    def observe(self, event: _Event, outcome: TurnOutcome) -> None:
        """A turn ended with ``outcome`` (no I/O: the row waits for its delivery)."""
        self._pending[_key(event)] = self._row(event, kind_of_row="turn", **outcome_of(outcome))
        while len(self._pending) > MAX_PENDING:
            self._pending.popitem(last=False)

    async def delivered(self, event: _Event, delivery: DeliveryCode, *, retry: bool = False) -> None:
        """The answer to ``event`` was delivered (or not, ``delivery`` says how): write its row. A
        ``retry`` (a reply kept after LINE refused it) records the delivery only."""
        row = self._pending.pop(_key(event), None)
        if retry:
            row = self._row(event, kind_of_row="retry")
        elif row is None:
            if delivery == "none":
                return  # nothing ran that was answered (a postback not ours, a duplicate)
            row = self._row(event, kind_of_row="turn", outcome="failed")
        await self._write(replace(row, delivery=delivery))

    async def unfollowed(self, event: _Event) -> None:
        await self._write(self._row(event, kind_of_row="unfollow", outcome="deleted"))

    async def _write(self, row: UsageRow) -> None:
        try:
            await asyncio.to_thread(self.store.append_usage, row)
        except LocalError as exc:
            log.warning("usage row not stored", extra={"code": exc.code})
