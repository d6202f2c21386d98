"""The context pipeline of one turn, shared by the ADK router, the offline demo and the benchmarks.

    begin()    read the preference revision, then the journal under it
    prepare()  assemble and measure the whole request within the budget
    tools()    TurnTools bound to this turn (consented memory read at execution time)
    finish()   project the turn, append it under the revision read in begin(), store a snapshot

Stdlib only. No raw user text leaves this module except inside the live request itself: the
snapshot keeps the current text's keyed fingerprint (HMAC-SHA-256) and length.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from local_agent import language
from local_agent.agent import offline_rules
from local_agent.agent.instructions import today_from
from local_agent.agent.tools import ToolExecution, TurnTools
from local_agent.context.errors import StaleContextError
from local_agent.context.journal import ContextJournal, JournalSnapshot, ScopeKey
from local_agent.context.projection import SafeTurn
from local_agent.context.session_budget import BudgetResult, Measure, SessionBudget
from local_agent.context.window import ContextWindow
from local_agent.fingerprint import text_fingerprint
from local_agent.language.dates import today_in_taipei
from local_agent.language.utterance import Utterance
from local_agent.listings.loader import Listings, shipped_listings
from local_agent.stores.ports import AuditStore, PreferenceStore, SnapshotStore, TurnSnapshot


def spoken(text: str) -> str:
    """A message without ASCII or full-width spaces (voice input adds them), as diets are read."""
    return text.strip().replace(" ", "").replace("\u3000", "")


def flat_contents(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Model contents as ``{"role", "text"}`` rows, each content's parts joined."""
    return [{"role": c["role"], "text": "".join(p.get("text", "") for p in c["parts"])} for c in contents]


