"""A fake LINE Messaging API on 127.0.0.1, for tests, the replay tool and the terminal chat.

Standard library only (``http.server.ThreadingHTTPServer`` in a daemon thread), so it runs on a
bare Python. It answers the three endpoints LOCAL uses, with the real API's paths, status codes
and error bodies:

    POST /v2/bot/message/reply       {replyToken, messages, notificationDisabled?}  -> 200 {sentMessages}
    POST /v2/bot/message/push        {to, messages}  (+ X-Line-Retry-Key)           -> 200 {sentMessages}
                                     same retry key again                          -> 409, not a new delivery
    POST /v2/bot/chat/loading/start  {chatId, loadingSeconds}                       -> 202 {}

Every request is recorded (``requests``), whatever its answer; ``replies()``, ``pushes()`` and
``loadings()`` list only the accepted ones, i.e. what a user would have seen.

    with FakeLineApi() as api:
        ... point the SDK at api.base_url ...
        api.fail_next("/message/reply", 500)          # next reply answers 500
        api.delay_next("/message/push", 1.0)          # next push waits 1 s (client timeout)
        api.expire_reply_token("tok-1")
        assert api.wait_for_count(1, "push", timeout=2)
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler

from local_agent.testing.loopback import LoopbackServer

REPLY_PATH = "/v2/bot/message/reply"
PUSH_PATH = "/v2/bot/message/push"
LOADING_PATH = "/v2/bot/chat/loading/start"
_KINDS = {REPLY_PATH: "reply", PUSH_PATH: "push", LOADING_PATH: "loading"}

MAX_MESSAGES = 5
MAX_TEXT_UTF16 = 5000
MAX_QUICK_REPLY_ITEMS = 13
MAX_QUICK_REPLY_LABEL = 20
MAX_CAROUSEL_BUBBLES = 12
MAX_ALT_TEXT = 400

AUTH_FAILED = "Authentication failed. Confirm that the access token in the authorization header is valid."
INVALID_REPLY_TOKEN = "Invalid reply token"
RETRY_KEY_ACCEPTED = "The retry key is already accepted"
INVALID_RETRY_KEY = "The value for the 'X-Line-Retry-Key' header is invalid"

_DEFAULT_FAULT_MESSAGES = {
    400: "Bad request",
    401: AUTH_FAILED,
    403: "Access to this API is not available for your account",
    429: "The API rate limit has been exceeded. Try again later.",
    500: "Internal server error",
    502: "Bad gateway",
    503: "Service unavailable",
}


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received. ``headers`` keys are lower-case; ``body`` is the parsed JSON
    (``{}`` when absent or unparsable). ``status`` and ``response`` are what the fake answered."""

    path: str
    headers: dict[str, str]
    body: dict
    status: int = 0
    response: dict = field(default_factory=dict)
    method: str = "POST"

    @property
    def kind(self) -> str | None:
        """``"reply"``, ``"push"``, ``"loading"`` or ``None`` for an unknown path."""
        return _KINDS.get(self.path)

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300


@dataclass
class _Fault:
    suffix: str
    remaining: int
    status: int = 0
    body: dict | None = None
    seconds: float = 0.0


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _detail(prop: str, message: str) -> dict:
    return {"message": message, "property": prop}


def _validate_quick_reply(qr: object, prop: str) -> list[dict]:
    if not isinstance(qr, dict):
        return [_detail(prop, "must be an object")]
    items = qr.get("items")
    if not isinstance(items, list) or not items:
        return [_detail(f"{prop}.items", "Size must be between 1 and 13")]
    errors: list[dict] = []
    if len(items) > MAX_QUICK_REPLY_ITEMS:
        errors.append(_detail(f"{prop}.items", "Size must be between 1 and 13"))
    for j, item in enumerate(items):
        iprop = f"{prop}.items[{j}]"
        action = item.get("action") if isinstance(item, dict) else None
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            errors.append(_detail(f"{iprop}.action", "must be specified"))
            continue
        label = action.get("label")
        if label is not None and (not isinstance(label, str) or len(label) > MAX_QUICK_REPLY_LABEL):
            errors.append(_detail(f"{iprop}.action.label", "Length must be between 0 and 20"))
    return errors


