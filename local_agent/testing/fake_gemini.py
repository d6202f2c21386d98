"""A local fake Gemini HTTP endpoint for tests: stdlib ``ThreadingHTTPServer`` on 127.0.0.1.

It answers the REST paths google-genai 2.34.0 sends (``google/genai/models.py`` builds
``{model}:generateContent`` / ``{model}:streamGenerateContent?alt=sse`` / ``{model}:countTokens``
and ``_api_client.BaseApiClient._build_request`` prefixes the API version and, on Vertex, the
project and location):

* Gemini Developer API: ``POST /{api_version}/models/{model}:{action}`` (default ``v1beta``)
* Vertex AI: ``POST /{api_version}/projects/{p}/locations/{l}/publishers/google/models/{model}:{action}``
  (default ``v1beta1``), and the express-mode form without ``projects/{p}/locations/{l}/``.

Every request is recorded (path, lower-cased headers, JSON body, what was answered), thread-safely.
``generateContent`` answers from a script, then from ``responder``, then with the text "好的";
``countTokens`` answers ``{"totalTokens": fake_token_count(body)}``. ``fail_next`` injects errors
in Google's error JSON shape; ``stall_next`` holds answers back (a slow or hung endpoint).

    with FakeGemini(script=[{"function_call": {"name": "f", "args": {}}}, {"text": "done"}]) as fake:
        client = genai.Client(api_key="k", http_options={"base_url": fake.base_url})
        ...
        fake.generate_requests[0].body["systemInstruction"]
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from local_agent.testing.loopback import LoopbackServer

__all__ = ["DEFAULT_TEXT", "FakeGemini", "RecordedRequest", "fake_token_count"]

DEFAULT_TEXT = "好的"

GENERATE_ACTIONS = ("generateContent", "streamGenerateContent")
COUNT_ACTION = "countTokens"

_DEVELOPER_PATH = re.compile(r"^/(?P<api_version>v[^/]+)/models/(?P<model>[^/:]+):(?P<action>[A-Za-z]+)$")
_VERTEX_PATH = re.compile(
    r"^/(?P<api_version>v[^/]+)/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
    r"/publishers/google/models/(?P<model>[^/:]+):(?P<action>[A-Za-z]+)$"
)
_VERTEX_EXPRESS_PATH = re.compile(
    r"^/(?P<api_version>v[^/]+)/publishers/google/models/(?P<model>[^/:]+):(?P<action>[A-Za-z]+)$"
)

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

Responder = Callable[[Any], Mapping[str, Any]]


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def fake_token_count(body: Any) -> int:
    """The fake's deterministic "token" count: UTF-8 bytes of the canonical JSON // 4, at least 1.

    Canonical JSON = sorted keys, no spaces, non-ASCII as is; so the count does not depend on how
    the client happened to serialise the body.
    """
    return max(1, len(_canonical(body).encode("utf-8")) // 4)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received and what it answered."""

    method: str
    path: str  # without the query string
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None (empty / not JSON: see ``raw``)
    raw: bytes
    action: str | None  # "generateContent" | "streamGenerateContent" | "countTokens" | None
    model: str | None
    api_version: str | None
    vertex: bool
    project: str | None
    location: str | None
    status: int = 200
    response: Any = field(default=None)  # the JSON answered (error JSON on a fault)


def _check_part(item: Mapping[str, Any]) -> None:
    keys = set(item) & {"function_call", "text"}
    if len(keys) != 1:
        raise ValueError(f"a part needs exactly one of 'function_call' or 'text': {item!r}")
    if "function_call" in item:
        call = item["function_call"]
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise ValueError(f"function_call needs a name: {item!r}")
    elif not isinstance(item["text"], str):
        raise ValueError(f"text must be a str: {item!r}")
    if not isinstance(item.get("thought", False), bool):
        raise ValueError(f"thought must be a bool: {item!r}")


