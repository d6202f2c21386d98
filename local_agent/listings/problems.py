"""What is wrong with a listings folder, as records: file, row, column, what is wrong, what is allowed.

Validation collects every :class:`Problem` of a folder in one pass (``listings check`` prints them all);
the service refuses to start on any of them (:class:`ListingsError` carries the whole list, ``str()``
names the first). A single check may still *raise* :class:`ListingsError` for its one cell: the row
builder catches it and records it, so a new column check is a function that raises and nothing more.

Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Problem:
    """One thing the service would refuse. ``row`` is the spreadsheet's row number (header = 1) or the
    line of ``listings.toml``; ``column`` a CSV column or a metadata key; ``allowed`` says what would pass."""

    file: str
    message: str
    row: int | None = None
    column: str | None = None
    allowed: str = ""

    @property
    def where(self) -> str:
        where = self.file
        if self.row is not None:
            where += f" row {self.row}"
        if self.column is not None:
            where += f" column {self.column}"
        return where

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}"
        return f"{text}; allowed: {self.allowed}" if self.allowed else text

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "row": self.row,
            "column": self.column,
            "problem": self.message,
            "allowed": self.allowed,
        }


class ListingsError(ValueError):
    """A listings folder the service will not serve. ``problems`` holds every problem found; ``file``,
    ``row``, ``column``, ``message`` and ``allowed`` are the first one's, and ``str()`` names it."""

    code = "LISTINGS_INVALID"

    def __init__(
        self,
        file: str | Iterable[Problem],
        message: str = "",
        *,
        row: int | None = None,
        column: str | None = None,
        allowed: str = "",
    ) -> None:
        if isinstance(file, str):
            problems: tuple[Problem, ...] = (Problem(file, message, row, column, allowed),)
        else:
            problems = tuple(file)
        if not problems:
            raise ValueError("a ListingsError needs at least one problem")
        self.problems = problems
        first = problems[0]
        self.file, self.row, self.column = first.file, first.row, first.column
        self.message, self.allowed = first.message, first.allowed
        more = len(problems) - 1
        super().__init__(str(first) + (f" (and {more} more)" if more else ""))


class Problems:
    """The problems of one folder, in the order found."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def __len__(self) -> int:
        return len(self.items)

    def add(
        self,
        file: str,
        message: str,
        *,
        row: int | None = None,
        column: str | None = None,
        allowed: str = "",
    ) -> None:
        self.items.append(Problem(file, message, row, column, allowed))

    def record(self, exc: ListingsError) -> None:
        self.items.extend(exc.problems)

    def attempt(self, check: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
        """``check(*args, **kwargs)``, or None after recording the :class:`ListingsError` it raised."""
        try:
            return check(*args, **kwargs)
        except ListingsError as exc:
            self.record(exc)
            return None


__all__ = ["ListingsError", "Problem", "Problems"]
