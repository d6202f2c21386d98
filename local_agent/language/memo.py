"""A memo that lives for one reading of one message, and no longer.

A message's reading asks some pure questions of the same text several times (which townships it names,
what search it asks for, its lexicon words). Inside :func:`one_reading` each answer is kept in a dict
held by a ``ContextVar`` (so threads and tasks never share it); when the reading ends the dict is
dropped, so no words of a message outlive its reading. Outside it a memoised function just runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any, TypeVar

_MEMO: ContextVar[dict[tuple[Any, str], Any] | None] = ContextVar("local_reading_memo", default=None)

T = TypeVar("T")
_UNSET = object()


class _OneReading:
    """(A class, not a generator: it is entered on every read.)"""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _MEMO.set({}) if _MEMO.get() is None else None

    def __exit__(self, *_: object) -> None:
        if self._token is not None:
            _MEMO.reset(self._token)


def one_reading() -> AbstractContextManager[None]:
    """Answers of :func:`memoised` functions are kept until this block ends (nested: the outer one)."""
    return _OneReading()


def memoised(fn: Callable[[str], T]) -> Callable[[str], T]:
    """``fn`` of one text, answered once per text within :func:`one_reading`. ``fn`` must be pure and
    return a value no caller changes (a tuple, a string, a bool, a frozen object)."""

    @functools.wraps(fn)
    def once(text: str) -> T:
        memo = _MEMO.get()
        if memo is None:
            return fn(text)
        key = (once, text)
        found = memo.get(key, _UNSET)  # (one look-up when answered before)
        if found is not _UNSET:
            return found
        value = memo[key] = fn(text)
        return value

    return once