def _check_item(item: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise TypeError(f"script item must be a mapping, got {type(item).__name__}")
    if "parts" in item:
        parts = item["parts"]
        if set(item) - {"parts"} or not isinstance(parts, list) or not parts:
            raise ValueError(f"'parts' needs a non-empty list and nothing beside it: {item!r}")
        for part in parts:
            if not isinstance(part, Mapping):
                raise TypeError(f"a part must be a mapping: {part!r}")
            _check_part(part)
        return {"parts": [dict(p) for p in parts]}
    _check_part(item)
    return dict(item)


def _part(item: Mapping[str, Any]) -> dict[str, Any]:
    if "function_call" in item:
        call = item["function_call"]
        wire: dict[str, Any] = {"name": call["name"], "args": dict(call.get("args") or {})}
        if call.get("id"):
            wire["id"] = call["id"]
        return {"functionCall": wire}
    if item.get("thought"):
        return {"text": item["text"], "thought": True}
    return {"text": item["text"]}


def _parts(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [_part(p) for p in item["parts"]] if "parts" in item else [_part(item)]


class FakeGemini(LoopbackServer):
    """A scripted Gemini endpoint on ``127.0.0.1`` (free port), served from a daemon thread.

    ``script``: items answered in order by generateContent / streamGenerateContent, each either
    ``{"function_call": {"name": ..., "args": {...}}}`` or ``{"text": "..."}`` (with
    ``"thought": True``, a thought part), or ``{"parts": [...]}``: several such parts in one
    response (text beside a tool call, thoughts only, two calls). When the script is
    used up, ``responder(body)`` (if given) returns the next item, else the text ``DEFAULT_TEXT``.
    ``token_counter(body)`` answers ``countTokens`` (default ``fake_token_count``).
    """

    def __init__(
        self,
        script: Iterable[Mapping[str, Any]] = (),
        *,
        responder: Responder | None = None,
        token_counter: Callable[[Any], int] | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self._lock = threading.Lock()
        self._script: deque[dict[str, Any]] = deque(_check_item(i) for i in script)
        self._faults: deque[tuple[int, str | None]] = deque()
        self._stalls: deque[tuple[float, str | None]] = deque()
        self._records: list[RecordedRequest] = []
        self._responder = responder
        self._token_counter = token_counter or fake_token_count
        self._host = host
        self._served = 0

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeGemini:
        if self._server is not None:
            return self
        self._serve(_make_handler(self), name="fake-gemini")
        return self

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:{port}/`` — give it to google-genai as ``HttpOptions.base_url``."""
        return f"http://{self._host}:{self.port}/"

    # --- script and faults ------------------------------------------------------------------

    def push(self, *items: Mapping[str, Any]) -> None:
        """Append items to the script."""
        checked = [_check_item(i) for i in items]
        with self._lock:
            self._script.extend(checked)

    @property
    def script_remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def fail_next(self, status: int, times: int = 1, message: str | None = None) -> None:
        """The next ``times`` model requests (any action) answer ``status`` with Google's error JSON."""
        if not 400 <= status <= 599:
            raise ValueError("status must be an HTTP error status (400-599)")
        if times < 1:
            raise ValueError("times must be >= 1")
        with self._lock:
            self._faults.extend([(status, message)] * times)

    def stall_next(self, seconds: float, times: int = 1, *, action: str | None = None) -> None:
        """The next ``times`` requests (of ``action`` only, when given) wait ``seconds`` before
        answering; a client that gave up meanwhile is not an error for the fake."""
        if seconds <= 0 or times < 1:
            raise ValueError("seconds must be > 0 and times >= 1")
        with self._lock:
            self._stalls.extend([(seconds, action)] * times)

    def _take_stall(self, action: str | None) -> float:
        with self._lock:
            for i, (seconds, only) in enumerate(self._stalls):
                if only is None or only == action:
                    del self._stalls[i]
                    return seconds
        return 0.0

    # --- what was received ------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._records)

    @property
    def generate_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.action in GENERATE_ACTIONS]

    @property
    def count_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.action == COUNT_ACTION]

    def clear(self) -> None:
        """Forget recorded requests (the script and pending faults stay)."""
        with self._lock:
            self._records.clear()

    # --- answering (called from handler threads) --------------------------------------------

    def _next_item(self, body: Any) -> dict[str, Any]:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self._responder is not None:
            return _check_item(self._responder(body))
        return {"text": DEFAULT_TEXT}

    def _take_fault(self) -> tuple[int, str | None] | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _record(self, rec: RecordedRequest) -> None:
        with self._lock:
            self._records.append(rec)

    def _generate_response(self, model: str, body: Any) -> dict[str, Any]:
        parts = _parts(self._next_item(body))
        with self._lock:
            self._served += 1
            n = self._served
        prompt = fake_token_count(body)
        out = fake_token_count(parts[0] if len(parts) == 1 else parts)
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": parts},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": out,
                "totalTokenCount": prompt + out,
            },
            "modelVersion": model,
            "responseId": f"fake-{n}",
        }


