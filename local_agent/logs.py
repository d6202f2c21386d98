"""JSON log lines with ``severity`` (Cloud Logging reads it), one format for the app and for uvicorn.

Counts and codes only: call sites never pass message text, tokens or secrets, and the formatter keeps
only whitelisted extra fields, each named for what it holds (``listings_rows``, ``events_lost``,
``http_status``). uvicorn's own lines go through the same formatter: its server messages (start, stop,
bind address) are kept, an access line becomes ``http_method``/``http_path``/``http_status`` with the
query string and the client's address left out, and any other library's message is reduced to its level
(its text might quote a request)."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO, Any

SEVERITY = {"DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "WARNING", "ERROR": "ERROR", "CRITICAL": "CRITICAL"}
SAFE_FIELDS = (
    "code",
    "event_type",
    "event_kind",
    "source_type",
    "duration_ms",
    "exit_ms",
    "delivery",
    "dropped_turns",
    "summary_dropped",
    "unit",
    "tool",
    "preference_origin",
    "queue",
    # the startup line
    "model",
    "store",
    "listings_source",
    "listings_rows",
    "listings_problems",
    "budget",
    "budget_unit",
    "heap_objects_frozen",
    "warm_up_ms",
    # counts, each named for what it counts
    "events_refused",
    "events_accepted",
    "events_lost",
    "turns_completed",
    "turns_dropped",
    "rows_purged",
    "leases_released",
    # the durable inbox
    "events_left_in_inbox",
    "inbox_rows_released",
    "events_resumed",
    "inbox_pending",
    "events_dropped",
    "events_duplicates",
    "events_answered",
    "events_answered_after_restart",
    "events_failed_to_deliver",
    "events_delivered_on_retry",
    "events_given_up",
    "events_pending",
    "attempts",
    "store_health",
    # HTTP: LINE API answers, and uvicorn's access lines
    "http_status",
    "http_method",
    "http_path",
    "http_version",
)
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


def _access_fields(record: logging.LogRecord) -> dict[str, Any]:
    """uvicorn's access record (args: client, method, path with query, HTTP version, status) without
    the client's address and the query string."""
    args = record.args if isinstance(record.args, tuple) else ()
    if len(args) != 5:
        return {}
    _client, method, path, version, status = args
    return {
        "http_method": str(method)[:16],
        "http_path": str(path).split("?", 1)[0][:200],
        "http_version": str(version)[:8],
        "http_status": status if isinstance(status, int) else None,
    }


def _message(record: logging.LogRecord) -> str:
    if record.name.startswith("local_agent"):
        return record.getMessage()
    if record.name == "uvicorn.access":
        return "request"
    if record.name in ("uvicorn", "uvicorn.error"):
        return record.getMessage()  # server life: started, bound to, shutting down (no request data)
    return record.levelname.lower()


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": SEVERITY.get(record.levelname, "DEFAULT"),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "logger": record.name,
            "message": _message(record),
        }
        if record.name == "uvicorn.access":
            entry.update(_access_fields(record))
        for key in SAFE_FIELDS:
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info and (record.name.startswith("local_agent") or record.name in UVICORN_LOGGERS):
            entry["exception"] = record.exc_info[0].__name__ if record.exc_info[0] else None
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(level: str = "INFO", stream: IO[str] | None = None) -> logging.Handler:
    """Route every logger through one JSON handler, uvicorn's included (its own handlers are removed,
    so its lines propagate to this one). Third-party messages are reduced to their level (their text
    might quote a request), ours are kept."""
    handler = logging.StreamHandler(stream or sys.stdout)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_local_json", False):
            root.removeHandler(old)
    handler._local_json = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in UVICORN_LOGGERS:
        uvicorn_logger = logging.getLogger(name)
        for old in list(uvicorn_logger.handlers):
            uvicorn_logger.removeHandler(old)
        uvicorn_logger.propagate = True
        uvicorn_logger.setLevel(logging.NOTSET)
    for noisy in ("google_adk", "google.adk", "google_genai", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return handler
