"""Every error LOCAL raises on purpose, with a stable ``code``.

    LocalError                                  code
    ├── BudgetError
    │   ├── BudgetExceeded                      CURRENT_AND_RULES_EXCEED_INPUT_BUDGET
    │   ├── CounterUnitMismatch                 COUNTER_UNIT_MISMATCH
    │   └── InvalidCounterResult                INVALID_COUNTER_RESULT
    ├── StaleContextError                       STALE_CONTEXT_SNAPSHOT
    ├── ScopeError                              INVALID_SCOPE
    └── StoreError                              STORE_UNAVAILABLE

Messages carry codes, counts and units only: never user text, tokens or secrets.
Context is keyword-only, so a call site reads as what it reports.
"""

from __future__ import annotations


class LocalError(Exception):
    code = "LOCAL_ERROR"

    def __init__(self, message: str = "") -> None:
        super().__init__(f"{self.code}: {message}" if message else self.code)


class BudgetError(LocalError, ValueError):
    """Also a ``ValueError``, as in the spec's snippet, so ``except ValueError`` callers catch it."""

    code = "BUDGET_ERROR"


class BudgetExceeded(BudgetError):
    """Rules, tool contract and the current question alone do not fit: refuse to send."""

    code = "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"

    def __init__(self, *, limit: int, count: int, unit: str) -> None:
        self.limit, self.count, self.unit = limit, count, unit
        super().__init__(f"{count} {unit} needed, limit {limit} {unit}")


class CounterUnitMismatch(BudgetError):
    code = "COUNTER_UNIT_MISMATCH"

    def __init__(self, *, expected: str, actual: object) -> None:
        self.expected, self.actual = expected, actual
        super().__init__(f"budget counts {expected!r}, measure counts {actual!r}")


class InvalidCounterResult(BudgetError):
    code = "INVALID_COUNTER_RESULT"

    def __init__(self, *, value_type: str, negative: bool = False) -> None:
        self.value_type, self.negative = value_type, negative
        what = "a negative int" if negative else f"a {value_type}"
        super().__init__(f"measure returned {what}, expected a non-negative int")


class StaleContextError(LocalError):
    """A window derived from an old preference revision may not be written back."""

    code = "STALE_CONTEXT_SNAPSHOT"

    def __init__(self, *, snapshot_revision: int, current_revision: int) -> None:
        self.snapshot_revision, self.current_revision = snapshot_revision, current_revision
        super().__init__(f"snapshot revision {snapshot_revision}, current revision {current_revision}")


class ScopeError(LocalError):
    code = "INVALID_SCOPE"


class StoreError(LocalError):
    """A storage backend failed; the logical write it was part of did not happen."""

    code = "STORE_UNAVAILABLE"

    def __init__(self, *, operation: str, backend: str, detail: str = "") -> None:
        self.operation, self.backend, self.detail = operation, backend, detail
        super().__init__(f"{backend} failed during {operation}" + (f" ({detail})" if detail else ""))