def _validate_flex(message: dict, prop: str) -> list[dict]:
    errors: list[dict] = []
    alt = message.get("altText")
    if not isinstance(alt, str) or not alt:
        errors.append(_detail(f"{prop}.altText", "must be specified"))
    elif len(alt) > MAX_ALT_TEXT:
        errors.append(_detail(f"{prop}.altText", "Length must be between 0 and 400"))
    contents = message.get("contents")
    if not isinstance(contents, dict):
        errors.append(_detail(f"{prop}.contents", "must be specified"))
    elif contents.get("type") == "carousel":
        bubbles = contents.get("contents")
        if not isinstance(bubbles, list) or not bubbles or len(bubbles) > MAX_CAROUSEL_BUBBLES:
            errors.append(_detail(f"{prop}.contents.contents", "Size must be between 1 and 12"))
        else:
            for k, bubble in enumerate(bubbles):
                if not isinstance(bubble, dict) or bubble.get("type") != "bubble":
                    errors.append(_detail(f"{prop}.contents.contents[{k}].type", "must be bubble"))
    elif contents.get("type") != "bubble":
        errors.append(_detail(f"{prop}.contents.type", "must be one of [bubble, carousel]"))
    return errors


def _validate_messages(messages: object) -> list[dict]:
    if not isinstance(messages, list) or not messages:
        return [_detail("messages", "Size must be between 1 and 5")]
    errors: list[dict] = []
    if len(messages) > MAX_MESSAGES:
        errors.append(_detail("messages", "Size must be between 1 and 5"))
    for i, message in enumerate(messages):
        prop = f"messages[{i}]"
        if not isinstance(message, dict) or not isinstance(message.get("type"), str) or not message["type"]:
            errors.append(_detail(f"{prop}.type", "must be specified"))
            continue
        if message["type"] == "text":
            text = message.get("text")
            if not isinstance(text, str) or not text:
                errors.append(_detail(f"{prop}.text", "must be specified"))
            elif _utf16_len(text) > MAX_TEXT_UTF16:
                errors.append(_detail(f"{prop}.text", "Length must be between 0 and 5000"))
        elif message["type"] == "flex":
            errors.extend(_validate_flex(message, prop))
        if "quickReply" in message:
            errors.extend(_validate_quick_reply(message["quickReply"], f"{prop}.quickReply"))
    return errors


def _validate_body(kind: str, body: dict) -> list[dict]:
    errors: list[dict] = []
    if kind == "loading":
        chat_id = body.get("chatId")
        if not isinstance(chat_id, str) or not chat_id:
            errors.append(_detail("chatId", "must be specified"))
        seconds = body.get("loadingSeconds", 20)
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 5 <= seconds <= 60 or seconds % 5:
            errors.append(_detail("loadingSeconds", "must be a multiple of 5 between 5 and 60"))
        return errors
    if kind == "reply":
        token = body.get("replyToken")
        if not isinstance(token, str) or not token:
            errors.append(_detail("replyToken", "must be specified"))
    else:
        to = body.get("to")
        if not isinstance(to, str) or not to:
            errors.append(_detail("to", "must be specified"))
    if "notificationDisabled" in body and not isinstance(body["notificationDisabled"], bool):
        errors.append(_detail("notificationDisabled", "must be a boolean"))
    errors.extend(_validate_messages(body.get("messages")))
    return errors


def _bad_request(details: list[dict]) -> dict:
    return {"message": f"The request body has {len(details)} error(s)", "details": details}


@dataclass(frozen=True)
class _Incoming:
    """One request as the fake reads it: the path without its query, lower-case headers, the JSON
    as parsed (``None`` when unparsable) and the body (``{}`` unless it is an object)."""

    method: str
    path: str
    headers: dict[str, str]
    parsed: object
    body: dict

    @classmethod
    def of(cls, method: str, raw_path: str, raw_headers: Message[str, str], raw: bytes) -> _Incoming:
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError):
            parsed = None
        headers = {k.lower(): v for k, v in raw_headers.items()}
        body = parsed if isinstance(parsed, dict) else {}
        return cls(method, raw_path.split("?", 1)[0], headers, parsed, body)

    @property
    def kind(self) -> str | None:
        return _KINDS.get(self.path)


