"""JSON log lines with ``severity`` (Cloud Logging reads it). Counts and codes only:
call sites never pass message text, tokens or secrets, and the formatter keeps only
whitelisted extra fields."""

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
    "source_type",
    "count",
    "status",
    "duration_ms",
    "delivery",
    "kind",
    "dropped_turns",
    "summary_dropped",
    "unit",
    "tool",
    "preference_origin",
    "queue",
)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": SEVERITY.get(record.levelname, "DEFAULT"),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "logger": record.name,
            "message": record.getMessage()
            if record.name.startswith("local_agent")
            else record.levelname.lower(),
        }
        for key in SAFE_FIELDS:
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info and record.name.startswith("local_agent"):
            entry["exception"] = record.exc_info[0].__name__ if record.exc_info[0] else None
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(level: str = "INFO", stream: IO[str] | None = None) -> logging.Handler:
    """Route every logger through one JSON handler. Third-party messages are reduced to their
    level (their text might quote a request), ours are kept."""
    handler = logging.StreamHandler(stream or sys.stdout)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_local_json", False):
            root.removeHandler(old)
    handler._local_json = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper())
    for noisy in ("google_adk", "google.adk", "google_genai", "httpx", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return handler