def _error_json(status: int, message: str | None) -> dict[str, Any]:
    return {
        "error": {
            "code": status,
            "message": message or f"fake gemini: injected {status}",
            "status": _STATUS_NAMES.get(status, "UNKNOWN"),
        }
    }


def _route(path: str) -> tuple[dict[str, str], bool]:
    """The path's groups (api_version, model, action, and on Vertex project and location) and
    whether it is a Vertex path; ``({}, False)`` when no route matches."""
    for pattern, vertex in ((_VERTEX_PATH, True), (_VERTEX_EXPRESS_PATH, True), (_DEVELOPER_PATH, False)):
        match = pattern.match(path)
        if match:
            return match.groupdict(), vertex
    return {}, False


def _answer(
    fake: FakeGemini, command: str, path: str, groups: Mapping[str, str], body: Any
) -> tuple[int, Any]:
    """Status and JSON for one request, after any injected stall: no route 404, an injected
    fault, a body that is not a JSON object 400, else countTokens (``token_counter``) or the next
    generate answer (a broken responder answers 500)."""
    action = groups.get("action")
    stall = fake._take_stall(action)
    if stall:
        time.sleep(stall)
    if command != "POST" or action not in (*GENERATE_ACTIONS, COUNT_ACTION):
        return 404, _error_json(404, f"fake gemini: no route for {command} {path}")
    fault = fake._take_fault()
    if fault is not None:
        return fault[0], _error_json(*fault)
    if not isinstance(body, dict):
        return 400, _error_json(400, "fake gemini: body must be a JSON object")
    if action == COUNT_ACTION:
        return 200, {"totalTokens": fake._token_counter(body)}
    try:
        return 200, fake._generate_response(groups.get("model") or "", body)
    except Exception as exc:  # a broken responder is a test bug: answer 500, keep serving
        return 500, _error_json(500, f"fake gemini responder failed: {exc!r}")


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeGemini/1"
    fake: FakeGemini  # set on the subclass ``_make_handler`` builds

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _send(self, status: int, payload: Any, *, sse: bool = False) -> None:
        if sse:
            data = ("data: " + json.dumps(payload, ensure_ascii=False) + "\r\n\r\n").encode("utf-8")
            ctype = "text/event-stream"
        else:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            ctype = "application/json; charset=UTF-8"
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a stalled answer)
            self.close_connection = True

    def _handle(self) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        groups, vertex = _route(split.path)
        status, payload = _answer(self.fake, self.command, split.path, groups, body)
        self.fake._record(
            RecordedRequest(
                method=self.command,
                path=split.path,
                query=parse_qs(split.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                raw=raw,
                action=groups.get("action"),
                model=groups.get("model"),
                api_version=groups.get("api_version"),
                vertex=vertex,
                project=groups.get("project"),
                location=groups.get("location"),
                status=status,
                response=payload,
            )
        )
        self._send(status, payload, sse=status == 200 and groups.get("action") == "streamGenerateContent")


def _make_handler(fake: FakeGemini) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"fake": fake})