class _Handler(BaseHTTPRequestHandler):
    # Answer in one segment: with Nagle on, aiohttp keep-alive waits ~40 ms per call.
    disable_nagle_algorithm = True
    server_version = "FakeLineApi/1.0"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return  # keep test output quiet

    def _dispatch(self) -> None:
        fake: FakeLineApi = self.server.fake  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        status, payload, extra = fake._handle(self.command, self.path, self.headers, raw)
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("x-line-request-id", str(uuid.uuid4()))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. a simulated timeout): nothing to answer

    do_POST = _dispatch
    do_GET = _dispatch
    do_PUT = _dispatch
    do_DELETE = _dispatch


class FakeLineApi(LoopbackServer):
    """A fake LINE Messaging API server. ``access_token=None`` accepts any non-empty bearer token."""

    def __init__(self, access_token: str | None = None) -> None:
        self.access_token = access_token
        self._cond = threading.Condition()
        self._requests: list[RecordedRequest] = []
        self._faults: list[_Fault] = []
        self._delays: list[_Fault] = []
        self._used_tokens: set[str] = set()
        self._expired_tokens: set[str] = set()
        self._retry_keys: dict[str, tuple[str, list[dict]]] = {}
        self._ids = itertools.count(500000000000000001)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeLineApi:
        if self._server is not None:
            return self
        server = self._serve(_Handler, name="fake-line-api")
        server.fake = self  # type: ignore[attr-defined]
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- records ---------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received, in arrival order of their answers."""
        with self._cond:
            return list(self._requests)

    def _accepted(self, kind: str) -> list[RecordedRequest]:
        with self._cond:
            return [r for r in self._requests if r.kind == kind and r.accepted]

    def replies(self) -> list[RecordedRequest]:
        return self._accepted("reply")

    def pushes(self) -> list[RecordedRequest]:
        return self._accepted("push")

    def loadings(self) -> list[RecordedRequest]:
        return self._accepted("loading")

    def attempts(self, kind: str) -> list[RecordedRequest]:
        """Every request to ``kind``'s endpoint, whatever it was answered."""
        with self._cond:
            return [r for r in self._requests if r.kind == kind]

    def wait_for(self, predicate: Callable[[list[RecordedRequest]], bool], timeout: float = 2.0) -> bool:
        """Block until ``predicate(requests)`` is true; False if ``timeout`` seconds pass first."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(list(self._requests)), timeout=timeout)

    def wait_for_count(self, n: int, kind: str | None = None, timeout: float = 2.0) -> bool:
        """Block until at least ``n`` accepted requests (of ``kind`` if given) were recorded."""
        return self.wait_for(
            lambda reqs: sum(1 for r in reqs if r.accepted and (kind is None or r.kind == kind)) >= n,
            timeout=timeout,
        )

    def clear(self) -> None:
        """Forget recorded requests and pending faults (used tokens and retry keys are kept)."""
        with self._cond:
            self._requests.clear()
            self._faults.clear()
            self._delays.clear()

    def reset(self) -> None:
        """``clear()`` and also forget used/expired reply tokens and accepted retry keys."""
        with self._cond:
            self.clear()
            self._used_tokens.clear()
            self._expired_tokens.clear()
            self._retry_keys.clear()

    # -- fault injection -------------------------------------------------------------------

    def fail_next(self, path_suffix: str, status: int, times: int = 1, body: dict | None = None) -> None:
        """Answer the next ``times`` requests whose path ends with ``path_suffix`` with ``status``."""
        if body is None:
            body = {"message": _DEFAULT_FAULT_MESSAGES.get(status, f"HTTP {status}")}
        with self._cond:
            self._faults.append(_Fault(path_suffix, times, status=status, body=body))

    def delay_next(self, path_suffix: str, seconds: float, times: int = 1) -> None:
        """Hold the next ``times`` matching requests for ``seconds`` before handling them normally
        (a client with a shorter timeout gives up, but the request may still take effect)."""
        with self._cond:
            self._delays.append(_Fault(path_suffix, times, seconds=seconds))

    def expire_reply_token(self, token: str) -> None:
        with self._cond:
            self._expired_tokens.add(token)

    @staticmethod
    def new_reply_token() -> str:
        """A fresh reply token (any unused, unexpired string is accepted)."""
        return uuid.uuid4().hex

    # -- request handling (server threads) -------------------------------------------------

    @staticmethod
    def _take(faults: list[_Fault], path: str) -> _Fault | None:
        for fault in faults:
            if path.endswith(fault.suffix):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    faults.remove(fault)
                return fault
        return None

    def _sent_messages(self, messages: list) -> list[dict]:
        return [{"id": str(next(self._ids)), "quotaConsumed": 1} for _ in messages]

    def _record(self, method: str, path: str, headers: dict, body: dict, status: int, payload: dict) -> None:
        # caller holds self._cond
        self._requests.append(RecordedRequest(path, headers, body, status, payload, method))
        self._cond.notify_all()

    def _handle(
        self, method: str, raw_path: str, raw_headers: Message[str, str], raw: bytes
    ) -> tuple[int, dict, dict]:
        request = _Incoming.of(method, raw_path, raw_headers, raw)
        refused = self._refusal(request)
        if refused is not None:
            return self._answer(request, *refused)
        if request.kind == "loading":
            return self._answer(request, 202, {})
        with self._cond:  # the token or retry-key check, its state change and its record are one step
            return self._answer(
                request, *(self._reply(request) if request.kind == "reply" else self._push(request))
            )

    def _answer(
        self, request: _Incoming, status: int, payload: dict, extra: dict | None = None
    ) -> tuple[int, dict, dict]:
        with self._cond:  # re-entrant: also called with it held
            self._record(request.method, request.path, request.headers, request.body, status, payload)
        return status, payload, extra or {}

    def _refusal(self, request: _Incoming) -> tuple[int, dict] | None:
        """What a request is answered before it can take effect: unknown route, bad token, an
        injected fault (after an injected delay), or a body the real API rejects."""
        if request.method != "POST" or request.kind is None:
            return 404, {"message": "Not found"}
        auth = request.headers.get("authorization", "")
        token = auth[len("Bearer ") :].strip() if auth.startswith("Bearer ") else ""
        if not token or (self.access_token is not None and token != self.access_token):
            return 401, {"message": AUTH_FAILED}
        with self._cond:
            delay = self._take(self._delays, request.path)
        if delay is not None:
            time.sleep(delay.seconds)
        with self._cond:
            fault = self._take(self._faults, request.path)
        if fault is not None:
            return fault.status, dict(fault.body or {})
        if not isinstance(request.parsed, dict):
            return 400, {"message": "The request body could not be parsed as JSON"}
        details = _validate_body(request.kind, request.body)
        return (400, _bad_request(details)) if details else None

    def _reply(self, request: _Incoming) -> tuple[int, dict]:
        # caller holds self._cond
        reply_token = request.body["replyToken"]
        if reply_token in self._used_tokens or reply_token in self._expired_tokens:
            return 400, {"message": INVALID_REPLY_TOKEN}
        self._used_tokens.add(reply_token)
        return 200, {"sentMessages": self._sent_messages(request.body["messages"])}

    def _push(self, request: _Incoming) -> tuple[int, dict, dict]:
        # caller holds self._cond
        retry_key = request.headers.get("x-line-retry-key")
        if retry_key is not None:
            try:
                uuid.UUID(retry_key)
            except ValueError:
                return 400, {"message": INVALID_RETRY_KEY}, {}
            if retry_key in self._retry_keys:
                request_id, sent = self._retry_keys[retry_key]
                accepted = {"message": RETRY_KEY_ACCEPTED, "sentMessages": sent}
                return 409, accepted, {"x-line-accepted-request-id": request_id}
        sent = self._sent_messages(request.body["messages"])
        if retry_key is not None:
            self._retry_keys[retry_key] = (str(uuid.uuid4()), sent)
        return 200, {"sentMessages": sent}, {}