def redact_current(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The contents as sent, with the last (current) user text replaced by its hash and length."""
    out = flat_contents(contents)
    if out:
        last = out.pop()
        out.append({"role": last["role"], "current_text": text_fingerprint(last["text"])})
    return out


def shown_in(window: ContextWindow) -> dict[tuple[str, str], tuple[str, ...]]:
    """(goal, township) -> listing ids shown so far, from the exchanges of ``window`` (the newest
    exchange of a goal and township wins: it carries everything shown before it)."""
    return {(t.goal, t.area): t.shown for t in window.turns if t.shown}


def waiting_in(window: ContextWindow) -> dict[str, tuple[str, str]]:
    """township -> the date window a kind question waits with, when the newest exchange of ``window``
    is one (only the turn right after the question completes it)."""
    latest = window.turns[-1] if window.turns else None
    if latest is None or not latest.asked_kind or not latest.date_from:
        return {}
    return {latest.area: (latest.date_from, latest.date_to)}


@dataclass
class TurnState:
    """One turn in flight: what it read in ``begin``, what it measured, the tools that ran."""

    scope: ScopeKey
    said: Utterance  # the current message, read once (``language.read``)
    turn_id: str
    revision: int
    snapshot: JournalSnapshot
    budget: BudgetResult | None = None
    tools: TurnTools | None = None
    error_code: str | None = None
    model_calls: int = 0  # model requests the budget gate has seen this turn
    gave_up: bool = False  # the gate answered a second model call with a fixed question
    app_text: str | None = None  # a fixed text the budget gate answered with instead of the model
    # Codes of the model-written texts the text gate refused this turn (``text_gate``); never the text.
    gate_codes: list[str] = field(default_factory=list)
    asked_kind: SafeTurn | None = (
        None  # the kind question this turn asked (``ContextPipeline.kind_question``)
    )

    @property
    def current(self) -> str:
        """The current message's text, as the model's request carries it."""
        return self.said.text

    @property
    def last_execution(self) -> ToolExecution | None:
        return self.tools.executions[-1] if self.tools and self.tools.executions else None


class ContextPipeline:
    def __init__(
        self,
        *,
        journal: ContextJournal,
        preferences: PreferenceStore,
        audit: AuditStore,
        snapshots: SnapshotStore,
        budget: SessionBudget,
        clock: Callable[[], float],
        listings: Listings | None = None,
    ) -> None:
        self.journal, self.preferences, self.audit, self.snapshots = journal, preferences, audit, snapshots
        self.budget, self.clock = budget, clock
        self.listings = listings if listings is not None else shipped_listings()

    def begin(self, scope: ScopeKey, current: str | Utterance, *, turn_id: str | None = None) -> TurnState:
        """A turn begun for ``current`` (an ``Utterance``, or a text read here once)."""
        said = current if isinstance(current, Utterance) else language.read(current, self.clock())
        revision = self.preferences.get(scope.user_id).revision
        snapshot = self.journal.read(scope, revision)
        return TurnState(scope, said, turn_id or uuid.uuid4().hex, revision, snapshot)

    async def prepare(self, state: TurnState, envelope: Mapping[str, Any], measure: Measure) -> BudgetResult:
        state.budget = await self.budget.prepare(state.snapshot.window, state.current, envelope, measure)
        return state.budget

    def tools(self, state: TurnState) -> TurnTools:
        if state.tools is None:
            state.tools = TurnTools(
                preferences=self.preferences,
                audit=self.audit,
                clock=self.clock,
                user_id=state.scope.user_id,
                scope_id=state.scope.storage_id,
                turn_id=state.turn_id,
                personal=state.scope.source_type == "user",
                named_diet=state.said.diet.named,
                listings=self.listings,
                said_diet=state.said.diet.code,
                shown_before=shown_in(state.budget.kept if state.budget else state.snapshot.window),
                waiting_dates=waiting_in(state.budget.kept if state.budget else state.snapshot.window),
            )
        return state.tools

    def kind_question(self, state: TurnState, text: str) -> SafeTurn | None:
        """The kind question (「想在鹿港鎮找吃的，還是查活動？」) the model's ``text`` asks, as this
        turn's projection, or ``None``. The township and dates come from the request as sent
        (``offline_rules.kind_question``), never from the model: ``text`` only has to be that
        question for that township, with no tool run and nothing refused."""
        if state.last_execution is not None or state.budget is None or state.app_text is not None:
            return None
        if state.error_code is not None:
            return None
        rules = state.budget.request.get("system_instruction")
        today = (today_from(rules) if isinstance(rules, str) else None) or today_in_taipei(self.clock())
        asked = offline_rules.kind_question(state.budget.contents, today, state.said)
        if asked is None or text.strip() != offline_rules.township_only_text(asked.area):
            return None
        state.asked_kind = asked
        return asked

    def projection(self, state: TurnState) -> SafeTurn:
        execution = state.last_execution
        if execution is None:
            return state.asked_kind or SafeTurn()
        result = execution.result
        return SafeTurn.from_tool(
            execution.tool,
            execution.effective_arguments.get("area") or result.get("area"),
            ok=result.get("status") == "ok",
            error_code=result.get("code"),
            dates=(result.get("date_from", ""), result.get("date_to", "")),
            confirm_area=result.get("suggestion", ""),
            shown=result.get("shown") or (),
        )

    def finish(self, state: TurnState) -> SafeTurn:
        """Append the projected turn and store the snapshot. A forget that landed during the
        turn makes the append refuse (the window would be stale); the snapshot is still kept."""
        turn = self.projection(state)
        current_revision = self.preferences.get(state.scope.user_id).revision
        written = True
        try:
            self.journal.append(state.snapshot, turn, current_revision=current_revision)
        except StaleContextError:
            written = False
        self.snapshots.append_snapshot(self.snapshot_of(state, turn, journal_written=written))
        return turn

    def snapshot_of(self, state: TurnState, turn: SafeTurn, *, journal_written: bool) -> TurnSnapshot:
        execution = state.last_execution
        data: dict[str, Any] = {
            "preference_revision": state.revision,
            "journal_status": state.snapshot.status,
            "window_read": state.snapshot.window.labels(),
            "projection": turn.label,
            "journal_written": journal_written,
            "tool": execution.tool if execution else None,
            "preference_origin": execution.preference_origin if execution else None,
            "error_code": state.error_code,
            "gate_refusals": len(state.gate_codes),
            "gate_codes": list(state.gate_codes),
        }
        if state.budget is not None:
            data.update(
                {
                    "contents": redact_current(state.budget.contents),
                    "count": state.budget.count,
                    "unit": state.budget.unit,
                    "measured_by": state.budget.measured_by,
                    "counts": list(state.budget.counts),
                    "measured": list(state.budget.measured),
                    "dropped_turns": state.budget.dropped_turns,
                    "summary_dropped": state.budget.summary_dropped,
                }
            )
        else:
            data["current_text"] = text_fingerprint(state.current)
        return TurnSnapshot(state.scope.storage_id, state.turn_id, self.clock(), data)
