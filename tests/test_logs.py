"""JSON log lines with severity; only whitelisted extra fields; third-party text reduced."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest

from local_agent.logs import SAFE_FIELDS, UVICORN_LOGGERS, JsonFormatter, configure_logging


def record(
    name: str, level: int, msg: str, *args, extra: dict | None = None, exc_info=None
) -> logging.LogRecord:
    rec = logging.getLogger(name).makeRecord(name, level, __file__, 1, msg, args, exc_info, extra=extra)
    return rec


def fmt(rec: logging.LogRecord) -> dict:
    line = JsonFormatter().format(rec)
    assert "\n" not in line
    return json.loads(line)


@pytest.mark.parametrize(
    "level,severity",
    [
        (logging.DEBUG, "DEBUG"),
        (logging.INFO, "INFO"),
        (logging.WARNING, "WARNING"),
        (logging.ERROR, "ERROR"),
        (logging.CRITICAL, "CRITICAL"),
    ],
)
def test_every_line_is_json_with_a_cloud_logging_severity(level, severity):
    entry = fmt(record("local_agent.router", level, "turn done"))
    assert entry["severity"] == severity
    assert entry["logger"] == "local_agent.router"
    assert entry["message"] == "turn done"
    assert entry["time"].endswith("Z")


def test_whitelisted_extra_fields_are_kept_and_others_dropped():
    entry = fmt(
        record(
            "local_agent.router",
            logging.INFO,
            "turn",
            extra={
                "code": "STORE_UNAVAILABLE",
                "events_lost": 3,
                "unit": "bytes",
                "dropped_turns": 1,
                "text": "我的電話0912345678",
                "user_id": "Uabc",
                "token": "secret-token",
                "args_dump": {"area": "花壇"},
            },
        )
    )
    assert {k: entry[k] for k in ("code", "events_lost", "unit", "dropped_turns")} == {
        "code": "STORE_UNAVAILABLE",
        "events_lost": 3,
        "unit": "bytes",
        "dropped_turns": 1,
    }
    assert set(entry) <= {"severity", "time", "logger", "message", *SAFE_FIELDS}
    line = JsonFormatter().format(record("local_agent.x", logging.INFO, "m", extra={"text": "0912345678"}))
    assert "0912345678" not in line and "secret-token" not in json.dumps(entry)


def test_third_party_messages_are_reduced_to_their_level():
    entry = fmt(
        record(
            "httpx",
            logging.INFO,
            "POST https://api.line.me/v2/bot/message/reply %s",
            "Authorization: Bearer secret-token",
        )
    )
    assert entry["message"] == "info"
    assert "secret-token" not in json.dumps(entry) and "api.line.me" not in json.dumps(entry)


def test_exceptions_show_only_the_type_for_our_loggers_and_nothing_for_others():
    try:
        raise ValueError("user said 0912345678")
    except ValueError:
        info = sys.exc_info()
    ours = fmt(record("local_agent.turns.service", logging.ERROR, "failed", exc_info=info))
    theirs = fmt(record("google_adk.x", logging.ERROR, "failed %s", "0912345678", exc_info=info))
    assert ours["exception"] == "ValueError"
    assert "exception" not in theirs
    assert "0912345678" not in json.dumps(ours) + json.dumps(theirs)


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    noisy = {
        n: logging.getLogger(n).level
        for n in ("google_adk", "google.adk", "google_genai", "httpx", "uvicorn.access")
    }
    yield
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    for name, level in noisy.items():
        logging.getLogger(name).setLevel(level)


def test_configure_logging_routes_everything_through_one_json_handler(restore_logging):
    stream = io.StringIO()
    configure_logging("INFO", stream=stream)
    configure_logging("INFO", stream=stream)  # idempotent: still one handler of ours
    ours = [h for h in logging.getLogger().handlers if getattr(h, "_local_json", False)]
    assert len(ours) == 1
    logging.getLogger("local_agent.test").warning("hello", extra={"code": "X", "phone": "0912345678"})
    logging.getLogger("httpx").info("GET https://example.invalid/?q=0912345678")  # below WARNING: muted
    logging.getLogger("httpx").warning("GET https://example.invalid/?q=0912345678")
    lines = [json.loads(x) for x in stream.getvalue().splitlines()]
    assert [(e["logger"], e["severity"], e["message"]) for e in lines] == [
        ("local_agent.test", "WARNING", "hello"),
        ("httpx", "WARNING", "warning"),
    ]
    assert lines[0]["code"] == "X" and "phone" not in lines[0]
    assert "0912345678" not in stream.getvalue()


def test_uvicorn_access_lines_keep_method_path_and_status_without_query_or_client():
    rec = record(
        "uvicorn.access",
        logging.INFO,
        '%s - "%s %s HTTP/%s" %d',
        "203.0.113.9:5123",
        "POST",
        "/callback?token=0912345678",
        "1.1",
        200,
    )
    entry = fmt(rec)
    assert entry["message"] == "request" and entry["severity"] == "INFO"
    assert (entry["http_method"], entry["http_path"], entry["http_status"], entry["http_version"]) == (
        "POST",
        "/callback",
        200,
        "1.1",
    )
    assert "0912345678" not in json.dumps(entry) and "203.0.113.9" not in json.dumps(entry)


def test_uvicorn_server_lines_keep_their_text_and_exceptions_only_their_type():
    assert fmt(record("uvicorn.error", logging.INFO, "Started server process [%d]", 42))["message"] == (
        "Started server process [42]"
    )
    try:
        raise RuntimeError("body said 0912345678")
    except RuntimeError:
        info = sys.exc_info()
    entry = fmt(record("uvicorn.error", logging.ERROR, "Exception in ASGI application", exc_info=info))
    assert entry["exception"] == "RuntimeError" and "0912345678" not in json.dumps(entry)


def test_configure_logging_takes_over_uvicorns_own_handlers(restore_logging):
    saved = {
        n: (list(logging.getLogger(n).handlers), logging.getLogger(n).propagate) for n in UVICORN_LOGGERS
    }
    try:
        plain = io.StringIO()
        for name in UVICORN_LOGGERS:  # what uvicorn's default dictConfig leaves: own handler, no propagation
            logging.getLogger(name).addHandler(logging.StreamHandler(plain))
            logging.getLogger(name).propagate = name == "uvicorn.error"
        stream = io.StringIO()
        configure_logging("INFO", stream=stream)
        logging.getLogger("uvicorn.error").info("Uvicorn running on %s", "http://127.0.0.1:8080")
        logging.getLogger("uvicorn.access").info(
            '%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", "/livez?x=1", "1.1", 200
        )
        lines = [json.loads(x) for x in stream.getvalue().splitlines()]
        assert plain.getvalue() == ""
        assert [(e["logger"], e["message"]) for e in lines] == [
            ("uvicorn.error", "Uvicorn running on http://127.0.0.1:8080"),
            ("uvicorn.access", "request"),
        ]
        assert lines[1]["http_path"] == "/livez"
    finally:
        for name, (handlers, propagate) in saved.items():
            logging.getLogger(name).handlers[:] = handlers
            logging.getLogger(name).propagate = propagate


def test_every_whitelisted_field_name_says_what_it_holds():
    assert not {"count", "status", "kind", "accepted"} & set(SAFE_FIELDS)
