"""What is wrong with a listings folder, as records: file, row, column, what is wrong, what is allowed.

Validation collects every :class:`Problem` of a folder in one pass (``listings check`` prints them all);
the service refuses to start on any of them (:class:`ListingsError` carries the whole list, ``str()``
names the first). A single check may still *raise* :class:`ListingsError` for its one cell: the row
builder catches it and records it, so a new column check is a function that raises and nothing more.

Standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, NoReturn, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
# A refused start prints at most this many problems, then a count of the rest.
MAX_REPORTED = 20
CHECK_COMMAND = "python -m examples.day15.listings check"


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
        self.folder = ""  # the folder, once ``load_listings`` knows it failed as a whole
        first = problems[0]
        self.file, self.row, self.column = first.file, first.row, first.column
        self.message, self.allowed = first.message, first.allowed
        more = len(problems) - 1
        super().__init__(str(first) + (f" (and {more} more)" if more else ""))

    def lines(self, command: str = "LOCAL", limit: int = MAX_REPORTED) -> list[str]:
        """The one-screen report of a refused start, shaped like a settings error's: a header, one
        line per problem (at most ``limit``, then a count of the rest), and the command that checks it."""
        count, folder = len(self.problems), self.folder
        where = f" in {folder}" if folder else ""
        head = f"{command}: cannot start, {count} listings problem{'s' if count != 1 else ''}{where}"
        more = f"{CHECK_COMMAND} {folder or 'DIR'} --max-problems 0 prints them all"
        check = f"Check the folder with: {CHECK_COMMAND} {folder or 'DIR'}"
        return [head, *shown_lines(self.problems, limit, more), check]


def shown_lines(problems: Sequence[Problem], limit: int, more_hint: str) -> list[str]:
    """One indented line per problem, at most ``limit`` (0 = all), then how many were not shown."""
    shown = problems if limit == 0 else problems[:limit]
    lines = [f"  {p}" for p in shown]
    if len(shown) < len(problems):
        lines.append(f"  ... and {len(problems) - len(shown)} more ({more_hint})")
    return lines


def exit_on_listings_error(exc: ListingsError, command: str, stream: IO[str] | None = None) -> NoReturn:
    """Print the one-screen report on stderr and exit with status 2 (no traceback), as a settings
    error does."""
    print("\n".join(exc.lines(command)), file=stream or sys.stderr, flush=True)
    raise SystemExit(2)


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


__all__ = ["MAX_REPORTED", "ListingsError", "Problem", "Problems", "exit_on_listings_error", "shown_lines"]
