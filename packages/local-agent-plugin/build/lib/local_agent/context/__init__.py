"""The stdlib-only context layer of Day 15: projection, window, summary, budget, journal.

This package imports no third-party module and has no clock, network or database of its own:
time, storage and counting come in as arguments.
"""

from .errors import (
    BudgetExceeded,
    CounterUnitMismatch,
    InvalidCounterResult,
    LocalError,
    StaleContextError,
    StoreError,
)
from .journal import (
    ContextJournal,
    JournalRecord,
    JournalSnapshot,
    MemoryJournalStorage,
    ScopeKey,
)
from .projection import SafeTurn
from .session_budget import (
    BudgetResult,
    ByteMeasure,
    SessionBudget,
    build_envelope,
    render_contents,
)
from .window import ContextSummary, ContextWindow, trim_oldest

__all__ = [
    "BudgetExceeded",
    "BudgetResult",
    "ByteMeasure",
    "ContextJournal",
    "ContextSummary",
    "ContextWindow",
    "CounterUnitMismatch",
    "InvalidCounterResult",
    "JournalRecord",
    "JournalSnapshot",
    "LocalError",
    "MemoryJournalStorage",
    "SafeTurn",
    "ScopeKey",
    "SessionBudget",
    "StaleContextError",
    "StoreError",
    "build_envelope",
    "render_contents",
    "trim_oldest",
]
