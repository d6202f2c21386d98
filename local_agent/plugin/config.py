"""The plugin's constructor checks, its defaults, its keys and its warnings."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path

from local_agent.context.errors import LocalError
from local_agent.context.exchanges import Summarize
from local_agent.context.journal import JournalStorage, MemoryJournalStorage
from local_agent.plugin.sqlite_journal import SqliteJournalStorage

log = logging.getLogger("local_agent.plugin")

PLUGIN_NAME = "bounded_context"
DEFAULT_BUDGET_BYTES = 16384
DEFAULT_MAX_EXCHANGES = 2
DEFAULT_MAX_PROJECTION_CHARS = 400
# Codes logged when ``summarize`` fails; the summary is then empty (the exchanges are kept).
SUMMARY_FAILED = "SUMMARY_FAILED"
SUMMARY_NOT_TEXT = "SUMMARY_NOT_TEXT"
SUMMARY_TOO_LONG = "SUMMARY_TOO_LONG"
Revision = Callable[[str], int]


class PluginConfigError(LocalError, ValueError):
    """A constructor argument that cannot work; raised before the plugin exists."""

    code = "INVALID_PLUGIN_CONFIG"


def warn(what: str, code: str, detail: str = "") -> None:
    """One warning: the code first in the message (and in ``extra``), never any text of a turn."""
    log.warning("%s: %s%s", code, what, f" ({detail})" if detail else "", extra={"code": code})


def positive_int(name: str, value: object, *, minimum: int) -> int:
    if type(value) is not int or value < minimum:
        raise PluginConfigError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value


def callable_or_none(name: str, value: object) -> None:
    if value is not None and not callable(value):
        raise PluginConfigError(f"{name} must be callable or None, got {value!r}")


def guarded_summary(summarize: Summarize, max_chars: int) -> Summarize:
    """``summarize`` that never raises into ADK: a failure, a non-text or a text longer than
    ``max_chars`` gives an empty summary, its code logged (never the text)."""

    def run(summary: str, evicted: str) -> str:
        try:
            out: object = summarize(summary, evicted)
        except Exception:  # a user's callable: it may raise anything
            return _no_summary(SUMMARY_FAILED)
        if not isinstance(out, str):
            return _no_summary(SUMMARY_NOT_TEXT)
        return out if len(out) <= max_chars else _no_summary(SUMMARY_TOO_LONG)

    return run


def _no_summary(code: str) -> str:
    warn("summary dropped", code)
    return ""


def _hash(*parts: str) -> str:
    return hashlib.sha256(json.dumps(list(parts)).encode("utf-8")).hexdigest()[:40]


def person_key(plugin_name: str, user_id: str) -> str:
    """The journal scope id of one person's windows (no id stored as it is)."""
    return "plugin:" + _hash(plugin_name, user_id)


def session_key(app_name: str, session_id: str) -> str:
    """One conversation's key inside the person's record."""
    return _hash(app_name, session_id)[:24]


def open_storage(store: object, *, ttl_seconds: float) -> JournalStorage:
    """``None`` → in memory; a path → SQLite; anything with ``load``/``update``/``delete`` (the
    journal's ``JournalStorage`` port: LOCAL's SQLite and Firestore adapters) → itself."""
    if store is None:
        return MemoryJournalStorage(ttl_seconds=ttl_seconds)
    if isinstance(store, (str, Path)):
        return SqliteJournalStorage(store, ttl_seconds=ttl_seconds)
    if all(callable(getattr(store, m, None)) for m in ("load", "update", "delete")):
        return store  # type: ignore[return-value]
    raise PluginConfigError(
        f"store must be None, a SQLite path or a JournalStorage (load, update, delete), got {store!r}"
    )
